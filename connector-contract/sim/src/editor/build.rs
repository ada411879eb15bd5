//! `build`: build settings (scene list, flags, targets) and player builds, whose report goes to
//! `status/build-result-<port>.json` (connector-contract/README.md §7.3).
//!
//! No player binary is written: the simulator has no engine to build with. The report's numbers
//! are derived from the project (scene and asset counts) so they change when the project does.

use super::args::{Args, Fail};
use super::asset_db::AssetKind;
use super::editor_state::PlayState;
use super::file_bus::{self, FileEnvelope};
use super::{Editor, Handled, InvokeContext, ok};
use hera_connector_contract::wire::file_bus as names;
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq)]
pub struct BuildScene {
    pub path: String,
    pub enabled: bool,
}

#[derive(Debug, Clone)]
struct Job {
    port: u16,
    started_ms: i64,
    due_ms: i64,
    target: String,
    output_path: String,
}

#[derive(Debug)]
pub struct BuildState {
    pub scenes: Vec<BuildScene>,
    pub target: String,
    pub development: bool,
    pub allow_debugging: bool,
    pub build_scripts_only: bool,
    job: Option<Job>,
    last_report: Option<Value>,
}

/// The standalone target of the machine the simulator runs on.
fn host_target() -> (&'static str, &'static str) {
    if cfg!(target_os = "windows") {
        ("StandaloneWindows64", ".exe")
    } else if cfg!(target_os = "macos") {
        ("StandaloneOSX", ".app")
    } else {
        ("StandaloneLinux64", ".x86_64")
    }
}

const TARGETS: [(&str, &str); 6] = [
    ("StandaloneWindows64", "Standalone"),
    ("StandaloneOSX", "Standalone"),
    ("StandaloneLinux64", "Standalone"),
    ("Android", "Android"),
    ("iOS", "iOS"),
    ("WebGL", "WebGL"),
];

impl BuildState {
    pub fn new() -> BuildState {
        BuildState {
            scenes: vec![BuildScene {
                path: super::seed::SAMPLE_SCENE.into(),
                enabled: true,
            }],
            target: host_target().0.into(),
            development: false,
            allow_debugging: false,
            build_scripts_only: false,
            job: None,
            last_report: None,
        }
    }
}

impl Default for BuildState {
    fn default() -> Self {
        BuildState::new()
    }
}

fn scenes_json(ed: &Editor) -> Value {
    json!(
        ed.build
            .scenes
            .iter()
            .map(|s| json!({"path": s.path, "enabled": s.enabled}))
            .collect::<Vec<_>>()
    )
}

fn settings_json(ed: &Editor) -> Value {
    json!({
        "active_target": ed.build.target, "target_group": "Standalone",
        "development": ed.build.development, "allow_debugging": ed.build.allow_debugging,
        "build_scripts_only": ed.build.build_scripts_only,
        "scenes": scenes_json(ed),
    })
}

fn default_output(ed: &Editor) -> String {
    format!(
        "Builds/{}/{}{}",
        ed.build.target,
        ed.settings.product_name(),
        host_target().1
    )
}

