//! One heartbeat file, read tolerantly (§1.2, §1.4), and the scan of the instances directory.

use super::DiscoveryError;
use super::home::AgentHome;
use super::liveness::{EditorLiveness, judge};
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
/// A real heartbeat is well under 2 KiB; anything larger is not the Connector's, and reading
/// it whole would let any file in the directory cost us its size in memory and time.
pub const MAX_HEARTBEAT_BYTES: u64 = 64 * 1024;
/// How far in the future a heartbeat's timestamp may be. Writer and reader share one clock on
/// one machine, so only the write-to-read race needs room; a file dated later than this was
/// written to win "newest" selection, not by an Editor.
pub const FUTURE_SKEW_MS: i64 = 5_000;

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
    /// Heartbeats whose process the OS cannot check and that have not moved for longer than
    /// [`super::liveness::PRESUMED_GONE_AFTER_MS`], with their age: presumed to be a dead
    /// Editor's, so never chosen, but kept on disk (shown by `status` and `doctor`).
    pub presumed_gone: Vec<(Instance, i64)>,
    /// Files that were not trusted as heartbeats, with the reason (never used, never deleted).
    pub ignored: Vec<IgnoredHeartbeat>,
}

/// A `*.json` file in the instances directory that discovery refused to believe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredHeartbeat {
    pub file: PathBuf,
    pub reason: IgnoreReason,
    /// What the file claimed, when it could be read safely: shown by `doctor` and used to
    /// explain a selection that found nothing ("the only heartbeat for that project was ignored").
    pub claimed_project: Option<String>,
    pub claimed_port: Option<u16>,
}

/// Why a heartbeat file was not trusted. Each one is something an Editor run by this user never
/// produces, and something another local user can produce to redirect our requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IgnoreReason {
    /// The file belongs to another user (only a process of ours can be our Editor).
    ForeignOwner { owner_uid: u32, our_uid: u32 },
    /// The instances directory is writable by other users, or owned by one, so anyone could
    /// have placed or replaced the file.
    UnsafeDirectory {
        dir: PathBuf,
        mode: u32,
        owner_uid: u32,
    },
    /// Larger than [`MAX_HEARTBEAT_BYTES`]; not read.
    TooLarge { bytes: u64 },
    /// Dated more than [`FUTURE_SKEW_MS`] ahead of our clock.
    FutureTimestamp { ahead_ms: i64 },
    /// A symbolic link or other non-regular file: a link could point at a file someone else controls.
    NotRegularFile,
}

impl IgnoreReason {
    /// A stable machine-readable code (`doctor --json`).
    pub fn code(&self) -> &'static str {
        match self {
            IgnoreReason::ForeignOwner { .. } => "foreign_owner",
            IgnoreReason::UnsafeDirectory { .. } => "unsafe_directory",
            IgnoreReason::TooLarge { .. } => "too_large",
            IgnoreReason::FutureTimestamp { .. } => "future_timestamp",
            IgnoreReason::NotRegularFile => "not_regular_file",
        }
    }
    /// What is wrong and what to do about it, for a human.
    pub fn describe(&self) -> String {
        match self {
            IgnoreReason::ForeignOwner { owner_uid, our_uid } => format!(
                "owned by uid {owner_uid}, not by us (uid {our_uid}); an Editor run by another \
                 user is not ours to drive. Remove the file if you do not know where it came from"
            ),
            IgnoreReason::UnsafeDirectory {
                dir,
                mode,
                owner_uid,
            } => format!(
                "the directory {} (mode {mode:o}, owner uid {owner_uid}) can be written by other \
                 users, so nothing in it can be trusted. Run `chmod go-w {}` (and make sure you own it)",
                dir.display(),
                dir.display()
            ),
            IgnoreReason::TooLarge { bytes } => format!(
                "{bytes} bytes, over the {MAX_HEARTBEAT_BYTES}-byte limit for a heartbeat; not read"
            ),
            IgnoreReason::FutureTimestamp { ahead_ms } => format!(
                "dated {:.1} s in the future (more than the {:.0} s allowed); a heartbeat written \
                 to win selection, or a clock that jumped back. Remove the file if the Editor is not running",
                *ahead_ms as f64 / 1000.0,
                FUTURE_SKEW_MS as f64 / 1000.0
            ),
            IgnoreReason::NotRegularFile => {
                "not a regular file (a symbolic link or device); the Connector writes plain files"
                    .into()
            }
        }
    }
}

impl Scan {
    pub fn active(&self) -> impl Iterator<Item = &Instance> {
        self.instances.iter().filter(|i| i.is_active())
    }
}

