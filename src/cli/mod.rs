//! The everyday commands: `status`, `doctor`, `list`, `call`, `task`, `version`, and the `mcp`
//! entry point. Each command is a small module; this file holds the command line itself
//! (`clap`), the exit codes and the output rules.
//!
//! Output rules: stdout carries results only (a tool's data, a listing, a report); every
//! diagnostic, prompt, summary and error envelope goes to stderr. Exit codes are in [`exit`].

mod call;
mod context;
mod doctor;
pub mod input;
mod list;
mod output;
mod status;
pub mod task;

use clap::{Args, Parser, Subcommand};
use std::process::ExitCode;

pub use output::Failure;

/// Process exit codes, documented in `--help`.
pub mod exit {
    /// Success.
    pub const OK: u8 = 0;
    /// The tool or operation failed (the Connector's error, an unknown outcome, a bad catalog).
    pub const FAILED: u8 = 1;
    /// The command line itself is wrong (unknown flag, malformed --args, invalid operation id).
    pub const USAGE: u8 = 2;
    /// No Editor could be reached (none running, ambiguous project, not answering).
    pub const NO_EDITOR: u8 = 3;
    /// Approval is required, was denied, or the token does not fit the call.
    pub const APPROVAL: u8 = 4;
}

/// Drive a running Unity Editor (AgentConnector) from the command line or as an MCP server.
#[derive(Debug, Parser)]
#[command(
    name = "hera-agent-unity",
    version,
    about = "Drive a running Unity Editor (AgentConnector package) from the command line or as an MCP server",
    after_help = AFTER_HELP,
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub globals: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The long help epilogue: selection, examples, environment, exit codes.
const AFTER_HELP: &str = concat!(
    "SELECTING AN EDITOR:\n",
    "  With no flags, the Editor whose project contains the current directory is used, else the\n",
    "  most recently active one. --port/HERA_AGENT_PORT picks by port; --project/HERA_AGENT_PROJECT\n",
    "  by exact path or a unique part of one. Heartbeats live in ~/.hera-agent-unity/instances.\n",
    "\n",
    "WAITING FOR A BUSY EDITOR:\n",
    "  `list` and `call` first make sure the Editor is alive. A ready, playing or paused Editor, or\n",
    "  one whose heartbeat is under 1 s old, is used at once. Otherwise (compiling, reloading,\n",
    "  refreshing, entering play mode) they re-read its heartbeat every 0.5-1.5 s until a newer one\n",
    "  appears, for up to --timeout from the start of the command; then they exit 3 with\n",
    "  EDITOR_NOT_READY naming the Editor's state. Progress goes to stderr when it is a terminal or\n",
    "  with --verbose (stdout stays results-only). `status`, `doctor`, `task` and `version` never wait.\n",
    "\n",
    "EXAMPLES:\n",
    "  hera-agent-unity status\n",
    "  hera-agent-unity doctor --json\n",
    "  hera-agent-unity list --compact\n",
    "  hera-agent-unity call scene info\n",
    "  hera-agent-unity call manage_gameobject create --args '{\"name\":\"Player\"}'\n",
    "  hera-agent-unity call scene close --args '{\"path\":\"Assets/Scenes/Level2.unity\"}' --yes\n",
    "  hera-agent-unity --project MyGame task list\n",
    "  HERA_MCP_ENABLED=1 hera-agent-unity mcp --transport stdio\n",
    "\n",
    "ENVIRONMENT:\n",
    "  HERA_AGENT_PORT, HERA_AGENT_PROJECT, HERA_AGENT_TIMEOUT_MS (default 60000), HERA_AGENT_VERBOSE,\n",
    "  HERA_MCP_ENABLED (must be 1 for `mcp`), HERA_MCP_EXPOSURE, RUST_LOG (stderr diagnostics)\n",
    "\n",
    "EXIT CODES:\n",
    "  0  success\n",
    "  1  the tool or operation failed (Connector error, OPERATION_OUTCOME_UNKNOWN, bad catalog)\n",
    "  2  usage error (unknown flag, malformed --args JSON, invalid --operation-id)\n",
    "  3  no Unity Editor reachable (none running, ambiguous --project, not answering, or still\n",
    "     compiling/reloading when --timeout expired)\n",
    "  4  approval required, denied, unsupported, or the token does not match the call"
);

