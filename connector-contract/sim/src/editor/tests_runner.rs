//! `run_tests`: a configurable NUnit-like suite, synchronous EditMode runs, and async runs over
//! the file bus (connector-contract/README.md §7.1): `running` + `test-pending-<port>-<run_id>.json`,
//! then `test-results-<port>-<run_id>.json` plus the legacy `test-results-<port>.json`.
//!
//! `TEST_RUN_ALREADY_RUNNING` follows the Connector's own rule, read from the status directory:
//! an owned pending record without a result file, whose owner is this Editor or a live process,
//! blocks; records with a result are cleared; records of dead owners are completed as
//! `TEST_RUN_INTERRUPTED` and do not block.

use super::args::{Args, Fail};
use super::file_bus::{self, FileEnvelope};
use super::{Editor, Handled, HandlerOutcome, Invocation, InvokeContext, ok};
use hera_connector_contract::wire::{TestPending, file_bus as names};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestMode {
    EditMode,
    PlayMode,
}

impl TestMode {
    pub fn as_str(self) -> &'static str {
        match self {
            TestMode::EditMode => "EditMode",
            TestMode::PlayMode => "PlayMode",
        }
    }
    fn parse(s: &str) -> Option<TestMode> {
        match s.to_ascii_lowercase().as_str() {
            "editmode" => Some(TestMode::EditMode),
            "playmode" => Some(TestMode::PlayMode),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum TestOutcome {
    Passed,
    Failed { message: String },
    Skipped { reason: String },
}

/// One test of the simulated suite.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    /// `Namespace.Class.Method`
    pub full_name: String,
    pub mode: TestMode,
    pub assembly: String,
    pub categories: Vec<String>,
    pub outcome: TestOutcome,
}

impl TestCase {
    fn new(full_name: &str, mode: TestMode, outcome: TestOutcome) -> TestCase {
        TestCase {
            full_name: full_name.into(),
            mode,
            assembly: match mode {
                TestMode::EditMode => "Tests.EditMode".into(),
                TestMode::PlayMode => "Tests.PlayMode".into(),
            },
            categories: Vec::new(),
            outcome,
        }
    }
    pub fn passing(full_name: &str, mode: TestMode) -> TestCase {
        TestCase::new(full_name, mode, TestOutcome::Passed)
    }
    pub fn failing(full_name: &str, mode: TestMode, message: &str) -> TestCase {
        TestCase::new(
            full_name,
            mode,
            TestOutcome::Failed {
                message: message.into(),
            },
        )
    }
    pub fn skipped(full_name: &str, mode: TestMode, reason: &str) -> TestCase {
        TestCase::new(
            full_name,
            mode,
            TestOutcome::Skipped {
                reason: reason.into(),
            },
        )
    }
    pub fn in_category(mut self, category: &str) -> TestCase {
        self.categories.push(category.into());
        self
    }
    pub fn in_assembly(mut self, assembly: &str) -> TestCase {
        self.assembly = assembly.into();
        self
    }
}

#[derive(Debug, Clone)]
struct Run {
    run_id: String,
    port: u16,
    mode: TestMode,
    tests: Vec<TestCase>,
    selective: bool,
    due_ms: i64,
    /// Started under the pre-`run_id` contract: only `test-results-<port>.json` is written.
    legacy: bool,
}

#[derive(Debug)]
pub struct TestRunner {
    pub suite: Vec<TestCase>,
    runs: Vec<Run>,
    /// Answer async starts the way Connectors before `run_id` did (§7.1, §12.9).
    pub legacy_contract: bool,
    /// How long one test takes in a synchronous EditMode run (the reply waits for the run).
    pub sync_ms_per_test: i64,
}

impl TestRunner {
    pub fn new() -> TestRunner {
        use TestMode::*;
        let suite = vec![
            TestCase::passing("Game.Tests.PlayerControllerTests.SpeedIsPositive", EditMode)
                .in_category("Fast"),
            TestCase::passing(
                "Game.Tests.PlayerControllerTests.JumpHeightDefault",
                EditMode,
            )
            .in_category("Fast"),
            TestCase::passing(
                "Game.Tests.PlayerControllerTests.MoveChangesPosition",
                EditMode,
            ),
            TestCase::passing("Game.Tests.GameSettingsTests.DifficultyInRange", EditMode),
            TestCase::passing("Game.Tests.GameplayTests.PlayerFallsWithGravity", PlayMode)
                .in_category("Integration"),
            TestCase::passing("Game.Tests.GameplayTests.SceneLoads", PlayMode)
                .in_category("Integration"),
        ];
        TestRunner {
            suite,
            runs: Vec::new(),
            legacy_contract: false,
            sync_ms_per_test: 400,
        }
    }
}

impl Default for TestRunner {
    fn default() -> Self {
        TestRunner::new()
    }
}

fn split_list(s: Option<&str>) -> Vec<String> {
    s.unwrap_or("")
        .split([',', ';'])
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Filter: each term matches a test whose full name contains it (namespace, class or method),
/// case-insensitively. Categories and assemblies match exactly (case-insensitive).
fn select(
    suite: &[TestCase],
    mode: TestMode,
    filter: &[String],
    categories: &[String],
    assemblies: &[String],
) -> Vec<TestCase> {
    suite
        .iter()
        .filter(|t| t.mode == mode)
        .filter(|t| {
            filter.is_empty()
                || filter
                    .iter()
                    .any(|f| t.full_name.to_lowercase().contains(&f.to_lowercase()))
        })
        .filter(|t| {
            categories.is_empty()
                || t.categories
                    .iter()
                    .any(|c| categories.iter().any(|w| w.eq_ignore_ascii_case(c)))
        })
        .filter(|t| {
            assemblies.is_empty()
                || assemblies
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(&t.assembly))
        })
        .cloned()
        .collect()
}

/// The final envelope of a run (what the result file holds, and what a sync run returns): the
/// Connector's summary, where a failure is one `"<full name>: <message>"` string and a pass is a
/// full name; skipped tests are only counted.
fn envelope(tests: &[TestCase], selective: bool) -> FileEnvelope {
    let mut failures = Vec::new();
    let mut passes = Vec::new();
    let mut skipped = 0;
    for t in tests {
        match &t.outcome {
            TestOutcome::Passed => passes.push(json!(t.full_name)),
            TestOutcome::Failed { message } => {
                failures.push(json!(format!("{}: {message}", t.full_name)))
            }
            TestOutcome::Skipped { .. } => skipped += 1,
        }
    }
    let data = json!({
        "total": tests.len(), "passed": passes.len(), "failed": failures.len(), "skipped": skipped,
        "failures": failures, "passes": passes,
    });
    if tests.is_empty() && selective {
        return FileEnvelope {
            success: false,
            message: "No tests matched the given filter, category or assembly.".into(),
            code: Some("NO_TESTS_MATCHED".into()),
            suggestions: Some(vec![
                "List the available tests with run_tests {\"action\":\"list\"}.".into(),
                "Filters match namespace, class or method names; categories and assemblies match exactly.".into(),
            ]),
            data: Some(data),
            timings: None,
        };
    }
    if !failures.is_empty() {
        return FileEnvelope {
            success: false,
            message: format!("{} test(s) failed.", failures.len()),
            code: Some("TESTS_FAILED".into()),
            suggestions: None,
            data: Some(data),
            timings: None,
        };
    }
    FileEnvelope {
        success: true,
        message: format!("All {} test(s) passed.", passes.len()),
        code: None,
        suggestions: None,
        data: Some(data),
        timings: None,
    }
}

/// A cancelled or interrupted run's result file: a message-only error, no `data`.
fn failure(code: &str, message: String) -> FileEnvelope {
    FileEnvelope {
        success: false,
        message,
        code: Some(code.into()),
        suggestions: None,
        data: None,
        timings: None,
    }
}

/// Write a run's result: per-run file plus legacy copy, pending file dropped; a legacy-contract
/// run has only the legacy file.
fn finish_run(dir: &std::path::Path, run: &Run, env: &FileEnvelope) {
    if run.legacy {
        let _ = file_bus::write_json(dir, &names::test_results_legacy(run.port), env);
    } else {
        write_result(dir, run.port, &run.run_id, env);
    }
}

/// Write the per-run result and the legacy copy, then drop the pending file.
fn write_result(dir: &std::path::Path, port: u16, run_id: &str, env: &FileEnvelope) {
    if file_bus::write_json(dir, &names::test_results(port, run_id), env).is_ok() {
        let _ = file_bus::write_json(dir, &names::test_results_legacy(port), env);
        let _ = file_bus::remove(dir, &names::test_pending(port, run_id));
    }
}

fn owned(rec: &TestPending, ctx: &InvokeContext) -> bool {
    match &rec.project_id {
        Some(p) => p == ctx.project_id,
        None => rec.owner_pid == ctx.pid,
    }
}

/// Apply the §7.1 pending-record rule; returns the run id that blocks a new run, if any.
fn blocking_run(ed: &Editor, ctx: &InvokeContext) -> Option<String> {
    if let Some(r) = ed.tests.runs.first() {
        return Some(r.run_id.clone());
    }
    let dir = ctx.status_dir;
    for name in file_bus::list(dir, &format!("test-pending-{}-", ctx.port)) {
        let Some(v) = file_bus::read_json(&dir.join(&name)) else {
            continue;
        };
        let Ok(rec) = serde_json::from_value::<TestPending>(v) else {
            continue;
        };
        if !owned(&rec, ctx) {
            continue;
        }
        if file_bus::exists(dir, &names::test_results(rec.port, &rec.run_id)) {
            let _ = file_bus::remove(dir, &name);
            continue;
        }
        if rec.owner_pid == ctx.pid || file_bus::pid_alive(rec.owner_pid) {
            return Some(rec.run_id);
        }
        let env = failure(
            "TEST_RUN_INTERRUPTED",
            format!(
                "Test run {} was interrupted: its Editor process {} is no longer running.",
                rec.run_id, rec.owner_pid
            ),
        );
        write_result(dir, rec.port, &rec.run_id, &env);
    }
    None
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, ctx: &InvokeContext) -> Handled {
    if !ed.has_test_framework() {
        // The real tool only exists while the Unity Test Framework is installed (§7.1).
        return Err(Fail::new(
            "UNKNOWN_COMMAND",
            "Unknown command: run_tests (the com.unity.test-framework package is not installed).",
        )
        .with_data(json!({"package": "com.unity.test-framework"})));
    }
    match action {
        Some("list") => list(ed, a),
        Some("cancel") => cancel(ed, ctx),
        Some(other) => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
        None => start(ed, a, ctx),
    }
}

fn start(ed: &mut Editor, a: Args, ctx: &InvokeContext) -> Handled {
    let mode_text = a.req_str("mode")?;
    let mode = TestMode::parse(mode_text)
        .ok_or_else(|| Fail::invalid("mode", "expected EditMode or PlayMode"))?;
    if let Some(run_id) = blocking_run(ed, ctx) {
        return Err(Fail::new(
            "TEST_RUN_ALREADY_RUNNING",
            format!("Test run {run_id} is still running on port {}; wait for it or cancel it (run_tests {{\"action\":\"cancel\"}}).", ctx.port),
        )
        .with_data(json!({"run_id": run_id, "port": ctx.port})));
    }
    let filter_text = a.str("filter")?.unwrap_or("").to_string();
    let filter = split_list(Some(&filter_text));
    let categories = split_list(a.str("category")?);
    let assemblies = split_list(a.str("assembly")?);
    let selective = !(filter.is_empty() && categories.is_empty() && assemblies.is_empty());
    let tests = select(&ed.tests.suite, mode, &filter, &categories, &assemblies);
    let is_async = a.flag("async_results")? || mode == TestMode::PlayMode;
    if !is_async {
        // The synchronous path: the reply comes when the run finishes, and the router holds
        // the command lock all that time.
        let env = envelope(&tests, selective);
        let hold = ed.tests.sync_ms_per_test.saturating_mul(tests.len() as i64);
        return Ok(Invocation::from(match env.code {
            None => HandlerOutcome::Success {
                message: env.message,
                data: env.data,
            },
            Some(code) => HandlerOutcome::Error {
                code,
                message: env.message,
                data: env.data,
            },
        })
        .holding_lock_for(hold));
    }
    let run_id = file_bus::hex32();
    if ed.tests.legacy_contract {
        // Pre-run_id Connectors: no pending record, clients poll test-results-<port>.json.
        let _ = file_bus::remove(ctx.status_dir, &names::test_results_legacy(ctx.port));
        ed.tests.runs.push(Run {
            run_id,
            port: ctx.port,
            mode,
            tests,
            selective,
            due_ms: ctx.now_ms + ed.knobs.job_delay_ms,
            legacy: true,
        });
        return Ok(Invocation::ok("running", json!({"port": ctx.port})));
    }
    let pending = TestPending {
        port: ctx.port,
        run_id: run_id.clone(),
        filter: filter_text,
        mode: mode.as_str().into(),
        selective,
        nunit_guid: String::new(),
        owner_pid: ctx.pid,
        project_id: Some(ctx.project_id.to_string()),
    };
    if let Err(e) = file_bus::write_json(
        ctx.status_dir,
        &names::test_pending(ctx.port, &run_id),
        &pending,
    ) {
        return Err(Fail::new(
            "TEST_RUN_START_FAILED",
            format!("Could not write the pending test record: {e}"),
        ));
    }
    ed.tests.runs.push(Run {
        run_id: run_id.clone(),
        port: ctx.port,
        mode,
        tests,
        selective,
        due_ms: ctx.now_ms + ed.knobs.job_delay_ms,
        legacy: false,
    });
    Ok(Invocation::ok(
        "running",
        json!({"port": ctx.port, "run_id": run_id}),
    ))
}

/// `list`: without a selector, counts per assembly and category; with one, the matching tests
/// as `{full_name, assembly, categories}`.
fn list(ed: &Editor, a: Args) -> Handled {
    let mode_text = a
        .str("mode")?
        .map(str::trim)
        .unwrap_or("EditMode")
        .to_string();
    let mode = TestMode::parse(&mode_text)
        .ok_or_else(|| Fail::invalid("mode", "expected EditMode or PlayMode"))?;
    let limit = a.limit("limit", 200, 1, 2000)?;
    let filter = split_list(a.str("filter")?);
    let categories = split_list(a.str("category")?);
    let assemblies = split_list(a.str("assembly")?);
    let selective = !(filter.is_empty() && categories.is_empty() && assemblies.is_empty());
    let tests = select(&ed.tests.suite, mode, &filter, &categories, &assemblies);
    let total = tests.len();
    if !selective {
        let mut by_assembly: std::collections::BTreeMap<&str, usize> = Default::default();
        let mut by_category: std::collections::BTreeMap<&str, usize> = Default::default();
        for t in &tests {
            *by_assembly.entry(t.assembly.as_str()).or_default() += 1;
            for c in t.categories.iter().filter(|c| *c != "Uncategorized") {
                *by_category.entry(c.as_str()).or_default() += 1;
            }
        }
        let count = |m: std::collections::BTreeMap<&str, usize>| -> Vec<Value> {
            m.into_iter()
                .map(|(name, n)| json!({"name": name, "tests": n}))
                .collect()
        };
        let n_assemblies = by_assembly.len();
        return Ok(Invocation::ok(
            format!("{total} {mode_text} test(s) in {n_assemblies} assembly(ies)."),
            json!({"mode": mode_text, "total": total, "assemblies": count(by_assembly), "categories": count(by_category)}),
        )
        .with_hint("Narrow the list with filter, category or assembly to see test names."));
    }
    let items: Vec<Value> = tests
        .iter()
        .take(limit)
        .map(|t| json!({"full_name": t.full_name, "assembly": t.assembly, "categories": t.categories}))
        .collect();
    let returned = items.len();
    let inv = Invocation::ok(
        format!("{total} test(s) match in {mode_text}."),
        json!({"mode": mode_text, "total": total, "returned": returned, "truncated": returned < total, "tests": items}),
    );
    Ok(if returned < total {
        inv.with_hint("Raise limit or narrow the selector to see every match.")
    } else if total == 0 {
        inv.with_hint(
            "Nothing matched; list without a selector to see the assemblies and categories.",
        )
    } else {
        inv
    })
}

fn cancel(ed: &mut Editor, ctx: &InvokeContext) -> Handled {
    let dir = ctx.status_dir;
    let mut run_ids = Vec::new();
    for run in std::mem::take(&mut ed.tests.runs) {
        let env = failure(
            "TEST_RUN_CANCELLED",
            format!("Test run {} was cancelled.", run.run_id),
        );
        finish_run(dir, &run, &env);
        run_ids.push(run.run_id);
    }
    // Pending records this Editor owns but no longer tracks (e.g. written before a restart).
    for name in file_bus::list(dir, &format!("test-pending-{}-", ctx.port)) {
        let Some(rec) = file_bus::read_json(&dir.join(&name))
            .and_then(|v| serde_json::from_value::<TestPending>(v).ok())
        else {
            continue;
        };
        if !owned(&rec, ctx) || file_bus::exists(dir, &names::test_results(rec.port, &rec.run_id)) {
            continue;
        }
        let env = failure(
            "TEST_RUN_CANCELLED",
            format!("Test run {} was cancelled.", rec.run_id),
        );
        write_result(dir, rec.port, &rec.run_id, &env);
        run_ids.push(rec.run_id);
    }
    if run_ids.is_empty() {
        return ok("No test run was active.", json!({"was_running": false}));
    }
    ok(
        format!("Cancelled {} test run(s).", run_ids.len()),
        json!({"was_running": true, "run_ids": run_ids, "nunit_cancel_requested": true}),
    )
}

/// Finish runs whose time has come.
pub fn complete_due(ed: &mut Editor, ctx: &InvokeContext) {
    let now = ctx.now_ms;
    let (due, waiting): (Vec<Run>, Vec<Run>) = std::mem::take(&mut ed.tests.runs)
        .into_iter()
        .partition(|r| r.due_ms <= now);
    ed.tests.runs = waiting;
    for run in due {
        finish_run(ctx.status_dir, &run, &envelope(&run.tests, run.selective));
    }
}

/// A domain reload kills EditMode runs (PlayMode runs are built to survive one).
pub fn interrupt_edit_mode(ed: &mut Editor, ctx: &InvokeContext) {
    let (edit, play): (Vec<Run>, Vec<Run>) = std::mem::take(&mut ed.tests.runs)
        .into_iter()
        .partition(|r| r.mode == TestMode::EditMode);
    ed.tests.runs = play;
    for run in edit {
        let env = failure(
            "TEST_RUN_INTERRUPTED",
            format!(
                "EditMode test run {} was interrupted by a domain reload.",
                run.run_id
            ),
        );
        finish_run(ctx.status_dir, &run, &env);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use super::*;

    fn start_async(h: &mut Harness, params: Value) -> String {
        match h.call("run_tests", params).outcome {
            HandlerOutcome::Success {
                message,
                data: Some(d),
            } => {
                assert_eq!(message, "running");
                assert_eq!(d["port"], 8090);
                let id = d["run_id"].as_str().unwrap().to_string();
                assert_eq!(id.len(), 32);
                id
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn editor_async_run_writes_pending_then_results() {
        let mut h = Harness::new();
        let id = start_async(&mut h, json!({"mode": "EditMode", "async_results": true}));
        let pending = h.status().join(names::test_pending(8090, &id));
        let rec: TestPending =
            serde_json::from_value(file_bus::read_json(&pending).unwrap()).unwrap();
        assert_eq!(rec.mode, "EditMode");
        assert_eq!(rec.project_id.as_deref(), Some("sha256:test"));
        assert_eq!(
            h.err(
                "run_tests",
                json!({"mode": "EditMode", "async_results": true})
            ),
            "TEST_RUN_ALREADY_RUNNING"
        );
        let _ = h.advance(1_000);
        assert!(!pending.exists());
        let text =
            std::fs::read_to_string(h.status().join(names::test_results(8090, &id))).unwrap();
        assert!(
            text.starts_with("{\"success\":true,\"message\":\"All 4 test(s) passed.\",\"data\":"),
            "{text}"
        );
        assert!(text.ends_with(",\"timings\":null}"));
        let legacy =
            std::fs::read_to_string(h.status().join(names::test_results_legacy(8090))).unwrap();
        assert_eq!(legacy, text);
        // Free again.
        start_async(&mut h, json!({"mode": "PlayMode"}));
    }

    #[test]
    fn editor_failures_no_match_sync_and_cancel() {
        let mut h = Harness::new();
        h.ed.set_test_suite(vec![
            TestCase::passing("A.B.Ok", TestMode::EditMode),
            TestCase::failing("A.B.Broken", TestMode::EditMode, "Expected 1 but was 2"),
        ]);
        let id = start_async(&mut h, json!({"mode": "EditMode", "async_results": true}));
        let _ = h.advance(1_000);
        let v = file_bus::read_json(&h.status().join(names::test_results(8090, &id))).unwrap();
        assert_eq!(v["code"], "TESTS_FAILED");
        assert_eq!(v["data"]["failed"], 1);
        // The Connector's summary: failures as "<full name>: <message>", passes as full names.
        assert_eq!(
            v["data"]["failures"],
            json!(["A.B.Broken: Expected 1 but was 2"])
        );
        assert_eq!(v["data"]["passes"], json!(["A.B.Ok"]));
        assert_eq!(v["message"], "1 test(s) failed.");

        let id = start_async(
            &mut h,
            json!({"mode": "EditMode", "async_results": true, "filter": "Nothing"}),
        );
        let _ = h.advance(1_000);
        let v = file_bus::read_json(&h.status().join(names::test_results(8090, &id))).unwrap();
        assert_eq!(v["code"], "NO_TESTS_MATCHED");
        assert!(v["suggestions"].is_array());

        // Synchronous EditMode.
        assert_eq!(
            h.ok("run_tests", json!({"mode": "EditMode", "filter": "B.Ok"}))["passed"],
            1
        );
        assert_eq!(
            h.err("run_tests", json!({"mode": "EditMode"})),
            "TESTS_FAILED"
        );

        // Cancel.
        assert_eq!(
            h.ok("run_tests", json!({"action": "cancel"})),
            json!({"was_running": false})
        );
        let id = start_async(&mut h, json!({"mode": "PlayMode"}));
        let c = h.ok("run_tests", json!({"action": "cancel"}));
        assert_eq!(c["was_running"], true);
        assert_eq!(c["run_ids"], json!([id]));
        let v = file_bus::read_json(&h.status().join(names::test_results(8090, &id))).unwrap();
        assert_eq!(v["code"], "TEST_RUN_CANCELLED");
        assert!(
            v.get("data").is_none(),
            "cancelled results carry no data: {v}"
        );
        assert!(!h.status().join(names::test_pending(8090, &id)).exists());
    }

    #[test]
    fn editor_reload_interrupts_edit_mode_and_dead_owners_do_not_block() {
        let mut h = Harness::new();
        let edit = start_async(&mut h, json!({"mode": "EditMode", "async_results": true}));
        h.reload();
        let v = file_bus::read_json(&h.status().join(names::test_results(8090, &edit))).unwrap();
        assert_eq!(v["code"], "TEST_RUN_INTERRUPTED");

        // A stale record from a dead process of the same project.
        let stale = TestPending {
            port: 8090,
            run_id: "deadbeefdeadbeefdeadbeefdeadbeef".into(),
            filter: String::new(),
            mode: "EditMode".into(),
            selective: false,
            nunit_guid: String::new(),
            owner_pid: 999_999_999,
            project_id: Some("sha256:test".into()),
        };
        file_bus::write_json(
            &h.status(),
            &names::test_pending(8090, &stale.run_id),
            &stale,
        )
        .unwrap();
        start_async(&mut h, json!({"mode": "EditMode", "async_results": true}));
        let v = file_bus::read_json(&h.status().join(names::test_results(8090, &stale.run_id)))
            .unwrap();
        assert_eq!(v["code"], "TEST_RUN_INTERRUPTED");

        // The pre-run_id contract.
        h.ok("run_tests", json!({"action": "cancel"}));
        h.ed.set_legacy_test_contract(true);
        let d = h.ok(
            "run_tests",
            json!({"mode": "EditMode", "async_results": true}),
        );
        assert_eq!(d, json!({"port": 8090}));
        let _ = h.advance(1_000);
        let v = file_bus::read_json(&h.status().join(names::test_results_legacy(8090))).unwrap();
        assert_eq!(v["message"], "All 4 test(s) passed.");
        h.ed.set_legacy_test_contract(false);

        // Without a selector: counts per assembly and category, no test names.
        let listed = h.ok("run_tests", json!({"action": "list", "mode": "PlayMode"}));
        assert_eq!(listed["total"], 2);
        assert_eq!(listed["mode"], "PlayMode");
        assert!(listed["assemblies"][0]["tests"].is_u64(), "{listed}");
        assert!(listed.get("tests").is_none(), "{listed}");
        // With one: {full_name, assembly, categories} entries.
        let fast = h.ok("run_tests", json!({"action": "list", "category": "Fast"}));
        assert_eq!(fast["total"], 2);
        assert_eq!(fast["returned"], 2);
        let keys: Vec<&String> = fast["tests"][0].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["assembly", "categories", "full_name"]);
    }
}
