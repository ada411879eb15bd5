//! Project identity: the heartbeat file name and `project_id` (README: Discovery and heartbeat).
//!
//! Both are purely lexical. Never `canonicalize`: it resolves links (and adds `\\?\` on Windows),
//! and the Connector does neither, so the ids would stop matching.

use crate::canonical::sha256_prefixed;
use md5::{Digest, Md5};

/// Path conventions of the machine the Editor runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathFlavor {
    Unix,
    Windows,
}

impl PathFlavor {
    /// The flavor of the machine this code runs on (client and Editor share one machine).
    pub const fn host() -> Self {
        if cfg!(windows) {
            PathFlavor::Windows
        } else {
            PathFlavor::Unix
        }
    }
}

/// `<first 16 hex of md5(projectPath)>.json`: where the Connector writes its heartbeat.
/// The input is the heartbeat's `projectPath` exactly, not the normalized form.
pub fn heartbeat_file_name(project_path: &str) -> String {
    let digest = Md5::digest(project_path.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}.json", &hex[..16])
}

/// The normalized form used for every project comparison and for `project_id`:
/// trimmed, `\` turned into `/` (the Connector does this on every OS), `.`/`..` and repeated
/// separators cleaned lexically, trailing `/` removed, lowercased on Windows.
pub fn normalize_project_path(path: &str, flavor: PathFlavor) -> String {
    let unified = path.trim().replace('\\', "/");
    let (volume, rest) = match flavor {
        PathFlavor::Windows => split_windows_volume(&unified),
        PathFlavor::Unix => ("", unified.as_str()),
    };
    let absolute = rest.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in rest.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if matches!(parts.last(), Some(p) if *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let cleaned = if absolute {
        format!("/{}", parts.join("/"))
    } else {
        parts.join("/")
    };
    let mut out = if volume.is_empty() {
        cleaned
    } else {
        // `C:/` names the drive root; like the Connector and Go we drop its trailing slash.
        format!("{volume}{}", cleaned.trim_end_matches('/'))
    };
    if out.is_empty() {
        out.push('.');
    }
    match flavor {
        PathFlavor::Windows => out.to_lowercase(),
        PathFlavor::Unix => out,
    }
}

/// Splits a (slash-unified) Windows path into its volume and the rest: `C:` for a drive, or
/// `//server/share` for a UNC path. The volume is a root `..` never climbs above, and a UNC share
/// keeps its two leading slashes, as in Go's `filepath.Clean` and .NET's full paths
/// (vectors/project-identity.json). Anything else has no volume.
fn split_windows_volume(p: &str) -> (&str, &str) {
    let b = p.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return p.split_at(2);
    }
    if let Some(after) = p.strip_prefix("//") {
        let mut it = after.splitn(3, '/');
        if let (Some(server), Some(share)) = (it.next(), it.next())
            && !server.is_empty()
            && !share.is_empty()
        {
            return p.split_at(2 + server.len() + 1 + share.len());
        }
    }
    ("", p)
}

/// `sha256:` + hex SHA-256 of the normalized project path.
pub fn project_id_for(project_path: &str, flavor: PathFlavor) -> String {
    sha256_prefixed(normalize_project_path(project_path, flavor).as_bytes())
}

/// [`project_id_for`] with this machine's path flavor.
pub fn project_id(project_path: &str) -> String {
    project_id_for(project_path, PathFlavor::host())
}

/// The ledger directory name: the project id with `:` replaced by `_` (README: Operation ledger).
pub fn ledger_dir_name(project_id: &str) -> String {
    project_id.replace(':', "_")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn clean() {
        let n = |p| normalize_project_path(p, PathFlavor::Unix);
        assert_eq!(n("/a/b/../c/./d/"), "/a/c/d");
        assert_eq!(n(" /Users/me//Game "), "/Users/me/Game");
        assert_eq!(n("/"), "/");
        assert_eq!(
            normalize_project_path(r"C:\Users\Me\Game\", PathFlavor::Windows),
            "c:/users/me/game"
        );
    }
}
