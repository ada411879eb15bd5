//! `doctor`: every link of the chain from this process to the Editor's catalog, checked in
//! order, each failure naming its fix. Later checks that depend on a failed one are skipped.

use super::context::Globals;
use super::exit;
use super::output::{Failure, print_json};
use super::status::describe;
use crate::catalog::{self, CatalogCache};
use crate::connector::{CallOptions, ConnectorClient};
use crate::discovery::{self, STALE_AFTER_MS, now_ms, user_home};
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

/// Runs every check; never fails itself.
pub async fn run_checks(g: &Globals) -> Vec<Check> {
    let mut out = Vec::new();
    let dir = g.home.instances_dir();
    let home_note = match user_home() {
        Some(h) => format!("home {}", h.display()),
        None => "no home directory found (HOME/USERPROFILE unset)".to_string(),
    };

    // 1. The heartbeat directory.
    let scan = match discovery::scan(&g.home) {
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
    };

    // 2. Instances.
    let mut chosen = None;
    if let Some(scan) = &scan {
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
        let note = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        };
        if active == 0 {
            out.push(
                check(
                    "instances",
                    "instances found",
                    Status::Fail,
                    format!("no running Editor{note}"),
                )
                .fix(INSTALL_FIX),
            );
        } else {
            out.push(check(
                "instances",
                "instances found",
                Status::Ok,
                format!("{active} running{note}"),
            ));
            // 3. Selection.
            match discovery::select(scan, &g.selector) {
                Ok(i) => {
                    out.push(check(
                        "selection",
                        "chosen instance",
                        Status::Ok,
                        format!("{} on port {}", i.project_path, i.port()),
                    ));
                    chosen = Some(i);
                }
                Err(e) => out.push(
                    check("selection", "chosen instance", Status::Fail, e.to_string()).fix(
                        "Pass --project with the exact project path (or a unique part of it), or \
                         --port; `hera-agent-unity status --json` lists what is running",
                    ),
                ),
            }
        }
    } else {
        out.push(skip(
            "instances",
            "instances found",
            "no heartbeat directory",
        ));
    }
    if scan.as_ref().is_some_and(|s| s.active().count() == 0) || scan.is_none() {
        out.push(skip("selection", "chosen instance", "no running Editor"));
    }

    out.extend(trust_checks(scan.as_ref(), chosen.as_ref()));

    // 4. Liveness and age of the chosen one.
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
    let now = now_ms();
    let d = describe(&inst, now).await;
    let age = inst.age_ms(now);
    let liveness = if inst.is_stale(now) {
        check(
            "liveness",
            "liveness and age",
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
    } else {
        check(
            "liveness",
            "liveness and age",
            Status::Ok,
            format!(
                "state {}, pid {:?} alive, heartbeat {:.1} s old",
                inst.state(),
                inst.pid(),
                age as f64 / 1000.0
            ),
        )
    };
    out.push(liveness);

    // 5. HTTP: any envelope from the listener proves the path works.
    let client = ConnectorClient::new(
        g.home.clone(),
        inst.clone(),
        g.timeout.min(HTTP_CHECK_TIMEOUT),
    );
    let mut names = Map::new();
    names.insert("names".into(), Value::Bool(true));
    let http_ok = match client
        .command(
            "list",
            &names,
            CallOptions {
                idempotent: true,
                ..Default::default()
            },
        )
        .await
    {
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
    };

    // 6. Features.
    let have: Vec<String> = inst.heartbeat.features.clone().unwrap_or_default();
    let missing: Vec<&str> = ALL_FEATURES
        .iter()
        .copied()
        .filter(|f| !have.iter().any(|h| h == f))
        .collect();
    out.push(if missing.is_empty() {
        check("features", "features", Status::Ok, have.join(", "))
    } else {
        check(
            "features",
            "features",
            Status::Warn,
            format!("missing {}", missing.join(", ")),
        )
        .fix(
            "Update the com.notnull92.hera-agent-unity package in the project; without these, \
             approval, safe retries or the strict catalog are unavailable",
        )
    });

    // 7. Catalog.
    if http_ok {
        let cache = CatalogCache::new(&g.home);
        match catalog::refresh(&client, Some(&cache)).await {
            Ok(s) => {
                let actions: usize = s.catalog.tools.iter().map(|t| t.actions.len()).sum();
                let detail = format!(
                    "{} tools, {} actions, hash {} verified, epoch {}",
                    s.catalog.tools.len(),
                    actions,
                    s.catalog_hash(),
                    s.domain_epoch()
                );
                out.push(if s.is_legacy() {
                    check("catalog", "catalog fetch and hash", Status::Warn, format!("legacy listing: {detail}"))
                        .fix("Update the package to get the strict catalog (safety contracts, approval)")
                } else {
                    check("catalog", "catalog fetch and hash", Status::Ok, detail)
                });
            }
            Err(e) => out.push(
                check("catalog", "catalog fetch and hash", Status::Fail, e.to_string()).fix(
                    "If Unity was reloading, run doctor again. A hash or project mismatch means the \
                     Connector's catalog is inconsistent: reimport the package or restart Unity; a \
                     custom tool with a broken contract breaks the catalog until it is fixed",
                ),
            ),
        }
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
    vec![results_dir_check(&g.home.results_dir()), mcp_check()]
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
        Ok(m) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = m.permissions().mode() & 0o777;
                if mode & 0o077 != 0 {
                    return check(
                        "results_dir",
                        TITLE,
                        Status::Fail,
                        format!(
                            "{} has mode {mode:o}; cached results may hold project data and must be private",
                            dir.display()
                        ),
                    )
                    .fix(format!("chmod 700 {}", dir.display()));
                }
                check(
                    "results_dir",
                    TITLE,
                    Status::Ok,
                    format!("{} (mode {mode:o})", dir.display()),
                )
            }
            #[cfg(not(unix))]
            {
                let _ = m;
                check("results_dir", TITLE, Status::Ok, dir.display().to_string())
            }
        }
    }
}

fn mcp_check() -> Check {
    const TITLE: &str = "MCP server enabled";
    if crate::mcp::env_flag("HERA_MCP_ENABLED") {
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
            "Add \"env\": {\"HERA_MCP_ENABLED\": \"1\"} to this server's entry in the MCP client \
             configuration (the client's environment is what counts, not this shell's)",
        )
    }
}
