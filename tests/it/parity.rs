//! The same scenario through the CLI and through MCP, against one simulated Editor: both
//! front-ends run the session's one pipeline, so they must agree on what is sent and on what
//! happens in the Editor (read from the simulator's own counters and ledger, or from the wire).
//! The one rule where a person and an agent differ (a change on a Connector without a ledger)
//! is tested for both sides.

use crate::support::cli::{Home, wait_until};
use crate::support::mcp::McpProc;
use crate::support::mcp::wiretap::WireTap;
use hera_connector_contract::wire::ALL_FEATURES;
use hera_connector_sim::{Fault, FaultMatch, Reload, Simulator};
use serde_json::{Value, json};
use std::time::Duration;

/// An MCP server over the same HOME as the CLI, initialized.
fn agent(home: &Home, env: &[(&str, &str)]) -> McpProc {
    let mut p = McpProc::start(home.path(), &[], &[], env);
    p.initialize("2025-11-25");
    p
}

fn tool_call(p: &mut McpProc, name: &str, arguments: Value) -> Value {
    p.call_structured("tool_call", json!({"name": name, "arguments": arguments}))
}

fn features_without(feature: &str) -> Vec<String> {
    ALL_FEATURES
        .iter()
        .filter(|f| **f != feature)
        .map(|f| f.to_string())
        .collect()
}

fn creates(sim: &Simulator) -> u64 {
    sim.side_effects_of("manage_gameobject", Some("create"))
}

/// Rule: a change on a Connector without `operation_ledger_v1`. The one place a person and an
/// agent are treated differently: a person reads an unknown outcome and decides, so the CLI
/// sends; an agent would retry blindly, so MCP refuses before anything is sent. Reads work for
/// both.
#[test]
fn a_change_without_a_ledger_is_sent_for_a_person_and_refused_for_an_agent() {
    let home = Home::new();
    let sim = home.editor("NoLedger");
    sim.set_features(features_without("operation_ledger_v1"))
        .unwrap();

    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"ByPerson"}"#,
    ]);
    r.expect(0);
    assert_eq!(creates(&sim), 1, "the person's change ran");

    let mut p = agent(&home, &[]);
    let refused = tool_call(
        &mut p,
        "manage_gameobject",
        json!({"action":"create","name":"ByAgent"}),
    );
    assert_eq!(refused["code"], "OPERATION_LEDGER_REQUIRED", "{refused}");
    assert_eq!(creates(&sim), 1, "nothing sent for the agent");

    // Reads are not changes: both front-ends answer them.
    home.run(&["call", "scene", "info"]).expect(0);
    let read = tool_call(&mut p, "scene", json!({"action":"info"}));
    assert_eq!(read["success"], true, "{read}");
}

/// Rule: `CATALOG_STALE` (and D10). The Connector checks the catalog hash before its ledger, so
/// nothing ran. Both front-ends reload the catalog and, since this call's contract did not
/// change, resend it once under the same operation id: exactly one side effect, recorded under
/// the id the caller chose.
#[test]
fn a_stale_catalog_is_reloaded_and_the_unchanged_call_resent_under_the_same_id() {
    let home = Home::new();
    let sim = home.editor("Stale");
    home.run(&["list", "--compact"]).expect(0);
    sim.inject(Fault::CatalogHashChange);
    let op = "op_parity_stale_cli_01";
    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"StaleCli"}"#,
        "--operation-id",
        op,
    ]);
    r.expect(0);
    assert_eq!(creates(&sim), 1);
    assert!(sim.ledger_entry(op).unwrap().is_some(), "ran under {op}");

    let mut p = agent(&home, &[]);
    assert_eq!(
        tool_call(&mut p, "scene", json!({"action":"info"}))["success"],
        true
    );
    sim.inject(Fault::CatalogHashChange);
    let op = "op_parity_stale_mcp_01";
    let done = p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name":"StaleMcp"},
               "operation_id": op}),
    );
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(done["operation_id"], op);
    assert_eq!(creates(&sim), 2, "one side effect per front-end");
    assert!(sim.ledger_entry(op).unwrap().is_some(), "ran under {op}");
}

