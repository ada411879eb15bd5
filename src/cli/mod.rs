//! The everyday commands: `status`, `doctor`, `list`, `call`, `task`, `version`, `setup`,
//! `completions`, and the `mcp` entry point. Each command is a small module; this file holds
//! the command line itself (`clap`), the exit codes and the output rules. `context` holds what
//! every command needs (the selection, the timeout, the session `list` and `call` run in);
//! `output` how results and failures leave the process; `generated` the completions and the man
//! page; `input` the bounded reading of `--args`; `call`, `doctor`, `list`, `setup`, `status`
//! and `task` are the commands.
//!
//! Output rules: stdout carries results only (a tool's data, a listing, a report); every
//! diagnostic, prompt, summary and error envelope goes to stderr. Exit codes are in [`exit`].

mod call;
mod context;
mod doctor;
mod generated;
pub mod input;
mod list;
mod output;
pub mod setup;
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
    "  hera-agent-unity setup claude-code\n",
    "\n",
    "ENVIRONMENT:\n",
    "  Every flag that has an environment variable names it in its own help line (`mcp --help` for\n",
    "  the server's). RUST_LOG sets the stderr diagnostics (default warn).\n",
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
    /// Timeout in milliseconds (default 125000, longer than the Connector's 120 s command-lock
    /// wait): for the wait for a busy (compiling, reloading) Editor, and for each request
    /// including its reload retries.
    #[arg(long, global = true, env = "HERA_AGENT_TIMEOUT_MS", value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,
    /// Send changes and approval tokens even to a listener whose owner this platform cannot
    /// check (a listener of another user is never trusted). Off by default.
    #[arg(long, global = true, env = "HERA_AGENT_ALLOW_UNVERIFIED_LISTENER",
          value_parser = boolean("HERA_AGENT_ALLOW_UNVERIFIED_LISTENER"))]
    pub allow_unverified_listener: bool,
    /// Progress on stderr (e.g. while waiting for a compiling Editor) even when stderr is not a
    /// terminal.
    #[arg(long, global = true, env = "HERA_AGENT_VERBOSE", value_parser = boolean("HERA_AGENT_VERBOSE"))]
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
        after_help = "Checks: heartbeat directory, instances found, chosen instance (liveness and age),\nHTTP reachability, features, catalog fetch and hash, result-cache permissions, MCP enablement,\nand each MCP client configuration that launches hera-agent-unity.\n\nEXAMPLES:\n  hera-agent-unity doctor\n  hera-agent-unity doctor --json\n\nExit code 0 when nothing failed (warnings allowed), 3 when a check failed."
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
    /// Add this binary to an MCP client's configuration (or take it out with --remove).
    Setup(setup::SetupArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    #[command(
        after_help = "EXAMPLES:\n  hera-agent-unity completions bash > ~/.local/share/bash-completion/completions/hera-agent-unity\n  hera-agent-unity completions zsh > \"${fpath[1]}/_hera-agent-unity\"\n  hera-agent-unity completions fish > ~/.config/fish/completions/hera-agent-unity.fish"
    )]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout.
    #[command(hide = true)]
    Man,
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
    #[arg(long, short = 'y', env = "HERA_AGENT_APPROVE", value_parser = boolean("HERA_AGENT_APPROVE"))]
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
    /// The server is off unless this is set (normally as HERA_MCP_ENABLED=1 in the MCP client's
    /// server entry), so it never starts by accident.
    #[arg(long, env = "HERA_MCP_ENABLED", value_parser = gate)]
    pub enabled: bool,
    /// Only `stdio` exists.
    #[arg(long, default_value = "stdio")]
    pub transport: String,
    /// `compact` (default: three tools), `profile` or `full` (one MCP tool per Editor tool).
    #[arg(long, env = "HERA_MCP_EXPOSURE")]
    pub exposure: Option<String>,
    /// With `--exposure profile`: core (default), scene, assets, ui, diagnostics, testing,
    /// custom, full or advanced (needs --allow-arbitrary-code).
    #[arg(long, env = "HERA_MCP_PROFILE")]
    pub profile: Option<String>,
    /// Expose and allow tools that run arbitrary code.
    #[arg(long, env = "HERA_MCP_ALLOW_ARBITRARY_CODE",
          value_parser = boolean("HERA_MCP_ALLOW_ARBITRARY_CODE"))]
    pub allow_arbitrary_code: bool,
    /// Ask for approval through the client's own form where the client supports one
    /// (elicitation, or an `input_required` question on 2026-07-28); false keeps the token round
    /// trip only.
    #[arg(long, env = "HERA_MCP_MRTR", value_parser = boolean("HERA_MCP_MRTR"), default_value = "true",
          default_missing_value = "true", num_args = 0..=1)]
    pub mrtr: bool,
    /// Tools per `tools/list` page (1-1000).
    #[arg(long, env = "HERA_MCP_PAGE_SIZE", value_name = "N", value_parser = page_size)]
    pub page_size: Option<u16>,
    /// Editor results larger than this many bytes are kept in the local result cache and
    /// returned as a `hera-result://` link with a preview (default 16384).
    #[arg(long, env = "HERA_MCP_MAX_INLINE_BYTES", value_name = "BYTES")]
    pub max_inline_bytes: Option<String>,
    /// How long cached results are kept, in seconds (default 86400).
    #[arg(long, env = "HERA_MCP_RESULT_RETENTION_SECS", value_name = "SECS")]
    pub result_retention_secs: Option<String>,
    /// The result cache's size cap per project, in bytes (default 67108864, 64 MiB).
    #[arg(long, env = "HERA_MCP_RESULT_CACHE_BYTES", value_name = "BYTES")]
    pub result_cache_bytes: Option<String>,
}

