//! `scene`: open, create, save, close and inspect scenes. Scene files are `AssetKind::Scene`
//! trees; loading instantiates them into the world with fresh ids, saving captures them back.

use super::args::{Args, Fail};
use super::asset_db::{self, AssetKind};
use super::editor_state::PlayState;
use super::world::{Node, scene_name};
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    Single,
    Additive,
    AdditiveWithoutLoading,
}

/// Open a scene asset that is known to exist. Returns the scene handle.
pub fn open(ed: &mut Editor, path: &str, mode: OpenMode) -> i64 {
    let roots: Vec<Node> = match ed.assets.get(path).map(|a| &a.kind) {
        Some(AssetKind::Scene(roots)) => roots.clone(),
        _ => Vec::new(),
    };
    if mode == OpenMode::Single {
        let handles: Vec<i64> = ed.world.scenes.iter().map(|s| s.handle).collect();
        for h in handles {
            ed.world.remove_scene(h);
        }
    }
    // An additively listed, unloaded scene gets loaded in place.
    let existing = ed.world.scene_by_path(path).map(|s| s.handle);
    let handle = match existing {
        Some(h) => h,
        None => ed
            .world
            .add_scene(path, mode != OpenMode::AdditiveWithoutLoading),
    };
    if mode != OpenMode::AdditiveWithoutLoading {
        if let Some(s) = ed.world.scene_mut(handle) {
            s.loaded = true;
        }
        for r in &roots {
            ed.world.instantiate(r, handle, None);
        }
        if let Some(s) = ed.world.scene_mut(handle) {
            s.dirty = false;
        }
        if mode == OpenMode::Single || !ed.world.active().is_some_and(|s| s.loaded) {
            ed.world.active_scene = handle;
        }
    }
    handle
}

/// Find a scene asset by path, path without `.unity`, path without `Assets/`, or unique name.
pub fn find_asset(ed: &Editor, raw: &str) -> Option<String> {
    let t = raw.trim().replace('\\', "/");
    let candidates = [
        t.clone(),
        format!("{t}.unity"),
        format!("Assets/{t}"),
        format!("Assets/{t}.unity"),
    ];
    for c in &candidates {
        if matches!(ed.assets.get(c).map(|a| &a.kind), Some(AssetKind::Scene(_))) {
            return Some(c.clone());
        }
    }
    let by_name: Vec<&String> = ed
        .assets
        .entries
        .iter()
        .filter(|(p, a)| {
            matches!(a.kind, AssetKind::Scene(_)) && scene_name(p).eq_ignore_ascii_case(&t)
        })
        .map(|(p, _)| p)
        .collect();
    (by_name.len() == 1).then(|| by_name[0].clone())
}

/// A scene in the hierarchy (loaded or listed) by path or name.
fn find_open(ed: &Editor, raw: &str) -> Option<i64> {
    let t = raw.trim();
    ed.world
        .scenes
        .iter()
        .find(|s| s.path == t || s.path == format!("{t}.unity") || s.name().eq_ignore_ascii_case(t))
        .map(|s| s.handle)
}

fn not_loaded(raw: &str, ed: &Editor) -> Fail {
    let loaded: Vec<String> = ed.world.scenes.iter().map(|s| s.path.clone()).collect();
    Fail::new(
        "SCENE_NOT_LOADED",
        format!("Scene '{raw}' is not open in the hierarchy."),
    )
    .with_data(json!({"scene": raw, "open_scenes": loaded}))
}

fn block_in_play(ed: &Editor, what: &str) -> Result<(), Fail> {
    if ed.play.state != PlayState::Edit {
        return Err(Fail::new(
            "IN_PLAY_MODE",
            format!("Cannot {what} while in play mode; stop play mode first (manage_editor stop)."),
        ));
    }
    Ok(())
}

