//! Interop with real, independently written MCP clients: the real `hera-agent-unity` binary over
//! real stdio, a simulated Editor over real HTTP on 127.0.0.1, and pinned client SDKs driving it.
//!
//! The clients are installed by `.ci/run` into `tests/interop/` (npm lockfile + pinned venv) and
//! announced through `HERA_INTEROP_DIR`. They are `#[ignore]`d, so a plain `cargo test` shows them
//! as ignored instead of passing without clients; `.ci/run` installs the clients and runs them
//! with `--ignored`, and then a missing client is a failure, so CI can never go green by skipping. Each driver in `tests/interop/` runs the same scenario (list, search,
//! describe, a read call, a mutation, a bad call) and prints one JSON summary line that is
//! asserted here step by step.
//!
//! Runtimes: the SDK drivers run on the machine's `node` (20, what MCP hosts commonly ship) and
//! the venv's Python; the conformance suite needs Node >= 22, which comes from the npm `node`
//! package inside the interop dir.

use hera_connector_sim::{SimConfig, Simulator};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Bound on one driver run; the drivers bound themselves at 240 s and every request at 60 s.
const DRIVER_LIMIT: Duration = Duration::from_secs(300);
/// Bound on the conformance run (nine scenarios, each bounded by the suite and the runner).
const CONFORMANCE_LIMIT: Duration = Duration::from_secs(600);

/// The steps every driver must report, in order, all ok.
const SCENARIO_STEPS: [&str; 10] = [
    "connect",
    "protocol",
    "tools/list",
    "annotations",
    "tool_search",
    "tool_describe",
    "tool_call:scene.info",
    "tool_call:manage_gameobject.create",
    "tool_call:find_gameobjects.verify",
    "tool_call:bad_arguments",
];

/// Where the installed clients are. These tests are ignored unless asked for; once asked for,
/// missing clients are a failure, never a silent pass.
fn interop_dir() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("HERA_INTEROP_DIR").map(PathBuf::from) else {
        panic!(
            "HERA_INTEROP_DIR is not set; run `bash .ci/run`, which installs the pinned clients \
             into tests/interop and runs these tests"
        );
    };
    let needed = [
        "node_modules/@modelcontextprotocol/sdk/package.json",
        "node_modules/@modelcontextprotocol/client/package.json",
        "node_modules/@modelcontextprotocol/conformance/dist/index.js",
        "node_modules/node/bin/node",
        ".venv/bin/python",
    ];
    let missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|p| !dir.join(p).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "HERA_INTEROP_DIR={} lacks {missing:?}; rerun `bash .ci/run` to install the clients",
        dir.display()
    );
    Some(dir)
}

/// A temporary HOME with one simulated Editor for `<home>/Projects/InteropProject`.
struct Stage {
    home: tempfile::TempDir,
    project: PathBuf,
    _editor: Simulator,
}

impl Stage {
    fn new() -> Stage {
        let home = tempfile::tempdir().expect("temp home");
        let project = home.path().join("Projects").join("InteropProject");
        std::fs::create_dir_all(project.join("Assets")).expect("project dir");
        let cfg = SimConfig::new(
            home.path().to_path_buf(),
            project.to_string_lossy().into_owned(),
        );
        let editor = Simulator::start_background(cfg).expect("simulator starts");
        Stage {
            home,
            project,
            _editor: editor,
        }
    }
}

/// One finished driver run.
struct Run {
    summary: Value,
    stdout: String,
    stderr: String,
}

