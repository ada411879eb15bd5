//! Profile and full exposure (one MCP tool per Editor tool) and the size of the compact
//! surface, against the real binary over real stdio and the simulated Editor over real HTTP:
//! each profile's exact tool set and truthful definitions, native calls through the shared
//! pipeline, the catalog lifecycle (list_changed for legacy and 2026-07-28 sessions, stale and
//! removed tools), refusals (no ledger, legacy Connector, missing permission), paging, and the
//! compact `tools/list` staying under the Go adapter's 2,505 bytes with every result fitting
//! the advertised schemas.

use crate::support::mcp::*;
use hera_connector_contract::catalog::{RiskClass, SafetyDecl, ToolEntry};
use hera_connector_contract::wire::{ALL_FEATURES, FEATURE_OPERATION_LEDGER};
use hera_connector_sim::{Fault, FaultMatch, Reload, SimConfig, Simulator};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// Generous bound for anything that follows a heartbeat change (the watch polls every second).
const FOLLOW: Duration = Duration::from_secs(30);

fn project(home: &Path) -> PathBuf {
    let p = home.join("Projects").join("Game");
    std::fs::create_dir_all(&p).unwrap();
    p
}

fn start_sim(home: &Path, tweak: impl FnOnce(&mut SimConfig)) -> Simulator {
    let mut cfg = SimConfig::new(
        home.to_path_buf(),
        project(home).to_string_lossy().into_owned(),
    );
    tweak(&mut cfg);
    Simulator::start_background(cfg).expect("start simulator")
}

fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// Everything `tools/list` yields, following `nextCursor` (bounded).
fn list_all(p: &mut McpProc, meta: Option<Value>) -> (Vec<Value>, usize) {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 1..=100 {
        let mut params = json!({});
        if let Some(m) = &meta {
            params["_meta"] = m.clone();
        }
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let r = p.ok("tools/list", params);
        tools.extend(r["tools"].as_array().unwrap().iter().cloned());
        match r.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_string()),
            None => return (tools, page),
        }
    }
    panic!("tools/list did not end within 100 pages");
}

/// The catalog tools as the simulator publishes them.
fn sim_tools(sim: &Simulator) -> Vec<Value> {
    sim.catalog()["tools"].as_array().unwrap().clone()
}

/// Every safety a call of the tool can resolve to (tool, actions, their rules), from the JSON.
fn safeties(tool: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let mut add = |s: &Value| {
        out.push(s.clone());
        for r in s["rules"].as_array().into_iter().flatten() {
            out.push(r.clone());
        }
    };
    add(&tool["safety"]);
    for a in tool["actions"].as_array().into_iter().flatten() {
        add(&a["safety"]);
    }
    out
}

fn arbitrary(tool: &Value) -> bool {
    safeties(tool)
        .iter()
        .any(|s| s["risk_class"] == "arbitrary_code")
}

