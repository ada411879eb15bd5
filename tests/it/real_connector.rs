//! The client against the real Connector's behaviour (contract README, and the places where the
//! simulator reproduces how the real Connector 0.1.3 behaves), one test per behaviour, through
//! the real binary: the CLI, MCP, or both.

use crate::support::cli::Home;
use crate::support::mcp::McpProc;
use crate::support::mcp::wiretap::WireTap;
use serde_json::{Value, json};

/// A wire tap the Editor's heartbeat points at, so the client's requests pass through it.
fn tap_between(sim: &hera_connector_sim::Simulator) -> WireTap {
    let upstream = sim.port();
    let tap = WireTap::start(move || upstream);
    sim.set_heartbeat_port(Some(tap.port())).unwrap();
    tap
}

/// One `doctor --json` check by id.
fn doctor_check(home: &Home, id: &str) -> Value {
    let d = home.run(&["doctor", "--json"]).json();
    d["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no {id} check: {d}"))
}

fn agent(home: &Home) -> McpProc {
    let mut p = McpProc::start(home.path(), &[], &[], &[]);
    p.initialize("2025-11-25");
    p
}

/// D6: an EditMode run without `async_results` would run synchronously inside the Editor and
/// hold its command lock for the whole suite. Both front-ends ask for async results, so the run
/// becomes a job; a caller's explicit choice is kept.
#[test]
fn an_edit_mode_test_run_asks_for_async_results() {
    let home = Home::new();
    let sim = home.editor("EditMode");
    let tap = tap_between(&sim);

    let r = home.run(&["call", "run_tests", "--args", r#"{"mode":"EditMode"}"#]);
    r.expect(0);
    let mut p = agent(&home);
    // The Editor still runs the CLI's run, so this one may be refused as already running: what
    // matters here is what was asked for on the wire.
    let started = p.call_structured(
        "tool_call",
        json!({"name":"run_tests","arguments":{"mode":"EditMode"}}),
    );
    assert!(started.is_object(), "{started}");
    let explicit = p.call_structured(
        "tool_call",
        json!({"name":"run_tests","arguments":{"mode":"EditMode","async_results":false}}),
    );
    assert!(explicit.is_object());

    let runs: Vec<Value> = tap
        .requests()
        .into_iter()
        .filter(|t| t.path == "/command" && t.body["command"] == "run_tests")
        .map(|t| t.body["params"].clone())
        .collect();
    assert_eq!(runs.len(), 3, "{runs:?}");
    assert_eq!(runs[0]["async_results"], true, "CLI: {}", runs[0]);
    assert_eq!(runs[1]["async_results"], true, "MCP: {}", runs[1]);
    assert_eq!(runs[2]["async_results"], false, "kept: {}", runs[2]);
}

/// D13: the Connector refuses a body over its 1 MiB limit on the declared length without
/// reading it, which can look like a broken exchange to a client (resent, then "outcome
/// unknown" for a request that never ran). Both front-ends refuse it locally, nothing sent.
#[test]
fn a_request_over_the_connectors_body_limit_is_refused_before_sending() {
    let home = Home::new();
    let sim = home.editor("Large");
    home.run(&["list", "--compact"]).expect(0);
    let mut p = agent(&home);
    assert_eq!(
        p.call_structured(
            "tool_call",
            json!({"name":"scene","arguments":{"action":"info"}})
        )["success"],
        true
    );
    // Arguments just under the limit: the request around them (command, meta) passes it.
    let big = "x".repeat(1_048_400);
    let file = home.path().join("big.json");
    std::fs::write(&file, json!({"name": big}).to_string()).unwrap();
    let sent = sim.requests_seen("/command");

    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        &format!("@{}", file.display()),
    ]);
    assert_eq!(r.error_code(), "REQUEST_TOO_LARGE", "{}", r.stderr);
    let e = p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name": big}}),
    );
    assert_eq!(e["code"], "REQUEST_TOO_LARGE", "{}", e["message"]);
    assert_eq!(sim.requests_seen("/command"), sent, "nothing sent");
    assert_eq!(sim.side_effects(), 0);
}

/// A custom tool declared `write`, with one integer parameter `size`.
pub(crate) fn custom_tool(
    name: &str,
    mode: &str,
    profiles: &[&str],
) -> hera_connector_contract::catalog::ToolEntry {
    use hera_connector_contract::catalog::{RiskClass, SafetyDecl};
    hera_connector_sim::catalog::custom_tool(
        name,
        mode,
        profiles,
        SafetyDecl {
            risk: Some(RiskClass::Write),
            ..Default::default()
        },
        json!({"type":"object","properties":{"size":{"type":"integer"}}}),
    )
}

