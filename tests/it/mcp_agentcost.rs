//! What an agent pays per step and how the compact tools guide it, through the real binary over
//! stdio against the reference Editor (the in-process simulator over real HTTP on 127.0.0.1):
//! - `tool_describe(name, action)` is that action's contract only, within the size budget, for
//!   every action of the built-in catalog;
//! - search hits carry the call's own compact safety, not the tool's worst case;
//! - requests nothing serves are answered "no action does that", and undo and arbitrary code
//!   (without the permission) are named as not offered;
//! - TOOL_NOT_FOUND and ACTION_NOT_FOUND carry useful suggestions; describing a hidden
//!   arbitrary-code tool is TOOL_NOT_FOUND while calling it keeps the permission error;
//! - a 200 KB query is refused at once and the server keeps answering (`ping`) meanwhile.

use crate::support::mcp::*;
use hera_connector_sim::{SimConfig, Simulator};
use serde_json::{Value, json};
use std::path::PathBuf;

/// One action's describe, compact JSON: at most this many bytes.
const DESCRIBE_MAX_BYTES: usize = 6_000;
/// The median action describe: at most this many bytes.
const DESCRIBE_TYPICAL_BYTES: usize = 2_500;

struct Bench {
    _dir: tempfile::TempDir,
    home: PathBuf,
    sim: Simulator,
}

impl Bench {
    fn new() -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        let project = home.join("Projects").join("AgentCost");
        std::fs::create_dir_all(&project).unwrap();
        let sim = Simulator::start_background(SimConfig::new(
            home.clone(),
            project.to_string_lossy().into_owned(),
        ))
        .expect("start simulator");
        Bench {
            _dir: dir,
            home,
            sim,
        }
    }

    fn mcp(&self, mcp_args: &[&str]) -> McpProc {
        let mut p = McpProc::start(&self.home, &["--timeout", "20000"], mcp_args, &[]);
        p.initialize("2025-11-25");
        p
    }
}

/// The envelope of a compact-tool result, whether it carries `structuredContent` or only the
/// text copy.
fn envelope(result: &Value) -> Value {
    match result.get("structuredContent") {
        Some(s) if s.is_object() => structured(result),
        _ => serde_json::from_str(result["content"][0]["text"].as_str().expect("text content"))
            .expect("text content is JSON"),
    }
}

fn search(p: &mut McpProc, query: &str) -> Value {
    envelope(&p.call("tool_search", json!({"query": query})))
}

fn describe(p: &mut McpProc, args: Value) -> Value {
    envelope(&p.call("tool_describe", args))
}

#[test]
fn an_action_describe_is_that_actions_contract_within_budget() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    let d = describe(
        &mut p,
        json!({"name": "manage_gameobject", "action": "create"}),
    );
    assert_eq!(d["success"], true, "{d}");
    let data = &d["data"];
    assert_eq!(data["tool"], "manage_gameobject");
    assert_eq!(data["action"]["name"], "create");
    assert!(data["action"]["input_schema"]["properties"]["primitive"].is_object());
    assert!(data["action"]["output_schema"].is_object());
    assert_eq!(data["action"]["safety"], json!({"risk_class": "write"}));
    // Nothing of the other actions, no provenance.
    let text = data.to_string();
    for absent in [
        "\"destroy\"",
        "set_parent",
        "catalog_hash",
        "domain_epoch",
        "HeraAgent",
        "contract_mode",
        "\"profiles\"",
    ] {
        assert!(!text.contains(absent), "{absent} in {text}");
    }
    assert!(data.get("actions").is_none());

    // Every action of the built-in catalog: within the budget; the median within the typical.
    let catalog = b.sim.catalog();
    let mut sizes = Vec::new();
    for t in catalog["tools"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        if name == "exec" || name == "menu" {
            continue; // arbitrary code: hidden without the permission
        }
        for a in t["actions"].as_array().into_iter().flatten() {
            let action = a["name"].as_str().unwrap();
            let d = describe(&mut p, json!({"name": name, "action": action}));
            assert_eq!(d["success"], true, "{name}/{action}: {d}");
            let bytes = serde_json::to_string(&d).unwrap().len();
            assert!(
                bytes <= DESCRIBE_MAX_BYTES,
                "{name}/{action} describe is {bytes} B"
            );
            sizes.push(bytes);
        }
    }
    sizes.sort_unstable();
    assert!(sizes.len() > 100, "{} actions described", sizes.len());
    let median = sizes[sizes.len() / 2];
    assert!(
        median <= DESCRIBE_TYPICAL_BYTES,
        "median action describe {median} B"
    );
}

