//! `doctor`: every link of the chain from this process to the Editor's catalog, checked in
//! order, each failure naming its fix. Later checks that depend on a failed one are skipped.

use super::context::Globals;
use super::exit;
use super::output::{Failure, print_json};
use super::setup::{self, Client, Locations, Target};
use super::status::describe;
use crate::catalog::{self, CatalogCache};
use crate::connector::{CallOptions, ConnectorClient};
use crate::discovery::{self, EditorLiveness, STALE_AFTER_MS, judge, now_ms, user_home};
use crate::platform::Os;
use hera_connector_contract::wire::ALL_FEATURES;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::path::Path;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Fail,
    Skip,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub id: &'static str,
    pub title: &'static str,
    pub status: Status,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

fn check(
    id: &'static str,
    title: &'static str,
    status: Status,
    detail: impl Into<String>,
) -> Check {
    Check {
        id,
        title,
        status,
        detail: detail.into(),
        fix: None,
    }
}

impl Check {
    fn fix(mut self, f: impl Into<String>) -> Check {
        self.fix = Some(f.into());
        self
    }
}

/// The longest doctor waits for one HTTP answer.
const HTTP_CHECK_TIMEOUT: Duration = Duration::from_secs(5);

const INSTALL_FIX: &str = "Open the project in Unity with the AgentConnector package \
    (com.notnull92.hera-agent-unity) installed. Unity and this program must run as the same user \
    with the same home directory";

pub async fn run(g: &Globals, json_out: bool) -> Result<u8, Failure> {
    let checks = run_checks(g).await;
    let failed = checks.iter().any(|c| c.status == Status::Fail);
    if json_out {
        print_json(&json!({"ok": !failed, "checks": checks}));
    } else {
        for c in &checks {
            let tag = match c.status {
                Status::Ok => "[ok]  ",
                Status::Warn => "[warn]",
                Status::Fail => "[FAIL]",
                Status::Skip => "[skip]",
            };
            println!("{tag} {}: {}", c.title, c.detail);
            if let Some(f) = &c.fix {
                println!("       fix: {f}");
            }
        }
    }
    Ok(if failed { exit::NO_EDITOR } else { exit::OK })
}

fn skip(id: &'static str, title: &'static str, why: &str) -> Check {
    check(id, title, Status::Skip, format!("skipped: {why}"))
}

/// Runs every check; never fails itself. Each step is one function below, in chain order; a
/// step that fails makes the later ones that need it report `skip`.
pub async fn run_checks(g: &Globals) -> Vec<Check> {
    let mut out = Vec::new();
    let scan = heartbeat_dir_check(g, &mut out);
    let chosen = match &scan {
        Some(scan) => instance_checks(g, scan, &mut out),
        None => {
            out.push(skip(
                "instances",
                "instances found",
                "no heartbeat directory",
            ));
            out.push(skip("selection", "chosen instance", "no running Editor"));
            None
        }
    };
    out.extend(trust_checks(scan.as_ref(), chosen.as_ref()));
    let Some(inst) = chosen else {
        for (id, title) in [
            ("liveness", "liveness and age"),
            ("http", "HTTP reachability"),
            ("features", "features"),
            ("catalog", "catalog fetch and hash"),
        ] {
            out.push(skip(id, title, "no instance chosen"));
        }
        out.extend(local_checks(g));
        return out;
    };
    out.push(liveness_check(&inst).await);
    let client = ConnectorClient::new(
        g.home.clone(),
        inst.clone(),
        g.timeout.min(HTTP_CHECK_TIMEOUT),
    );
    let http_ok = http_check(&client, &inst, &mut out).await;
    out.push(features_check(&inst));
    if http_ok {
        out.push(catalog_check(g, &client).await);
    } else {
        out.push(skip(
            "catalog",
            "catalog fetch and hash",
            "HTTP unreachable",
        ));
    }
    out.extend(local_checks(g));
    out
}

