//! The simulated Unity Editor: an in-memory project (scenes, GameObjects, components, assets,
//! packages, settings, console, play mode) and the handlers of all 34 built-in tools.
//!
//! # Interface (the `/command` pipeline calls this at step 11 of connector-contract/README.md §2.5)
//!
//! ```text
//! let mut ed = Editor::new(project_path);
//! let inv = ed.invoke(tool, action, &params, &ctx);   // params already validated + coerced,
//!                                                     // action canonical (or None)
//! inv.outcome     -> envelope (see HandlerOutcome)
//! inv.reload      -> Some(ReloadRequest): perform a domain reload after responding, then call
//!                    ed.on_domain_reload(&ctx)
//! inv.play_state  -> Some("playing"|"paused"|"ready"): play mode changed, write a heartbeat now
//! inv.timings     -> tool timings to merge into the envelope's `timings` (only `exec` sets them)
//! ed.tick(&ctx)   -> MUST be called at least every 100 ms (the heartbeat loop is a good place):
//!                    completes due test runs, package jobs, builds and bakes, writing their
//!                    file-bus results without any further request. Returns a ReloadRequest when
//!                    a completed job needs a domain reload (package changes).
//! ed.editor_state() -> "ready" | "playing" | "paused" | "compiling" for the heartbeat
//! ed.compile_errors() -> heartbeat `compileErrors`
//! ```
//!
//! Why lazy completion plus `tick` instead of a task per job: all Editor state lives behind the
//! one command lock the core already holds, jobs complete deterministically in the order they were
//! started, and there is nothing to cancel or join on shutdown.
//!
//! Test knobs: [`Editor::set_test_suite`], [`Editor::set_job_delay`],
//! [`Editor::set_package_timeout`], [`Editor::set_package_stall`],
//! [`Editor::set_package_completion`], [`Editor::set_play_mode_reloads_domain`],
//! [`Editor::set_compile_errors`], [`Editor::set_legacy_test_contract`], [`Editor::log`].
//!
//! Layout: one file per tool family; the model pieces are `world` (scene graph), `asset_db`
//! (asset tree), `component_types`, `shaders`, `math`; `file_bus` writes status files.

mod animation;
mod args;
mod asset_db;
mod assets;
mod bake;
mod build;
mod component_types;
mod components;
mod console;
mod editor_state;
mod exec;
mod file_bus;
mod gameobjects;
mod guides;
mod input;
mod materials;
mod math;
mod menu;
mod packages;
mod png;
mod prefabs;
mod profiler;
mod reflection;
mod scene;
mod screenshot;
mod seed;
mod settings;
mod shaders;
mod tests_runner;
mod timeline;
mod ui;
mod world;

pub use args::Fail;
pub use packages::PackageCompletion;
pub use tests_runner::{TestCase, TestMode, TestOutcome};

use args::Args;
use serde_json::{Map, Value, json};
use std::path::Path;
use std::time::Duration;

/// What a handler needs to know about the process it runs in.
#[derive(Debug, Clone, Copy)]
pub struct InvokeContext<'a> {
    pub port: u16,
    pub project_id: &'a str,
    pub pid: i64,
    /// `<home>/.hera-agent-unity/status`
    pub status_dir: &'a Path,
    /// Unix epoch milliseconds (the simulator's clock, which tests may advance).
    pub now_ms: i64,
}

/// A handler's result, before the router wraps it (§2.4 / §2.5 step 11).
#[derive(Debug, Clone, PartialEq)]
pub enum HandlerOutcome {
    /// `{"success":true,"message":…,"data":…}`
    Success {
        message: String,
        data: Option<Value>,
    },
    /// `{"success":false,"message":…,"code":…,"data":…}`
    Error {
        code: String,
        message: String,
        data: Option<Value>,
    },
    /// A tool returning an arbitrary object or string, serialized verbatim without `timings`.
    Raw(Value),
    /// A null result: the router answers `"<tool>[:<action>] completed"`.
    Completed,
    /// The handler threw: `TOOL_ACTION_FAILED` / `TOOL_FAILED` with
    /// `"<tool>[:<action>] failed: <message>"`.
    Threw(String),
}

