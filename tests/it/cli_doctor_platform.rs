//! Where the OS cannot say whether an Editor's process is alive (no pid in the heartbeat here;
//! on a platform without a pid check in general), an old heartbeat is presumed to be a dead
//! Editor's: it is not chosen, `doctor` says so and names the fix, and the file is kept.

use crate::support::cli::*;
use serde_json::Value;

fn find<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id} in {report}"))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn write_heartbeat(home: &Home, project: &str, age_ms: i64, port: u16) -> std::path::PathBuf {
    let dir = home.instances_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(hera_connector_contract::identity::heartbeat_file_name(
        project,
    ));
    let hb = serde_json::json!({
        "state": "ready", "projectPath": project, "port": port,
        "timestamp": now_ms() - age_ms,
    });
    std::fs::write(&file, hb.to_string()).unwrap();
    file
}

#[test]
fn an_unverifiable_heartbeat_that_stopped_moving_is_presumed_gone() {
    let home = Home::new();
    let project = home.project("Crashed");
    let closed = closed_port();
    let file = write_heartbeat(&home, &project, 200_000, closed.port);
    let r = home.run_env(&["doctor", "--json"], &[("HERA_AGENT_TIMEOUT_MS", "1000")]);
    let report = r.expect(3).json();
    let instances = find(&report, "instances");
    assert!(
        instances["detail"]
            .as_str()
            .unwrap()
            .contains("presumed gone"),
        "{instances}"
    );
    assert_eq!(instances["status"], "fail", "not running: {instances}");
    assert!(
        instances["fix"]
            .as_str()
            .unwrap()
            .contains(&file.display().to_string()),
        "the fix names the leftover file: {instances}"
    );
    // It is never chosen, so nothing is checked against it.
    assert_eq!(find(&report, "selection")["status"], "skip", "{report}");
    assert_eq!(find(&report, "liveness")["status"], "skip", "{report}");
    assert!(file.exists(), "a presumption never deletes the heartbeat");
}

#[test]
fn a_recent_unverifiable_heartbeat_is_not_presumed_gone() {
    let home = Home::new();
    let project = home.project("Busy");
    let closed = closed_port();
    write_heartbeat(&home, &project, 2_000, closed.port);
    let r = home.run_env(&["doctor", "--json"], &[("HERA_AGENT_TIMEOUT_MS", "1000")]);
    let report = r.json();
    assert_ne!(find(&report, "liveness")["status"], "fail", "{report}");
    assert!(
        !find(&report, "instances")["detail"]
            .as_str()
            .unwrap()
            .contains("presumed")
    );
}
