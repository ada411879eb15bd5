//! A domain reload in the middle of a mutation: with the Editor's operation ledger the call is
//! resent under the same operation id and runs exactly once; without it the outcome is
//! reported unknown and the call is never resent.

use crate::support::cli::*;
use hera_connector_contract::wire::ALL_FEATURES;
use hera_connector_sim::{Fault, FaultMatch};

const CREATE: &[&str] = &[
    "call",
    "manage_gameobject",
    "create",
    "--args",
    r#"{"name":"ReloadCube"}"#,
];

fn long_timeout() -> [(&'static str, &'static str); 1] {
    [("HERA_AGENT_TIMEOUT_MS", "20000")]
}

#[test]
fn reload_mid_mutation_with_ledger_runs_exactly_once() {
    for new_port in [false, true] {
        let home = Home::new();
        let sim = home.editor("Ledger");
        home.run(&["list", "--compact"]).expect(0); // fetch and cache the catalog first
        let sends_before = sim.requests_seen("/command");
        sim.inject_matching(
            FaultMatch::tool("manage_gameobject"),
            Fault::ReloadAfterCommit {
                downtime_ms: 500,
                new_port,
            },
        );
        let r = home.run_env(CREATE, &long_timeout());
        r.expect(0);
        assert_eq!(
            sim.side_effects_of("manage_gameobject", Some("create")),
            1,
            "exactly one GameObject was created (new_port={new_port})"
        );
        // The original send plus at least one resend under the same id, answered by the ledger.
        assert!(sim.requests_seen("/command") >= sends_before + 2);
        assert!(
            r.stdout.contains("ReloadCube"),
            "the replayed result: {}",
            r.stdout
        );
    }
}

#[test]
fn reload_mid_mutation_without_ledger_is_unknown_and_never_resent() {
    let home = Home::new();
    let sim = home.editor("NoLedger");
    let features: Vec<String> = ALL_FEATURES
        .iter()
        .filter(|f| **f != "operation_ledger_v1")
        .map(|f| f.to_string())
        .collect();
    sim.set_features(features).unwrap();
    home.run(&["list", "--compact"]).expect(0);
    let sends_before = sim.requests_seen("/command");
    sim.inject_matching(
        FaultMatch::tool("manage_gameobject"),
        Fault::ReloadAfterCommit {
            downtime_ms: 500,
            new_port: false,
        },
    );
    let r = home.run_env(CREATE, &long_timeout());
    r.expect(1);
    let e = r.error();
    assert_eq!(e["code"], "OPERATION_OUTCOME_UNKNOWN");
    let op = e["data"]["operation_id"].as_str().unwrap();
    assert!(op.starts_with("op_"));
    assert_eq!(e["data"]["tool"], "manage_gameobject");
    assert!(e["message"].as_str().unwrap().contains(op));
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("create")), 1);
    assert_eq!(
        sim.requests_seen("/command"),
        sends_before + 1,
        "zero resends"
    );
}

#[test]
fn reload_before_commit_is_reported_unknown_by_the_ledger() {
    let home = Home::new();
    let sim = home.editor("Running");
    home.run(&["list", "--compact"]).expect(0);
    sim.inject_matching(
        FaultMatch::tool("manage_gameobject"),
        Fault::ReloadWhileRunning {
            downtime_ms: 500,
            new_port: false,
        },
    );
    let r = home.run_env(CREATE, &long_timeout());
    r.expect(1);
    assert_eq!(r.error_code(), "OPERATION_OUTCOME_UNKNOWN");
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("create")), 1);
}

#[test]
fn an_operation_id_resend_is_replayed_not_rerun() {
    let home = Home::new();
    let sim = home.editor("Replay");
    let op = "op_replay_0123456789";
    let mut args = CREATE.to_vec();
    args.extend(["--operation-id", op]);
    let first = home.run(&args);
    first.expect(0);
    let second = home.run(&args);
    second.expect(0);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("create")), 1);
    // Same id, different arguments: the ledger refuses.
    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"Other"}"#,
        "--operation-id",
        op,
    ]);
    r.expect(1);
    assert_eq!(r.error_code(), "OPERATION_CONFLICT");
}
