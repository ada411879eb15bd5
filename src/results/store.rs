//! The on-disk cache of oversized results: `<home>/.hera-agent-unity/results/<project-hex>/`.
//!
//! One file per result, `<id>.hres`, so publication is a single atomic rename:
//!
//! ```text
//! hera-result/2\n
//! {"byte_size":…,"created_ms":…,"label":…,"operation_id":…,"project":"<hex>","sha256":"sha256:…","summary":…}\n
//! <64 hex: HMAC-SHA256 under the cache key of the two lines above>\n
//! <one zstd frame: the compact JSON payload>
//! ```
//!
//! Why these choices:
//! - **The id is the first 32 hex digits of the payload's SHA-256.** The name is checked against
//!   the content on every read (a file copied under another name fails), identical results share
//!   one file, and a handle carries nothing but hex (see `uri`).
//! - **Integrity on read.** The payload is decompressed (bounded by the size the header
//!   declares) and re-hashed with the project's one hashing routine; any mismatch is an
//!   integrity error and nothing is served. A spool never reuses what is on disk: it writes the
//!   whole payload to a fresh temp file and renames it over, so a tampered file is replaced, not
//!   trusted.
//! - **Retention counts from the last access** (write or successful read), kept as the file's
//!   mtime, which the store sets itself from its [`Clock`], so tests need no sleeping and a result
//!   an agent is still paging through does not vanish at the 24 h mark after its write.
//! - **The byte cap is per project** and counts bytes on disk; pruning touches only the project
//!   being written, evicts least recently used first and never the file just written.
//! - **Authenticity.** The header line carries the project it was stored for and is sealed with
//!   an HMAC under a random key kept in `results/.key` (0600, created on the first spool). Every
//!   header field `resources/list` shows is therefore covered, and so is the payload (through the
//!   header's SHA-256): a well-formed file that this adapter did not write (planted, copied from
//!   another project's folder, or left by another key) is neither listed nor served. Reads go
//!   through [`ResultStore::read_as`], which serves a handle only to the project that stored it.
//! - Directories are 0700 and files 0600 on Unix (created that way; an existing results
//!   directory with group or other access is tightened to 0700).

use super::uri::{ProjectKey, ReadRange, ResultId, ResultUri, UriError, clip};
use hera_connector_contract::canonical::sha256_prefixed;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Default time a result stays readable after its last access.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(24 * 60 * 60);
/// Default bytes on disk per project.
pub const DEFAULT_PROJECT_CAP_BYTES: u64 = 64 * 1024 * 1024;
/// Largest payload (uncompressed) the store accepts, which also bounds decompression on read.
pub const MAX_PAYLOAD_BYTES: u64 = 256 * 1024 * 1024;
/// Directory under `<home>/.hera-agent-unity`.
pub const RESULTS_DIR: &str = "results";
/// Environment overrides read by [`StoreConfig::from_env`].
pub const RETENTION_ENV: &str = "HERA_MCP_RESULT_RETENTION_SECS";
pub const CAP_ENV: &str = "HERA_MCP_RESULT_CACHE_BYTES";
/// The media type of a whole stored result.
pub const JSON_MIME: &str = "application/json";

const EXT: &str = "hres";
const MAGIC: &[u8] = b"hera-result/2\n";
/// The cache key's file name under `results/` (not a result: no `.hres`, so never listed).
const KEY_FILE: &str = ".key";
const KEY_BYTES: usize = 32;
const MAC_HEX: usize = 64;
const MAX_HEADER_BYTES: usize = 8 * 1024;
const TEMP_PREFIX: &str = ".tmp-";
/// A temp file older than this is a crash leftover (a live write takes far less).
const ORPHAN_AGE_MS: u64 = 60 * 60 * 1000;
const LABEL_CHARS: usize = 128;
const SUMMARY_CHARS: usize = 200;
const ZSTD_LEVEL: i32 = 3;

/// Milliseconds since the Unix epoch. Injectable so retention can be tested without sleeping.
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now_ms(&self) -> u64;
}

/// The wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        to_ms(SystemTime::now())
    }
}

fn to_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn from_ms(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

/// Retention and size limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreConfig {
    /// How long a result stays readable after its last write or read.
    pub retention: Duration,
    /// Bytes on disk per project; older results are evicted beyond it.
    pub project_cap_bytes: u64,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            retention: DEFAULT_RETENTION,
            project_cap_bytes: DEFAULT_PROJECT_CAP_BYTES,
        }
    }
}

