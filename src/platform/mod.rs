//! What differs between Linux, macOS and Windows, in one place: where home and the per-user
//! configuration folders are ([`dirs`]), whether a process is still running and this process's
//! malloc arena cap ([`process`]),
//! private files and atomic replacement ([`fs`]), and how paths are written ([`path`]).
//!
//! Everything else in the crate calls these functions instead of testing `cfg!(windows)` itself,
//! so the platform-specific code stays small enough to read for correctness. The pure parts take
//! the operating system as a value ([`Os`]) so that their Windows and macOS answers are
//! unit-tested on Linux; only the thin system calls are behind `cfg`.

pub mod dirs;
pub mod fs;
pub mod path;
pub mod process;

/// An operating system family, as a value, so that the rules for each can be tested anywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    Mac,
    Windows,
}

impl Os {
    /// The system this binary runs on. Other Unixes follow the Linux (XDG) conventions.
    pub const fn host() -> Os {
        if cfg!(windows) {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::Mac
        } else {
            Os::Linux
        }
    }
}
