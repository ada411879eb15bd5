//! Wait-for-alive through the real binary (connector-contract/README.md §1.5): `list` and `call` go
//! ahead when a busy Editor's heartbeat keeps moving, wait while it is frozen, proceed once it
//! moves again, give up at `--timeout` with exit 3 naming the state, stop at once when the Editor
//! quits; `status` and `task` never wait.
//!
//! A frozen heartbeat stands for an Editor whose main loop is stuck in a compile or a domain
//! reload; the simulator's listener still answers, so only the wait can keep the call back,
//! and the simulator's request counters show whether it did.

use crate::support::cli::*;
use hera_connector_sim::Simulator;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The heartbeat file's age as the binary will see it.
fn heartbeat_age_ms(sim: &Simulator) -> i64 {
    let text = std::fs::read_to_string(sim.heartbeat_path()).unwrap_or_default();
    let ts = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v["timestamp"].as_i64())
        .unwrap_or(i64::MAX);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    now - ts
}

/// Pins `state`, freezes the heartbeat and waits until it is clearly older than the 1 s
/// freshness rule, so the binary has to wait.
fn freeze_busy(sim: &Simulator, state: &str) {
    sim.set_state(state).unwrap();
    sim.freeze_heartbeat(true).unwrap();
    assert!(
        wait_until(Duration::from_secs(20), || heartbeat_age_ms(sim) > 1500),
        "the frozen heartbeat ages"
    );
}

/// The binary running in the background, its stderr readable line by line while it runs.
struct Running {
    child: Child,
    stderr_lines: mpsc::Receiver<String>,
    stderr_seen: Vec<String>,
    stdout: std::thread::JoinHandle<String>,
}

impl Running {
    fn spawn(home: &Home, args: &[&str], env: &[(&str, &str)]) -> Running {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .current_dir(home.path())
            .env("HOME", home.path())
            .env("USERPROFILE", home.path())
            .env("RUST_LOG", "warn")
            .env_remove("HERA_AGENT_PORT")
            .env_remove("HERA_AGENT_PROJECT")
            .env_remove("HERA_AGENT_APPROVE")
            .env_remove("HERA_AGENT_VERBOSE")
            .env_remove("HERA_MCP_ENABLED")
            .env_remove("HTTP_PROXY")
            .env_remove("http_proxy")
            .env_remove("ALL_PROXY")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("binary starts");
        let err = child.stderr.take().unwrap();
        let (tx, stderr_lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut out = child.stdout.take().unwrap();
        let stdout = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            s
        });
        Running {
            child,
            stderr_lines,
            stderr_seen: Vec::new(),
            stdout,
        }
    }

    /// Waits (bounded) for a stderr line containing every one of `parts`.
    fn wait_for_stderr(&mut self, limit: Duration, parts: &[&str]) -> String {
        let end = Instant::now() + limit;
        loop {
            if let Some(l) = self
                .stderr_seen
                .iter()
                .find(|l| parts.iter().all(|p| l.contains(p)))
            {
                return l.clone();
            }
            let left = end.saturating_duration_since(Instant::now());
            match self
                .stderr_lines
                .recv_timeout(left.min(Duration::from_millis(200)))
            {
                Ok(l) => self.stderr_seen.push(l),
                Err(mpsc::RecvTimeoutError::Timeout) if !left.is_zero() => {}
                Err(_) => panic!(
                    "no stderr line with {parts:?} within {limit:?}; stderr so far:\n{}",
                    self.stderr_seen.join("\n")
                ),
            }
        }
    }

    fn still_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Waits (bounded) for the exit and collects the rest of the output.
    fn finish(mut self, limit: Duration) -> Run {
        let start = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "the binary did not finish within {limit:?}; stderr:\n{}",
                    self.stderr_seen.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(25));
        };
        // The reader thread ends at EOF, which follows the exit.
        while let Ok(l) = self.stderr_lines.recv_timeout(Duration::from_secs(10)) {
            self.stderr_seen.push(l);
        }
        Run {
            code: status.code().unwrap_or(-1),
            stdout: self.stdout.join().unwrap(),
            stderr: self.stderr_seen.join("\n"),
            elapsed: start.elapsed(),
        }
    }
}

#[test]
fn a_compiling_editor_whose_heartbeat_moves_is_called() {
    let home = Home::new();
    let sim = home.editor("Compiling");
    sim.set_state("compiling").unwrap();
    let before = sim.requests_seen("/command");
    let env = [("HERA_AGENT_TIMEOUT_MS", "30000")];
    let r = home.run_env(&["--verbose", "call", "scene", "info"], &env);
    r.expect(0);
    assert!(
        r.stdout.trim_start().starts_with('{'),
        "scene info data on stdout: {}",
        r.stdout
    );
    assert!(
        !r.stdout.contains("Unity"),
        "progress never reaches stdout: {}",
        r.stdout
    );
    assert!(sim.requests_seen("/command") > before);
    let r = home.run_env(&["list", "--compact"], &env);
    assert!(r.expect(0).stdout.lines().any(|l| l == "scene"));
    assert!(
        !r.stderr.contains("giving up"),
        "progress only with --verbose or a terminal: {}",
        r.stderr
    );
    assert_eq!(sim.heartbeat().state.as_deref(), Some("compiling"));
}

