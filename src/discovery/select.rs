//! Choosing one Editor from a scan (§1.6), and finding a project again after it moved.

use super::DiscoveryError;
use super::instance::{IgnoredHeartbeat, Instance, Scan};
use hera_connector_contract::identity::{PathFlavor, normalize_project_path};
use std::path::{Path, PathBuf};

/// What the user asked for. Flags override the environment; see [`Selector::from_env`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    /// `--port` / `HERA_AGENT_PORT`.
    pub port: Option<u16>,
    /// `--project` / `HERA_AGENT_PROJECT`: an exact path or a unique substring of one.
    pub project: Option<String>,
    /// The working directory, for "the Editor of the project I am standing in".
    pub cwd: Option<PathBuf>,
}

impl Selector {
    /// Port and project from `HERA_AGENT_PORT` / `HERA_AGENT_PROJECT` (empty or `0` means unset),
    /// plus the current directory. A malformed port is an error, not silently ignored.
    pub fn from_env() -> Result<Selector, DiscoveryError> {
        let port = match std::env::var("HERA_AGENT_PORT") {
            Ok(v) if !v.trim().is_empty() => parse_port(v.trim())?,
            _ => None,
        };
        let project = std::env::var("HERA_AGENT_PROJECT")
            .ok()
            .filter(|p| !p.trim().is_empty());
        Ok(Selector {
            port,
            project,
            cwd: std::env::current_dir().ok(),
        })
    }
}

/// Parses a port; `0` means "no port given" as in Go.
pub fn parse_port(text: &str) -> Result<Option<u16>, DiscoveryError> {
    match text.parse::<u16>() {
        Ok(0) => Ok(None),
        Ok(p) => Ok(Some(p)),
        Err(_) => Err(DiscoveryError::InvalidPort(text.to_string())),
    }
}

fn norm(p: &str) -> String {
    normalize_project_path(p, PathFlavor::host())
}

/// The working-directory rule of §1.6, the one place it is written: `cwd`, normalized, is the
/// project directory (`normalized_project`, already normalized) or lies under it, i.e. starts
/// with the project path plus `/`. Mere name prefixes do not count (`/work/GameTools` is not
/// inside `/work/Game`), and an empty project path contains nothing.
///
/// Selection uses it to pick "the Editor of the project I am standing in"; the MCP server uses
/// it to decide whether its working directory pins it to the project it follows. Both must
/// agree, or the server would follow an Editor that selection would not have chosen.
pub fn cwd_within(normalized_project: &str, cwd: &Path) -> bool {
    if normalized_project.is_empty() {
        return false;
    }
    let here = norm(&cwd.to_string_lossy());
    here == normalized_project
        || here.starts_with(&format!("{}/", normalized_project.trim_end_matches('/')))
}

fn newest<'a>(it: impl Iterator<Item = &'a Instance>) -> Option<&'a Instance> {
    // Ties keep the earlier one (directory order), matching a stable "greatest timestamp" scan.
    it.fold(None, |best: Option<&Instance>, i| match best {
        Some(b) if b.timestamp_ms() >= i.timestamp_ms() => Some(b),
        _ => Some(i),
    })
}

/// Applies the selection rules to one scan:
/// 1. a port: the newest active heartbeat on it, and it must belong to the project if one was given;
/// 2. a project: an exact normalized match, else a unique substring match, else ambiguity;
/// 3. the working directory inside a project;
/// 4. the newest active heartbeat.
///
/// The chosen heartbeat must have a port; `port: 0` means "not listening yet" (retryable).
///
/// When nothing trusted matches but ignored heartbeat files claim the target (another user's
/// file, a future timestamp…), the error says so instead of "not running".
pub fn select(scan: &Scan, sel: &Selector) -> Result<Instance, DiscoveryError> {
    let chosen = select_any(scan, sel).map_err(|e| explain_ignored(scan, sel, e))?;
    if !chosen.is_listening() {
        return Err(DiscoveryError::NotListening {
            project: chosen.project_path.clone(),
        });
    }
    Ok(chosen)
}

/// Turns "nothing found" into [`DiscoveryError::UntrustedHeartbeats`] when ignored files claim
/// what was asked for.
fn explain_ignored(scan: &Scan, sel: &Selector, e: DiscoveryError) -> DiscoveryError {
    let claims = |i: &&IgnoredHeartbeat| match (&e, sel.port, &sel.project) {
        (DiscoveryError::NoInstanceOnPort { .. }, Some(port), _) => i.claimed_port == Some(port),
        (DiscoveryError::ProjectNotFound { .. }, None, Some(project)) => i
            .claimed_project
            .as_deref()
            .is_some_and(|p| norm(p).contains(&norm(project))),
        (DiscoveryError::NoInstancesRunning { .. }, _, _) => true,
        _ => false,
    };
    let ignored: Vec<String> = scan
        .ignored
        .iter()
        .filter(claims)
        .map(|i| format!("{}: {}", i.file.display(), i.reason.describe()))
        .collect();
    if ignored.is_empty() {
        return e;
    }
    let wanted = match (sel.port, &sel.project) {
        (Some(port), _) => format!("port {port}"),
        (None, Some(project)) => format!("project {project}"),
        _ => "any project".to_string(),
    };
    DiscoveryError::UntrustedHeartbeats { wanted, ignored }
}