/// A bad retention or cap setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl StoreConfig {
    /// Defaults overridden by [`RETENTION_ENV`] (seconds) and [`CAP_ENV`] (bytes).
    pub fn from_env() -> Result<StoreConfig, ConfigError> {
        let retention = std::env::var(RETENTION_ENV).ok();
        let cap = std::env::var(CAP_ENV).ok();
        StoreConfig::parse(retention.as_deref(), cap.as_deref())
    }

    /// Parses the two settings; `None` or blank keeps the default.
    pub fn parse(
        retention_secs: Option<&str>,
        cap_bytes: Option<&str>,
    ) -> Result<StoreConfig, ConfigError> {
        let mut c = StoreConfig::default();
        let positive = |name: &str, text: &str, max: u64| -> Result<u64, ConfigError> {
            match text.trim().parse::<u64>() {
                Ok(n) if (1..=max).contains(&n) => Ok(n),
                _ => Err(ConfigError(format!(
                    "{name} must be a whole number between 1 and {max}; got {:?}. Unset it to use the default.",
                    clip(text)
                ))),
            }
        };
        if let Some(t) = retention_secs.filter(|t| !t.trim().is_empty()) {
            c.retention = Duration::from_secs(positive(RETENTION_ENV, t, 365 * 24 * 3600)?);
        }
        if let Some(t) = cap_bytes.filter(|t| !t.trim().is_empty()) {
            c.project_cap_bytes = positive(CAP_ENV, t, 64 * 1024 * 1024 * 1024)?;
        }
        Ok(c)
    }
}

/// Everything that can go wrong, each with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    InvalidUri(#[from] UriError),
    #[error("invalid range for {uri}: {reason}")]
    InvalidRange { uri: String, reason: String },
    #[error(
        "result {uri} was not found: {why}. Results are kept {retention_hours} h after their last read; call the tool again to get a fresh one."
    )]
    NotFound {
        uri: String,
        why: &'static str,
        retention_hours: u64,
    },
    #[error(
        "result {uri} failed its integrity check ({detail}) and will not be served; call the tool again to store a fresh copy."
    )]
    Integrity { uri: String, detail: String },
    #[error(
        "result {uri} holds {findings} credential-shaped value(s) and will not be served; the cached copy was removed. Look at the data in the Unity Editor, or call the tool again with arguments that leave the credentials out."
    )]
    Withheld { uri: String, findings: usize },
    #[error(
        "the result is {bytes} bytes on disk, over the {cap}-byte cache cap for one project; call the tool again with projection arguments (limit, fields, ids only) to make it smaller, or raise {CAP_ENV}."
    )]
    TooLarge { bytes: u64, cap: u64 },
    #[error(
        "could not {action} in the result cache {dir}: {source}. Free disk space or fix the directory's permissions."
    )]
    Storage {
        action: &'static str,
        dir: String,
        #[source]
        source: io::Error,
    },
}

impl StoreError {
    /// A stable code for tool errors and logs.
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::InvalidUri(_) => "RESULT_URI_INVALID",
            StoreError::InvalidRange { .. } => "RESULT_RANGE_INVALID",
            StoreError::NotFound { .. } => "RESULT_NOT_FOUND",
            StoreError::Integrity { .. } => "RESULT_INTEGRITY_FAILED",
            StoreError::Withheld { .. } => "RESULT_WITHHELD",
            StoreError::TooLarge { .. } => "RESULT_TOO_LARGE",
            StoreError::Storage { .. } => "RESULT_STORAGE_FAILED",
        }
    }
}

/// What a spool stores besides the payload (shown by [`ResultStore::list`]).
#[derive(Debug, Clone, Default)]
pub struct SpoolMeta<'a> {
    /// What produced the result, e.g. `scene/hierarchy`.
    pub label: &'a str,
    pub operation_id: Option<&'a str>,
    /// One line saying what the result holds (see `preview::summary_line`).
    pub summary: &'a str,
}

/// A result that was just written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResult {
    pub uri: ResultUri,
    /// Bytes of the stored JSON text (what a full read returns).
    pub byte_size: u64,
    /// Bytes on disk (header + compressed payload).
    pub stored_bytes: u64,
    pub sha256: String,
    pub created_ms: u64,
    pub expires_at_ms: u64,
}

