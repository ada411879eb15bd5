//! Installed packages, a small offline registry, and `manage_packages` with its file-bus jobs
//! (connector-contract/README.md §7.2).
//!
//! add/remove/embed answer `running` at once, write `package-pending-<port>-<job_id>.json`, and
//! complete after the job delay: the model changes, the result file appears, the pending file
//! goes, and a domain reload is requested (new package code must compile). With
//! [`PackageCompletion::VerifiedAfterReload`] the result is instead written after the reload,
//! verified against the package list, as the `"code": null` variant. Other packages the model
//! depends on (`com.unity.test-framework`, `com.unity.ai.navigation`, …) switch tools on and off.

use super::args::{Args, Fail};
use super::file_bus;
use super::{Editor, Handled, Invocation, InvokeContext, ReloadReason, ReloadRequest, ok};
use hera_connector_contract::wire::{PackagePending, file_bus as names};
use serde::Serialize;
use serde_json::{Value, json};

/// How a successful package job reports (test knob).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PackageCompletion {
    /// The result file is written when Package Manager answers, before the reload.
    #[default]
    Direct,
    /// The reload comes first; afterwards the job is verified through the package list and
    /// reported with `"code": null` and "(verified post-reload)".
    VerifiedAfterReload,
    /// After the reload the list no longer agrees: `PACKAGE_RESUME_VERIFY_FAILED`.
    ResumeVerifyFails,
    /// After the reload the list cannot be read: `PACKAGE_RESUME_LIST_FAILED`.
    ResumeListFails,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    pub name: String,
    pub version: String,
    /// `registry`, `builtin`, `embedded`, `git` or `local`.
    pub source: String,
    pub display_name: String,
    pub is_direct_dependency: bool,
    pub resolved_path: String,
}

struct RegistryEntry {
    name: &'static str,
    display_name: &'static str,
    versions: &'static [&'static str],
    description: &'static str,
}

/// What the offline registry offers (latest version last).
const REGISTRY: &[RegistryEntry] = &[
    RegistryEntry {
        name: "com.unity.addressables",
        display_name: "Addressables",
        versions: &["1.22.3", "2.3.1"],
        description: "Load assets by address.",
    },
    RegistryEntry {
        name: "com.unity.ai.navigation",
        display_name: "AI Navigation",
        versions: &["1.1.5", "2.0.5"],
        description: "NavMesh surfaces, links and modifiers.",
    },
    RegistryEntry {
        name: "com.unity.burst",
        display_name: "Burst",
        versions: &["1.8.18"],
        description: "Compiles jobs to optimized native code.",
    },
    RegistryEntry {
        name: "com.unity.cinemachine",
        display_name: "Cinemachine",
        versions: &["2.10.1", "3.1.2"],
        description: "Smart camera tools.",
    },
    RegistryEntry {
        name: "com.unity.collections",
        display_name: "Collections",
        versions: &["2.5.1"],
        description: "Native containers.",
    },
    RegistryEntry {
        name: "com.unity.ide.rider",
        display_name: "JetBrains Rider Editor",
        versions: &["3.0.31"],
        description: "Rider integration.",
    },
    RegistryEntry {
        name: "com.unity.ide.visualstudio",
        display_name: "Visual Studio Editor",
        versions: &["2.0.22"],
        description: "Visual Studio integration.",
    },
    RegistryEntry {
        name: "com.unity.inputsystem",
        display_name: "Input System",
        versions: &["1.8.2", "1.11.2"],
        description: "Input devices and actions.",
    },
    RegistryEntry {
        name: "com.unity.mathematics",
        display_name: "Mathematics",
        versions: &["1.3.2"],
        description: "Vector math library.",
    },
    RegistryEntry {
        name: "com.unity.nuget.newtonsoft-json",
        display_name: "Newtonsoft Json",
        versions: &["3.2.1"],
        description: "Json.NET for Unity.",
    },
    RegistryEntry {
        name: "com.unity.postprocessing",
        display_name: "Post Processing",
        versions: &["3.4.0"],
        description: "Post-processing stack.",
    },
    RegistryEntry {
        name: "com.unity.probuilder",
        display_name: "ProBuilder",
        versions: &["5.2.3", "6.0.4"],
        description: "Build and edit meshes in the Editor.",
    },
    RegistryEntry {
        name: "com.unity.render-pipelines.universal",
        display_name: "Universal RP",
        versions: &["17.0.3"],
        description: "The Universal Render Pipeline.",
    },
    RegistryEntry {
        name: "com.unity.splines",
        display_name: "Splines",
        versions: &["2.6.1"],
        description: "Spline authoring.",
    },
    RegistryEntry {
        name: "com.unity.test-framework",
        display_name: "Test Framework",
        versions: &["1.1.33", "1.4.5"],
        description: "NUnit-based Edit and Play Mode tests.",
    },
    RegistryEntry {
        name: "com.unity.timeline",
        display_name: "Timeline",
        versions: &["1.7.6", "1.8.7"],
        description: "Sequence animation, audio and events.",
    },
    RegistryEntry {
        name: "com.unity.ugui",
        display_name: "Unity UI",
        versions: &["2.0.0"],
        description: "uGUI and TextMesh Pro.",
    },
];

