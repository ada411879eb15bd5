//! What every command needs: where the heartbeats are, which Editor the user asked for, how
//! long to wait, and the session `list` and `call` run in.

use super::GlobalArgs;
use crate::connector::DEFAULT_TIMEOUT;
use crate::discovery::{AgentHome, AliveEvent, Selector, describe_state, now_ms};
use crate::session::{Session, SessionOptions};
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

    /// The session `list` and `call` run in: the same readiness rule as the MCP server, with a
    /// person's bounds (wait for a busy Editor up to `--timeout`, for one to appear up to 5 s).
    pub fn session(&self) -> Session {
        Session::with_home(
            self.home.clone(),
            SessionOptions {
                project: self.selector.project.clone(),
                port: self.selector.port,
                timeout: self.timeout,
                ready_wait: self
                    .timeout
                    .saturating_sub(self.started.elapsed())
                    .max(Duration::from_millis(1)),
                appear_wait: self.timeout.min(APPEAR_WAIT),
            },
        )
    }

    /// One progress line on stderr per change while waiting for a busy Editor, when wanted.
    pub fn alive_report(&self) -> impl Fn(AliveEvent<'_>) + Send + Sync + use<> {
        let deadline = self.started + self.timeout;
        let progress = self.progress;
        move |e: AliveEvent<'_>| {
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
                    "waiting for Unity: no readable heartbeat right now; giving up in {left:.0} s"
                ),
                AliveEvent::Alive(i) => eprintln!(
                    "Unity is responding again (state {}, port {}); continuing",
                    i.state(),
                    i.port()
                ),
            }
        }
    }
}

/// How long `list` and `call` wait for an Editor to appear when none is running yet.
const APPEAR_WAIT: Duration = Duration::from_secs(5);
