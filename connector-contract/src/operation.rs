//! Operation ids (README: The /command pipeline): the only request id of the protocol, reused across retries of one request.

use std::fmt;

/// A validated operation id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct OperationId(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OperationIdError {
    #[error("invalid operation id: must be 8-128 characters")]
    Length,
    #[error("invalid operation id: contains unsupported character")]
    Character,
}

impl OperationId {
    /// Checks the Connector's rule: 8–128 UTF-16 code units, each a letter, digit, `_` or `-`.
    /// Characters outside the Basic Multilingual Plane are rejected, as the Connector tests each
    /// UTF-16 unit and a surrogate is neither letter nor digit.
    pub fn parse(s: &str) -> Result<Self, OperationIdError> {
        let units = s.encode_utf16().count();
        if !(8..=128).contains(&units) {
            return Err(OperationIdError::Length);
        }
        let ok = s
            .chars()
            .all(|c| (c as u32) <= 0xFFFF && (is_letter_or_digit(c) || c == '_' || c == '-'));
        if !ok {
            return Err(OperationIdError::Character);
        }
        Ok(OperationId(s.to_string()))
    }

    /// `op_` + 32 lowercase hex characters from 16 random bytes, the form the Go client sends.
    pub fn from_random_bytes(bytes: [u8; 16]) -> Self {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        OperationId(format!("op_{hex}"))
    }

    /// A fresh id from the OS random source.
    pub fn generate() -> Self {
        Self::from_random_bytes(rand::random())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// .NET `char.IsLetterOrDigit`: general category L* or Nd. Not `char::is_alphanumeric`, which
/// also admits other numbers (superscripts), letter numbers (roman numerals) and alphabetic marks
/// that the Connector rejects (vectors/operation-ids.json).
fn is_letter_or_digit(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::DecimalNumber
    )
}

impl fmt::Display for OperationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for OperationId {
    type Error = OperationIdError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<OperationId> for String {
    fn from(id: OperationId) -> String {
        id.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn rules() {
        assert!(OperationId::parse("op_0123456789abcdef0123456789abcdef").is_ok());
        assert_eq!(OperationId::parse("short"), Err(OperationIdError::Length));
        assert_eq!(
            OperationId::parse(&"a".repeat(129)),
            Err(OperationIdError::Length)
        );
        assert!(OperationId::parse(&"a".repeat(128)).is_ok());
        assert_eq!(
            OperationId::parse("op with space"),
            Err(OperationIdError::Character)
        );
        assert!(OperationId::parse("opération_1").is_ok());
        // U+1D400 MATHEMATICAL BOLD CAPITAL A: a letter, but outside the BMP.
        assert_eq!(
            OperationId::parse("op_\u{1D400}abcdef"),
            Err(OperationIdError::Character)
        );
        assert!(OperationId::generate().as_str().starts_with("op_"));
        assert_eq!(OperationId::generate().as_str().len(), 35);
    }
}
