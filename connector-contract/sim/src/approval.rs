//! The Connector's approval authority (§5.4, §5.5): a per-domain HMAC secret, token issue, and
//! verification in the Connector's exact order with its codes.
//!
//! The secret is 32 random bytes that live only as long as one domain; a reload replaces the
//! whole authority, which both rotates the secret and forgets the used-token set, so every old
//! token fails with "signature is invalid", as it does against a real Editor.

// An `Err` here is the complete answer to one request, built once per request: its size is
// irrelevant, and boxing it would only add noise.
#![allow(clippy::result_large_err)]

use crate::envelope::Envelope;
use hera_connector_contract::approval::{self, APPROVAL_TTL_MS, ApprovalClaims};
use hera_connector_contract::canonical::sha256_prefixed;
use std::collections::HashMap;

/// What a token must be bound to for this request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub operation_id: String,
    pub tool: String,
    pub action: Option<String>,
    pub arguments_hash: String,
    pub risk_class: String,
    pub project_id: String,
}

pub struct ApprovalAuthority {
    secret: [u8; 32],
    /// sha256 of a used token → its expiry (pruned once expired; an expired token fails the
    /// expiry check before the used check, so forgetting it is safe).
    used: HashMap<String, i64>,
}

impl Default for ApprovalAuthority {
    fn default() -> Self {
        Self::new()
    }
}

impl ApprovalAuthority {
    /// A fresh domain: new random secret, nothing used.
    pub fn new() -> ApprovalAuthority {
        ApprovalAuthority {
            secret: rand::random(),
            used: HashMap::new(),
        }
    }

    /// Signs a token for `binding`, valid for 5 minutes from `now_ms`.
    pub fn issue(&self, binding: &Binding, now_ms: i64) -> (String, ApprovalClaims) {
        let claims = ApprovalClaims {
            version: 1,
            operation_id: binding.operation_id.clone(),
            tool: binding.tool.clone(),
            action: binding.action.clone(),
            arguments_hash: binding.arguments_hash.clone(),
            risk_class: binding.risk_class.clone(),
            project_id: binding.project_id.clone(),
            expires_at_ms: now_ms + APPROVAL_TTL_MS,
            single_use: true,
        };
        (approval::sign(&self.secret, &claims), claims)
    }

    /// Signs arbitrary claims with this domain's secret (tests forge tokens that differ from a
    /// real one in exactly one bound field).
    pub fn sign(&self, claims: &ApprovalClaims) -> String {
        approval::sign(&self.secret, claims)
    }

    /// Verifies `token` for `binding` and consumes it (§5.5 order: envelope/signature/payload,
    /// contract, expiry, binding, single use). The token is spent before the handler runs, so a
    /// later failure does not refund it.
    pub fn verify_and_consume(
        &mut self,
        token: &str,
        binding: &Binding,
        now_ms: i64,
    ) -> Result<(), Envelope> {
        let claims = approval::verify(&self.secret, token)
            .map_err(|e| Envelope::error("INVALID_APPROVAL_TOKEN", e.to_string()))?;
        if claims.expires_at_ms <= now_ms {
            return Err(Envelope::error(
                "APPROVAL_EXPIRED",
                "Approval token has expired; request a new one with the same operation id.",
            ));
        }
        let bound = claims.operation_id == binding.operation_id
            && claims.tool == binding.tool
            && claims.action == binding.action
            && claims.arguments_hash == binding.arguments_hash
            && claims.risk_class == binding.risk_class
            && claims.project_id == binding.project_id;
        if !bound {
            return Err(Envelope::error(
                "APPROVAL_MISMATCH",
                "Approval token does not match this operation.",
            ));
        }
        self.used.retain(|_, exp| *exp > now_ms);
        let key = sha256_prefixed(token.as_bytes());
        if self.used.contains_key(&key) {
            return Err(Envelope::error(
                "APPROVAL_ALREADY_USED",
                "Approval token has already been used.",
            ));
        }
        self.used.insert(key, claims.expires_at_ms);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding() -> Binding {
        Binding {
            operation_id: "op_0123456789abcdef0123456789abcdef".into(),
            tool: "scene".into(),
            action: Some("close".into()),
            arguments_hash: "sha256:13b4".into(),
            risk_class: "destructive".into(),
            project_id: "sha256:eddb".into(),
        }
    }

    fn code(r: Result<(), Envelope>) -> String {
        r.err().and_then(|e| e.code).unwrap_or_default()
    }

    #[test]
    fn verification_order() {
        let mut a = ApprovalAuthority::new();
        let (t, _) = a.issue(&binding(), 1_000);
        let mut other = binding();
        other.risk_class = "write".into();
        assert_eq!(
            code(a.verify_and_consume(&t, &other, 2_000)),
            "APPROVAL_MISMATCH"
        );
        assert_eq!(
            code(a.verify_and_consume(&t, &binding(), 1_000 + APPROVAL_TTL_MS)),
            "APPROVAL_EXPIRED"
        );
        assert!(a.verify_and_consume(&t, &binding(), 2_000).is_ok());
        assert_eq!(
            code(a.verify_and_consume(&t, &binding(), 2_000)),
            "APPROVAL_ALREADY_USED"
        );
        let rotated = ApprovalAuthority::new();
        let mut rotated = rotated;
        assert_eq!(
            code(rotated.verify_and_consume(&t, &binding(), 2_000)),
            "INVALID_APPROVAL_TOKEN"
        );
    }
}
