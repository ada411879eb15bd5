//! Long-running Editor work: test runs and package jobs that answer `running` at once and finish
//! later on the file bus (connector-contract/README.md §7).
//!
//! A job is named by a durable task id (`hera_task_…`, §7.5) that carries everything needed to
//! find its files, so any process (this server after a restart, the CLI's `task status`) can
//! read its state. Result files are read without deleting them, so the handle stays readable;
//! the Connector never cleans them, so the adapter removes those older than a week when it
//! starts a job.
//!
//! - `retention`: which result files are stale, and their removal.

pub mod retention;

use hera_connector_contract::task_id::{DurableTaskId, TaskKind};
use hera_connector_contract::wire::file_bus;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// Version of the task id encoding (§7.5).
pub const TASK_ID_VERSION: u32 = 2;

/// The state of a job, derived purely from its files.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskState {
    /// The pending record exists and no result yet.
    Working { pending: Value },
    /// The result envelope (success or failure, as the Connector wrote it).
    Completed { result: Value },
    /// Neither file exists (never started here, or cleaned up).
    NotFound,
}

/// Whether a `/command` reply started a file-bus job, and if so its task id.
///
/// Only `run_tests` starts and `manage_packages` add/remove/embed are jobs, and only when the
/// reply is `success:true` with message `running` (§7.5). `Some(Err)` means the reply claimed a
/// job but lacked the metadata to follow it.
pub fn job_of_reply(
    tool: &str,
    action: Option<&str>,
    reply: &Value,
    project_id: &str,
    operation_id: &str,
    now_ms: i64,
) -> Option<Result<DurableTaskId, String>> {
    let running = reply.get("success").and_then(Value::as_bool) == Some(true)
        && reply.get("message").and_then(Value::as_str) == Some("running");
    if !running {
        return None;
    }
    let (kind, key) = match (tool, action) {
        ("run_tests", _) => (TaskKind::Test, "run_id"),
        ("manage_packages", Some("add" | "remove" | "embed")) => (TaskKind::Package, "job_id"),
        _ => return None,
    };
    let data = reply.get("data").cloned().unwrap_or(Value::Null);
    let port = data
        .get("port")
        .and_then(Value::as_u64)
        .filter(|p| (1..=65535).contains(p));
    let underlying = data.get(key).and_then(Value::as_str);
    let (Some(port), Some(underlying)) = (port, underlying) else {
        return Some(Err(format!(
            "{tool} returned running without durable {key} and port metadata"
        )));
    };
    let id = DurableTaskId {
        v: TASK_ID_VERSION,
        project_id: project_id.to_string(),
        k: kind,
        p: port as u16,
        u: underlying.to_string(),
        o: operation_id.to_string(),
        a: action.filter(|a| !a.is_empty()).map(str::to_string),
        c: now_ms,
    };
    // Round-trip through the decoder so an id we hand out is one we accept back.
    Some(
        DurableTaskId::decode(&id.encode())
            .map(|_| id)
            .map_err(|e| format!("{tool} returned job metadata that cannot form a task id: {e}")),
    )
}

fn file_names(id: &DurableTaskId) -> (String, String) {
    match id.k {
        TaskKind::Test => (
            file_bus::test_pending(id.p, &id.u),
            file_bus::test_results(id.p, &id.u),
        ),
        TaskKind::Package => (
            file_bus::package_pending(id.p, &id.u),
            file_bus::package_result(id.p, &id.u),
        ),
    }
}

fn read_json(path: &Path) -> Option<Result<Value, String>> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    Some(
        serde_json::from_str(text.trim_start_matches('\u{feff}'))
            .map_err(|e| format!("{} is not valid JSON: {e}", path.display())),
    )
}

