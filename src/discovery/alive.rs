//! Wait-for-alive (§1.5): is the chosen Editor able to take a request now, and if not, wait
//! (bounded) until its heartbeat moves again.
//!
//! Why the heartbeat and not the port: while Unity compiles or reloads its script domain the
//! HTTP listener is gone or stalled, and a request sent then just burns the timeout in
//! connection retries. The heartbeat tells us cheaply whether the Editor's main loop runs:
//! a `ready`/`playing`/`paused` state, or any state written in the last second, means it does.
//! Otherwise we re-read the file (fresh scans, back-off 500 ms doubling to 1500 ms) until a
//! *newer* timestamp appears. A stuck Editor (modal dialog, endless compile) then ends in an
//! error that names its state, instead of a vague connection timeout.
//!
//! The wait follows the *project*, not the file's port: a reload may move the listener.

use super::DiscoveryError;
use super::home::AgentHome;
use super::instance::{Instance, Scan, now_ms, scan_async};
use super::select::find_project;
use std::time::{Duration, Instant};

/// A heartbeat written less than this long ago shows a running main loop, whatever its state.
pub const FRESH_HEARTBEAT_MS: i64 = 1000;
/// First pause between fresh scans while waiting; doubled after each scan.
pub const ALIVE_POLL_FIRST: Duration = Duration::from_millis(500);
/// Longest pause between fresh scans.
pub const ALIVE_POLL_CAP: Duration = Duration::from_millis(1500);

/// States in which the Editor takes requests at once (§1.5 step 2).
pub fn is_alive_state(state: &str) -> bool {
    matches!(state, "ready" | "playing" | "paused")
}

/// Whether `instance` may be used right away (§1.5 steps 2–3): an alive state, or a heartbeat
/// younger than [`FRESH_HEARTBEAT_MS`]. A heartbeat without a port is never usable.
pub fn is_alive_now(instance: &Instance, now_ms: i64) -> bool {
    instance.is_listening()
        && (is_alive_state(instance.state()) || instance.age_ms(now_ms) < FRESH_HEARTBEAT_MS)
}

