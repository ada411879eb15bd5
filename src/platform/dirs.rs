//! Home and per-user configuration folders.
//!
//! "Home" must be the folder the Connector writes under: .NET's `UserProfile`, which is
//! `%USERPROFILE%` on Windows and `$HOME` elsewhere (`connector-contract/README.md`, heartbeat
//! directory). MCP clients sometimes start us with a stripped environment (no `HOME`), so when
//! the variable is missing we ask the OS for the account's home (`getpwuid_r` on Unix, the
//! known-folder API on Windows, both through the `dirs` crate) instead of giving up.
//!
//! The configuration folders are derived from that home and a few environment variables rather
//! than from `dirs::config_dir()`, because on Windows that asks the known-folder API and ignores
//! the environment, which would make `setup` impossible to point at a test home.

use super::Os;
use std::path::{Path, PathBuf};

/// The user's home directory as the Connector sees it, or `None` if the OS cannot tell.
pub fn user_home() -> Option<PathBuf> {
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    match std::env::var_os(var) {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        // `dirs` re-checks HOME and then asks the password database on Unix.
        _ => ::dirs::home_dir(),
    }
}

/// The environment variables the folder rules read, captured once so the rules stay pure.
#[derive(Debug, Clone, Default)]
pub struct FolderEnv {
    /// `XDG_CONFIG_HOME` (Linux).
    pub xdg_config_home: Option<PathBuf>,
    /// `APPDATA` (Windows: the roaming application-data folder).
    pub appdata: Option<PathBuf>,
}

impl FolderEnv {
    pub fn from_env() -> FolderEnv {
        let get = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                // A relative XDG/APPDATA value is invalid by both specifications; ignore it.
                .filter(|p| p.is_absolute())
        };
        FolderEnv {
            xdg_config_home: get("XDG_CONFIG_HOME"),
            appdata: get("APPDATA"),
        }
    }
}

/// The per-user application configuration folder: `~/.config` (or `$XDG_CONFIG_HOME`) on
/// Linux, `~/Library/Application Support` on macOS, `%APPDATA%` (else `~\AppData\Roaming`) on
/// Windows. Desktop applications such as Claude Desktop and VS Code keep their settings here.
pub fn app_config_dir(os: Os, home: &Path, env: &FolderEnv) -> PathBuf {
    match os {
        Os::Linux => env
            .xdg_config_home
            .clone()
            .unwrap_or_else(|| home.join(".config")),
        Os::Mac => home.join("Library").join("Application Support"),
        Os::Windows => env
            .appdata
            .clone()
            .unwrap_or_else(|| home.join("AppData").join("Roaming")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_config_dir_follows_each_platform() {
        let home = Path::new("/h");
        let none = FolderEnv::default();
        assert_eq!(
            app_config_dir(Os::Linux, home, &none),
            Path::new("/h/.config")
        );
        assert_eq!(
            app_config_dir(Os::Mac, home, &none),
            Path::new("/h/Library/Application Support")
        );
        assert_eq!(
            app_config_dir(Os::Windows, home, &none),
            Path::new("/h/AppData/Roaming")
        );
        let set = FolderEnv {
            xdg_config_home: Some("/x".into()),
            appdata: Some("/a".into()),
        };
        assert_eq!(app_config_dir(Os::Linux, home, &set), Path::new("/x"));
        assert_eq!(app_config_dir(Os::Windows, home, &set), Path::new("/a"));
        // macOS has no such variable: the folder is fixed.
        assert_eq!(
            app_config_dir(Os::Mac, home, &set),
            Path::new("/h/Library/Application Support")
        );
    }
}