/// One entry of [`ResultStore::list`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedResult {
    pub uri: String,
    pub label: String,
    pub summary: String,
    pub operation_id: Option<String>,
    pub byte_size: u64,
    pub stored_bytes: u64,
    pub sha256: String,
    pub created_ms: u64,
    pub last_access_ms: u64,
    pub expires_at_ms: u64,
    pub mime_type: &'static str,
}

/// Which part of a result a ranged read served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedRange {
    pub unit: RangeUnit,
    pub offset: u64,
    pub length: u64,
    /// Bytes of the JSON text, or items of the array.
    pub total: u64,
    /// The handle of the following range of the same length, if anything is left.
    pub next_uri: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeUnit {
    Bytes,
    Items,
}

/// The answer to [`ResultStore::read`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultRead {
    /// The handle as read (range included), for the `uri` of the resource contents.
    pub uri: String,
    /// `application/json` for whole results and item ranges, `text/plain` for byte ranges
    /// (a fragment of JSON text is not a JSON document).
    pub mime_type: &'static str,
    pub text: String,
    /// Size and hash of the whole stored JSON text.
    pub byte_size: u64,
    pub sha256: String,
    pub range: Option<ServedRange>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Header {
    sha256: String,
    byte_size: u64,
    created_ms: u64,
    #[serde(default)]
    label: String,
    #[serde(default)]
    summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    operation_id: Option<String>,
    /// The project folder this result was written for (hex of its `project_id`).
    #[serde(default)]
    project: String,
}

/// Counts from one pruning pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PruneReport {
    pub expired: usize,
    pub evicted: usize,
    pub orphans: usize,
    pub remaining_bytes: u64,
}

/// The result cache. Cheap to share behind an `Arc`; all methods take `&self`.
#[derive(Debug)]
pub struct ResultStore {
    root: PathBuf,
    config: StoreConfig,
    clock: Arc<dyn Clock>,
    /// Serializes spool + prune inside this process (two writers racing on one eviction pass
    /// could otherwise evict each other's fresh file). Guards the per-project bookkeeping that
    /// lets a spool skip the directory walk (see [`PruneState`]).
    write_lock: Mutex<HashMap<String, PruneState>>,
    /// The sealing key, once read or created.
    key: Mutex<Option<[u8; KEY_BYTES]>>,
}

/// What the last full pass over a project's folder left, so that a spool only walks the folder
/// when it has to: when the bytes written since could exceed the cap, or when the last pass is
/// older than [`PRUNE_INTERVAL_MS`] (age-based expiry). A full pass per spool made a long
/// session's spills slower with every stored result (measured by examples/bench).
#[derive(Debug, Clone, Copy)]
struct PruneState {
    at_ms: u64,
    bytes: u64,
}

/// Longest time a spool goes without a full pruning pass of its project's folder. Reads check
/// expiry themselves, so this only bounds how long an expired file can sit on disk.
pub const PRUNE_INTERVAL_MS: u64 = 60_000;

impl ResultStore {
    /// A store under `agent_base` (`<home>/.hera-agent-unity`, i.e. `AgentHome::base()`).
    /// Nothing is created until the first spool.
    pub fn new(agent_base: &Path, config: StoreConfig) -> ResultStore {
        ResultStore {
            root: agent_base.join(RESULTS_DIR),
            config,
            clock: Arc::new(SystemClock),
            write_lock: Mutex::new(HashMap::new()),
            key: Mutex::new(None),
        }
    }

