//! The fault matrix: one mutation (`manage_gameobject create`, a fixed operation id) through the
//! real binary against the simulator, under each fault the Editor side can produce. Every row
//! asserts the promise that holds for all of them: the mutation takes effect at most once,
//! counted by the simulator, and a row that claims success took effect exactly once. A row that
//! did not succeed is retried with the same operation id, as the error tells the user to, and
//! ends in its documented final state: exactly one effect, or (where the Editor's ledger itself
//! cannot know whether the work ran: a reload or a crash before the commit, a handler that never
//! returns) an honest `OPERATION_OUTCOME_UNKNOWN` (or `OPERATION_IN_PROGRESS`) that never re-runs.
//!
//! `HERA_RELIABILITY_OUT=<file>` appends one JSON line per row (used by `tools/reliability/run`).
//! The randomized soak (1,000 mutations under random resets and reloads) is `#[ignore]`d here
//! for CI time and run by that script.

use crate::support::cli::*;
use hera_connector_sim::{Fault, FaultMatch, SimConfig, Simulator};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const OP: &str = "op_fault_matrix_0001";

fn create_args(name: &str, op: &str) -> Vec<String> {
    [
        "call",
        "manage_gameobject",
        "create",
        "--args",
        &format!(r#"{{"name":"{name}"}}"#),
        "--operation-id",
        op,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn run_create(home: &Home, name: &str, op: &str, timeout_ms: &str) -> Run {
    let args = create_args(name, op);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    home.run_env(&args, &[("HERA_AGENT_TIMEOUT_MS", timeout_ms)])
}

fn creates(sim: &Simulator) -> u64 {
    sim.side_effects_of("manage_gameobject", Some("create"))
}

/// One row's record.
struct Row {
    fault: &'static str,
    outcome: String,
    final_outcome: String,
    effects: u64,
    retried: bool,
}

/// Where a row must end after its retries.
#[derive(Clone, Copy)]
enum Final {
    /// Success, with exactly one effect.
    Once,
    /// This error code (the Editor cannot tell), with at most one effect and no re-run.
    Code(&'static str),
}

fn record(row: &Row) {
    eprintln!(
        "fault {:<32} first {:<28} final {:<28} effects {} retried {}",
        row.fault, row.outcome, row.final_outcome, row.effects, row.retried
    );
    if let Ok(path) = std::env::var("HERA_RELIABILITY_OUT") {
        use std::io::Write;
        let line = json!({"kind": "fault", "fault": row.fault, "outcome": row.outcome,
            "final": row.final_outcome, "effects": row.effects, "retried": row.retried,
            "duplicates": row.effects.saturating_sub(1), "passed": true});
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        writeln!(f, "{line}").unwrap();
    }
}

fn outcome_of(r: &Run) -> String {
    if r.code == 0 {
        "success".into()
    } else {
        r.error_code()
    }
}

/// Runs the mutation once under whatever the setup injected; if it did not succeed, retries
/// with the same operation id (faults cleared) until it does, at most three times. Returns the
/// first outcome and whether a retry was needed.
fn exercise(
    home: &Home,
    sims: &[&Simulator],
    fault: &'static str,
    timeout_ms: &str,
    expect: Final,
) -> Row {
    let effects = || sims.iter().map(|s| creates(s)).sum::<u64>();
    let first = run_create(home, "Matrix", OP, timeout_ms);
    let outcome = outcome_of(&first);
    assert!(effects() <= 1, "{fault}: ran {} times", effects());
    if first.code == 0 {
        assert_eq!(effects(), 1, "{fault}: success claimed but nothing ran");
    }
    let mut retried = false;
    let mut last = first;
    for _ in 0..3 {
        if last.code == 0 {
            break;
        }
        retried = true;
        for s in sims {
            s.clear_faults();
        }
        last = run_create(home, "Matrix", OP, "8000");
        assert!(effects() <= 1, "{fault}: the retry ran it again");
    }
    let row = Row {
        fault,
        outcome,
        final_outcome: outcome_of(&last),
        effects: effects(),
        retried,
    };
    match expect {
        Final::Once => {
            assert_eq!(
                last.code, 0,
                "{fault}: retry did not succeed: {}",
                last.stderr
            );
            assert_eq!(row.effects, 1, "{fault}: exactly once");
        }
        Final::Code(code) => {
            assert_eq!(row.final_outcome, code, "{fault}: {}", last.stderr);
            assert!(row.effects <= 1);
        }
    }
    record(&row);
    row
}

fn editor(home: &Home) -> Simulator {
    let sim = home.editor("Matrix");
    home.run(&["list", "--compact"]).expect(0);
    sim
}

fn on_create(sim: &Simulator, fault: Fault) {
    sim.inject_matching(FaultMatch::tool("manage_gameobject"), fault);
}

#[test]
fn reload_mid_call() {
    let home = Home::new();
    let sim = editor(&home);
    on_create(
        &sim,
        Fault::ReloadAfterCommit {
            downtime_ms: 400,
            new_port: false,
        },
    );
    let row = exercise(&home, &[&sim], "reload_mid_call", "20000", Final::Once);
    assert_eq!(row.outcome, "success");
}

#[test]
fn reload_while_running() {
    let home = Home::new();
    let sim = editor(&home);
    on_create(
        &sim,
        Fault::ReloadWhileRunning {
            downtime_ms: 400,
            new_port: false,
        },
    );
    exercise(
        &home,
        &[&sim],
        "reload_while_running",
        "20000",
        Final::Code("OPERATION_OUTCOME_UNKNOWN"),
    );
}

#[test]
fn hang() {
    let home = Home::new();
    let sim = editor(&home);
    on_create(&sim, Fault::Hang { times: 1 });
    // The hung handler holds the Editor's command lock (as the real Connector's does), so a
    // retry waits behind it and also ends unknown; it never runs the change a second time.
    let row = exercise(
        &home,
        &[&sim],
        "hang",
        "1500",
        Final::Code("OPERATION_OUTCOME_UNKNOWN"),
    );
    assert_eq!(row.outcome, "OPERATION_OUTCOME_UNKNOWN");
}

#[test]
fn reset() {
    let home = Home::new();
    let sim = editor(&home);
    on_create(&sim, Fault::ResetAfterExecute { times: 1 });
    exercise(&home, &[&sim], "reset_after_execute", "8000", Final::Once);
    let home = Home::new();
    let sim = editor(&home);
    on_create(&sim, Fault::ResetBeforeExecute { times: 1 });
    exercise(&home, &[&sim], "reset_before_execute", "8000", Final::Once);
}

#[test]
fn empty_200() {
    let home = Home::new();
    let sim = editor(&home);
    on_create(&sim, Fault::Empty200 { times: 1 });
    exercise(&home, &[&sim], "empty_200", "8000", Final::Once);
}

#[test]
fn non_json_200() {
    let home = Home::new();
    let sim = editor(&home);
    on_create(&sim, Fault::NonJson200 { times: 1 });
    exercise(&home, &[&sim], "non_json_200", "8000", Final::Once);
}

#[test]
fn response_over_50_mib() {
    let home = Home::new();
    let sim = editor(&home);
    on_create(&sim, Fault::Oversized { times: 1 });
    exercise(&home, &[&sim], "response_over_50_mib", "20000", Final::Once);
}

#[test]
fn port_move() {
    let home = Home::new();
    let sim = editor(&home);
    on_create(
        &sim,
        Fault::ReloadAfterCommit {
            downtime_ms: 400,
            new_port: true,
        },
    );
    exercise(&home, &[&sim], "port_move", "20000", Final::Once);
}

#[test]
fn heartbeat_gone() {
    let home = Home::new();
    let sim = editor(&home);
    sim.remove_heartbeat().unwrap();
    let r = run_create(&home, "Matrix", OP, "1500");
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert_eq!(r.error_code(), "EDITOR_NOT_RUNNING");
    assert_eq!(creates(&sim), 0, "nothing is sent without a heartbeat");
    sim.resume_heartbeat().unwrap();
    assert!(wait_until(Duration::from_secs(5), || sim
        .heartbeat_path()
        .exists()));
    let row = exercise(&home, &[&sim], "heartbeat_gone", "8000", Final::Once);
    assert_eq!(row.outcome, "success");
}

#[test]
fn stale_heartbeat() {
    // A frozen `ready` heartbeat is still a target (no age threshold in discovery).
    let home = Home::new();
    let sim = editor(&home);
    sim.freeze_heartbeat(true).unwrap();
    sim.advance_clock(Duration::from_secs(30));
    let row = exercise(&home, &[&sim], "stale_heartbeat", "8000", Final::Once);
    assert_eq!(row.outcome, "success");
}

#[test]
fn pid_change() {
    // The heartbeat names another live process (pid 1): a restarted Editor as far as the
    // file says; the call goes to the project's Editor once.
    let home = Home::new();
    let sim = editor(&home);
    sim.set_pid(1).unwrap();
    exercise(&home, &[&sim], "pid_change", "8000", Final::Once);
}

#[test]
fn lock_timeout() {
    let home = Home::new();
    let sim = editor(&home);
    on_create(&sim, Fault::LockTimeout { times: 1 });
    exercise(&home, &[&sim], "lock_timeout", "8000", Final::Once);
}

#[test]
fn simulator_killed_mid_mutation_and_restarted() {
    let home = Home::new();
    let first = editor(&home);
    on_create(&first, Fault::Hang { times: 1 });
    let mut child = spawn_create(&home, "40000");
    assert!(
        wait_until(Duration::from_secs(10), || first.pending_requests() > 0
            || first.requests_seen("/command") >= 2),
        "the mutation reached the Editor"
    );
    first.shutdown();
    // The same project and home, so the same on-disk ledger: a restarted Editor.
    let cfg = SimConfig::new(home.path().to_path_buf(), home.project("Matrix"));
    let second = Simulator::start_background(cfg).expect("restarted");
    let out = wait_child(&mut child, Duration::from_secs(60));
    assert!(creates(&first) + creates(&second) <= 1);
    let row_first = if out == Some(0) {
        "success"
    } else {
        "not_success"
    };
    eprintln!("first attempt after the restart: {row_first}");
    exercise(
        &home,
        &[&first, &second],
        "simulator_killed_and_restarted",
        "8000",
        Final::Code("OPERATION_OUTCOME_UNKNOWN"),
    );
}

#[test]
fn adapter_killed_mid_call_and_retried() {
    let home = Home::new();
    let sim = editor(&home);
    on_create(&sim, Fault::Hang { times: 1 });
    let mut child = spawn_create(&home, "40000");
    assert!(
        wait_until(Duration::from_secs(10), || sim.pending_requests() > 0
            || sim.requests_seen("/command") >= 2),
        "the mutation reached the Editor"
    );
    let _ = child.kill();
    let _ = child.wait();
    assert!(creates(&sim) <= 1);
    exercise(
        &home,
        &[&sim],
        "adapter_killed_and_retried",
        "8000",
        // The killed adapter's call still hangs in the Editor holding the command lock, so the
        // same-id retry waits behind it: unknown, never a second run.
        Final::Code("OPERATION_OUTCOME_UNKNOWN"),
    );
}

/// A secret rotation: every domain reload gives the Connector a new approval secret, so a token
/// issued before it no longer verifies. Two rows, each counted from the simulator:
///
/// - `secret_rotation_agent_token`: an agent presents a token from an earlier session (this
///   session never showed it to a person). It must not run: the Editor refuses it, the agent is
///   told to call again without it, is asked for a fresh approval (`APPROVAL_REQUIRED`), and
///   the approved call runs once; repeating it is answered by the ledger's replay.
/// - `secret_rotation_person_token`: a person's `--approve=<token>` from before the reload. The
///   summary the person approved is unchanged, so it is renewed for the same operation id and
///   runs once; repeating the command replays the ledger instead of running again.
#[test]
fn secret_rotation() {
    use crate::support::mcp::McpProc;
    const CLEAR: &str = r#"{"clear":true}"#;
    let home = Home::new();
    let sim = editor(&home);
    let clears = || sim.side_effects_of("console", None);
    let call = |p: &mut McpProc, token: Option<&Value>| {
        let mut args = json!({"name": "console", "arguments": {"clear": true}});
        if let Some(t) = token {
            args["approval_token"] = t.clone();
        }
        p.call_structured("tool_call", args)
    };
    let agent = || {
        let mut p = McpProc::start(home.path(), &[], &[], &[]);
        p.initialize("2025-11-25");
        p
    };

    // Both tokens are issued under the secret the reload is about to replace.
    let mut earlier = agent();
    let asked = call(&mut earlier, None);
    assert_eq!(asked["code"], "APPROVAL_REQUIRED", "{asked}");
    let agent_token = asked["data"]["token"].clone();
    drop(earlier);
    let person = home.run(&["call", "console", "--args", CLEAR]);
    person.expect(4);
    let person_token = person.error()["data"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let person_op = person.error()["data"]["operation_id"]
        .as_str()
        .unwrap()
        .to_string();

    let epoch = sim.domain_epoch();
    sim.reload(hera_connector_sim::Reload {
        downtime: Duration::from_millis(300),
        new_port: false,
    });
    assert!(sim.wait_ready_blocking(Duration::from_secs(20)));
    assert_ne!(sim.domain_epoch(), epoch, "the reload gave a new domain");

    // The agent's old token: refused, nothing runs, and the answer says how to get a new one.
    let mut p = agent();
    let stale = call(&mut p, Some(&agent_token));
    assert_eq!(stale["code"], "INVALID_APPROVAL_TOKEN", "{stale}");
    assert_eq!(clears(), 0, "a token from before the rotation never runs");
    let text = stale.to_string();
    assert!(
        text.contains("without") && text.contains("approval_token"),
        "the refusal names the re-approval path: {stale}"
    );
    let reasked = call(&mut p, None);
    assert_eq!(reasked["code"], "APPROVAL_REQUIRED", "{reasked}");
    let fresh = reasked["data"]["token"].clone();
    assert_ne!(fresh, agent_token);
    let done = call(&mut p, Some(&fresh));
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(done["operation_id"], reasked["data"]["operation_id"]);
    let again = call(&mut p, Some(&fresh));
    assert_eq!(
        again["replay"]["replayed"], true,
        "the repeat is the ledger's replay, not a second run: {again}"
    );
    assert_eq!(clears(), 1, "the agent's approved call ran exactly once");
    drop(p);
    record(&Row {
        fault: "secret_rotation_agent_token",
        outcome: stale["code"].as_str().unwrap_or("?").to_string(),
        final_outcome: "success".into(),
        effects: clears(),
        retried: true,
    });

    // The person's token: renewed for the same operation (same summary) and run once.
    let approve = format!("--approve={person_token}");
    let r = home.run(&["call", "console", "--args", CLEAR, &approve]);
    r.expect(0);
    assert!(
        r.stderr.contains("renewing it for the same operation"),
        "{}",
        r.stderr
    );
    assert!(
        sim.ledger_entry(&person_op).unwrap().is_some(),
        "ran under the approved operation id {person_op}"
    );
    let repeat = home.run(&["call", "console", "--args", CLEAR, &approve]);
    assert_eq!(
        clears(),
        2,
        "the person's call ran exactly once: {}",
        repeat.stderr
    );
    record(&Row {
        fault: "secret_rotation_person_token",
        outcome: "renewed".into(),
        final_outcome: outcome_of(&r),
        effects: clears() - 1,
        retried: false,
    });
}

fn spawn_create(home: &Home, timeout_ms: &str) -> std::process::Child {
    Command::new(BIN)
        .args(create_args("Matrix", OP))
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("USERPROFILE", home.path())
        .env("HERA_AGENT_TIMEOUT_MS", timeout_ms)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("binary runs")
}

fn wait_child(child: &mut std::process::Child, limit: Duration) -> Option<i32> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// 1,000 (or `HERA_SOAK_MUTATIONS`) mutations, each under a random reset or reload with some
/// probability, each retried with its operation id until it succeeds: exactly once each.
#[test]
#[ignore = "minutes long; run by tools/reliability/run"]
fn randomized_soak() {
    let n: u64 = std::env::var("HERA_SOAK_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let home = Home::new();
    let sim = editor(&home);
    let mut seed: u64 = 0x5eed_1234_abcd_0001;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut resets, mut reloads, mut retries) = (0u64, 0u64, 0u64);
    let started = Instant::now();
    for i in 0..n {
        match next() % 10 {
            0 => {
                resets += 1;
                on_create(&sim, Fault::ResetAfterExecute { times: 1 });
            }
            1 => {
                reloads += 1;
                on_create(
                    &sim,
                    Fault::ReloadAfterCommit {
                        downtime_ms: 150,
                        new_port: next() % 2 == 0,
                    },
                );
            }
            _ => {}
        }
        let op = format!("op_soak_{i:010}");
        let name = format!("Soak{i}");
        let mut r = run_create(&home, &name, &op, "20000");
        let mut tries = 0;
        while r.code != 0 && tries < 5 {
            tries += 1;
            retries += 1;
            sim.clear_faults();
            r = run_create(&home, &name, &op, "20000");
        }
        assert_eq!(r.code, 0, "mutation {i} never succeeded: {}", r.stderr);
        sim.clear_faults();
        assert_eq!(creates(&sim), i + 1, "mutation {i}: not exactly once");
    }
    let duplicates = creates(&sim) - n;
    eprintln!(
        "soak: {n} mutations, {resets} resets, {reloads} reloads, {retries} retries, {duplicates} duplicates, {:.0} s",
        started.elapsed().as_secs_f64()
    );
    if let Ok(path) = std::env::var("HERA_RELIABILITY_OUT") {
        use std::io::Write;
        let line = json!({"kind": "soak", "mutations": n, "resets": resets, "reloads": reloads,
            "retries": retries, "effects": creates(&sim), "duplicates": duplicates});
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        writeln!(f, "{line}").unwrap();
    }
    assert_eq!(duplicates, 0);
}
