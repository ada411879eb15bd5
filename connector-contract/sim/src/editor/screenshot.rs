//! `screenshot`: real PNG files of the requested size under the project folder, plus the
//! evidence-only modes (UI annotations, physics colliders, Editor UI elements).
//!
//! The simulator has no renderer: an image is the view's background colour (the Game view uses
//! the camera's background colour, an isolated shot its `background`), and the reply says so.

use super::args::{Args, Fail, round};
use super::editor_state::WINDOWS;
use super::{Editor, Handled, InvokeContext, ok, png};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const SELECTABLES: [&str; 9] = [
    "Button",
    "Toggle",
    "Slider",
    "Scrollbar",
    "InputField",
    "TMP_InputField",
    "Dropdown",
    "TMP_Dropdown",
    "ScrollRect",
];
const COLLIDERS: [&str; 5] = [
    "BoxCollider",
    "SphereCollider",
    "CapsuleCollider",
    "MeshCollider",
    "CharacterController",
];

fn parse_color(s: &str) -> Result<[u8; 4], Fail> {
    if s.eq_ignore_ascii_case("transparent") {
        return Ok([0, 0, 0, 0]);
    }
    let hex = s
        .strip_prefix('#')
        .filter(|h| h.len() == 6 || h.len() == 8)
        .ok_or_else(|| Fail::invalid("background", "expected transparent or #RRGGBB[AA]"))?;
    let byte = |i: usize| {
        u8::from_str_radix(&hex[i..i + 2], 16)
            .map_err(|_| Fail::invalid("background", "bad hex digit"))
    };
    Ok([
        byte(0)?,
        byte(2)?,
        byte(4)?,
        if hex.len() == 8 { byte(6)? } else { 255 },
    ])
}

fn annotations(ed: &Editor, max: usize) -> Vec<Value> {
    ed.world
        .walk()
        .into_iter()
        .filter_map(|id| {
            let o = ed.world.get(id)?;
            let ty = SELECTABLES.iter().find(|t| o.has_component(t))?;
            let interactable = o.component(ty).and_then(|c| c.props.get("m_Interactable")).is_none_or(|v| v != &json!(false));
            Some(json!({"instance_id": id, "path": ed.world.path_of(id), "type": ty, "interactable": interactable,
                        "active": ed.world.active_in_hierarchy(id),
                        "screen_position": super::ui::screen_center(ed, id).map(super::args::v2json)}))
        })
        .take(max)
        .collect()
}

fn physics(ed: &Editor, a: Args) -> Result<Value, Fail> {
    let max = a.limit("max_physics_hits", 32, 1, 100)?;
    let grid = a.limit("physics_grid_size", 9, 1, 16)?;
    let colliders: Vec<Value> = ed
        .world
        .walk()
        .into_iter()
        .filter(|id| ed.world.active_in_hierarchy(*id))
        .filter_map(|id| {
            let o = ed.world.get(id)?;
            let ty = COLLIDERS.iter().find(|t| o.has_component(t))?;
            let p = ed.world.pose(id).position;
            Some(json!({"instance_id": id, "path": ed.world.path_of(id), "collider": ty,
                        "position": {"x": round(p[0]), "y": round(p[1]), "z": round(p[2])}, "layer": o.layer}))
        })
        .take(max)
        .collect();
    Ok(json!({
        "grid_size": grid, "rays": grid * grid, "colliders": colliders,
        "note": "the simulator lists active colliders in the loaded scenes; it does not trace rays",
    }))
}

fn editor_ui(a: Args) -> Result<Value, Fail> {
    let wanted = a
        .str("editor_window")?
        .ok_or_else(|| Fail::missing("editor_window"))?;
    let short = wanted.rsplit('.').next().unwrap_or(wanted);
    let (ty, title) = WINDOWS
        .iter()
        .find(|(t, ti)| t.eq_ignore_ascii_case(short) || ti.eq_ignore_ascii_case(wanted))
        .ok_or_else(|| {
            Fail::new(
                "SCREENSHOT_WINDOW_NOT_FOUND",
                format!("No Editor window '{wanted}'."),
            )
        })?;
    let max = a.limit("max_editor_elements", 100, 1, 500)?;
    let selector = a
        .str("editor_selector")?
        .map(|s| s.trim_start_matches(['#', '.']).to_ascii_lowercase());
    let base = title.to_ascii_lowercase().replace(' ', "-");
    let names = [
        format!("unity-{base}-root"),
        format!("unity-{base}-toolbar"),
        format!("unity-{base}-content"),
        format!("unity-{base}-scroll-view"),
        format!("unity-{base}-footer"),
    ];
    let elements: Vec<Value> = names
        .iter()
        .enumerate()
        .filter(|(_, n)| selector.as_ref().is_none_or(|s| n.contains(s.as_str())))
        .map(|(i, n)| json!({"name": n, "type": if i == 3 { "ScrollView" } else { "VisualElement" }, "depth": usize::from(i > 0)}))
        .take(max)
        .collect();
    Ok(
        json!({"window": format!("UnityEditor.{ty}"), "title": title, "elements": elements, "count": elements.len()}),
    )
}