#[test]
fn search_hits_show_the_calls_own_safety() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    // Reading the console is read-only; its `clear` argument is the caveat, not the label.
    let r = search(&mut p, "read the console errors");
    let hit = &r["data"]["results"][0];
    assert_eq!(hit["name"], "console", "{r}");
    assert_eq!(
        hit["safety"],
        json!({"risk_class": "read_only", "worst_case": "destructive"})
    );
    // Every hit: a risk class and only non-default flags; never the five-field object.
    for q in [
        "delete the game object",
        "add a component",
        "install a package",
        "save the scene",
    ] {
        let r = search(&mut p, q);
        let hits = r["data"]["results"].as_array().unwrap();
        assert!(!hits.is_empty(), "{q}: {r}");
        for h in hits {
            let s = h["safety"].as_object().unwrap();
            assert!(s.contains_key("risk_class"), "{q}: {h}");
            assert!(!s.contains_key("read_only"), "{q}: {h}");
            assert!(s.len() <= 4, "{q}: {h}");
        }
    }
    let r = search(&mut p, "delete the game object");
    let destroy = r["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "manage_gameobject" && h["action"] == "destroy")
        .cloned()
        .unwrap_or_else(|| panic!("no manage_gameobject/destroy in {r}"));
    assert_eq!(destroy["safety"]["risk_class"], "destructive");
}

#[test]
fn requests_nothing_serves_say_so_and_absent_capabilities_are_named() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    let r = search(&mut p, "order a pizza for the team");
    assert_eq!(r["success"], true);
    assert!(r["data"]["results"].as_array().unwrap().is_empty(), "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("no action does that"),
        "{r}"
    );
    let r = search(&mut p, "undo last change");
    assert_eq!(r["data"]["not_offered"], "undo", "{r}");
    assert!(r["data"]["results"].as_array().unwrap().is_empty());
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("Undo is not offered")
    );
    let r = search(&mut p, "run this C# snippet in the editor");
    assert_eq!(r["data"]["not_offered"], "arbitrary_code", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("--allow-arbitrary-code")
    );
    // With the permission the tool is offered and found.
    let mut allowed = b.mcp(&["--allow-arbitrary-code"]);
    let r = search(&mut allowed, "run this C# snippet in the editor");
    assert_eq!(r["data"]["results"][0]["name"], "exec", "{r}");
}

#[test]
fn not_found_answers_suggest_and_hidden_code_tools_are_not_found_to_describe() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    // A guessed tool name built from the right word.
    let d = describe(&mut p, json!({"name": "gameobject"}));
    assert_eq!(d["code"], "TOOL_NOT_FOUND", "{d}");
    let s: Vec<&str> = d["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(s.contains(&"manage_gameobject"), "{d}");
    assert_eq!(d["data"]["did_you_mean"], d["suggestions"]);
    // A name close to nothing still gets the tools a search for its words ranks first.
    let d = describe(&mut p, json!({"name": "unity_take_picture"}));
    assert_eq!(d["code"], "TOOL_NOT_FOUND");
    assert!(
        d["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "screenshot"),
        "{d}"
    );
    // tool_call with a guessed name: TOOL_NOT_FOUND with suggestions too.
    let c = envelope(&p.call(
        "tool_call",
        json!({"name": "components", "arguments": {"action": "list"}}),
    ));
    assert_eq!(c["code"], "TOOL_NOT_FOUND", "{c}");
    assert!(
        c["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "manage_components"),
        "{c}"
    );
    // A wrong action: the action the guess means comes first.
    let d = describe(
        &mut p,
        json!({"name": "manage_gameobject", "action": "remove"}),
    );
    assert_eq!(d["code"], "ACTION_NOT_FOUND", "{d}");
    assert_eq!(d["suggestions"][0], "destroy", "{d}");
    // The arbitrary-code tool is not offered without the permission: describe does not find it,
    // and calling it says how to enable it.
    let d = describe(&mut p, json!({"name": "exec"}));
    assert_eq!(d["code"], "TOOL_NOT_FOUND", "{d}");
    assert!(!d.to_string().contains("--allow-arbitrary-code"));
    let c = envelope(&p.call(
        "tool_call",
        json!({"name": "exec", "arguments": {"code": "1+1"}}),
    ));
    assert_eq!(c["code"], "ARBITRARY_CODE_PERMISSION_REQUIRED", "{c}");
}

#[test]
fn a_200_kb_query_is_refused_at_once_and_the_server_keeps_answering() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    let word = "x".repeat(200_000);
    // Two huge searches in flight, then a ping: all three are answered.
    let first = p.send_request(
        "tools/call",
        json!({"name": "tool_search", "arguments": {"query": word}}),
    );
    let second = p.send_request(
        "tools/call",
        json!({"name": "tool_search", "arguments": {"query": format!("add a {word}")}}),
    );
    let ping = p.send_request("ping", json!({}));
    let pong = p.wait_for(&ping);
    assert!(pong.get("error").is_none(), "{pong}");
    for id in [first, second] {
        let r = p.wait_for(&id);
        let e = envelope(&r["result"]);
        assert_eq!(e["code"], "INVALID_ARGUMENT", "{e}");
        assert_eq!(e["data"]["pointer"], "/query");
    }
    // The longest accepted query, one unknown word: answered (typo matching skips a word longer
    // than any catalog term instead of building its deletions).
    let long = "q".repeat(hera_agent_unity::MAX_QUERY_CHARS);
    let r = search(&mut p, &long);
    assert_eq!(r["success"], true, "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("no action does that")
    );
    let pong = p.request("ping", json!({}));
    assert!(pong.get("error").is_none(), "{pong}");
}