/// Step 1, the heartbeat directory: the scan that every later Editor check reads.
fn heartbeat_dir_check(g: &Globals, out: &mut Vec<Check>) -> Option<discovery::Scan> {
    let dir = g.home.instances_dir();
    let home_note = match user_home() {
        Some(h) => format!("home {}", h.display()),
        None => "no home directory found (HOME/USERPROFILE unset)".to_string(),
    };
    match discovery::scan(&g.home) {
        Ok(s) => {
            out.push(check(
                "heartbeat_dir",
                "heartbeat directory",
                Status::Ok,
                format!("{} ({home_note})", dir.display()),
            ));
            Some(s)
        }
        Err(e) => {
            out.push(
                check(
                    "heartbeat_dir",
                    "heartbeat directory",
                    Status::Fail,
                    format!("{e} ({home_note})"),
                )
                .fix(format!(
                    "{INSTALL_FIX}; the Connector creates {}",
                    dir.display()
                )),
            );
            None
        }
    }
}

/// Steps 2 and 3: which Editors are running, and which one the selection rules pick.
fn instance_checks(
    g: &Globals,
    scan: &discovery::Scan,
    out: &mut Vec<Check>,
) -> Option<discovery::Instance> {
    let active = scan.active().count();
    let mut notes = Vec::new();
    if !scan.removed_dead.is_empty() {
        notes.push(format!(
            "removed {} heartbeat(s) of Editors that are no longer running",
            scan.removed_dead.len()
        ));
    }
    for (f, why) in &scan.unreadable {
        notes.push(format!("unreadable {}: {why}", f.display()));
    }
    let stopped = scan.instances.len() - active;
    if stopped > 0 {
        notes.push(format!("{stopped} stopped"));
    }
    // Where the OS cannot check the pid, an old heartbeat is presumed to be a dead Editor's.
    let presumed: Vec<String> = scan
        .presumed_gone
        .iter()
        .map(|(i, age_ms)| {
            format!(
                "{} (heartbeat {} s old, process not verifiable; delete {} if Unity has quit)",
                i.project_path,
                age_ms / 1000,
                i.file.display()
            )
        })
        .collect();
    if !presumed.is_empty() {
        notes.push(format!("presumed gone: {}", presumed.join(", ")));
    }
    let note = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    };
    if active == 0 {
        let fix = if scan.presumed_gone.is_empty() {
            INSTALL_FIX.to_string()
        } else {
            let files: Vec<String> = scan
                .presumed_gone
                .iter()
                .map(|(i, _)| i.file.display().to_string())
                .collect();
            format!(
                "Reopen the project in Unity. If Unity is in fact running, bring it to the front \
                 (a modal dialog or a paused debugger stops its heartbeat); if it has quit, delete \
                 {}",
                files.join(", ")
            )
        };
        out.push(
            check(
                "instances",
                "instances found",
                Status::Fail,
                format!("no running Editor{note}"),
            )
            .fix(fix),
        );
        out.push(skip("selection", "chosen instance", "no running Editor"));
        return None;
    }
    out.push(check(
        "instances",
        "instances found",
        Status::Ok,
        format!("{active} running{note}"),
    ));
    match discovery::select(scan, &g.selector) {
        Ok(i) => {
            out.push(check(
                "selection",
                "chosen instance",
                Status::Ok,
                format!("{} on port {}", i.project_path, i.port()),
            ));
            Some(i)
        }
        Err(e) => {
            out.push(
                check("selection", "chosen instance", Status::Fail, e.to_string()).fix(
                    "Pass --project with the exact project path (or a unique part of it), or \
                     --port; `hera-agent-unity status --json` lists what is running",
                ),
            );
            None
        }
    }
}

