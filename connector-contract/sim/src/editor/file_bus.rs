//! Writing the file bus (connector-contract/README.md §7): atomic JSON files in `status/`.
//!
//! Readers (the Go client, our adapter, `task list`) poll these files and may delete result files
//! after reading them, so every write goes to a dot-prefixed temp file in the same directory and is
//! renamed into place: a reader sees either nothing or the whole file, and the temp name never
//! matches a `test-pending-*` / `package-pending-*` scan.

use serde::Serialize;
use serde_json::Value;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Serialize `value` and place it at `dir/name` atomically (temp + rename).
pub fn write_json<T: Serialize>(dir: &Path, name: &str, value: &T) -> io::Result<PathBuf> {
    let text = serde_json::to_string(value).map_err(io::Error::other)?;
    fs::create_dir_all(dir)?;
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let target = dir.join(name);
    let result = fs::write(&tmp, text.as_bytes()).and_then(|_| fs::rename(&tmp, &target));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map(|_| target)
}

/// Remove a file; a missing file is not an error.
pub fn remove(dir: &Path, name: &str) -> io::Result<()> {
    match fs::remove_file(dir.join(name)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

pub fn exists(dir: &Path, name: &str) -> bool {
    dir.join(name).is_file()
}

pub fn read_json(path: &Path) -> Option<Value> {
    let text = fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// File names in `dir` that start with `prefix` and end with `.json`, sorted; bounded by the
/// directory's size, and an unreadable directory yields nothing.
pub fn list(dir: &Path, prefix: &str) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".json"))
        .collect();
    names.sort();
    names
}

/// Whether a process id is alive (signal 0 probes without delivering anything).
pub fn pid_alive(pid: i64) -> bool {
    if pid <= 0 || pid > i32::MAX as i64 {
        return false;
    }
    // SAFETY: kill with signal 0 only checks for existence and permission; it sends nothing.
    let rc = unsafe { libc::kill(pid as libc::pid_t, 0) };
    rc == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// 32 lowercase hex characters (a GUID in `N` format).
pub fn hex32() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// A full envelope as the Connector serializes it into result files (§2.4 key order:
/// `success, message, code, suggestions, data, timings`; `timings` is always `null` here).
#[derive(Debug, Clone, Serialize)]
pub struct FileEnvelope {
    pub success: bool,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    pub timings: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_file_bus_writes_atomically_and_lists() {
        let dir = tempfile::tempdir().unwrap();
        let status = dir.path().join("status");
        write_json(
            &status,
            "test-pending-1-abc.json",
            &serde_json::json!({"a":1}),
        )
        .unwrap();
        write_json(&status, "other.json", &serde_json::json!({})).unwrap();
        assert_eq!(
            list(&status, "test-pending-1-"),
            vec!["test-pending-1-abc.json"]
        );
        let leftovers: Vec<_> = fs::read_dir(&status)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
        remove(&status, "test-pending-1-abc.json").unwrap();
        remove(&status, "test-pending-1-abc.json").unwrap();
        assert!(list(&status, "test-pending-").is_empty());
        assert!(pid_alive(std::process::id() as i64));
        assert!(!pid_alive(0));
        assert_eq!(hex32().len(), 32);
    }
}
