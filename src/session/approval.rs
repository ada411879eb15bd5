//! Who says yes: the [`Approver`] trait each front-end implements, and the approvals this
//! session obtained.
//!
//! The pipeline owns *when* approval is needed and *what* binds it (preflight, the local token
//! check, renewal after a reload); a front-end owns only *how the person is asked*: a terminal
//! prompt or `--yes` for the CLI, a client form, an `input_required` question or a token round
//! trip for an agent. The Connector re-checks every token (signature, expiry, binding, single
//! use), so nothing here can widen what a person approved.

use super::error::CallError;
use crate::connector::Preflight;
use crate::discovery::now_ms;
use crate::policy::CallPolicy;
use hera_connector_contract::canonical::sha256_prefixed;
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;

/// Who drives the call. The pipeline treats the two differently in exactly one rule, written
/// down in ARCHITECTURE.md ("Person and agent"): a change on a Connector without an operation
/// ledger is sent for a person, who reads an unknown outcome and decides, and refused for an
/// agent, which would retry it blindly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    Person,
    Agent,
}

/// The person's decision as far as this call can tell.
pub enum Decision<P> {
    /// Approved: send with this token.
    Granted(String),
    /// Not decided within this call: the front-end answers with `P` (the token to hand back, a
    /// question for the client) and the call is not sent.
    Pending(P),
}

/// What a person is asked to approve.
pub struct ApprovalAsk<'a> {
    pub preflight: &'a Preflight,
    pub policy: &'a CallPolicy,
    /// Asked again because the Editor reloaded and the summary of the same operation changed.
    pub renewal: bool,
}

/// How one request can reach the person who approves.
pub trait Approver: Send + Sync {
    /// What the front-end returns for an undecided approval.
    type Pending: Send;

    fn caller(&self) -> Caller;

    /// An answer this request already carries to a question this session asked earlier (an
    /// agent client's retry of an `input_required` question). Honoured only for a token this
    /// session issued.
    fn prior_answer(&self, _issued: &IssuedApprovals) -> Option<Result<String, CallError>> {
        None
    }

    /// Asks for a decision on `ask`.
    fn decide(
        &self,
        ask: &ApprovalAsk<'_>,
    ) -> impl Future<Output = Result<Decision<Self::Pending>, CallError>> + Send;

    /// Consent for a call that needs confirmation on a Connector that cannot sign tokens (a
    /// legacy one). `Err` refuses the call.
    fn consent_unsigned(
        &self,
        policy: &CallPolicy,
    ) -> impl Future<Output = Result<(), CallError>> + Send;

    /// Whether a person approved `token` (so it may be renewed after a reload rotated the
    /// Editor's signing secret). A token this session issued qualifies; a front-end may know
    /// more (the CLI's `--approve=<token>` came from a person).
    fn vouches_for(&self, token: &str, issued: &IssuedApprovals) -> bool {
        issued.summary_of(token).is_some()
    }
}

/// Approval tokens this session obtained by preflight, by token hash, with the summary the
/// person was shown. Only these are renewed without asking again, and only while the summary
/// of the renewed operation is the same.
#[derive(Default)]
pub struct IssuedApprovals {
    by_hash: Mutex<HashMap<String, Issued>>,
}

struct Issued {
    expires_at_ms: i64,
    summary: Value,
}

impl IssuedApprovals {
    pub fn remember(&self, pre: &Preflight) {
        let mut m = self.by_hash.lock().expect("approvals lock");
        let now = now_ms();
        m.retain(|_, i| i.expires_at_ms > now);
        m.insert(
            sha256_prefixed(pre.token.as_bytes()),
            Issued {
                expires_at_ms: pre.expires_at_ms,
                summary: pre.summary.clone(),
            },
        );
    }

    /// The summary shown for `token`, when this session issued it and it has not expired.
    pub fn summary_of(&self, token: &str) -> Option<Value> {
        let m = self.by_hash.lock().expect("approvals lock");
        m.get(&sha256_prefixed(token.as_bytes()))
            .filter(|i| i.expires_at_ms > now_ms())
            .map(|i| i.summary.clone())
    }
}

/// Whether two preflight summaries describe the same operation for a person: everything but
/// the operation id and the token's own bookkeeping.
pub fn same_summary(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("operation_id");
            o.remove("expires_at_ms");
        }
        v
    };
    strip(a) == strip(b)
}