/// Step 4, liveness and age of the chosen Editor.
async fn liveness_check(inst: &discovery::Instance) -> Check {
    const TITLE: &str = "liveness and age";
    let now = now_ms();
    let age = inst.age_ms(now);
    if let EditorLiveness::PresumedGone { age_ms } = judge(&inst.heartbeat, now) {
        return check(
            "liveness",
            TITLE,
            Status::Fail,
            format!(
                "state {}, pid {:?} cannot be checked on this system and the heartbeat has not \
                 moved for {} s: the Editor is presumed gone",
                inst.state(),
                inst.pid(),
                age_ms / 1000
            ),
        )
        .fix(format!(
            "Reopen the project in Unity. If Unity is in fact running, bring it to the front; if \
             it has quit, delete {}",
            inst.file.display()
        ));
    }
    if !inst.is_stale(now) {
        return check(
            "liveness",
            TITLE,
            Status::Ok,
            format!(
                "state {}, pid {:?} alive, heartbeat {:.1} s old",
                inst.state(),
                inst.pid(),
                age as f64 / 1000.0
            ),
        );
    }
    let d = describe(inst, now).await;
    check(
        "liveness",
        TITLE,
        Status::Warn,
        format!(
            "state {}, pid {:?}, heartbeat {:.1} s old (older than {} s){}",
            inst.state(),
            inst.pid(),
            age as f64 / 1000.0,
            STALE_AFTER_MS / 1000,
            match d["reachable"].as_bool() {
                Some(true) => ", port still accepts connections",
                _ => ", port not responding",
            }
        ),
    )
    .fix(
        "Unity writes its heartbeat every second while the Editor updates; an unfocused or busy \
         Editor lags. Bring Unity to the front; if it stays stale, close modal dialogs or \
         restart Unity",
    )
}

/// Step 5, HTTP: any envelope from the listener proves the path works.
async fn http_check(
    client: &ConnectorClient,
    inst: &discovery::Instance,
    out: &mut Vec<Check>,
) -> bool {
    let mut names = Map::new();
    names.insert("names".into(), Value::Bool(true));
    let answer = client
        .command(
            "list",
            &names,
            CallOptions {
                idempotent: true,
                ..Default::default()
            },
        )
        .await;
    match answer {
        Ok(r) => {
            out.push(check(
                "http",
                "HTTP reachability",
                Status::Ok,
                format!(
                    "127.0.0.1:{} answered ({})",
                    r.port,
                    if r.envelope.success {
                        "success"
                    } else {
                        r.envelope.code_str()
                    }
                ),
            ));
            true
        }
        Err(e) => {
            out.push(
                check("http", "HTTP reachability", Status::Fail, e.to_string()).fix(format!(
                    "Check that Unity is not stuck (compiling, a modal dialog, a breakpoint) and \
                     that nothing else owns port {}; a proxy is never used for 127.0.0.1",
                    inst.port()
                )),
            );
            false
        }
    }
}

/// The Connector release this binary is built and tested against, and the package line that
/// installs it (the tag form the repository publishes).
pub const CONNECTOR_TESTED_VERSION: &str = "0.1.3";
pub const CONNECTOR_GIT_URL: &str =
    "https://github.com/NotNull92/hera-agent-unity.git?path=AgentConnector";

/// Step 6, features: the heartbeat carries no package version, so the six feature strings are
/// how an older Connector shows itself.
fn features_check(inst: &discovery::Instance) -> Check {
    let have: Vec<String> = inst.heartbeat.features.clone().unwrap_or_default();
    let missing: Vec<&str> = ALL_FEATURES
        .iter()
        .copied()
        .filter(|f| !have.iter().any(|h| h == f))
        .collect();
    if missing.is_empty() {
        return check("features", "features", Status::Ok, have.join(", "));
    }
    let what = format!(
        "missing {}{}: this AgentConnector is older than {CONNECTOR_TESTED_VERSION}, the release \
         this binary is tested against",
        missing.join(", "),
        if have.is_empty() {
            " (the heartbeat lists no features)"
        } else {
            ""
        }
    );
    check(
        "features",
        "features",
        Status::Warn,
        format!(
            "{what}. It still works with reduced safety: tools come from the legacy listing \
             (compact exposure only, every action asks for approval), and without \
             operation_ledger_v1 a mutation interrupted by a reload is reported as an unknown \
             outcome instead of being retried"
        ),
    )
    .fix(format!(
        "Update the com.notnull92.hera-agent-unity package to {CONNECTOR_TESTED_VERSION}: in \
         Packages/manifest.json set \"com.notnull92.hera-agent-unity\": \
         \"{CONNECTOR_GIT_URL}#connector-{CONNECTOR_TESTED_VERSION}\" (or Package Manager → + → Add \
         package from git URL with that address), then let Unity reload"
    ))
}

