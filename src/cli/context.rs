//! What every command needs: where the heartbeats are, which Editor the user asked for, how
//! long to wait, and a connected client for that Editor.

use super::GlobalArgs;
use super::output::Failure;
use crate::connector::{ConnectorClient, DEFAULT_TIMEOUT};
use crate::discovery::{self, AgentHome, AliveEvent, Instance, Selector, describe_state, now_ms};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

pub struct Globals {
    pub home: AgentHome,
    pub selector: Selector,
    pub timeout: Duration,
    /// When the command started: `--timeout` bounds the whole wait for a busy Editor from here.
    pub started: Instant,
    /// Show progress lines on stderr (stderr is a terminal, or `--verbose`).
    pub progress: bool,
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
            started: Instant::now(),
            progress: g.verbose || std::io::stderr().is_terminal(),
        }
    }

    /// For the commands that send requests to the Editor (`list`, `call`): finds it (waiting up
    /// to min(timeout, 5 s) for one to appear), waits until it is alive (§1.5: a busy Editor's
    /// heartbeat must move again before `--timeout` expires), and binds a client.
    pub async fn connect(&self) -> Result<ConnectorClient, Failure> {
        let instance = discovery::discover(&self.home, &self.selector, self.timeout).await?;
        let instance = self.wait_for_alive(&instance).await?;
        Ok(ConnectorClient::new(
            self.home.clone(),
            instance,
            self.timeout,
        ))
    }

    /// The wait-for-alive step, with one progress line on stderr per change when wanted.
    async fn wait_for_alive(&self, instance: &Instance) -> Result<Instance, Failure> {
        let deadline = self.started + self.timeout;
        let progress = self.progress;
        let report = |e: AliveEvent<'_>| {
            if !progress {
                return;
            }
            let left = deadline
                .saturating_duration_since(Instant::now())
                .as_secs_f64();
            match e {
                AliveEvent::Waiting(i) => eprintln!(
                    "waiting for Unity ({}, port {}): {} (state {}), last heartbeat {:.1} s ago; \
                     giving up in {left:.0} s",
                    i.project_path,
                    i.port(),
                    describe_state(i),
                    i.state(),
                    i.age_ms(now_ms()).max(0) as f64 / 1000.0
                ),
                AliveEvent::Missing => eprintln!(
                    "waiting for Unity ({}): no readable heartbeat right now; giving up in {left:.0} s",
                    instance.project_path
                ),
                AliveEvent::Alive(i) => eprintln!(
                    "Unity is responding again (state {}, port {}); continuing",
                    i.state(),
                    i.port()
                ),
            }
        };
        Ok(discovery::wait_for_alive_observed(&self.home, instance, deadline, report).await?)
    }
}
