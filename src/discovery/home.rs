//! Where the per-user state lives: `<home>/.hera-agent-unity/` and its sub-folders (§1.1).
//!
//! There is no environment override for this directory on either side of the wire, so the only
//! thing we can get wrong is "home", and [`user_home`] (in `platform::dirs`) follows the
//! Connector's notion of it on every platform.

use hera_connector_contract::wire::{BASE_DIR_NAME, INSTANCES_DIR, OPERATIONS_DIR, STATUS_DIR};
use std::path::{Path, PathBuf};

/// The `~/.hera-agent-unity` directory and the well-known folders inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentHome {
    base: PathBuf,
}

pub use crate::platform::dirs::user_home;

impl AgentHome {
    /// The base directory for this user. When no home directory can be found at all, Go falls
    /// back to `./.hera-agent-unity`; we do the same so behaviour matches, and say so on stderr.
    pub fn from_env() -> AgentHome {
        match user_home() {
            Some(h) => AgentHome::for_home(&h),
            None => {
                tracing::warn!(
                    "no home directory could be determined; using ./{BASE_DIR_NAME} (set HOME or USERPROFILE)"
                );
                AgentHome {
                    base: PathBuf::from(".").join(BASE_DIR_NAME),
                }
            }
        }
    }

    /// `<home>/.hera-agent-unity`.
    pub fn for_home(home: &Path) -> AgentHome {
        AgentHome {
            base: home.join(BASE_DIR_NAME),
        }
    }

    /// An explicit base directory (the folder that *contains* `instances/`).
    pub fn at(base: PathBuf) -> AgentHome {
        AgentHome { base }
    }

    pub fn base(&self) -> &Path {
        &self.base
    }
    /// Heartbeat files, one per running Editor.
    pub fn instances_dir(&self) -> PathBuf {
        self.base.join(INSTANCES_DIR)
    }
    /// The file bus for tests, packages and builds (§7).
    pub fn status_dir(&self) -> PathBuf {
        self.base.join(STATUS_DIR)
    }
    /// The Connector's operation ledger (§6.3); we never write it, `doctor` may look.
    pub fn operations_dir(&self) -> PathBuf {
        self.status_dir().join(OPERATIONS_DIR)
    }
    /// Our cache of verified catalogs (§3.10).
    pub fn catalog_cache_dir(&self) -> PathBuf {
        self.base.join("cache").join("catalog")
    }
    /// Spilled MCP results.
    pub fn results_dir(&self) -> PathBuf {
        self.base.join("results")
    }
}
