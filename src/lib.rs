//! hera-agent-unity: the client end of the Unity AgentConnector wire, as a stdio MCP server and a CLI.
//!
//! # Layout
//!
//! A call flows through the modules in this order; a module may use the ones before it, never the
//! ones after it.
//!
//! - [`platform`]: what differs between Linux, macOS and Windows (home and configuration
//!   folders, process liveness, private atomic files, path forms); used by every layer.
//! - [`discovery`]: heartbeat files, liveness, choosing one Editor and following its project.
//! - [`connector`]: the one HTTP client; envelopes, `meta`, reload retry, unknown outcomes.
//! - [`catalog`]: `hera.tool-catalog/1` as plain data: fetch checks, legacy adaptation, profiles,
//!   the on-disk cache of the last good catalog.
//! - [`search`]: ranking tools and actions for `tool_search`.
//! - [`policy`]: resolved safety, approval, ledger obligations, arbitrary-code gating.
//! - [`tasks`]: long-running work (file-bus jobs) and durable task ids.
//! - [`results`]: inline or spilled results, credential screening.
//! - [`session`]: the protocol-neutral layer: the followed Editor, the catalog view, the one
//!   call pipeline; approval through a trait each front-end implements.
//! - [`mcp`]: the rmcp server (compact, profile and full exposure). The only module that knows MCP.
//! - [`cli`]: the everyday commands (`status`, `doctor`, `list`, `call`, `task`, `setup`,
//!   `version`); the only module that prints to stdout.
//! - `fuzzing`: entry points for the cargo-fuzz targets in `fuzz/` (not a stable API).
//!
//! The wire contract itself (hashes, tokens, ids, record shapes) lives in the
//! `hera-connector-contract` crate, shared with the reference simulator.
//!
//! # Errors
//!
//! Each layer has one error type (`thiserror`), carrying the context a user needs to act.
//! Errors that reach an agent are turned into structured tool results by `mcp`, never panics.

//!
//! # API boundary
//!
//! Every module is `pub(crate)`: the compiler sees the whole house, and what nothing uses is
//! dead code. The root re-exports exactly what lives outside `src/` needs: the binary
//! ([`run`]), the benchmarks and the payload report (the Connector client, discovery, the raw
//! transport), the integration tests (result shaping and screening, the search index), and the
//! fuzz targets (`fuzzing`).

pub(crate) mod catalog;
pub(crate) mod cli;
pub(crate) mod connector;
pub(crate) mod discovery;
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod mcp;
pub(crate) mod platform;
pub(crate) mod policy;
pub(crate) mod results;
pub(crate) mod search;
pub(crate) mod session;
pub(crate) mod tasks;

pub use cli::main as run;
pub use connector::transport;
pub use connector::{CallOptions, ClientKind, ConnectorClient};
pub use discovery::{AgentHome, Selector, discover};
pub use results::{
    InlineCap, ProjectKey, ResultSafety, ResultShape, ResultStore, SPILLED_MIN_BYTES, ShapeContext,
    StoreConfig, envelope_output_schema, screen, shape_result,
};
pub use search::{MAX_QUERY_CHARS, SearchFilter, SearchHit, SearchIndex, Verdict};
