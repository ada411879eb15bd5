//! The MCP server against the reference Editor (the in-process simulator over real HTTP on
//! 127.0.0.1): lazy connection, the Editor appearing and reloading mid-session, the cached
//! catalog while it is down, and the three tools' happy paths and refusals.

use crate::support::mcp::*;
use hera_connector_sim::{Fault, Reload, SimConfig, Simulator};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Short per-request timeout so a vanished Editor is reported quickly.
const TIMEOUT_ARGS: [&str; 2] = ["--timeout", "4000"];
/// For sessions that must ride out a domain reload on a busy machine, or must tell an instant
/// answer from one that waited (the longest waits scale with the timeout).
const PATIENT_ARGS: [&str; 2] = ["--timeout", "60000"];

fn project(home: &Path) -> PathBuf {
    let p = home.join("Projects").join("Game");
    std::fs::create_dir_all(&p).unwrap();
    p
}

fn start_sim(home: &Path) -> Simulator {
    let cfg = SimConfig::new(
        home.to_path_buf(),
        project(home).to_string_lossy().into_owned(),
    );
    Simulator::start_background(cfg).expect("start simulator")
}

fn call(p: &mut McpProc, name: &str, arguments: Value) -> Value {
    p.call_structured("tool_call", json!({"name": name, "arguments": arguments}))
}

struct Session {
    _home: tempfile::TempDir,
    home: PathBuf,
    p: McpProc,
    list: Value,
}

fn session(mcp_args: &[&str]) -> Session {
    session_with(&TIMEOUT_ARGS, mcp_args)
}

fn session_with(global: &[&str], mcp_args: &[&str]) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let mut p = McpProc::start(&home, global, mcp_args, &[]);
    p.initialize("2025-11-25");
    let list = p.ok("tools/list", json!({}));
    Session {
        _home: dir,
        home,
        p,
        list,
    }
}