fn select_any(scan: &Scan, sel: &Selector) -> Result<Instance, DiscoveryError> {
    let active: Vec<&Instance> = scan.active().collect();
    if let Some(port) = sel.port {
        let Some(hit) = newest(active.iter().copied().filter(|i| i.port() == port)) else {
            return reloading_on(&active, port, sel.project.as_deref());
        };
        if let Some(project) = &sel.project
            && norm(project) != hit.normalized_path
        {
            return Err(DiscoveryError::TargetMismatch {
                port,
                owner: hit.project_path.clone(),
                requested: project.clone(),
            });
        }
        return Ok(hit.clone());
    }
    if let Some(project) = &sel.project {
        let query = norm(project);
        if let Some(hit) = newest(
            active
                .iter()
                .copied()
                .filter(|i| i.normalized_path == query),
        ) {
            return Ok(hit.clone());
        }
        let mut groups: Vec<&str> = active
            .iter()
            .filter(|i| i.normalized_path.contains(&query))
            .map(|i| i.normalized_path.as_str())
            .collect();
        groups.sort_unstable();
        groups.dedup();
        return match groups.as_slice() {
            [] => Err(DiscoveryError::ProjectNotFound {
                query: project.clone(),
                available: active.iter().map(|i| i.project_path.clone()).collect(),
            }),
            [one] => Ok(
                newest(active.iter().copied().filter(|i| i.normalized_path == *one))
                    .expect("group came from these instances")
                    .clone(),
            ),
            many => Err(DiscoveryError::AmbiguousProject {
                query: project.clone(),
                candidates: many.iter().map(|s| s.to_string()).collect(),
            }),
        };
    }
    if active.is_empty() {
        return Err(DiscoveryError::NoInstancesRunning {
            dir: scan.dir.clone(),
        });
    }
    if let Some(cwd) = &sel.cwd {
        // First in directory order, as Go does.
        if let Some(hit) = active.iter().find(|i| cwd_within(&i.normalized_path, cwd)) {
            return Ok((*hit).clone());
        }
    }
    Ok(newest(active.into_iter()).expect("non-empty").clone())
}

/// No active heartbeat names `port`. An Editor whose listener stopped before it wrote its
/// `reloading` heartbeat says `port: 0` for the whole domain reload, so the pinned port may be
/// that Editor's: when exactly one active heartbeat has no port (of the requested project, if
/// one was given), it is chosen, and [`select`] reports it as not listening yet, which callers
/// wait for within their timeout. The wait ends with a heartbeat that has a port again; a
/// caller that has not followed an Editor yet checks that it is the pinned one.
fn reloading_on(
    active: &[&Instance],
    port: u16,
    project: Option<&str>,
) -> Result<Instance, DiscoveryError> {
    let wanted = project.map(norm);
    let mut candidates = active
        .iter()
        .filter(|i| !i.is_listening() && wanted.as_ref().is_none_or(|p| *p == i.normalized_path));
    match (candidates.next(), candidates.next()) {
        (Some(one), None) => Ok((*one).clone()),
        _ => Err(DiscoveryError::NoInstanceOnPort { port }),
    }
}

/// `status --port N` without a project also sees `stopped` instances (§1.6 step 5).
pub fn find_by_port_including_stopped(scan: &Scan, port: u16) -> Option<Instance> {
    newest(
        scan.instances
            .iter()
            .filter(|i| i.port() == port && i.timestamp_ms() > 0),
    )
    .cloned()
}

