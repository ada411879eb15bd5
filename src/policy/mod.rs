//! What a call is allowed to do and what it owes before it runs: resolved safety, approval,
//! ledger obligations and arbitrary-code gating. Pure decisions over catalog data and the
//! heartbeat's features; nothing here performs I/O.
//!
//! The Connector re-checks everything; these checks exist so that a call that would be refused
//! (or that must not be sent without a human's yes) is stopped before it reaches the Editor.
//! `approval` checks a token locally against the call it is about to authorize.

mod approval;

pub use approval::{ApprovalBinding, TokenCheckError, check_token};

use hera_connector_contract::catalog::{RiskClass, Safety, ToolEntry, resolve_safety};
use hera_connector_contract::wire::{
    FEATURE_APPROVAL, FEATURE_OPERATION_LEDGER, FEATURE_TASK_BRIDGE, Heartbeat,
};
use serde_json::{Map, Value};

/// The policy facts of one call, resolved against the catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct CallPolicy {
    /// The tool's canonical name.
    pub tool: String,
    /// The canonical action name (aliases and case resolved), `None` for an action-less call.
    pub action: Option<String>,
    /// The effective safety: the action's (or tool's), replaced by the most specific rule.
    pub safety: Safety,
    /// The tool publishes no strict contract (legacy mode).
    pub legacy: bool,
    /// This call's resolved risk is `arbitrary_code`.
    pub arbitrary_code: bool,
    /// Some safety anywhere in the tool (tool, rules, actions) is `arbitrary_code`.
    pub tool_runs_arbitrary_code: bool,
}

impl CallPolicy {
    pub fn requires_approval(&self) -> bool {
        self.safety.requires_confirmation
    }
    /// The Connector records this call in its ledger (not read-only-and-idempotent, §6.4).
    pub fn uses_ledger(&self) -> bool {
        self.safety.uses_ledger()
    }
    pub fn idempotent(&self) -> bool {
        self.safety.idempotent
    }
    pub fn read_only(&self) -> bool {
        self.safety.read_only
    }
    pub fn risk_class(&self) -> RiskClass {
        self.safety.risk_class
    }
}

/// Why a call could not be resolved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolicyError {
    #[error("cannot resolve the safety of {tool}: {reason}")]
    Resolution { tool: String, reason: String },
}

impl PolicyError {
    /// The code a caller sees.
    pub fn code(&self) -> &'static str {
        match self {
            PolicyError::Resolution { .. } => "POLICY_RESOLUTION_FAILED",
        }
    }
}

/// The policy facts of a call to `entry` whose action (canonical name) is already known.
pub fn resolve_entry(
    entry: &ToolEntry,
    action: Option<&str>,
    params: &Map<String, Value>,
) -> Result<CallPolicy, PolicyError> {
    let safety = resolve_safety(entry, action, params).map_err(|e| PolicyError::Resolution {
        tool: entry.name.clone(),
        reason: e.to_string(),
    })?;
    Ok(CallPolicy {
        tool: entry.name.clone(),
        arbitrary_code: safety.risk_class == RiskClass::ArbitraryCode,
        tool_runs_arbitrary_code: entry.is_arbitrary_code(),
        legacy: entry.is_legacy(),
        action: action.map(str::to_string),
        safety,
    })
}

/// What approval a call needs given what the Editor supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalNeed {
    /// Safe to send without a token.
    NotRequired,
    /// Needs a token: preflight, show the summary, ask, then send with it.
    Required,
    /// Needs confirmation but the Connector has no `approval_v1`: refuse without sending
    /// (`APPROVAL_UNSUPPORTED`).
    Unsupported,
}

pub fn approval_need(policy: &CallPolicy, heartbeat: &Heartbeat) -> ApprovalNeed {
    if !policy.requires_approval() {
        ApprovalNeed::NotRequired
    } else if heartbeat.has_feature(FEATURE_APPROVAL) {
        ApprovalNeed::Required
    } else {
        ApprovalNeed::Unsupported
    }
}

/// What the Editor's heartbeat promises, as booleans a caller can branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditorCapabilities {
    pub approval: bool,
    pub operation_ledger: bool,
    pub task_bridge: bool,
    pub strict_catalog: bool,
}

impl EditorCapabilities {
    pub fn of(heartbeat: &Heartbeat) -> EditorCapabilities {
        EditorCapabilities {
            approval: heartbeat.has_feature(FEATURE_APPROVAL),
            operation_ledger: heartbeat.has_feature(FEATURE_OPERATION_LEDGER),
            task_bridge: heartbeat.has_feature(FEATURE_TASK_BRIDGE),
            strict_catalog: heartbeat.supports_strict_catalog(),
        }
    }
}

/// The fact behind `OPERATION_LEDGER_REQUIRED`: this call changes something (not read-only) and
/// the Editor keeps no ledger, so a reload mid-call would leave its outcome unknowable.
pub fn mutation_without_ledger(policy: &CallPolicy, heartbeat: &Heartbeat) -> bool {
    !policy.read_only() && !heartbeat.has_feature(FEATURE_OPERATION_LEDGER)
}

#[cfg(test)]
mod tests;
