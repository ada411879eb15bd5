//! `task list` and `task status` read long-running jobs from the file bus: a test run started
//! through `call`, seen working, then completed, and a task id of another project not found.

use crate::support::cli::*;
use hera_connector_contract::task_id::{DurableTaskId, TaskKind};
use std::time::Duration;

#[test]
fn a_test_run_is_listed_working_then_completed() {
    let home = Home::new();
    let sim = home.editor("Tests");
    // Jobs finish on the simulator's clock; keep this one running until the clock moves.
    sim.with_editor(|ed| ed.set_job_delay(Duration::from_secs(600)));
    let r = home.run(&[
        "call",
        "run_tests",
        "--args",
        r#"{"mode":"EditMode","async_results":true}"#,
    ]);
    let started: serde_json::Value = serde_json::from_str(r.expect(0).stdout.trim()).unwrap();
    let run_id = started["run_id"].as_str().unwrap().to_string();

    let r = home.run(&["task", "list", "--json"]);
    let list = r.expect(0).json();
    let tasks = list["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 1, "{list}");
    assert_eq!(tasks[0]["kind"], "test");
    assert_eq!(tasks[0]["id"], run_id.as_str());
    assert_eq!(tasks[0]["status"], "working");
    assert!(
        tasks[0]["operation_id"]
            .as_str()
            .unwrap()
            .starts_with("op_discovered_")
    );
    let id = tasks[0]["task_id"].as_str().unwrap().to_string();

    let r = home.run(&["task", "status", &id, "--json"]);
    assert_eq!(r.expect(0).json()["status"], "working");

    sim.advance_clock(Duration::from_secs(601));
    assert!(
        wait_until(Duration::from_secs(60), || {
            home.run(&["task", "status", &id, "--json"]).json()["status"] == "completed"
        }),
        "the run completes once the simulated time has passed"
    );
    let done = home.run(&["task", "status", &id, "--json"]).json();
    assert!(done["result"]["success"].is_boolean(), "{done}");
    // Completed jobs are no longer pending.
    let list = home.run(&["task", "list", "--json"]).json();
    assert_eq!(list["tasks"], serde_json::json!([]));
    // Human form.
    let r = home.run(&["task", "status", &id]);
    assert!(r.expect(0).stdout.starts_with("completed"));

    // A task id of another project is not found, even with its files present.
    let mut foreign = DurableTaskId::decode(&id).unwrap();
    foreign.project_id = format!("sha256:{}", "0".repeat(64));
    let r = home.run(&["task", "status", &foreign.encode()]);
    r.expect(1);
    assert_eq!(r.error_code(), "TASK_NOT_FOUND");
    // An unknown run id is not found; a malformed id is a usage error.
    let missing = DurableTaskId {
        u: "nope_nope_nope".into(),
        k: TaskKind::Test,
        ..DurableTaskId::decode(&id).unwrap()
    };
    home.run(&["task", "status", &missing.encode()]).expect(1);
    let r = home.run(&["task", "status", "hera_task_%%%"]);
    r.expect(2);
    assert_eq!(r.error_code(), "INVALID_TASK_ID");
}