const CONNECTOR_PACKAGE: &str = "com.notnull92.hera-agent-unity";

#[derive(Debug, Clone, PartialEq)]
enum JobState {
    Running,
    /// Applied; the result is written by `resume_after_reload`.
    AwaitingReload {
        package: Value,
    },
}

#[derive(Debug, Clone)]
struct Job {
    job_id: String,
    port: u16,
    action: String,
    identifier: String,
    started_ms: i64,
    /// `None` while stalled (Package Manager never answers).
    due_ms: Option<i64>,
    state: JobState,
}

#[derive(Debug)]
pub struct Packages {
    pub installed: Vec<Package>,
    jobs: Vec<Job>,
    pub timeout_ms: i64,
    pub stall: bool,
    pub completion: PackageCompletion,
}

impl Packages {
    pub fn new() -> Packages {
        let reg = |name: &str, version: &str, display: &str, direct: bool| Package {
            name: name.into(),
            version: version.into(),
            source: "registry".into(),
            display_name: display.into(),
            is_direct_dependency: direct,
            resolved_path: String::new(),
        };
        let module = |short: &str, display: &str| Package {
            name: format!("com.unity.modules.{short}"),
            version: "1.0.0".into(),
            source: "builtin".into(),
            display_name: display.into(),
            is_direct_dependency: true,
            resolved_path: String::new(),
        };
        let mut installed = vec![
            reg("com.unity.test-framework", "1.4.5", "Test Framework", true),
            reg("com.unity.ugui", "2.0.0", "Unity UI", true),
            reg("com.unity.timeline", "1.8.7", "Timeline", true),
            reg(
                "com.unity.ide.rider",
                "3.0.31",
                "JetBrains Rider Editor",
                true,
            ),
            reg(
                "com.unity.nuget.newtonsoft-json",
                "3.2.1",
                "Newtonsoft Json",
                false,
            ),
            Package {
                name: CONNECTOR_PACKAGE.into(),
                version: "0.1.3".into(),
                source: "git".into(),
                display_name: "Hera Agent Connector".into(),
                is_direct_dependency: true,
                resolved_path: String::new(),
            },
            module("ai", "AI"),
            module("animation", "Animation"),
            module("audio", "Audio"),
            module("physics", "Physics"),
            module("ui", "UI"),
        ];
        installed.sort_by(|a, b| a.name.cmp(&b.name));
        Packages {
            installed,
            jobs: Vec::new(),
            timeout_ms: 10 * 60 * 1000,
            stall: false,
            completion: PackageCompletion::Direct,
        }
    }

    pub fn is_installed(&self, name: &str) -> bool {
        self.installed.iter().any(|p| p.name == name)
    }
    pub fn get(&self, name: &str) -> Option<&Package> {
        self.installed.iter().find(|p| p.name == name)
    }
}

impl Default for Packages {
    fn default() -> Self {
        Packages::new()
    }
}