/// The tools a profile must publish, computed here from the catalog JSON (independently of the
/// server's code): strict tools declaring it, arbitrary-code ones only with permission.
fn expected_profile(catalog: &[Value], profile: &str, allow: bool) -> Vec<String> {
    let mut v: Vec<String> = catalog
        .iter()
        .filter(|t| t["contract_mode"] == "strict")
        .filter(|t| {
            t["profiles"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p == profile)
        })
        .filter(|t| allow || !arbitrary(t))
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

/// Annotations folded over every safety: read-only/idempotent AND, destructive/open-world OR.
fn expected_annotations(tool: &Value) -> Value {
    let all = safeties(tool);
    let open = |s: &Value| {
        let r = s["risk_class"].as_str().unwrap();
        r.contains("package") || r.contains("external") || r.contains("arbitrary")
    };
    json!({
        "title": tool["title"],
        "readOnlyHint": all.iter().all(|s| s["read_only"] == true),
        "destructiveHint": all.iter().any(|s| s["destructive"] == true),
        "idempotentHint": all.iter().all(|s| s["idempotent"] == true),
        "openWorldHint": all.iter().any(open),
    })
}

fn custom_tool(name: &str, profiles: &[&str]) -> ToolEntry {
    let declared = SafetyDecl {
        risk: Some(RiskClass::Write),
        ..Default::default()
    };
    let schema = json!({"type":"object","additionalProperties":false,
        "properties":{"size":{"type":"integer"}},"required":["size"]});
    ToolEntry {
        title: "Paint Wall".into(),
        description: "A project's own tool: paints a wall.".into(),
        ..hera_connector_sim::catalog::custom_tool(name, "strict", profiles, declared, schema)
    }
}

fn quick_reload(sim: &Simulator) {
    sim.reload(Reload {
        downtime: Duration::from_millis(300),
        new_port: false,
    });
    assert!(sim.wait_ready_blocking(Duration::from_secs(15)));
}

/// Checks a structured result against the tool's advertised schema and against the full
/// results schema it was derived from.
fn assert_fits_both(list: &Value, tool: &str, s: &Value) {
    assert_fits_output_schema(list, tool, s);
    let full = hera_agent_unity::envelope_output_schema();
    let v = jsonschema::draft202012::new(&full).unwrap();
    let errors: Vec<String> = v.iter_errors(s).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{tool}: {errors:?}\n{s}");
}

fn native(profile: &str) -> Vec<&str> {
    vec!["--exposure", "profile", "--profile", profile]
}

#[test]
fn each_profile_lists_exactly_its_tools_with_truthful_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sim = start_sim(home, |_| {});
    let catalog = sim_tools(&sim);

    let mut compact = McpProc::start(home, &[], &[], &[]);
    compact.initialize("2025-06-18");
    let clist = compact.ok("tools/list", json!({}));
    let call_schema = clist["tools"][0]["outputSchema"].clone();
    assert_eq!(clist["tools"][0]["name"], "tool_call");

    let cases: [(&str, usize, Vec<&str>, bool); 8] = [
        ("core", 8, native("core"), false),
        ("scene", 11, native("scene"), false),
        ("assets", 9, native("assets"), false),
        ("ui", 7, native("ui"), false),
        ("diagnostics", 11, native("diagnostics"), false),
        ("testing", 6, native("testing"), false),
        ("full", 32, vec!["--exposure", "full"], false),
        (
            "advanced",
            2,
            vec![
                "--exposure",
                "profile",
                "--profile",
                "advanced",
                "--allow-arbitrary-code",
            ],
            true,
        ),
    ];
    for (profile, size, args, allow) in cases {
        let mut p = McpProc::start(home, &[], &args, &[]);
        let init = p.initialize("2025-06-18");
        assert_eq!(init["capabilities"]["tools"]["listChanged"], true);
        let list = p.ok("tools/list", json!({}));
        let got = names(&list);
        assert_eq!(got.len(), size, "{profile}: {got:?}");
        assert_eq!(got, expected_profile(&catalog, profile, allow), "{profile}");
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(got, sorted, "{profile}: stable name order");
        if profile != "advanced" {
            assert!(!got.iter().any(|n| n == "exec" || n == "menu"), "{profile}");
        }
        // The same catalog gives the same bytes.
        let again = p.ok("tools/list", json!({}));
        assert_eq!(again.to_string(), list.to_string(), "{profile}");
        for t in list["tools"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap();
            let entry = catalog.iter().find(|c| c["name"] == name).unwrap();
            assert_eq!(t["title"], entry["title"]);
            assert!(utf16_len(t["description"].as_str().unwrap()) <= 1000);
            assert!(utf16_len(&t["inputSchema"].to_string()) <= 8000, "{name}");
            assert_eq!(t["inputSchema"]["type"], "object");
            jsonschema::draft202012::new(&t["inputSchema"]).expect("input schema compiles");
            assert_eq!(
                t["outputSchema"], call_schema,
                "{name}: the one envelope schema"
            );
            assert_eq!(t["annotations"], expected_annotations(entry), "{name}");
            // Every parameter the catalog declares is published.
            for k in entry["input_schema"]["properties"]
                .as_object()
                .unwrap()
                .keys()
            {
                assert!(
                    t["inputSchema"]["properties"].get(k).is_some(),
                    "{name}.{k}"
                );
            }
        }
        eprintln!(
            "profile {profile}: {} tools, tools/list result {} bytes",
            got.len(),
            list.to_string().len()
        );
    }
}

