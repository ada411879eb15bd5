//! What is measured: the agent tasks, the describe comparisons and the exposures.
//!
//! The flows are what an agent does with the compact surface for an everyday task: search with
//! the task's words, describe the action it found, call it with arguments that fit the schema.
//! They run in this order in one session, so later tasks act on the object `create_gameobject`
//! made. Every call must succeed (or, for the approval task, first ask for approval): a payload
//! of a failed task would measure an error message, not the surface.

use serde_json::{Value, json};

pub struct Flow {
    pub id: &'static str,
    pub task: &'static str,
    /// The tool (and action) the search is expected to surface; its rank is recorded.
    pub target_tool: &'static str,
    pub target_action: Option<&'static str>,
    pub search: Value,
    /// `None` for a task answered by the search alone (a capability that is not offered).
    pub describe: Option<Value>,
    pub call: Option<Value>,
    /// The call needs the human's approval: the first answer must be `APPROVAL_REQUIRED`, and
    /// the identical call is repeated with its token (both answers are paid for).
    pub approval: bool,
    /// The search must answer "not offered" with this capability.
    pub not_offered: Option<&'static str>,
}

/// A search → describe → call task.
fn task(
    id: &'static str,
    task: &'static str,
    target: (&'static str, Option<&'static str>),
    query: &str,
    call_arguments: Value,
) -> Flow {
    let (tool, action) = target;
    let describe = match action {
        Some(a) => json!({"name": tool, "action": a}),
        None => json!({"name": tool}),
    };
    Flow {
        id,
        task,
        target_tool: tool,
        target_action: action,
        search: json!({"query": query}),
        describe: Some(describe),
        call: Some(json!({"name": tool, "arguments": call_arguments})),
        approval: false,
        not_offered: None,
    }
}

/// A task the server answers "not offered" from the search alone.
fn absent(id: &'static str, task: &'static str, query: &str, capability: &'static str) -> Flow {
    Flow {
        id,
        task,
        target_tool: "",
        target_action: None,
        search: json!({"query": query}),
        describe: None,
        call: None,
        approval: false,
        not_offered: Some(capability),
    }
}

