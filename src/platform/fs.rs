//! Private folders, private files and atomic replacement.
//!
//! Cached catalogs and results can hold project data, so they are private to the user: 0700
//! folders and 0600 files on Unix. On Windows, files under the user profile inherit an ACL that
//! already limits them to that user, so nothing more is set there.
//!
//! Replacement is atomic: the bytes go to a temporary file in the same folder (created 0600 by
//! `tempfile`), are synced, and the temporary file is renamed over the target
//! (`NamedTempFile::persist`: `rename` on Unix, `MoveFileExW(MOVEFILE_REPLACE_EXISTING)` on
//! Windows). A reader sees the old file or the new one, never half of either.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Creates `path` (0700 on Unix) and its parents if needed. An existing folder shared with
/// group or others is tightened (never widened); anything at `path` that is not a real folder,
/// a symbolic link included, is refused: a link planted in place of a cache folder would
/// redirect our writes.
pub fn create_private_dir(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                if m.permissions().mode() & 0o077 != 0 {
                    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))?;
                }
            }
            Ok(())
        }
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "the path exists and is not a directory",
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let mut b = std::fs::DirBuilder::new();
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                b.mode(0o700);
            }
            // Missing parents are created private too (existing ones are left as they are).
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                b.recursive(true).create(parent)?;
                b.recursive(false);
            }
            match b.create(path) {
                Ok(()) => Ok(()),
                // Another process won the race: fine if it made a folder.
                Err(e)
                    if e.kind() == io::ErrorKind::AlreadyExists
                        && std::fs::symlink_metadata(path)?.is_dir() =>
                {
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// Writes `bytes` to `path` atomically as a private file (0600 on Unix), without waiting for
/// the disk (no `fsync`). The folder must exist. For a cache whose every
/// read is verified against a hash: after a crash the file may be old, empty or torn, which
/// reads as damaged and is ignored. The wait for the disk can be tens of milliseconds on a busy
/// machine, and it stood between an agent and its first answer.
pub fn write_private_atomic_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_atomic(
        path,
        bytes,
        &Replace {
            no_sync: true,
            ..Replace::default()
        },
    )
}

/// A private atomic write for the result cache, synced to disk: the temporary file's name starts with
/// `temp_prefix` (so a later prune can date an orphan left by a crash from its name, on the
/// cache's own clock), the file is given `mtime` (its last use), and the rename is synced to
/// the folder so a published result survives a power loss.
pub fn write_private_atomic_dated(
    path: &Path,
    bytes: &[u8],
    temp_prefix: &str,
    mtime: std::time::SystemTime,
) -> io::Result<()> {
    replace_atomic(
        path,
        bytes,
        &Replace {
            temp_prefix: Some(temp_prefix),
            mtime: Some(mtime),
            sync_dir: true,
            ..Replace::default()
        },
    )
}

/// Writes `bytes` to `path` atomically, keeping the permissions of the file it replaces; a new
/// file is private (0600 on Unix), since MCP client configurations can carry credentials of
/// other servers. When `path` is a symbolic link the file it points at is replaced, so a
/// configuration kept in a dotfiles repository stays linked.
pub fn write_atomic_keeping_mode(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = resolve_link(path)?;
    let keep = match std::fs::metadata(&target) {
        Ok(m) => Some(m.permissions()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    replace_atomic(
        &target,
        bytes,
        &Replace {
            permissions: keep,
            ..Replace::default()
        },
    )
}

/// The file a path finally names: itself, or the target of the symbolic link(s) it is.
fn resolve_link(path: &Path) -> io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}

/// How [`replace_atomic`] writes: the defaults give a private file under a `.hera-*.tmp` name.
#[derive(Default)]
struct Replace<'a> {
    permissions: Option<std::fs::Permissions>,
    temp_prefix: Option<&'a str>,
    mtime: Option<std::time::SystemTime>,
    sync_dir: bool,
    /// Skip the `fsync` of the written file (see [`write_private_atomic_unsynced`]).
    no_sync: bool,
}

fn replace_atomic(path: &Path, bytes: &[u8], how: &Replace<'_>) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(how.temp_prefix.unwrap_or(".hera-"))
        .suffix(if how.temp_prefix.is_some() {
            ""
        } else {
            ".tmp"
        })
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if !how.no_sync {
        tmp.as_file().sync_all()?;
    }
    if let Some(p) = &how.permissions {
        tmp.as_file().set_permissions(p.clone())?;
    }
    if let Some(t) = how.mtime {
        tmp.as_file().set_modified(t)?;
    }
    // On failure the temporary file is dropped, and so deleted.
    tmp.persist(path).map_err(|e| e.error)?;
    #[cfg(unix)]
    if how.sync_dir
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all(); // makes the rename durable; best effort
    }
    Ok(())
}

/// Whether a folder or file is private to its owner: `Some(mode)` with the offending Unix mode
/// when group or others have any access, `None` when it is private (always on Windows).
pub fn shared_mode(meta: &std::fs::Metadata) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        (mode & 0o077 != 0).then_some(mode)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_atomic_write_replaces_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a").join("b");
        create_private_dir(&sub).unwrap();
        let f = sub.join("x.json");
        write_private_atomic_unsynced(&f, b"one").unwrap();
        write_private_atomic_unsynced(&f, b"two").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&f), 0o600);
            assert_eq!(mode(&sub), 0o700);
            assert_eq!(shared_mode(&std::fs::metadata(&f).unwrap()), None);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_in_place_of_a_private_folder_is_refused_and_shared_folders_are_tightened() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o755)).unwrap();
        let link = dir.path().join("cache");
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        let e = create_private_dir(&link).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        // The link's target was not touched.
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&elsewhere), 0o755);
        create_private_dir(&elsewhere).unwrap();
        assert_eq!(mode(&elsewhere), 0o700);
    }

    #[test]
    fn a_dated_write_names_its_temporary_file_and_sets_the_time() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("r.hres");
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        write_private_atomic_dated(&f, b"payload", ".tmp-1700000000000-", t).unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"payload");
        assert_eq!(std::fs::metadata(&f).unwrap().modified().unwrap(), t);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn keeping_mode_keeps_permissions_and_writes_through_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic_keeping_mode(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        assert_eq!(
            std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(shared_mode(&std::fs::metadata(&real).unwrap()), Some(0o640));
        let fresh = dir.path().join("fresh.json");
        write_atomic_keeping_mode(&fresh, b"{}").unwrap();
        let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "a new configuration file is private");
    }
}