#[test]
fn misconfigurations_are_refused_at_startup() {
    let dir = tempfile::tempdir().unwrap();
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut all = vec![("HERA_MCP_ENABLED", "1")];
        all.extend_from_slice(env);
        let out = command(dir.path(), &all, args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = run(
        &[],
        &["mcp", "--exposure", "profile", "--profile", "advanced"],
    );
    assert_ne!(code, 0);
    assert!(stdout.is_empty());
    assert!(stderr.contains("--allow-arbitrary-code"), "{stderr}");
    let (code, _, stderr) = run(
        &[
            ("HERA_MCP_EXPOSURE", "profile"),
            ("HERA_MCP_PROFILE", "sceen"),
        ],
        &["mcp"],
    );
    assert_ne!(code, 0);
    assert!(stderr.contains("unsupported MCP profile"), "{stderr}");
    let (code, _, stderr) = run(&[("HERA_MCP_PAGE_SIZE", "0")], &["mcp"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("HERA_MCP_PAGE_SIZE"), "{stderr}");
    // The environment alone selects a profile; with stdin closed the server just ends.
    let (code, stdout, stderr) = run(
        &[
            ("HERA_MCP_EXPOSURE", "profile"),
            ("HERA_MCP_PROFILE", "scene"),
        ],
        &["mcp"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
}

#[test]
fn native_calls_go_through_the_shared_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sim = start_sim(home, |_| {});
    let mut p = McpProc::start(home, &[], &native("core"), &[]);
    p.initialize("2025-06-18");
    let list = p.ok("tools/list", json!({}));
    // The call controls are published where they mean something.
    let mg = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "manage_gameobject")
        .unwrap();
    assert!(mg["inputSchema"]["properties"]["approval_token"].is_object());
    assert!(mg["inputSchema"]["properties"]["operation_id"].is_object());
    let fg = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "find_gameobjects")
        .unwrap();
    assert!(
        fg["inputSchema"]["properties"]
            .get("operation_id")
            .is_none()
    );

    // `{}` for a strict tool: INVALID_ARGUMENT at /action, and nothing reaches the Editor.
    let sent = sim.requests_seen("/command");
    let s = p.call_structured("scene", json!({}));
    assert_eq!(s["code"], "INVALID_ARGUMENT", "{s}");
    assert_eq!(s["data"]["pointer"], "/action", "{s}");
    assert_fits_both(&list, "scene", &s);
    let s = p.call_structured("scene", json!({"action": "nope"}));
    assert_eq!(s["code"], "ACTION_NOT_FOUND", "{s}");
    assert_eq!(s["data"]["pointer"], "/action");
    let s = p.call_structured(
        "manage_gameobject",
        json!({"action": "create", "primitive": "dodecahedron"}),
    );
    assert_eq!(s["code"], "INVALID_ARGUMENT", "{s}");
    assert_eq!(s["data"]["pointer"], "/primitive", "{s}");
    assert_eq!(
        sim.requests_seen("/command"),
        sent,
        "refused calls were sent"
    );
    assert_eq!(sim.side_effects(), 0);

    // A read, a mutation (with an operation id), an older client's namespaced name.
    let s = p.call_structured("scene", json!({"action": "info"}));
    assert_eq!(s["success"], true, "{s}");
    assert_fits_both(&list, "scene", &s);
    let s = p.call_structured("hera__scene", json!({"action": "info"}));
    assert_eq!(s["success"], true, "{s}");
    let created = p.call_structured(
        "manage_gameobject",
        json!({"action": "create", "name": "ExposureCube"}),
    );
    assert_eq!(created["success"], true, "{created}");
    assert!(
        created["operation_id"]
            .as_str()
            .is_some_and(|o| !o.is_empty())
    );
    assert_fits_both(&list, "manage_gameobject", &created);
    let iid = created["data"]["instance_id"].clone();
    assert!(iid.is_number(), "{created}");

    // A destructive call needs the user: APPROVAL_REQUIRED, nothing destroyed.
    let args = json!({"action": "destroy", "instance_id": iid});
    let s = p.call_structured("manage_gameobject", args.clone());
    assert_eq!(s["code"], "APPROVAL_REQUIRED", "{s}");
    assert_fits_both(&list, "manage_gameobject", &s);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 0);
    // The user said yes: the identical call with the token runs it once.
    let mut approved = args.clone();
    approved["approval_token"] = s["data"]["token"].clone();
    let s = p.call_structured("manage_gameobject", approved);
    assert_eq!(s["success"], true, "{s}");
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 1);
    let s = p.call_structured("find_gameobjects", json!({"name": "ExposureCube"}));
    assert!(
        !s.to_string().contains(&format!("\"instance_id\":{iid}")),
        "{s}"
    );

    // A catalog tool outside the profile is a tool error; a name nobody knows is -32602.
    let s = p.call_structured("bake", json!({"action": "clear"}));
    assert_eq!(s["code"], "TOOL_NOT_FOUND", "{s}");
    assert!(s["message"].as_str().unwrap().contains("core"), "{s}");
    let r = p.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // tool_call is not a native tool.
    let r = p.request(
        "tools/call",
        json!({"name": "tool_call", "arguments": {"name": "scene"}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

#[test]
fn a_custom_tool_added_and_removed_is_announced_to_a_legacy_session() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sim = start_sim(home, |_| {});
    let mut p = McpProc::start(home, &[], &native("custom"), &[]);
    p.initialize("2025-06-18");
    // No custom tools yet: an empty list, not a refusal.
    let list = p.ok("tools/list", json!({}));
    assert!(names(&list).is_empty(), "{list}");

    // Each change is awaited from a clean slate, so a notification about an earlier state can
    // never stand in for the one this change must produce.
    p.clear_notifications();
    sim.add_custom_tool(custom_tool("paint_wall", &["custom", "full"]));
    quick_reload(&sim);
    p.wait_notification("notifications/tools/list_changed", FOLLOW)
        .expect("list_changed after a custom tool was added");
    let list = p.ok("tools/list", json!({}));
    assert_eq!(names(&list), ["paint_wall"]);
    let s = p.call_structured("paint_wall", json!({"size": 3}));
    assert_eq!(s["success"], true, "{s}");
    assert_fits_both(&list, "paint_wall", &s);
    assert_eq!(sim.side_effects_of("paint_wall", None), 1);

    p.clear_notifications();
    assert!(sim.remove_tool("paint_wall"));
    quick_reload(&sim);
    p.wait_notification("notifications/tools/list_changed", FOLLOW)
        .expect("list_changed after the tool was removed");
    let list = p.ok("tools/list", json!({}));
    assert!(names(&list).is_empty(), "{list}");
    let s = p.call_structured("paint_wall", json!({"size": 3}));
    assert_eq!(s["code"], "TOOL_NOT_FOUND", "{s}");
    assert_eq!(sim.side_effects_of("paint_wall", None), 1);
}

#[test]
fn a_2026_session_gets_list_changed_on_its_listen_stream() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sim = start_sim(home, |_| {});
    let mut p = McpProc::start(home, &[], &["--exposure", "full"], &[]);
    let listen = p.send_request(
        "subscriptions/listen",
        json!({"_meta": meta_2026(), "notifications": {"toolsListChanged": true}}),
    );
    let ack = p
        .wait_notification("notifications/subscriptions/acknowledged", FOLLOW)
        .expect("subscription acknowledged");
    assert_eq!(
        ack["params"]["notifications"]["toolsListChanged"], true,
        "{ack}"
    );
    let (tools, _) = list_all(&mut p, Some(meta_2026()));
    assert_eq!(tools.len(), 32);

    sim.add_custom_tool(custom_tool("paint_wall", &["custom", "full"]));
    quick_reload(&sim);
    let note = p
        .wait_notification("notifications/tools/list_changed", FOLLOW)
        .expect("list_changed on the listen stream");
    assert_eq!(
        note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], listen,
        "{note}"
    );
    let (tools, _) = list_all(&mut p, Some(meta_2026()));
    assert_eq!(tools.len(), 33);
    assert!(tools.iter().any(|t| t["name"] == "paint_wall"));
    // Nothing unsolicited: every list_changed this session saw belongs to its subscription.
    for n in &p.notifications {
        if n["method"] == "notifications/tools/list_changed" {
            assert_eq!(
                n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
                listen
            );
        }
    }
}