/// D1: one custom tool whose contract the Editor cannot build makes its strict catalog answer
/// `INTERNAL_ERROR` for the whole domain (and every request carrying `catalog_hash`). Both
/// front-ends fall back to the per-tool listing: reads still work, nothing carries a catalog
/// hash, and the broken tool stays listed with a description that says why.
#[test]
fn a_catalog_the_editor_cannot_build_falls_back_to_its_listing() {
    let home = Home::new();
    let sim = home.editor("Unbuildable");
    sim.add_unbuildable_custom_tool(
        custom_tool("broken_tool", "strict", &["custom"]),
        "a JObject parameter without SchemaJson",
    );
    let tap = tap_between(&sim);

    let r = home.run(&["call", "scene", "info"]);
    r.expect(0);
    let mut p = agent(&home);
    let read = p.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    assert_eq!(read["success"], true, "{read}");
    let listed = p.call_structured("tool_describe", json!({"name":"broken_tool"}));
    assert!(
        listed
            .to_string()
            .contains("cannot build this tool's contract"),
        "{listed}"
    );
    let sent: Vec<Value> = tap
        .requests()
        .into_iter()
        .filter(|t| t.path == "/command" && t.body["command"] == "scene")
        .map(|t| t.body)
        .collect();
    assert_eq!(sent.len(), 2, "{sent:?}");
    for s in &sent {
        assert!(s["meta"]["catalog_hash"].is_null(), "no catalog hash: {s}");
    }
    // The agent is warned with every search, and doctor says what to fix.
    let found = p.call_structured("tool_search", json!({"query":"scene info"}));
    let hint = found["agent_hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("cannot build its tool catalog") && hint.contains("Unity reloads"),
        "{found}"
    );
    let catalog = doctor_check(&home, "catalog");
    assert_eq!(catalog["status"], "warn", "{catalog}");
    assert!(
        catalog["fix"]
            .as_str()
            .unwrap()
            .contains("custom tool's contract is broken"),
        "{catalog}"
    );

    // Profile and full exposure cannot be served from a listing, and say why and what to do.
    let mut native = McpProc::start(home.path(), &[], &["--exposure", "full"], &[]);
    native.initialize("2025-11-25");
    // (The first list may be the empty one served before the Editor is reached.)
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let refused = loop {
        let r = native.request("tools/list", json!({}));
        if r.get("error").is_some() || std::time::Instant::now() >= deadline {
            break r;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert_eq!(
        refused["error"]["data"]["reason"], "catalog_build_failed",
        "{refused}"
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("a custom tool's contract is broken"),
        "{refused}"
    );

    // Fixed and reloaded: the strict catalog is used again, hash and all, by the same session.
    assert!(sim.remove_tool("broken_tool"));
    sim.reload(hera_connector_sim::Reload::default());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let found = p.call_structured("tool_search", json!({"query":"scene info"}));
        if found.get("agent_hint").is_none() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still on the listing: {found}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let read = p.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    assert_eq!(read["success"], true, "{read}");
    let last = tap
        .requests()
        .into_iter()
        .rfind(|t| t.path == "/command" && t.body["command"] == "scene")
        .unwrap();
    assert_eq!(
        last.body["meta"]["catalog_hash"].as_str(),
        Some(sim.catalog_hash().as_str()),
        "strict again: {}",
        last.body
    );
}

/// D2: the Editor publishes a legacy custom tool in a normal profile (only its own tests check
/// that rule). The catalog is used anyway; that one tool is taken out of the normal profiles
/// and needs approval, and every other tool works.
#[test]
fn a_legacy_tool_in_a_normal_profile_is_quarantined_not_fatal() {
    let home = Home::new();
    let sim = home.editor("Quarantine");
    sim.add_custom_tool(custom_tool("odd_tool", "legacy", &["core"]));
    home.run(&["call", "scene", "info"]).expect(0);
    let mut p = McpProc::start(
        home.path(),
        &[],
        &["--exposure", "profile", "--profile", "core"],
        &[],
    );
    p.initialize("2025-11-25");
    let list = p.ok("tools/list", json!({}));
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"scene"), "{names:?}");
    assert!(
        !names.contains(&"odd_tool"),
        "quarantined out of core: {names:?}"
    );
}