/// What a waiting caller may show a person. Emitted once when the wait starts, again only when
/// the state, the port or the heartbeat's presence changes, and once at the end if it succeeded:
/// a progress line per change, never a stream of identical lines.
#[derive(Debug, Clone, Copy)]
pub enum AliveEvent<'a> {
    /// The project's latest heartbeat, not (yet) good enough.
    Waiting(&'a Instance),
    /// The last scan found no readable active heartbeat for the project.
    Missing,
    /// A newer heartbeat (or an alive state) appeared; the wait is over.
    Alive(&'a Instance),
}

/// Plain-words description of a non-alive Editor, for messages ("Unity is compiling scripts").
pub fn describe_state(instance: &Instance) -> String {
    let what = match instance.state() {
        "compiling" => "is compiling scripts",
        "reloading" => "is reloading its script domain",
        "refreshing" => "is refreshing assets",
        "entering_playmode" => "is entering play mode",
        "stopped" => "has quit",
        s if is_alive_state(s) && !instance.is_listening() => {
            "is not listening yet (heartbeat port 0)"
        }
        "" => "reports no state",
        _ => "is busy",
    };
    format!("Unity {what}")
}

#[cfg(test)]
/// [`wait_for_alive_observed`] without progress reports (for callers with no person watching).
pub async fn wait_for_alive(
    home: &AgentHome,
    instance: &Instance,
    deadline: Instant,
) -> Result<Instance, DiscoveryError> {
    wait_for_alive_observed(home, instance, deadline, |_| {}).await
}

/// Returns the project's current heartbeat once the Editor is alive: at once when
/// [`is_alive_now`] holds for `instance`, otherwise after a fresh scan finds a heartbeat of the
/// same project with a newer timestamp (or an alive state) and a port. Fails with
/// [`DiscoveryError::NotAlive`] at `deadline`, or with [`DiscoveryError::EditorGone`] as soon as
/// the Editor is known to have quit (a `stopped` heartbeat, or its process is gone).
///
/// Bounded: one scan per pause (≥ 500 ms) until `deadline`, and never more than
/// `2 + (deadline - now) / 500 ms` scans.
pub async fn wait_for_alive_observed(
    home: &AgentHome,
    instance: &Instance,
    deadline: Instant,
    mut observe: impl FnMut(AliveEvent<'_>),
) -> Result<Instance, DiscoveryError> {
    if is_alive_now(instance, now_ms()) {
        return Ok(instance.clone());
    }
    let started = Instant::now();
    let baseline = instance.timestamp_ms();
    let mut last = instance.clone();
    let mut missing = false;
    observe(AliveEvent::Waiting(&last));
    let max_scans =
        2 + deadline.saturating_duration_since(started).as_millis() / ALIVE_POLL_FIRST.as_millis();
    let mut pause = ALIVE_POLL_FIRST;
    for _ in 0..max_scans {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        tokio::time::sleep(pause.min(deadline - now)).await;
        pause = (pause * 2).min(ALIVE_POLL_CAP);
        let scan = scan_async(home).await.ok();
        match scan
            .as_ref()
            .and_then(|s| find_project(s, &instance.normalized_path))
        {
            Some(fresh) => {
                if fresh.is_listening()
                    && (is_alive_state(fresh.state()) || fresh.timestamp_ms() > baseline)
                {
                    observe(AliveEvent::Alive(&fresh));
                    return Ok(fresh);
                }
                if missing || fresh.state() != last.state() || fresh.port() != last.port() {
                    observe(AliveEvent::Waiting(&fresh));
                }
                missing = false;
                last = fresh;
            }
            None => {
                if let Some(reason) = scan.as_ref().and_then(|s| quit_reason(s, instance)) {
                    return Err(DiscoveryError::EditorGone {
                        project: instance.project_path.clone(),
                        reason,
                    });
                }
                if !missing {
                    observe(AliveEvent::Missing);
                }
                missing = true;
            }
        }
    }
    let waited_ms = started.elapsed().as_millis() as u64;
    if missing {
        return Err(DiscoveryError::EditorGone {
            project: instance.project_path.clone(),
            reason: format!(
                "no readable heartbeat for the project in {}",
                home.instances_dir().display()
            ),
        });
    }
    Err(DiscoveryError::NotAlive {
        project: last.project_path.clone(),
        port: last.port(),
        state: last.state().to_string(),
        description: describe_state(&last),
        heartbeat_age_ms: last.age_ms(now_ms()).max(0),
        waited_ms,
    })
}

/// Why the project has no active heartbeat, when the scan shows the Editor really ended (as
/// opposed to a file being rewritten): it wrote `stopped`, this scan found its process dead
/// and removed the file, or its process cannot be checked and its heartbeat stopped moving.
fn quit_reason(scan: &Scan, instance: &Instance) -> Option<String> {
    if let Some(stopped) = scan
        .instances
        .iter()
        .find(|i| i.normalized_path == instance.normalized_path && i.state() == "stopped")
    {
        return Some(format!(
            "it wrote a stopped heartbeat (Unity quit; pid {})",
            stopped
                .pid()
                .map_or_else(|| "unknown".to_string(), |p| p.to_string())
        ));
    }
    if let Some((_, age_ms)) = scan
        .presumed_gone
        .iter()
        .find(|(i, _)| i.normalized_path == instance.normalized_path)
    {
        return Some(format!(
            "its heartbeat has not moved for {} s and its process cannot be checked on this \
             system, so the Editor is presumed gone",
            age_ms / 1000
        ));
    }
    scan.removed_dead.contains(&instance.file).then(|| {
        format!(
            "its process (pid {}) is gone, so its heartbeat was removed",
            instance
                .pid()
                .map_or_else(|| "unknown".to_string(), |p| p.to_string())
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hera_connector_contract::identity::heartbeat_file_name;
    use hera_connector_contract::wire::Heartbeat;
    use std::path::Path;

    fn heartbeat(project: &str, state: &str, port: u16, ts: i64) -> Heartbeat {
        Heartbeat {
            state: Some(state.into()),
            project_path: Some(project.into()),
            port,
            pid: Some(std::process::id() as i64),
            unity_version: None,
            docs_version: None,
            compiler: None,
            domain_epoch: None,
            features: None,
            timestamp: Some(ts),
            compile_errors: None,
        }
    }

    /// Writes the heartbeat file as the Connector names it and returns the instance it describes.
    fn write(home: &AgentHome, hb: &Heartbeat) -> Instance {
        let dir = home.instances_dir();
        std::fs::create_dir_all(&dir).unwrap();
        let project = hb.project_path.clone().unwrap();
        let file = dir.join(heartbeat_file_name(&project));
        let tmp = dir.join("write.tmp");
        std::fs::write(&tmp, serde_json::to_vec(hb).unwrap()).unwrap();
        std::fs::rename(&tmp, &file).unwrap();
        Instance::from_heartbeat(hb.clone(), file)
    }

    fn home_in(dir: &Path) -> AgentHome {
        AgentHome::for_home(dir)
    }

    #[tokio::test]
    async fn alive_states_and_fresh_heartbeats_need_no_scan() {
        // The instances directory does not even exist: nothing is read.
        let tmp = tempfile::tempdir().unwrap();
        let home = home_in(tmp.path());
        let old = now_ms() - 60_000;
        for state in ["ready", "playing", "paused"] {
            let i = Instance::from_heartbeat(heartbeat("/p/A", state, 8090, old), "x.json".into());
            let got = wait_for_alive(&home, &i, Instant::now()).await.unwrap();
            assert_eq!(got, i);
        }
        let compiling =
            Instance::from_heartbeat(heartbeat("/p/A", "compiling", 8090, now_ms()), "x".into());
        assert!(
            wait_for_alive(&home, &compiling, Instant::now())
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn a_newer_heartbeat_ends_the_wait_and_the_port_move_is_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let home = home_in(tmp.path());
        let old = now_ms() - 10_000;
        let first = write(&home, &heartbeat("/p/A", "reloading", 8090, old));
        let writer_home = home.clone();
        let writer = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(700)).await;
            // Still not `ready`, but written just now and on another port.
            write(
                &writer_home,
                &heartbeat("/p/A", "compiling", 8093, now_ms()),
            );
        });
        let mut events = Vec::new();
        let got = wait_for_alive_observed(
            &home,
            &first,
            Instant::now() + Duration::from_secs(30),
            |e| {
                events.push(match e {
                    AliveEvent::Waiting(i) => format!("waiting {}", i.state()),
                    AliveEvent::Missing => "missing".into(),
                    AliveEvent::Alive(i) => format!("alive {}", i.state()),
                })
            },
        )
        .await
        .unwrap();
        writer.await.unwrap();
        assert_eq!(got.port(), 8093);
        assert_eq!(got.state(), "compiling");
        assert_eq!(events, vec!["waiting reloading", "alive compiling"]);
    }

    #[tokio::test]
    async fn a_frozen_heartbeat_times_out_naming_the_state() {
        let tmp = tempfile::tempdir().unwrap();
        let home = home_in(tmp.path());
        let i = write(
            &home,
            &heartbeat("/p/A", "compiling", 8090, now_ms() - 5_000),
        );
        let mut waiting = 0;
        let err = wait_for_alive_observed(
            &home,
            &i,
            Instant::now() + Duration::from_millis(1200),
            |e| {
                if let AliveEvent::Waiting(_) = e {
                    waiting += 1
                }
            },
        )
        .await
        .unwrap_err();
        assert_eq!(waiting, 1, "one progress report for an unchanged state");
        match &err {
            DiscoveryError::NotAlive {
                state,
                heartbeat_age_ms,
                ..
            } => {
                assert_eq!(state, "compiling");
                assert!(*heartbeat_age_ms >= 5_000);
            }
            other => panic!("{other:?}"),
        }
        let text = err.to_string();
        assert!(
            text.starts_with("Unity is compiling scripts (state compiling)"),
            "{text}"
        );
        assert_eq!(err.code(), "EDITOR_NOT_READY");
        assert!(!err.is_terminal());
    }

    #[tokio::test]
    async fn a_stopped_heartbeat_ends_the_wait_at_once() {
        let tmp = tempfile::tempdir().unwrap();
        let home = home_in(tmp.path());
        let i = write(
            &home,
            &heartbeat("/p/A", "reloading", 8090, now_ms() - 5_000),
        );
        write(&home, &heartbeat("/p/A", "stopped", 8090, now_ms()));
        let start = Instant::now();
        let err = wait_for_alive(&home, &i, Instant::now() + Duration::from_secs(60))
            .await
            .unwrap_err();
        assert!(matches!(err, DiscoveryError::EditorGone { .. }), "{err:?}");
        assert!(err.to_string().contains("stopped"), "{err}");
        assert!(start.elapsed() < Duration::from_secs(30));
    }

    #[test]
    fn describing_states() {
        let i = |s: &str, port| Instance::from_heartbeat(heartbeat("/p", s, port, 1), "x".into());
        assert_eq!(
            describe_state(&i("reloading", 1)),
            "Unity is reloading its script domain"
        );
        assert_eq!(
            describe_state(&i("ready", 0)),
            "Unity is not listening yet (heartbeat port 0)"
        );
        assert_eq!(describe_state(&i("importing", 1)), "Unity is busy");
        assert!(!is_alive_now(&i("ready", 0), 1));
        assert!(is_alive_now(&i("paused", 1), 1_000_000));
        assert!(!is_alive_now(&i("compiling", 1), 1_000_000));
    }
}
