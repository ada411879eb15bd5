//! `task list` / `task status ID`: long-running Editor work (test runs, package jobs) read
//! straight from the file bus (§7, §7.5). Nothing is sent to the Editor, so this works while it
//! is busy or reloading; a durable task id carries everything needed to find its files.

use super::context::Globals;
use super::exit;
use super::output::{Failure, print_json};
use crate::discovery::{self, AgentHome};
use crate::tasks;
use hera_connector_contract::canonical::sha256_prefixed;
use hera_connector_contract::task_id::{DurableTaskId, TaskKind};
use hera_connector_contract::wire::{PackagePending, TestPending, file_bus};
use serde_json::{Value, json};
use std::path::Path;
use std::time::UNIX_EPOCH;

/// Where one task stands, from files only (state from [`crate::tasks::read_state`], plus when
/// its file last changed).
#[derive(Debug, Clone, PartialEq)]
pub enum TaskState {
    /// The pending file exists and no result yet.
    Working { updated_at_ms: i64 },
    /// The result file exists; `result` is its envelope, even when it reports a failure.
    Completed { updated_at_ms: i64, result: Value },
}

fn mtime_ms(p: &Path) -> Option<i64> {
    let m = std::fs::metadata(p).ok()?.modified().ok()?;
    Some(m.duration_since(UNIX_EPOCH).ok()?.as_millis() as i64)
}

/// The operation id Go gives a job it found on disk rather than started:
/// `op_discovered_` + hex SHA-256 of `project_id \0 kind \0 id \0 port`.
pub fn discovered_operation_id(project_id: &str, kind: TaskKind, id: &str, port: u16) -> String {
    let k = match kind {
        TaskKind::Test => "test",
        TaskKind::Package => "package",
    };
    let h = sha256_prefixed(format!("{project_id}\0{k}\0{id}\0{port}").as_bytes());
    format!("op_discovered_{}", &h["sha256:".len()..])
}

/// Running jobs of one Editor (port) and project, as durable task ids.
pub fn list_tasks(
    home: &AgentHome,
    project_id: &str,
    port: u16,
    owner_pid: Option<i64>,
) -> Vec<DurableTaskId> {
    let dir = home.status_dir();
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mine = |pid_field: &Option<String>, owner: i64| match pid_field {
        Some(p) => p == project_id,
        None => owner_pid == Some(owner),
    };
    let mut out = Vec::new();
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if name.starts_with(&format!("test-pending-{port}-"))
            && let Ok(p) = serde_json::from_str::<TestPending>(&text)
            && p.port == port
            && mine(&p.project_id, p.owner_pid)
        {
            out.push(DurableTaskId {
                v: 2,
                project_id: project_id.to_string(),
                k: TaskKind::Test,
                p: port,
                o: discovered_operation_id(project_id, TaskKind::Test, &p.run_id, port),
                u: p.run_id,
                a: None,
                c: mtime_ms(&path).unwrap_or(0),
            });
        } else if name.starts_with(&format!("package-pending-{port}-"))
            && let Ok(p) = serde_json::from_str::<PackagePending>(&text)
            && p.port == port
            && mine(&p.project_id, p.owner_pid)
        {
            out.push(DurableTaskId {
                v: 2,
                project_id: project_id.to_string(),
                k: TaskKind::Package,
                p: port,
                o: discovered_operation_id(project_id, TaskKind::Package, &p.job_id, port),
                u: p.job_id,
                a: Some(p.action).filter(|a| !a.is_empty()),
                c: if p.started_unix_ms > 0 {
                    p.started_unix_ms
                } else {
                    mtime_ms(&path).unwrap_or(0)
                },
            });
        }
    }
    out
}

/// The state of a task from its files, or `None` when neither file exists. A result file that
/// is being rewritten (unparsable for a moment) still counts as working.
pub fn task_state(home: &AgentHome, t: &DurableTaskId) -> Option<TaskState> {
    let dir = home.status_dir();
    let (pending, result) = match t.k {
        TaskKind::Test => (
            file_bus::test_pending(t.p, &t.u),
            file_bus::test_results(t.p, &t.u),
        ),
        TaskKind::Package => (
            file_bus::package_pending(t.p, &t.u),
            file_bus::package_result(t.p, &t.u),
        ),
    };
    let touched = |name: &str| t.c.max(mtime_ms(&dir.join(name)).unwrap_or(0));
    match crate::tasks::read_state(&dir, t) {
        Ok(tasks::TaskState::Completed { result: r }) => Some(TaskState::Completed {
            updated_at_ms: touched(&result),
            result: r,
        }),
        Ok(tasks::TaskState::Working { .. }) | Err(_) => Some(TaskState::Working {
            updated_at_ms: touched(&pending).max(touched(&result)),
        }),
        Ok(tasks::TaskState::NotFound) => None,
    }
}