/// D3: the Connector parses a request with date handling on, so a string shaped like an ISO
/// date-time reaches its validator as a date and a string parameter refuses it. Our local
/// validation sees a string, so only the Editor's refusal shows it: both front-ends keep the
/// Editor's code and say what happened and what to do, naming the string.
#[test]
fn a_date_like_string_the_editor_refuses_is_explained() {
    let home = Home::new();
    let sim = home.editor("Dates");
    let when = "2024-01-02T03:04:05";
    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        &json!({ "name": when }).to_string(),
    ]);
    r.expect(1);
    let e = r.error();
    assert_eq!(e["code"], "ARGUMENT_TYPE_MISMATCH", "{e}");
    assert_eq!(
        e["data"]["actual"], "Date",
        "the Editor's own data is kept: {e}"
    );
    assert_eq!(
        e["data"]["date_like_strings"],
        json!([{"pointer": "/name", "value": when}]),
        "{e}"
    );
    let why = e["suggestions"][0].as_str().unwrap_or_default();
    assert!(
        why.contains("as a date") && why.contains(when) && why.contains("instead of the 'T'"),
        "{why}"
    );

    let mut p = agent(&home);
    let a = p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name": when}}),
    );
    assert_eq!(a["code"], "ARGUMENT_TYPE_MISMATCH", "{a}");
    assert_eq!(a["data"]["date_like_strings"][0]["pointer"], "/name", "{a}");
    let hint = a["agent_hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("as a date") && hint.contains("Repeating the call unchanged fails"),
        "{hint}"
    );
    assert_eq!(sim.side_effects(), 0, "nothing was created");

    // Any other refusal is not explained as a date, and text merely containing a date passes.
    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        &json!({ "name": format!("Saved {when}") }).to_string(),
    ]);
    r.expect(0);
    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name": 5}"#,
    ]);
    assert!(
        r.error()["data"]["date_like_strings"].is_null(),
        "{}",
        r.stderr
    );
}

/// D5: where the OS cannot say whether the Editor's process runs (Windows builds without the
/// check, other platforms; here a heartbeat without a pid), a crashed or quit Editor leaves a
/// `ready` heartbeat behind that the Connector never removes. Once it has not moved for two
/// minutes it is presumed gone: not chosen (so a call says "not running" instead of retrying a
/// dead port until the timeout), kept on disk, and shown as presumed gone by `status`.
#[test]
fn a_heartbeat_that_stopped_moving_without_a_checkable_pid_is_not_chosen() {
    let home = Home::new();
    let sim = home.editor_with("Crashed", |c| {
        c.quirks.quit_writes_stopped = false;
    });
    sim.set_pid(0).unwrap();
    home.run(&["call", "scene", "info"]).expect(0);
    let file = sim.heartbeat_path().to_path_buf();
    sim.shutdown();
    // What the Editor left behind, as it reads three minutes later.
    let mut hb = sim.heartbeat();
    assert_eq!(hb.state.as_deref(), Some("ready"), "no stopped write");
    hb.pid = None;
    hb.timestamp = Some(sim.now_ms().min(wall_ms()) - 180_000);
    std::fs::write(&file, serde_json::to_vec(&hb).unwrap()).unwrap();

    let r = home.run(&["call", "scene", "info"]);
    r.expect(3);
    assert_eq!(r.error_code(), "EDITOR_NOT_RUNNING", "{}", r.stderr);
    let mut p = agent(&home);
    let a = p.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    assert_eq!(a["code"], "EDITOR_NOT_RUNNING", "{a}");
    assert!(file.exists(), "never deleted on a presumption");
    let s = home.run(&["status", "--json"]);
    let others = s.json()["others"].clone();
    assert_eq!(others[0]["presumed_gone"], true, "{others}");
    assert_eq!(others[0]["project_path"], sim.project_path(), "{others}");

    // The same file written just now is still a target (the call is tried, and fails to
    // reach the dead port instead of "not running").
    hb.timestamp = Some(wall_ms());
    std::fs::write(&file, serde_json::to_vec(&hb).unwrap()).unwrap();
    let r = home.run_env(
        &["call", "scene", "info"],
        &[("HERA_AGENT_TIMEOUT_MS", "1500")],
    );
    assert_ne!(r.error_code(), "EDITOR_NOT_RUNNING", "{}", r.stderr);
}

fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// D9: when the listener stops before the `reloading` heartbeat is written, that heartbeat says
/// `port: 0` for the whole reload. A call made then waits for the Editor within its timeout,
/// longer than the 5 s an Editor is given to appear, also when the port is pinned (no heartbeat
/// names the pinned port during the reload).
#[test]
fn a_reload_that_writes_port_zero_is_waited_for_even_with_a_pinned_port() {
    use hera_connector_sim::Reload;
    let home = Home::new();
    let sim = home.editor_with("Reloading", |c| {
        c.quirks.reload_listener_first = true;
    });
    let port = sim.port().to_string();
    home.run(&["call", "scene", "info"]).expect(0);
    let reload = || {
        sim.reload(Reload {
            downtime: std::time::Duration::from_millis(6500),
            new_port: false,
        });
        assert_eq!(
            sim.heartbeat().port,
            0,
            "the reloading heartbeat has no port"
        );
    };
    let patient = [("HERA_AGENT_TIMEOUT_MS", "30000")];

    reload();
    let r = home.run_env(&["--port", &port, "call", "scene", "info"], &patient);
    r.expect(0);
    assert!(
        r.elapsed >= std::time::Duration::from_secs(5),
        "{:?}",
        r.elapsed
    );

    reload();
    let r = home.run_env(&["call", "scene", "info"], &patient);
    r.expect(0);

    let mut p = McpProc::start(home.path(), &["--port", &port], &[], &patient);
    p.initialize("2025-11-25");
    reload();
    let a = p.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    assert_eq!(a["success"], true, "{a}");
}