    /// The key that seals headers. With `create`, a missing (or untrustworthy) key file is
    /// replaced by a fresh random one; without, a missing key means nothing here is ours.
    fn key(&self, create: bool) -> io::Result<Option<[u8; KEY_BYTES]>> {
        let mut cached = self.key.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = *cached {
            return Ok(Some(k));
        }
        let path = self.root.join(KEY_FILE);
        if let Some(k) = read_key(&path) {
            *cached = Some(k);
            return Ok(Some(k));
        }
        if !create {
            return Ok(None);
        }
        crate::platform::fs::create_private_dir(&self.root)?;
        let _ = fs::remove_file(&path);
        let key: [u8; KEY_BYTES] = rand::random();
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        match opts.open(&path) {
            Ok(mut f) => {
                f.write_all(&key)?;
                f.sync_all()?;
                *cached = Some(key);
                Ok(Some(key))
            }
            // Another process created it first: use theirs.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let k = read_key(&path).ok_or(e)?;
                *cached = Some(k);
                Ok(Some(k))
            }
            Err(e) => Err(e),
        }
    }

    /// Replaces the clock (tests; or a shared clock of the embedding program).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> ResultStore {
        self.clock = clock;
        self
    }

    pub fn config(&self) -> StoreConfig {
        self.config
    }

    /// `<home>/.hera-agent-unity/results`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn retention_ms(&self) -> u64 {
        self.config.retention.as_millis() as u64
    }

    fn retention_hours(&self) -> u64 {
        self.config.retention.as_secs().div_ceil(3600)
    }

    fn project_dir(&self, project: &ProjectKey) -> PathBuf {
        self.root.join(project.as_hex())
    }

    fn file_path(&self, project: &ProjectKey, id: &ResultId) -> PathBuf {
        self.project_dir(project)
            .join(format!("{}.{EXT}", id.as_hex()))
    }

    fn storage(&self, action: &'static str, dir: &Path, source: io::Error) -> StoreError {
        StoreError::Storage {
            action,
            dir: dir.display().to_string(),
            source,
        }
    }

    /// Stores `payload` (compact JSON text) for `project` and prunes the project. On any failure
    /// nothing is published: the temp file is removed and no handle exists.
    pub fn put(
        &self,
        project: &ProjectKey,
        payload: &[u8],
        meta: &SpoolMeta<'_>,
    ) -> Result<StoredResult, StoreError> {
        if payload.len() as u64 > MAX_PAYLOAD_BYTES {
            return Err(StoreError::TooLarge {
                bytes: payload.len() as u64,
                cap: MAX_PAYLOAD_BYTES,
            });
        }
        let sha256 = sha256_prefixed(payload);
        let id = ResultId::of_hash(&sha256).expect("sha256_prefixed yields sha256:<64 hex>");
        let now = self.clock.now_ms();
        let header = Header {
            sha256: sha256.clone(),
            byte_size: payload.len() as u64,
            created_ms: now,
            label: super::preview::clip_chars(meta.label, LABEL_CHARS),
            summary: super::preview::clip_chars(meta.summary, SUMMARY_CHARS),
            operation_id: meta
                .operation_id
                .map(|o| super::preview::clip_chars(o, LABEL_CHARS)),
            project: project.as_hex().to_string(),
        };
        let key = self
            .key(true)
            .map_err(|e| self.storage("create the cache key", &self.root, e))?
            .expect("created on demand");
        let header_line = serde_json::to_vec(&header).expect("a header always serializes");
        let mut file = Vec::with_capacity(MAGIC.len() + 256 + payload.len() / 4);
        file.extend_from_slice(MAGIC);
        file.extend_from_slice(&header_line);
        file.push(b'\n');
        file.extend_from_slice(seal(&key, &header_line).as_bytes());
        file.push(b'\n');
        // Compressed straight after the header: the compressed bytes are held once.
        zstd::stream::copy_encode(payload, &mut file, ZSTD_LEVEL)
            .map_err(|e| self.storage("compress the result", &self.root, e))?;
        let stored_bytes = file.len() as u64;
        if stored_bytes > self.config.project_cap_bytes {
            return Err(StoreError::TooLarge {
                bytes: stored_bytes,
                cap: self.config.project_cap_bytes,
            });
        }

        let mut guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());
        let dir = self.project_dir(project);
        crate::platform::fs::create_private_dir(&self.root)
            .map_err(|e| self.storage("create the directory", &self.root, e))?;
        crate::platform::fs::create_private_dir(&dir)
            .map_err(|e| self.storage("create the directory", &dir, e))?;
        let target = self.file_path(project, &id);
        write_atomically(&target, &file, from_ms(now))
            .map_err(|e| self.storage("write the result", &dir, e))?;

        let due = match guard.get(project.as_hex()) {
            None => true,
            Some(last) => {
                now.saturating_sub(last.at_ms) >= PRUNE_INTERVAL_MS
                    || last.bytes.saturating_add(stored_bytes) > self.config.project_cap_bytes
            }
        };
        if due {
            match self.prune_locked(project, Some(&id)) {
                Ok(report) => {
                    let state = PruneState {
                        at_ms: now,
                        bytes: report.remaining_bytes,
                    };
                    guard.insert(project.as_hex().to_string(), state);
                }
                // The new result is complete and readable; a failed eviction only delays cleanup.
                Err(e) => tracing::warn!("result cache pruning failed: {e}"),
            }
        } else if let Some(last) = guard.get_mut(project.as_hex()) {
            last.bytes = last.bytes.saturating_add(stored_bytes);
        }
        Ok(StoredResult {
            uri: ResultUri::new(project.clone(), id),
            byte_size: payload.len() as u64,
            stored_bytes,
            sha256,
            created_ms: now,
            expires_at_ms: now.saturating_add(self.retention_ms()),
        })
    }

    /// [`ResultStore::read`] for the session of `project`: a handle of another project's
    /// folder is answered as not found, whatever it names. This is the read the MCP server uses.
    pub fn read_as(
        &self,
        project: &ProjectKey,
        uri: &str,
        range: Option<ReadRange>,
    ) -> Result<ResultRead, StoreError> {
        let parsed = ResultUri::parse(uri)?;
        if &parsed.project != project {
            return Err(StoreError::NotFound {
                uri: parsed.base(),
                why: "it belongs to another Unity project than the one this session follows",
                retention_hours: self.retention_hours(),
            });
        }
        self.read(uri, range)
    }

    /// Reads a result, verifying it, and refreshes its retention. `range` (or a range in the
    /// URI's query; giving both is an error unless they agree) selects part of it. Serves any
    /// project's handle: sessions use [`ResultStore::read_as`].
    pub fn read(&self, uri: &str, range: Option<ReadRange>) -> Result<ResultRead, StoreError> {
        let mut parsed = ResultUri::parse(uri)?;
        match (&parsed.range, range) {
            (Some(a), Some(b)) if *a != b => {
                return Err(StoreError::InvalidRange {
                    uri: parsed.base(),
                    reason: "the URI and the request name different ranges; give one".into(),
                });
            }
            (None, Some(b)) => parsed.range = Some(b),
            _ => {}
        }
        let (header, payload) = self.load(&parsed)?;
        let text = String::from_utf8(payload).map_err(|_| StoreError::Integrity {
            uri: parsed.base(),
            detail: "the payload is not UTF-8 text".into(),
        })?;
        // Screened again on the way out: the file may predate a ruleset that now flags it, and a
        // read must never be the way a credential reaches the agent.
        let doc: Value = serde_json::from_str(&text).map_err(|_| StoreError::Integrity {
            uri: parsed.base(),
            detail: "the payload is not JSON".into(),
        })?;
        let screening = super::screen::screen(&doc);
        drop(doc);
        if !screening.is_clean() {
            let _ = fs::remove_file(self.file_path(&parsed.project, &parsed.id));
            return Err(StoreError::Withheld {
                uri: parsed.base(),
                findings: screening.total,
            });
        }
        let (text, mime_type, served) = match parsed.range.clone() {
            None => (text, JSON_MIME, None),
            Some(ReadRange::Bytes { offset, length }) => {
                let (slice, served) = byte_range(&text, offset, length, &parsed);
                (slice, "text/plain", Some(served))
            }
            Some(ReadRange::Items {
                pointer,
                offset,
                length,
            }) => {
                let (doc, served) = item_range(&text, &pointer, offset, length, &parsed)?;
                (doc, JSON_MIME, Some(served))
            }
        };
        Ok(ResultRead {
            uri: parsed.to_string(),
            mime_type,
            text,
            byte_size: header.byte_size,
            sha256: header.sha256,
            range: served,
        })
    }

    /// Opens, checks retention, verifies and decompresses one result.
    fn load(&self, uri: &ResultUri) -> Result<(Header, Vec<u8>), StoreError> {
        let base = uri.base();
        let path = self.file_path(&uri.project, &uri.id);
        let not_found = |why| StoreError::NotFound {
            uri: base.clone(),
            why,
            retention_hours: self.retention_hours(),
        };
        // A file that fails verification is removed, so it is neither listed nor read again;
        // the next spool of the same result writes a good copy.
        let integrity = |detail: &str| {
            let _ = fs::remove_file(&path);
            StoreError::Integrity {
                uri: base.clone(),
                detail: format!("{detail}; the file was removed"),
            }
        };
        let mut file = match open_no_follow(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(not_found("no such result in this cache"));
            }
            Err(e) if is_symlink_refusal(&e) => return Err(not_found("not a regular file")),
            Err(e) => {
                return Err(self.storage("open a result", &self.project_dir(&uri.project), e));
            }
        };
        let meta = file
            .metadata()
            .map_err(|e| self.storage("inspect a result", &self.project_dir(&uri.project), e))?;
        if !meta.is_file() {
            return Err(not_found("not a regular file"));
        }
        let now = self.clock.now_ms();
        let last_access = meta.modified().map(to_ms).unwrap_or(0);
        if last_access.saturating_add(self.retention_ms()) <= now {
            let _ = fs::remove_file(&path);
            return Err(not_found("it expired"));
        }
        let limit = self
            .config
            .project_cap_bytes
            .max(meta.len())
            .min(MAX_PAYLOAD_BYTES + MAX_HEADER_BYTES as u64 + 64);
        let mut bytes = Vec::with_capacity(meta.len().min(limit) as usize);
        (&mut file)
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| self.storage("read a result", &self.project_dir(&uri.project), e))?;
        if bytes.len() as u64 > limit {
            return Err(integrity(
                "the file is larger than anything the cache writes",
            ));
        }
        let (header, body) =
            split_file(&bytes).ok_or_else(|| integrity("the header is missing or malformed"))?;
        let key = self
            .key(false)
            .map_err(|e| self.storage("read the cache key", &self.root, e))?;
        if !key.is_some_and(|k| unsealed(&k, &header, uri.project.as_hex())) {
            return Err(integrity(
                "the file was not written by this adapter for this project (its seal does not verify)",
            ));
        }
        let header = header.header;
        if ResultId::of_hash(&header.sha256).as_ref() != Some(&uri.id) {
            return Err(integrity(
                "the file name does not match the content hash in its header",
            ));
        }
        if header.byte_size > MAX_PAYLOAD_BYTES {
            return Err(integrity("the header declares an impossible size"));
        }
        let mut payload = Vec::with_capacity(header.byte_size as usize);
        zstd::stream::read::Decoder::new(body)
            .and_then(|d| d.take(header.byte_size + 1).read_to_end(&mut payload))
            .map_err(|_| integrity("the payload does not decompress"))?;
        if payload.len() as u64 != header.byte_size {
            return Err(integrity("the payload size differs from the header"));
        }
        if sha256_prefixed(&payload) != header.sha256 {
            return Err(integrity("the payload does not match its SHA-256"));
        }
        // A read keeps the result alive; failing to record that is not worth failing the read.
        if let Err(e) = file.set_modified(from_ms(now)) {
            tracing::debug!("could not refresh the last-access time of a cached result: {e}");
        }
        Ok((header, payload))
    }

    /// This project's results, newest first. Reads headers only; integrity is checked on read.
    /// Expired results are left out (and removed by the next spool).
    pub fn list(&self, project: &ProjectKey) -> Result<Vec<ListedResult>, StoreError> {
        let dir = self.project_dir(project);
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.storage("list", &dir, e)),
        };
        let now = self.clock.now_ms();
        let mut out = Vec::new();
        // No key yet: nothing in the folder can be ours.
        let Ok(Some(key)) = self.key(false) else {
            return Ok(out);
        };
        for entry in entries.flatten() {
            let Some(id) = result_id_of(&entry.file_name()) else {
                continue;
            };
            let path = entry.path();
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let last_access = meta.modified().map(to_ms).unwrap_or(0);
            let expires_at_ms = last_access.saturating_add(self.retention_ms());
            if expires_at_ms <= now {
                continue;
            }
            let Some(sealed) = read_header(&path) else {
                continue;
            };
            // Every field shown below comes from a header this adapter sealed for this project.
            if !unsealed(&key, &sealed, project.as_hex()) {
                continue;
            }
            let header = sealed.header;
            if ResultId::of_hash(&header.sha256).as_ref() != Some(&id) {
                continue; // never advertise a file that cannot pass a read
            }
            out.push(ListedResult {
                uri: ResultUri::new(project.clone(), id).to_string(),
                label: header.label,
                summary: header.summary,
                operation_id: header.operation_id,
                byte_size: header.byte_size,
                stored_bytes: meta.len(),
                sha256: header.sha256,
                created_ms: header.created_ms,
                last_access_ms: last_access,
                expires_at_ms,
                mime_type: JSON_MIME,
            });
        }
        out.sort_by(|a, b| {
            b.created_ms
                .cmp(&a.created_ms)
                .then_with(|| a.uri.cmp(&b.uri))
        });
        Ok(out)
    }

    /// Removes this project's expired results and crash leftovers, then evicts least recently
    /// used results until the project fits its cap. Runs after every spool.
    pub fn prune(&self, project: &ProjectKey) -> Result<PruneReport, StoreError> {
        let mut guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());
        let report = self.prune_locked(project, None)?;
        let state = PruneState {
            at_ms: self.clock.now_ms(),
            bytes: report.remaining_bytes,
        };
        guard.insert(project.as_hex().to_string(), state);
        Ok(report)
    }

    fn prune_locked(
        &self,
        project: &ProjectKey,
        keep: Option<&ResultId>,
    ) -> Result<PruneReport, StoreError> {
        let dir = self.project_dir(project);
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(PruneReport::default()),
            Err(e) => return Err(self.storage("list", &dir, e)),
        };
        let now = self.clock.now_ms();
        let mut report = PruneReport::default();
        let mut live: Vec<(u64, String, u64, PathBuf)> = Vec::new(); // (last access, name, bytes, path)
        for entry in entries.flatten() {
            let name = entry.file_name();
            let path = entry.path();
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            let modified = meta.modified().map(to_ms).unwrap_or(0);
            let name_str = name.to_string_lossy().into_owned();
            if let Some(rest) = name_str.strip_prefix(TEMP_PREFIX) {
                let started = rest
                    .split('-')
                    .next()
                    .and_then(|ms| ms.parse::<u64>().ok())
                    .unwrap_or(modified);
                if meta.is_file()
                    && now.saturating_sub(started) > ORPHAN_AGE_MS
                    && fs::remove_file(&path).is_ok()
                {
                    report.orphans += 1;
                }
                continue;
            }
            let Some(id) = result_id_of(&name) else {
                continue; // not ours: leave it alone
            };
            if !meta.is_file() {
                continue;
            }
            let is_kept = keep == Some(&id);
            if !is_kept && modified.saturating_add(self.retention_ms()) <= now {
                if fs::remove_file(&path).is_ok() {
                    report.expired += 1;
                }
                continue;
            }
            live.push((
                if is_kept { u64::MAX } else { modified },
                name_str,
                meta.len(),
                path,
            ));
        }
        live.sort();
        let mut total: u64 = live.iter().map(|l| l.2).sum();
        for (access, _, bytes, path) in &live {
            if total <= self.config.project_cap_bytes {
                break;
            }
            if *access == u64::MAX {
                continue; // the file just written
            }
            if fs::remove_file(path).is_ok() {
                total -= bytes;
                report.evicted += 1;
            }
        }
        report.remaining_bytes = total;
        Ok(report)
    }
}