/// Why a handler asks for a domain reload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReloadReason {
    /// A package was added, removed or embedded.
    PackageChange,
    /// `refresh_unity {"compile":"request"}` or a settings change that recompiles scripts.
    ScriptCompile,
    /// Entering play mode with domain reload enabled.
    EnterPlayMode,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReloadRequest {
    pub reason: ReloadReason,
    /// Write a `compiling` heartbeat before the `reloading` one (§1.3).
    pub compile: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    pub outcome: HandlerOutcome,
    pub reload: Option<ReloadRequest>,
    /// The heartbeat state after this call when play mode changed.
    pub play_state: Option<String>,
    /// Tool-owned timings (only `exec`), merged into the envelope's `timings`.
    pub timings: Option<Map<String, Value>>,
    /// The handler is a task that completes this long after it started (a synchronous test
    /// run): the router awaits it holding the command lock.
    pub hold_ms: i64,
    /// An `agent_hint` on a success.
    pub agent_hint: Option<String>,
}

impl Invocation {
    pub(crate) fn ok(message: impl Into<String>, data: Value) -> Invocation {
        Invocation::from(HandlerOutcome::Success {
            message: message.into(),
            data: if data.is_null() { None } else { Some(data) },
        })
    }
    pub(crate) fn with_hint(mut self, hint: &str) -> Invocation {
        self.agent_hint = Some(hint.to_string());
        self
    }
    pub(crate) fn holding_lock_for(mut self, ms: i64) -> Invocation {
        self.hold_ms = ms.max(0);
        self
    }
    pub(crate) fn with_reload(mut self, reason: ReloadReason, compile: bool) -> Invocation {
        self.reload = Some(ReloadRequest { reason, compile });
        self
    }
}

impl From<HandlerOutcome> for Invocation {
    fn from(outcome: HandlerOutcome) -> Invocation {
        Invocation {
            outcome,
            reload: None,
            play_state: None,
            timings: None,
            hold_ms: 0,
            agent_hint: None,
        }
    }
}

impl From<Fail> for HandlerOutcome {
    fn from(f: Fail) -> HandlerOutcome {
        HandlerOutcome::Error {
            code: f.code,
            message: f.message,
            data: f.data,
        }
    }
}

pub(crate) type Handled = Result<Invocation, Fail>;

/// Shorthand for the common success case.
pub(crate) fn ok(message: impl Into<String>, data: Value) -> Handled {
    Ok(Invocation::ok(message, data))
}

type Handler = fn(&mut Editor, Option<&str>, Args, &InvokeContext) -> Handled;

