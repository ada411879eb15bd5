//! How paths are written on each platform, as pure string rules (so Windows forms are tested on
//! Linux). Project paths themselves are compared with the contract's lexical normalization
//! (`hera_connector_contract::identity`), never through the file system.

use super::Os;
#[cfg(test)]
use hera_connector_contract::identity::PathFlavor;
use std::path::PathBuf;

#[cfg(test)]
/// The contract's path flavor for an operating system.
pub const fn flavor(os: Os) -> PathFlavor {
    match os {
        Os::Windows => PathFlavor::Windows,
        Os::Linux | Os::Mac => PathFlavor::Unix,
    }
}

/// Removes Windows' verbatim prefix: `\\?\C:\x` → `C:\x`, `\\?\UNC\srv\share\x` →
/// `\\srv\share\x`. Some Windows APIs hand paths back in this form, but several MCP clients
/// spawn commands through APIs that reject it, so a path we write into a client's
/// configuration must be in the ordinary form. Other strings are returned unchanged.
pub fn strip_verbatim(p: &str) -> String {
    if let Some(rest) = p.strip_prefix(r"\\?\UNC\") {
        return format!(r"\\{rest}");
    }
    match p.strip_prefix(r"\\?\") {
        // Only a drive path can be shortened safely; `\\?\Volume{…}` has no ordinary form.
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => rest.to_string(),
        _ => p.to_string(),
    }
}

/// The absolute path of the running binary, in the form a client configuration should hold.
pub fn current_exe() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    Ok(match exe.to_str() {
        Some(s) if cfg!(windows) => PathBuf::from(strip_verbatim(s)),
        _ => exe,
    })
}

/// The program name of a command path without its folder (and without `.exe` on Windows, where
/// the separators are `\` or `/` and case does not matter): `C:\bin\Hera-Agent-Unity.EXE` →
/// `hera-agent-unity`.
pub fn program_name(command: &str, os: Os) -> String {
    let last = match os {
        Os::Windows => command.rsplit(['\\', '/']).next(),
        Os::Linux | Os::Mac => command.rsplit('/').next(),
    }
    .unwrap_or(command);
    match os {
        Os::Windows => {
            let lower = last.to_lowercase();
            lower.strip_suffix(".exe").unwrap_or(&lower).to_string()
        }
        Os::Linux | Os::Mac => last.to_string(),
    }
}

/// Whether two command paths name the same file by the platform's spelling rules (Windows:
/// either separator, any case, verbatim prefix ignored). Lexical: links are the caller's
/// business.
pub fn same_command_path(a: &str, b: &str, os: Os) -> bool {
    match os {
        Os::Windows => {
            let norm = |s: &str| strip_verbatim(s).replace('/', "\\").to_lowercase();
            norm(a) == norm(b)
        }
        Os::Linux | Os::Mac => a == b,
    }
}

/// Whether a command string is an absolute path on `os` (`C:\…`, `\\server\…` or `/…`).
pub fn is_absolute(command: &str, os: Os) -> bool {
    match os {
        Os::Windows => {
            let b = command.as_bytes();
            (b.len() >= 3
                && b[0].is_ascii_alphabetic()
                && b[1] == b':'
                && matches!(b[2], b'\\' | b'/'))
                || command.starts_with(r"\\")
                || command.starts_with("//")
        }
        Os::Linux | Os::Mac => command.starts_with('/'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hera_connector_contract::identity::{
        heartbeat_file_name, normalize_project_path, project_id_for,
    };

    #[test]
    fn verbatim_prefix_is_removed_only_where_an_ordinary_form_exists() {
        assert_eq!(
            strip_verbatim(r"\\?\C:\Tools\hera-agent-unity.exe"),
            r"C:\Tools\hera-agent-unity.exe"
        );
        assert_eq!(
            strip_verbatim(r"\\?\UNC\srv\share\h.exe"),
            r"\\srv\share\h.exe"
        );
        assert_eq!(
            strip_verbatim(r"\\?\Volume{x}\h.exe"),
            r"\\?\Volume{x}\h.exe"
        );
        assert_eq!(strip_verbatim("/usr/bin/h"), "/usr/bin/h");
    }

    #[test]
    fn program_names_and_same_paths_follow_the_platform() {
        assert_eq!(
            program_name(r"C:\Users\me\.cargo\bin\Hera-Agent-Unity.EXE", Os::Windows),
            "hera-agent-unity"
        );
        assert_eq!(
            program_name("C:/bin/hera-agent-unity", Os::Windows),
            "hera-agent-unity"
        );
        assert_eq!(
            program_name("/home/me/.cargo/bin/hera-agent-unity", Os::Linux),
            "hera-agent-unity"
        );
        assert_eq!(
            program_name("hera-agent-unity", Os::Mac),
            "hera-agent-unity"
        );
        // A backslash is an ordinary character in a Unix file name.
        assert_eq!(
            program_name(r"/opt/a\hera-agent-unity", Os::Linux),
            r"a\hera-agent-unity"
        );
        assert!(same_command_path(
            r"C:\Bin\H.exe",
            "c:/bin/h.EXE",
            Os::Windows
        ));
        assert!(same_command_path(
            r"\\?\C:\Bin\H.exe",
            r"C:\Bin\H.exe",
            Os::Windows
        ));
        assert!(!same_command_path("/Bin/h", "/bin/h", Os::Linux));
        assert!(is_absolute(r"C:\x", Os::Windows) && is_absolute(r"\\srv\s\x", Os::Windows));
        assert!(!is_absolute("C:x", Os::Windows) && !is_absolute("hera-agent-unity", Os::Windows));
        assert!(is_absolute("/x", Os::Mac) && !is_absolute("x/y", Os::Linux));
    }

    /// Windows project paths are hashed and named as the Connector does: the heartbeat file name
    /// from the path exactly as published (backslashes and case kept), `project_id` from the
    /// slash-unified, lowercased form.
    #[test]
    fn windows_project_identity_matches_the_connector() {
        let p = r"C:\Users\me\Unity\MyGame";
        assert_eq!(heartbeat_file_name(p), "47b9f61296f5ad0d.json");
        assert_ne!(
            heartbeat_file_name(p),
            heartbeat_file_name("C:/Users/me/Unity/MyGame")
        );
        let f = flavor(Os::Windows);
        assert_eq!(normalize_project_path(p, f), "c:/users/me/unity/mygame");
        assert_eq!(
            project_id_for(p, f),
            "sha256:8887cfa7ffea851e8381054cbf7e9d3d1a4074da77f38182aa05476d70d1511b"
        );
        assert_eq!(
            project_id_for("c:/USERS/me/unity/MyGame/", f),
            project_id_for(p, f)
        );
        // macOS keeps case, like Linux.
        assert_eq!(
            normalize_project_path("/Users/Me/Game", flavor(Os::Mac)),
            "/Users/Me/Game"
        );
    }
}