/// Step 7, catalog: fetched, hash recomputed, stored in the cache.
async fn catalog_check(g: &Globals, client: &ConnectorClient) -> Check {
    const TITLE: &str = "catalog fetch and hash";
    let cache = CatalogCache::new(&g.home);
    match catalog::refresh(client, Some(&cache)).await {
        Ok(s) => {
            let actions: usize = s.catalog.tools.iter().map(|t| t.actions.len()).sum();
            let detail = format!(
                "{} tools, {} actions, hash {} verified, epoch {}",
                s.catalog.tools.len(),
                actions,
                s.catalog_hash(),
                s.domain_epoch()
            );
            if s.listing_in_place_of_strict() {
                check(
                    "catalog",
                    TITLE,
                    Status::Warn,
                    format!(
                        "the Editor publishes a strict catalog but cannot build it now; using \
                         its per-tool listing (compact exposure only, no catalog hash, safety \
                         guessed, approval decided by the Editor): {detail}"
                    ),
                )
                .fix(
                    "A custom tool's contract is broken (the Unity console names it, and \
                     `list` marks it): fix its parameters, then let Unity reload; the strict \
                     catalog is used again after the reload",
                )
            } else if s.is_legacy() {
                check(
                    "catalog",
                    TITLE,
                    Status::Warn,
                    format!("legacy listing: {detail}"),
                )
                .fix(format!(
                    "Update the package to {CONNECTOR_TESTED_VERSION} to get the strict \
                         catalog (safety contracts, approval, profile exposure)"
                ))
            } else {
                check("catalog", TITLE, Status::Ok, detail)
            }
        }
        Err(e) => check("catalog", TITLE, Status::Fail, e.to_string()).fix(
            "If Unity was reloading, run doctor again. A hash or project mismatch means the \
             Connector's catalog is inconsistent: reimport the package or restart Unity; a \
             custom tool with a broken contract breaks the catalog until it is fixed",
        ),
    }
}

/// Whom we would talk to: the heartbeat files discovery refused (another owner, a writable
/// directory, oversized, future-dated, a link), and who holds the chosen Editor's port.
fn trust_checks(
    scan: Option<&discovery::Scan>,
    chosen: Option<&discovery::Instance>,
) -> Vec<Check> {
    let mut out = Vec::new();
    if let Some(scan) = scan {
        out.push(if scan.ignored.is_empty() {
            check(
                "heartbeat_trust",
                "heartbeat files trusted",
                Status::Ok,
                if cfg!(unix) {
                    "owner, directory permissions, size and timestamp checked; none ignored"
                } else {
                    "size and timestamp checked; file ownership is not checked on this OS"
                },
            )
        } else {
            let lines: Vec<String> = scan
                .ignored
                .iter()
                .map(|i| format!("{} [{}]: {}", i.file.display(), i.reason.code(), i.reason.describe()))
                .collect();
            check(
                "heartbeat_trust",
                "heartbeat files trusted",
                Status::Warn,
                format!("{} ignored: {}", lines.len(), lines.join("; ")),
            )
            .fix(
                "Only heartbeats written by your own Unity Editor are used. Remove files you do not \
                 recognize and make the instances directory private (chmod 700)",
            )
        });
    }
    out.push(match chosen {
        None => skip("listener", "listener owner", "no instance chosen"),
        Some(i) => {
            let verdict = discovery::verify_listener(i.port(), i.pid());
            let detail = verdict.describe(i.port());
            match verdict {
                discovery::ListenerCheck::Verified { .. } => {
                    check("listener", "listener owner", Status::Ok, detail)
                }
                discovery::ListenerCheck::Stranger { .. } => {
                    check("listener", "listener owner", Status::Fail, detail).fix(
                        "Another user's program holds the Editor's port: nothing will be sent to it. \
                         Stop that program (see `ss -ltnp`), then restart Unity so it binds a port of its own",
                    )
                }
                discovery::ListenerCheck::NotListening | discovery::ListenerCheck::Unverifiable { .. } => {
                    check("listener", "listener owner", Status::Warn, detail)
                }
            }
        }
    });
    out
}