#[test]
fn calls_during_a_catalog_refresh_answer_catalog_stale() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sim = start_sim(home, |_| {});
    let mut p = McpProc::start(home, &[], &native("core"), &[]);
    p.initialize("2025-11-25");
    let list = p.ok("tools/list", json!({}));
    assert_eq!(names(&list).len(), 8);

    // The next catalog fetch takes 10 s; a reload makes the watch start one.
    sim.inject_matching(
        FaultMatch::tool("list"),
        Fault::Delay {
            ms: 10_000,
            times: 1,
        },
    );
    let before = sim.requests_seen("/command");
    quick_reload(&sim);
    eventually(FOLLOW, || {
        (sim.requests_seen("/command") > before).then_some(())
    });
    let fetching = sim.requests_seen("/command");
    let s = p.call_structured("scene", json!({"action": "info"}));
    assert_eq!(s["code"], "CATALOG_STALE", "{s}");
    assert_eq!(s["data"]["retryable"], true);
    assert_fits_both(&list, "scene", &s);
    assert_eq!(
        sim.requests_seen("/command"),
        fetching,
        "a stale call was sent"
    );
    // Once the new catalog is in, the same call runs.
    eventually(FOLLOW, || {
        let s = p.call_structured("scene", json!({"action": "info"}));
        (s["success"] == true).then_some(())
    });
}