/// The everyday task suite: scenes and hierarchy, creating and transforming objects,
/// components, materials, finding, the console, tests, a delete with approval, play mode,
/// saving, packages, a screenshot, and the two things not offered (arbitrary code, undo).
/// They run in this order in one session: later tasks act on the `Crate` the first creates.
pub fn flows() -> Vec<Flow> {
    let mut delete = task(
        "delete_with_approval",
        "Delete the GameObject Crate (needs the human's approval)",
        ("manage_gameobject", Some("destroy")),
        "delete the game object Crate",
        json!({"action": "destroy", "path": "Crate"}),
    );
    delete.approval = true;
    vec![
        task(
            "create_gameobject",
            "Create a cube GameObject named Crate",
            ("manage_gameobject", Some("create")),
            "create a game object",
            json!({"action": "create", "name": "Crate", "primitive": "cube"}),
        ),
        task(
            "read_scene_info",
            "Read the active scene's info",
            ("scene", Some("info")),
            "active scene info",
            json!({"action": "info"}),
        ),
        task(
            "scene_hierarchy",
            "Show the scene hierarchy",
            ("scene", Some("hierarchy")),
            "show the scene hierarchy",
            json!({"action": "hierarchy", "depth": 2}),
        ),
        task(
            "add_component",
            "Add a Rigidbody to Crate",
            ("manage_components", Some("add")),
            "add a component to a game object",
            json!({"action": "add", "path": "Crate", "type": "Rigidbody"}),
        ),
        task(
            "list_components",
            "List the components on Crate",
            ("manage_components", Some("list")),
            "which components does the object have",
            json!({"action": "list", "path": "Crate"}),
        ),
        task(
            "move_gameobject",
            "Move Crate to 0, 2, 0",
            ("manage_gameobject", Some("move")),
            "move a game object to a position",
            json!({"action": "move", "path": "Crate", "position": [0, 2, 0]}),
        ),
        task(
            "rotate_gameobject",
            "Rotate Crate 45 degrees around Y",
            ("manage_gameobject", Some("set_transform")),
            "set the rotation of a game object",
            json!({"action": "set_transform", "path": "Crate", "rotation": [0, 45, 0]}),
        ),
        task(
            "read_transform",
            "Read Crate's transform",
            ("manage_gameobject", Some("get_transform")),
            "get the transform of a game object",
            json!({"action": "get_transform", "path": "Crate"}),
        ),
        task(
            "find_gameobject",
            "Find the GameObject named Crate",
            ("find_gameobjects", None),
            "find game objects by name",
            json!({"name": "Crate"}),
        ),
        task(
            "create_material",
            "Create a material asset",
            ("manage_material", Some("create")),
            "create a material",
            json!({"action": "create", "path": "Assets/Crate.mat", "shader": "Standard"}),
        ),
        task(
            "find_assets",
            "Find the material assets",
            ("manage_assets", Some("find")),
            "find assets by type",
            json!({"action": "find", "type": "Material"}),
        ),
        task(
            "read_console",
            "Read the last console errors",
            ("console", None),
            "read the console errors",
            json!({"lines": 10, "type": "error"}),
        ),
        task(
            "run_tests",
            "Run the EditMode tests",
            ("run_tests", None),
            "run edit mode tests",
            json!({"mode": "EditMode"}),
        ),
        task(
            "list_packages",
            "List the installed packages",
            ("manage_packages", Some("list")),
            "list installed packages",
            json!({"action": "list"}),
        ),
        task(
            "tags_and_layers",
            "Read the project's tags and layers",
            ("manage_editor", Some("get_tags_layers")),
            "get the tags and layers",
            json!({"action": "get_tags_layers"}),
        ),
        task(
            "build_targets",
            "List the build targets",
            ("build", Some("list_targets")),
            "list the build targets",
            json!({"action": "list_targets"}),
        ),
        task(
            "save_scene",
            "Save the active scene",
            ("scene", Some("save")),
            "save the scene",
            json!({"action": "save"}),
        ),
        task(
            "screenshot",
            "Take a screenshot of the Game view",
            ("screenshot", None),
            "take a screenshot of the game view",
            json!({"view": "game"}),
        ),
        task(
            "enter_play_mode",
            "Enter Play Mode",
            ("manage_editor", Some("play")),
            "play the game in the editor",
            json!({"action": "play"}),
        ),
        task(
            "exit_play_mode",
            "Leave Play Mode",
            ("manage_editor", Some("stop")),
            "stop playing the game",
            json!({"action": "stop"}),
        ),
        delete,
        absent(
            "run_code_without_permission",
            "Run a C# snippet (not offered without --allow-arbitrary-code)",
            "run a C# snippet in the editor",
            "arbitrary_code",
        ),
        absent(
            "undo",
            "Undo the last change (not offered)",
            "undo the last change",
            "undo",
        ),
    ]
}

/// Whole-tool describe against single-action describe. `input` and its `replay`/`state`
/// actions are the anchor's published examples (the Go adapter v0.2.17's published figures).
pub struct DescribeCase {
    pub tool: &'static str,
    pub actions: &'static [&'static str],
}

pub fn describe_cases() -> Vec<DescribeCase> {
    vec![
        DescribeCase {
            tool: "manage_gameobject",
            actions: &["create"],
        },
        DescribeCase {
            tool: "input",
            actions: &["replay", "state"],
        },
    ]
}

/// An MCP server command line whose `tools/list` is measured.
pub struct Exposure {
    pub id: String,
    pub args: Vec<String>,
}

/// The profile names the anchor enumerates (the Go adapter v0.2.17's published figures), each with
/// `--exposure profile`, then `--exposure full`. `advanced` needs the arbitrary-code permission.
pub const PROFILES: [&str; 9] = [
    "advanced",
    "assets",
    "core",
    "custom",
    "diagnostics",
    "full",
    "scene",
    "testing",
    "ui",
];

pub fn exposures() -> Vec<Exposure> {
    let mut out: Vec<Exposure> = PROFILES
        .iter()
        .map(|p| {
            let mut args = vec![
                "--exposure".to_string(),
                "profile".into(),
                "--profile".into(),
                p.to_string(),
            ];
            if *p == "advanced" {
                args.push("--allow-arbitrary-code".into());
            }
            Exposure {
                id: format!("profile_{p}"),
                args,
            }
        })
        .collect();
    out.push(Exposure {
        id: "full".into(),
        args: vec!["--exposure".into(), "full".into()],
    });
    out
}