/// D7 and D19: a handler that never finishes keeps the Editor's one command lock, so every
/// later command waits the Connector's whole lock wait and is refused `COMMAND_LOCK_TIMEOUT`
/// before anything runs. The hung call itself ends in an unknown outcome with its operation id;
/// a call queued behind it hears the Connector's refusal (the default timeout, 125 s, is longer
/// than the real 120 s wait; the wait is shortened here) and both front-ends say nothing ran.
#[test]
fn a_call_queued_behind_a_hung_command_hears_the_lock_timeout_and_nothing_ran() {
    use hera_connector_sim::{Fault, FaultMatch};
    let home = Home::new();
    let sim = home.editor_with("Locked", |c| {
        c.lock_wait = std::time::Duration::from_secs(2);
    });
    home.run(&["call", "scene", "info"]).expect(0);
    // The agent uses the default timeout (no HERA_AGENT_TIMEOUT_MS in its environment).
    let mut p = agent(&home);
    let ok = p.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    assert_eq!(ok["success"], true, "{ok}");

    sim.inject_matching(
        FaultMatch::tool("manage_gameobject"),
        Fault::Hang { times: 1 },
    );
    let hung = home.run_env(
        &[
            "call",
            "manage_gameobject",
            "create",
            "--args",
            r#"{"name":"Stuck"}"#,
        ],
        &[("HERA_AGENT_TIMEOUT_MS", "3000")],
    );
    assert_eq!(
        hung.error_code(),
        "OPERATION_OUTCOME_UNKNOWN",
        "{}",
        hung.stderr
    );
    assert!(hung.error()["data"]["operation_id"].is_string());

    let r = home.run(&["call", "scene", "info"]);
    r.expect(1);
    assert_eq!(r.error_code(), "COMMAND_LOCK_TIMEOUT", "{}", r.stderr);
    let why = r.error()["suggestions"][0]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(why.starts_with("Nothing ran"), "{why}");

    let a = p.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    assert_eq!(a["code"], "COMMAND_LOCK_TIMEOUT", "{a}");
    assert!(
        a["agent_hint"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Nothing ran"),
        "{a}"
    );
    let m = p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name":"Queued"}}),
    );
    assert_eq!(m["code"], "COMMAND_LOCK_TIMEOUT", "{m}");
    assert!(m["operation_id"].is_string(), "a change keeps its id: {m}");
    assert!(
        sim.side_effects_of("manage_gameobject", Some("create")) <= 1,
        "only the hung call may have run"
    );
}

/// D11: a change whose result the Connector cannot record fails after the handler ran
/// (`INTERNAL_ERROR` with the ledger; HTTP 500 `RESPONSE_WRITE_FAILED` without one). That is not
/// a plain failure: both front-ends report an unknown outcome with the operation id to repeat.
#[test]
fn a_failure_after_the_change_ran_is_an_unknown_outcome_with_its_operation_id() {
    use hera_connector_sim::{Fault, FaultMatch};
    let home = Home::new();
    let sim = home.editor("AfterRun");
    home.run(&["call", "scene", "info"]).expect(0);
    let creates = || sim.side_effects_of("manage_gameobject", Some("create"));

    sim.inject_matching(
        FaultMatch::tool("manage_gameobject"),
        Fault::UnserializableResult { times: 1 },
    );
    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"A"}"#,
    ]);
    r.expect(1);
    let e = r.error();
    assert_eq!(e["code"], "OPERATION_OUTCOME_UNKNOWN", "{e}");
    assert_eq!(e["data"]["editor_code"], "INTERNAL_ERROR", "{e}");
    let op = e["data"]["operation_id"].as_str().unwrap().to_string();
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains(&format!("--operation-id {op}")),
        "{e}"
    );
    assert_eq!(creates(), 1, "it ran");
    // Its record stays `running`: the repeat is answered from the ledger, not run again, and
    // the answer says what that state can mean.
    let again = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"A"}"#,
        "--operation-id",
        &op,
    ]);
    assert_eq!(
        again.error_code(),
        "OPERATION_IN_PROGRESS",
        "{}",
        again.stderr
    );
    let why = again.error()["suggestions"][0]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        why.contains("failed to record its result") && why.contains(&op),
        "{why}"
    );
    assert_eq!(creates(), 1, "not run again");

    let mut p = agent(&home);
    sim.inject_matching(
        FaultMatch::tool("manage_gameobject"),
        Fault::UnserializableResult { times: 1 },
    );
    let a = p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name":"B"}}),
    );
    assert_eq!(a["code"], "OPERATION_OUTCOME_UNKNOWN", "{a}");
    let agent_op = a["operation_id"].as_str().unwrap_or_default().to_string();
    assert!(!agent_op.is_empty(), "{a}");
    assert!(
        a["agent_hint"]
            .as_str()
            .unwrap_or_default()
            .contains(&agent_op),
        "{a}"
    );
    assert_eq!(creates(), 2);
    let again = p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name":"B"},
               "operation_id": agent_op}),
    );
    assert_eq!(again["code"], "OPERATION_IN_PROGRESS", "{again}");
    assert!(
        again["agent_hint"]
            .as_str()
            .unwrap_or_default()
            .contains("failed to record"),
        "{again}"
    );
    assert_eq!(creates(), 2, "not run again");

    // An Editor that does not advertise its ledger: the person's change is sent once and the
    // same failure after it ran is still an unknown outcome, never resent.
    let features: Vec<String> = hera_connector_contract::wire::ALL_FEATURES
        .iter()
        .filter(|f| **f != "operation_ledger_v1")
        .map(|f| f.to_string())
        .collect();
    sim.set_features(features).unwrap();
    sim.inject_matching(
        FaultMatch::tool("manage_gameobject"),
        Fault::UnserializableResult { times: 1 },
    );
    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"C"}"#,
    ]);
    r.expect(1);
    assert_eq!(r.error_code(), "OPERATION_OUTCOME_UNKNOWN", "{}", r.stderr);
    let editor_code = r.error()["data"]["editor_code"].clone();
    assert!(
        editor_code == "INTERNAL_ERROR" || editor_code == "RESPONSE_WRITE_FAILED",
        "{editor_code}"
    );
    assert_eq!(creates(), 3, "ran once, never resent");
}