/// Checks that need no Editor.
fn local_checks(g: &Globals) -> Vec<Check> {
    let mut v = vec![
        results_dir_check(&g.home.results_dir()),
        job_results_check(&g.home.status_dir()),
        mcp_check(),
    ];
    v.extend(client_checks());
    v
}

fn results_dir_check(dir: &Path) -> Check {
    const TITLE: &str = "result-cache permissions";
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => check(
            "results_dir",
            TITLE,
            Status::Ok,
            format!(
                "{} does not exist yet (created 0700 on first use)",
                dir.display()
            ),
        ),
        Err(e) => check(
            "results_dir",
            TITLE,
            Status::Fail,
            format!("{}: {e}", dir.display()),
        )
        .fix(format!("Make {} readable by this user", dir.display())),
        Ok(m) if !m.is_dir() => check(
            "results_dir",
            TITLE,
            Status::Fail,
            format!("{} is not a directory", dir.display()),
        )
        .fix(format!("Remove {} so it can be recreated", dir.display())),
        Ok(m) => match crate::platform::fs::shared_mode(&m) {
            Some(mode) => check(
                "results_dir",
                TITLE,
                Status::Fail,
                format!(
                    "{} has mode {mode:o}; cached results may hold project data and must be private",
                    dir.display()
                ),
            )
            .fix(format!("chmod 700 {}", dir.display())),
            None => check("results_dir", TITLE, Status::Ok, dir.display().to_string()),
        },
    }
}

/// Finished jobs' results on the file bus: the Connector never removes them, we do after a week.
fn job_results_check(status_dir: &Path) -> Check {
    use crate::tasks::retention::{RESULT_RETENTION, survey};
    let days = RESULT_RETENTION.as_secs() / 86_400;
    let s = survey(status_dir, std::time::SystemTime::now());
    let more = if s.truncated {
        " (folder only partly read)"
    } else {
        ""
    };
    let mut detail = format!(
        "{} result file(s), {} KiB{more}, in {}; each is removed {days} days after its job \
         finished, when a later job starts",
        s.count,
        s.bytes.div_ceil(1024),
        status_dir.display()
    );
    if s.expired > 0 {
        detail.push_str(&format!(
            "; {} older than that, removed at the next test run or package job",
            s.expired
        ));
    }
    check("job_results", "finished job results", Status::Ok, detail)
}

fn mcp_check() -> Check {
    const TITLE: &str = "MCP server enabled";
    if super::env_boolean("HERA_MCP_ENABLED") == Some(true) {
        check(
            "mcp",
            TITLE,
            Status::Ok,
            "HERA_MCP_ENABLED is set in this environment",
        )
    } else {
        check(
            "mcp",
            TITLE,
            Status::Warn,
            "HERA_MCP_ENABLED is not set here, so `hera-agent-unity mcp` would refuse to start",
        )
        .fix(
            "Run `hera-agent-unity setup <client>`, which writes HERA_MCP_ENABLED=1 into the \
             client's entry (the client's environment is what counts, not this shell's), or add \
             \"env\": {\"HERA_MCP_ENABLED\": \"1\"} to the entry by hand",
        )
    }
}

