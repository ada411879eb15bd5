//! Three things a Unity developer expects of a long-lived MCP server, against the real binary
//! over real stdio and in-process simulators over real HTTP on 127.0.0.1 (one temporary HOME
//! shared by two projects, as two Unity Editors on one machine share `~/.hera-agent-unity`):
//!
//! 1. **Project switching.** Close project A, open project B: an unpinned server moves to B
//!    between calls and says so; a call in flight finishes against A; a change the agent meant
//!    for A is not made in B before the agent has heard of the move; a pinned server stays with
//!    A and says which pin keeps it there and how to change it.
//! 2. **One compact safety convention** for search hits and `tool_describe`.
//! 3. **A small inline cap gives small spilled answers** (the preview follows the cap).

use crate::support::mcp::*;
use hera_agent_unity::SPILLED_MIN_BYTES;
use hera_connector_contract::catalog::{RiskClass, SafetyDecl, Source, ToolEntry};
use hera_connector_sim::{Fault, SimConfig, Simulator, ToolSet};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Per-Editor-request timeout: generous for a noisy machine; no test here expects a timeout.
const TIMEOUT_ARGS: [&str; 2] = ["--timeout", "20000"];
/// Bound for anything that follows a heartbeat change (the watch polls every second).
const FOLLOW: Duration = Duration::from_secs(30);
/// Long enough for the heartbeat watch to have run a few times.
const SEVERAL_WATCH_TICKS: Duration = Duration::from_millis(3500);

fn project(home: &Path, name: &str) -> PathBuf {
    let p = home.join("Projects").join(name);
    std::fs::create_dir_all(&p).unwrap();
    p
}

fn start(home: &Path, name: &str, tweak: impl FnOnce(&mut SimConfig)) -> Simulator {
    let mut cfg = SimConfig::new(
        home.to_path_buf(),
        project(home, name).to_string_lossy().into_owned(),
    );
    tweak(&mut cfg);
    Simulator::start_background(cfg).expect("start simulator")
}

fn call(p: &mut McpProc, name: &str, arguments: Value) -> Value {
    p.call_structured("tool_call", json!({"name": name, "arguments": arguments}))
}

fn hint(s: &Value) -> &str {
    s["agent_hint"].as_str().unwrap_or_default()
}

fn announces(s: &Value, project: &str) -> bool {
    hint(s).contains(&format!("Now connected to the Unity project {project}"))
}

fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// A read-only tool only project B has, in the `core` profile, so B's native list differs.
fn beta_probe() -> ToolEntry {
    ToolEntry {
        name: "beta_probe".into(),
        title: "Beta Probe".into(),
        description: "Reports what project Beta's own probe sees.".into(),
        source: Source {
            kind: "custom".into(),
            assembly: "Assembly-CSharp-Editor".into(),
            type_name: "Beta.Probe".into(),
        },
        contract_mode: "strict".into(),
        profiles: vec!["core".into()],
        aliases: vec![],
        examples: vec![],
        input_schema: json!({"type":"object","additionalProperties":false,"properties":{}}),
        output_schema: json!({"type":"object"}),
        actions: vec![],
        safety: SafetyDecl {
            risk: Some(RiskClass::ReadOnly),
            read_only: true,
            idempotent: true,
            ..Default::default()
        }
        .normalize(None),
    }
}

// ---- 1. project switching -------------------------------------------------------------------