/// D4: the Connector moves a date with a numeric offset into the Editor's own time zone before
/// it computes `arguments_hash`, so outside UTC our hash of such params would not match and the
/// call would be refused `ARGUMENTS_HASH_MISMATCH`. Such a request goes without the hash (the
/// Connector then compares nothing); every other request keeps it.
#[test]
fn an_offset_date_on_an_editor_outside_utc_is_sent_without_an_arguments_hash() {
    let home = Home::new();
    let sim = home.editor_with("Berlin", |c| {
        c.quirks.zone = hera_connector_contract::canonical::EditorZone { offset_minutes: 60 };
    });
    let tap = tap_between(&sim);

    let zoned = json!({"name": "2026-01-01T10:00:00+02:00"}).to_string();
    let r = home.run(&["call", "manage_gameobject", "create", "--args", &zoned]);
    // The Editor compared no hash and validated: the string is a date to it (D3).
    assert_eq!(r.error_code(), "ARGUMENT_TYPE_MISMATCH", "{}", r.stderr);
    home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"Plain"}"#,
    ])
    .expect(0);
    let mut p = agent(&home);
    let a = p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name":"2026-01-01T10:00:00+02:00"}}),
    );
    assert_eq!(a["code"], "ARGUMENT_TYPE_MISMATCH", "{a}");

    let sent: Vec<Value> = tap
        .commands("manage_gameobject")
        .into_iter()
        .map(|t| t.body)
        .collect();
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(sent[0]["meta"]["arguments_hash"].is_null(), "{}", sent[0]);
    assert!(sent[1]["meta"]["arguments_hash"].is_string(), "{}", sent[1]);
    assert!(sent[2]["meta"]["arguments_hash"].is_null(), "{}", sent[2]);
}

/// D21: after a reload the new domain accepts requests before it writes its first heartbeat,
/// so a reply can name the new domain epoch while the file still says `reloading` with the old
/// one. Calls made across that window settle on the new epoch and succeed.
#[test]
fn a_reply_ahead_of_the_new_heartbeat_after_a_reload_is_settled() {
    use hera_connector_sim::Reload;
    let home = Home::new();
    let sim = home.editor_with("Ahead", |c| {
        c.quirks.heartbeat_after_listen = std::time::Duration::from_millis(1500);
    });
    home.run(&["call", "scene", "info"]).expect(0);
    let mut p = agent(&home);
    assert_eq!(
        p.call_structured(
            "tool_call",
            json!({"name":"scene","arguments":{"action":"info"}})
        )["success"],
        true
    );
    let before = sim.domain_epoch();
    sim.reload(Reload {
        downtime: std::time::Duration::from_millis(200),
        new_port: false,
    });
    assert!(sim.wait_ready_blocking(std::time::Duration::from_secs(10)));
    assert_ne!(sim.domain_epoch(), before);
    home.run(&["call", "scene", "info"]).expect(0);
    let a = p.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    assert_eq!(a["success"], true, "{a}");
}

