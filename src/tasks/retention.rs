//! How long finished jobs' result files stay on the file bus.
//!
//! The Connector never deletes a finished job's result (connector-contract/README.md §7): each
//! test run leaves `test-results-<port>-<run>.json` and each package job
//! `package-result-<port>-<job>.json`, so the status folder grows with every job. The adapter
//! reads results without deleting them, so that any process can read a task handle again, and
//! removes those older than [`RESULT_RETENTION`] whenever it starts a job: the folder then holds
//! at most a week of jobs.
//!
//! Only what is certainly a stale result is removed: exactly those two name shapes, a regular
//! file (a symlink is neither followed nor removed), owned by the uid we run as, last written
//! more than a week ago. Pending files (a job may still run), the per-port legacy test result
//! and the build result (the Connector overwrites both) are never touched.

use std::path::Path;
use std::time::{Duration, SystemTime};

/// A finished job's result is removed this long after it was written.
pub const RESULT_RETENTION: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Entries read from the status folder per survey or sweep, so a huge folder costs a bounded
/// amount of work per job started.
const MAX_ENTRIES_READ: usize = 10_000;

/// What the status folder holds in finished jobs' results.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultFiles {
    /// Result files of ours (by name shape and owner).
    pub count: usize,
    /// Their total size.
    pub bytes: u64,
    /// How many of them are older than [`RESULT_RETENTION`].
    pub expired: usize,
    /// The status folder held more entries than were read.
    pub truncated: bool,
}

/// What one sweep did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Swept {
    pub removed: usize,
    /// Expired results that could not be removed (e.g. a read-only folder); tried again at the
    /// next job.
    pub failed: usize,
}

/// Whether `name` is a finished job's result file: `test-results-<port>-<run>.json` or
/// `package-result-<port>-<job>.json`, with a decimal port and a non-empty id.
fn is_result_name(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("test-results-")
        .or_else(|| name.strip_prefix("package-result-"))
        .and_then(|r| r.strip_suffix(".json"))
    else {
        return false;
    };
    let Some((port, id)) = rest.split_once('-') else {
        // `test-results-<port>.json`: the legacy per-port copy.
        return false;
    };
    port.parse::<u16>().is_ok_and(|p| p > 0) && !id.is_empty()
}

/// A result file of ours, with its size and whether it has expired at `now`.
struct Candidate {
    path: std::path::PathBuf,
    bytes: u64,
    expired: bool,
}

fn candidates(status_dir: &Path, now: SystemTime) -> (Vec<Candidate>, bool) {
    let Ok(rd) = std::fs::read_dir(status_dir) else {
        return (Vec::new(), false);
    };
    let mut out = Vec::new();
    let mut read = 0usize;
    for entry in rd {
        read += 1;
        if read > MAX_ENTRIES_READ {
            return (out, true);
        }
        let Ok(entry) = entry else { continue };
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if !is_result_name(&name) {
            continue;
        }
        let path = entry.path();
        // Not followed: a symlink's own metadata says it is not a regular file.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.file_type().is_file() || !owned_by_us(&meta) {
            continue;
        }
        let expired = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > RESULT_RETENTION);
        out.push(Candidate {
            path,
            bytes: meta.len(),
            expired,
        });
    }
    (out, false)
}

#[cfg(unix)]
fn owned_by_us(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.uid() == crate::discovery::our_uid()
}

#[cfg(not(unix))]
fn owned_by_us(_meta: &std::fs::Metadata) -> bool {
    // The user's profile folder is not shared on Windows; the name shape is the check.
    true
}

/// The finished jobs' results in `status_dir` (for `doctor`).
pub fn survey(status_dir: &Path, now: SystemTime) -> ResultFiles {
    let (found, truncated) = candidates(status_dir, now);
    ResultFiles {
        count: found.len(),
        bytes: found.iter().map(|c| c.bytes).sum(),
        expired: found.iter().filter(|c| c.expired).count(),
        truncated,
    }
}

/// Removes the expired results in `status_dir`. Any failure leaves the file for the next sweep.
pub fn sweep(status_dir: &Path, now: SystemTime) -> Swept {
    let (found, _) = candidates(status_dir, now);
    let mut swept = Swept::default();
    for c in found.into_iter().filter(|c| c.expired) {
        match std::fs::remove_file(&c.path) {
            Ok(()) => swept.removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::debug!(path = %c.path.display(), "could not remove an old job result: {e}");
                swept.failed += 1;
            }
        }
    }
    swept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_finished_jobs_results_have_the_result_shape() {
        for ok in [
            "test-results-8090-0123abcd.json",
            "package-result-8090-pkg-0123.json",
        ] {
            assert!(is_result_name(ok), "{ok}");
        }
        for not in [
            "test-results-8090.json",
            "test-pending-8090-0123abcd.json",
            "package-pending-8090-pkg-1.json",
            "build-result-8090.json",
            "test-results-0-x.json",
            "test-results-port-x.json",
            "test-results-8090-.json",
            "test-results-8090-x.json.tmp",
            "instances",
        ] {
            assert!(!is_result_name(not), "{not}");
        }
    }

    #[test]
    fn a_sweep_removes_only_expired_results() {
        let dir = tempfile::tempdir().unwrap();
        let old = SystemTime::now() - RESULT_RETENTION - Duration::from_secs(60);
        let write = |name: &str, at: Option<SystemTime>| {
            let p = dir.path().join(name);
            std::fs::write(&p, b"{}").unwrap();
            if let Some(t) = at {
                std::fs::File::options()
                    .write(true)
                    .open(&p)
                    .unwrap()
                    .set_modified(t)
                    .unwrap();
            }
        };
        write("test-results-8090-old.json", Some(old));
        write("package-result-8090-old.json", Some(old));
        write("test-results-8090-new.json", None);
        write("test-pending-8090-old.json", Some(old));
        write("test-results-8090.json", Some(old));
        let s = survey(dir.path(), SystemTime::now());
        assert_eq!((s.count, s.expired, s.bytes), (3, 2, 6));
        assert_eq!(
            sweep(dir.path(), SystemTime::now()),
            Swept {
                removed: 2,
                failed: 0
            }
        );
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "test-pending-8090-old.json",
                "test-results-8090-new.json",
                "test-results-8090.json"
            ]
        );
    }
}
