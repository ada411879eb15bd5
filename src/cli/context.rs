//! What every command needs: where the heartbeats are, which Editor the user asked for, how
//! long to wait, and a connected client for that Editor.

use super::GlobalArgs;
use super::output::Failure;
use crate::connector::{ConnectorClient, DEFAULT_TIMEOUT};
use crate::discovery::{self, AgentHome, Selector};
use std::time::Duration;

pub struct Globals {
    pub home: AgentHome,
    pub selector: Selector,
    pub timeout: Duration,
}

impl Globals {
    /// Flags were already merged with the environment by clap; `0`/empty mean "not given".
    pub fn new(g: &GlobalArgs) -> Globals {
        Globals {
            home: AgentHome::from_env(),
            selector: Selector {
                port: g.port.filter(|p| *p != 0),
                project: g.project.clone().filter(|p| !p.trim().is_empty()),
                cwd: std::env::current_dir().ok(),
            },
            timeout: g
                .timeout
                .map(Duration::from_millis)
                .unwrap_or(DEFAULT_TIMEOUT),
        }
    }

    /// Finds the Editor (waiting up to min(timeout, 5 s) for one to appear) and binds a client.
    pub async fn connect(&self) -> Result<ConnectorClient, Failure> {
        let instance = discovery::discover(&self.home, &self.selector, self.timeout).await?;
        Ok(ConnectorClient::new(
            self.home.clone(),
            instance,
            self.timeout,
        ))
    }
}
