//! Approval tokens (README: Preflight and approval tokens): `base64url(payload) "." base64url(HMAC-SHA256(secret, base64url(payload)))`.
//!
//! The Connector signs and verifies; clients only inspect the claims (unsigned) to check that a
//! token they were handed belongs to the call they are about to make.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// Token lifetime: 5 minutes.
pub const APPROVAL_TTL_MS: i64 = 300_000;

/// The signed payload. Field order is the wire order and must not change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalClaims {
    pub version: u32,
    pub operation_id: String,
    pub tool: String,
    pub action: Option<String>,
    pub arguments_hash: String,
    pub risk_class: String,
    pub project_id: String,
    pub expires_at_ms: i64,
    pub single_use: bool,
}

/// Why a token was refused. The messages are the Connector's (`INVALID_APPROVAL_TOKEN` family).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("Approval token envelope is invalid.")]
    Envelope,
    #[error("Approval token signature is invalid.")]
    Signature,
    #[error("Approval token payload is invalid.")]
    Payload,
    #[error("Approval token has an unsupported contract.")]
    Unsupported,
}

impl ApprovalClaims {
    /// The compact JSON payload, keys in declaration order.
    pub fn payload_json(&self) -> String {
        serde_json::to_string(self).expect("claims always serialize")
    }
}

fn mac(secret: &[u8], payload_b64: &str) -> Hmac<Sha256> {
    let mut m = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC accepts any key length");
    m.update(payload_b64.as_bytes());
    m
}

/// Signs `claims` with `secret`.
pub fn sign(secret: &[u8], claims: &ApprovalClaims) -> String {
    let payload = URL_SAFE_NO_PAD.encode(claims.payload_json());
    let sig = mac(secret, &payload).finalize().into_bytes();
    format!("{payload}.{}", URL_SAFE_NO_PAD.encode(sig))
}

/// Verifies the envelope, the signature (constant time) and the contract, in the Connector's
/// order. Expiry and binding are checked by the caller, which knows the clock and the request.
pub fn verify(secret: &[u8], token: &str) -> Result<ApprovalClaims, TokenError> {
    let mut parts = token.split('.');
    let (Some(payload), Some(sig), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(TokenError::Envelope);
    };
    if payload.is_empty() || sig.is_empty() {
        return Err(TokenError::Envelope);
    }
    // Bad base64 in either half reports "payload is invalid".
    let sig = URL_SAFE_NO_PAD
        .decode(sig)
        .map_err(|_| TokenError::Payload)?;
    let payload_bytes = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| TokenError::Payload)?;
    mac(secret, payload)
        .verify_slice(&sig)
        .map_err(|_| TokenError::Signature)?;
    let claims: ApprovalClaims =
        serde_json::from_slice(&payload_bytes).map_err(|_| TokenError::Payload)?;
    if claims.version != 1 || !claims.single_use {
        return Err(TokenError::Unsupported);
    }
    Ok(claims)
}

/// Reads the claims without checking the signature (what a client can do; it has no secret).
/// Requires `version == 1`, non-empty `operation_id` and `tool`, and `single_use`.
pub fn inspect(token: &str) -> Result<ApprovalClaims, TokenError> {
    let payload = token
        .split('.')
        .next()
        .filter(|p| !p.is_empty())
        .ok_or(TokenError::Envelope)?;
    let bytes = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| TokenError::Payload)?;
    let claims: ApprovalClaims = serde_json::from_slice(&bytes).map_err(|_| TokenError::Payload)?;
    if claims.version != 1
        || !claims.single_use
        || claims.operation_id.is_empty()
        || claims.tool.is_empty()
    {
        return Err(TokenError::Unsupported);
    }
    Ok(claims)
}

#[cfg(test)]
mod tests {
    use super::*;
    fn claims() -> ApprovalClaims {
        ApprovalClaims {
            version: 1,
            operation_id: "op_0123456789abcdef0123456789abcdef".into(),
            tool: "scene".into(),
            action: Some("close".into()),
            arguments_hash:
                "sha256:13b4369de9a5f6e701c1fb7a404d920b43c0081476be668c3e91de215e8e7cd5".into(),
            risk_class: "destructive".into(),
            project_id: "sha256:eddb71bd6dcc1509ea1fe8ad4aa23d4e01088ce758c86fe03005fd7107de2a99"
                .into(),
            expires_at_ms: 1767225900000,
            single_use: true,
        }
    }
    #[test]
    fn round_trip_and_tamper() {
        let secret = [1u8; 32];
        let t = sign(&secret, &claims());
        assert_eq!(verify(&secret, &t).unwrap(), claims());
        assert_eq!(inspect(&t).unwrap(), claims());
        assert_eq!(verify(&[2u8; 32], &t), Err(TokenError::Signature));
        assert_eq!(verify(&secret, "abc"), Err(TokenError::Envelope));
        assert_eq!(verify(&secret, "a.b.c"), Err(TokenError::Envelope));
        assert_eq!(verify(&secret, "abc.!!"), Err(TokenError::Payload));
    }
}