#[test]
fn lazy_start_editor_appears_reloads_and_goes_away() {
    // The call across the reload must outlast the 1.2 s downtime however busy the machine.
    let mut s = session_with(&PATIENT_ARGS, &[]);
    // No Editor: the tools are listed and a call says why it cannot run, retryably.
    assert_eq!(s.list["tools"].as_array().unwrap().len(), 3);
    let r = call(&mut s.p, "scene", json!({"action":"info"}));
    assert_eq!(r["code"], "EDITOR_NOT_RUNNING", "{r}");
    assert_eq!(r["data"]["retryable"], true);

    // The Editor appears: the next call connects and works.
    let sim = start_sim(&s.home);
    let r = call(&mut s.p, "scene", json!({"action":"info"}));
    assert_eq!(r["success"], true, "{r}");
    assert_fits_output_schema(&s.list, "tool_call", &r);
    let d =
        s.p.call_structured("tool_describe", json!({"name":"scene"}));
    assert_eq!(d["data"]["domain_epoch"], sim.domain_epoch());
    let first_epoch = sim.domain_epoch();

    // A domain reload mid-session, onto a new port: calls keep working and the catalog follows
    // the new epoch.
    sim.reload(Reload {
        downtime: Duration::from_millis(1200),
        new_port: true,
    });
    let r = call(&mut s.p, "scene", json!({"action":"info"}));
    assert_eq!(r["success"], true, "call across the reload: {r}");
    assert_ne!(sim.domain_epoch(), first_epoch);
    let new_epoch = sim.domain_epoch();
    eventually(Duration::from_secs(15), || {
        let d =
            s.p.call_structured("tool_describe", json!({"name":"scene"}));
        (d["data"]["domain_epoch"] == new_epoch).then_some(())
    });

    // The Editor goes away: search and describe still answer from the cached catalog, and a call
    // says the Editor is not running.
    sim.shutdown();
    let r =
        s.p.call_structured("tool_search", json!({"query":"load scene"}));
    assert_eq!(r["success"], true, "{r}");
    assert!(
        r["data"]["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["name"] == "scene")
    );
    let r = call(&mut s.p, "scene", json!({"action":"info"}));
    assert_eq!(r["success"], false);
    assert_eq!(r["data"]["retryable"], true, "{r}");
    let (status, took) = s.p.shutdown(Duration::from_secs(5));
    assert!(status.success());
    assert!(took < Duration::from_secs(5));
}

#[test]
fn a_fresh_server_serves_search_from_the_cache_while_the_editor_is_down() {
    let mut s = session(&[]);
    let sim = start_sim(&s.home);
    // Reaching the Editor once stores its catalog on disk.
    let r = s.p.call_structured("tool_search", json!({"query":"scene"}));
    assert_eq!(r["success"], true);
    sim.shutdown();
    s.p.shutdown(Duration::from_secs(5));

    // A new process, no Editor: search and describe work from the cache and say so.
    let mut p = McpProc::start(&s.home, &TIMEOUT_ARGS, &[], &[]);
    p.initialize("2025-06-18");
    let r = p.call_structured("tool_search", json!({"query":"create a game object"}));
    assert_eq!(r["success"], true, "{r}");
    assert!(r["agent_hint"].as_str().unwrap().contains("cached"));
    let d = p.call_structured("tool_describe", json!({"name":"scene","action":"load"}));
    assert_eq!(d["success"], true);
    assert!(d["data"]["action"]["input_schema"].is_object());
    let c = call(&mut p, "scene", json!({"action":"info"}));
    assert_eq!(c["data"]["retryable"], true);
}

#[test]
fn search_and_describe_happy_paths_and_errors() {
    let mut s = session(&[]);
    let _sim = start_sim(&s.home);
    let r =
        s.p.call_structured("tool_search", json!({"query":"load a scene","limit":3}));
    assert_eq!(r["success"], true);
    let results = r["data"]["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 3);
    assert!(
        !r.to_string().contains("input_schema"),
        "search never returns schemas"
    );
    // Each hit: the call's own risk class, and only the flags that differ from its defaults.
    for h in results {
        let safety = h["safety"].as_object().expect("safety object");
        assert!(safety.contains_key("risk_class"), "{h}");
        assert!(!safety.contains_key("read_only"), "{h}");
    }
    let load = results
        .iter()
        .find(|h| h["action"] == "load")
        .unwrap_or_else(|| panic!("no scene/load hit: {r}"));
    assert_eq!(load["safety"], json!({"risk_class": "write"}), "{load}");
    assert_fits_output_schema(&s.list, "tool_search", &r);
    // Deterministic.
    let again =
        s.p.call_structured("tool_search", json!({"query":"load a scene","limit":3}));
    assert_eq!(r, again);
    // Arbitrary code is absent without permission.
    let r = s.p.call_structured(
        "tool_search",
        json!({"query":"exec run C# code","limit":100}),
    );
    assert!(
        r["data"]["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["name"] != "exec")
    );

    let d =
        s.p.call_structured("tool_describe", json!({"name":"scene"}));
    assert_eq!(d["success"], true);
    assert!(
        d["data"]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["name"] == "load")
    );
    assert!(d["data"].get("input_schema").is_none());
    assert_fits_output_schema(&s.list, "tool_describe", &d);
    let d =
        s.p.call_structured("tool_describe", json!({"name":"scene","action":"load"}));
    assert_eq!(d["data"]["action"]["name"], "load");
    assert!(d["data"]["action"]["input_schema"]["properties"]["path"].is_object());
    assert!(d["data"]["action"]["safety"]["risk_class"].is_string());

    let e = s.p.call_structured("tool_describe", json!({"name":"scen"}));
    assert_eq!(e["code"], "TOOL_NOT_FOUND");
    assert!(
        e["suggestions"]
            .as_array()
            .unwrap()
            .contains(&json!("scene")),
        "{e}"
    );
    assert_fits_output_schema(&s.list, "tool_describe", &e);
    let e =
        s.p.call_structured("tool_describe", json!({"name":"scene","action":"lod"}));
    assert_eq!(e["code"], "ACTION_NOT_FOUND");
    assert!(
        e["suggestions"]
            .as_array()
            .unwrap()
            .contains(&json!("load")),
        "{e}"
    );
    // Without the permission the arbitrary-code tool is not offered: describe does not find it
    // (tool_call keeps ARBITRARY_CODE_PERMISSION_REQUIRED, which says how to enable it).
    let e = s.p.call_structured("tool_describe", json!({"name":"exec"}));
    assert_eq!(e["code"], "TOOL_NOT_FOUND", "{e}");
    let c = call(&mut s.p, "exec", json!({"code":"1+1"}));
    assert_eq!(c["code"], "ARBITRARY_CODE_PERMISSION_REQUIRED", "{c}");
}

#[test]
fn tool_call_validates_before_sending_and_preserves_connector_answers() {
    let mut s = session(&[]);
    let sim = start_sim(&s.home);
    // Warm up so the catalog is loaded.
    assert_eq!(
        call(&mut s.p, "scene", json!({"action":"info"}))["success"],
        true
    );
    let before = sim.side_effects();

    // Unknown field: a repairable tool error with a pointer, nothing sent.
    let r = call(
        &mut s.p,
        "scene",
        json!({"action":"load","path":"Assets/A.unity","bogus":1}),
    );
    assert_eq!(r["code"], "INVALID_ARGUMENT", "{r}");
    assert_eq!(r["data"]["pointer"], "/arguments/bogus");
    assert_fits_output_schema(&s.list, "tool_call", &r);
    // Missing required field of the resolved action.
    let r = call(&mut s.p, "scene", json!({"action":"load"}));
    assert_eq!(r["data"]["pointer"], "/arguments/path", "{r}");
    // Wrong type.
    let r = call(&mut s.p, "scene", json!({"action":"load","path":7}));
    assert_eq!(r["data"]["pointer"], "/arguments/path", "{r}");
    // Unknown action, with suggestions.
    let r = call(
        &mut s.p,
        "scene",
        json!({"action":"lod","path":"Assets/A.unity"}),
    );
    assert_eq!(r["code"], "ACTION_NOT_FOUND");
    assert_eq!(r["data"]["pointer"], "/arguments/action");
    // Unknown tool.
    let r = call(&mut s.p, "sceen", json!({}));
    assert_eq!(r["code"], "TOOL_NOT_FOUND");
    assert!(
        r["suggestions"]
            .as_array()
            .unwrap()
            .contains(&json!("scene"))
    );
    // Invalid operation id.
    let r = s.p.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"save_all"},"operation_id":"bad id with spaces"}),
    );
    assert_eq!(r["code"], "INVALID_OPERATION_ID", "{r}");
    // Arbitrary code without permission.
    let r = call(&mut s.p, "exec", json!({"code":"return 1;"}));
    assert_eq!(r["code"], "ARBITRARY_CODE_PERMISSION_REQUIRED");
    assert_eq!(
        sim.side_effects(),
        before,
        "refused calls reached the Editor"
    );

    // A mutation keeps the client's operation id; an action alias-free canonical name is sent.
    let op = "op_test_0123456789abcdef";
    let r = s.p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"CREATE","name":"Cube"},"operation_id":op}),
    );
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(r["operation_id"], op);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("create")), 1);
    // Resending the same operation replays it from the ledger instead of running it twice.
    let again = s.p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name":"Cube"},"operation_id":op}),
    );
    assert_eq!(again["success"], true, "{again}");
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("create")), 1);
    // A Connector error code is preserved, as a tool error.
    let r = call(
        &mut s.p,
        "scene",
        json!({"action":"load","path":"Assets/Missing.unity"}),
    );
    assert_eq!(r["success"], false);
    assert!(r["code"].is_string());
    assert_fits_output_schema(&s.list, "tool_call", &r);
}

