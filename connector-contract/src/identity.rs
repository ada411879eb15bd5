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
        PathFlavor::Windows => lower_invariant(&out),
        PathFlavor::Unix => out,
    }
}

/// Lower-cases the way the Windows Editor's runtime does for the Connector's invariant-culture
/// lowering: one UTF-16 unit at a time, each to exactly one unit, never looking at neighbours.
/// So a final `Σ` becomes `σ` (not the word-final `ς` of [`str::to_lowercase`]) and `İ`
/// becomes a plain `i` (not `i` plus a combining dot). The runtime's table covers U+0000 to
/// U+24CF and U+FF21 upward (the full-width letters); everything between, and every character
/// outside the Basic Multilingual Plane (two UTF-16 units, each lowered alone), stays as it is.
/// Three Greek upsilon symbols get the runtime's own mapping (U+03D2 to U+03D4 become the
/// plain, acute and diaeresis upsilon), which Unicode does not define.
pub fn lower_invariant(text: &str) -> String {
    text.chars().map(lower_invariant_char).collect()
}

fn lower_invariant_char(c: char) -> char {
    match c {
        '\u{0130}' => 'i',
        '\u{03D2}' => '\u{03C5}',
        '\u{03D3}' => '\u{03CD}',
        '\u{03D4}' => '\u{03CB}',
        '\u{24D0}'..='\u{FF20}' | '\u{10000}'.. => c,
        _ => {
            // Outside U+0130 every lowercase mapping of a BMP character is one character.
            let mut lower = c.to_lowercase();
            match (lower.next(), lower.next()) {
                (Some(one), None) => one,
                _ => c,
            }
        }
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

    #[test]
    fn windows_lowering_maps_each_character_alone_as_the_editor_runtime_does() {
        let w = |p| normalize_project_path(p, PathFlavor::Windows);
        // A word-final capital sigma is an ordinary sigma, not the final form.
        assert_eq!(w(r"C:\Projects\ΟΔΟΣ"), "c:/projects/οδοσ");
        assert_eq!(w(r"C:\ΣΣ\Game"), "c:/σσ/game");
        // The dotted capital I is one plain i: the path keeps its length in UTF-16 units.
        assert_eq!(w(r"C:\İstanbul\Game"), "c:/istanbul/game");
        assert_eq!(lower_invariant("İ").encode_utf16().count(), 1);
        // Letters outside the runtime's table keep their case; full-width letters are lowered.
        assert_eq!(
            lower_invariant("\u{2C00}\u{10400}ＡＢ"),
            "\u{2C00}\u{10400}ａｂ"
        );
        assert_eq!(lower_invariant("ÀÉÎÕÜ Ω Я ϒ"), "àéîõü ω я υ");
        // Everyday paths lower exactly as before.
        for p in [
            r"C:\Users\Me\Game",
            r"\\Server\Share\Unity\MyGame",
            "D:/ÄÖÜ/Projekt",
        ] {
            assert_eq!(w(p), w(p).to_lowercase(), "{p}");
        }
        // The id is over the runtime's lowering.
        assert_eq!(
            project_id_for(r"C:\Projects\ΟΔΟΣ", PathFlavor::Windows),
            crate::canonical::sha256_prefixed("c:/projects/οδοσ".as_bytes())
        );
    }
}