/// `{name, path}` of an open scene, as most scene actions answer.
fn name_path(ed: &Editor, handle: i64) -> Value {
    match ed.world.scene(handle) {
        Some(s) => json!({"name": s.name(), "path": s.path}),
        None => Value::Null,
    }
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "info" => info(ed),
        "list" => list(ed),
        "hierarchy" => hierarchy(ed, a),
        "load" => load(ed, a),
        "create" => create(ed, a),
        "save" => save(ed, a),
        "save_all" => {
            block_in_play(ed, "save scenes")?;
            let dirty: Vec<i64> = ed
                .world
                .scenes
                .iter()
                .filter(|s| s.loaded && s.dirty)
                .map(|s| s.handle)
                .collect();
            let saved: Vec<String> = dirty.into_iter().map(|h| save_scene(ed, h)).collect();
            ok(
                format!("Saved {} scene(s).", saved.len()),
                json!({"saved": !saved.is_empty(), "scenes": saved}),
            )
        }
        "set_active" => {
            let raw = a.req_str("path")?;
            let h = find_open(ed, raw).ok_or_else(|| not_loaded(raw, ed))?;
            if !ed.world.scene(h).is_some_and(|s| s.loaded) {
                return Err(not_loaded(raw, ed));
            }
            ed.world.active_scene = h;
            ok(
                format!(
                    "Active scene is now {}.",
                    ed.world.scene(h).map(|s| s.name()).unwrap_or_default()
                ),
                name_path(ed, h),
            )
        }
        "close" => close(ed, a),
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

/// `info`: the active scene and every loaded one. The Connector writes these keys in
/// camelCase (`isDirty`, `isLoaded`, `rootCount`) although its published schema says
/// snake_case; the simulator reproduces the disagreement so clients meet it in tests.
fn info(ed: &Editor) -> Handled {
    let summary = |h: i64| ed.world.scene(h);
    let active = summary(ed.world.active_scene)
        .map(|s| json!({"name": s.name(), "path": s.path, "isDirty": s.dirty}));
    let loaded: Vec<Value> = ed
        .world
        .scenes
        .iter()
        .filter(|s| s.loaded)
        .map(|s| {
            json!({
                "name": s.name(), "path": s.path, "isLoaded": s.loaded,
                "isDirty": s.dirty, "rootCount": s.roots.len(),
            })
        })
        .collect();
    ok("OK", json!({"active": active, "loaded": loaded}))
}

/// `list`: the Build Settings scenes, as a bare JSON array.
fn list(ed: &Editor) -> Handled {
    let scenes: Vec<Value> = ed
        .build
        .scenes
        .iter()
        .enumerate()
        .map(|(i, b)| json!({"index": i, "path": b.path, "enabled": b.enabled}))
        .collect();
    ok("OK", Value::Array(scenes))
}

struct Walk<'e> {
    ed: &'e Editor,
    components: bool,
    depth: usize,
    max_nodes: usize,
    count: usize,
    truncated: bool,
}

impl Walk<'_> {
    fn node(&mut self, id: i64, level: usize) -> Option<Value> {
        if self.count >= self.max_nodes {
            self.truncated = true;
            return None;
        }
        let o = self.ed.world.get(id)?;
        self.count += 1;
        let mut v = json!({"instance_id": id, "name": o.name, "active": o.active});
        if self.components {
            v["components"] = json!(o.component_types());
        }
        // `children` is always present, empty at the depth limit.
        let kids: Vec<Value> = if self.depth == 0 || level + 1 < self.depth {
            o.children
                .iter()
                .filter_map(|c| self.node(*c, level + 1))
                .collect()
        } else {
            Vec::new()
        };
        v["children"] = json!(kids);
        Some(v)
    }
}

fn hierarchy(ed: &Editor, a: Args) -> Handled {
    let mut w = Walk {
        ed,
        components: a.flag("components")?,
        depth: a.i64("depth")?.unwrap_or(0).max(0) as usize,
        max_nodes: a.limit("max_nodes", 500, 1, 5000)?,
        count: 0,
        truncated: false,
    };
    if let Some(root) = a.text("root")? {
        let id = ed.world.resolve(&root).ok_or_else(|| {
            Fail::new(
                "TARGET_NOT_FOUND",
                format!("No GameObject matches '{root}'."),
            )
            .with_data(json!({"root": root}))
        })?;
        let node = w.node(id, 0);
        let (count, truncated) = (w.count, w.truncated);
        return ok(
            format!("{count} node(s) under {}.", ed.world.path_of(id)),
            json!({"root": node, "node_count": count, "truncated": truncated}),
        );
    }
    let mut scenes = Vec::new();
    // Loaded scenes only, with snake_case keys (unlike `info`).
    for s in ed.world.scenes.iter().filter(|s| s.loaded) {
        let roots: Vec<Value> = s.roots.iter().filter_map(|r| w.node(*r, 0)).collect();
        scenes.push(json!({
            "name": s.name(), "path": s.path,
            "is_active": s.handle == ed.world.active_scene, "is_dirty": s.dirty, "roots": roots,
        }));
    }
    let (count, truncated) = (w.count, w.truncated);
    ok(
        format!(
            "{count} node(s) in {} scene(s){}.",
            scenes.len(),
            if truncated { " (truncated)" } else { "" }
        ),
        json!({"scenes": scenes, "node_count": count, "truncated": truncated}),
    )
}