/// Unpinned: A closes, B opens. Calls say A is not running until B is there; then the server
/// moves to B, the next result says so, search/describe/calls come from B, and nothing reaches
/// A again.
#[test]
fn an_unpinned_server_moves_to_the_editor_that_is_open_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let a = start(home, "Alpha", |_| {});
    let mut p = McpProc::start(home, &TIMEOUT_ARGS, &[], &[]);
    p.initialize("2025-11-25");
    let list = p.ok("tools/list", json!({}));
    let r = call(&mut p, "scene", json!({"action": "info"}));
    assert_eq!(r["success"], true, "{r}");
    assert!(!announces(&r, a.project_path()), "{r}");

    // A closes (its heartbeat says `stopped`); nothing else runs: not running, naming A.
    a.shutdown();
    let r = call(&mut p, "scene", json!({"action": "info"}));
    assert_eq!(r["code"], "EDITOR_NOT_RUNNING", "{r}");
    assert_eq!(r["data"]["retryable"], true, "{r}");
    assert_eq!(r["data"]["project"], a.project_path(), "{r}");
    assert_fits_output_schema(&list, "tool_call", &r);

    // B opens. The switch may happen in the background watch or at the next call; either way
    // exactly one result announces it, and calls then run in B.
    let b = start(home, "Beta", |_| {});
    let mut announced = 0;
    eventually(FOLLOW, || {
        let r = call(&mut p, "scene", json!({"action": "info"}));
        assert_fits_output_schema(&list, "tool_call", &r);
        if announces(&r, b.project_path()) {
            announced += 1;
            assert!(hint(&r).contains(a.project_path()), "{r}");
        }
        (r["success"] == true).then_some(())
    });
    assert_eq!(announced, 1, "the switch is announced exactly once");
    assert!(b.requests_seen("/command") >= 1);
    let d = p.call_structured("tool_describe", json!({"name": "scene"}));
    assert_eq!(d["data"]["domain_epoch"], b.domain_epoch(), "{d}");
    assert!(!announces(&d, b.project_path()), "{d}");
    let s = p.call_structured("tool_search", json!({"query": "load scene"}));
    assert_eq!(s["success"], true, "{s}");
    assert!(s.get("agent_hint").is_none(), "served live from B: {s}");
    p.assert_clean_stdout();
}

/// A change the agent chose while A was open is not made in B before the agent has heard of
/// the move: refused once (`PROJECT_SWITCHED`, retryable, naming both projects), then the same
/// call runs in B. Nothing runs in A.
#[test]
fn a_change_is_not_made_in_the_new_project_before_the_agent_heard_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let a = start(home, "Alpha", |_| {});
    let mut p = McpProc::start(home, &TIMEOUT_ARGS, &[], &[]);
    p.initialize("2025-11-25");
    let list = p.ok("tools/list", json!({}));
    let r = call(&mut p, "scene", json!({"action": "info"}));
    assert_eq!(r["success"], true, "{r}");

    a.shutdown();
    let b = start(home, "Beta", |_| {});
    let create = json!({"action": "create", "name": "Cube"});
    let r = call(&mut p, "manage_gameobject", create.clone());
    assert_eq!(r["code"], "PROJECT_SWITCHED", "{r}");
    assert_eq!(r["data"]["retryable"], true, "{r}");
    assert_eq!(r["data"]["project"], b.project_path(), "{r}");
    assert_eq!(r["data"]["previous_project"], a.project_path(), "{r}");
    assert!(r["message"].as_str().unwrap().contains(b.project_path()));
    assert_fits_output_schema(&list, "tool_call", &r);
    assert_eq!(b.side_effects(), 0, "nothing ran in B");

    // The agent has heard: the same call now runs in B, with no further announcement.
    let r = call(&mut p, "manage_gameobject", create);
    assert_eq!(r["success"], true, "{r}");
    assert!(!announces(&r, b.project_path()), "{r}");
    assert_eq!(b.side_effects_of("manage_gameobject", Some("create")), 1);
    assert_eq!(a.side_effects(), 0, "nothing ran in A");
}

/// A call in flight when A's Editor goes away and B's appears finishes against A, unannounced;
/// the server moves only afterwards, and the next call says so and runs in B.
#[test]
fn a_call_in_flight_finishes_against_its_own_project() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let a = start(home, "Alpha", |_| {});
    let mut p = McpProc::start(home, &TIMEOUT_ARGS, &[], &[]);
    p.initialize("2025-11-25");
    let r = call(&mut p, "scene", json!({"action": "info"}));
    assert_eq!(r["success"], true, "{r}");

    // A answers its next command slowly; while that call is in flight A's heartbeat vanishes
    // (A itself keeps serving) and B opens.
    let seen = a.requests_seen("/command");
    a.inject(Fault::Delay { ms: 6000, times: 1 });
    let id = p.send_request(
        "tools/call",
        json!({"name": "tool_call", "arguments": {"name": "scene", "arguments": {"action": "info"}}}),
    );
    eventually(FOLLOW, || {
        (a.requests_seen("/command") > seen).then_some(())
    });
    a.remove_heartbeat().unwrap();
    let b = start(home, "Beta", |_| {});
    std::thread::sleep(SEVERAL_WATCH_TICKS);
    let reply = p.wait_for(&id);
    let r = structured(&reply["result"]);
    assert_eq!(r["success"], true, "the call in flight finished in A: {r}");
    assert!(!announces(&r, b.project_path()), "{r}");
    assert_eq!(
        b.requests_seen("/command"),
        0,
        "nothing was sent to B meanwhile"
    );

    // Between calls the server moves to B; the next result says so.
    let r = call(&mut p, "scene", json!({"action": "info"}));
    assert!(announces(&r, b.project_path()), "{r}");
    assert_eq!(r["success"], true, "{r}");
    let d = p.call_structured("tool_describe", json!({"name": "scene"}));
    assert_eq!(d["data"]["domain_epoch"], b.domain_epoch(), "{d}");
    a.shutdown();
}

