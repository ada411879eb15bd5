//! The operation ledger (§6): where records live, every state, every begin rule (replay,
//! conflict, in progress, outcome unknown, idempotent re-execution, the `received` approval
//! skip), verbatim replay without `total_ms`, and cleanup (ageing, deletion, the size cap).

use crate::common::*;
use hera_connector_contract::canonical::sha256_prefixed;
use hera_connector_sim::{Fault, Reload};
use serde_json::{Value, json};
use std::time::Duration;

/// The ledger path is the real Connector's, so clients that read it see the same thing.
#[test]
fn records_live_where_the_connector_keeps_them() {
    let f = start();
    let id = op();
    call(f.port(), "scene", json!({"action":"save"}), &id);
    let expected = f
        .home
        .path()
        .join(".hera-agent-unity/status/operations")
        .join(hera_connector_contract::identity::project_id(PROJECT).replace(':', "_"))
        .join(format!("{id}.json"));
    assert!(expected.is_file(), "{}", expected.display());
    assert_eq!(f.sim.ledger_dir(), expected.parent().unwrap());
    // No temp files are left behind once the last write (`responded`) is done.
    assert!(
        wait_for(Duration::from_secs(30), || {
            ledger_record(&f.sim, &id).filter(|r| r["state"] == "responded")
        })
        .is_some()
    );
    let leftovers: Vec<_> = std::fs::read_dir(f.sim.ledger_dir())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .and_then(|x| x.to_str())
                != Some("json")
        })
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn replay_is_verbatim_and_runs_nothing_twice() {
    let f = start();
    let p = f.port();
    let id = op();
    let first = call_text(p, "scene", json!({"action":"save"}), &id, None);
    let first_v: Value = serde_json::from_str(&first).unwrap();
    assert!(first_v["timings"]["total_ms"].is_i64(), "{first}");
    assert_eq!(f.sim.side_effects_of("scene", Some("save")), 1);

    // `responded` is written once the answer went out, just after the client has it.
    let rec = wait_for(Duration::from_secs(30), || {
        ledger_record(&f.sim, &id).filter(|r| r["state"] == "responded")
    })
    .expect("the record becomes responded");
    assert_eq!(rec["tool"], "scene");
    assert_eq!(rec["action"], "save");
    assert_eq!(rec["risk_class"], "write");
    assert_eq!(rec["idempotent"], false);
    assert_eq!(rec["approval_verified"], false);
    assert_eq!(rec["domain_epoch"], f.sim.domain_epoch());
    assert!(rec["committed_at_ms"].as_i64().unwrap() >= rec["started_at_ms"].as_i64().unwrap());
    let stored = f.sim.ledger_entry(&id).unwrap().unwrap().response.unwrap();
    assert_eq!(rec["response_hash"], sha256_prefixed(stored.as_bytes()));
    // Stored before total_ms was added: the first answer with timings reset to null.
    let mut without = first_v.clone();
    without["timings"] = Value::Null;
    assert_eq!(serde_json::from_str::<Value>(&stored).unwrap(), without);

    for _ in 0..2 {
        let again = call_text(p, "scene", json!({"action":"save"}), &id, None);
        assert_eq!(again, stored, "replay is the stored text, byte for byte");
    }
    assert_eq!(
        f.sim.side_effects_of("scene", Some("save")),
        1,
        "exactly one side effect"
    );
}

#[test]
fn conflict_on_any_identity_difference() {
    let f = start();
    let p = f.port();
    let id = op();
    call(p, "scene", json!({"action":"save"}), &id);
    for (tool, params) in [
        (
            "scene",
            json!({"action":"save","path":"Assets/Scenes/Other.unity"}),
        ),
        ("scene", json!({"action":"save_all"})),
        ("manage_assets", json!({"action":"mkdir","path":"Assets/X"})),
    ] {
        let v = call(p, tool, params, &id);
        assert_eq!(code(&v), "OPERATION_CONFLICT", "{v}");
        assert_eq!(
            v["message"],
            format!("Operation '{id}' was already used for a different request.")
        );
        assert!(v["timings"]["total_ms"].is_i64());
    }
    assert_eq!(f.sim.side_effects(), 1);
}

