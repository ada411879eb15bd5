//! What is measured: the agent tasks, the describe comparisons and the exposures.
//!
//! The flows are what an agent does with the compact surface for an everyday task: search with
//! the task's words, describe the action it found, call it with arguments that fit the schema.
//! They run in this order in one session, so `add_component` and `find_gameobject` act on the
//! object `create_gameobject` made. Every call must succeed: a payload of a failed task would
//! measure an error message, not the surface.

use serde_json::{Value, json};

pub struct Flow {
    pub id: &'static str,
    pub task: &'static str,
    /// The tool (and action) the search is expected to surface; its rank is recorded.
    pub target_tool: &'static str,
    pub target_action: Option<&'static str>,
    pub search: Value,
    pub describe: Value,
    pub call: Value,
}

pub fn flows() -> Vec<Flow> {
    vec![
        Flow {
            id: "create_gameobject",
            task: "Create a cube GameObject named Crate",
            target_tool: "manage_gameobject",
            target_action: Some("create"),
            search: json!({"query": "create a game object"}),
            describe: json!({"name": "manage_gameobject", "action": "create"}),
            call: json!({"name": "manage_gameobject",
                         "arguments": {"action": "create", "name": "Crate", "primitive": "cube"}}),
        },
        Flow {
            id: "read_scene_info",
            task: "Read the active scene's info",
            target_tool: "scene",
            target_action: Some("info"),
            search: json!({"query": "active scene info"}),
            describe: json!({"name": "scene", "action": "info"}),
            call: json!({"name": "scene", "arguments": {"action": "info"}}),
        },
        Flow {
            id: "add_component",
            task: "Add a Rigidbody to Crate",
            target_tool: "manage_components",
            target_action: Some("add"),
            search: json!({"query": "add a component to a game object"}),
            describe: json!({"name": "manage_components", "action": "add"}),
            call: json!({"name": "manage_components",
                         "arguments": {"action": "add", "path": "Crate", "type": "Rigidbody"}}),
        },
        Flow {
            id: "find_gameobject",
            task: "Find the GameObject named Crate",
            target_tool: "find_gameobjects",
            target_action: None,
            search: json!({"query": "find game objects by name"}),
            describe: json!({"name": "find_gameobjects"}),
            call: json!({"name": "find_gameobjects", "arguments": {"name": "Crate"}}),
        },
        Flow {
            // Running tests is the tool itself (no action); `list` and `cancel` are its actions.
            id: "run_tests",
            task: "Run the EditMode tests",
            target_tool: "run_tests",
            target_action: None,
            search: json!({"query": "run edit mode tests"}),
            describe: json!({"name": "run_tests"}),
            call: json!({"name": "run_tests", "arguments": {"mode": "EditMode"}}),
        },
    ]
}

/// Whole-tool describe against single-action describe. `input` and its `replay`/`state`
/// actions are the anchor's published examples (anchor-mcp-adapter.md §2.5, §8.1).
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

/// The profile names the anchor enumerates (anchor-mcp-adapter.md §3.1), each with
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