/// Flags accepted anywhere on the command line.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Use the Editor listening on this port (0 = no preference).
    #[arg(long, global = true, env = "HERA_AGENT_PORT", value_name = "PORT")]
    pub port: Option<u16>,
    /// Use the Editor of this project: an exact path, or a unique part of one.
    #[arg(long, global = true, env = "HERA_AGENT_PROJECT", value_name = "PATH")]
    pub project: Option<String>,
    /// Timeout in milliseconds: for the wait for a busy (compiling, reloading) Editor, and for
    /// each request including its reload retries.
    #[arg(long, global = true, env = "HERA_AGENT_TIMEOUT_MS", value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,
    /// Progress on stderr (e.g. while waiting for a compiling Editor) even when stderr is not a
    /// terminal.
    #[arg(long, global = true, env = "HERA_AGENT_VERBOSE",
          value_parser = clap::builder::FalseyValueParser::new())]
    pub verbose: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the program version.
    Version,
    /// Show the selected Editor from its heartbeat (state, port, pid, age, features).
    #[command(
        after_help = "EXAMPLES:\n  hera-agent-unity status\n  hera-agent-unity --port 8091 status --json\n\nExit code 3 when no Editor is found."
    )]
    Status {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Check the whole setup and say how to fix what fails.
    #[command(
        after_help = "Checks: heartbeat directory, instances found, chosen instance (liveness and age),\nHTTP reachability, features, catalog fetch and hash, result-cache permissions, MCP enablement.\n\nEXAMPLES:\n  hera-agent-unity doctor\n  hera-agent-unity doctor --json\n\nExit code 0 when nothing failed (warnings allowed), 3 when a check failed."
    )]
    Doctor {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// List the Editor's tools and actions from its catalog.
    #[command(
        after_help = "Waits first while the Editor is compiling or reloading (up to --timeout; see the\nmain --help, WAITING FOR A BUSY EDITOR).\n\nEXAMPLES:\n  hera-agent-unity list\n  hera-agent-unity list --compact\n  hera-agent-unity list --json"
    )]
    List {
        /// Tool names only.
        #[arg(long)]
        compact: bool,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Call one tool (and action) with JSON arguments, asking for approval when it is required.
    #[command(after_help = "\
WAITING:
  While the Editor is compiling or reloading, the call waits for its heartbeat to move again
  (up to --timeout; progress on stderr with --verbose or on a terminal), then exits 3 with
  EDITOR_NOT_READY if it never did. Nothing is sent before that.

APPROVAL:
  Calls whose resolved safety requires confirmation are preflighted first: the Editor issues a
  single-use token bound to these exact arguments, the summary is shown on stderr, and then
    - on a terminal you are asked to confirm (y/yes);
    - with --yes (or a bare --approve) the call proceeds;
    - otherwise the command exits 4 with APPROVAL_REQUIRED and the token in data.token; rerun
      the same call with --approve=<token>.

UNKNOWN OUTCOMES:
  If the Editor reloads mid-call and it cannot be known whether the call ran, the command exits 1
  with OPERATION_OUTCOME_UNKNOWN and its operation id. Rerun the same call with
  --operation-id <id>: the Editor's ledger replays the result instead of running it twice.

EXAMPLES:
  hera-agent-unity call scene info
  hera-agent-unity call scene load --args '{\"path\":\"Assets/Scenes/Main.unity\"}'
  hera-agent-unity call manage_gameobject --args '{\"action\":\"create\",\"name\":\"Cube\"}'
  hera-agent-unity call scene close --args '{\"path\":\"Assets/Scenes/L2.unity\"}' --yes
  hera-agent-unity call scene close --args '{\"path\":\"Assets/Scenes/L2.unity\"}' --approve=<token>
  echo '{\"name\":\"Cube\"}' | hera-agent-unity call manage_gameobject create --args -")]
    Call(CallArgs),
    /// Long-running work (test runs, package jobs) the Editor reports through its status files.
    #[command(subcommand)]
    Task(TaskCommand),
    /// Run the stdio MCP server (requires HERA_MCP_ENABLED=1).
    #[command(
        after_help = "EXAMPLES:\n  HERA_MCP_ENABLED=1 hera-agent-unity mcp\n  HERA_MCP_ENABLED=1 hera-agent-unity --project MyGame mcp --transport stdio --exposure compact"
    )]
    Mcp(McpArgs),
}