/// `<32 hex>.hres` → its id.
fn result_id_of(name: &std::ffi::OsStr) -> Option<ResultId> {
    let name = name.to_str()?;
    ResultId::parse(name.strip_suffix(&format!(".{EXT}"))?)
}

/// A header as read, with the exact bytes its seal covers.
struct SealedHeader {
    header: Header,
    line: Vec<u8>,
    mac: Vec<u8>,
}

/// HMAC-SHA256 of the magic line and the header line, as lowercase hex.
fn seal(key: &[u8; KEY_BYTES], header_line: &[u8]) -> String {
    hera_connector_contract::canonical::hmac_sha256_hex(key, &[MAGIC, header_line])
}

/// The seal verifies (compared in constant time) and the header names `project_hex`.
fn unsealed(key: &[u8; KEY_BYTES], sealed: &SealedHeader, project_hex: &str) -> bool {
    let Some(tag) = decode_hex(&sealed.mac) else {
        return false;
    };
    hera_connector_contract::canonical::hmac_sha256_verify(key, &[MAGIC, &sealed.line], &tag)
        && sealed.header.project == project_hex
}

fn decode_hex(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() != MAC_HEX {
        return None;
    }
    text.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

/// A key file is trusted when it is a plain file of exactly [`KEY_BYTES`], and on Unix owned
/// by us and private; anything else is replaced on the next spool (old results then fail to
/// verify, which only costs a re-run).
fn read_key(path: &Path) -> Option<[u8; KEY_BYTES]> {
    let file = open_no_follow(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions.
        if meta.uid() != unsafe { libc::geteuid() } || meta.mode() & 0o077 != 0 {
            return None;
        }
    }
    let mut bytes = Vec::with_capacity(KEY_BYTES);
    file.take(KEY_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    bytes.try_into().ok()
}

/// Splits `<magic><header>\n<mac>\n<body>`; the header line is bounded.
fn split_sealed(bytes: &[u8]) -> Option<(SealedHeader, &[u8])> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let end = rest
        .iter()
        .take(MAX_HEADER_BYTES)
        .position(|&b| b == b'\n')?;
    let line = &rest[..end];
    let after = &rest[end + 1..];
    let mac = after.get(..MAC_HEX)?;
    if after.get(MAC_HEX) != Some(&b'\n') {
        return None;
    }
    let header: Header = serde_json::from_slice(line).ok()?;
    Some((
        SealedHeader {
            header,
            line: line.to_vec(),
            mac: mac.to_vec(),
        },
        &after[MAC_HEX + 1..],
    ))
}

fn split_file(bytes: &[u8]) -> Option<(SealedHeader, &[u8])> {
    split_sealed(bytes)
}

fn read_header(path: &Path) -> Option<SealedHeader> {
    let file = open_no_follow(path).ok()?;
    let mut head = Vec::with_capacity(1024);
    file.take((MAGIC.len() + MAX_HEADER_BYTES + MAC_HEX + 1) as u64)
        .read_to_end(&mut head)
        .ok()?;
    // The body may be cut off here; only the header and seal are needed.
    split_sealed(&head).map(|(h, _)| h)
}

/// Byte range, snapped to character boundaries.
fn byte_range(text: &str, offset: u64, length: u64, uri: &ResultUri) -> (String, ServedRange) {
    let total = text.len();
    let mut start = (offset.min(total as u64)) as usize;
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start as u64).saturating_add(length).min(total as u64) as usize;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end <= start && start < total {
        // A range shorter than one character still returns that character.
        end = start + 1;
        while !text.is_char_boundary(end) {
            end += 1;
        }
    }
    let next_uri = (end < total).then(|| {
        ResultUri::new(uri.project.clone(), uri.id.clone())
            .with_range(Some(ReadRange::Bytes {
                offset: end as u64,
                length,
            }))
            .to_string()
    });
    (
        text[start..end].to_string(),
        ServedRange {
            unit: RangeUnit::Bytes,
            offset: start as u64,
            length: (end - start) as u64,
            total: total as u64,
            next_uri,
        },
    )
}