#[test]
fn a_hung_handler_holds_the_lock_until_a_reload_then_the_outcome_is_unknown() {
    let f = start_with(|c| c.lock_wait = Duration::from_millis(300));
    let p = f.port();
    let id = op();
    f.sim.inject(Fault::Hang { times: 1 });
    let body = command_body("scene", &json!({"action":"save"}), &id, None);
    let hung = std::thread::spawn(move || post_unchecked(p, "/command", &body));
    let running = wait_for(Duration::from_secs(30), || {
        ledger_record(&f.sim, &id).filter(|r| r["state"] == "running")
    });
    assert!(running.is_some(), "the record reaches running");
    // The hung handler keeps the command lock: a retry (same id) and any other command wait
    // the whole lock wait and get COMMAND_LOCK_TIMEOUT, never OPERATION_IN_PROGRESS.
    let v = call(p, "scene", json!({"action":"save"}), &id);
    assert_eq!(code(&v), "COMMAND_LOCK_TIMEOUT", "{v}");
    assert!(v["timings"].is_null());
    let v = call(p, "scene", json!({"action":"info"}), &op());
    assert_eq!(code(&v), "COMMAND_LOCK_TIMEOUT", "{v}");
    assert_eq!(f.sim.side_effects(), 0, "a hung handler never ran");

    // Only the end of the domain frees the lock; the record is left running in the old epoch.
    f.sim.reload(Reload {
        downtime: Duration::from_millis(100),
        new_port: false,
    });
    assert!(
        hung.join().unwrap().is_err(),
        "the hung connection is dropped by the reload"
    );
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(10)));
    let p = f.sim.port();
    let v = call(p, "scene", json!({"action":"save"}), &id);
    assert_eq!(code(&v), "OPERATION_OUTCOME_UNKNOWN", "{v}");
    assert_eq!(
        code(&call(p, "scene", json!({"action":"info"}), &op())),
        "",
        "the new domain has a free lock"
    );
}

#[test]
fn a_result_that_cannot_be_serialized_leaves_the_record_running() {
    let f = start();
    let p = f.port();
    let id = op();
    f.sim.inject(Fault::UnserializableResult { times: 1 });
    let v = call(p, "scene", json!({"action":"save"}), &id);
    assert_eq!(code(&v), "INTERNAL_ERROR", "{v}");
    assert!(v["timings"].is_null());
    assert_eq!(
        f.sim.side_effects(),
        1,
        "the handler ran before the commit threw"
    );
    assert_eq!(ledger_record(&f.sim, &id).unwrap()["state"], "running");
    // OPERATION_IN_PROGRESS is reachable this way (the lock is free, the record is not).
    let v = call(p, "scene", json!({"action":"save"}), &id);
    assert_eq!(code(&v), "OPERATION_IN_PROGRESS", "{v}");
    assert_eq!(f.sim.side_effects(), 1);
    // Without the ledger (read-only and idempotent) the write fails instead: HTTP 500.
    f.sim.inject(Fault::UnserializableResult { times: 1 });
    let body = command_body("scene", &json!({"action":"info"}), &op(), None);
    let r = post(p, "/command", &body);
    assert_eq!(r.status, 500, "{}", r.text());
    assert_eq!(code(&r.json()), "RESPONSE_WRITE_FAILED");
}

#[test]
fn a_corrupt_record_is_an_internal_error_not_a_rerun() {
    let f = start();
    let p = f.port();
    let id = op();
    call(p, "scene", json!({"action":"save"}), &id);
    // The record is marked `responded` after the reply is written; corrupt it only after that
    // last write, or the write would repair it.
    let responded = wait_for(Duration::from_secs(10), || {
        ledger_record(&f.sim, &id).filter(|r| r["state"] == "responded")
    });
    assert!(responded.is_some(), "the record reaches responded");
    let path = f.sim.ledger_dir().join(format!("{id}.json"));
    std::fs::write(&path, b"{\"operation_id\": garbage").unwrap();
    let v = call(p, "scene", json!({"action":"save"}), &id);
    assert_eq!(code(&v), "INTERNAL_ERROR", "{v}");
    assert_eq!(f.sim.side_effects(), 1, "nothing ran twice");
}