#[test]
fn a_frozen_reloading_editor_is_waited_for_until_its_heartbeat_moves() {
    let home = Home::new();
    let sim = home.editor("Reloading");
    freeze_busy(&sim, "reloading");
    let before = sim.requests_seen("/command");
    let mut run = Running::spawn(
        &home,
        &["call", "scene", "info", "--verbose"],
        &[("HERA_AGENT_TIMEOUT_MS", "60000")],
    );
    let line = run.wait_for_stderr(
        Duration::from_secs(30),
        &["waiting for Unity", "state reloading"],
    );
    assert!(line.contains("reloading its script domain"), "{line}");
    // While the heartbeat is frozen nothing is sent to the Editor.
    assert!(run.still_running(), "the call waits for the heartbeat");
    assert_eq!(
        sim.requests_seen("/command"),
        before,
        "nothing sent while waiting"
    );
    // Unfreeze from another thread after about a second, as the Editor finishing its reload.
    let unfreezer = {
        let sim = sim.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1000));
            sim.freeze_heartbeat(false).unwrap();
        })
    };
    unfreezer.join().unwrap();
    let r = run.finish(Duration::from_secs(60));
    r.expect(0);
    assert!(
        r.stdout.trim_start().starts_with('{'),
        "scene info data on stdout: {}",
        r.stdout
    );
    assert!(r.stderr.contains("continuing"), "{}", r.stderr);
    assert!(sim.requests_seen("/command") > before);
    // One progress line for the one state seen while waiting, not a line per poll.
    let waiting = r.stderr.matches("waiting for Unity").count();
    assert_eq!(waiting, 1, "{}", r.stderr);
}

#[test]
fn a_frozen_busy_editor_times_out_with_exit_3_naming_its_state() {
    let home = Home::new();
    let sim = home.editor("Stuck");
    freeze_busy(&sim, "compiling");
    let before = sim.requests_seen("/command");
    let env = [("HERA_AGENT_TIMEOUT_MS", "2000")];

    let r = home.run_env(&["call", "scene", "info"], &env);
    r.expect(3);
    assert!(
        r.elapsed < Duration::from_secs(30),
        "bounded: {:?}",
        r.elapsed
    );
    assert_eq!(r.stdout, "", "nothing on stdout");
    let e = r.error();
    assert_eq!(e["code"], "EDITOR_NOT_READY");
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains("Unity is compiling scripts (state compiling)")
            && msg.contains("has not written a newer heartbeat for"),
        "{msg}"
    );
    assert!(msg.contains("--timeout"), "says what to do: {msg}");
    assert_eq!(e["data"]["state"], "compiling");
    assert_eq!(e["data"]["port"], sim.port());
    assert!(e["data"]["heartbeat_age_ms"].as_i64().unwrap() > 1500);
    // Quiet by default when stderr is not a terminal: the envelope is the only stderr line.
    assert_eq!(r.stderr.trim().lines().count(), 1, "{}", r.stderr);

    // `list` waits the same way; --verbose shows one progress line for the unchanged state.
    let r = home.run_env(&["list", "--verbose"], &env);
    r.expect(3);
    assert_eq!(r.error_code(), "EDITOR_NOT_READY");
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr.matches("waiting for Unity").count(),
        1,
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("state compiling"), "{}", r.stderr);
    assert_eq!(
        sim.requests_seen("/command"),
        before,
        "nothing was sent to the stuck Editor"
    );
}

#[test]
fn an_editor_that_quits_during_the_wait_ends_it_at_once() {
    let home = Home::new();
    let sim = home.editor("Quitting");
    freeze_busy(&sim, "reloading");
    let mut run = Running::spawn(
        &home,
        &["call", "scene", "info", "--verbose"],
        &[("HERA_AGENT_TIMEOUT_MS", "120000")],
    );
    run.wait_for_stderr(Duration::from_secs(30), &["waiting for Unity"]);
    sim.write_stopped().unwrap();
    // Far less than the two-minute timeout.
    let r = run.finish(Duration::from_secs(60));
    r.expect(3);
    let e = r.error();
    assert_eq!(e["code"], "EDITOR_NOT_RUNNING");
    let msg = e["message"].as_str().unwrap();
    assert!(msg.contains("stopped") && msg.contains("Reopen"), "{msg}");
}

#[test]
fn status_and_task_commands_do_not_wait() {
    let home = Home::new();
    let sim = home.editor("Busy");
    // A running test job, so `task status` has something to report.
    sim.with_editor(|ed| ed.set_job_delay(Duration::from_secs(600)));
    home.run(&[
        "call",
        "run_tests",
        "--args",
        r#"{"mode":"EditMode","async_results":true}"#,
    ])
    .expect(0);
    let list = home.run(&["task", "list", "--json"]).expect(0).json();
    let id = list["tasks"][0]["task_id"].as_str().unwrap().to_string();

    freeze_busy(&sim, "compiling");
    // A long timeout: had any of these waited, they would take a minute.
    let env = [("HERA_AGENT_TIMEOUT_MS", "60000")];
    let r = home.run_env(&["--verbose", "task", "status", &id, "--json"], &env);
    assert_eq!(r.expect(0).json()["status"], "working");
    let r2 = home.run_env(&["--verbose", "task", "list", "--json"], &env);
    assert_eq!(r2.expect(0).json()["tasks"][0]["task_id"], id.as_str());
    let r3 = home.run_env(&["--verbose", "status", "--json"], &env);
    assert_eq!(r3.expect(0).json()["selected"]["state"], "compiling");
    for r in [&r, &r2, &r3] {
        assert!(!r.stderr.contains("waiting for Unity"), "{}", r.stderr);
        assert!(r.elapsed < Duration::from_secs(30), "{:?}", r.elapsed);
    }
}
