//! `hera-connector-sim`: a stand-in Unity Editor with the AgentConnector, for trying clients
//! without Unity. Logs go to stderr; there is no stdout protocol.

use clap::Parser;
use hera_connector_sim::{PortChoice, SimConfig, Simulator};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// A simulated Unity Editor running the AgentConnector (wire contract hera.execution/1).
///
/// It writes a heartbeat to <HOME>/.hera-agent-unity/instances/<md5(project)[:16]>.json every
/// second, serves POST /command, /commands and /approval/preflight on 127.0.0.1, keeps the
/// operation ledger and the file bus under <HOME>/.hera-agent-unity/status/, and runs an
/// in-memory project with the 34 built-in tools.
///
/// Examples:
///
///   hera-connector-sim --project /tmp/MyGame
///
///   hera-connector-sim --project /tmp/MyGame --home /tmp/fakehome --port 0 --control-port 0
///
///   curl -s -X POST 127.0.0.1:8090/command -d '{"command":"scene","params":{"action":"info"}}'
///
/// With --control-port, POST {"op":"reload","downtime_ms":500} (and the other knobs: inject,
/// set_state, set_pid, freeze_heartbeat, advance_clock, shutdown, …) to /control on that port.
/// Ctrl-C quits like an Editor does: the heartbeat says "stopped".
#[derive(Parser, Debug)]
#[command(name = "hera-connector-sim", version, verbatim_doc_comment)]
struct Args {
    /// The Unity project root, exactly as the heartbeat should publish it.
    #[arg(long, value_name = "PATH")]
    project: String,
    /// Listen on this port (0 = any free port). Default: the first free port of 8090-8099,
    /// as Unity does.
    #[arg(long, value_name = "N")]
    port: Option<u16>,
    /// Comma-separated heartbeat features (default: all six; "" advertises none).
    #[arg(long, value_name = "LIST")]
    features: Option<String>,
    /// Behave like an older Connector: no features or epoch, list names/tool only, meta
    /// ignored, no /approval/preflight, no ledger.
    #[arg(long)]
    legacy: bool,
    /// The home directory whose .hera-agent-unity/ is used (default: $HOME).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Serve the JSON control endpoint on this loopback port (0 = any free port).
    #[arg(long, value_name = "N")]
    control_port: Option<u16>,
    /// The pid the heartbeat reports (default: this process).
    #[arg(long, value_name = "PID")]
    pid: Option<i64>,
    /// Seconds a command waits for the command lock before COMMAND_LOCK_TIMEOUT.
    #[arg(long, value_name = "SECS", default_value_t = 120)]
    lock_wait_secs: u64,
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map(PathBuf::from)
        .filter(|p| !p.as_os_str().is_empty())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let args = Args::parse();
    let Some(home) = args.home.clone().or_else(home_dir) else {
        eprintln!("error: no home directory: set HOME or pass --home DIR");
        return ExitCode::from(2);
    };
    let mut cfg = SimConfig::new(home, args.project.clone());
    cfg.port = match args.port {
        None => PortChoice::UnityRange,
        Some(0) => PortChoice::Ephemeral,
        Some(p) => PortChoice::Fixed(p),
    };
    if let Some(list) = &args.features {
        cfg.features = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
    }
    cfg.legacy = args.legacy;
    cfg.pid = args.pid;
    cfg.control_port = args.control_port;
    cfg.lock_wait = Duration::from_secs(args.lock_wait_secs);
    // Listen for Ctrl-C before announcing anything: a caller that reads the announcement and
    // interrupts at once must get the `stopped` heartbeat, not the default SIGINT death. One
    // listener for the whole run, so no interrupt falls between two polls.
    let mut interrupt = match Interrupt::listen() {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: cannot listen for Ctrl-C: {e}");
            return ExitCode::from(1);
        }
    };
    let sim = match Simulator::start(cfg).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "error: could not start the simulator: {e} (is the port taken? try --port 0)"
            );
            return ExitCode::from(1);
        }
    };
    eprintln!("hera-connector-sim: listening on 127.0.0.1:{}", sim.port());
    eprintln!(
        "hera-connector-sim: heartbeat {}",
        sim.heartbeat_path().display()
    );
    eprintln!("hera-connector-sim: project_id {}", sim.project_id());
    if let Some(p) = sim.control_port() {
        eprintln!("hera-connector-sim: control on 127.0.0.1:{p} (POST /control)");
    }
    loop {
        tokio::select! {
            _ = interrupt.recv() => break,
            _ = tokio::time::sleep(Duration::from_millis(200)) => {
                if sim.is_shut() {
                    break;
                }
            }
        }
    }
    sim.shutdown();
    eprintln!("hera-connector-sim: stopped");
    ExitCode::SUCCESS
}

/// Ctrl-C (SIGINT on Unix), registered when created rather than on first poll.
struct Interrupt {
    #[cfg(unix)]
    inner: tokio::signal::unix::Signal,
    #[cfg(windows)]
    inner: tokio::signal::windows::CtrlC,
}

impl Interrupt {
    fn listen() -> std::io::Result<Interrupt> {
        #[cfg(unix)]
        let inner = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
        #[cfg(windows)]
        let inner = tokio::signal::windows::ctrl_c()?;
        Ok(Interrupt { inner })
    }

    async fn recv(&mut self) {
        self.inner.recv().await;
    }
}