/// Native exposure: the switch is a catalog change like any other, so a client whose list
/// differs is told with `notifications/tools/list_changed`, and the new list is B's.
#[test]
fn a_native_list_follows_the_switch_with_list_changed() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let a = start(home, "Alpha", |_| {});
    let mut p = McpProc::start(
        home,
        &TIMEOUT_ARGS,
        &["--exposure", "profile", "--profile", "core"],
        &[],
    );
    p.initialize("2025-06-18");
    let first = names(&p.ok("tools/list", json!({})));
    assert!(!first.is_empty() && !first.contains(&"beta_probe".to_string()));

    a.shutdown();
    let b = start(home, "Beta", |cfg| {
        let mut tools = ToolSet::builtin();
        tools.add_custom(beta_probe());
        cfg.tools = Some(tools);
    });
    p.clear_notifications();
    p.wait_notification("notifications/tools/list_changed", FOLLOW)
        .expect("list_changed after the switch");
    let now = eventually(FOLLOW, || {
        let n = names(&p.ok("tools/list", json!({})));
        n.contains(&"beta_probe".to_string()).then_some(n)
    });
    assert_eq!(now.len(), first.len() + 1, "{now:?}");
    let s = p.call_structured("scene", json!({"action": "info"}));
    assert_eq!(s["success"], true, "{s}");
    assert!(b.requests_seen("/command") >= 1);
}

/// Pinned by `--project` (or by `--port`): the server stays with A after A closes and B opens,
/// and the error names the pinned project, the pin, how to change it, and what is running.
#[test]
fn a_pinned_server_stays_and_says_which_pin_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let a = start(home, "Alpha", |_| {});
    let alpha = a.project_path().to_string();
    let port = a.port().to_string();
    let mut by_project =
        McpProc::start(home, &["--project", &alpha, "--timeout", "20000"], &[], &[]);
    by_project.initialize("2025-11-25");
    let mut by_port = McpProc::start(home, &["--port", &port, "--timeout", "20000"], &[], &[]);
    by_port.initialize("2025-11-25");
    for p in [&mut by_project, &mut by_port] {
        let r = call(p, "scene", json!({"action": "info"}));
        assert_eq!(r["success"], true, "{r}");
    }

    a.shutdown();
    let b = start(home, "Beta", |_| {});
    std::thread::sleep(SEVERAL_WATCH_TICKS);
    for (p, pin, flag, env) in [
        (
            &mut by_project,
            "project",
            "--project",
            "HERA_AGENT_PROJECT",
        ),
        (&mut by_port, "port", "--port", "HERA_AGENT_PORT"),
    ] {
        let r = call(p, "scene", json!({"action": "info"}));
        assert_eq!(r["code"], "EDITOR_NOT_RUNNING", "{r}");
        assert_eq!(r["data"]["retryable"], true, "{r}");
        assert_eq!(r["data"]["project"], alpha, "{r}");
        assert_eq!(r["data"]["pinned_by"], pin, "{r}");
        assert_eq!(r["data"]["running"], json!([b.project_path()]), "{r}");
        let message = r["message"].as_str().unwrap();
        for part in [alpha.as_str(), flag, env, b.project_path()] {
            assert!(message.contains(part), "{part:?} missing: {message}");
        }
        assert!(!announces(&r, b.project_path()), "{r}");
        // Search and describe stay with A's (cached) catalog.
        let d = p.call_structured("tool_describe", json!({"name": "scene"}));
        assert_eq!(d["success"], true, "{d}");
        assert_ne!(d["data"]["domain_epoch"], b.domain_epoch(), "{d}");
    }
    assert_eq!(
        b.requests_seen("/command"),
        0,
        "a pinned server never used B"
    );
}

// ---- 2. one compact safety convention -------------------------------------------------------