#[test]
fn a_mutating_profile_without_the_ledger_is_refused_naming_the_feature() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sim = start_sim(home, |c| {
        c.features = ALL_FEATURES
            .iter()
            .filter(|f| **f != FEATURE_OPERATION_LEDGER)
            .map(|f| f.to_string())
            .collect();
    });
    let mut p = McpProc::start(home, &[], &native("core"), &[]);
    p.initialize("2025-06-18");
    let r = p.request("tools/list", json!({}));
    let e = &r["error"];
    assert!(e.is_object(), "{r}");
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains("operation_ledger_v1") && msg.contains("--exposure compact"),
        "{msg}"
    );
    assert_eq!(e["data"]["code"], "OPERATION_LEDGER_REQUIRED");
    // A call by name gets the same refusal as a tool error; nothing runs.
    let s = p.call_structured("scene", json!({"action": "info"}));
    assert_eq!(s["code"], "OPERATION_LEDGER_REQUIRED", "{s}");
    assert_eq!(sim.side_effects(), 0);
    assert!(
        p.wait_stderr("operation_ledger_v1", FOLLOW),
        "{}",
        p.stderr()
    );
}

#[test]
fn a_legacy_connector_cannot_back_native_exposure() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let _sim = start_sim(home, |c| c.legacy = true);
    let mut p = McpProc::start(home, &[], &["--exposure", "full"], &[]);
    p.initialize("2025-06-18");
    // tools/list waits for the Editor only briefly: on a loaded machine the first list may be
    // the empty one served before the Editor is reached; the refusal follows once it is.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let r = loop {
        let r = p.request("tools/list", json!({}));
        if r.get("error").is_some() || std::time::Instant::now() >= deadline {
            break r;
        }
        assert!(names(&r["result"]).is_empty(), "{r}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let msg = r["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("legacy") && msg.contains("--exposure compact"),
        "{r}"
    );
    assert_eq!(r["error"]["data"]["code"], "STRICT_CATALOG_REQUIRED");
}

#[test]
fn without_an_editor_the_list_is_empty_then_follows_the_editor_and_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let mut p = McpProc::start(home, &[], &native("core"), &[]);
    p.initialize("2025-06-18");
    let list = p.ok("tools/list", json!({}));
    assert!(names(&list).is_empty(), "{list}");
    assert!(list.get("nextCursor").is_none());

    let sim = start_sim(home, |_| {});
    p.wait_notification("notifications/tools/list_changed", FOLLOW)
        .expect("list_changed once the Editor appeared");
    let list = p.ok("tools/list", json!({}));
    assert_eq!(names(&list).len(), 8);
    sim.shutdown();
    p.shutdown(Duration::from_secs(5));

    // A new server, no Editor: the cached catalog backs the list; calls say why they cannot run.
    let mut p = McpProc::start(home, &["--timeout", "4000"], &native("core"), &[]);
    p.initialize("2025-06-18");
    let cached = p.ok("tools/list", json!({}));
    assert_eq!(names(&cached), names(&list));
    let s = p.call_structured("scene", json!({"action": "info"}));
    assert_eq!(s["success"], false, "{s}");
    assert_eq!(s["data"]["retryable"], true, "{s}");
    assert_fits_both(&cached, "scene", &s);
}