/// Step 8, MCP clients: every client configuration that launches `hera-agent-unity`, and
/// whether it launches this binary, with `HERA_MCP_ENABLED`, at a path that exists.
fn client_checks() -> Vec<Check> {
    let Some(loc) = Locations::from_env() else {
        return vec![skip("clients", "MCP clients", "no home directory")];
    };
    let this = crate::platform::path::current_exe().unwrap_or_default();
    let mut out = Vec::new();
    for c in Client::ALL {
        if let Some(found) = client_check(c, &c.config_path(&loc), &this) {
            out.push(found);
        }
    }
    if out.is_empty() {
        out.push(
            check(
                "clients",
                "MCP clients",
                Status::Warn,
                "no MCP client configuration (Claude Code, Claude Desktop, Cursor, VS Code, Codex, \
                 Windsurf) launches hera-agent-unity",
            )
            .fix(
                "Run `hera-agent-unity setup <client>`, e.g. `hera-agent-unity setup claude-code`",
            ),
        );
    }
    out
}

/// One client's finding, or `None` when its file does not exist or has no entry of ours.
fn client_check(c: Client, path: &Path, this: &Path) -> Option<Check> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            return Some(
                check(
                    c.check_id(),
                    c.title(),
                    Status::Warn,
                    format!("{}: {e}", path.display()),
                )
                .fix(format!("Make {} readable by this user", path.display())),
            );
        }
    };
    let shown = path.display().to_string();
    let setup = format!("hera-agent-unity setup {}", c.id());
    let entries = match setup::entries(c.shape(), &shown, &text) {
        Ok(e) => e,
        Err(e) => {
            return Some(
                check(c.check_id(), c.title(), Status::Warn, e.to_string()).fix(format!(
                    "{} cannot read this file either: fix its syntax, then run `{setup}`",
                    c.title()
                )),
            );
        }
    };
    if entries.is_empty() {
        return None;
    }
    let mut problems = Vec::new();
    let mut fine = Vec::new();
    let mut worst = Status::Ok;
    for e in &entries {
        let target = setup::resolve_target(&e.command, this);
        match &target {
            Target::Missing => {
                worst = Status::Fail;
                problems.push(if crate::platform::path::is_absolute(&e.command, Os::host()) {
                    format!("server {:?} runs {}, which does not exist", e.name, e.command)
                } else {
                    format!(
                        "server {:?} runs {:?}, which is not on this PATH (a client started from \
                         the desktop often has an even shorter one)",
                        e.name, e.command
                    )
                });
            }
            Target::OtherCopy(p) => {
                if worst == Status::Ok {
                    worst = Status::Warn;
                }
                problems.push(format!(
                    "server {:?} runs another copy, {} (this one is {})",
                    e.name,
                    p.display(),
                    this.display()
                ));
            }
            Target::ThisBinary => {}
        }
        if !e.enabled() {
            worst = Status::Fail;
            problems.push(format!(
                "server {:?} has no HERA_MCP_ENABLED=1 in its env, so the server refuses to start",
                e.name
            ));
        } else if target == Target::ThisBinary {
            fine.push(format!(
                "server {:?} runs this binary{}",
                e.name,
                e.env_value(setup::PROJECT_VAR)
                    .map(|p| format!(", pinned to {p}"))
                    .unwrap_or_default()
            ));
        }
    }
    let mut detail = format!("{shown}: ");
    detail.push_str(
        &problems
            .iter()
            .chain(fine.iter())
            .cloned()
            .collect::<Vec<_>>()
            .join("; "),
    );
    let c_check = check(c.check_id(), c.title(), worst, detail);
    Some(if worst == Status::Ok {
        c_check
    } else {
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        let named = if names == ["unity"] {
            String::new()
        } else {
            format!(" --name {}", names[0])
        };
        c_check.fix(format!(
            "Run `{setup}{named}`: it points the entry at {} with HERA_MCP_ENABLED=1 and keeps \
             everything else; then restart {}",
            this.display(),
            c.title()
        ))
    })
}
