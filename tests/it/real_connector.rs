//! The client against the real Connector's behaviour (contract README, and the places where the
//! simulator reproduces how the real Connector 0.1.3 behaves), one test per behaviour, through
//! the real binary: the CLI, MCP, or both.

use crate::support::cli::Home;
use crate::support::mcp::McpProc;
use crate::support::mcp::wiretap::WireTap;
use serde_json::{Value, json};

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
    let upstream = sim.port();
    let tap = WireTap::start(move || upstream);
    sim.set_heartbeat_port(Some(tap.port())).unwrap();

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