#[test]
fn approval_round_trip_by_argument_and_by_meta() {
    let mut s = session(&[]);
    let sim = start_sim(&s.home);
    let args =
        json!({"name":"manage_gameobject","arguments":{"action":"destroy","target":"Main Camera"}});
    let r = s.p.call_structured("tool_call", args.clone());
    assert_eq!(r["code"], "APPROVAL_REQUIRED", "{r}");
    assert!(r["data"]["token"].is_string());
    assert!(r["data"]["summary"].is_object());
    assert_eq!(r["operation_id"], r["data"]["operation_id"]);
    assert_fits_output_schema(&s.list, "tool_call", &r);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 0);

    // The approved call, token as an argument.
    let mut approved = args.clone();
    approved["approval_token"] = r["data"]["token"].clone();
    let done = s.p.call_structured("tool_call", approved.clone());
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(done["operation_id"], r["data"]["operation_id"]);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 1);

    // A token for other arguments is refused locally, before sending.
    let other = json!({"name":"manage_gameobject","arguments":{"action":"destroy","target":"Directional Light"},
        "approval_token": r["data"]["token"]});
    let refused = s.p.call_structured("tool_call", other);
    assert_eq!(refused["code"], "APPROVAL_MISMATCH", "{refused}");

    // The token in _meta["hera/approval_token"].
    let scene_args =
        json!({"name":"scene","arguments":{"action":"close","path":"Assets/Scenes/Main.unity"}});
    let r = s.p.call_structured("tool_call", scene_args.clone());
    assert_eq!(r["code"], "APPROVAL_REQUIRED", "{r}");
    let mut params = json!({"name":"tool_call","arguments":scene_args});
    params["_meta"] = json!({"hera/approval_token": r["data"]["token"]});
    let res = s.p.ok("tools/call", params);
    let done = structured(&res);
    assert_ne!(done["code"], "APPROVAL_REQUIRED", "{done}");
    assert_ne!(done["code"], "INVALID_APPROVAL_TOKEN", "{done}");
}

