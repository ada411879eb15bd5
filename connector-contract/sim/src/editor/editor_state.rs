//! Editor-wide state outside the scenes: play mode, tags and layers, selection, windows and the
//! Scene-view tool; and the `manage_editor` tool over it.
//!
//! Play mode works as in Unity: entering it snapshots the edit-time world, leaving it restores
//! that snapshot, so objects created while playing vanish on stop and scene dirtiness is as it was.

use super::args::{Args, Fail};
use super::world::World;
use super::{Editor, Handled, Invocation, InvokeContext, ReloadReason, ok};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlayState {
    #[default]
    Edit,
    Playing,
    Paused,
}

#[derive(Debug, Default)]
pub struct Play {
    pub state: PlayState,
    pub edit_world: Option<World>,
    pub entered_at_ms: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Selected {
    Object(i64),
    Asset(String),
}

pub const BUILTIN_TAGS: [&str; 7] = [
    "Untagged",
    "Respawn",
    "Finish",
    "EditorOnly",
    "MainCamera",
    "Player",
    "GameController",
];

/// Layers Unity reserves (index, name).
const BUILTIN_LAYERS: [(usize, &str); 5] = [
    (0, "Default"),
    (1, "TransparentFX"),
    (2, "Ignore Raycast"),
    (4, "Water"),
    (5, "UI"),
];

/// (type name, title) of the Editor windows the simulator knows.
pub const WINDOWS: [(&str, &str); 12] = [
    ("SceneView", "Scene"),
    ("GameView", "Game"),
    ("InspectorWindow", "Inspector"),
    ("SceneHierarchyWindow", "Hierarchy"),
    ("ProjectBrowser", "Project"),
    ("ConsoleWindow", "Console"),
    ("AnimationWindow", "Animation"),
    ("AnimatorControllerTool", "Animator"),
    ("ProfilerWindow", "Profiler"),
    ("TestRunnerWindow", "Test Runner"),
    ("PackageManagerWindow", "Package Manager"),
    ("LightingWindow", "Lighting"),
];

#[derive(Debug)]
pub struct Chrome {
    pub tags: Vec<String>,
    pub layers: Vec<Option<String>>,
    pub selection: Vec<Selected>,
    pub active_tool: String,
    pub open_windows: Vec<String>,
    pub focused_window: String,
}

impl Chrome {
    pub fn new() -> Chrome {
        let mut layers = vec![None; 32];
        for (i, n) in BUILTIN_LAYERS {
            layers[i] = Some(n.to_string());
        }
        Chrome {
            tags: BUILTIN_TAGS.iter().map(|t| t.to_string()).collect(),
            layers,
            selection: Vec::new(),
            active_tool: "move".into(),
            open_windows: [
                "SceneView",
                "GameView",
                "InspectorWindow",
                "SceneHierarchyWindow",
                "ProjectBrowser",
                "ConsoleWindow",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            focused_window: "SceneView".into(),
        }
    }

    /// A layer given by name or by index (as text); the index must be 0–31.
    pub fn layer_index(&self, layer: &str) -> Option<u32> {
        if let Ok(i) = layer.trim().parse::<u32>() {
            return (i < 32).then_some(i);
        }
        self.layers
            .iter()
            .position(|l| {
                l.as_deref()
                    .is_some_and(|n| n.eq_ignore_ascii_case(layer.trim()))
            })
            .map(|i| i as u32)
    }
    pub fn layer_name(&self, index: u32) -> String {
        self.layers
            .get(index as usize)
            .cloned()
            .flatten()
            .unwrap_or_default()
    }
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }
}

impl Default for Chrome {
    fn default() -> Self {
        Chrome::new()
    }
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "play" => play(ed, ctx),
        "stop" => stop(ed),
        "pause" => pause(ed),
        "focus" => focus(ed, a),
        "set_active_tool" => {
            let tool = a.req_str("tool_name")?.to_ascii_lowercase();
            const TOOLS: [&str; 7] = [
                "view",
                "move",
                "rotate",
                "scale",
                "rect",
                "transform",
                "custom",
            ];
            if !TOOLS.contains(&tool.as_str()) {
                return Err(Fail::invalid(
                    "tool_name",
                    format!("expected one of {}", TOOLS.join(", ")),
                ));
            }
            let previous = std::mem::replace(&mut ed.chrome.active_tool, tool.clone());
            let _ = previous;
            ok(format!("Active tool set to {tool}."), Value::Null)
        }
        "add_tag" => add_tag(ed, a),
        "remove_tag" => remove_tag(ed, a),
        "add_layer" => add_layer(ed, a),
        "remove_layer" => remove_layer(ed, a),
        "get_tags_layers" => ok("Tags and layers.", tags_layers_json(ed)),
        "get_selection" => {
            let durable = a.flag("durable")?;
            let data = selection_json(ed, durable);
            ok(format!("{} object(s) selected.", data["count"]), data)
        }
        "set_selection" => set_selection(ed, a),
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn play(ed: &mut Editor, ctx: &InvokeContext) -> Handled {
    if ed.play.state != PlayState::Edit {
        return ok("Already in play mode.", Value::Null);
    }
    if ed.compile_errors {
        return Err(Fail::new(
            "PLAYMODE_COMPILE_ERRORS",
            "All compiler errors have to be fixed before you can enter playmode!",
        )
        .with_data(json!({"compile_errors": true})));
    }
    ed.play.edit_world = Some(ed.world.clone());
    ed.play.state = PlayState::Playing;
    ed.play.entered_at_ms = ctx.now_ms;
    let reload = ed.knobs.play_mode_reloads_domain;
    let inv = Invocation::ok("Entered play mode.", Value::Null);
    Ok(if reload {
        inv.with_reload(ReloadReason::EnterPlayMode, false)
    } else {
        inv
    })
}

fn stop(ed: &mut Editor) -> Handled {
    if ed.play.state == PlayState::Edit {
        return ok("Not in play mode.", Value::Null);
    }
    if let Some(w) = ed.play.edit_world.take() {
        ed.world = w;
    }
    ed.play.state = PlayState::Edit;
    let world = &ed.world;
    ed.chrome.selection.retain(|s| match s {
        Selected::Object(id) => world.get(*id).is_some(),
        Selected::Asset(_) => true,
    });
    ok(
        "Exited play mode; scene changes made while playing were discarded.",
        Value::Null,
    )
}

fn pause(ed: &mut Editor) -> Handled {
    let (next, msg) = match ed.play.state {
        PlayState::Edit => {
            return Err(Fail::new(
                "NOT_IN_PLAY_MODE",
                "Pause toggles a running game; enter play mode first (manage_editor play).",
            ));
        }
        PlayState::Playing => (PlayState::Paused, "Play mode paused."),
        PlayState::Paused => (PlayState::Playing, "Play mode resumed."),
    };
    ed.play.state = next;
    ok(msg, Value::Null)
}

fn focus(ed: &mut Editor, a: Args) -> Handled {
    let by_type = a.str("type")?;
    let by_title = a.str("title")?;
    let found = match (by_type, by_title) {
        (Some(t), _) => {
            let short = t.rsplit('.').next().unwrap_or(t);
            WINDOWS
                .iter()
                .find(|(ty, _)| ty.eq_ignore_ascii_case(short))
        }
        (None, Some(title)) => WINDOWS
            .iter()
            .find(|(_, ti)| ti.eq_ignore_ascii_case(title.trim())),
        (None, None) => return Err(Fail::missing("type")),
    };
    let Some((ty, title)) = found else {
        let known: Vec<&str> = WINDOWS.iter().map(|(t, _)| *t).collect();
        return Err(Fail::new(
            "WINDOW_NOT_FOUND",
            format!(
                "No Editor window matches {}.",
                by_type.or(by_title).unwrap_or("")
            ),
        )
        .with_data(json!({"known_types": known})));
    };
    let opened = !ed.chrome.open_windows.iter().any(|w| w == ty);
    if opened {
        ed.chrome.open_windows.push(ty.to_string());
    }
    ed.chrome.focused_window = ty.to_string();
    ok(
        format!("Focused the {title} window."),
        json!({"type": format!("UnityEditor.{ty}"), "title": title}),
    )
}

fn add_tag(ed: &mut Editor, a: Args) -> Handled {
    let tag = a.req_str("tag_name")?.trim().to_string();
    if ed.chrome.has_tag(&tag) {
        return Err(Fail::new(
            "TAG_ALREADY_EXISTS",
            format!("Tag '{tag}' already exists."),
        ));
    }
    ed.chrome.tags.push(tag.clone());
    ok(format!("Tag '{tag}' added."), Value::Null)
}

fn remove_tag(ed: &mut Editor, a: Args) -> Handled {
    let tag = a.req_str("tag_name")?.trim().to_string();
    if BUILTIN_TAGS.contains(&tag.as_str()) {
        return Err(Fail::new(
            "TAG_BUILTIN",
            format!("'{tag}' is a built-in tag and cannot be removed."),
        ));
    }
    if !ed.chrome.has_tag(&tag) {
        return Err(Fail::new(
            "TAG_NOT_FOUND",
            format!("Tag '{tag}' does not exist."),
        ));
    }
    let users: Vec<String> = ed
        .world
        .walk()
        .into_iter()
        .filter(|id| ed.world.get(*id).is_some_and(|o| o.tag == tag))
        .map(|id| ed.world.path_of(id))
        .collect();
    if !users.is_empty() {
        return Err(Fail::new(
            "TAG_IN_USE",
            format!(
                "Tag '{tag}' is used by {} object(s); retag them first.",
                users.len()
            ),
        )
        .with_data(json!({"objects": users})));
    }
    ed.chrome.tags.retain(|t| *t != tag);
    ok(format!("Tag '{tag}' removed."), Value::Null)
}

fn add_layer(ed: &mut Editor, a: Args) -> Handled {
    let name = a.req_str("layer_name")?.trim().to_string();
    if ed
        .chrome
        .layers
        .iter()
        .any(|l| l.as_deref() == Some(name.as_str()))
    {
        return Err(Fail::new(
            "LAYER_ALREADY_EXISTS",
            format!("Layer '{name}' already exists."),
        ));
    }
    // User layers: 8–31 first (the classic slots), then the later-opened 3, 6 and 7.
    let slot = (8..32)
        .chain([3, 6, 7])
        .find(|i| ed.chrome.layers[*i].is_none());
    let Some(index) = slot else {
        return Err(Fail::new(
            "LAYER_LIMIT_REACHED",
            "All 32 layers are in use; remove one first.",
        ));
    };
    ed.chrome.layers[index] = Some(name.clone());
    ok(
        format!("Layer '{name}' added at index {index}."),
        Value::Null,
    )
}

fn remove_layer(ed: &mut Editor, a: Args) -> Handled {
    let name = a.req_str("layer_name")?.trim().to_string();
    let Some(index) = ed
        .chrome
        .layers
        .iter()
        .position(|l| l.as_deref() == Some(name.as_str()))
    else {
        return Err(Fail::new(
            "LAYER_NOT_FOUND",
            format!("Layer '{name}' does not exist."),
        ));
    };
    if BUILTIN_LAYERS.iter().any(|(i, _)| *i == index) {
        return Err(Fail::new(
            "LAYER_BUILTIN",
            format!("'{name}' is a built-in layer and cannot be removed."),
        ));
    }
    ed.chrome.layers[index] = None;
    ok(
        format!("Layer '{name}' removed from index {index}."),
        Value::Null,
    )
}

pub fn tags_layers_json(ed: &Editor) -> Value {
    let layers: Vec<Value> = ed
        .chrome
        .layers
        .iter()
        .enumerate()
        .filter_map(|(i, l)| l.as_ref().map(|n| json!({"index": i, "name": n})))
        .collect();
    json!({"tags": ed.chrome.tags, "layers": layers})
}

fn set_selection(ed: &mut Editor, a: Args) -> Handled {
    let targets = a.strings("targets")?.unwrap_or_default();
    let mut picked = Vec::new();
    let mut missing = Vec::new();
    for t in &targets {
        if let Some(id) = ed.world.resolve(t) {
            picked.push(Selected::Object(id));
        } else if let Some(p) = ed.assets.resolve(t) {
            picked.push(Selected::Asset(p));
        } else {
            missing.push(t.clone());
        }
    }
    if !missing.is_empty() {
        return Err(Fail::new(
            "OBJECT_NOT_FOUND",
            format!("No scene object or asset matches: {}.", missing.join(", ")),
        )
        .with_data(json!({"missing": missing})));
    }
    picked.dedup();
    ed.chrome.selection = picked;
    let count = selection_json(ed, false)["count"].clone();
    ok(
        if targets.is_empty() {
            "Selection cleared.".to_string()
        } else {
            format!("{count} object(s) selected.")
        },
        json!({ "count": count }),
    )
}

pub fn selection_json(ed: &Editor, durable: bool) -> Value {
    let mut items = Vec::new();
    for s in &ed.chrome.selection {
        match s {
            Selected::Object(id) => {
                let Some(o) = ed.world.get(*id) else { continue };
                let scene = ed.world.scene(o.scene);
                let mut v = json!({
                    "instance_id": id, "name": o.name, "kind": "scene",
                    "path": format!("/{}", ed.world.path_of(*id)), "type": "GameObject",
                });
                if durable {
                    let scene_guid = scene
                        .and_then(|s| ed.assets.get(&s.path))
                        .map(|a| a.guid.clone())
                        .unwrap_or_else(|| "00000000000000000000000000000000".into());
                    v["global_id"] =
                        json!(format!("GlobalObjectId_V1-2-{scene_guid}-{}-0", id * 7919));
                }
                items.push(v);
            }
            Selected::Asset(path) => {
                let Some(asset) = ed.assets.get(path) else {
                    continue;
                };
                let mut v = json!({
                    "instance_id": asset_instance_id(&asset.guid),
                    "name": super::asset_db::display_name(path), "kind": "asset",
                    "path": path, "type": asset.type_name(),
                });
                if durable {
                    v["global_id"] = json!(format!(
                        "GlobalObjectId_V1-1-{}-{}-0",
                        asset.guid, 11_400_000
                    ));
                }
                items.push(v);
            }
        }
    }
    let active = items.first().map_or(json!(0), |v| v["instance_id"].clone());
    json!({"count": items.len(), "active_instance_id": active, "objects": items})
}

/// A stable positive instance id for an asset (Unity gives loaded assets positive ids).
fn asset_instance_id(guid: &str) -> i64 {
    i64::from_str_radix(&guid[..guid.len().min(7)], 16).unwrap_or(1) + 1
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_play_pause_stop_restores_edit_world() {
        let mut h = Harness::new();
        assert_eq!(h.ed.editor_state(), "ready");
        let inv = h.call("manage_editor", json!({"action": "play"}));
        assert_eq!(inv.play_state.as_deref(), Some("playing"));
        assert_eq!(h.ed.editor_state(), "playing");
        h.ok(
            "manage_gameobject",
            json!({"action": "create", "name": "Temp"}),
        );
        assert_eq!(
            h.call("manage_editor", json!({"action": "pause"}))
                .play_state
                .as_deref(),
            Some("paused")
        );
        assert_eq!(h.ed.editor_state(), "paused");
        h.ok("manage_editor", json!({"action": "pause"}));
        assert_eq!(h.ed.editor_state(), "playing");
        h.ok("manage_editor", json!({"action": "stop"}));
        assert_eq!(h.ed.editor_state(), "ready");
        let found = h.ok("find_gameobjects", json!({"name": "Temp"}));
        assert_eq!(found["total"], 0);
        assert_eq!(
            h.err("manage_editor", json!({"action": "pause"})),
            "NOT_IN_PLAY_MODE"
        );
    }

    #[test]
    fn editor_tags_layers_and_selection() {
        let mut h = Harness::new();
        h.ok(
            "manage_editor",
            json!({"action": "add_tag", "tag_name": "Enemy"}),
        );
        assert_eq!(
            h.err(
                "manage_editor",
                json!({"action": "add_tag", "tag_name": "Enemy"})
            ),
            "TAG_ALREADY_EXISTS"
        );
        h.ok(
            "manage_editor",
            json!({"action": "add_layer", "layer_name": "Ground"}),
        );
        let tl = h.ok("manage_editor", json!({"action": "get_tags_layers"}));
        assert!(tl["tags"].as_array().unwrap().contains(&json!("Enemy")));
        assert!(
            tl["layers"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l["name"] == "Ground" && l["index"] == 8)
        );
        assert_eq!(
            h.err(
                "manage_editor",
                json!({"action": "remove_tag", "tag_name": "Player"})
            ),
            "TAG_BUILTIN"
        );
        h.ok(
            "manage_editor",
            json!({"action": "remove_tag", "tag_name": "Enemy"}),
        );
        h.ok("manage_editor", json!({"action": "set_selection", "targets": ["Main Camera", "Assets/Scenes/SampleScene.unity"]}));
        let sel = h.ok(
            "manage_editor",
            json!({"action": "get_selection", "durable": true}),
        );
        assert_eq!(sel["count"], 2);
        assert!(
            sel["objects"][0]["global_id"]
                .as_str()
                .unwrap()
                .starts_with("GlobalObjectId_V1-2-")
        );
        assert_eq!(
            h.err(
                "manage_editor",
                json!({"action": "set_selection", "targets": ["Nope"]})
            ),
            "OBJECT_NOT_FOUND"
        );
        h.ok(
            "manage_editor",
            json!({"action": "set_selection", "targets": []}),
        );
        assert_eq!(
            h.ok("manage_editor", json!({"action": "get_selection"}))["count"],
            0
        );
    }
}
