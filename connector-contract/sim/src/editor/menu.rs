//! `menu`: Editor menu items. Each known item maps onto the same model operation its tool
//! equivalent uses (File/Save saves the active scene, GameObject/3D Object/Cube creates a cube…);
//! items that would end the session are blocked, unknown ones are reported as such.

use super::args::{Args, Fail};
use super::{Editor, Handled, Invocation, InvokeContext, ok};
use serde_json::{Map, Value, json};

/// Menu path → (tool, params) it performs. Paths are Unity's.
const ITEMS: &[(&str, &str, &str)] = &[
    ("File/Save", "scene", r#"{"action":"save"}"#),
    ("File/Save Project", "scene", r#"{"action":"save_all"}"#),
    ("Edit/Play", "manage_editor", r#"{"action":"play"}"#),
    ("Edit/Pause", "manage_editor", r#"{"action":"pause"}"#),
    ("Edit/Stop", "manage_editor", r#"{"action":"stop"}"#),
    ("Assets/Refresh", "refresh_unity", r#"{}"#),
    ("Assets/Reimport All", "reserialize", r#"{}"#),
    (
        "GameObject/Create Empty",
        "manage_gameobject",
        r#"{"action":"create"}"#,
    ),
    (
        "GameObject/3D Object/Cube",
        "manage_gameobject",
        r#"{"action":"create","primitive":"cube"}"#,
    ),
    (
        "GameObject/3D Object/Sphere",
        "manage_gameobject",
        r#"{"action":"create","primitive":"sphere"}"#,
    ),
    (
        "GameObject/3D Object/Capsule",
        "manage_gameobject",
        r#"{"action":"create","primitive":"capsule"}"#,
    ),
    (
        "GameObject/3D Object/Cylinder",
        "manage_gameobject",
        r#"{"action":"create","primitive":"cylinder"}"#,
    ),
    (
        "GameObject/3D Object/Plane",
        "manage_gameobject",
        r#"{"action":"create","primitive":"plane"}"#,
    ),
    (
        "GameObject/3D Object/Quad",
        "manage_gameobject",
        r#"{"action":"create","primitive":"quad"}"#,
    ),
    (
        "GameObject/UI/Canvas",
        "manage_ui",
        r#"{"action":"create","element":"canvas"}"#,
    ),
    (
        "GameObject/UI/Button",
        "manage_ui",
        r#"{"action":"create","element":"button"}"#,
    ),
    (
        "GameObject/UI/Text",
        "manage_ui",
        r#"{"action":"create","element":"text"}"#,
    ),
    (
        "GameObject/UI/Image",
        "manage_ui",
        r#"{"action":"create","element":"image"}"#,
    ),
    (
        "Window/General/Console",
        "manage_editor",
        r#"{"action":"focus","type":"ConsoleWindow"}"#,
    ),
    (
        "Window/General/Inspector",
        "manage_editor",
        r#"{"action":"focus","type":"InspectorWindow"}"#,
    ),
    (
        "Window/General/Hierarchy",
        "manage_editor",
        r#"{"action":"focus","type":"SceneHierarchyWindow"}"#,
    ),
    (
        "Window/General/Project",
        "manage_editor",
        r#"{"action":"focus","type":"ProjectBrowser"}"#,
    ),
    (
        "Window/Analysis/Profiler",
        "manage_editor",
        r#"{"action":"focus","type":"ProfilerWindow"}"#,
    ),
    (
        "Window/General/Test Runner",
        "manage_editor",
        r#"{"action":"focus","type":"TestRunnerWindow"}"#,
    ),
    (
        "Window/Package Manager",
        "manage_editor",
        r#"{"action":"focus","type":"PackageManagerWindow"}"#,
    ),
    (
        "Window/Rendering/Lighting",
        "manage_editor",
        r#"{"action":"focus","type":"LightingWindow"}"#,
    ),
    ("Edit/Clear All PlayerPrefs", "", ""),
];

/// Items that would close the Editor or the project under the agent.
const BLOCKED: [&str; 5] = [
    "File/Exit",
    "File/Quit",
    "File/New Project...",
    "File/Open Project...",
    "Unity/Quit",
];

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, ctx: &InvokeContext) -> Handled {
    if action == Some("list") {
        let limit = a.i64("limit")?.unwrap_or(300).max(1) as usize;
        let Some(filter) = a.str("filter")?.filter(|f| !f.trim().is_empty()) else {
            // No filter: the top-level menu groups with their sizes, and a hint to narrow.
            let mut groups: Vec<(String, usize)> = Vec::new();
            for (p, _, _) in ITEMS {
                let top = p.split('/').next().unwrap_or(p);
                match groups.iter_mut().find(|(g, _)| g == top) {
                    Some(g) => g.1 += 1,
                    None => groups.push((top.to_string(), 1)),
                }
            }
            groups.sort_by_key(|(g, _)| g.to_lowercase());
            let list: Vec<Value> = groups
                .iter()
                .map(|(g, n)| json!({"name": g, "count": n}))
                .collect();
            return Ok(Invocation::ok(
                format!("{} menu group(s).", list.len()),
                json!({"total": ITEMS.len(), "groups": list}),
            )
            .with_hint("Pass a filter (for example a group name) to list the menu items in it."));
        };
        let wanted = filter.to_ascii_lowercase();
        let all: Vec<&str> = ITEMS
            .iter()
            .map(|(p, _, _)| *p)
            .filter(|p| p.to_ascii_lowercase().contains(&wanted))
            .collect();
        let items: Vec<&str> = all.iter().take(limit).copied().collect();
        return ok(
            format!("{} of {} menu item(s).", items.len(), all.len()),
            json!({"filter": filter, "total": all.len(), "returned": items.len(),
                   "truncated": items.len() < all.len(), "items": items}),
        );
    }
    let path = a.req_str("menu_path")?.trim().trim_matches('/').to_string();
    if BLOCKED.iter().any(|b| b.eq_ignore_ascii_case(&path)) {
        return Err(Fail::new(
            "MENU_BLOCKED",
            format!("'{path}' would close the Editor or the project and is blocked."),
        )
        .with_data(json!({"menu_path": path})));
    }
    let Some((item, tool, params)) = ITEMS.iter().find(|(p, _, _)| p.eq_ignore_ascii_case(&path))
    else {
        let near: Vec<&str> = ITEMS
            .iter()
            .map(|(p, _, _)| *p)
            .filter(|p| {
                p.to_ascii_lowercase()
                    .contains(&path.rsplit('/').next().unwrap_or("").to_ascii_lowercase())
            })
            .take(5)
            .collect();
        return Err(
            Fail::new("MENU_ITEM_NOT_FOUND", format!("No menu item '{path}'."))
                .with_data(json!({"menu_path": path, "similar": near})),
        );
    };
    if tool.is_empty() {
        // An executed menu item answers with no `data`.
        return ok(format!("Executed {item}."), Value::Null);
    }
    let params: Map<String, Value> = serde_json::from_str(params).unwrap_or_default();
    let action = params
        .get("action")
        .and_then(Value::as_str)
        .map(str::to_string);
    let inner = ed.invoke(tool, action.as_deref(), &params, ctx);
    let Invocation {
        outcome,
        reload,
        play_state,
        ..
    } = inner;
    let mut inv = match outcome {
        super::HandlerOutcome::Success { .. } => {
            Invocation::ok(format!("Executed {item}."), Value::Null)
        }
        super::HandlerOutcome::Error {
            code,
            message,
            data,
        } => {
            return Err(Fail {
                code,
                message: format!("{item} failed: {message}"),
                data,
            });
        }
        other => Invocation::from(other),
    };
    inv.reload = reload;
    inv.play_state = play_state;
    Ok(inv)
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_menu_items_act_on_the_model() {
        let mut h = Harness::new();
        h.ok("menu", json!({"menu_path": "GameObject/3D Object/Sphere"}));
        assert_eq!(
            h.ok("find_gameobjects", json!({"name": "Sphere"}))["total"],
            1
        );
        h.ok("menu", json!({"menu_path": "File/Save"}));
        assert_eq!(
            h.ok("scene", json!({"action": "info"}))["active"]["isDirty"],
            false
        );
        assert_eq!(
            h.err("menu", json!({"menu_path": "File/Quit"})),
            "MENU_BLOCKED"
        );
        assert_eq!(
            h.err("menu", json!({"menu_path": "Nope/Nothing"})),
            "MENU_ITEM_NOT_FOUND"
        );
        let list = h.ok("menu", json!({"action": "list", "filter": "3d object"}));
        assert_eq!(list["total"], 6);
        let inv = h.call("menu", json!({"menu_path": "Edit/Play"}));
        assert_eq!(inv.play_state.as_deref(), Some("playing"));
    }
}