#[test]
fn mutations_need_the_ledger_feature() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let mut cfg = SimConfig::new(
        home.to_path_buf(),
        project(home).to_string_lossy().into_owned(),
    );
    cfg.features = hera_connector_contract::wire::ALL_FEATURES
        .iter()
        .filter(|f| **f != "operation_ledger_v1")
        .map(|f| f.to_string())
        .collect();
    let sim = Simulator::start_background(cfg).unwrap();
    let mut p = McpProc::start(home, &TIMEOUT_ARGS, &[], &[]);
    p.initialize("2025-11-25");
    let r = call(
        &mut p,
        "manage_gameobject",
        json!({"action":"create","name":"Cube"}),
    );
    assert_eq!(r["code"], "OPERATION_LEDGER_REQUIRED", "{r}");
    assert_eq!(sim.side_effects(), 0);
    // Reads still work.
    assert_eq!(
        call(&mut p, "scene", json!({"action":"info"}))["success"],
        true
    );
}

#[test]
fn arbitrary_code_is_available_only_with_permission() {
    let mut s = session(&["--allow-arbitrary-code"]);
    let _sim = start_sim(&s.home);
    let r =
        s.p.call_structured("tool_search", json!({"query":"exec C# code","limit":100}));
    assert!(
        r["data"]["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["name"] == "exec"),
        "{r}"
    );
    let d = s.p.call_structured("tool_describe", json!({"name":"exec"}));
    assert_eq!(d["success"], true);
    // Arbitrary code always needs the user's approval.
    let c = call(&mut s.p, "exec", json!({"code":"return 1;"}));
    assert_eq!(c["code"], "APPROVAL_REQUIRED", "{c}");
}

#[test]
fn long_test_runs_return_a_durable_pollable_task() {
    let mut s = session(&[]);
    let sim = start_sim(&s.home);
    // The run finishes only when simulated time passes an hour, so the call must hand back a
    // task id after its bounded wait.
    sim.with_editor(|e| e.set_job_delay(Duration::from_secs(3600)));
    // With a progress token, the bounded wait reports progress while the run goes on.
    let res = s.p.ok(
        "tools/call",
        json!({"name":"tool_call","_meta":{"progressToken":"run-1"},
            "arguments":{"name":"run_tests","arguments":{"mode":"EditMode","async_results":true}}}),
    );
    let r = structured(&res);
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(r["data"]["status"], "working", "{r}");
    let progress: Vec<&Value> =
        s.p.notifications
            .iter()
            .filter(|n| n["method"] == "notifications/progress")
            .collect();
    assert!(!progress.is_empty(), "no progress notifications");
    assert!(
        progress
            .iter()
            .all(|n| n["params"]["progressToken"] == "run-1")
    );
    assert_fits_output_schema(&s.list, "tool_call", &r);
    let id = r["data"]["task_id"].as_str().unwrap().to_string();
    assert!(id.starts_with("hera_task_"));
    let t = call(&mut s.p, "hera.task", json!({"task_id": id}));
    assert_eq!(t["data"]["status"], "working", "{t}");
    sim.advance_clock(Duration::from_secs(7200));
    let done = eventually(Duration::from_secs(60), || {
        let t = call(&mut s.p, "hera.task", json!({"task_id": id}));
        assert_fits_output_schema(&s.list, "tool_call", &t);
        (t.get("data").and_then(|d| d.get("status")) != Some(&json!("working"))).then_some(t)
    });
    assert!(done["message"].as_str().unwrap().contains("test"), "{done}");
    assert_eq!(done["operation_id"], r["operation_id"]);

    // The handle is durable: a new server process reads the same result.
    s.p.shutdown(Duration::from_secs(5));
    let mut p = McpProc::start(&s.home, &TIMEOUT_ARGS, &[], &[]);
    p.initialize("2025-11-25");
    let again = call(&mut p, "hera.task", json!({"task_id": id}));
    assert_eq!(again["message"], done["message"], "{again}");

    let bad = call(&mut p, "hera.task", json!({"task_id":"hera_task_nonsense"}));
    assert_eq!(bad["code"], "INVALID_ARGUMENT");
    assert_eq!(bad["data"]["pointer"], "/arguments/task_id");
}

/// A "Editor" that accepts connections and never answers, announced by a heartbeat written by
/// hand: the worst case for a client that waits on the Editor.
fn hung_editor(home: &Path) -> std::net::TcpListener {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = home.join(".hera-agent-unity").join("instances");
    std::fs::create_dir_all(&dir).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let hb = json!({"state":"ready","projectPath": project(home).to_string_lossy(),"port":port,
        "pid": std::process::id(),"domainEpoch":"0123456789abcdef0123456789abcdef",
        "features": hera_connector_contract::wire::ALL_FEATURES,"timestamp":now,"compileErrors":false});
    std::fs::write(dir.join("hung.json"), hb.to_string()).unwrap();
    // Accept and hold connections (bounded: the thread ends after five minutes, well past any
    // test that uses it).
    let l = listener.try_clone().unwrap();
    l.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(300) {
            if let Ok((s, _)) = l.accept() {
                held.push(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    listener
}

#[test]
fn a_hung_editor_never_blocks_tools_list_or_reads() {
    let dir = tempfile::tempdir().unwrap();
    let _editor = hung_editor(dir.path());
    // With a one-minute timeout, a tools/list that waited on the hung Editor would take at
    // least the catalog fetch's 30 s; an instant answer is far below the bound on any machine.
    let mut patient = McpProc::start(dir.path(), &PATIENT_ARGS, &[], &[]);
    let start = Instant::now();
    patient.initialize("2025-11-25");
    let list = patient.ok("tools/list", json!({}));
    assert_eq!(list["tools"].as_array().unwrap().len(), 3);
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "tools/list waited on the Editor: {:?}",
        start.elapsed()
    );
    let (status, _) = patient.shutdown(Duration::from_secs(5));
    assert!(status.success());

    let mut p = McpProc::start(dir.path(), &TIMEOUT_ARGS, &[], &[]);
    p.initialize("2025-11-25");
    // Search cannot get a catalog and none is cached: a bounded, retryable answer.
    let start = Instant::now();
    let r = p.call_structured("tool_search", json!({"query":"scene"}));
    assert_eq!(r["success"], false, "{r}");
    assert_eq!(r["data"]["retryable"], true, "{r}");
    assert_fits_output_schema(&list, "tool_search", &r);
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "search took {:?}",
        start.elapsed()
    );
    // A call gives up after the request timeout (4 s here) with a retryable reason.
    let r = call(&mut p, "scene", json!({"action":"info"}));
    assert_eq!(r["success"], false, "{r}");
    assert_eq!(r["data"]["retryable"], true, "{r}");
    let (status, took) = p.shutdown(Duration::from_secs(5));
    assert!(status.success() && took < Duration::from_secs(5));
}

#[test]
fn exits_promptly_on_eof_with_a_call_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sim = start_sim(home);
    let mut p = McpProc::start(home, &["--timeout", "60000"], &[], &[]);
    p.initialize("2025-11-25");
    // Load the catalog first, then make the next call hang inside the Editor.
    assert_eq!(
        call(&mut p, "scene", json!({"action":"info"}))["success"],
        true
    );
    sim.inject(Fault::Hang { times: 1 });
    let before = sim.requests_seen("/command");
    p.send(
        &json!({"jsonrpc":"2.0","id":"inflight","method":"tools/call",
        "params":{"name":"tool_call","arguments":{"name":"scene","arguments":{"action":"list"}}}}),
    );
    // The hung call has reached the Editor (the warm-up's catalog fetch and call are counted
    // already, so count from here).
    eventually(Duration::from_secs(30), || {
        (sim.requests_seen("/command") > before).then_some(())
    });
    let (status, took) = p.shutdown(Duration::from_secs(5));
    eprintln!("exit with a call in flight took {took:?}");
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(5));
}

