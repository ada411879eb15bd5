//! The operation ledger (§6): where records live, every state, every begin rule (replay,
//! conflict, in progress, outcome unknown, idempotent re-execution, the `received` approval
//! skip), verbatim replay without `total_ms`, and cleanup (ageing, deletion, the size cap).

mod common;
use common::*;
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
fn in_progress_then_outcome_unknown_after_a_reload() {
    let f = start();
    let p = f.port();
    let id = op();
    f.sim.inject(Fault::Hang { times: 1 });
    let body = command_body("scene", &json!({"action":"save"}), &id, None);
    let hung = std::thread::spawn(move || post_unchecked(p, "/command", &body));
    let running = wait_for(Duration::from_secs(30), || {
        ledger_record(&f.sim, &id).filter(|r| r["state"] == "running")
    });
    assert!(running.is_some(), "the record reaches running");
    let v = call(p, "scene", json!({"action":"save"}), &id);
    assert_eq!(code(&v), "OPERATION_IN_PROGRESS");
    assert_eq!(f.sim.side_effects(), 0, "a hung handler never ran");

    f.sim.reload(Reload {
        downtime: Duration::from_millis(100),
        new_port: false,
    });
    assert!(
        hung.join().unwrap().is_err(),
        "the hung connection is dropped by the reload"
    );
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(30)));
    let v = call(f.port(), "scene", json!({"action":"save"}), &id);
    assert_eq!(code(&v), "OPERATION_OUTCOME_UNKNOWN");
    assert_eq!(
        v["message"],
        format!(
            "Operation '{id}' may have executed before the Unity domain changed; it was not re-run."
        )
    );
    assert_eq!(
        ledger_record(&f.sim, &id).unwrap()["state"],
        "outcome_unknown"
    );
    // Non-idempotent: it stays unknown and never runs.
    let v = call(f.port(), "scene", json!({"action":"save"}), &id);
    assert_eq!(code(&v), "OPERATION_OUTCOME_UNKNOWN");
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn reload_while_running_leaves_a_prior_epoch_record() {
    let f = start();
    let p = f.port();
    let old_epoch = f.sim.domain_epoch();
    let id = op();
    f.sim.inject(Fault::ReloadWhileRunning {
        downtime_ms: 200,
        new_port: true,
    });
    let body = command_body("scene", &json!({"action":"save"}), &id, None);
    assert!(
        post_unchecked(p, "/command", &body).is_err(),
        "the connection drops"
    );
    assert_eq!(f.sim.side_effects(), 1, "the handler ran");
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(30)));
    assert_ne!(f.sim.port(), p, "a new port after the reload");
    assert_ne!(f.sim.domain_epoch(), old_epoch);
    let v = call(f.port(), "scene", json!({"action":"save"}), &id);
    assert_eq!(code(&v), "OPERATION_OUTCOME_UNKNOWN");
    assert_eq!(f.sim.side_effects(), 1, "never re-run");
}

#[test]
fn idempotent_outcome_unknown_re_executes() {
    let f = start();
    let id = op();
    let params = json!({"action":"mkdir","path":"Assets/Generated"});
    f.sim.inject(Fault::ReloadWhileRunning {
        downtime_ms: 100,
        new_port: false,
    });
    let body = command_body("manage_assets", &params, &id, None);
    assert!(post_unchecked(f.port(), "/command", &body).is_err());
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(30)));
    // The first retry finds `running` in a prior epoch: unknown, and the record is marked.
    let v = call(f.port(), "manage_assets", params.clone(), &id);
    assert_eq!(code(&v), "OPERATION_OUTCOME_UNKNOWN");
    // mkdir is idempotent, so the next retry runs it again and commits.
    let v = call(f.port(), "manage_assets", params.clone(), &id);
    assert!(
        v.get("code")
            .is_none_or(|c| c != "OPERATION_OUTCOME_UNKNOWN"),
        "{v}"
    );
    let rec = wait_for(Duration::from_secs(30), || {
        ledger_record(&f.sim, &id)
            .filter(|r| ["responded", "failed"].contains(&r["state"].as_str().unwrap()))
    })
    .expect("re-executed and committed");
    assert_eq!(rec["idempotent"], true);
    assert_eq!(f.sim.side_effects_of("manage_assets", Some("mkdir")), 2);
}

#[test]
fn failed_results_are_stored_and_replayed() {
    let f = start();
    let id = op();
    let params = json!({"action":"set_name","target":"NoSuchObject_9f2c","name":"X"});
    let first = call(f.port(), "manage_gameobject", params.clone(), &id);
    assert_eq!(first["success"], false, "{first}");
    let rec = ledger_record(&f.sim, &id).unwrap();
    assert_eq!(
        rec["state"], "failed",
        "an error response is stored as failed, never responded"
    );
    let again = call(f.port(), "manage_gameobject", params, &id);
    let mut expected = first.clone();
    expected["timings"] = Value::Null;
    assert_eq!(again, expected);
    assert_eq!(f.sim.side_effects(), 1);
}

#[test]
fn received_record_with_verified_approval_runs_without_a_new_token() {
    let f = start();
    let id = op();
    let params = json!({"action":"close","path":"Assets/Scenes/SampleScene.unity"});
    // Without a token a destructive call is refused and writes nothing.
    let v = call(f.port(), "scene", params.clone(), &id);
    assert_eq!(code(&v), "APPROVAL_REQUIRED");
    assert!(ledger_record(&f.sim, &id).is_none());
    // A record left in `received` after its approval was verified (the Editor died between
    // the two writes) is taken as approved.
    let hash = hera_connector_contract::canonical::arguments_hash_of_value(&params);
    let record = json!({
        "schema_version":1,"operation_id":id,"tool":"scene","action":"close","arguments_hash":hash,
        "risk_class":"destructive","idempotent":false,"approval_verified":true,"state":"received",
        "started_at_ms": f.sim.now_ms(),"committed_at_ms":null,"response":null,"response_hash":null,
        "domain_epoch": f.sim.domain_epoch()
    });
    std::fs::create_dir_all(f.sim.ledger_dir()).unwrap();
    std::fs::write(
        f.sim.ledger_dir().join(format!("{id}.json")),
        record.to_string(),
    )
    .unwrap();
    let v = call(f.port(), "scene", params, &id);
    assert_ne!(code(&v), "APPROVAL_REQUIRED", "{v}");
    assert_eq!(f.sim.side_effects_of("scene", Some("close")), 1);
    assert_eq!(
        ledger_record(&f.sim, &id).unwrap()["approval_verified"],
        true
    );
}

#[test]
fn cleanup_ages_out_running_and_deletes_old_records() {
    let f = start();
    let p = f.port();
    let done = op();
    call(p, "scene", json!({"action":"save"}), &done);
    // A running record older than an hour becomes outcome_unknown at the next cleanup.
    let stuck = op();
    f.sim.inject(Fault::Hang { times: 1 });
    let body = command_body("scene", &json!({"action":"save_all"}), &stuck, None);
    let _hung = std::thread::spawn(move || post_unchecked(p, "/command", &body));
    assert!(
        wait_for(Duration::from_secs(30), || ledger_record(&f.sim, &stuck)
            .filter(|r| r["state"] == "running"))
        .is_some()
    );
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