#[test]
fn tools_list_pages_deterministically() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let _sim = start_sim(home, |_| {});
    let mut whole = McpProc::start(home, &[], &["--exposure", "full"], &[]);
    whole.initialize("2025-06-18");
    let all = whole.ok("tools/list", json!({}));
    assert!(all.get("nextCursor").is_none());

    let mut p = McpProc::start(
        home,
        &[],
        &["--exposure", "full"],
        &[("HERA_MCP_PAGE_SIZE", "5")],
    );
    p.initialize("2025-06-18");
    let (tools, pages) = list_all(&mut p, None);
    assert_eq!(pages, 7);
    assert_eq!(Value::Array(tools), all["tools"]);
    let first = p.ok("tools/list", json!({}));
    assert_eq!(first["tools"].as_array().unwrap().len(), 5);
    let cursor = first["nextCursor"].as_str().unwrap().to_string();
    let a = p.ok("tools/list", json!({"cursor": cursor}));
    let b = p.ok("tools/list", json!({"cursor": cursor}));
    assert_eq!(a, b);
    let r = p.request("tools/list", json!({"cursor": "not-ours"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // Compact lists are one page; a cursor there is refused too.
    let mut c = McpProc::start(home, &[], &[], &[("HERA_MCP_PAGE_SIZE", "5")]);
    c.initialize("2025-06-18");
    assert!(c.ok("tools/list", json!({})).get("nextCursor").is_none());
    assert_eq!(
        c.request("tools/list", json!({"cursor": "3@x"}))["error"]["code"],
        -32602
    );
}

#[test]
fn the_compact_list_is_smaller_than_the_go_adapter_and_real_results_fit_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sim = start_sim(home, |_| {});
    let mut p = McpProc::start(home, &[], &[], &[("HERA_MCP_MAX_INLINE_BYTES", "64")]);
    p.initialize("2025-06-18");
    let list = p.ok("tools/list", json!({}));
    let bytes = serde_json::to_string(&list).unwrap().len();
    eprintln!("compact tools/list result: {bytes} bytes (Go adapter: 2,505)");
    assert!(bytes < 2505, "compact tools/list is {bytes} bytes");

    // Every shape each tool returns fits what it advertises (and the full schema).
    let s = p.call_structured("tool_search", json!({"query": "create a game object"}));
    assert!(s.to_string().contains("manage_gameobject"));
    assert_fits_output_schema(&list, "tool_search", &s);
    let s = p.call_structured("tool_search", json!({"query": "x", "limit": 0}));
    assert_fits_output_schema(&list, "tool_search", &s);
    let s = p.call_structured(
        "tool_describe",
        json!({"name": "manage_gameobject", "action": "create"}),
    );
    assert!(s.to_string().contains("primitive"));
    assert_fits_output_schema(&list, "tool_describe", &s);
    let s = p.call_structured("tool_describe", json!({"name": "nope"}));
    assert_eq!(s["code"], "TOOL_NOT_FOUND");
    assert_fits_output_schema(&list, "tool_describe", &s);
    let calls = [
        json!({"name": "scene", "arguments": {"action": "info"}}),
        json!({"name": "scene", "arguments": {"action": "hierarchy"}}),
        json!({"name": "manage_gameobject", "arguments": {"action": "create", "primitive": "dodecahedron"}}),
        json!({"name": "manage_gameobject", "arguments": {"action": "create", "name": "Fits"}}),
        json!({"name": "scene", "arguments": {"action": "close", "path": "Assets/Scenes/Main.unity"}}),
        json!({"name": "scene", "operation_id": "bad"}),
    ];
    let mut codes = Vec::new();
    for c in calls {
        let s = p.call_structured("tool_call", c.clone());
        assert_fits_both(&list, "tool_call", &s);
        codes.push(
            s["code"]
                .as_str()
                .map(str::to_string)
                .or_else(|| s["result"]["status"].as_str().map(str::to_string))
                .unwrap_or_else(|| "ok".into()),
        );
    }
    // The cases above really are the different shapes: spilled, invalid, approval, bad id.
    for want in ["INVALID_ARGUMENT", "APPROVAL_REQUIRED"] {
        assert!(codes.iter().any(|c| c == want), "{codes:?}");
    }
    assert!(
        codes.iter().any(|c| c.contains("SPILL") || c == "spilled"),
        "{codes:?}"
    );
    drop(sim);
}