/// Reads the job's state from `status_dir`. A result file that does not parse is an error (the
/// writer may be mid-copy: [`wait`] reads again).
pub fn read_state(status_dir: &Path, id: &DurableTaskId) -> Result<TaskState, String> {
    let (pending, result) = file_names(id);
    match read_json(&status_dir.join(result)) {
        Some(Ok(v)) => return Ok(TaskState::Completed { result: v }),
        Some(Err(e)) => return Err(e),
        None => {}
    }
    match read_json(&status_dir.join(pending)) {
        Some(Ok(v)) => Ok(TaskState::Working { pending: v }),
        // A pending file being rewritten is still a pending job.
        Some(Err(_)) => Ok(TaskState::Working {
            pending: Value::Null,
        }),
        None => Ok(TaskState::NotFound),
    }
}

/// When the job's result was written (the result file's modification time, Unix ms), if it has
/// one.
pub fn finished_at_ms(status_dir: &Path, id: &DurableTaskId) -> Option<i64> {
    let (_, result) = file_names(id);
    let modified = std::fs::metadata(status_dir.join(result))
        .ok()?
        .modified()
        .ok()?;
    let ms = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_millis();
    i64::try_from(ms).ok()
}

/// Polls until the job completes or `max` passes (100 ms, doubling to 1 s between reads). An
/// unreadable result file is read again until the deadline, then reported.
pub async fn wait(
    status_dir: &Path,
    id: &DurableTaskId,
    max: Duration,
) -> Result<TaskState, String> {
    let deadline = Instant::now() + max;
    let mut pause = Duration::from_millis(100);
    loop {
        let state = read_state(status_dir, id);
        if matches!(state, Ok(TaskState::Completed { .. })) {
            return state;
        }
        let now = Instant::now();
        if now >= deadline {
            return state;
        }
        tokio::time::sleep(pause.min(deadline - now)).await;
        pause = (pause * 2).min(Duration::from_secs(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_running_jobs_become_tasks() {
        let pid = format!("sha256:{}", "c".repeat(64));
        let op = "op_0123456789abcdef0123456789abcdef";
        let started = json!({"success":true,"message":"running","data":{"port":8090,"run_id":"0123456789abcdef0123456789abcdef"}});
        let id = job_of_reply("run_tests", None, &started, &pid, op, 1)
            .unwrap()
            .unwrap();
        assert_eq!(id.k, TaskKind::Test);
        assert_eq!(DurableTaskId::decode(&id.encode()).unwrap(), id);
        assert!(
            job_of_reply(
                "run_tests",
                Some("list"),
                &json!({"success":true,"message":"ok"}),
                &pid,
                op,
                1
            )
            .is_none()
        );
        let pkg = json!({"success":true,"message":"running","data":{"port":8090,"job_id":"pkg-0123456789abcdef0123456789abcdef"}});
        assert!(
            job_of_reply("manage_packages", Some("add"), &pkg, &pid, op, 1)
                .unwrap()
                .is_ok()
        );
        assert!(job_of_reply("manage_packages", Some("list"), &pkg, &pid, op, 1).is_none());
        let bad = json!({"success":true,"message":"running","data":{}});
        assert!(
            job_of_reply("run_tests", None, &bad, &pid, op, 1)
                .unwrap()
                .is_err()
        );
    }

    #[test]
    fn state_comes_from_files() {
        let dir = tempfile::tempdir().unwrap();
        let id = DurableTaskId {
            v: 2,
            project_id: "sha256:x".into(),
            k: TaskKind::Test,
            p: 8090,
            u: "run_0123456789".into(),
            o: "op_0123456789".into(),
            a: None,
            c: 1,
        };
        assert_eq!(read_state(dir.path(), &id).unwrap(), TaskState::NotFound);
        std::fs::write(
            dir.path().join(file_bus::test_pending(8090, &id.u)),
            "{\"port\":8090}",
        )
        .unwrap();
        assert!(matches!(
            read_state(dir.path(), &id).unwrap(),
            TaskState::Working { .. }
        ));
        std::fs::write(
            dir.path().join(file_bus::test_results(8090, &id.u)),
            "{\"success\":true,\"message\":\"All 1 test(s) passed.\"}",
        )
        .unwrap();
        assert!(matches!(
            read_state(dir.path(), &id).unwrap(),
            TaskState::Completed { .. }
        ));
    }
}
