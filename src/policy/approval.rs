//! Local inspection of an approval token before it is used (§5.6): the claims must describe the
//! call we are about to make. This catches a token pasted for the wrong call before it is spent;
//! the signature is the Connector's business (we have no secret).

// The mismatch error carries the token claims so a caller can show them.
#![allow(clippy::result_large_err)]

use hera_connector_contract::approval::{ApprovalClaims, TokenError, inspect};
use serde_json::json;

/// What the token must be bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalBinding {
    pub tool: String,
    pub action: Option<String>,
    /// `arguments_hash` of the exact params that will be sent.
    pub arguments_hash: String,
    pub risk_class: String,
    pub project_id: String,
    /// Only compared when the caller chose an operation id explicitly.
    pub operation_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenCheckError {
    /// `INVALID_APPROVAL_TOKEN`: not a token we can read.
    #[error("the approval token cannot be read: {0}")]
    Invalid(#[from] TokenError),
    /// `APPROVAL_MISMATCH` with `data.mismatched`.
    #[error("the approval token was issued for a different call (mismatched: {})", mismatched.join(", "))]
    Mismatch {
        mismatched: Vec<&'static str>,
        claims: ApprovalClaims,
    },
}

impl TokenCheckError {
    pub fn code(&self) -> &'static str {
        match self {
            TokenCheckError::Invalid(_) => "INVALID_APPROVAL_TOKEN",
            TokenCheckError::Mismatch { .. } => "APPROVAL_MISMATCH",
        }
    }
    pub fn data(&self) -> serde_json::Value {
        match self {
            TokenCheckError::Invalid(_) => serde_json::Value::Null,
            TokenCheckError::Mismatch { mismatched, .. } => json!({"mismatched": mismatched}),
        }
    }
    pub fn suggestion(&self) -> &'static str {
        "Run the call again without a token to get a new approval for exactly these arguments"
    }
}

/// Reads the token's claims and compares them with `expected`. On success the claims give the
/// operation id to send with (the token's, as approval binds it).
pub fn check_token(
    token: &str,
    expected: &ApprovalBinding,
) -> Result<ApprovalClaims, TokenCheckError> {
    let claims = inspect(token)?;
    let mut mismatched = Vec::new();
    if claims.tool != expected.tool {
        mismatched.push("tool");
    }
    let norm = |a: &Option<String>| a.as_deref().map(str::to_lowercase);
    if norm(&claims.action) != norm(&expected.action) {
        mismatched.push("action");
    }
    if claims.arguments_hash != expected.arguments_hash {
        mismatched.push("arguments");
    }
    if claims.risk_class != expected.risk_class {
        mismatched.push("risk_class");
    }
    if claims.project_id != expected.project_id {
        mismatched.push("project");
    }
    if let Some(op) = &expected.operation_id
        && &claims.operation_id != op
    {
        mismatched.push("operation_id");
    }
    if mismatched.is_empty() {
        Ok(claims)
    } else {
        Err(TokenCheckError::Mismatch { mismatched, claims })
    }
}