#[derive(Debug, Clone, Args)]
pub struct CallArgs {
    /// Tool name, e.g. `scene`.
    pub tool: String,
    /// Action, e.g. `info` (same as "action" in --args).
    pub action: Option<String>,
    /// Arguments as a JSON object; `-` reads stdin, `@FILE` reads a file.
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// Operation id to use (8-128 letters, digits, `_` or `-`); reuse one to resend after an
    /// unknown outcome.
    #[arg(long, value_name = "ID")]
    pub operation_id: Option<String>,
    /// Approve: with a token from a previous APPROVAL_REQUIRED, use it; bare, same as --yes.
    #[arg(long, value_name = "TOKEN", num_args = 0..=1, default_missing_value = "")]
    pub approve: Option<String>,
    /// Approve without asking (the summary is still shown on stderr).
    #[arg(long, short = 'y', env = "HERA_AGENT_APPROVE", value_parser = clap::builder::FalseyValueParser::new())]
    pub yes: bool,
}

#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// List running test and package jobs of the selected Editor.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Show one task by its durable id (hera_task_…): working, completed (with result) or not found.
    Status {
        /// The task id.
        id: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Clone, Args)]
pub struct McpArgs {
    /// Only `stdio` exists.
    #[arg(long, default_value = "stdio")]
    pub transport: String,
    /// `compact` (default), `profile` or `full`; falls back to HERA_MCP_EXPOSURE.
    #[arg(long)]
    pub exposure: Option<String>,
    /// With `--exposure profile`: core (default), scene, assets, ui, diagnostics, testing,
    /// custom, full or advanced (needs --allow-arbitrary-code); falls back to HERA_MCP_PROFILE.
    #[arg(long)]
    pub profile: Option<String>,
    /// Expose and allow tools that run arbitrary code.
    #[arg(long)]
    pub allow_arbitrary_code: bool,
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
}

/// The program: parse, dispatch, map the outcome to an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and errors to stderr (exit 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            });
        }
    };
    if let Command::Mcp(m) = &cli.command {
        return crate::mcp::run(crate::mcp::McpOptions {
            transport: m.transport.clone(),
            exposure: m.exposure.clone(),
            profile: m.profile.clone(),
            project: cli.globals.project.clone().filter(|p| !p.trim().is_empty()),
            port: cli.globals.port.filter(|p| *p != 0),
            timeout_ms: cli.globals.timeout,
            allow_arbitrary_code: m.allow_arbitrary_code,
        });
    }
    init_tracing();
    if let Command::Version = cli.command {
        println!("hera-agent-unity {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(exit::FAILED);
        }
    };
    let globals = context::Globals::new(&cli.globals);
    let result = runtime.block_on(async {
        match cli.command {
            Command::Status { json } => status::run(&globals, json).await,
            Command::Doctor { json } => doctor::run(&globals, json).await,
            Command::List { compact, json } => list::run(&globals, compact, json).await,
            Command::Call(args) => call::run(&globals, args).await,
            Command::Task(TaskCommand::List { json }) => task::run_list(&globals, json).await,
            Command::Task(TaskCommand::Status { id, json }) => {
                task::run_status(&globals, &id, json).await
            }
            Command::Version | Command::Mcp(_) => unreachable!("handled above"),
        }
    });
    match result {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            failure.print();
            ExitCode::from(failure.exit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_line_is_consistent_and_globals_go_anywhere() {
        Cli::command().debug_assert();
        let c = Cli::try_parse_from([
            "h",
            "call",
            "scene",
            "close",
            "--port",
            "8091",
            "--approve",
            "--timeout",
            "50",
        ])
        .unwrap();
        assert_eq!(c.globals.port, Some(8091));
        assert_eq!(c.globals.timeout, Some(50));
        match c.command {
            Command::Call(a) => {
                assert_eq!(a.action.as_deref(), Some("close"));
                assert_eq!(a.approve.as_deref(), Some(""));
            }
            other => panic!("{other:?}"),
        }
        let c = Cli::try_parse_from(["h", "call", "scene", "--approve=abc.def"]).unwrap();
        match c.command {
            Command::Call(a) => assert_eq!(a.approve.as_deref(), Some("abc.def")),
            other => panic!("{other:?}"),
        }
        assert!(Cli::try_parse_from(["h", "--timeout", "0", "status"]).is_err());
        let c = Cli::try_parse_from(["h", "list", "--verbose"]).unwrap();
        assert!(c.globals.verbose);
    }
}