fn load(ed: &mut Editor, a: Args) -> Handled {
    block_in_play(ed, "open scenes")?;
    let raw = a.req_str("path")?;
    let path = find_asset(ed, raw).ok_or_else(|| {
        Fail::new(
            "SCENE_NOT_FOUND",
            format!("No scene asset matches '{raw}'."),
        )
        .with_data(json!({"path": raw}))
    })?;
    let mode = match a
        .str("mode")?
        .unwrap_or("single")
        .to_ascii_lowercase()
        .as_str()
    {
        "single" => OpenMode::Single,
        "additive" => OpenMode::Additive,
        "additive_without_loading" | "additivewithoutloading" => OpenMode::AdditiveWithoutLoading,
        other => return Err(Fail::invalid("mode", format!("unknown mode '{other}'"))),
    };
    if mode != OpenMode::Single && ed.world.scene_by_path(&path).is_some_and(|s| s.loaded) {
        return Err(
            Fail::new("SCENE_ALREADY_LOADED", format!("{path} is already loaded."))
                .with_data(json!({"path": path})),
        );
    }
    let discarded: Vec<String> = if mode == OpenMode::Single {
        ed.world
            .scenes
            .iter()
            .filter(|s| s.dirty)
            .map(|s| s.path.clone())
            .collect()
    } else {
        Vec::new()
    };
    let _ = discarded;
    let h = open(ed, &path, mode);
    let mut data = name_path(ed, h);
    // The `OpenSceneMode` enum name, capitalized (unlike `create`'s lower-case echo).
    data["mode"] = json!(format!("{mode:?}"));
    ok(format!("Opened {path}."), data)
}

fn create(ed: &mut Editor, a: Args) -> Handled {
    block_in_play(ed, "create scenes")?;
    let path = asset_db::writable_path("path", a.req_str("path")?)?;
    asset_db::require_ext("path", &path, ".unity")?;
    if ed.assets.contains(&path) {
        return Err(
            Fail::new("SCENE_ALREADY_EXISTS", format!("{path} already exists."))
                .with_data(json!({"path": path})),
        );
    }
    let template = a.str("template")?.unwrap_or("empty").to_ascii_lowercase();
    let roots = match template.as_str() {
        "empty" => Vec::new(),
        "default" => vec![super::seed::camera_node(), super::seed::light_node()],
        other => {
            return Err(Fail::invalid(
                "template",
                format!("unknown template '{other}'"),
            ));
        }
    };
    let mode = match a
        .str("mode")?
        .unwrap_or("single")
        .to_ascii_lowercase()
        .as_str()
    {
        "single" => OpenMode::Single,
        "additive" => OpenMode::Additive,
        other => return Err(Fail::invalid("mode", format!("unknown mode '{other}'"))),
    };
    let discarded: Vec<String> = if mode == OpenMode::Single {
        ed.world
            .scenes
            .iter()
            .filter(|s| s.dirty)
            .map(|s| s.path.clone())
            .collect()
    } else {
        Vec::new()
    };
    ed.assets.put(&path, AssetKind::Scene(roots));
    let _ = discarded;
    let h = open(ed, &path, mode);
    let mut data = name_path(ed, h);
    data["mode"] = json!(if mode == OpenMode::Single {
        "single"
    } else {
        "additive"
    });
    data["template"] = json!(template);
    ok(format!("Created and opened {path}."), data)
}

fn save_scene(ed: &mut Editor, handle: i64) -> String {
    let Some(s) = ed.world.scene(handle) else {
        return String::new();
    };
    let path = s.path.clone();
    let roots: Vec<Node> = s
        .roots
        .iter()
        .filter_map(|r| ed.world.capture(*r))
        .collect();
    ed.assets.put(&path, AssetKind::Scene(roots));
    if let Some(s) = ed.world.scene_mut(handle) {
        s.dirty = false;
    }
    path
}

fn save(ed: &mut Editor, a: Args) -> Handled {
    block_in_play(ed, "save scenes")?;
    let h = match a.str("path")? {
        Some(raw) => find_open(ed, raw).ok_or_else(|| not_loaded(raw, ed))?,
        None => ed.world.active_scene,
    };
    if !ed.world.scene(h).is_some_and(|s| s.loaded) {
        return Err(not_loaded(a.str("path")?.unwrap_or("(active)"), ed));
    }
    let was_dirty = ed.world.scene(h).is_some_and(|s| s.dirty);
    let path = save_scene(ed, h);
    let mut data = name_path(ed, h);
    data["saved"] = json!(was_dirty);
    ok(format!("Saved {path}."), data)
}