/// The newest active heartbeat of a project (by normalized path), wherever its port is now.
/// This is how a client follows an Editor across a domain reload that moved its port.
pub fn find_project(scan: &Scan, normalized_path: &str) -> Option<Instance> {
    newest(
        scan.active()
            .filter(|i| i.normalized_path == normalized_path),
    )
    .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hera_connector_contract::wire::Heartbeat;

    fn inst(file: &str, project: &str, port: u16, ts: i64, state: &str) -> Instance {
        let hb = Heartbeat {
            state: Some(state.into()),
            project_path: Some(project.into()),
            port,
            pid: None,
            unity_version: None,
            docs_version: None,
            compiler: None,
            domain_epoch: None,
            features: None,
            timestamp: Some(ts),
            compile_errors: None,
        };
        Instance::from_heartbeat(hb, PathBuf::from(file))
    }
    fn scan(v: Vec<Instance>) -> Scan {
        Scan {
            dir: PathBuf::from("/h/.hera-agent-unity/instances"),
            instances: v,
            ..Default::default()
        }
    }
    fn sel(port: Option<u16>, project: Option<&str>, cwd: Option<&str>) -> Selector {
        Selector {
            port,
            project: project.map(String::from),
            cwd: cwd.map(PathBuf::from),
        }
    }

    #[test]
    fn rules_in_order() {
        let s = scan(vec![
            inst("a.json", "/work/Game", 8090, 100, "ready"),
            inst("b.json", "/work/GameTools", 8091, 300, "ready"),
            inst("c.json", "/other/Demo", 8092, 200, "ready"),
            inst("d.json", "/old/Stopped", 8093, 900, "stopped"),
        ]);
        // 1. port
        assert_eq!(
            select(&s, &sel(Some(8091), None, None)).unwrap().port(),
            8091
        );
        assert!(matches!(
            select(&s, &sel(Some(8093), None, None)),
            Err(DiscoveryError::NoInstanceOnPort { port: 8093 })
        ));
        assert!(matches!(
            select(&s, &sel(Some(8091), Some("/work/Game"), None)),
            Err(DiscoveryError::TargetMismatch { .. })
        ));
        // 2. project: exact beats substring; unique substring; ambiguity; not found
        assert_eq!(
            select(&s, &sel(None, Some("/work/Game/"), None))
                .unwrap()
                .port(),
            8090
        );
        assert_eq!(
            select(&s, &sel(None, Some("Demo"), None)).unwrap().port(),
            8092
        );
        match select(&s, &sel(None, Some("Game"), None)) {
            Err(DiscoveryError::AmbiguousProject { candidates, .. }) => {
                assert_eq!(candidates, vec!["/work/Game", "/work/GameTools"])
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            select(&s, &sel(None, Some("Nope"), None)),
            Err(DiscoveryError::ProjectNotFound { .. })
        ));
        // 3. cwd inside a project (not a mere prefix of the name)
        assert_eq!(
            select(&s, &sel(None, None, Some("/work/Game/Assets")))
                .unwrap()
                .port(),
            8090
        );
        assert_eq!(
            select(&s, &sel(None, None, Some("/work/GameTools")))
                .unwrap()
                .port(),
            8091
        );
        // 4. newest active (the stopped one is newer but ignored)
        assert_eq!(
            select(&s, &sel(None, None, Some("/elsewhere")))
                .unwrap()
                .port(),
            8091
        );
    }

    #[test]
    fn the_working_directory_is_within_a_project_only_from_inside_it() {
        assert!(cwd_within("/work/Game", Path::new("/work/Game")));
        assert!(cwd_within(
            "/work/Game",
            Path::new("/work/Game/Assets/Scenes")
        ));
        assert!(!cwd_within("/work/Game", Path::new("/work/GameTools")));
        assert!(!cwd_within("/work/Game", Path::new("/work")));
        assert!(!cwd_within("", Path::new("/work")));
    }

    #[test]
    fn port_zero_is_not_listening_and_empty_is_not_running() {
        let s = scan(vec![inst("a.json", "/p/A", 0, 100, "reloading")]);
        assert!(matches!(
            select(&s, &sel(None, None, None)),
            Err(DiscoveryError::NotListening { .. })
        ));
        assert!(matches!(
            select(&scan(vec![]), &sel(None, None, None)),
            Err(DiscoveryError::NoInstancesRunning { .. })
        ));
        assert!(parse_port("0").unwrap().is_none());
        assert!(parse_port("x").is_err());
    }

    /// D9: with the port pinned, the one Editor that is reloading with `port: 0` may be the
    /// pinned port's, so it is chosen (and reported as not listening, which callers wait for);
    /// two such Editors, or one of another requested project, are not guessed between.
    #[test]
    fn a_pinned_port_waits_for_the_one_editor_reloading_without_a_port() {
        let one = scan(vec![
            inst("a.json", "/p/A", 0, 100, "reloading"),
            inst("b.json", "/p/B", 8091, 200, "ready"),
        ]);
        assert_eq!(
            select(&one, &sel(Some(8090), None, None)),
            Err(DiscoveryError::NotListening {
                project: "/p/A".into()
            })
        );
        assert!(matches!(
            select(&one, &sel(Some(8090), Some("/p/A"), None)),
            Err(DiscoveryError::NotListening { .. })
        ));
        assert_eq!(
            select(&one, &sel(Some(8090), Some("/p/C"), None)),
            Err(DiscoveryError::NoInstanceOnPort { port: 8090 })
        );
        // A heartbeat on the pinned port wins over any reloading one.
        assert_eq!(
            select(&one, &sel(Some(8091), None, None))
                .unwrap()
                .project_path,
            "/p/B"
        );
        let two = scan(vec![
            inst("a.json", "/p/A", 0, 100, "reloading"),
            inst("c.json", "/p/C", 0, 150, "reloading"),
        ]);
        assert_eq!(
            select(&two, &sel(Some(8090), None, None)),
            Err(DiscoveryError::NoInstanceOnPort { port: 8090 })
        );
    }

    #[test]
    fn follow_finds_the_project_on_its_new_port() {
        let s = scan(vec![
            inst("a.json", "/p/A", 8095, 500, "ready"),
            inst("b.json", "/p/B", 8090, 600, "ready"),
        ]);
        assert_eq!(find_project(&s, "/p/A").unwrap().port(), 8095);
        assert!(find_project(&s, "/p/C").is_none());
    }
}