pub fn handle(ed: &mut Editor, _action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    if a.flag("editor_ui_only")? {
        return ok("Editor UI elements.", editor_ui(a)?);
    }
    let max_ann = a.limit("max_annotations", 32, 1, 100)?;
    if a.flag("annotations_only")? {
        let list = annotations(ed, max_ann);
        return ok(
            format!("{} UI annotation(s); no image.", list.len()),
            json!({"view": "game", "annotations": list}),
        );
    }
    if a.flag("physics_only")? {
        return ok(
            "Physics evidence; no image.",
            json!({"view": "game", "physics": physics(ed, a)?}),
        );
    }
    let view = a.str("view")?.unwrap_or("scene").to_ascii_lowercase();
    if view != "scene" && view != "game" {
        return Err(Fail::invalid("view", "expected scene or game"));
    }
    let isolated = a.flag("isolated")?;
    let mut color = [0x2B, 0x2B, 0x2B, 0xFF];
    let mut camera_name = None;
    let mut subject = None;
    if isolated {
        let t = a.text("instance_id")?.or(a.str("path")?.map(str::to_string)).or(a.str("target")?.map(str::to_string))
            .ok_or_else(|| Fail::new("MISSING_ARGUMENT", "An isolated shot needs target, path or instance_id.")
                .with_data(json!({"path": "/isolated", "expected": "target, path, or instance_id when isolated is true", "actual": null})))?;
        let id = ed.world.resolve(&t).ok_or_else(|| {
            Fail::new("TARGET_NOT_FOUND", format!("No GameObject matches '{t}'."))
        })?;
        subject = Some(ed.world.path_of(id));
        color = parse_color(a.str("background")?.unwrap_or("#2B2B2BFF"))?;
    } else if view == "game" {
        let cams: Vec<i64> = ed
            .world
            .walk()
            .into_iter()
            .filter(|id| ed.world.get(*id).is_some_and(|o| o.has_component("Camera")))
            .collect();
        let cam = match a.str("camera")? {
            Some(name) => *cams
                .iter()
                .find(|id| ed.world.get(**id).is_some_and(|o| o.name == name))
                .ok_or_else(|| {
                    Fail::new(
                        "SCREENSHOT_CAMERA_NOT_FOUND",
                        format!("No camera named '{name}' in the loaded scenes."),
                    )
                })?,
            None => *cams.first().ok_or_else(|| {
                Fail::new(
                    "SCREENSHOT_NO_CAMERA",
                    "The loaded scenes have no camera to render the Game view.",
                )
            })?,
        };
        camera_name = ed.world.get(cam).map(|o| o.name.clone());
        if let Some(bg) = ed
            .world
            .get(cam)
            .and_then(|o| o.component("Camera"))
            .and_then(|c| c.props.get("m_BackGroundColor"))
        {
            let ch =
                |k: &str| (bg[k].as_f64().unwrap_or(0.0).clamp(0.0, 1.0) * 255.0).round() as u8;
            color = [ch("r"), ch("g"), ch("b"), 255];
        }
    } else if a.str("camera")?.is_some() {
        return Err(Fail::invalid(
            "camera",
            "a camera can only be chosen for the Game view (view: game)",
        ));
    }
    let (mut w, mut h) = (
        a.i64("width")?.unwrap_or(1920).max(1) as u32,
        a.i64("height")?.unwrap_or(1080).max(1) as u32,
    );
    if let Some(cap) = a.i64("max_resolution")?.filter(|c| *c > 0) {
        let long = w.max(h) as f64;
        if long > cap as f64 {
            let s = cap as f64 / long;
            w = ((w as f64 * s).round() as u32).max(1);
            h = ((h as f64 * s).round() as u32).max(1);
        }
    }
    if (w as u64) * (h as u64) > 64_000_000 {
        return Err(Fail::invalid(
            "width",
            "the image would exceed 64 megapixels",
        ));
    }
    let project = ed.project_dir().to_path_buf();
    let rel = a
        .str("output_path")?
        .map(str::to_string)
        .unwrap_or_else(|| format!("Screenshots/screenshot-{:032x}.png", rand::random::<u128>()));
    let angles: Vec<String> = if isolated {
        a.str("angles")?
            .unwrap_or("iso")
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    } else {
        vec![String::new()]
    };
    let overwrite = a.flag("overwrite")?;
    let mut images = Vec::new();
    for angle in &angles {
        let name = if angles.len() > 1 {
            rel.replace(".png", &format!("_{angle}.png"))
        } else {
            rel.clone()
        };
        let full: PathBuf = if Path::new(&name).is_absolute() {
            PathBuf::from(&name)
        } else {
            project.join(&name)
        };
        if full.exists() && !overwrite {
            return Err(Fail::new(
                "SCREENSHOT_FILE_EXISTS",
                format!(
                    "{} already exists; pass overwrite: true to replace it.",
                    full.display()
                ),
            )
            .with_data(json!({"path": name})));
        }
        let bytes = png::solid(w, h, color);
        full.parent()
            .map(std::fs::create_dir_all)
            .transpose()
            .and_then(|_| std::fs::write(&full, &bytes))
            .map_err(|e| {
                Fail::new(
                    "SCREENSHOT_WRITE_FAILED",
                    format!("Cannot write {}: {e}", full.display()),
                )
            })?;
        images.push(json!({"path": name, "absolute_path": full.display().to_string(), "bytes": bytes.len(), "angle": if angle.is_empty() { Value::Null } else { json!(angle) }}));
    }
    // The plain capture is `{path, width, height}` with the absolute path of the PNG; a named
    // Game-view camera adds its name.
    let mut data = json!({"path": images[0]["absolute_path"], "width": w, "height": h});
    if let (Some(name), true) = (&camera_name, a.str("camera")?.is_some()) {
        data["camera"] = json!(name);
    }
    if isolated {
        data["view"] = json!("isolated");
        data["subject"] = json!(subject);
        data["rendered"] =
            json!("background colour only: the simulator does not rasterize scene geometry");
    }
    if images.len() > 1 {
        data["images"] = json!(images);
    }
    if a.flag("annotate_ui")? {
        data["annotations"] = json!(annotations(ed, max_ann));
    }
    if a.flag("annotate_physics")? {
        data["physics"] = physics(ed, a)?;
    }
    ok(
        format!(
            "Screenshot saved to {}",
            data["path"].as_str().unwrap_or("")
        ),
        data,
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_screenshot_writes_png_and_evidence() {
        let mut h = Harness::new();
        let d = h.ok(
            "screenshot",
            json!({"view": "game", "width": 320, "height": 200, "output_path": "Shots/a.png"}),
        );
        let bytes = std::fs::read(d["path"].as_str().unwrap()).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert_eq!(d, json!({"path": d["path"], "width": 320, "height": 200}));
        let named = h.ok(
            "screenshot",
            json!({"view": "game", "camera": "Main Camera", "width": 8, "height": 8}),
        );
        assert_eq!(named["camera"], "Main Camera");
        let plain = h.ok("screenshot", json!({"width": 8, "height": 8}));
        let file = plain["path"].as_str().unwrap();
        assert!(file.starts_with(&format!("{}/Screenshots/screenshot-", h.ed.project_path)));
        assert!(std::path::Path::new(file).is_file());
        assert_eq!(
            h.err("screenshot", json!({"output_path": "Shots/a.png"})),
            "SCREENSHOT_FILE_EXISTS"
        );
        h.ok(
            "screenshot",
            json!({"output_path": "Shots/a.png", "overwrite": true, "max_resolution": 64}),
        );
        let iso = h.ok("screenshot", json!({"isolated": true, "target": "Player", "angles": "front,top", "width": 32, "height": 32, "output_path": "Shots/p.png"}));
        assert_eq!(iso["images"].as_array().unwrap().len(), 2);
        let phys = h.ok("screenshot", json!({"physics_only": true}));
        assert!(
            phys["physics"]["colliders"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["path"] == "Player")
        );
        let ui = h.ok(
            "screenshot",
            json!({"editor_ui_only": true, "editor_window": "Inspector"}),
        );
        assert_eq!(ui["window"], "UnityEditor.InspectorWindow");
    }

    #[test]
    fn editor_screenshot_of_a_project_missing_on_disk_goes_to_the_simulators_own_folder() {
        let mut h = Harness::new();
        h.ed = super::super::Editor::new("/nonexistent-hera-sim/Unity/MyGame");
        let d = h.ok("screenshot", json!({"width": 4, "height": 4}));
        let file = std::path::Path::new(d["path"].as_str().unwrap());
        assert!(file.starts_with(h.ed.project_dir()), "{d}");
        assert!(file.is_file());
        assert!(!std::path::Path::new("/nonexistent-hera-sim").exists());
    }
}