fn close(ed: &mut Editor, a: Args) -> Handled {
    block_in_play(ed, "close scenes")?;
    let raw = a.req_str("path")?;
    let h = find_open(ed, raw).ok_or_else(|| not_loaded(raw, ed))?;
    if ed
        .world
        .scenes
        .iter()
        .filter(|s| s.loaded && s.handle != h)
        .count()
        == 0
    {
        return Err(Fail::new(
            "SCENE_CLOSE_LAST",
            "Cannot close the last loaded scene; open another one first.",
        ));
    }
    let (path, dirty) = ed
        .world
        .scene(h)
        .map(|s| (s.path.clone(), s.dirty))
        .unwrap_or_default();
    let data = name_path(ed, h);
    ed.world.remove_scene(h);
    ok(
        format!(
            "Closed {path}{}.",
            if dirty {
                " (unsaved changes discarded)"
            } else {
                ""
            }
        ),
        data,
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_scene_lifecycle() {
        let mut h = Harness::new();
        h.ok(
            "manage_gameobject",
            json!({"action": "create", "name": "Cube", "primitive": "cube"}),
        );
        let hier = h.ok("scene", json!({"action": "hierarchy"}));
        let roots = hier["scenes"][0]["roots"].as_array().unwrap();
        assert!(roots.iter().any(|r| r["name"] == "Cube"));
        assert_eq!(
            h.ok("scene", json!({"action": "info"}))["active"]["isDirty"],
            true
        );
        h.ok("scene", json!({"action": "save"}));
        assert_eq!(
            h.ok("scene", json!({"action": "info"}))["active"]["isDirty"],
            false
        );

        // Additive load, set active, close.
        h.ok(
            "scene",
            json!({"action": "load", "path": "Level1", "mode": "additive"}),
        );
        assert_eq!(
            h.err(
                "scene",
                json!({"action": "load", "path": "Level1", "mode": "additive"})
            ),
            "SCENE_ALREADY_LOADED"
        );
        h.ok("scene", json!({"action": "set_active", "path": "Level1"}));
        assert_eq!(
            h.ok("scene", json!({"action": "info"}))["active"]["name"],
            "Level1"
        );
        h.ok("scene", json!({"action": "close", "path": "Level1"}));
        assert_eq!(
            h.err("scene", json!({"action": "close", "path": "SampleScene"})),
            "SCENE_CLOSE_LAST"
        );

        // Reload from disk keeps the saved cube.
        h.ok(
            "scene",
            json!({"action": "load", "path": "Assets/Scenes/SampleScene.unity"}),
        );
        assert_eq!(
            h.ok("find_gameobjects", json!({"name": "Cube"}))["total"],
            1
        );

        // Create, list, not-found.
        h.ok(
            "scene",
            json!({"action": "create", "path": "Assets/Scenes/New.unity", "template": "default"}),
        );
        assert_eq!(
            h.ok("scene", json!({"action": "info"}))["loaded"][0]["rootCount"],
            2
        );
        // `list` is the Build Settings list, a bare array of {index, path, enabled}.
        let list = h.ok("scene", json!({"action": "list"}));
        let build = h.ok("build", json!({"action": "get_settings"}));
        assert_eq!(
            list.as_array().unwrap().len(),
            build["scenes"].as_array().unwrap().len()
        );
        assert_eq!(list[0]["index"], 0);
        assert_eq!(
            h.err("scene", json!({"action": "load", "path": "Nope"})),
            "SCENE_NOT_FOUND"
        );
        assert_eq!(
            h.err(
                "scene",
                json!({"action": "create", "path": "Assets/Scenes/New.unity"})
            ),
            "SCENE_ALREADY_EXISTS"
        );
    }

    #[test]
    fn editor_hierarchy_depth_root_and_cap() {
        let mut h = Harness::new();
        let d = h.ok(
            "scene",
            json!({"action": "hierarchy", "root": "Player", "components": true}),
        );
        assert_eq!(d["root"]["name"], "Player");
        assert!(
            d["root"]["components"]
                .as_array()
                .unwrap()
                .contains(&json!("PlayerController"))
        );
        assert_eq!(d["root"]["children"][0]["name"], "CameraTarget");
        let shallow = h.ok("scene", json!({"action": "hierarchy", "depth": 1}));
        assert_eq!(shallow["scenes"][0]["roots"][3]["children"], json!([]));
        let capped = h.ok("scene", json!({"action": "hierarchy", "max_nodes": 2}));
        assert_eq!(capped["node_count"], 2);
        assert_eq!(capped["truncated"], true);
        assert_eq!(
            h.err("scene", json!({"action": "hierarchy", "root": "Ghost"})),
            "TARGET_NOT_FOUND"
        );
    }
}