enum ReadFailure {
    Vanished,
    Unreadable(String),
    Ignored(IgnoreReason),
}

/// Opens without following a final symbolic link, on Unix; a link is reported by the caller.
fn open_nofollow(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

/// The uid this process acts as, the only owner a heartbeat may have.
#[cfg(unix)]
pub fn our_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Reads at most `limit` bytes; `Err(len)` when the file holds more.
pub fn read_bounded(
    reader: impl std::io::Read,
    limit: u64,
) -> std::io::Result<Result<Vec<u8>, u64>> {
    let mut buf = Vec::new();
    let n = std::io::Read::read_to_end(&mut reader.take(limit + 1), &mut buf)? as u64;
    if n > limit {
        return Ok(Err(n));
    }
    Ok(Ok(buf))
}

/// One attempt-loop over a file: the checks that need the open file (owner, type, size) run on
/// the descriptor that is then read, so the file cannot be swapped between check and read.
fn read_checked(path: &Path, our: Option<u32>) -> Result<Heartbeat, ReadFailure> {
    let mut last = String::new();
    for attempt in 0..READ_ATTEMPTS {
        if attempt > 0 {
            std::thread::sleep(READ_RETRY_PAUSE);
        }
        let file = match open_nofollow(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ReadFailure::Vanished);
            }
            #[cfg(unix)]
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return Err(ReadFailure::Ignored(IgnoreReason::NotRegularFile));
            }
            Err(e) => {
                last = format!("unreadable: {e}");
                continue;
            }
        };
        let meta = match file.metadata() {
            Ok(m) => m,
            Err(e) => {
                last = format!("unreadable: {e}");
                continue;
            }
        };
        if !meta.is_file() {
            return Err(ReadFailure::Ignored(IgnoreReason::NotRegularFile));
        }
        #[cfg(unix)]
        if let Some(our_uid) = our {
            use std::os::unix::fs::MetadataExt;
            if meta.uid() != our_uid {
                return Err(ReadFailure::Ignored(IgnoreReason::ForeignOwner {
                    owner_uid: meta.uid(),
                    our_uid,
                }));
            }
        }
        #[cfg(not(unix))]
        let _ = our;
        if meta.len() > MAX_HEARTBEAT_BYTES {
            return Err(ReadFailure::Ignored(IgnoreReason::TooLarge {
                bytes: meta.len(),
            }));
        }
        match read_bounded(&file, MAX_HEARTBEAT_BYTES) {
            // Grew past the limit after the size check.
            Ok(Err(n)) => return Err(ReadFailure::Ignored(IgnoreReason::TooLarge { bytes: n })),
            Ok(Ok(bytes)) => {
                let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
                match serde_json::from_slice::<Heartbeat>(text) {
                    Ok(hb) => return Ok(hb),
                    Err(e) => last = format!("not a heartbeat: {e}"),
                }
            }
            Err(e) => last = format!("unreadable: {e}"),
        }
    }
    Err(ReadFailure::Unreadable(last))
}

/// Parses heartbeat bytes the way a scan does (a UTF-8 BOM tolerated). The fuzz target's entry.
pub fn parse_heartbeat(bytes: &[u8]) -> Result<Heartbeat, String> {
    if bytes.len() as u64 > MAX_HEARTBEAT_BYTES {
        return Err(IgnoreReason::TooLarge {
            bytes: bytes.len() as u64,
        }
        .describe());
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice::<Heartbeat>(text).map_err(|e| format!("not a heartbeat: {e}"))
}

/// Whether the instances directory can be trusted at all: owned by us and writable by no one
/// else. `None` when it can; the reason every file in it is ignored otherwise.
#[cfg(unix)]
fn directory_distrust(dir: &Path, our_uid: u32) -> Option<IgnoreReason> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(dir).ok()?;
    let mode = meta.mode() & 0o7777;
    (mode & 0o022 != 0 || meta.uid() != our_uid).then(|| IgnoreReason::UnsafeDirectory {
        dir: dir.to_path_buf(),
        mode,
        owner_uid: meta.uid(),
    })
}

/// What a distrusted file claims, read with the size bound, for the report only.
fn claims(path: &Path) -> (Option<String>, Option<u16>) {
    let Ok(file) = open_nofollow(path) else {
        return (None, None);
    };
    match read_bounded(file, MAX_HEARTBEAT_BYTES) {
        Ok(Ok(bytes)) => match parse_heartbeat(&bytes) {
            Ok(hb) => (hb.project_path, Some(hb.port)),
            Err(_) => (None, None),
        },
        _ => (None, None),
    }
}