/// Every built-in tool with its actions (sorted) and handler: connector-contract/README.md §13.
const TOOLS: &[(&str, &[&str], Handler)] = &[
    (
        "bake",
        &["cancel", "clear", "start", "status"],
        bake::handle,
    ),
    (
        "build",
        &[
            "add_scene",
            "get_settings",
            "list_targets",
            "remove_scene",
            "set_settings",
            "start",
            "status",
        ],
        build::handle,
    ),
    ("console", &[], console::handle_console),
    ("describe_shader", &[], shaders::describe),
    ("describe_type", &[], reflection::describe_type),
    ("detect_assets", &[], assets::detect),
    ("exec", &[], exec::handle),
    ("find_gameobjects", &[], gameobjects::find),
    ("find_method", &[], reflection::find_method),
    ("game_feel", &[], guides::game_feel),
    (
        "input",
        &[
            "click",
            "drag",
            "inspect",
            "keyboard",
            "mouse",
            "pointer_down",
            "pointer_up",
            "record",
            "replay",
            "scroll",
            "sequence",
            "state",
            "submit",
        ],
        input::handle,
    ),
    ("list_assemblies", &[], reflection::list_assemblies),
    ("log", &[], console::handle_log),
    (
        "manage_animation",
        &[
            "add_layer",
            "add_parameter",
            "add_state",
            "add_transition",
            "create_clip",
            "create_controller",
            "get_clip",
            "get_controller",
            "remove_curve",
            "set_curve",
        ],
        animation::handle,
    ),
    (
        "manage_asset_import",
        &["get", "set"],
        assets::import_settings,
    ),
    (
        "manage_assets",
        &[
            "copy", "create", "delete", "deps", "find", "import", "mkdir", "move",
        ],
        assets::handle,
    ),
    (
        "manage_components",
        &["add", "get", "list", "remove", "set"],
        components::handle,
    ),
    (
        "manage_editor",
        &[
            "add_layer",
            "add_tag",
            "focus",
            "get_selection",
            "get_tags_layers",
            "pause",
            "play",
            "remove_layer",
            "remove_tag",
            "set_active_tool",
            "set_selection",
            "stop",
        ],
        editor_state::handle,
    ),
    (
        "manage_gameobject",
        &[
            "create",
            "destroy",
            "duplicate",
            "get_transform",
            "move",
            "set_active",
            "set_layer",
            "set_name",
            "set_parent",
            "set_tag",
            "set_transform",
        ],
        gameobjects::handle,
    ),
    (
        "manage_material",
        &["create", "get", "set", "set_shader"],
        materials::handle,
    ),
    (
        "manage_packages",
        &["add", "embed", "list", "remove", "search"],
        packages::handle,
    ),
    (
        "manage_prefab",
        &[
            "add_component",
            "apply",
            "create",
            "instantiate",
            "list_overrides",
            "remove_component",
            "revert",
            "unpack",
        ],
        prefabs::handle,
    ),
    (
        "manage_settings",
        &[
            "get_audio",
            "get_graphics",
            "get_input",
            "get_lighting",
            "get_navmesh",
            "get_physics",
            "get_player",
            "get_quality",
            "get_time",
            "set_audio",
            "set_graphics",
            "set_input",
            "set_lighting",
            "set_navmesh",
            "set_physics",
            "set_player",
            "set_quality",
            "set_time",
        ],
        settings::handle,
    ),
    (
        "manage_timeline",
        &["add_clip", "add_track", "create", "get"],
        timeline::handle,
    ),
    (
        "manage_ui",
        &["create", "get_rect", "set_anchor", "set_rect"],
        ui::handle,
    ),
    ("menu", &["list"], menu::handle),
    (
        "profiler",
        &["clear", "disable", "enable", "hierarchy", "stats", "status"],
        profiler::handle,
    ),
    ("refresh_unity", &[], assets::refresh),
    ("reserialize", &[], assets::reserialize),
    ("run_tests", &["cancel", "list"], tests_runner::handle),
    (
        "scene",
        &[
            "close",
            "create",
            "hierarchy",
            "info",
            "list",
            "load",
            "save",
            "save_all",
            "set_active",
        ],
        scene::handle,
    ),
    ("screenshot", &[], screenshot::handle),
    ("ui_slop", &[], guides::ui_slop),
    ("unity_docs", &[], reflection::unity_docs),
];