fn state(ed: &Editor, now: i64) -> &'static str {
    match &ed.build.job {
        None => "idle",
        Some(j) if now < j.started_ms + (j.due_ms - j.started_ms) / 5 => "queued",
        Some(_) => "building",
    }
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "get_settings" => ok("Build settings.", settings_json(ed)),
        "set_settings" => set_settings(ed, a),
        "list_targets" => {
            let host = host_target().0;
            let targets: Vec<Value> = TARGETS
                .iter()
                .map(|(t, g)| json!({"name": t, "group": g, "installed": *t == host}))
                .collect();
            ok(
                format!("{} build target(s).", targets.len()),
                json!({ "targets": targets }),
            )
        }
        "add_scene" => {
            let raw = a.req_str("path")?;
            let path = super::scene::find_asset(ed, raw).ok_or_else(|| {
                Fail::new(
                    "SCENE_NOT_FOUND",
                    format!("No scene asset matches '{raw}'."),
                )
                .with_data(json!({"path": raw}))
            })?;
            let enabled = a.bool("enabled")?.unwrap_or(true);
            let added = match ed.build.scenes.iter_mut().find(|s| s.path == path) {
                Some(s) => {
                    s.enabled = enabled;
                    false
                }
                None => {
                    ed.build.scenes.push(BuildScene {
                        path: path.clone(),
                        enabled,
                    });
                    true
                }
            };
            ok(
                format!(
                    "{} {path} {} the build.",
                    if added { "Added" } else { "Updated" },
                    if added { "to" } else { "in" }
                ),
                json!({ "scenes": scenes_json(ed) }),
            )
        }
        "remove_scene" => {
            let raw = a.req_str("path")?;
            let path = super::scene::find_asset(ed, raw).unwrap_or_else(|| raw.to_string());
            let before = ed.build.scenes.len();
            ed.build.scenes.retain(|s| s.path != path);
            if ed.build.scenes.len() == before {
                return Err(Fail::new(
                    "SCENE_NOT_IN_BUILD",
                    format!("{path} is not in the build scene list."),
                )
                .with_data(json!({"path": path, "scenes": scenes_json(ed)})));
            }
            ok(
                format!("Removed {path} from the build."),
                json!({ "scenes": scenes_json(ed) }),
            )
        }
        "start" => start(ed, a, ctx),
        "status" => {
            // `last_report` is always present, null when no report is retained.
            ok(
                format!("build: {}.", state(ed, ctx.now_ms)),
                json!({"state": state(ed, ctx.now_ms), "last_report": ed.build.last_report}),
            )
        }
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn set_settings(ed: &mut Editor, a: Args) -> Handled {
    let dry = a.flag("dry_run")?;
    let mut next = (
        ed.build.development,
        ed.build.allow_debugging,
        ed.build.build_scripts_only,
    );
    if let Some(v) = a.bool("development")? {
        next.0 = v;
    }
    if let Some(v) = a.bool("allow_debugging")? {
        next.1 = v;
    }
    if let Some(v) = a.bool("build_scripts_only")? {
        next.2 = v;
    }
    if next.1 && !next.0 {
        return Err(Fail::invalid(
            "allow_debugging",
            "script debugging needs a development build (set development: true)",
        ));
    }
    let cur = (
        ed.build.development,
        ed.build.allow_debugging,
        ed.build.build_scripts_only,
    );
    let _ = cur;
    // `applied`: each supplied field with its new value.
    let mut applied = serde_json::Map::new();
    for (key, to) in [
        ("development", next.0),
        ("allow_debugging", next.1),
        ("build_scripts_only", next.2),
    ] {
        if a.has_key(key) {
            applied.insert(key.into(), json!(to));
        }
    }
    if !dry {
        (
            ed.build.development,
            ed.build.allow_debugging,
            ed.build.build_scripts_only,
        ) = next;
    }
    ok(
        format!(
            "{} {} build setting(s).",
            if dry { "Would change" } else { "Changed" },
            applied.len()
        ),
        json!({"applied": applied, "dry_run": dry}),
    )
}

fn start(ed: &mut Editor, a: Args, ctx: &InvokeContext) -> Handled {
    if ed.play.state != PlayState::Edit {
        return Err(Fail::new(
            "IN_PLAY_MODE",
            "Cannot build while in play mode; stop play mode first.",
        ));
    }
    if ed.build.job.is_some() {
        return Err(Fail::new(
            "ALREADY_BUILDING",
            "A build is already queued or running; check build status.",
        ));
    }
    if !ed.build.scenes.iter().any(|s| s.enabled) {
        return Err(Fail::new(
            "NO_SCENES",
            "No enabled scenes in the build settings; add one with build add_scene.",
        ));
    }
    let output = a
        .str("output_path")?
        .map(str::to_string)
        .unwrap_or_else(|| default_output(ed));
    let norm = output.replace('\\', "/");
    let rel = norm
        .strip_prefix(&format!("{}/", ed.project_path.replace('\\', "/")))
        .unwrap_or(&norm)
        .to_string();
    if rel == "Assets" || rel.starts_with("Assets/") {
        return Err(Fail::invalid(
            "output_path",
            "a build may not be written inside Assets/",
        ));
    }
    if let Err(e) = file_bus::remove(ctx.status_dir, &names::build_result(ctx.port)) {
        return Err(Fail::new(
            "RESULT_FILE_BUSY",
            format!("Cannot clear the previous build result file: {e}"),
        ));
    }
    let target = ed.build.target.clone();
    ed.build.job = Some(Job {
        port: ctx.port,
        started_ms: ctx.now_ms,
        due_ms: ctx.now_ms + ed.knobs.job_delay_ms,
        target: target.clone(),
        output_path: output.clone(),
    });
    ok(
        format!("Build for {target} queued."),
        json!({"queued": true, "target": target, "output_path": output, "port": ctx.port}),
    )
}