/// D12: the Connector's test cancel looks only at runs started on the port it listens on now, so
/// a run started before a reload that moved the port is not found: it answers success with
/// `was_running: false` and the run goes on. (The simulator cancels every run; a tap in front
/// of it plays that answer.) The agent is told nothing was cancelled, not that it was.
#[test]
fn a_cancel_that_cancelled_nothing_says_so() {
    let home = Home::new();
    let sim = home.editor("Cancel");
    sim.with_editor(|e| e.set_job_delay(std::time::Duration::from_secs(3600)));
    let upstream = sim.port();
    let tap = WireTap::start_rewriting(
        move || upstream,
        |req, answer| {
            let cancel = req.path == "/command"
                && req.body["command"] == "run_tests"
                && req.body["params"]["action"] == "cancel";
            (cancel && answer["success"] == true).then(|| {
                json!({"success": true, "message": "No test run was active.",
                       "data": {"was_running": false}, "timings": answer["timings"]})
            })
        },
    );
    sim.set_heartbeat_port(Some(tap.port())).unwrap();

    let mut p = McpProc::start(home.path(), &[], &[], &[]);
    p.ok(
        "initialize",
        json!({"protocolVersion":"2025-11-25",
            "capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},
            "clientInfo":{"name":"hera-test","version":"1"}}),
    );
    p.notify("notifications/initialized", None);
    let created = p.ok(
        "tools/call",
        json!({"name":"tool_call","arguments":{"name":"run_tests","arguments":{"mode":"PlayMode"}}}),
    );
    assert_eq!(created["resultType"], "task", "{created}");
    let task = created["taskId"].as_str().unwrap().to_string();

    let r = p.request("tasks/cancel", json!({"taskId": task}));
    let err = &r["error"];
    assert!(err.is_object(), "not reported as cancelled: {r}");
    assert!(
        err["message"]
            .as_str()
            .unwrap_or_default()
            .contains("nothing was cancelled"),
        "{r}"
    );
    assert_eq!(err["data"]["cancelled"], false, "{r}");
    assert_eq!(
        tap.commands("run_tests").len(),
        2,
        "the cancel was asked for"
    );
}

/// D18: the Connector's reader refuses a body nested deeper than 64 levels as not JSON, whatever
/// the tool's schema allows, so a client that sends one gets a bare `HTTP_INVALID_JSON`. Both
/// front-ends refuse it locally with the reason; one level less is sent.
#[test]
fn arguments_nested_deeper_than_the_connector_reads_are_refused_before_sending() {
    let home = Home::new();
    let sim = home.editor("Deep");
    sim.add_custom_tool(custom_tool("deep_tool", "strict", &["custom"]));
    home.run(&["call", "scene", "info"]).expect(0);
    let mut p = agent(&home);
    // The body is {"params": {"deep": <value>}}: the value starts two levels down.
    let nested = |levels: usize| -> Value {
        let mut v = json!(1);
        for _ in 0..levels {
            v = json!([v]);
        }
        v
    };
    let sent = sim.requests_seen("/command");
    let too_deep = json!({ "deep": nested(63) }).to_string();
    let r = home.run(&["call", "deep_tool", "--args", &too_deep]);
    assert_eq!(r.error_code(), "REQUEST_TOO_DEEP", "{}", r.stderr);
    assert!(
        r.error()["message"]
            .as_str()
            .unwrap()
            .contains("at most 64")
    );
    let a = p.call_structured(
        "tool_call",
        json!({"name":"deep_tool","arguments":{"deep": nested(63)}}),
    );
    assert_eq!(a["code"], "REQUEST_TOO_DEEP", "{a}");
    assert_eq!(sim.requests_seen("/command"), sent, "nothing sent");

    let fits = json!({ "deep": nested(62) }).to_string();
    // Sent, and parsed by the Editor (whose validator then has its own say about `deep`).
    let r = home.run(&["call", "deep_tool", "--args", &fits]);
    assert!(
        r.code == 0
            || !["REQUEST_TOO_DEEP", "HTTP_INVALID_JSON"].contains(&r.error_code().as_str()),
        "{}",
        r.stderr
    );
    assert_eq!(sim.requests_seen("/command"), sent + 1, "sent");
}