/// Item range of the array at `pointer`, as a JSON document.
fn item_range(
    text: &str,
    pointer: &str,
    offset: u64,
    length: u64,
    uri: &ResultUri,
) -> Result<(String, ServedRange), StoreError> {
    let invalid = |reason: String| StoreError::InvalidRange {
        uri: uri.base(),
        reason,
    };
    let doc: Value = serde_json::from_str(text).map_err(|_| StoreError::Integrity {
        uri: uri.base(),
        detail: "the payload is not JSON".into(),
    })?;
    let target = doc.pointer(pointer).ok_or_else(|| {
        invalid(format!(
            "nothing at {:?}; use a pointer from the preview's `arrays`",
            clip(pointer)
        ))
    })?;
    let Value::Array(items) = target else {
        return Err(invalid(format!(
            "{:?} is not an array; item ranges need one (use a byte range otherwise)",
            clip(pointer)
        )));
    };
    let total = items.len() as u64;
    let start = offset.min(total);
    let end = start.saturating_add(length).min(total);
    let slice = &items[start as usize..end as usize];
    let next_uri = (end < total).then(|| {
        ResultUri::new(uri.project.clone(), uri.id.clone())
            .with_range(Some(ReadRange::Items {
                pointer: pointer.to_string(),
                offset: end,
                length,
            }))
            .to_string()
    });
    let body = json!({
        "pointer": pointer,
        "offset": start,
        "length": end - start,
        "total": total,
        "items": slice,
        "next": next_uri,
    });
    Ok((
        body.to_string(),
        ServedRange {
            unit: RangeUnit::Items,
            offset: start,
            length: end - start,
            total,
            next_uri,
        },
    ))
}

/// temp (0600, exclusive, named `.tmp-<ms>-…` so a prune can date an orphan) → write → fsync →
/// mtime → rename. Any failure removes the temp file, so nothing half-written is ever visible
/// under a result name.
fn write_atomically(target: &Path, bytes: &[u8], mtime: SystemTime) -> io::Result<()> {
    let prefix = format!("{TEMP_PREFIX}{}-", to_ms(mtime));
    crate::platform::fs::write_private_atomic_dated(target, bytes, &prefix, mtime)
}

fn open_no_follow(path: &Path) -> io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(unix))]
    if fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "symlink"));
    }
    opts.open(path)
}

fn is_symlink_refusal(e: &io::Error) -> bool {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return true;
    }
    e.kind() == io::ErrorKind::InvalidInput
}
