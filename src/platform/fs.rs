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

/// Creates `path` and its parents; on Unix the folder itself ends up 0700 even if it existed.
pub fn create_private_dir(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(path)
    }
}

/// Writes `bytes` to `path` atomically as a private file (0600 on Unix). The folder must exist.
pub fn write_private_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_atomic(path, bytes, None)
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
    replace_atomic(&target, bytes, keep)
}

/// The file a path finally names: itself, or the target of the symbolic link(s) it is.
fn resolve_link(path: &Path) -> io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}

fn replace_atomic(
    path: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".hera-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Some(p) = permissions {
        tmp.as_file().set_permissions(p)?;
    }
    // On failure the temporary file is dropped, and so deleted.
    tmp.persist(path).map_err(|e| e.error)?;
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
        write_private_atomic(&f, b"one").unwrap();
        write_private_atomic(&f, b"two").unwrap();
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