#[test]
fn unknown_outcomes_and_stale_catalogs_are_reported_as_the_editor_said() {
    let mut s = session(&[]);
    let sim = start_sim(&s.home);
    assert_eq!(
        call(&mut s.p, "scene", json!({"action":"info"}))["success"],
        true
    );
    // The catalog changes under us but this call's contract does not: the server reloads the
    // catalog and resends the same operation once (nothing had run: CATALOG_STALE comes before
    // the ledger), so the agent sees the answer.
    sim.inject(Fault::CatalogHashChange);
    let lists = sim.requests_seen("/command");
    let again = call(&mut s.p, "scene", json!({"action":"info"}));
    assert_eq!(again["success"], true, "{again}");
    assert!(
        sim.requests_seen("/command") >= lists + 3,
        "refused, catalog refetched, resent"
    );
    let d =
        s.p.call_structured("tool_describe", json!({"name":"scene"}));
    assert_eq!(d["data"]["catalog_hash"], sim.catalog_hash());

    // The handler runs, then the domain reloads before the commit: nobody can know the outcome.
    sim.inject(Fault::ReloadWhileRunning {
        downtime_ms: 500,
        new_port: false,
    });
    let op = "op_unknown_0123456789";
    let r = s.p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name":"Ghost"},"operation_id":op}),
    );
    assert_eq!(r["success"], false, "{r}");
    assert_eq!(r["code"], "OPERATION_OUTCOME_UNKNOWN", "{r}");
    assert_eq!(r["operation_id"], op, "{r}");
    assert_fits_output_schema(&s.list, "tool_call", &r);
}

