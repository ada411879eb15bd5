//! The protocol-neutral layer between the Editor-facing modules (`discovery`, `connector`,
//! `catalog`, `policy`, `tasks`) and the two front-ends (`mcp`, `cli`).
//!
//! # Layout
//! - `editor`: the followed Editor (selection, pin, project switch, the one readiness rule) and
//!   the catalog view (live or cached, refresh, cache fallback, the heartbeat watch).
//! - `view`: one immutable catalog view with its compiled validators and search index.
//! - `resolve`: from a tool name and arguments to the entries and policy facts of a call, once;
//!   [`ToolScope`] is the front-end's say in which tools a call may name.
//! - `validate`: strict JSON-Schema validation with pointer-located faults.
//! - `approval`: the [`Approver`] trait each front-end implements, and the approvals a session
//!   obtained.
//! - `subject`: what a call names, found out with one bounded read because the Connector does
//!   not say: the approval subject (an object's name and path, a package id, an asset path) and
//!   a path or name that denotes more than one GameObject.
//! - `pipeline`: the one call pipeline; [`CallOutcome`] or [`CallError`], in no front-end's words.
//! - `error`: [`CallError`], the one error type of this layer.
//! - `dates`: which argument strings the Editor refused because its reader took them for dates.
//!
//! Nothing here knows MCP, JSON-RPC, a terminal or an exit code: the front-ends parse, word the
//! answer and keep their protocol; every rule about a call is decided here once.

// A refusal is the pipeline's normal answer to a call that must not run, made once per call;
// boxing `CallError` would cost an allocation on that path and buy nothing.
#![allow(clippy::result_large_err)]

mod approval;
mod dates;
mod editor;
mod error;
mod pipeline;
mod resolve;
mod subject;
mod validate;
mod view;

pub(crate) use approval::{ApprovalAsk, Approver, Caller, Decision, IssuedApprovals};
pub(crate) use dates::DateLikeString;
pub(crate) use editor::{Session, SessionOptions};
pub(crate) use error::{CallError, ErrorKind, is_approval_code};
pub(crate) use pipeline::{CallEvent, CallOutcome, CallRequest, EditorAnswer};
pub(crate) use resolve::{
    AnyTool, Controls, ToolScope, arbitrary_code_refused, find_tool, invalid_arguments, label,
};
pub(crate) use validate::{Fault, check as check_schema, compile as compile_schema};
pub(crate) use view::{CatalogView, Origin};