/// D17: the real Connector's payloads often disagree with the output schemas it publishes (scalars
/// where an open object is declared, bare integers where object items are, camelCase keys, an
/// array `data`). The adapter never judges a payload by the Editor's declared schema: each
/// reaches the agent whole, successful, and inside the adapter's own advertised outputSchema,
/// in compact and in native exposure.
#[test]
fn payloads_that_break_their_published_schemas_reach_the_agent_intact() {
    use crate::support::mcp::{assert_fits_output_schema, structured};
    let home = Home::new();
    let _sim = home.editor("PayloadShapes");
    let calls = [
        // A scalar property value; the schema says open object.
        (
            "manage_material",
            json!({"action":"get","path":"Assets/Materials/Ground.mat","property":"_Glossiness"}),
        ),
        // The `ids` projection: integers where object items are declared.
        ("find_gameobjects", json!({"ids": true})),
        // camelCase keys where the schema says snake_case.
        ("scene", json!({"action":"info"})),
        // An array `data`.
        ("scene", json!({"action":"list"})),
    ];
    let mut compact = agent(&home);
    let list = compact.ok("tools/list", json!({}));
    let mut native = McpProc::start(home.path(), &[], &["--exposure", "full"], &[]);
    native.initialize("2025-11-25");
    let native_list = native.ok("tools/list", json!({}));
    for (tool, args) in calls {
        let s = structured(&compact.call("tool_call", json!({"name": tool, "arguments": args})));
        assert_eq!(s["success"], true, "{tool} {s}");
        assert_fits_output_schema(&list, "tool_call", &s);
        let n = structured(&native.call(tool, args.clone()));
        assert_eq!(n["success"], true, "{tool} {n}");
        assert_fits_output_schema(&native_list, tool, &n);
        assert_eq!(
            n["data"], s["data"],
            "{tool}: both exposures carry the same payload"
        );
        match tool {
            "manage_material" => assert!(s["data"]["value"].is_number(), "{s}"),
            "find_gameobjects" => assert!(s["data"]["results"][0].is_i64(), "{s}"),
            _ if args["action"] == "info" => {
                assert!(s["data"]["active"]["isDirty"].is_boolean(), "{s}")
            }
            _ => assert!(s["data"].is_array(), "{s}"),
        }
    }
}

/// D16: the real Connector answers a resend whose ledger record it cannot parse with
/// `INTERNAL_ERROR` and runs nothing (the simulator does the same). For a change, that is an
/// unknown outcome with its operation id, never a silent re-run and never success.
#[test]
fn a_resend_whose_ledger_record_is_corrupt_is_an_unknown_outcome_and_runs_nothing() {
    let home = Home::new();
    let sim = home.editor("CorruptLedger");
    let op = "op_d16_corrupt_record_0001";
    let args = r#"{"name":"Once"}"#;
    let create = |home: &Home| {
        home.run(&[
            "call",
            "manage_gameobject",
            "create",
            "--args",
            args,
            "--operation-id",
            op,
        ])
    };
    create(&home).expect(0);
    let creates = || sim.side_effects_of("manage_gameobject", Some("create"));
    assert_eq!(creates(), 1);
    // The record is final once marked `responded`; corrupt it after that last write.
    let record = sim.ledger_dir().join(format!("{op}.json"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !std::fs::read_to_string(&record).is_ok_and(|t| t.contains("\"responded\"")) {
        assert!(
            std::time::Instant::now() < deadline,
            "record never responded"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::fs::write(&record, b"{\"operation_id\": garbage").unwrap();

    let again = create(&home);
    again.expect(1);
    let e = again.error();
    assert_eq!(e["code"], "OPERATION_OUTCOME_UNKNOWN", "{e}");
    assert_eq!(e["data"]["editor_code"], "INTERNAL_ERROR", "{e}");
    assert_eq!(e["data"]["operation_id"], op, "{e}");
    assert_eq!(creates(), 1, "nothing ran twice");
}

/// D14: the Connector's batch endpoint counts failed items as completed, turns a batch whose
/// item has no command into `INTERNAL_ERROR` after earlier items ran, and pre-scans an unknown
/// action with the tool's own safety. The adapter never batches: every call from either
/// front-end, reads, changes, approved changes and jobs alike, is its own `/command`, so none
/// of that reaches a user.
#[test]
fn every_call_is_its_own_command_and_never_a_batch() {
    let home = Home::new();
    let sim = home.editor("NoBatch");
    let tap = tap_between(&sim);

    home.run(&["call", "scene", "info"]).expect(0);
    home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"ByPerson"}"#,
    ])
    .expect(0);
    home.run(&["call", "console", "--args", r#"{"clear":true}"#, "--yes"])
        .expect(0);
    let mut p = agent(&home);
    for args in [json!({"action":"info"}), json!({"action":"hierarchy"})] {
        let r = p.call_structured("tool_call", json!({"name":"scene","arguments":args}));
        assert_eq!(r["success"], true, "{r}");
    }
    let r = p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name":"ByAgent"}}),
    );
    assert_eq!(r["success"], true, "{r}");

    let seen = tap.requests();
    let commands = seen.iter().filter(|t| t.path == "/command").count();
    assert!(commands >= 6, "one /command per call: {commands}");
    let batches: Vec<&str> = seen
        .iter()
        .map(|t| t.path.as_str())
        .filter(|p| *p != "/command" && *p != "/approval/preflight")
        .collect();
    assert!(batches.is_empty(), "only single commands: {batches:?}");
    assert_eq!(sim.requests_seen("/commands"), 0);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("create")), 2);
}

