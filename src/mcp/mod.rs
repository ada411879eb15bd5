//! The MCP server: a default-off stdio server with compact exposure (three tools over the
//! Editor's live catalog) or native exposure (profile, full: one MCP tool per catalog tool).
//! The only module that knows MCP and JSON-RPC.
//!
//! # Layout
//! - [`run`]: the gate (`HERA_MCP_ENABLED`), option checks, the runtime, prompt exit on EOF.
//! - `server`: the rmcp handler (identity, tools/list, dispatch, JSON-RPC errors).
//! - `transport`: stdio line framing with JSON-RPC errors for malformed lines, the early
//!   notification guard and the EOF signal.
//! - `exposure`: compact or native, and which profile (resolved once at startup).
//! - `tools`, `envelope`: the compact tool definitions and the one result shape.
//! - `native`: native tool definitions from catalog entries (schemas, annotations, refusals).
//! - `surface`: the published list: its lifecycle, paging and `tools/list_changed`.
//! - `args`: strict decoding of the compact tools' arguments.
//! - `compact`: tool_search and tool_describe over a catalog view.
//! - `call`: `tool_call` and native calls through the session's pipeline, worded for an agent;
//!   tasks, progress and result shaping.
//! - `approval`: the agent's [`crate::session::Approver`]: form, `input_required` or token.
//!
//! # Why these choices
//! The server must start, list its tools and answer search/describe with no Editor running
//! (anchor weakness §10.7), so nothing here touches the Editor before a tool asks for it.

// Refusals are this module's main output (an envelope the model reads and acts on), returned
// through `Result<_, Envelope>` on paths that run once per request; boxing them buys nothing.
#![allow(clippy::result_large_err)]

mod approval;
mod args;
mod call;
mod compact;
mod envelope;
mod exposure;
mod native;
mod server;
mod surface;
mod task_ext;
mod tools;
mod transport;

pub use envelope::{Envelope, output_schema};
pub use exposure::{DEFAULT_PROFILE, Exposure};
pub use surface::DEFAULT_PAGE_SIZE;
pub use tools::{APPROVAL_META_KEY, INSTRUCTIONS, NATIVE_INSTRUCTIONS, TASK_POLL_NAME};

use crate::session::{Session, SessionOptions};
use rmcp::ServiceExt;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Options of `hera-agent-unity mcp`, resolved by the CLI (flags over environment).
#[derive(Debug, Clone, Default)]
pub struct McpOptions {
    /// `--transport`; only `stdio` exists.
    pub transport: String,
    /// `--exposure`; `None` falls back to `HERA_MCP_EXPOSURE`, then `compact`.
    pub exposure: Option<String>,
    /// `--profile`; `None` falls back to `HERA_MCP_PROFILE`, then `core`.
    pub profile: Option<String>,
    /// Global `--project` (`HERA_AGENT_PROJECT`).
    pub project: Option<String>,
    /// Global `--port` (`HERA_AGENT_PORT`).
    pub port: Option<u16>,
    /// Global `--timeout` in ms (`HERA_AGENT_TIMEOUT_MS`); per Editor request.
    pub timeout_ms: Option<u64>,
    /// `--allow-arbitrary-code` (or `HERA_MCP_ALLOW_ARBITRARY_CODE`).
    pub allow_arbitrary_code: bool,
}

/// The longest a call waits for a busy Editor before answering a retryable refusal: under the
/// 30 s after which some clients give up on a request.
const AGENT_READY_WAIT: Duration = Duration::from_secs(20);

/// How long in-flight handlers get after stdin closes before the process exits anyway. Clients
/// that close stdin kill the process tree 5 s later; we must be gone well before.
const EOF_GRACE: Duration = Duration::from_millis(300);

/// `1/true/yes/on` (any case) are true; anything else, including unset, is false.
pub fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

fn refuse(message: &str) -> ExitCode {
    eprintln!("Error: {message}");
    ExitCode::from(1)
}