pub fn complete_due(ed: &mut Editor, ctx: &InvokeContext) {
    let Some(job) = ed.build.job.clone() else {
        return;
    };
    if job.due_ms > ctx.now_ms {
        return;
    }
    ed.build.job = None;
    let mut errors = Vec::new();
    if ed.compile_errors {
        errors.push("Scripts have compile errors.".to_string());
    }
    for s in ed.build.scenes.iter().filter(|s| s.enabled) {
        if !matches!(
            ed.assets.get(&s.path).map(|a| &a.kind),
            Some(AssetKind::Scene(_))
        ) {
            errors.push(format!(
                "Scene {} is in the build list but does not exist.",
                s.path
            ));
        }
    }
    let objects: usize = ed
        .build
        .scenes
        .iter()
        .filter(|s| s.enabled)
        .filter_map(|s| match ed.assets.get(&s.path).map(|a| &a.kind) {
            Some(AssetKind::Scene(roots)) => Some(roots.iter().map(|r| r.count()).sum::<usize>()),
            _ => None,
        })
        .sum();
    let succeeded = errors.is_empty();
    let size = if succeeded {
        41_943_040 + objects as u64 * 153_600 + ed.assets.entries.len() as u64 * 65_536
    } else {
        0
    };
    let warnings = usize::from(ed.build.development);
    let data = json!({
        "result": if succeeded { "Succeeded" } else { "Failed" },
        "output_path": job.output_path, "target": job.target, "size_bytes": size,
        "total_seconds": ((job.due_ms - job.started_ms) as f64 / 1000.0),
        "error_count": errors.len(), "warning_count": warnings, "errors": errors,
    });
    let env = FileEnvelope {
        success: succeeded,
        message: if succeeded {
            "build finished".into()
        } else {
            "build failed".into()
        },
        code: (!succeeded).then(|| "BUILD_FAILED".to_string()),
        suggestions: None,
        data: Some(data.clone()),
        timings: None,
    };
    let _ = file_bus::write_json(
        ctx.status_dir,
        &names::build_result(job.port),
        &BuildFile(&env),
    );
    ed.build.last_report = Some(data);
}

/// The build result file is `{success, message, data}` (§7.3), without `timings`.
struct BuildFile<'a>(&'a FileEnvelope);

impl serde::Serialize for BuildFile<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let e = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("success", &e.success)?;
        m.serialize_entry("message", &e.message)?;
        if let Some(c) = &e.code {
            m.serialize_entry("code", c)?;
        }
        m.serialize_entry("data", &e.data)?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use super::*;

    #[test]
    fn editor_build_start_writes_result_file() {
        let mut h = Harness::new();
        let q = h.ok("build", json!({"action": "start"}));
        assert_eq!(q["queued"], true);
        assert_eq!(q["port"], 8090);
        assert_eq!(
            h.err("build", json!({"action": "start"})),
            "ALREADY_BUILDING"
        );
        assert_eq!(
            h.ok("build", json!({"action": "status"}))["state"],
            "queued"
        );
        let _ = h.advance(1_000);
        let text = std::fs::read_to_string(h.status().join(names::build_result(8090))).unwrap();
        assert!(
            text.starts_with("{\"success\":true,\"message\":\"build finished\",\"data\":{"),
            "{text}"
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        for k in [
            "result",
            "output_path",
            "target",
            "size_bytes",
            "total_seconds",
            "error_count",
            "warning_count",
            "errors",
        ] {
            assert!(v["data"].get(k).is_some(), "{k}");
        }
        let st = h.ok("build", json!({"action": "status"}));
        assert_eq!(st["state"], "idle");
        assert_eq!(st["last_report"]["result"], "Succeeded");
    }

    #[test]
    fn editor_build_settings_and_scenes() {
        let mut h = Harness::new();
        h.ok("build", json!({"action": "add_scene", "path": "Level1"}));
        assert_eq!(
            h.ok("build", json!({"action": "get_settings"}))["scenes"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        assert_eq!(h.ok("scene", json!({"action": "list"}))[0]["enabled"], true);
        h.ok(
            "build",
            json!({"action": "remove_scene", "path": "Assets/Scenes/Level1.unity"}),
        );
        assert_eq!(
            h.err("build", json!({"action": "remove_scene", "path": "Level1"})),
            "SCENE_NOT_IN_BUILD"
        );
        assert_eq!(
            h.err(
                "build",
                json!({"action": "set_settings", "allow_debugging": true})
            ),
            "INVALID_PARAM"
        );
        let dry = h.ok(
            "build",
            json!({"action": "set_settings", "development": true, "dry_run": true}),
        );
        assert_eq!(dry["applied"], json!({"development": true}));
        assert_eq!(
            h.ok("build", json!({"action": "get_settings"}))["development"],
            false
        );
        assert_eq!(
            h.err(
                "build",
                json!({"action": "start", "output_path": "Assets/Build"})
            ),
            "INVALID_PARAM"
        );
        h.ok(
            "build",
            json!({"action": "remove_scene", "path": "SampleScene"}),
        );
        assert_eq!(h.err("build", json!({"action": "start"})), "NO_SCENES");
        assert!(
            h.ok("build", json!({"action": "list_targets"}))["targets"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["installed"] == true)
        );
    }
}