/// D15: the Editor's preflight summary names the target from the raw arguments as sent; for a
/// package that is `parameters: action,identifier`, which names no package. The client asks
/// for the token with exactly the params the command then carries (the token is bound to
/// them), shows the Editor's target unchanged, and says beside it what the change affects.
#[test]
fn an_approval_shows_the_editors_raw_target_beside_what_the_change_affects() {
    let home = Home::new();
    let sim = home.editor("RawTarget");
    let tap = tap_between(&sim);
    let args = r#"{"identifier":"com.unity.ai.navigation"}"#;

    let asked = home.run(&["call", "manage_packages", "add", "--args", args]);
    asked.expect(4);
    assert_eq!(
        asked.error()["data"]["summary"]["target"],
        "parameters: action,identifier",
        "{}",
        asked.stderr
    );
    assert!(
        asked
            .stderr
            .contains("target:           parameters: action,identifier"),
        "{}",
        asked.stderr
    );
    assert!(
        asked
            .stderr
            .contains("affects:          package com.unity.ai.navigation"),
        "{}",
        asked.stderr
    );
    assert_eq!(sim.side_effects(), 0);

    home.run(&["call", "manage_packages", "add", "--args", args, "--yes"])
        .expect(0);
    let seen = tap.requests();
    let preflight = seen
        .iter()
        .rfind(|t| t.path == "/approval/preflight")
        .expect("a preflight");
    let command = seen
        .iter()
        .rfind(|t| t.path == "/command" && t.body["command"] == "manage_packages")
        .expect("the command");
    assert_eq!(preflight.body["arguments"], command.body["params"]);
    assert!(command.body["meta"]["approval_token"].is_string());
    assert_eq!(sim.side_effects_of("manage_packages", Some("add")), 1);
}

/// D20: the Connector never removes a finished job's result, so the status folder grows with
/// every test run and package job. Results stay readable for a week; when a job starts, ours
/// older than that are removed, and nothing else: not a recent result, not a pending job, not
/// a symlink, not a file another user owns. `doctor` says what the folder holds.
#[test]
fn results_older_than_a_week_are_removed_when_a_job_starts_and_nothing_else() {
    use std::time::{Duration, SystemTime};
    let home = Home::new();
    let sim = home.editor("OldResults");
    let port = sim.port();
    let status = home.path().join(".hera-agent-unity").join("status");
    std::fs::create_dir_all(&status).unwrap();
    let old = SystemTime::now() - Duration::from_secs(8 * 24 * 60 * 60);
    let plant = |name: String, at: SystemTime| {
        let path = status.join(&name);
        std::fs::write(&path, br#"{"success":true,"message":"done"}"#).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(at)
            .unwrap();
        path
    };
    let expired = [
        plant(format!("test-results-{port}-oldrun.json"), old),
        plant(format!("package-result-{port}-pkg-oldjob.json"), old),
    ];
    let kept = vec![
        plant(
            format!("test-results-{port}-recent.json"),
            SystemTime::now(),
        ),
        plant(format!("test-pending-{port}-oldpending.json"), old),
        plant(format!("build-result-{port}.json"), old),
    ];
    let elsewhere = home.path().join("kept-elsewhere.json");
    std::fs::write(&elsewhere, b"{}").unwrap();
    let link = status.join(format!("test-results-{port}-link.json"));
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    // Owned by another user: only possible to arrange when the tests run as root.
    let foreign = plant(format!("test-results-{port}-foreign.json"), old);
    let chowned = std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).is_ok();

    let check = doctor_check(&home, "job_results");
    let detail = check["detail"].as_str().unwrap();
    let ours = if chowned { 3 } else { 4 };
    assert!(
        detail.starts_with(&format!("{ours} result file(s)")),
        "{detail}"
    );
    let expired_count = if chowned { 2 } else { 3 };
    assert!(
        detail.contains(&format!("; {expired_count} older than that")),
        "{detail}"
    );

    // A read starts no job and removes nothing.
    home.run(&["call", "scene", "info"]).expect(0);
    assert!(expired.iter().all(|p| p.exists()));

    let r = home.run(&["call", "run_tests", "--args", r#"{"mode":"EditMode"}"#]);
    r.expect(0);
    for p in &expired {
        assert!(!p.exists(), "removed: {}", p.display());
    }
    for p in &kept {
        assert!(p.exists(), "kept: {}", p.display());
    }
    assert!(
        std::fs::symlink_metadata(&link).is_ok() && elsewhere.exists(),
        "a symlink is neither followed nor removed"
    );
    assert_eq!(foreign.exists(), chowned, "another user's file is kept");
}
