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
//! - `task_ext`: MCP Tasks records for durable task ids.
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

pub(crate) use transport::frames_of;

pub use exposure::Exposure;
pub use surface::DEFAULT_PAGE_SIZE;

use crate::session::{Session, SessionOptions};
use rmcp::ServiceExt;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Options of `hera-agent-unity mcp`, resolved by the command line (every flag with its
/// environment variable, see `mcp --help`).
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// `HERA_MCP_ENABLED`: the server is off unless set.
    pub enabled: bool,
    /// `--transport`; only `stdio` exists.
    pub transport: String,
    /// `--exposure`; `None` means `compact`.
    pub exposure: Option<String>,
    /// `--profile`; `None` means `core`.
    pub profile: Option<String>,
    /// Global `--project` (`HERA_AGENT_PROJECT`).
    pub project: Option<String>,
    /// Global `--port` (`HERA_AGENT_PORT`).
    pub port: Option<u16>,
    /// Global `--timeout` (`HERA_AGENT_TIMEOUT_MS`); per Editor request.
    pub timeout: Duration,
    /// `--allow-arbitrary-code`.
    pub allow_arbitrary_code: bool,
    /// `--mrtr`: ask through the client's form where it has one; false: token round trip only.
    pub ask_with_form: bool,
    /// `--page-size`; `None` means [`DEFAULT_PAGE_SIZE`].
    pub page_size: Option<usize>,
    /// `--max-inline-bytes`, unparsed (checked by the results module).
    pub max_inline_bytes: Option<String>,
    /// `--result-retention-secs` and `--result-cache-bytes`, unparsed.
    pub result_retention_secs: Option<String>,
    pub result_cache_bytes: Option<String>,
}

/// The longest a call waits for a busy Editor before answering a retryable refusal: under the
/// 30 s after which some clients give up on a request.
const AGENT_READY_WAIT: Duration = Duration::from_secs(20);

/// How long in-flight handlers get after stdin closes before the process exits anyway. Clients
/// that close stdin kill the process tree 5 s later; we must be gone well before.
const EOF_GRACE: Duration = Duration::from_millis(300);

fn refuse(message: &str) -> ExitCode {
    eprintln!("Error: {message}");
    ExitCode::from(1)
}

/// Runs the MCP server on stdin/stdout until the client closes stdin. Nothing but JSON-RPC
/// frames is ever written to stdout; every refusal goes to stderr with a non-zero exit.
pub fn run(opts: McpOptions) -> ExitCode {
    if !opts.enabled {
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
    // Before the runtime starts any thread.
    crate::platform::process::limit_malloc_arenas();
    let allow_arbitrary_code = opts.allow_arbitrary_code;
    let exposure = match exposure::resolve(
        opts.exposure.as_deref(),
        opts.profile.as_deref(),
        allow_arbitrary_code,
    ) {
        Ok(e) => e,
        Err(e) => return refuse(&e),
    };
    let page_size = opts.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    let inline_cap = match opts
        .max_inline_bytes
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    {
        None => crate::results::InlineCap::default(),
        Some(t) => match crate::results::InlineCap::parse(t) {
            Ok(c) => c,
            Err(e) => return refuse(&e.to_string()),
        },
    };
    let store = match crate::results::StoreConfig::parse(
        opts.result_retention_secs.as_deref(),
        opts.result_cache_bytes.as_deref(),
    ) {
        Ok(c) => c,
        Err(e) => return refuse(&e.to_string()),
    };

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return refuse(&format!("cannot start the async runtime: {e}")),
    };
    let session_opts = SessionOptions {
        project: opts.project.clone(),
        port: opts.port,
        timeout: opts.timeout,
        // An agent's client times a request out after about 30 s: a longer wait for a busy
        // Editor would end in the client's timeout instead of our retryable answer.
        ready_wait: opts.timeout.min(AGENT_READY_WAIT),
        appear_wait: Duration::ZERO,
    };
    let code = runtime.block_on(serve(
        session_opts,
        inline_cap,
        store,
        exposure,
        allow_arbitrary_code,
        opts.ask_with_form,
        page_size,
    ));
    // Whatever is still running (a handler waiting on the Editor, the heartbeat watch, the
    // stdin reader thread) must not keep the process alive.
    runtime.shutdown_timeout(Duration::from_millis(100));
    code
}

async fn serve(
    session_opts: SessionOptions,
    inline_cap: crate::results::InlineCap,
    store: crate::results::StoreConfig,
    exposure: Exposure,
    allow_arbitrary_code: bool,
    ask_with_form: bool,
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
        ask_with_form,
    });
    let watch = session.clone().start_watch();
    let native = exposure.is_native();
    let surface = surface::ToolSurface::new(exposure, allow_arbitrary_code, page_size);
    let follow = native.then(|| surface.clone().follow(session.clone()));
    let index = (!native).then(|| prepare_search(session.clone()));
    let server = server::HeraServer::new(calls, surface);
    let eof = Arc::new(tokio::sync::Notify::new());
    let (stdin, stdout) = transport::stdio();
    let transport = transport::LineTransport::new(stdin, stdout, eof.clone())
        .with_output_probe(transport::stdout_closed);

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
    if let Some(i) = index {
        i.abort();
    }
    code
}

/// Compact exposure answers `tool_search` from the catalog's search index: it is built as soon
/// as a catalog is published (off the async workers), not by the first search that needs it,
/// and the compact tools' argument validators with it. The loop ends when the session is
/// dropped.
fn prepare_search(session: Arc<Session>) -> tokio::task::JoinHandle<()> {
    let mut views = session.subscribe_views();
    drop(session);
    tokio::spawn(async move {
        loop {
            // A view published before this task first ran is marked seen: build it too.
            let current = views.borrow_and_update().clone();
            if let Some(view) = current {
                let _ = tokio::task::spawn_blocking(move || {
                    view.search_index();
                    // After the index: an idle server with no Editor compiles nothing.
                    args::prepare();
                })
                .await;
            }
            if views.changed().await.is_err() {
                return;
            }
        }
    })
}