#[test]
fn a_replay_marks_the_record_responded() {
    let f = start();
    let p = f.port();
    let id = op();
    // The first answer is lost (reset after the commit): the record stays committed.
    f.sim.inject(Fault::ResetAfterExecute { times: 1 });
    let body = command_body("scene", &json!({"action":"save"}), &id, None);
    assert!(post_unchecked(p, "/command", &body).is_err());
    assert_eq!(ledger_record(&f.sim, &id).unwrap()["state"], "committed");
    let v = call(p, "scene", json!({"action":"save"}), &id);
    assert_eq!(v["success"], true);
    let responded = wait_for(Duration::from_secs(10), || {
        ledger_record(&f.sim, &id).filter(|r| r["state"] == "responded")
    });
    assert!(
        responded.is_some(),
        "a written replay marks the record responded"
    );
    assert_eq!(f.sim.side_effects(), 1);
}

#[test]
fn cleanup_ages_out_running_and_deletes_old_records() {
    let f = start();
    let p = f.port();
    let done = op();
    call(p, "scene", json!({"action":"save"}), &done);
    // A running record older than an hour becomes outcome_unknown at the next cleanup.
    let stuck = op();
    // A commit that threw leaves the record running (a hung handler would hold the lock).
    f.sim.inject(Fault::UnserializableResult { times: 1 });
    let v = call(p, "scene", json!({"action":"save_all"}), &stuck);
    assert_eq!(code(&v), "INTERNAL_ERROR");
    assert_eq!(ledger_record(&f.sim, &stuck).unwrap()["state"], "running");
    f.sim.advance_clock(Duration::from_secs(2 * 3600));
    call(p, "scene", json!({"action":"info"}), &op());
    assert_eq!(
        ledger_record(&f.sim, &stuck).unwrap()["state"],
        "outcome_unknown"
    );
    assert!(
        ledger_record(&f.sim, &done).is_some(),
        "a 2 h old commit is kept"
    );
    // 24 h after commit the record goes; outcome_unknown records stay 7 days.
    f.sim.advance_clock(Duration::from_secs(23 * 3600));
    call(p, "scene", json!({"action":"info"}), &op());
    assert!(
        ledger_record(&f.sim, &done).is_none(),
        "deleted 24 h after commit"
    );
    assert!(ledger_record(&f.sim, &stuck).is_some());
    f.sim.advance_clock(Duration::from_secs(7 * 24 * 3600));
    call(p, "scene", json!({"action":"info"}), &op());
    assert!(
        ledger_record(&f.sim, &stuck).is_none(),
        "deleted after 7 days"
    );
}

#[test]
fn size_cap_compacts_responses_away_across_editor_restarts() {
    let home = tempfile::tempdir().unwrap();
    let id = op();
    // One Editor commits a write; its record survives the Editor.
    let (full, bare) = {
        let cfg = hera_connector_sim::SimConfig::new(home.path(), PROJECT);
        let sim = hera_connector_sim::Simulator::start_background(cfg).unwrap();
        call(sim.port(), "scene", json!({"action":"save"}), &id);
        let e = sim.ledger_entry(&id).unwrap().unwrap();
        let full = e.to_text().len() as u64;
        let bare = full - e.response.as_ref().unwrap().len() as u64 + 4;
        sim.shutdown();
        (full, bare)
    };
    // The next Editor has a cap that fits the record without its response only. The first
    // request of its domain runs the cleanup, which strips the response.
    let mut cfg = hera_connector_sim::SimConfig::new(home.path(), PROJECT);
    cfg.ledger_cap_bytes = (full + bare) / 2;
    let sim = hera_connector_sim::Simulator::start_background(cfg).unwrap();
    call(sim.port(), "scene", json!({"action":"info"}), &op());
    let rec = ledger_record(&sim, &id).expect("kept, only compacted");
    assert!(rec["response"].is_null(), "{rec}");
    let v = call(sim.port(), "scene", json!({"action":"save"}), &id);
    assert_eq!(code(&v), "OPERATION_RESPONSE_MISSING");
    assert_eq!(sim.side_effects(), 0, "never re-run");
}