/// Scans `<base>/instances/*.json` once, fresh (no caching). Each heartbeat is judged by
/// [`judge`]: those of processes the OS confirms dead are deleted, as the Go client does, so a
/// crashed Editor stops being chosen; where the OS cannot tell (no pid, or no check on this
/// platform), a heartbeat older than two minutes goes to [`Scan::presumed_gone`] instead of
/// [`Scan::instances`] (the Connector may never write `stopped`, and never deletes its file).
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
        // Links and other non-files are kept here so that the scan reports them as ignored.
        .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.is_dir())
        .collect();
    files.sort();
    let mut scan = Scan {
        dir,
        ..Default::default()
    };
    #[cfg(unix)]
    let our = Some(our_uid());
    #[cfg(not(unix))]
    let our: Option<u32> = None;
    #[cfg(unix)]
    let dir_reason = directory_distrust(&scan.dir, our_uid());
    #[cfg(not(unix))]
    let dir_reason: Option<IgnoreReason> = None;
    let now = now_ms();
    for file in files {
        if let Some(reason) = &dir_reason {
            let (claimed_project, claimed_port) = claims(&file);
            scan.ignored.push(IgnoredHeartbeat {
                file,
                reason: reason.clone(),
                claimed_project,
                claimed_port,
            });
            continue;
        }
        match read_checked(&file, our) {
            Ok(hb) if hb.timestamp.is_some_and(|t| t > now + FUTURE_SKEW_MS) => {
                scan.ignored.push(IgnoredHeartbeat {
                    file,
                    reason: IgnoreReason::FutureTimestamp {
                        ahead_ms: hb.timestamp.unwrap_or(0) - now,
                    },
                    claimed_project: hb.project_path,
                    claimed_port: Some(hb.port),
                });
            }
            Ok(hb) => match judge(&hb, now) {
                EditorLiveness::Gone => {
                    // Best effort: another client may have removed it first.
                    let _ = std::fs::remove_file(&file);
                    scan.removed_dead.push(file);
                }
                // A stopped heartbeat is not a target anyway, and `status --port` still shows it.
                EditorLiveness::PresumedGone { age_ms }
                    if hb.state.as_deref() != Some("stopped") =>
                {
                    scan.presumed_gone
                        .push((Instance::from_heartbeat(hb, file), age_ms));
                }
                _ => scan.instances.push(Instance::from_heartbeat(hb, file)),
            },
            Err(ReadFailure::Vanished) => {}
            Err(ReadFailure::Unreadable(reason)) => scan.unreadable.push((file, reason)),
            Err(ReadFailure::Ignored(reason)) => {
                // Size was checked first, so a too-large file is never parsed here.
                let (claimed_project, claimed_port) = match reason {
                    IgnoreReason::TooLarge { .. } | IgnoreReason::NotRegularFile => (None, None),
                    _ => claims(&file),
                };
                scan.ignored.push(IgnoredHeartbeat {
                    file,
                    reason,
                    claimed_project,
                    claimed_port,
                });
            }
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn heartbeat_json(project: &str, port: u16, ts: i64) -> String {
        serde_json::json!({"state": "ready", "projectPath": project, "port": port,
            "pid": std::process::id(), "timestamp": ts})
        .to_string()
    }

    fn home_with(files: &[(&str, String)]) -> (tempfile::TempDir, AgentHome) {
        let tmp = tempfile::tempdir().unwrap();
        let home = AgentHome::for_home(tmp.path());
        let dir = home.instances_dir();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        (tmp, home)
    }

    fn reasons(scan: &Scan) -> Vec<(String, &'static str)> {
        let mut v: Vec<_> = scan
            .ignored
            .iter()
            .map(|i| {
                (
                    i.file.file_name().unwrap().to_string_lossy().into_owned(),
                    i.reason.code(),
                )
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn oversized_and_future_dated_heartbeats_are_ignored_with_a_reason() {
        let now = now_ms();
        let mut big = heartbeat_json("/p/Big", 8092, now);
        big.push_str(&" ".repeat(MAX_HEARTBEAT_BYTES as usize));
        let (_t, home) = home_with(&[
            ("good.json", heartbeat_json("/p/Game", 8090, now)),
            (
                "future.json",
                heartbeat_json("/p/Game", 8091, now + 3_600_000),
            ),
            ("skew.json", heartbeat_json("/p/Skew", 8093, now + 1_000)),
            ("big.json", big),
        ]);
        let s = scan(&home).unwrap();
        assert_eq!(
            reasons(&s),
            vec![
                ("big.json".to_string(), "too_large"),
                ("future.json".to_string(), "future_timestamp")
            ]
        );
        let ports: Vec<u16> = s.instances.iter().map(Instance::port).collect();
        assert_eq!(ports, vec![8090, 8093], "a small skew is tolerated");
        let future = s
            .ignored
            .iter()
            .find(|i| i.reason.code() == "future_timestamp")
            .unwrap();
        assert_eq!(future.claimed_port, Some(8091));
        assert!(future.reason.describe().contains("in the future"));
        // The future-dated impostor does not win "newest" for the project.
        let sel = super::super::Selector {
            project: Some("/p/Game".into()),
            ..Default::default()
        };
        assert_eq!(super::super::select(&s, &sel).unwrap().port(), 8090);
    }

    #[test]
    fn a_heartbeat_read_stops_at_the_limit() {
        let data = vec![b' '; 10 * MAX_HEARTBEAT_BYTES as usize];
        match read_bounded(&data[..], MAX_HEARTBEAT_BYTES).unwrap() {
            Err(n) => assert_eq!(
                n,
                MAX_HEARTBEAT_BYTES + 1,
                "read one byte past the limit, no more"
            ),
            Ok(_) => panic!("an oversized input was accepted"),
        }
        assert_eq!(
            read_bounded(&b"{}"[..], MAX_HEARTBEAT_BYTES).unwrap(),
            Ok(b"{}".to_vec())
        );
        // An endless source (a FIFO or /dev/zero named *.json) costs one bounded read.
        let zero = std::fs::File::open("/dev/zero").unwrap();
        assert!(read_bounded(zero, MAX_HEARTBEAT_BYTES).unwrap().is_err());
    }

    #[test]
    fn links_and_writable_directories_are_not_trusted() {
        let now = now_ms();
        let (_t, home) = home_with(&[("real.json", heartbeat_json("/p/Game", 8090, now))]);
        let dir = home.instances_dir();
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(outside.path(), heartbeat_json("/p/Game", 8095, now)).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.join("link.json")).unwrap();
        let s = scan(&home).unwrap();
        assert_eq!(
            reasons(&s),
            vec![("link.json".to_string(), "not_regular_file")]
        );
        assert_eq!(s.instances.len(), 1);

        for mode in [0o770, 0o777, 0o1777, 0o720] {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).unwrap();
            let s = scan(&home).unwrap();
            assert!(s.instances.is_empty(), "mode {mode:o}: {:?}", s.instances);
            assert!(
                s.ignored
                    .iter()
                    .all(|i| i.reason.code() == "unsafe_directory"),
                "mode {mode:o}"
            );
            assert_eq!(s.ignored.len(), 2);
            let e = super::super::select(&s, &Default::default()).unwrap_err();
            assert!(e.to_string().contains("chmod go-w"), "{e}");
        }
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(scan(&home).unwrap().instances.len(), 1);
    }

    /// Needs a second uid: as root, the file is given to `nobody`.
    #[test]
    fn a_heartbeat_owned_by_another_user_is_ignored_even_for_an_exact_project() {
        if our_uid() != 0 {
            eprintln!(
                "SKIPPED: needs root to give a heartbeat file to another uid (running as uid {})",
                our_uid()
            );
            return;
        }
        let now = now_ms();
        let (_t, home) = home_with(&[
            ("mine.json", heartbeat_json("/p/Game", 8090, now - 2_000)),
            ("theirs.json", heartbeat_json("/p/Game", 8099, now)),
        ]);
        let theirs = home.instances_dir().join("theirs.json");
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        let s = scan(&home).unwrap();
        assert_eq!(
            reasons(&s),
            vec![("theirs.json".to_string(), "foreign_owner")]
        );
        let sel = super::super::Selector {
            project: Some("/p/Game".into()),
            ..Default::default()
        };
        assert_eq!(super::super::select(&s, &sel).unwrap().port(), 8090);
        // Alone, the foreign file is explained, not chosen, and never deleted.
        std::fs::remove_file(home.instances_dir().join("mine.json")).unwrap();
        let s = scan(&home).unwrap();
        match super::super::select(&s, &sel) {
            Err(super::super::DiscoveryError::UntrustedHeartbeats { ignored, .. }) => {
                assert!(ignored[0].contains("owned by uid 65534"), "{ignored:?}")
            }
            other => panic!("{other:?}"),
        }
        assert!(theirs.exists());
    }
}
