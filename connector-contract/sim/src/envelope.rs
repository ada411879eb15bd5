//! Response bodies, written as text in the Connector's exact key order (§2.4).
//!
//! Why text and not `serde_json::Value`: the workspace's `serde_json` keeps object keys sorted
//! (the `preserve_order` feature is deliberately off, so every crate hashes and prints alike),
//! and a sorted envelope would put `data` before `success`. Newtonsoft writes the declaration
//! order of the C# `SuccessResponse`/`ErrorResponse` classes, so we spell that order out here.
//! Nested values (`data`, `diagnostics`) are plain `Value`s; their inner order is not part of
//! the contract.

use serde_json::{Map, Value};

/// A Connector `SuccessResponse` or `ErrorResponse`.
///
/// Success keys: `success, message, data?, agent_hint?, diagnostics?, timings`.
/// Error keys: `success, message, code?, suggestions?, data?, diagnostics?, timings`.
/// `?` keys are omitted when `None`; `timings` is always written, as `null` when unset.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub success: bool,
    pub message: String,
    pub code: Option<String>,
    pub suggestions: Option<Vec<String>>,
    pub data: Option<Value>,
    pub agent_hint: Option<String>,
    pub diagnostics: Option<Value>,
    pub timings: Option<Map<String, Value>>,
}

impl Envelope {
    pub fn success(message: impl Into<String>, data: Option<Value>) -> Envelope {
        Envelope {
            success: true,
            message: message.into(),
            code: None,
            suggestions: None,
            data,
            agent_hint: None,
            diagnostics: None,
            timings: None,
        }
    }

    pub fn error(code: &str, message: impl Into<String>) -> Envelope {
        Envelope {
            success: false,
            message: message.into(),
            code: Some(code.to_string()),
            suggestions: None,
            data: None,
            agent_hint: None,
            diagnostics: None,
            timings: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Envelope {
        self.data = Some(data);
        self
    }

    pub fn with_suggestions(mut self, s: Vec<String>) -> Envelope {
        self.suggestions = Some(s);
        self
    }

    /// Adds `timings.total_ms`, keeping any timings the tool set itself (§2.4: only `exec` does).
    pub fn with_total_ms(mut self, ms: i64) -> Envelope {
        self.timings
            .get_or_insert_with(Map::new)
            .insert("total_ms".into(), Value::from(ms));
        self
    }

    /// The compact body text.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(128);
        out.push('{');
        push_member(&mut out, "success", &Value::Bool(self.success), true);
        push_member(
            &mut out,
            "message",
            &Value::String(self.message.clone()),
            false,
        );
        if self.success {
            push_opt(&mut out, "data", self.data.as_ref());
            if let Some(h) = &self.agent_hint {
                push_member(&mut out, "agent_hint", &Value::String(h.clone()), false);
            }
            push_opt(&mut out, "diagnostics", self.diagnostics.as_ref());
        } else {
            if let Some(c) = &self.code {
                push_member(&mut out, "code", &Value::String(c.clone()), false);
            }
            if let Some(s) = &self.suggestions {
                push_member(&mut out, "suggestions", &Value::from(s.clone()), false);
            }
            push_opt(&mut out, "data", self.data.as_ref());
            push_opt(&mut out, "diagnostics", self.diagnostics.as_ref());
        }
        let timings = match &self.timings {
            Some(t) => Value::Object(t.clone()),
            None => Value::Null,
        };
        push_member(&mut out, "timings", &timings, false);
        out.push('}');
        out
    }
}

fn push_opt(out: &mut String, key: &str, v: Option<&Value>) {
    if let Some(v) = v {
        push_member(out, key, v, false);
    }
}

fn push_member(out: &mut String, key: &str, v: &Value, first: bool) {
    if !first {
        out.push(',');
    }
    out.push_str(&serde_json::to_string(key).expect("a key always serializes"));
    out.push(':');
    out.push_str(&serde_json::to_string(v).expect("a Value always serializes"));
}

/// A `/command` result: either a Connector response object (which gets `total_ms`) or a body
/// that is sent exactly as it is (a tool's anonymous object, or a replayed ledger response).
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Envelope(Envelope),
    Verbatim(String),
}

impl Reply {
    pub fn text(&self) -> String {
        match self {
            Reply::Envelope(e) => e.to_text(),
            Reply::Verbatim(t) => t.clone(),
        }
    }

    /// Whether the Connector would store this as `failed` (an `ErrorResponse`) rather than
    /// `committed` (§6.5: a raw object with `success:false` still counts as committed).
    pub fn is_error_response(&self) -> bool {
        matches!(self, Reply::Envelope(e) if !e.success)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_and_nulls() {
        let e = Envelope::error("MISSING_ARGUMENT", "Validation failed at '/identifier'.")
            .with_data(json!({"path":"/identifier","expected":"string","actual":null}))
            .with_total_ms(3);
        assert_eq!(
            e.to_text(),
            r#"{"success":false,"message":"Validation failed at '/identifier'.","code":"MISSING_ARGUMENT","data":{"actual":null,"expected":"string","path":"/identifier"},"timings":{"total_ms":3}}"#
        );
        let s = Envelope::success("ok", None);
        assert_eq!(
            s.to_text(),
            r#"{"success":true,"message":"ok","timings":null}"#
        );
        let mut h = Envelope::success("ok", Some(json!(1)));
        h.agent_hint = Some("hint".into());
        h.diagnostics = Some(json!([]));
        assert_eq!(
            h.to_text(),
            r#"{"success":true,"message":"ok","data":1,"agent_hint":"hint","diagnostics":[],"timings":null}"#
        );
    }
}
