//! How the client copes with a misbehaving Editor: an empty 200, a non-JSON 200, a hang that
//! must end in a bounded timeout, bad statuses, an oversized answer, and bad catalogs.

use crate::support::cli::*;
use hera_connector_sim::{Fault, FaultMatch};
use std::time::Duration;

#[test]
fn empty_200_is_a_transient_eof() {
    let home = Home::new();
    let sim = home.editor("Empty");
    home.run(&["list", "--compact"]).expect(0);
    // Read-only: resent, then answered.
    let before = sim.requests_seen("/command");
    sim.inject_matching(FaultMatch::tool("scene"), Fault::Empty200 { times: 1 });
    home.run(&["call", "scene", "info"]).expect(0);
    assert_eq!(sim.requests_seen("/command"), before + 2);
    // A mutation with the ledger is resent under the same id and runs once.
    sim.inject_matching(
        FaultMatch::tool("manage_gameobject"),
        Fault::Empty200 { times: 1 },
    );
    home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"E"}"#,
    ])
    .expect(0);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("create")), 1);
}

#[test]
fn non_json_200_is_never_success() {
    let home = Home::new();
    let sim = home.editor("Text");
    home.run(&["list", "--compact"]).expect(0);
    // A read: nothing says it ran, and running it again is harmless: resent, then answered.
    sim.inject_matching(FaultMatch::tool("scene"), Fault::NonJson200 { times: 1 });
    let before = sim.requests_seen("/command");
    let r = home.run(&["call", "scene", "info"]);
    r.expect(0);
    let answer: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert!(
        answer.is_object(),
        "the real answer, not the garbage: {answer}"
    );
    assert_eq!(sim.requests_seen("/command"), before + 2);
    // A mutation with the ledger: resent under the same operation id, runs once.
    sim.inject_matching(
        FaultMatch::tool("manage_gameobject"),
        Fault::NonJson200 { times: 1 },
    );
    home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"T"}"#,
    ])
    .expect(0);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("create")), 1);
    // Without a ledger the outcome is unknown: exit 1 with the operation id, never resent.
    let features: Vec<String> = hera_connector_contract::wire::ALL_FEATURES
        .iter()
        .filter(|f| **f != "operation_ledger_v1")
        .map(|f| f.to_string())
        .collect();
    sim.set_features(features).unwrap();
    sim.inject_matching(
        FaultMatch::tool("manage_gameobject"),
        Fault::NonJson200 { times: 1 },
    );
    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"U"}"#,
    ]);
    r.expect(1);
    assert_eq!(r.error_code(), "OPERATION_OUTCOME_UNKNOWN");
    let op = r.error()["data"]["operation_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(r.error()["message"].as_str().unwrap().contains(&op));
    // The simulated Editor answered garbage without running it; a resend would have run it.
    assert_eq!(
        sim.side_effects_of("manage_gameobject", Some("create")),
        1,
        "never resent"
    );
}

#[test]
fn a_hang_ends_in_a_bounded_timeout() {
    let home = Home::new();
    let sim = home.editor("Hang");
    home.run(&["list", "--compact"]).expect(0);
    // Read-only: the Editor is reported unresponsive after the timeout.
    sim.inject_matching(FaultMatch::tool("scene"), Fault::Hang { times: 1 });
    let r = home.run_env(
        &["call", "scene", "info"],
        &[("HERA_AGENT_TIMEOUT_MS", "1500")],
    );
    r.expect(3);
    assert_eq!(r.error_code(), "EDITOR_UNRESPONSIVE");
    assert!(r.elapsed >= Duration::from_millis(1400), "{:?}", r.elapsed);
    assert!(
        r.elapsed < Duration::from_secs(12),
        "bounded: {:?}",
        r.elapsed
    );
    // A mutation that hangs has an unknown outcome.
    sim.inject_matching(
        FaultMatch::tool("manage_gameobject"),
        Fault::Hang { times: 1 },
    );
    let r = home.run_env(
        &[
            "call",
            "manage_gameobject",
            "create",
            "--args",
            r#"{"name":"H"}"#,
        ],
        &[("HERA_AGENT_TIMEOUT_MS", "1500")],
    );
    r.expect(1);
    assert_eq!(r.error_code(), "OPERATION_OUTCOME_UNKNOWN");
    assert!(
        r.elapsed < Duration::from_secs(12),
        "bounded: {:?}",
        r.elapsed
    );
}

#[test]
fn statuses_sizes_and_lock_timeouts() {
    let home = Home::new();
    let sim = home.editor("Status");
    home.run(&["list", "--compact"]).expect(0);
    sim.inject_matching(
        FaultMatch::tool("scene"),
        Fault::Status {
            status: 500,
            code: None,
            times: 1,
        },
    );
    let r = home.run(&["call", "scene", "info"]);
    r.expect(3);
    assert_eq!(r.error_code(), "HTTP_ERROR");
    sim.inject_matching(
        FaultMatch::tool("scene"),
        Fault::Status {
            status: 429,
            code: Some("HTTP_QUEUE_FULL".into()),
            times: 1,
        },
    );
    let r = home.run(&["call", "scene", "info"]);
    r.expect(1);
    assert_eq!(r.error_code(), "HTTP_QUEUE_FULL");
    sim.inject_matching(FaultMatch::tool("scene"), Fault::LockTimeout { times: 1 });
    let r = home.run(&["call", "scene", "info"]);
    r.expect(1);
    assert_eq!(r.error_code(), "COMMAND_LOCK_TIMEOUT");
    sim.inject_matching(FaultMatch::tool("scene"), Fault::Oversized { times: 1 });
    let r = home.run(&["call", "scene", "info"]);
    r.expect(1);
    assert_eq!(r.error_code(), "RESPONSE_TOO_LARGE");
}

#[test]
fn bad_catalogs_are_refused_and_a_changed_one_is_refetched() {
    let home = Home::new();
    let sim = home.editor("Catalog");
    sim.inject(Fault::CatalogBadHash);
    let r = home.run(&["list"]);
    r.expect(1);
    assert_eq!(r.error_code(), "CATALOG_INVALID");
    assert!(
        r.error()["message"]
            .as_str()
            .unwrap()
            .contains("hash mismatch")
    );
    sim.clear_faults();

    sim.inject(Fault::EpochMismatch { times: 1 });
    let r = home.run(&["list"]);
    r.expect(1);
    assert!(r.error()["message"].as_str().unwrap().contains("epoch"));
    sim.clear_faults();

    // Cache the catalog, then change it in the Editor: the call with the old hash is refused
    // (nothing runs), the catalog is refetched and the call made again.
    home.run(&["list", "--compact"]).expect(0);
    sim.inject(Fault::CatalogHashChange);
    let before = sim.requests_seen("/command");
    home.run(&["call", "scene", "info"]).expect(0);
    // stale call + catalog refetch + call again
    assert!(sim.requests_seen("/command") >= before + 3);
}