/// Search hits and `tool_describe` agree: a hit and the describe of the same call show the same
/// safety object (the call's own risk class, non-default flags, `worst_case` when arguments make
/// it riskier); a tool overview's `tool_safety` is the folded worst case. `console` is read-only
/// unless `clear: true`.
#[test]
fn search_and_describe_report_safety_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let _a = start(home, "Alpha", |_| {});
    let mut p = McpProc::start(home, &TIMEOUT_ARGS, &[], &[]);
    p.initialize("2025-11-25");
    let list = p.ok("tools/list", json!({}));
    let s = p.call_structured("tool_search", json!({"query": "clear the console log"}));
    let hit = s["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "console")
        .unwrap_or_else(|| panic!("console not found: {s}"))
        .clone();
    let d = p.call_structured("tool_describe", json!({"name": "console"}));
    assert_fits_output_schema(&list, "tool_describe", &d);
    assert_eq!(&d["data"]["safety"], &hit["safety"], "{d}\n{hit}");
    assert_eq!(
        hit["safety"],
        json!({"risk_class": "read_only", "worst_case": "destructive"})
    );
    // A tool with actions: each action's overview safety is its hit's; the folded worst case
    // is `tool_safety`.
    let s = p.call_structured("tool_search", json!({"query": "close the scene"}));
    let close = s["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "scene" && h["action"] == "close")
        .unwrap_or_else(|| panic!("scene/close not found: {s}"))
        .clone();
    let d = p.call_structured("tool_describe", json!({"name": "scene"}));
    let in_overview = d["data"]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "close")
        .unwrap()["safety"]
        .clone();
    assert_eq!(in_overview, close["safety"], "{d}");
    let folded = &d["data"]["tool_safety"];
    assert_eq!(folded["risk_class"], "destructive", "{folded}");
    assert_eq!(folded["conditional"], true, "{folded}");
    // Every tool's folded class is a catalog risk class, never a made-up one.
    let tools = p.call_structured(
        "tool_search",
        json!({"query": "scene game object asset", "limit": 20}),
    );
    for h in tools["data"]["results"].as_array().unwrap() {
        let d = p.call_structured("tool_describe", json!({"name": h["name"]}));
        // A tool with actions shows its folded worst case; an action-less tool its contract's.
        let rc = d["data"]
            .get("tool_safety")
            .or_else(|| d["data"].get("safety"))
            .map(|s| s["risk_class"].clone())
            .unwrap_or_default();
        assert!(
            serde_json::from_value::<RiskClass>(rc.clone()).is_ok(),
            "{}: {rc}",
            h["name"]
        );
        assert!(
            serde_json::from_value::<RiskClass>(h["safety"]["risk_class"].clone()).is_ok(),
            "{h}"
        );
    }
}

// ---- 3. the preview follows the inline cap --------------------------------------------------

/// With a small cap a spilled answer is at most `max(cap, SPILLED_MIN_BYTES)` (it once was
/// ~2.3 KB for a ~460-byte payload under a 32-byte cap). The link and reason are always there,
/// and the resource holds the whole payload. (Larger caps and payloads: `src/results/tests.rs`.)
#[test]
fn a_small_inline_cap_gives_a_small_spilled_answer() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let _a = start(home, "Alpha", |_| {});
    for (cap, args) in [
        (32usize, json!({"action": "info"})),
        (512, json!({"action": "hierarchy"})),
    ] {
        let cap_text = cap.to_string();
        let mut p = McpProc::start(
            home,
            &TIMEOUT_ARGS,
            &[],
            &[("HERA_MCP_MAX_INLINE_BYTES", cap_text.as_str())],
        );
        p.initialize("2025-11-25");
        let list = p.ok("tools/list", json!({}));
        let res = p.call("tool_call", json!({"name": "scene", "arguments": args}));
        let s = structured(&res);
        assert_fits_output_schema(&list, "tool_call", &s);
        assert_eq!(s["result"]["status"], "spilled", "cap {cap}: {s}");
        assert_eq!(s["result"]["reason"], "over_inline_cap");
        let uri = s["result"]["uri"].as_str().unwrap().to_string();
        let size = serde_json::to_string(&s).unwrap().len();
        assert!(
            size <= cap.max(SPILLED_MIN_BYTES),
            "cap {cap}: the spilled answer is {size} bytes: {s}"
        );
        assert!(s["result"]["preview"]["data_type"].is_string(), "{s}");
        let read = p.ok("resources/read", json!({"uri": uri}));
        let text = read["contents"][0]["text"].as_str().unwrap();
        assert_eq!(s["result"]["byte_size"], text.len());
        assert!(text.len() > cap, "the payload really was over the cap");
    }
}
