//! One heartbeat file, read tolerantly (§1.2, §1.4), and the scan of the instances directory.

use super::DiscoveryError;
use super::home::AgentHome;
use super::liveness::pid_alive;
use hera_connector_contract::identity::{PathFlavor, normalize_project_path, project_id};
use hera_connector_contract::wire::Heartbeat;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Read attempts for one heartbeat file and the pause between them. The Connector's copy
/// fallback can leave a half-written file for a moment; Go retries 5 times, 50 ms apart.
pub const READ_ATTEMPTS: u32 = 5;
pub const READ_RETRY_PAUSE: Duration = Duration::from_millis(50);
/// Age above which `status` and `doctor` call a heartbeat stale. Discovery never uses it.
pub const STALE_AFTER_MS: i64 = 3000;

/// A running (or recently running) Editor as its heartbeat file describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    pub heartbeat: Heartbeat,
    /// The heartbeat file this came from.
    pub file: PathBuf,
    /// `projectPath` exactly as written (empty when the Connector omitted it).
    pub project_path: String,
    /// The normalized form used for every comparison (§1.6).
    pub normalized_path: String,
}

impl Instance {
    pub fn from_heartbeat(heartbeat: Heartbeat, file: PathBuf) -> Instance {
        let project_path = heartbeat.project_path.clone().unwrap_or_default();
        let normalized_path = normalize_project_path(&project_path, PathFlavor::host());
        Instance {
            heartbeat,
            file,
            project_path,
            normalized_path,
        }
    }
    pub fn port(&self) -> u16 {
        self.heartbeat.port
    }
    pub fn pid(&self) -> Option<i64> {
        self.heartbeat.pid
    }
    pub fn state(&self) -> &str {
        self.heartbeat.state()
    }
    pub fn timestamp_ms(&self) -> i64 {
        self.heartbeat.timestamp.unwrap_or(0)
    }
    pub fn domain_epoch(&self) -> Option<&str> {
        self.heartbeat
            .domain_epoch
            .as_deref()
            .filter(|e| !e.is_empty())
    }
    /// `sha256:` id of the project, from the heartbeat path exactly as the Connector computes it.
    pub fn project_id(&self) -> String {
        project_id(&self.project_path)
    }
    /// Considered by discovery: not `stopped` and has written a timestamp (§1.5).
    pub fn is_active(&self) -> bool {
        self.state() != "stopped" && self.timestamp_ms() > 0
    }
    /// A heartbeat with `port: 0` was written before the listener had a port (§1.3).
    pub fn is_listening(&self) -> bool {
        self.port() != 0
    }
    pub fn age_ms(&self, now_ms: i64) -> i64 {
        now_ms.saturating_sub(self.timestamp_ms())
    }
    /// Only for the human commands (`status`, `doctor`): older than 3 s.
    pub fn is_stale(&self, now_ms: i64) -> bool {
        self.age_ms(now_ms) > STALE_AFTER_MS
    }
}

/// Wall-clock Unix milliseconds, the unit of heartbeat timestamps.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Everything one pass over the instances directory found.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    pub dir: PathBuf,
    /// Parsed heartbeats of live (or unknown) processes, in file-name order (Go's directory order).
    pub instances: Vec<Instance>,
    /// Files that could not be read or parsed after every retry, with the reason.
    pub unreadable: Vec<(PathBuf, String)>,
    /// Heartbeats of dead processes that this scan deleted.
    pub removed_dead: Vec<PathBuf>,
}

impl Scan {
    pub fn active(&self) -> impl Iterator<Item = &Instance> {
        self.instances.iter().filter(|i| i.is_active())
    }
}

/// Reads one heartbeat, retrying a failed read or parse [`READ_ATTEMPTS`] times. Blocking.
pub fn read_heartbeat(path: &Path) -> Result<Heartbeat, String> {
    let mut last = String::new();
    for attempt in 0..READ_ATTEMPTS {
        if attempt > 0 {
            std::thread::sleep(READ_RETRY_PAUSE);
        }
        match std::fs::read(path) {
            Ok(bytes) => {
                let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
                match serde_json::from_slice::<Heartbeat>(text) {
                    Ok(hb) => return Ok(hb),
                    Err(e) => last = format!("not a heartbeat: {e}"),
                }
            }
            // Deleted between listing and reading: nothing to retry.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err("file vanished".into());
            }
            Err(e) => last = format!("unreadable: {e}"),
        }
    }
    Err(last)
}

/// Scans `<base>/instances/*.json` once, fresh (no caching). Heartbeats of processes the OS
/// confirms dead are deleted, as the Go client does, so a crashed Editor stops being chosen.
/// Blocking: up to 200 ms per damaged file because of the read retry.
pub fn scan(home: &AgentHome) -> Result<Scan, DiscoveryError> {
    let dir = home.instances_dir();
    let entries = std::fs::read_dir(&dir).map_err(|e| DiscoveryError::NoInstancesDir {
        dir: dir.clone(),
        reason: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    let mut scan = Scan {
        dir,
        ..Default::default()
    };
    for file in files {
        match read_heartbeat(&file) {
            Ok(hb) => {
                if hb.pid.and_then(pid_alive) == Some(false) {
                    // Best effort: another client may have removed it first.
                    let _ = std::fs::remove_file(&file);
                    scan.removed_dead.push(file);
                    continue;
                }
                scan.instances.push(Instance::from_heartbeat(hb, file));
            }
            Err(reason) if reason == "file vanished" => {}
            Err(reason) => scan.unreadable.push((file, reason)),
        }
    }
    Ok(scan)
}

/// [`scan`] on the blocking pool, for async callers.
pub async fn scan_async(home: &AgentHome) -> Result<Scan, DiscoveryError> {
    let home = home.clone();
    tokio::task::spawn_blocking(move || scan(&home))
        .await
        .unwrap_or_else(|e| {
            Err(DiscoveryError::NoInstancesDir {
                dir: PathBuf::new(),
                reason: format!("scan task failed: {e}"),
            })
        })
}