#[test]
fn large_results_spill_to_a_readable_resource() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let _sim = start_sim(home);
    let mut p = McpProc::start(
        home,
        &TIMEOUT_ARGS,
        &[],
        &[("HERA_MCP_MAX_INLINE_BYTES", "300")],
    );
    p.initialize("2025-11-25");
    let list = p.ok("tools/list", json!({}));
    let res = p.call(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"hierarchy"}}),
    );
    let s = structured(&res);
    assert_fits_output_schema(&list, "tool_call", &s);
    assert_eq!(s["result"]["status"], "spilled", "{s}");
    let uri = s["result"]["uri"].as_str().unwrap().to_string();
    let link = res["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "resource_link")
        .expect("a resource_link next to the spilled result");
    assert_eq!(link["uri"], uri);
    let listed = p.ok("resources/list", json!({}));
    assert!(
        listed["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == uri),
        "{listed}"
    );
    let read = p.ok("resources/read", json!({"uri": uri}));
    let text = read["contents"][0]["text"].as_str().unwrap();
    let full: Value = serde_json::from_str(text).unwrap();
    assert_eq!(full["success"], true);
    assert!(full["data"].is_object() || full["data"].is_array());
    let missing = p.request(
        "resources/read",
        json!({"uri": format!("hera-result://{}/{}", "0".repeat(64), "0".repeat(32))}),
    );
    assert!(missing["error"]["code"].as_i64().is_some(), "{missing}");
    let templates = p.ok("resources/templates/list", json!({}));
    assert!(
        templates["resourceTemplates"][0]["uriTemplate"]
            .as_str()
            .unwrap()
            .starts_with("hera-result://")
    );
}

fn destroy(target: &str) -> Value {
    json!({"name":"manage_gameobject","arguments":{"action":"destroy","target":target}})
}

#[test]
fn approval_through_the_clients_form_mid_call() {
    let dir = tempfile::tempdir().unwrap();
    let sim = start_sim(dir.path());
    let mut p = McpProc::start(dir.path(), &TIMEOUT_ARGS, &[], &[]);
    p.ok(
        "initialize",
        json!({"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},
            "clientInfo":{"name":"hera-test","version":"1"}}),
    );
    p.notify("notifications/initialized", None);

    // The user approves in the client's form: the call runs once, with no token round trip.
    let id = p.send_request(
        "tools/call",
        json!({"name":"tool_call","arguments":destroy("Main Camera")}),
    );
    let ask = p.wait_server_request("elicitation/create");
    let params = &ask["params"];
    assert!(
        params["message"]
            .as_str()
            .unwrap()
            .contains("manage_gameobject/destroy"),
        "{ask}"
    );
    assert_eq!(
        params["requestedSchema"]["properties"]["approve"]["type"],
        "boolean"
    );
    p.send(&json!({"jsonrpc":"2.0","id":ask["id"],"result":{"action":"accept","content":{"approve":true}}}));
    let done = structured(&p.wait_for(&id)["result"]);
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 1);

    // The user declines: nothing runs.
    let id = p.send_request(
        "tools/call",
        json!({"name":"tool_call","arguments":destroy("Directional Light")}),
    );
    let ask = p.wait_server_request("elicitation/create");
    p.send(&json!({"jsonrpc":"2.0","id":ask["id"],"result":{"action":"decline"}}));
    let refused = structured(&p.wait_for(&id)["result"]);
    assert_eq!(refused["code"], "APPROVAL_DENIED", "{refused}");
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 1);
}

