//! Long-running work end to end through the core (§7): the `running` reply, the pending and
//! result files (each checked against its JSON Schema), and the domain reload a package change
//! asks for, carried out by the core after answering.

use crate::common::*;
use hera_connector_contract::wire::file_bus;
use serde_json::{Value, json};
use std::time::Duration;

fn read_json(path: &std::path::Path) -> Option<Value> {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
}

fn approved_call(port: u16, tool: &str, action: Option<&str>, params: Value) -> Value {
    let id = op();
    let v = preflight(port, &id, tool, action, &params);
    assert_eq!(v["success"], true, "{v}");
    let token = v["data"]["token"].as_str().unwrap().to_string();
    call_with_token(port, tool, params, &id, Some(&token))
}

#[test]
fn test_run_pending_and_result_files() {
    let f = start();
    let p = f.port();
    // Jobs finish on the simulator's clock: this one stays pending until the clock moves, so
    // the pending file is surely still there when we look, however slow the machine.
    f.sim
        .with_editor(|ed| ed.set_job_delay(Duration::from_secs(120)));
    let v = call(
        p,
        "run_tests",
        json!({"mode":"EditMode","async_results":true}),
        &op(),
    );
    assert_eq!(v["message"], "running", "{v}");
    assert_eq!(v["data"]["port"], p);
    let run_id = v["data"]["run_id"].as_str().unwrap().to_string();
    let status = f.sim.status_dir();
    let pending =
        read_json(&status.join(file_bus::test_pending(p, &run_id))).expect("a pending file");
    assert_schema("test-pending.schema.json", &pending);
    assert_eq!(pending["project_id"], f.sim.project_id());
    f.sim.advance_clock(Duration::from_secs(121));
    let result = wait_for(Duration::from_secs(30), || {
        read_json(&status.join(file_bus::test_results(p, &run_id)))
    })
    .expect("the run finishes on the update loop, without further requests");
    assert_schema("test-result.schema.json", &result);
    let legacy = read_json(&status.join(file_bus::test_results_legacy(p))).expect("legacy copy");
    assert_schema("test-result.schema.json", &legacy);
    assert!(
        !status.join(file_bus::test_pending(p, &run_id)).exists(),
        "pending removed"
    );
}

#[test]
fn package_change_writes_files_then_reloads_the_domain() {
    let f = start_with(|c| c.reload_downtime = Duration::from_millis(200));
    let p = f.port();
    let epoch = f.sim.domain_epoch();
    // Finishes only when the simulator's clock moves (below), not by the machine's speed.
    f.sim
        .with_editor(|ed| ed.set_job_delay(Duration::from_secs(120)));
    let v = approved_call(
        p,
        "manage_packages",
        Some("add"),
        json!({"action":"add","identifier":"com.unity.ai.navigation"}),
    );
    assert_eq!(v["message"], "running", "{v}");
    let job = v["data"]["job_id"].as_str().unwrap().to_string();
    let status = f.sim.status_dir();
    let pending =
        read_json(&status.join(file_bus::package_pending(p, &job))).expect("a pending file");
    assert_schema("package-pending.schema.json", &pending);
    assert_eq!(pending["project_id"], f.sim.project_id());
    f.sim.advance_clock(Duration::from_secs(121));
    let result = wait_for(Duration::from_secs(30), || {
        read_json(&status.join(file_bus::package_result(p, &job)))
    })
    .expect("a package result");
    assert_schema("package-result.schema.json", &result);
    // The Editor asked for a reload; the core carried it out: a new epoch.
    let new_epoch = wait_for(Duration::from_secs(30), || {
        let e = f.sim.domain_epoch();
        (e != epoch && f.sim.port() != 0).then_some(e)
    })
    .expect("a domain reload after the package change");
    assert_eq!(heartbeat(&f.sim)["domainEpoch"], new_epoch.as_str());
    assert_eq!(f.sim.side_effects_of("manage_packages", Some("add")), 1);
}

#[test]
fn build_result_file() {
    let f = start();
    let p = f.port();
    let v = approved_call(p, "build", Some("start"), json!({"action":"start"}));
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["data"]["queued"], true);
    let path = f.sim.status_dir().join(file_bus::build_result(p));
    let result = wait_for(Duration::from_secs(30), || read_json(&path)).expect("a build result");
    assert_schema("build-result.schema.json", &result);
}