/// Runs `program args..` with a cleared environment (HOME = the stage's home) under `limit`,
/// then parses its one-line JSON summary. Panics with everything it saw if there is none.
fn run_driver(stage: &Stage, program: &Path, args: &[String], limit: Duration) -> Run {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", stage.home.path())
        .env("RUST_LOG", "warn")
        .current_dir(&stage.project)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    // Drain both pipes on threads so a chatty child never blocks on a full pipe.
    let mut out_pipe = child.stdout.take().expect("stdout");
    let mut err_pipe = child.stderr.take().expect("stderr");
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out_pipe.read_to_string(&mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err_pipe.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let mut timed_out = false;
    loop {
        if child.try_wait().expect("wait on driver").is_some() {
            break;
        }
        if started.elapsed() > limit {
            timed_out = true;
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let stdout = out_thread.join().unwrap_or_default();
    let stderr = err_thread.join().unwrap_or_default();
    assert!(
        !timed_out,
        "{} {args:?} ran past {limit:?} and was killed\nstdout:\n{stdout}\nstderr (tail):\n{}",
        program.display(),
        tail(&stderr)
    );
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "a driver prints exactly one JSON summary line on stdout\nstdout:\n{stdout}\nstderr (tail):\n{}",
        tail(&stderr)
    );
    let summary: Value = serde_json::from_str(lines[0]).unwrap_or_else(|e| {
        panic!(
            "summary is not JSON ({e}): {}\nstderr (tail):\n{}",
            lines[0],
            tail(&stderr)
        )
    });
    Run {
        summary,
        stdout,
        stderr,
    }
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(60)..].join("\n")
}

fn server_command() -> Vec<String> {
    vec![
        "--".into(),
        env!("CARGO_BIN_EXE_hera-agent-unity").into(),
        "mcp".into(),
        "--transport".into(),
        "stdio".into(),
    ]
}

/// Asserts the scenario's steps all passed, in order, and returns the summary for extra checks.
#[track_caller]
fn assert_scenario<'a>(run: &'a Run, expect_protocol: &str) -> &'a Value {
    let s = &run.summary;
    let context = || {
        format!(
            "summary:\n{}\nserver/driver stderr (tail):\n{}",
            serde_json::to_string_pretty(s).unwrap_or_default(),
            tail(&run.stderr)
        )
    };
    let steps = s["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no steps\n{}", context()));
    let failed: Vec<String> = steps
        .iter()
        .filter(|st| st["ok"] != Value::Bool(true))
        .map(|st| {
            format!(
                "{}: {}",
                st["step"].as_str().unwrap_or("?"),
                st["reason"].as_str().unwrap_or("?")
            )
        })
        .collect();
    assert!(
        failed.is_empty(),
        "failed steps: {failed:#?}\n{}",
        context()
    );
    let names: Vec<&str> = steps.iter().filter_map(|st| st["step"].as_str()).collect();
    assert_eq!(
        names,
        SCENARIO_STEPS,
        "the driver ran a different scenario\n{}",
        context()
    );
    assert_eq!(
        s["protocol_version"],
        expect_protocol,
        "negotiated protocol\n{}",
        context()
    );
    assert_eq!(s["failed"], 0, "{}", context());
    let listed = &steps[2]["tools"];
    assert_eq!(
        listed,
        &serde_json::json!(["tool_call", "tool_describe", "tool_search"]),
        "{}",
        context()
    );
    for st in &steps[4..] {
        assert_eq!(
            st["schema_valid"],
            true,
            "step {} did not validate its structuredContent\n{}",
            st["step"],
            context()
        );
    }
    let created = &steps[7];
    assert!(
        created["operation_id"]
            .as_str()
            .is_some_and(|o| !o.is_empty()),
        "a successful mutation reports its operation id\n{}",
        context()
    );
    let bad = &steps[9];
    assert_eq!(bad["is_error"], true, "{}", context());
    assert!(
        bad["code"].as_str().is_some_and(|c| !c.is_empty()),
        "bad arguments must carry a structured code\n{}",
        context()
    );
    assert!(
        run.stdout.ends_with('\n'),
        "summary line is newline-terminated"
    );
    eprintln!(
        "interop: {} {} ({}) negotiated {}: {} steps ok; bad arguments -> {}",
        s["driver"].as_str().unwrap_or("?"),
        s["client"]["version"].as_str().unwrap_or("?"),
        s["negotiation"].as_str().unwrap_or("?"),
        s["protocol_version"].as_str().unwrap_or("?"),
        steps.len(),
        bad["code"].as_str().unwrap_or("?")
    );
    s
}

fn node() -> PathBuf {
    PathBuf::from("node")
}

#[test]
#[ignore = "needs the real MCP clients that .ci/run installs; .ci/run runs these with --ignored"]
fn ts_sdk_v1_handshake_2025_11_25() {
    let Some(dir) = interop_dir() else { return };
    let stage = Stage::new();
    let mut args = vec![
        dir.join("ts-sdk-v1.mjs").to_string_lossy().into_owned(),
        "--home".into(),
        stage.home.path().to_string_lossy().into_owned(),
        "--cwd".into(),
        stage.project.to_string_lossy().into_owned(),
        "--expect-protocol".into(),
        "2025-11-25".into(),
    ];
    args.extend(server_command());
    let run = run_driver(&stage, &node(), &args, DRIVER_LIMIT);
    let s = assert_scenario(&run, "2025-11-25");
    assert_eq!(s["client"]["version"], "1.32.2", "the pinned TS SDK v1 ran");
}

fn ts_sdk_v2(negotiation: &str) -> Run {
    let dir = interop_dir().expect("checked by the caller");
    let stage = Stage::new();
    let mut args = vec![
        dir.join("ts-sdk-v2.mjs").to_string_lossy().into_owned(),
        "--home".into(),
        stage.home.path().to_string_lossy().into_owned(),
        "--cwd".into(),
        stage.project.to_string_lossy().into_owned(),
        "--negotiation".into(),
        negotiation.into(),
        "--expect-protocol".into(),
        "2026-07-28".into(),
    ];
    args.extend(server_command());
    run_driver(&stage, &node(), &args, DRIVER_LIMIT)
}