/// Names of the built-in tools with their sorted action names.
pub fn builtin_tools() -> impl Iterator<Item = (&'static str, &'static [&'static str])> {
    TOOLS.iter().map(|(n, a, _)| (*n, *a))
}

/// Knobs tests turn; defaults model a healthy, quick Editor.
#[derive(Debug, Clone)]
pub(crate) struct Knobs {
    pub job_delay_ms: i64,
    pub play_mode_reloads_domain: bool,
}

/// Where the project's files live on disk.
enum ProjectDisk {
    Given(std::path::PathBuf),
    Owned(tempfile::TempDir),
}

impl ProjectDisk {
    fn for_project(project_path: &str) -> ProjectDisk {
        let given = std::path::Path::new(project_path);
        if given.is_dir() {
            return ProjectDisk::Given(given.to_path_buf());
        }
        match tempfile::Builder::new()
            .prefix("hera-sim-project-")
            .tempdir()
        {
            Ok(t) => ProjectDisk::Owned(t),
            // Without a writable temp folder, writes fail with their own error, as on a
            // read-only project folder.
            Err(_) => ProjectDisk::Given(given.to_path_buf()),
        }
    }
}

/// The whole simulated Editor. Fields are crate-visible so each tool module edits its part.
pub struct Editor {
    pub(crate) project_path: String,
    /// The project folder on disk; see [`Editor::project_dir`].
    disk: ProjectDisk,
    pub(crate) world: world::World,
    pub(crate) assets: asset_db::AssetDb,
    pub(crate) console: console::Console,
    pub(crate) chrome: editor_state::Chrome,
    pub(crate) play: editor_state::Play,
    pub(crate) compile_errors: bool,
    /// Set while a requested compile/reload is pending (heartbeat `compiling`).
    pub(crate) compiling_since_ms: Option<i64>,
    pub(crate) settings: settings::Settings,
    pub(crate) profiler: profiler::Profiler,
    pub(crate) packages: packages::Packages,
    pub(crate) tests: tests_runner::TestRunner,
    pub(crate) build: build::BuildState,
    pub(crate) bake: bake::BakeState,
    pub(crate) input: input::InputState,
    pub(crate) exec_cache: std::collections::HashSet<String>,
    pub(crate) knobs: Knobs,
    /// Reload requests raised by jobs completing in `tick`, handed to the core at the next
    /// `tick` or `invoke`.
    pub(crate) pending_reload: Option<ReloadRequest>,
    pub(crate) last_advance_ms: i64,
}

impl Editor {
    /// A fresh project at `project_path` with a sample scene loaded (see `seed`).
    pub fn new(project_path: &str) -> Editor {
        let mut ed = Editor {
            project_path: project_path.to_string(),
            disk: ProjectDisk::for_project(project_path),
            world: world::World::new(),
            assets: asset_db::AssetDb::new(),
            console: console::Console::default(),
            chrome: editor_state::Chrome::new(),
            play: editor_state::Play::default(),
            compile_errors: false,
            compiling_since_ms: None,
            settings: settings::Settings::new(project_path),
            profiler: profiler::Profiler::default(),
            packages: packages::Packages::new(),
            tests: tests_runner::TestRunner::new(),
            build: build::BuildState::new(),
            bake: bake::BakeState::default(),
            input: input::InputState::default(),
            exec_cache: Default::default(),
            knobs: Knobs {
                job_delay_ms: 300,
                play_mode_reloads_domain: false,
            },
            pending_reload: None,
            last_advance_ms: 0,
        };
        seed::populate(&mut ed);
        ed
    }

    pub fn project_path(&self) -> &str {
        &self.project_path
    }

    /// The folder that holds the project's files on disk (screenshots, input recordings): the
    /// project folder itself when it exists. A real Editor always owns its project folder, but a
    /// simulator may publish a path it cannot create (a macOS path on a Linux runner), so it then
    /// keeps the project's files in a private temporary folder of its own, removed on drop.
    pub fn project_dir(&self) -> &std::path::Path {
        match &self.disk {
            ProjectDisk::Given(p) => p,
            ProjectDisk::Owned(t) => t.path(),
        }
    }

    /// Run one tool call. Never panics on any params; unknown tools get the generic
    /// custom-tool handler (an echo of the call).
    pub fn invoke(
        &mut self,
        tool: &str,
        action: Option<&str>,
        params: &Map<String, Value>,
        ctx: &InvokeContext,
    ) -> Invocation {
        self.advance(ctx);
        let before = self.editor_state().to_string();
        let action = action.map(str::to_ascii_lowercase);
        let action = action.as_deref().filter(|a| !a.is_empty());
        let mut inv = match TOOLS.iter().find(|(n, _, _)| *n == tool) {
            None => custom_tool(tool, action, params),
            Some((_, actions, handler)) => match action {
                Some(a) if !actions.contains(&a) => Invocation::from(HandlerOutcome::from(
                    Fail::new("UNKNOWN_ACTION", format!("Unknown action: {a}")).with_data(json!({
                        "path": "/action", "expected": actions, "actual": a
                    })),
                )),
                _ => match handler(self, action, Args(params), ctx) {
                    Ok(inv) => inv,
                    Err(fail) => Invocation::from(HandlerOutcome::from(fail)),
                },
            },
        };
        let after = self.editor_state();
        if inv.play_state.is_none() && after != before && after != "compiling" {
            inv.play_state = Some(after.to_string());
        }
        if inv.reload.is_none() {
            inv.reload = self.pending_reload.take();
        }
        inv
    }

    /// Complete due jobs and write their files. Call at least every 100 ms.
    #[must_use = "a returned ReloadRequest must be carried out by the core"]
    pub fn tick(&mut self, ctx: &InvokeContext) -> Option<ReloadRequest> {
        self.advance(ctx);
        self.pending_reload.take()
    }

    fn advance(&mut self, ctx: &InvokeContext) {
        let now = ctx.now_ms;
        let since = if self.last_advance_ms == 0 {
            now
        } else {
            self.last_advance_ms
        };
        self.last_advance_ms = now.max(self.last_advance_ms);
        self.profiler.advance(since, now, self.play.state);
        tests_runner::complete_due(self, ctx);
        if let Some(r) = packages::complete_due(self, ctx) {
            self.pending_reload.get_or_insert(r);
        }
        build::complete_due(self, ctx);
        bake::complete_due(self, now);
        // A requested compile that the core never turned into a reload ends after 30 s (§1.3).
        if self.compiling_since_ms.is_some_and(|t| now - t > 30_000) {
            self.compiling_since_ms = None;
        }
    }

    /// The heartbeat state this Editor is in.
    pub fn editor_state(&self) -> &str {
        if self.compiling_since_ms.is_some() {
            return "compiling";
        }
        match self.play.state {
            editor_state::PlayState::Edit => "ready",
            editor_state::PlayState::Playing => "playing",
            editor_state::PlayState::Paused => "paused",
        }
    }

    pub fn compile_errors(&self) -> bool {
        self.compile_errors
    }

    /// Called by the core after it carried out a domain reload: EditMode test runs in flight are
    /// interrupted, package jobs waiting for the reload are verified against the package list,
    /// a pending compile is over.
    pub fn on_domain_reload(&mut self, ctx: &InvokeContext) {
        self.compiling_since_ms = None;
        tests_runner::interrupt_edit_mode(self, ctx);
        packages::resume_after_reload(self, ctx);
        self.exec_cache.clear();
    }

    // ---- knobs for tests ----

    /// Replace the test suite `run_tests` runs and lists.
    pub fn set_test_suite(&mut self, suite: Vec<TestCase>) {
        self.tests.suite = suite;
    }
    /// Answer async `run_tests` starts the pre-`run_id` way (no run id, no pending record, only
    /// `test-results-<port>.json`), as legacy Connectors did.
    pub fn set_legacy_test_contract(&mut self, on: bool) {
        self.tests.legacy_contract = on;
    }
    /// How long async jobs (test runs, package jobs, builds, bakes) take.
    pub fn set_job_delay(&mut self, delay: Duration) {
        self.knobs.job_delay_ms = delay.as_millis().min(i64::MAX as u128) as i64;
    }
    /// How long each test of a synchronous EditMode run takes (default 400 ms): the reply, and
    /// every other command, waits for the whole run.
    pub fn set_sync_test_duration(&mut self, per_test: Duration) {
        self.tests.sync_ms_per_test = per_test.as_millis().min(i64::MAX as u128) as i64;
    }
    /// When a package job is declared `PACKAGE_TIMEOUT` (default 10 minutes, §7.2).
    pub fn set_package_timeout(&mut self, timeout: Duration) {
        self.packages.timeout_ms = timeout.as_millis().min(i64::MAX as u128) as i64;
    }
    /// Make new package jobs hang (Package Manager never answers) so they end in a timeout.
    pub fn set_package_stall(&mut self, stall: bool) {
        self.packages.stall = stall;
    }
    /// Choose how successful package jobs report (direct, verified after reload, resume faults).
    pub fn set_package_completion(&mut self, mode: PackageCompletion) {
        self.packages.completion = mode;
    }
    /// Whether entering play mode reloads the domain (Unity's default; off here by default).
    pub fn set_play_mode_reloads_domain(&mut self, on: bool) {
        self.knobs.play_mode_reloads_domain = on;
    }
    /// Simulate broken scripts: heartbeat `compileErrors`, console errors, blocked play/tests.
    pub fn set_compile_errors(&mut self, on: bool) {
        if on && !self.compile_errors {
            self.console.push(
                "error",
                "Assets/Scripts/PlayerController.cs(24,13): error CS1002: ; expected",
                "",
            );
        }
        self.compile_errors = on;
    }
    /// Write to the console (the core may log its own startup lines).
    pub fn log(&mut self, level: &str, message: &str) {
        self.console.push(level, message, "");
    }
    /// Open a project that already has this registry package installed (a direct dependency).
    pub fn add_installed_package(&mut self, name: &str, version: &str, display_name: &str) {
        if !self.packages.is_installed(name) {
            self.packages.installed.push(packages::Package {
                name: name.into(),
                version: version.into(),
                source: "registry".into(),
                display_name: display_name.into(),
                is_direct_dependency: true,
                resolved_path: String::new(),
            });
            self.packages.installed.sort_by(|a, b| a.name.cmp(&b.name));
        }
    }
    /// Whether `com.unity.test-framework` is installed; without it `run_tests` does not exist
    /// (§7.1) and the core should drop it from the catalog.
    pub fn has_test_framework(&self) -> bool {
        self.packages.is_installed("com.unity.test-framework")
    }
}

/// Runtime-added tools have no model behind them: echo the call so tests can see exactly what
/// arrived after validation and coercion.
fn custom_tool(tool: &str, action: Option<&str>, params: &Map<String, Value>) -> Invocation {
    let label = match action {
        Some(a) => format!("{tool}:{a}"),
        None => tool.to_string(),
    };
    Invocation::ok(
        format!("{label} handled by the simulator's generic custom-tool handler"),
        json!({ "tool": tool, "action": action, "params": params }),
    )
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A context over a temp status dir, with a settable clock.
    pub struct Harness {
        pub dir: tempfile::TempDir,
        pub now: i64,
        pub ed: Editor,
    }

    impl Harness {
        pub fn new() -> Harness {
            let dir = tempfile::tempdir().unwrap();
            let project = dir.path().join("Project");
            std::fs::create_dir_all(&project).unwrap();
            let ed = Editor::new(project.to_str().unwrap());
            Harness {
                dir,
                now: 1_767_225_600_000,
                ed,
            }
        }
        pub fn status(&self) -> std::path::PathBuf {
            self.dir.path().join("status")
        }
        pub fn call(&mut self, tool: &str, params: Value) -> Invocation {
            let status = self.status();
            let ctx = InvokeContext {
                port: 8090,
                project_id: "sha256:test",
                pid: std::process::id() as i64,
                status_dir: &status,
                now_ms: self.now,
            };
            let map = params.as_object().cloned().unwrap_or_default();
            let action = map
                .get("action")
                .and_then(Value::as_str)
                .map(str::to_string);
            self.ed.invoke(tool, action.as_deref(), &map, &ctx)
        }
        /// Call and require success; returns `data`.
        pub fn ok(&mut self, tool: &str, params: Value) -> Value {
            match self.call(tool, params.clone()).outcome {
                HandlerOutcome::Success { data, .. } => data.unwrap_or(Value::Null),
                other => panic!("{tool} {params} failed: {other:?}"),
            }
        }
        /// Call and require an error; returns its code.
        pub fn err(&mut self, tool: &str, params: Value) -> String {
            match self.call(tool, params.clone()).outcome {
                HandlerOutcome::Error { code, .. } => code,
                other => panic!("{tool} {params} unexpectedly gave {other:?}"),
            }
        }
        pub fn advance(&mut self, ms: i64) -> Option<ReloadRequest> {
            self.now += ms;
            let status = self.status();
            let ctx = InvokeContext {
                port: 8090,
                project_id: "sha256:test",
                pid: std::process::id() as i64,
                status_dir: &status,
                now_ms: self.now,
            };
            self.ed.tick(&ctx)
        }
        pub fn reload(&mut self) {
            let status = self.status();
            let ctx = InvokeContext {
                port: 8090,
                project_id: "sha256:test",
                pid: std::process::id() as i64,
                status_dir: &status,
                now_ms: self.now,
            };
            self.ed.on_domain_reload(&ctx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::Harness;
    use super::*;

    #[test]
    fn editor_inventory_is_34_tools_and_133_actions() {
        assert_eq!(TOOLS.len(), 34);
        assert_eq!(TOOLS.iter().map(|(_, a, _)| a.len()).sum::<usize>(), 133);
        for (_, actions, _) in TOOLS {
            let mut sorted = actions.to_vec();
            sorted.sort();
            assert_eq!(&sorted, actions);
        }
    }

    /// Every tool and action answers (success or a structured error) with empty params, and with
    /// junk-typed params, without panicking and without claiming the action is unknown.
    #[test]
    fn editor_every_action_answers_without_panicking() {
        let mut h = Harness::new();
        let junk = json!({"path": 5, "name": [], "target": {}, "value": null, "limit": "x",
                          "instance_id": "nope", "position": "1,2", "filter": 7});
        for (tool, actions, _) in TOOLS {
            let mut calls: Vec<Option<&str>> = actions.iter().map(|a| Some(*a)).collect();
            calls.push(None);
            for action in calls {
                for base in [json!({}), junk.clone()] {
                    let mut p = base.as_object().cloned().unwrap();
                    if let Some(a) = action {
                        p.insert("action".into(), json!(a));
                    }
                    let inv = h.call(tool, Value::Object(p));
                    if let HandlerOutcome::Error { code, .. } = &inv.outcome {
                        assert_ne!(code, "UNKNOWN_ACTION", "{tool} {action:?}");
                    }
                }
            }
        }
        // Jobs started above must complete cleanly too.
        let _ = h.advance(10_000);
    }

    #[test]
    fn editor_is_send_for_the_core_lock() {
        fn assert_send<T: Send + 'static>() {}
        assert_send::<Editor>();
    }

    #[test]
    fn editor_run_tests_vanishes_without_the_test_framework() {
        let mut h = Harness::new();
        assert!(h.ed.has_test_framework());
        let inv = h.call(
            "manage_packages",
            json!({"action": "remove", "identifier": "com.unity.test-framework"}),
        );
        assert!(
            matches!(inv.outcome, HandlerOutcome::Success { ref message, .. } if message == "running")
        );
        let reload = h.advance(1_000);
        assert_eq!(reload.map(|r| r.reason), Some(ReloadReason::PackageChange));
        h.reload();
        assert!(!h.ed.has_test_framework());
        assert_eq!(
            h.err("run_tests", json!({"mode": "EditMode"})),
            "UNKNOWN_COMMAND"
        );
    }

    #[test]
    fn editor_unknown_action_and_custom_tool() {
        let mut h = Harness::new();
        assert_eq!(h.err("scene", json!({"action": "bogus"})), "UNKNOWN_ACTION");
        let data = h.ok("my_custom", json!({"x": 1}));
        assert_eq!(data["tool"], "my_custom");
        assert_eq!(data["params"]["x"], 1);
    }
}