/// Rule: `CATALOG_STALE` when the call no longer means the same: the tool is gone from the new
/// catalog. Neither front-end resends; both say the tool was not found.
#[test]
fn a_stale_catalog_that_dropped_the_tool_is_not_resent() {
    let home = Home::new();
    let sim = home.editor("Dropped");
    home.run(&["list", "--compact"]).expect(0);
    let mut p = agent(&home, &[]);
    assert_eq!(
        tool_call(&mut p, "scene", json!({"action":"info"}))["success"],
        true
    );
    assert!(sim.remove_tool("console"));
    let r = home.run(&["call", "console"]);
    r.expect(1);
    assert_eq!(r.error_code(), "TOOL_NOT_FOUND", "{}", r.stderr);
    let e = tool_call(&mut p, "console", json!({}));
    assert_eq!(e["code"], "TOOL_NOT_FOUND", "{e}");
    assert_eq!(sim.side_effects(), 0);
}

/// Rule: strict local validation against the resolved action's schema, with a pointer. Nothing
/// reaches the Editor from either front-end.
#[test]
fn invalid_arguments_are_refused_locally_with_a_pointer_by_both() {
    let home = Home::new();
    let sim = home.editor("Invalid");
    home.run(&["list", "--compact"]).expect(0);
    let mut p = agent(&home, &[]);
    assert_eq!(
        tool_call(&mut p, "scene", json!({"action":"info"}))["success"],
        true
    );
    let sent = sim.requests_seen("/command");
    let r = home.run(&["call", "scene", "load", "--args", r#"{"path":7}"#]);
    r.expect(1);
    let cli = r.error();
    let mcp = tool_call(&mut p, "scene", json!({"action":"load","path":7}));
    assert_eq!(cli["code"], "INVALID_ARGUMENT");
    assert_eq!(mcp["code"], "INVALID_ARGUMENT", "{mcp}");
    assert_eq!(cli["data"]["pointer"], "/path");
    assert_eq!(mcp["data"]["pointer"], "/arguments/path");
    assert_eq!(cli["data"]["contract"], mcp["data"]["contract"]);
    assert_eq!(sim.requests_seen("/command"), sent, "nothing sent");
}

/// Rule: a token invalidated by a domain reload (its signing secret rotated). Both front-ends
/// renew it for the same operation, check the new token binds the same call and send it once,
/// because the summary the person approved is unchanged.
#[test]
fn an_approval_is_renewed_after_a_reload_by_both() {
    const CLEAR: &str = r#"{"clear":true}"#;
    let home = Home::new();
    let sim = home.editor("Renew");
    let r = home.run(&["call", "console", "--args", CLEAR]);
    r.expect(4);
    let token = r.error()["data"]["token"].as_str().unwrap().to_string();
    let mut p = agent(&home, &[]);
    let asked = tool_call(&mut p, "console", json!({"clear":true}));
    assert_eq!(asked["code"], "APPROVAL_REQUIRED", "{asked}");
    let agent_op = asked["data"]["operation_id"].clone();

    sim.reload(Reload {
        downtime: Duration::from_millis(300),
        new_port: false,
    });
    assert!(sim.wait_ready_blocking(Duration::from_secs(20)));

    let r = home.run(&[
        "call",
        "console",
        "--args",
        CLEAR,
        &format!("--approve={token}"),
    ]);
    r.expect(0);
    assert!(
        r.stderr.contains("renewing it for the same operation"),
        "{}",
        r.stderr
    );
    let done = p.call_structured(
        "tool_call",
        json!({"name":"console","arguments":{"clear":true},
               "approval_token": asked["data"]["token"]}),
    );
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(done["operation_id"], agent_op);
    assert_eq!(sim.side_effects_of("console", None), 2, "once each");
}

/// Rule: `catalog_hash` is sent for a strict catalog and never for one adapted from a legacy
/// listing (its hash is ours; the Connector never saw it). Read from the bytes on the wire.
#[test]
fn the_catalog_hash_is_sent_only_for_a_strict_catalog_by_both() {
    for legacy in [false, true] {
        let home = Home::new();
        let sim = home.editor(if legacy { "LegacyHash" } else { "StrictHash" });
        if legacy {
            sim.set_legacy(true).unwrap();
        }
        let upstream = sim.port();
        let tap = WireTap::start(move || upstream);
        sim.set_heartbeat_port(Some(tap.port())).unwrap();
        // A legacy Connector publishes no safety: the person consents with --yes.
        home.run(&["call", "scene", "info", "--yes"]).expect(0);
        let mut p = agent(&home, &[]);
        let read = tool_call(&mut p, "scene", json!({"action":"info"}));
        if legacy {
            // An old Connector without a ledger: an agent's call of unknown safety is refused
            // before it is sent (the D1 test covers an agent on a legacy listing with a ledger).
            assert_eq!(read["code"], "OPERATION_LEDGER_REQUIRED", "{read}");
        } else {
            assert_eq!(read["success"], true, "{read}");
        }
        let calls: Vec<Value> = tap
            .requests()
            .into_iter()
            .filter(|t| t.path == "/command" && t.body["command"] == "scene")
            .map(|t| t.body)
            .collect();
        let expected = if legacy { 1 } else { 2 };
        assert_eq!(calls.len(), expected, "one call per front-end: {calls:?}");
        for c in &calls {
            let hash = &c["meta"]["catalog_hash"];
            if legacy {
                assert!(hash.is_null(), "legacy: no catalog_hash: {c}");
            } else {
                assert_eq!(hash.as_str(), Some(sim.catalog_hash().as_str()), "{c}");
            }
        }
        let kinds: Vec<&str> = calls
            .iter()
            .filter_map(|c| c["meta"]["client_kind"].as_str())
            .collect();
        if !legacy {
            assert_eq!(kinds, ["cli", "mcp"]);
        }
    }
}

/// Rule: waiting for a busy Editor (and D8). One readiness rule: a fresh heartbeat is callable
/// whatever its state (a compiling Editor still answers), a stale busy one is waited for (bounded) and
/// then refused with `EDITOR_NOT_READY` naming the state; nothing is sent meanwhile.
#[test]
fn a_busy_editor_is_judged_by_one_readiness_rule() {
    let home = Home::new();
    let sim = home.editor("Busy");
    home.run(&["list", "--compact"]).expect(0);
    let mut p = agent(&home, &[("HERA_AGENT_TIMEOUT_MS", "2000")]);
    // Compiling, but the heartbeat keeps moving: both call at once.
    sim.set_state("compiling").unwrap();
    let env = [("HERA_AGENT_TIMEOUT_MS", "2000")];
    home.run_env(&["call", "scene", "info"], &env).expect(0);
    let r = tool_call(&mut p, "scene", json!({"action":"info"}));
    assert_eq!(r["success"], true, "{r}");

    // Frozen: the heartbeat ages past a second; both wait their bound, then refuse.
    sim.freeze_heartbeat(true).unwrap();
    assert!(wait_until(Duration::from_secs(20), || {
        sim.now_ms() - sim.heartbeat().timestamp.unwrap_or(0) > 1500
    }));
    let sent = sim.requests_seen("/command");
    let r = home.run_env(&["call", "scene", "info"], &env);
    r.expect(3);
    let cli = r.error();
    let mcp = tool_call(&mut p, "scene", json!({"action":"info"}));
    for e in [&cli, &mcp] {
        assert_eq!(e["code"], "EDITOR_NOT_READY", "{e}");
        assert_eq!(e["data"]["state"], "compiling", "{e}");
    }
    assert_eq!(mcp["data"]["retryable"], true);
    assert_eq!(
        sim.requests_seen("/command"),
        sent,
        "nothing sent to a stuck Editor"
    );
    sim.freeze_heartbeat(false).unwrap();
    sim.clear_state().unwrap();
}

/// A connection reset before the handler ran, on a mutation: both front-ends resend it under
/// the same operation id (the ledger makes that safe), and it runs exactly once for each.
#[test]
fn a_reset_mutation_is_resent_once_by_both() {
    let home = Home::new();
    let sim = home.editor("Faults");
    home.run(&["list", "--compact"]).expect(0);
    let mut p = agent(&home, &[]);
    assert_eq!(
        tool_call(&mut p, "scene", json!({"action":"info"}))["success"],
        true
    );
    for who in ["cli", "mcp"] {
        sim.inject_matching(
            FaultMatch::tool("manage_gameobject"),
            Fault::ResetBeforeExecute { times: 1 },
        );
        if who == "cli" {
            home.run(&[
                "call",
                "manage_gameobject",
                "create",
                "--args",
                r#"{"name":"R1"}"#,
            ])
            .expect(0);
        } else {
            let r = tool_call(
                &mut p,
                "manage_gameobject",
                json!({"action":"create","name":"R2"}),
            );
            assert_eq!(r["success"], true, "{r}");
        }
    }
    assert_eq!(creates(&sim), 2, "exactly once each");
}

/// A retry under an operation id that already ran (a reused approval token carries its id, or
/// the caller repeats `operation_id`) is answered from the Editor's ledger. Both front-ends say
/// that nothing ran now and when it first ran; the simulator counts one side effect.
#[test]
fn a_replay_is_marked_as_one_by_both() {
    let home = Home::new();
    let sim = home.editor("Replay");
    let op = "op_parity_replay_cli_1";
    let create = [
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"Once"}"#,
        "--operation-id",
        op,
    ];
    home.run(&create).expect(0);
    let again = home.run(&create);
    again.expect(0);
    assert!(again.stderr.contains("nothing ran now"), "{}", again.stderr);
    assert_eq!(creates(&sim), 1);

    let mut p = agent(&home, &[]);
    let op = "op_parity_replay_mcp_1";
    let call = json!({"name":"manage_gameobject","arguments":{"action":"create","name":"Twice"},
                      "operation_id": op});
    let first = p.call_structured("tool_call", call.clone());
    assert_eq!(first["success"], true, "{first}");
    assert!(first.get("replay").is_none(), "{first}");
    let second = p.call_structured("tool_call", call);
    assert_eq!(second["success"], true, "{second}");
    assert_eq!(second["replay"]["replayed"], true, "{second}");
    assert!(second["replay"]["first_ran_at"].is_string(), "{second}");
    assert_eq!(second["operation_id"], op);
    assert_eq!(creates(&sim), 2, "one side effect per front-end");
}

/// Rule: the Connector asks for approval although local policy did not predict it. On a catalog
/// adapted from the Editor's listing (it could not build its strict one) every tool's safety is
/// a guess, so the call is sent and the Connector, which knows the real contract, answers
/// `APPROVAL_REQUIRED`. Both front-ends then take the same approval path (preflight, the
/// person's decision) and nothing runs until a person approves.
#[test]
fn an_approval_the_catalog_did_not_predict_takes_the_same_path_in_both() {
    let home = Home::new();
    let sim = home.editor("Unpredicted");
    sim.add_unbuildable_custom_tool(
        crate::real_connector::custom_tool("broken_tool", "strict", &["custom"]),
        "a JObject parameter without SchemaJson",
    );
    let before = sim.requests_seen("/approval/preflight");
    let r = home.run(&["call", "console", "--args", r#"{"clear":true}"#]);
    r.expect(4);
    assert_eq!(r.error_code(), "APPROVAL_REQUIRED", "{}", r.stderr);
    let token = r.error()["data"]["token"].as_str().unwrap().to_string();
    let mut p = agent(&home, &[]);
    let asked = tool_call(&mut p, "console", json!({"clear":true}));
    assert_eq!(asked["code"], "APPROVAL_REQUIRED", "{asked}");
    assert!(asked["data"]["token"].is_string(), "{asked}");
    assert_eq!(
        sim.requests_seen("/approval/preflight"),
        before + 2,
        "one preflight each"
    );
    assert_eq!(
        sim.side_effects_of("console", None),
        0,
        "nothing ran unapproved"
    );
    home.run(&[
        "call",
        "console",
        "--args",
        r#"{"clear":true}"#,
        &format!("--approve={token}"),
    ])
    .expect(0);
    assert_eq!(sim.side_effects_of("console", None), 1);
}