/// Runs the MCP server on stdin/stdout until the client closes stdin. Nothing but JSON-RPC
/// frames is ever written to stdout; every refusal goes to stderr with a non-zero exit.
pub fn run(opts: McpOptions) -> ExitCode {
    if !env_flag("HERA_MCP_ENABLED") {
        return refuse(
            "the MCP server is disabled by default. Enable it by setting HERA_MCP_ENABLED=1 in \
             the environment of the MCP client's server entry (for example \
             \"env\": {\"HERA_MCP_ENABLED\": \"1\"}), then start `hera-agent-unity mcp`.",
        );
    }
    let transport = if opts.transport.is_empty() {
        "stdio"
    } else {
        opts.transport.as_str()
    };
    if transport != "stdio" {
        return refuse(&format!(
            "unsupported MCP transport {transport:?}; only stdio is available (--transport stdio)"
        ));
    }
    let allow_arbitrary_code =
        opts.allow_arbitrary_code || env_flag("HERA_MCP_ALLOW_ARBITRARY_CODE");
    let from_env = |flag: &Option<String>, var: &str| {
        flag.clone()
            .filter(|e| !e.trim().is_empty())
            .or_else(|| std::env::var(var).ok())
    };
    let exposure = match exposure::resolve(
        from_env(&opts.exposure, "HERA_MCP_EXPOSURE").as_deref(),
        from_env(&opts.profile, "HERA_MCP_PROFILE").as_deref(),
        allow_arbitrary_code,
    ) {
        Ok(e) => e,
        Err(e) => return refuse(&e),
    };
    let page_size = match page_size_from_env() {
        Ok(n) => n,
        Err(e) => return refuse(&e),
    };
    let timeout_ms = opts
        .timeout_ms
        .unwrap_or(crate::connector::DEFAULT_TIMEOUT.as_millis() as u64);
    if timeout_ms == 0 {
        return refuse(
            "the MCP timeout must be greater than zero (--timeout / HERA_AGENT_TIMEOUT_MS)",
        );
    }
    let inline_cap = match crate::results::InlineCap::from_env() {
        Ok(c) => c,
        Err(e) => return refuse(&e.to_string()),
    };
    let store = match crate::results::StoreConfig::from_env() {
        Ok(c) => c,
        Err(e) => return refuse(&e.to_string()),
    };

    init_tracing();

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return refuse(&format!("cannot start the async runtime: {e}")),
    };
    let timeout = Duration::from_millis(timeout_ms);
    let session_opts = SessionOptions {
        project: opts.project.clone(),
        port: opts.port,
        timeout,
        // An agent's client times a request out after about 30 s: a longer wait for a busy
        // Editor would end in the client's timeout instead of our retryable answer.
        ready_wait: timeout.min(AGENT_READY_WAIT),
        appear_wait: Duration::ZERO,
    };
    let code = runtime.block_on(serve(
        session_opts,
        inline_cap,
        store,
        exposure,
        allow_arbitrary_code,
        page_size,
    ));
    // Whatever is still running (a handler waiting on the Editor, the heartbeat watch, the
    // stdin reader thread) must not keep the process alive.
    runtime.shutdown_timeout(Duration::from_millis(100));
    code
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // main may already have installed a subscriber; then keep it.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
}

/// `HERA_MCP_PAGE_SIZE`: tools per `tools/list` page (1..=1000); absent or empty means
/// [`DEFAULT_PAGE_SIZE`].
fn page_size_from_env() -> Result<usize, String> {
    match std::env::var("HERA_MCP_PAGE_SIZE") {
        Err(_) => Ok(DEFAULT_PAGE_SIZE),
        Ok(v) if v.trim().is_empty() => Ok(DEFAULT_PAGE_SIZE),
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=surface::MAX_PAGE_SIZE).contains(n))
            .ok_or_else(|| {
                format!(
                    "HERA_MCP_PAGE_SIZE must be a whole number from 1 to {} (tools per \
                     tools/list page), not {v:?}",
                    surface::MAX_PAGE_SIZE
                )
            }),
    }
}

async fn serve(
    session_opts: SessionOptions,
    inline_cap: crate::results::InlineCap,
    store: crate::results::StoreConfig,
    exposure: Exposure,
    allow_arbitrary_code: bool,
    page_size: usize,
) -> ExitCode {
    let session = Arc::new(Session::new(session_opts));
    let calls = Arc::new(call::AgentCalls {
        results: Arc::new(crate::results::ResultStore::new(
            session.home().base(),
            store,
        )),
        session: session.clone(),
        cap: inline_cap,
        allow_arbitrary_code,
    });
    let watch = session.clone().start_watch();
    let native = exposure.is_native();
    let surface = surface::ToolSurface::new(exposure, allow_arbitrary_code, page_size);
    let follow = native.then(|| surface.clone().follow(session.clone()));
    let server = server::HeraServer::new(calls, surface);
    let eof = Arc::new(tokio::sync::Notify::new());
    let (stdin, stdout) = rmcp::transport::stdio();
    let transport = transport::LineTransport::new(stdin, stdout, eof.clone());

    let code = match server.serve(transport).await {
        Ok(running) => {
            let waiting = running.waiting();
            tokio::pin!(waiting);
            tokio::select! {
                r = &mut waiting => match r {
                    Ok(reason) => { tracing::info!(?reason, "MCP session ended"); ExitCode::SUCCESS }
                    Err(e) => { tracing::error!("MCP session failed: {e}"); ExitCode::from(1) }
                },
                _ = async { eof.notified().await; tokio::time::sleep(EOF_GRACE).await } => {
                    tracing::info!("stdin closed; exiting without waiting for in-flight calls");
                    ExitCode::SUCCESS
                }
            }
        }
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: MCP session could not start: {e}");
            ExitCode::from(1)
        }
    };
    watch.abort();
    if let Some(f) = follow {
        f.abort();
    }
    code
}