#[test]
#[ignore = "needs the real MCP clients that .ci/run installs; .ci/run runs these with --ignored"]
fn ts_sdk_v2_pinned_2026_07_28() {
    if interop_dir().is_none() {
        return;
    }
    let run = ts_sdk_v2("2026-07-28");
    let s = assert_scenario(&run, "2026-07-28");
    assert_eq!(s["client"]["version"], "2.4.0", "the pinned TS SDK v2 ran");
    assert_eq!(
        s["era"], "modern",
        "a pinned 2026-07-28 connection is in the stateless era"
    );
}

#[test]
#[ignore = "needs the real MCP clients that .ci/run installs; .ci/run runs these with --ignored"]
fn ts_sdk_v2_auto_negotiates_2026_07_28() {
    if interop_dir().is_none() {
        return;
    }
    let run = ts_sdk_v2("auto");
    let s = assert_scenario(&run, "2026-07-28");
    assert_eq!(
        s["era"], "modern",
        "auto negotiation should reach the newest shared revision"
    );
}

#[test]
#[ignore = "needs the real MCP clients that .ci/run installs; .ci/run runs these with --ignored"]
fn python_sdk_auto_negotiates_2026_07_28() {
    let Some(dir) = interop_dir() else { return };
    let stage = Stage::new();
    let mut args = vec![
        dir.join("py_sdk.py").to_string_lossy().into_owned(),
        "--home".into(),
        stage.home.path().to_string_lossy().into_owned(),
        "--cwd".into(),
        stage.project.to_string_lossy().into_owned(),
        "--mode".into(),
        "auto".into(),
        "--expect-protocol".into(),
        "2026-07-28".into(),
    ];
    args.extend(server_command());
    let run = run_driver(&stage, &dir.join(".venv/bin/python"), &args, DRIVER_LIMIT);
    let s = assert_scenario(&run, "2026-07-28");
    assert_eq!(s["client"]["version"], "2.3.0", "the pinned Python SDK ran");
}

#[test]
#[ignore = "needs the real MCP clients that .ci/run installs; .ci/run runs these with --ignored"]
fn conformance_suite_protocol_scenarios_pass() {
    let Some(dir) = interop_dir() else { return };
    let stage = Stage::new();
    let out = stage.home.path().join("conformance-results");
    let mut args = vec![
        dir.join("conformance.mjs").to_string_lossy().into_owned(),
        "--home".into(),
        stage.home.path().to_string_lossy().into_owned(),
        "--cwd".into(),
        stage.project.to_string_lossy().into_owned(),
        "--out".into(),
        out.to_string_lossy().into_owned(),
    ];
    args.extend(server_command());
    let run = run_driver(
        &stage,
        &dir.join("node_modules/node/bin/node"),
        &args,
        CONFORMANCE_LIMIT,
    );
    let s = &run.summary;
    let context = || {
        format!(
            "summary:\n{}\nstderr (tail):\n{}",
            serde_json::to_string_pretty(s).unwrap_or_default(),
            tail(&run.stderr)
        )
    };
    let chosen: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("conformance-scenarios.json"))
            .expect("conformance-scenarios.json"),
    )
    .expect("conformance-scenarios.json is JSON");
    let chosen = chosen["scenarios"].as_array().expect("scenarios");
    let results = s["scenarios"]
        .as_array()
        .unwrap_or_else(|| panic!("no scenarios\n{}", context()));
    assert_eq!(
        results.len(),
        chosen.len(),
        "every chosen scenario ran\n{}",
        context()
    );
    assert!(
        s["capabilities"]
            .as_array()
            .is_some_and(|c| c.iter().any(|x| x == "tools")),
        "the server declares tools\n{}",
        context()
    );
    for (want, got) in chosen.iter().zip(results) {
        assert_eq!(want["scenario"], got["scenario"], "{}", context());
        assert_eq!(want["spec_version"], got["spec_version"], "{}", context());
        let status = got["status"].as_str().unwrap_or("?");
        let conditional = want.get("requires_capability").is_some();
        assert!(
            status == "passed" || (conditional && status == "not-applicable"),
            "conformance {}@{}: {status}: {}\n{}",
            got["scenario"],
            got["spec_version"],
            got["reason"],
            context()
        );
    }
    assert_eq!(s["failed"], 0, "{}", context());
    let unconditional = chosen
        .iter()
        .filter(|c| c.get("requires_capability").is_none())
        .count() as u64;
    let passed = s["passed"].as_u64().unwrap_or(0);
    assert!(
        passed >= unconditional,
        "every unconditional scenario passed\n{}",
        context()
    );
    eprintln!(
        "interop: conformance {passed} scenario(s) passed, {} not applicable",
        s["not_applicable"]
    );
}