#[test]
fn approval_through_mrtr_on_2026() {
    let dir = tempfile::tempdir().unwrap();
    let sim = start_sim(dir.path());
    let mut p = McpProc::start(dir.path(), &TIMEOUT_ARGS, &[], &[]);
    let mut meta = meta_2026();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation":{"form":{}}});
    let ask = |p: &mut McpProc, extra: Value, target: &str| {
        let mut params =
            json!({"_meta": meta.clone(), "name":"tool_call", "arguments": destroy(target)});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        p.ok("tools/call", params)
    };
    let first = ask(&mut p, json!({}), "Main Camera");
    assert_eq!(first["resultType"], "input_required", "{first}");
    let q = &first["inputRequests"]["approval"];
    assert_eq!(q["method"], "elicitation/create");
    assert_eq!(
        q["params"]["requestedSchema"]["properties"]["approve"]["type"],
        "boolean"
    );
    let state = first["requestState"].as_str().unwrap().to_string();
    assert_eq!(sim.side_effects(), 0);

    // A state this server did not issue approves nothing: the question is asked again.
    let forged = ask(
        &mut p,
        json!({"inputResponses":{"approval":{"action":"accept","content":{"approve":true}}},"requestState":"forged"}),
        "Main Camera",
    );
    assert_eq!(forged["resultType"], "input_required", "{forged}");
    assert_eq!(sim.side_effects(), 0);

    // The retry with the user's yes runs the operation once.
    let done = ask(
        &mut p,
        json!({"inputResponses":{"approval":{"action":"accept","content":{"approve":true}}},"requestState":state}),
        "Main Camera",
    );
    let s = structured(&done);
    assert_eq!(s["success"], true, "{done}");
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 1);

    // A "no" ends it.
    let other = ask(&mut p, json!({}), "Directional Light");
    let state = other["requestState"].as_str().unwrap().to_string();
    let no = ask(
        &mut p,
        json!({"inputResponses":{"approval":{"action":"accept","content":{"approve":false}}},"requestState":state}),
        "Directional Light",
    );
    assert_eq!(structured(&no)["code"], "APPROVAL_DENIED", "{no}");
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 1);
}

#[test]
fn an_approval_survives_a_domain_reload() {
    let mut s = session(&[]);
    let sim = start_sim(&s.home);
    let args = destroy("Main Camera");
    let r = s.p.call_structured("tool_call", args.clone());
    assert_eq!(r["code"], "APPROVAL_REQUIRED", "{r}");
    // The user approves, but the Editor reloads first (its approval secret rotates).
    sim.reload(Reload {
        downtime: Duration::from_millis(500),
        new_port: false,
    });
    let mut approved = args.clone();
    approved["approval_token"] = r["data"]["token"].clone();
    let done = s.p.call_structured("tool_call", approved);
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(done["operation_id"], r["data"]["operation_id"]);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 1);
    // A token the agent made up is never renewed: it reaches the Editor and is refused there.
    let mut forged = destroy("Directional Light");
    let claims = hera_connector_contract::approval::ApprovalClaims {
        version: 1,
        operation_id: "op_forged_0123456789".into(),
        tool: "manage_gameobject".into(),
        action: Some("destroy".into()),
        arguments_hash: hera_connector_contract::canonical::arguments_hash_of_value(
            &json!({"action":"destroy","target":"Directional Light"}),
        ),
        risk_class: "destructive".into(),
        project_id: sim.project_id().to_string(),
        expires_at_ms: i64::MAX,
        single_use: true,
    };
    forged["approval_token"] = json!(hera_connector_contract::approval::sign(&[7u8; 32], &claims));
    let refused = s.p.call_structured("tool_call", forged);
    assert_eq!(refused["code"], "INVALID_APPROVAL_TOKEN", "{refused}");
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 1);
}