/// The one rule for every boolean flag and its environment variable: `1`, `true`, `yes`, `on`
/// (and `y`, `t`) are true, `0`, `false`, `no`, `off` (and `n`, `f`) are false, in any case;
/// an empty value is off; anything else is a usage error that names the setting, rather than a
/// silent guess.
fn parse_boolean(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" | "y" | "t" => Some(true),
        "0" | "false" | "no" | "off" | "n" | "f" | "" => Some(false),
        _ => None,
    }
}

/// [`parse_boolean`] as a clap value parser for the setting `name` (flag and variable).
fn boolean(name: &'static str) -> impl Fn(&str) -> Result<bool, String> + Clone {
    move |text: &str| {
        parse_boolean(text)
            .ok_or_else(|| format!("{name} must be 1/true/yes/on or 0/false/no/off, not {text:?}"))
    }
}

/// The server's gate: anything but a clear yes leaves it off, and the refusal says how to
/// enable it.
fn gate(text: &str) -> Result<bool, String> {
    parse_boolean(text).ok_or_else(|| {
        format!(
            "HERA_MCP_ENABLED is {text:?}; the MCP server is off unless HERA_MCP_ENABLED=1 (or \
             true/yes/on)"
        )
    })
}

/// `--page-size` / `HERA_MCP_PAGE_SIZE`.
fn page_size(text: &str) -> Result<u16, String> {
    text.trim()
        .parse::<u16>()
        .ok()
        .filter(|n| (1..=1000).contains(n))
        .ok_or_else(|| {
            format!(
                "HERA_MCP_PAGE_SIZE / --page-size must be a whole number from 1 to 1000 (tools \
                 per tools/list page), not {text:?}"
            )
        })
}

/// [`parse_boolean`] applied to an environment variable outside clap (for `doctor`'s report):
/// `None` when unset, empty or not a boolean.
pub(crate) fn env_boolean(name: &str) -> Option<bool> {
    parse_boolean(&std::env::var(name).ok()?)
}

/// The one tracing setup, on stderr, `RUST_LOG` (default `warn`). Libraries that would write
/// whole protocol messages at debug or trace (rmcp's JSON-RPC frames carry approval tokens in
/// their arguments; the HTTP stack's carry `meta`) are capped at `warn` whatever `RUST_LOG`
/// says, so a token never reaches a log.
fn init_tracing() {
    let mut filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    for quiet in [
        "rmcp=warn",
        "hyper=warn",
        "hyper_util=warn",
        "reqwest=warn",
        "h2=warn",
    ] {
        if let Ok(d) = quiet.parse() {
            filter = filter.add_directive(d);
        }
    }
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
    init_tracing();
    crate::connector::allow_unverified_listener(cli.globals.allow_unverified_listener);
    if let Command::Mcp(m) = &cli.command {
        return crate::mcp::run(crate::mcp::McpOptions {
            enabled: m.enabled,
            transport: m.transport.clone(),
            exposure: m.exposure.clone().filter(|e| !e.trim().is_empty()),
            profile: m.profile.clone().filter(|p| !p.trim().is_empty()),
            project: cli.globals.project.clone().filter(|p| !p.trim().is_empty()),
            port: cli.globals.port.filter(|p| *p != 0),
            timeout: cli
                .globals
                .timeout
                .map(std::time::Duration::from_millis)
                .unwrap_or(crate::connector::DEFAULT_TIMEOUT),
            allow_arbitrary_code: m.allow_arbitrary_code,
            ask_with_form: m.mrtr,
            page_size: m.page_size.map(usize::from),
            max_inline_bytes: m.max_inline_bytes.clone(),
            result_retention_secs: m.result_retention_secs.clone(),
            result_cache_bytes: m.result_cache_bytes.clone(),
        });
    }
    match &cli.command {
        Command::Version => {
            println!("hera-agent-unity {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Command::Setup(args) => return exit_code(setup::run(&cli.globals, args)),
        Command::Completions { shell } => return exit_code(generated::completions(*shell)),
        Command::Man => return exit_code(generated::man_page()),
        _ => {}
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
            Command::Version
            | Command::Mcp(_)
            | Command::Setup(_)
            | Command::Completions { .. }
            | Command::Man => unreachable!("handled above"),
        }
    });
    exit_code(result)
}

fn exit_code(result: Result<u8, Failure>) -> ExitCode {
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