fn resolved_path(project: &str, p: &Package) -> String {
    if !p.resolved_path.is_empty() {
        return p.resolved_path.clone();
    }
    match p.source.as_str() {
        "builtin" => format!(
            "/Applications/Unity/Hub/Editor/6000.3.5f2/Unity.app/Contents/Resources/PackageManager/BuiltInPackages/{}",
            p.name
        ),
        "embedded" => format!("{project}/Packages/{}", p.name),
        _ => format!("{project}/Library/PackageCache/{}@{}", p.name, p.version),
    }
}

/// A registry description as search shows it: its first sentence, at most 200 characters
/// (ending `...` when cut).
fn first_sentence(text: &str) -> String {
    let sentence = match text.find(". ") {
        Some(i) => &text[..=i],
        None => text,
    };
    if sentence.chars().count() <= 200 {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(197).collect();
    format!("{cut}...")
}

pub fn package_json(project: &str, p: &Package) -> Value {
    json!({
        "name": p.name, "version": p.version, "source": p.source,
        "resolved_path": resolved_path(project, p),
        "is_direct_dependency": p.is_direct_dependency, "display_name": p.display_name,
    })
}

/// The package result file (§7.2): an anonymous object, not an envelope — no `timings`, no
/// `code` on a direct success, `"code": null` on the verified-after-reload success.
#[derive(Serialize)]
struct PackageResult {
    success: bool,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<Option<String>>,
    data: Value,
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "list" => {
            let list: Vec<Value> = ed
                .packages
                .installed
                .iter()
                .map(|p| package_json(&ed.project_path, p))
                .collect();
            // No count field: the Connector sends the list alone.
            ok(
                format!("{} packages.", list.len()),
                json!({"packages": list}),
            )
        }
        "search" => {
            let filter_text = a.req_str("filter")?.to_string();
            let filter = filter_text.to_ascii_lowercase();
            let limit = a.limit("limit", 25, 1, 200)?;
            let hits: Vec<Value> = REGISTRY
                .iter()
                .filter(|r| {
                    r.name.contains(&filter)
                        || r.display_name.to_ascii_lowercase().contains(&filter)
                        || r.description.to_ascii_lowercase().contains(&filter)
                })
                .map(|r| {
                    let latest = r.versions.last().copied().unwrap_or("");
                    // Newest first, at most ten.
                    let compatible: Vec<&str> = r.versions.iter().rev().take(10).copied().collect();
                    json!({
                        "name": r.name, "version": latest, "display_name": r.display_name,
                        "description": first_sentence(r.description),
                        "compatible_versions": compatible, "recommended": latest,
                        "deprecated": false,
                    })
                })
                .collect();
            let total = hits.len();
            let packages: Vec<Value> = hits.into_iter().take(limit).collect();
            let returned = packages.len();
            ok(
                format!("{total} package(s) match '{filter_text}'."),
                json!({"filter": filter_text, "total": total, "returned": returned,
                    "truncated": returned < total, "packages": packages}),
            )
        }
        act @ ("add" | "remove" | "embed") => start_job(ed, act, a, ctx),
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn start_job(ed: &mut Editor, action: &str, a: Args, ctx: &InvokeContext) -> Handled {
    let identifier = a.req_str("identifier")?.trim().to_string();
    let job_id = format!("pkg-{}", file_bus::hex32());
    let pending = PackagePending {
        job_id: job_id.clone(),
        port: ctx.port,
        action: action.to_string(),
        identifier: identifier.clone(),
        project_id: Some(ctx.project_id.to_string()),
        owner_pid: ctx.pid,
        started_unix_ms: ctx.now_ms,
    };
    if let Err(e) = file_bus::write_json(
        ctx.status_dir,
        &names::package_pending(ctx.port, &job_id),
        &pending,
    ) {
        return Err(Fail::new(
            "PACKAGE_JOB_STATE_WRITE_FAILED",
            format!(
                "Could not write the package job state to {}: {e}",
                ctx.status_dir.display()
            ),
        ));
    }
    // Package Manager runs one request at a time: a job starts when the previous one is done.
    let queue_end = ed
        .packages
        .jobs
        .iter()
        .filter_map(|j| j.due_ms)
        .max()
        .unwrap_or(ctx.now_ms);
    let due = (!ed.packages.stall).then(|| queue_end.max(ctx.now_ms) + ed.knobs.job_delay_ms);
    ed.packages.jobs.push(Job {
        job_id: job_id.clone(),
        port: ctx.port,
        action: action.to_string(),
        identifier: identifier.clone(),
        started_ms: ctx.now_ms,
        due_ms: due,
        state: JobState::Running,
    });
    Ok(Invocation::ok(
        "running",
        json!({"job_id": job_id, "port": ctx.port, "action": action, "identifier": identifier}),
    ))
}

/// Split `name@version`; URLs and `file:` references are returned whole.
fn split_identifier(id: &str) -> (String, Option<String>) {
    if id.contains("://")
        || id.starts_with("file:")
        || id.starts_with("git@")
        || id.ends_with(".git")
    {
        return (id.to_string(), None);
    }
    match id.split_once('@') {
        Some((n, v)) => (n.to_string(), Some(v.to_string())),
        None => (id.to_string(), None),
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 214
        && name.contains('.')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
}

/// Carry out a job against the model: Ok(package info or null), or the Package Manager error.
fn apply(ed: &mut Editor, action: &str, identifier: &str) -> Result<Value, String> {
    let project = ed.project_path.clone();
    let (name, version) = split_identifier(identifier);
    match action {
        "add" => {
            let pkg = if let Some(path) = name.strip_prefix("file:") {
                local_package(&project, path)?
            } else if name.contains("://") || name.starts_with("git@") || name.ends_with(".git") {
                return Err(format!(
                    "Cannot resolve Git dependency '{identifier}': the simulator has no network access. Use a registry name or a file: reference."
                ));
            } else {
                if !valid_name(&name) {
                    return Err(format!(
                        "'{name}' is not a valid package name (lowercase reverse-domain, e.g. com.company.package)."
                    ));
                }
                let entry = REGISTRY
                    .iter()
                    .find(|r| r.name == name)
                    .ok_or_else(|| format!("Unable to find package '{name}' in the registry."))?;
                let v = match version {
                    Some(v) => {
                        if !entry.versions.contains(&v.as_str()) {
                            return Err(format!(
                                "Package {name}@{v} cannot be found; available versions: {}.",
                                entry.versions.join(", ")
                            ));
                        }
                        v
                    }
                    None => entry
                        .versions
                        .last()
                        .copied()
                        .unwrap_or("1.0.0")
                        .to_string(),
                };
                Package {
                    name: entry.name.into(),
                    version: v,
                    source: "registry".into(),
                    display_name: entry.display_name.into(),
                    is_direct_dependency: true,
                    resolved_path: String::new(),
                }
            };
            let info = package_json(&project, &pkg);
            ed.packages.installed.retain(|p| p.name != pkg.name);
            ed.packages.installed.push(pkg);
            ed.packages.installed.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(info)
        }
        "remove" => {
            let Some(p) = ed.packages.get(&name).cloned() else {
                return Err(format!("Package '{name}' is not installed."));
            };
            if name == CONNECTOR_PACKAGE {
                return Err(format!(
                    "The simulator cannot remove {CONNECTOR_PACKAGE}: it is the Connector answering this request."
                ));
            }
            if !p.is_direct_dependency {
                return Err(format!(
                    "Cannot remove '{name}': it is not a direct dependency of the project (another package requires it)."
                ));
            }
            ed.packages.installed.retain(|x| x.name != name);
            Ok(Value::Null)
        }
        _ => {
            let Some(p) = ed.packages.installed.iter_mut().find(|x| x.name == name) else {
                return Err(format!(
                    "Package '{name}' is not installed, so it cannot be embedded."
                ));
            };
            match p.source.as_str() {
                "builtin" => {
                    return Err(format!(
                        "'{name}' is a built-in package; built-in packages cannot be embedded."
                    ));
                }
                "embedded" => return Err(format!("'{name}' is already embedded.")),
                "local" => {
                    return Err(format!(
                        "'{name}' is a local package; it already lives on disk."
                    ));
                }
                _ => {}
            }
            p.source = "embedded".into();
            p.resolved_path = format!("{project}/Packages/{name}");
            let p = p.clone();
            Ok(package_json(&project, &p))
        }
    }
}

/// A `file:` package: read its `package.json` for real (relative paths resolve from
/// `<project>/Packages`, as Package Manager does).
fn local_package(project: &str, path: &str) -> Result<Package, String> {
    let dir = if std::path::Path::new(path).is_absolute() {
        std::path::PathBuf::from(path)
    } else {
        std::path::Path::new(project).join("Packages").join(path)
    };
    let manifest = dir.join("package.json");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("Cannot read {}: {e}", manifest.display()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not valid JSON: {e}", manifest.display()))?;
    let name = v["name"]
        .as_str()
        .ok_or_else(|| format!("{} has no \"name\".", manifest.display()))?;
    if !valid_name(name) {
        return Err(format!(
            "'{name}' in {} is not a valid package name.",
            manifest.display()
        ));
    }
    Ok(Package {
        name: name.into(),
        version: v["version"].as_str().unwrap_or("0.0.0").into(),
        source: "local".into(),
        display_name: v["displayName"].as_str().unwrap_or(name).into(),
        is_direct_dependency: true,
        resolved_path: dir.display().to_string(),
    })
}

fn verb(action: &str) -> &str {
    match action {
        "add" => "add",
        "remove" => "remove",
        _ => "embed",
    }
}

fn finish(ctx: &InvokeContext, job: &Job, result: &PackageResult) {
    let dir = ctx.status_dir;
    // A failed write leaves the pending file, so clients keep seeing `working` instead of a
    // result that never appears; there is no one else to report the error to.
    if file_bus::write_json(dir, &names::package_result(job.port, &job.job_id), result).is_ok() {
        let _ = file_bus::remove(dir, &names::package_pending(job.port, &job.job_id));
    }
}

/// Complete due jobs and time out stuck ones. Returns a reload request when a package changed.
pub fn complete_due(ed: &mut Editor, ctx: &InvokeContext) -> Option<ReloadRequest> {
    let now = ctx.now_ms;
    let mut reload = None;
    let jobs = std::mem::take(&mut ed.packages.jobs);
    let mut keep = Vec::new();
    for mut job in jobs {
        if now - job.started_ms > ed.packages.timeout_ms {
            let result = PackageResult {
                success: false,
                message: format!(
                    "Package {} {} timed out after {} ms without an answer from Package Manager.",
                    verb(&job.action),
                    job.identifier,
                    ed.packages.timeout_ms
                ),
                code: Some(Some("PACKAGE_TIMEOUT".into())),
                data: json!({"action": job.action, "identifier": job.identifier}),
            };
            finish(ctx, &job, &result);
            continue;
        }
        let due = job.state == JobState::Running && job.due_ms.is_some_and(|d| d <= now);
        if !due {
            keep.push(job);
            continue;
        }
        match apply(ed, &job.action, &job.identifier) {
            Err(error) => {
                let code = format!("PACKAGE_{}_FAILED", job.action.to_ascii_uppercase());
                let result = PackageResult {
                    success: false,
                    message: format!(
                        "Package {} {} failed: {error}",
                        verb(&job.action),
                        job.identifier
                    ),
                    code: Some(Some(code)),
                    data: json!({"action": job.action, "identifier": job.identifier, "error": error}),
                };
                finish(ctx, &job, &result);
            }
            Ok(package) => {
                reload = Some(ReloadRequest {
                    reason: ReloadReason::PackageChange,
                    compile: true,
                });
                if ed.packages.completion == PackageCompletion::Direct {
                    let result = PackageResult {
                        success: true,
                        message: format!(
                            "Package {} {} completed.",
                            verb(&job.action),
                            job.identifier
                        ),
                        code: None,
                        data: json!({"action": job.action, "identifier": job.identifier, "package": package}),
                    };
                    finish(ctx, &job, &result);
                } else {
                    job.state = JobState::AwaitingReload { package };
                    keep.push(job);
                }
            }
        }
    }
    // Jobs started while we were applying (none can be: we hold &mut) keep their order.
    keep.extend(std::mem::take(&mut ed.packages.jobs));
    ed.packages.jobs = keep;
    reload
}

/// After a domain reload, report jobs that were waiting for it, verified against the list.
pub fn resume_after_reload(ed: &mut Editor, ctx: &InvokeContext) {
    let jobs = std::mem::take(&mut ed.packages.jobs);
    let mut keep = Vec::new();
    for job in jobs {
        let JobState::AwaitingReload { package } = &job.state else {
            keep.push(job);
            continue;
        };
        let (name, _) = split_identifier(&job.identifier);
        let listed = ed
            .packages
            .get(&name)
            .map(|p| package_json(&ed.project_path, p));
        let verified = match job.action.as_str() {
            "remove" => listed.is_none(),
            "embed" => listed.as_ref().is_some_and(|p| p["source"] == "embedded"),
            _ => {
                listed.is_some()
                    || package["name"]
                        .as_str()
                        .is_some_and(|n| ed.packages.is_installed(n))
            }
        };
        let result = match ed.packages.completion {
            PackageCompletion::ResumeListFails => PackageResult {
                success: false,
                message: format!(
                    "Package {} {}: could not list packages after the domain reload to verify the result.",
                    verb(&job.action),
                    job.identifier
                ),
                code: Some(Some("PACKAGE_RESUME_LIST_FAILED".into())),
                data: json!({"action": job.action, "identifier": job.identifier}),
            },
            PackageCompletion::ResumeVerifyFails => PackageResult {
                success: false,
                message: format!(
                    "Package {} {}: the package list after the domain reload does not show the change.",
                    verb(&job.action),
                    job.identifier
                ),
                code: Some(Some("PACKAGE_RESUME_VERIFY_FAILED".into())),
                data: json!({"action": job.action, "identifier": job.identifier, "error": "package list does not reflect the requested change"}),
            },
            _ if !verified => PackageResult {
                success: false,
                message: format!(
                    "Package {} {}: the package list after the domain reload does not show the change.",
                    verb(&job.action),
                    job.identifier
                ),
                code: Some(Some("PACKAGE_RESUME_VERIFY_FAILED".into())),
                data: json!({"action": job.action, "identifier": job.identifier, "error": "package list does not reflect the requested change"}),
            },
            _ => PackageResult {
                success: true,
                message: format!(
                    "Package {} {} completed (verified post-reload).",
                    verb(&job.action),
                    job.identifier
                ),
                code: Some(None),
                data: json!({
                    "action": job.action, "identifier": job.identifier,
                    "package": if job.action == "remove" { Value::Null } else { listed.unwrap_or_else(|| package.clone()) },
                }),
            },
        };
        finish(ctx, &job, &result);
    }
    ed.packages.jobs = keep;
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use super::super::{HandlerOutcome, ReloadReason};
    use super::*;

    fn start(h: &mut Harness, action: &str, id: &str) -> String {
        let inv = h.call(
            "manage_packages",
            json!({"action": action, "identifier": id}),
        );
        match inv.outcome {
            HandlerOutcome::Success {
                message,
                data: Some(d),
            } => {
                assert_eq!(message, "running");
                assert_eq!(d["port"], 8090);
                assert_eq!(d["action"], action);
                let job = d["job_id"].as_str().unwrap().to_string();
                assert!(job.starts_with("pkg-") && job.len() == 36);
                job
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn editor_package_add_runs_through_the_file_bus() {
        let mut h = Harness::new();
        let job = start(&mut h, "add", "com.unity.ai.navigation");
        let pending = h.status().join(names::package_pending(8090, &job));
        let pending_v = file_bus::read_json(&pending).expect("pending file");
        assert_eq!(pending_v["identifier"], "com.unity.ai.navigation");
        assert_eq!(pending_v["project_id"], "sha256:test");
        assert!(pending_v["started_unix_ms"].as_i64().unwrap() > 0);
        assert!(h.advance(50).is_none());
        let reload = h.advance(1_000).expect("package change requests a reload");
        assert_eq!(reload.reason, ReloadReason::PackageChange);
        assert!(!pending.exists());
        let text =
            std::fs::read_to_string(h.status().join(names::package_result(8090, &job))).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["success"], true);
        assert!(
            v.get("code").is_none() && v.get("timings").is_none(),
            "{text}"
        );
        assert_eq!(v["data"]["package"]["name"], "com.unity.ai.navigation");
        assert_eq!(v["data"]["package"]["version"], "2.0.5");
        let list = h.ok("manage_packages", json!({"action": "list"}));
        assert!(
            list["packages"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == "com.unity.ai.navigation")
        );
        // Now NavMeshSurface exists as a component type.
        h.ok(
            "manage_components",
            json!({"action": "add", "path": "Ground", "type": "NavMeshSurface"}),
        );
    }

    #[test]
    fn editor_package_failures_timeouts_and_verified_variant() {
        let mut h = Harness::new();
        let bad = start(&mut h, "add", "com.example.nothing");
        let _ = h.advance(1_000);
        let v = file_bus::read_json(&h.status().join(names::package_result(8090, &bad))).unwrap();
        assert_eq!(v["code"], "PACKAGE_ADD_FAILED");
        assert_eq!(v["data"]["identifier"], "com.example.nothing");
        assert!(
            v["data"]["error"]
                .as_str()
                .unwrap()
                .contains("Unable to find")
        );

        h.ed.set_package_completion(PackageCompletion::VerifiedAfterReload);
        let job = start(&mut h, "remove", "com.unity.timeline");
        assert!(h.advance(1_000).is_some());
        assert!(h.status().join(names::package_pending(8090, &job)).exists());
        h.reload();
        let text =
            std::fs::read_to_string(h.status().join(names::package_result(8090, &job))).unwrap();
        assert!(text.contains("\"code\":null"), "{text}");
        assert!(text.contains("verified post-reload"));
        assert_eq!(
            h.err(
                "manage_timeline",
                json!({"action": "get", "path": "Assets/x.playable"})
            ),
            "PACKAGE_NOT_INSTALLED"
        );

        h.ed.set_package_stall(true);
        h.ed.set_package_timeout(std::time::Duration::from_millis(2_000));
        let stuck = start(&mut h, "embed", "com.unity.ugui");
        let _ = h.advance(1_000);
        assert!(
            h.status()
                .join(names::package_pending(8090, &stuck))
                .exists()
        );
        let _ = h.advance(1_500);
        let v = file_bus::read_json(&h.status().join(names::package_result(8090, &stuck))).unwrap();
        assert_eq!(v["code"], "PACKAGE_TIMEOUT");
        assert_eq!(
            v["data"],
            json!({"action": "embed", "identifier": "com.unity.ugui"})
        );
    }

    #[test]
    fn editor_package_search_and_embed() {
        let mut h = Harness::new();
        let s = h.ok(
            "manage_packages",
            json!({"action": "search", "filter": "input"}),
        );
        // The Connector's search shape: {filter, total, returned, truncated, packages}.
        assert_eq!(s["packages"][0]["name"], "com.unity.inputsystem");
        assert_eq!(s["filter"], "input");
        assert_eq!(s["returned"], s["total"]);
        assert_eq!(s["truncated"], false);
        assert!(s["packages"][0]["compatible_versions"].is_array());
        let l = h.ok("manage_packages", json!({"action": "list"}));
        assert!(l.get("count").is_none() && l["packages"].is_array(), "{l}");
        let job = start(&mut h, "embed", "com.unity.ugui");
        let _ = h.advance(1_000);
        let v = file_bus::read_json(&h.status().join(names::package_result(8090, &job))).unwrap();
        assert_eq!(v["data"]["package"]["source"], "embedded");
        let job = start(&mut h, "remove", "com.unity.modules.ai");
        let _ = h.advance(1_000);
        assert_eq!(
            file_bus::read_json(&h.status().join(names::package_result(8090, &job))).unwrap()["success"],
            true
        );
        assert_eq!(
            h.err("manage_packages", json!({"action": "add"})),
            "MISSING_PARAM"
        );
    }
}