#[test]
fn mcp_tasks_for_clients_that_declare_them() {
    let dir = tempfile::tempdir().unwrap();
    let sim = start_sim(dir.path());
    sim.with_editor(|e| e.set_job_delay(Duration::from_secs(3600)));
    // A long timeout makes the inline wait a task-less call would do (10 s) stand apart from
    // the immediate task answer.
    let mut p = McpProc::start(dir.path(), &PATIENT_ARGS, &[], &[]);
    let init = p.ok(
        "initialize",
        json!({"protocolVersion":"2025-11-25",
            "capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},
            "clientInfo":{"name":"hera-test","version":"1"}}),
    );
    assert!(init["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object());
    p.notify("notifications/initialized", None);
    let run = json!({"name":"tool_call","arguments":{"name":"run_tests","arguments":{"mode":"EditMode","async_results":true}}});
    let start = Instant::now();
    let created = p.ok("tools/call", run.clone());
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working");
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "a task is returned at once, not after the inline wait: {:?}",
        start.elapsed()
    );
    let task_id = created["taskId"].as_str().unwrap().to_string();
    assert!(task_id.starts_with("hera_task_"));
    let got = p.ok("tasks/get", json!({"taskId": task_id}));
    assert_eq!(got["status"], "working", "{got}");

    sim.advance_clock(Duration::from_secs(7200));
    let done = eventually(Duration::from_secs(30), || {
        let g = p.ok("tasks/get", json!({"taskId": task_id}));
        (g["status"] == "completed").then_some(g)
    });
    let s = structured(&done["result"]);
    assert!(s["message"].as_str().unwrap().contains("test"), "{done}");

    // A second run, cancelled through tasks/cancel.
    let created = p.ok("tools/call", run);
    let second = created["taskId"].as_str().unwrap().to_string();
    p.ok("tasks/cancel", json!({"taskId": second}));
    let cancelled = eventually(Duration::from_secs(30), || {
        let g = p.ok("tasks/get", json!({"taskId": second}));
        (g["status"] == "completed").then_some(g)
    });
    assert_eq!(
        structured(&cancelled["result"])["code"],
        "TEST_RUN_CANCELLED",
        "{cancelled}"
    );

    let bad = p.request("tasks/get", json!({"taskId":"hera_task_garbage"}));
    assert_eq!(bad["error"]["code"], -32602);
    let upd = p.request(
        "tasks/update",
        json!({"taskId": second, "inputResponses": {}}),
    );
    assert_eq!(upd["error"]["code"], -32602);
}

#[test]
fn a_legacy_connector_is_searchable_and_refuses_unsafe_calls_truthfully() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let mut cfg = SimConfig::new(
        home.to_path_buf(),
        project(home).to_string_lossy().into_owned(),
    );
    cfg.legacy = true;
    let sim = Simulator::start_background(cfg).unwrap();
    let mut p = McpProc::start(home, &TIMEOUT_ARGS, &[], &[]);
    p.initialize("2025-06-18");
    let r = p.call_structured("tool_search", json!({"query":"scene"}));
    assert_eq!(r["success"], true, "{r}");
    assert!(
        r["data"]["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["name"] == "scene")
    );
    let d = p.call_structured("tool_describe", json!({"name":"scene"}));
    assert_eq!(d["data"]["tool"]["contract_mode"], "legacy", "{d}");
    // Without a ledger and without approvals, a legacy (unknown-safety) call is refused before
    // anything is sent.
    let c = call(&mut p, "scene", json!({"action":"info"}));
    assert_eq!(c["success"], false, "{c}");
    assert_eq!(c["code"], "OPERATION_LEDGER_REQUIRED", "{c}");
    assert_eq!(sim.side_effects(), 0);
}

/// F10: a renewal after a reload re-asks whenever what the person approved changed. The agent
/// is approved to delete the object with instance id X while it is called "Main Camera"; before
/// the approved call is resent the object is renamed and the Editor reloads (its signing secret
/// rotates). The renewed preflight's summary names the new name, so nothing runs: the approval
/// is asked for again, showing the new name, and only the second approval runs the deletion,
/// once.
#[test]
fn a_renewed_approval_is_asked_again_when_what_it_names_changed() {
    let mut s = session(&[]);
    let sim = start_sim(&s.home);
    // The summary of an approval by path carries the object's instance id.
    let probe = s.p.call_structured("tool_call", destroy("Main Camera"));
    assert_eq!(probe["code"], "APPROVAL_REQUIRED", "{probe}");
    let id = probe["data"]["summary"]["subject"]["instance_id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no subject id: {probe}"));
    let by_id =
        json!({"name":"manage_gameobject","arguments":{"action":"destroy","instance_id":id}});
    let asked = s.p.call_structured("tool_call", by_id.clone());
    assert_eq!(asked["code"], "APPROVAL_REQUIRED", "{asked}");
    let subject = &asked["data"]["summary"]["subject"];
    assert_eq!(subject["name"], "Main Camera", "{asked}");

    // The object is renamed (a plain write), then the Editor reloads before the resend.
    let renamed = s.p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject",
               "arguments":{"action":"set_name","instance_id":id,"name":"Scratch Camera"}}),
    );
    assert_eq!(renamed["success"], true, "{renamed}");
    sim.reload(Reload {
        downtime: Duration::from_millis(500),
        new_port: false,
    });
    let mut approved = by_id.clone();
    approved["approval_token"] = asked["data"]["token"].clone();
    let again = s.p.call_structured("tool_call", approved);
    assert_eq!(
        again["code"], "APPROVAL_REQUIRED",
        "re-asked, not renewed: {again}"
    );
    assert_eq!(
        again["data"]["summary"]["subject"]["name"], "Scratch Camera",
        "the new question shows what the call now names: {again}"
    );
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 0);

    // The second approval runs it, once.
    let mut approved = by_id;
    approved["approval_token"] = again["data"]["token"].clone();
    let done = s.p.call_structured("tool_call", approved);
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("destroy")), 1);
}