fn task_json(t: &DurableTaskId, state: Option<&TaskState>) -> Value {
    let mut v = json!({
        "task_id": t.encode(),
        "kind": t.k,
        "port": t.p,
        "id": t.u,
        "operation_id": t.o,
        "action": t.a,
        "created_at_ms": t.c,
    });
    match state {
        Some(TaskState::Working { updated_at_ms }) => {
            v["status"] = "working".into();
            v["updated_at_ms"] = (*updated_at_ms).into();
        }
        Some(TaskState::Completed {
            updated_at_ms,
            result,
        }) => {
            v["status"] = "completed".into();
            v["updated_at_ms"] = (*updated_at_ms).into();
            v["result"] = result.clone();
        }
        None => v["status"] = "not_found".into(),
    }
    v
}

pub async fn run_list(g: &Globals, json_out: bool) -> Result<u8, Failure> {
    let inst = discovery::discover(&g.home, &g.selector, g.timeout).await?;
    let tasks = list_tasks(&g.home, &inst.project_id(), inst.port(), inst.pid());
    let items: Vec<Value> = tasks
        .iter()
        .map(|t| task_json(t, task_state(&g.home, t).as_ref()))
        .collect();
    if json_out {
        print_json(&json!({"project": inst.project_path, "port": inst.port(), "tasks": items}));
    } else if items.is_empty() {
        eprintln!(
            "no running tasks for {} (port {})",
            inst.project_path,
            inst.port()
        );
    } else {
        for i in &items {
            println!(
                "{}  {} {} {}",
                i["task_id"].as_str().unwrap_or(""),
                i["kind"].as_str().unwrap_or(""),
                i["id"].as_str().unwrap_or(""),
                i["status"].as_str().unwrap_or("")
            );
        }
    }
    Ok(exit::OK)
}

pub async fn run_status(g: &Globals, id: &str, json_out: bool) -> Result<u8, Failure> {
    let t = DurableTaskId::decode(id.trim()).map_err(|e| {
        Failure::usage(
            "INVALID_TASK_ID",
            format!("{e}; task ids look like hera_task_…"),
        )
    })?;
    // A task of another project is "not found" (§7.5). With no Editor running, the id alone is
    // enough to read its files.
    let selected = discovery::scan(&g.home)
        .ok()
        .and_then(|s| discovery::select(&s, &g.selector).ok());
    let foreign = selected
        .as_ref()
        .is_some_and(|i| i.project_id() != t.project_id);
    let state = if foreign {
        None
    } else {
        task_state(&g.home, &t)
    };
    let v = task_json(&t, state.as_ref());
    if state.is_none() {
        return Err(Failure::new(
            exit::FAILED,
            "TASK_NOT_FOUND",
            format!(
                "task {} ({} {} on port {}) was not found{}",
                id,
                v["kind"].as_str().unwrap_or(""),
                t.u,
                t.p,
                if foreign {
                    " for the selected project"
                } else {
                    ": neither its pending nor its result file exists (results are removed \
                     7 days after the job finished)"
                }
            ),
            v,
        ));
    }
    if json_out {
        print_json(&v);
    } else {
        println!("{}", v["status"].as_str().unwrap_or(""));
        if let Some(r) = v.get("result") {
            println!("{}", serde_json::to_string(r).unwrap_or_default());
        }
    }
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_then_completed() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AgentHome::for_home(tmp.path());
        std::fs::create_dir_all(home.status_dir()).unwrap();
        let pid = "sha256:abc";
        let pending = TestPending {
            port: 8090,
            run_id: "0123456789abcdef".into(),
            filter: String::new(),
            mode: "EditMode".into(),
            selective: false,
            nunit_guid: String::new(),
            owner_pid: 1,
            project_id: Some(pid.into()),
        };
        let pfile = home
            .status_dir()
            .join(file_bus::test_pending(8090, &pending.run_id));
        std::fs::write(&pfile, serde_json::to_vec(&pending).unwrap()).unwrap();
        let other = TestPending {
            run_id: "ffffffffffffffff".into(),
            project_id: Some("sha256:other".into()),
            ..pending.clone()
        };
        std::fs::write(
            home.status_dir()
                .join(file_bus::test_pending(8090, &other.run_id)),
            serde_json::to_vec(&other).unwrap(),
        )
        .unwrap();
        let tasks = list_tasks(&home, pid, 8090, None);
        assert_eq!(tasks.len(), 1);
        let t = &tasks[0];
        assert!(t.o.starts_with("op_discovered_") && t.o.len() == 14 + 64);
        let decoded = DurableTaskId::decode(&t.encode()).unwrap();
        assert_eq!(&decoded, t);
        assert!(matches!(
            task_state(&home, t),
            Some(TaskState::Working { .. })
        ));
        std::fs::write(
            home.status_dir().join(file_bus::test_results(8090, &t.u)),
            br#"{"success":false,"code":"TESTS_FAILED","message":"1 failed"}"#,
        )
        .unwrap();
        std::fs::remove_file(pfile).unwrap();
        match task_state(&home, t) {
            Some(TaskState::Completed { result, .. }) => assert_eq!(result["code"], "TESTS_FAILED"),
            other => panic!("{other:?}"),
        }
    }
}
