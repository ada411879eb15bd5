//! The Connector's response envelope (§2.4) and the tolerances a serde client needs (§9.5):
//! `timings`, `code` and `message` may be null, `data` may be anything, and a tool may return a
//! bare object or string instead of an envelope. (`/commands` batches are never sent: neither
//! front-end offers one, so the client has no batch path.)

use serde_json::{Map, Value};

/// One decoded response. `raw` is the body as received (as JSON), so nothing is lost when a
/// caller wants to pass the Connector's answer through untouched. The payload (`data`,
/// `diagnostics`, `timings`) is held once, inside `raw`, and read through accessors: a reply can
/// be up to 50 MiB, and a decoded copy beside the body would double it.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub success: bool,
    pub message: Option<String>,
    pub code: Option<String>,
    pub suggestions: Vec<String>,
    pub agent_hint: Option<String>,
    /// Whether `raw` is an envelope (an object with a boolean `success`); otherwise it is a
    /// tool's own result and is itself the data.
    enveloped: bool,
    pub raw: Value,
}

fn opt_string(m: &Map<String, Value>, key: &str) -> Option<String> {
    m.get(key).and_then(Value::as_str).map(str::to_string)
}

impl Envelope {
    /// Interprets a parsed body. An object with a boolean `success` is an envelope; anything
    /// else is a tool's own result and counts as success with the value as `data`.
    pub fn from_value(v: Value) -> Envelope {
        let Some(m) = v.as_object() else {
            return Envelope::success_with_data(v);
        };
        let Some(success) = m.get("success").and_then(Value::as_bool) else {
            return Envelope::success_with_data(v);
        };
        Envelope {
            success,
            message: opt_string(m, "message"),
            code: opt_string(m, "code").filter(|c| !c.is_empty()),
            suggestions: m
                .get("suggestions")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            agent_hint: opt_string(m, "agent_hint").filter(|h| !h.is_empty()),
            enveloped: true,
            raw: v,
        }
    }

    fn success_with_data(v: Value) -> Envelope {
        Envelope {
            success: true,
            message: None,
            code: None,
            suggestions: Vec::new(),
            agent_hint: None,
            enveloped: false,
            raw: v,
        }
    }

    /// A member of the envelope other than null.
    fn member(&self, key: &str) -> Option<&Value> {
        if !self.enveloped {
            return None;
        }
        self.raw.get(key).filter(|d| !d.is_null())
    }

    /// The reply's `data` (a bare result is its own data); `None` when absent or null.
    pub fn data(&self) -> Option<&Value> {
        if self.enveloped {
            self.member("data")
        } else {
            Some(&self.raw)
        }
    }

    /// Takes the `data` out, leaving the rest of the envelope; no copy is made.
    pub fn into_data(self) -> Option<Value> {
        if !self.enveloped {
            return Some(self.raw);
        }
        match self.raw {
            Value::Object(mut m) => m.remove("data").filter(|d| !d.is_null()),
            _ => None,
        }
    }

    #[cfg(test)]
    pub fn timings(&self) -> Option<&Value> {
        self.member("timings")
    }

    /// `code` or `""`.
    pub fn code_str(&self) -> &str {
        self.code.as_deref().unwrap_or("")
    }
}

/// §2.11 step 5: an `UNKNOWN_ARGUMENT` at `/action` for a request that named an action means the
/// installed Connector is older than the catalog we used; say so instead of blaming the input.
pub fn rewrite_version_skew(tool: &str, params: &Map<String, Value>, env: &mut Envelope) {
    let at_action = env.code.as_deref() == Some("UNKNOWN_ARGUMENT")
        && env
            .data()
            .and_then(|d| d.get("path"))
            .and_then(Value::as_str)
            == Some("/action");
    let Some(action) = params.get("action").and_then(Value::as_str) else {
        return;
    };
    if !at_action {
        return;
    }
    let message = format!(
        "the Unity Connector installed in this project does not support the \"{action}\" action of \"{tool}\""
    );
    let suggestions = vec![
        "Update the com.notnull92.hera-agent-unity package in this Unity project".to_string(),
        "The manage_packages tool (action list) shows the installed version".to_string(),
    ];
    env.code = Some("CONNECTOR_UPDATE_REQUIRED".into());
    env.message = Some(message.clone());
    env.suggestions = suggestions.clone();
    if let Some(m) = env.raw.as_object_mut() {
        m.insert("code".into(), "CONNECTOR_UPDATE_REQUIRED".into());
        m.insert("message".into(), message.into());
        m.insert("suggestions".into(), suggestions.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tolerant_decoding() {
        let e = Envelope::from_value(
            json!({"success":false,"message":null,"code":null,"timings":null}),
        );
        assert!(!e.success && e.code.is_none() && e.message.is_none() && e.timings().is_none());
        let bare = Envelope::from_value(json!({"value": 42}));
        assert!(bare.success);
        assert_eq!(bare.data(), Some(&json!({"value": 42})));
        let s = Envelope::from_value(json!("hello"));
        assert!(s.success && s.data() == Some(&json!("hello")));
        let anon = Envelope::from_value(json!({"success": true, "value": 42}));
        assert!(anon.success && anon.raw["value"] == 42);
    }

    #[test]
    fn version_skew_rewrite() {
        let mut e = Envelope::from_value(
            json!({"success":false,"message":"Validation failed at '/action'.","code":"UNKNOWN_ARGUMENT","data":{"path":"/action"}}),
        );
        let p = json!({"action":"frobnicate"});
        rewrite_version_skew("scene", p.as_object().unwrap(), &mut e);
        assert_eq!(e.code.as_deref(), Some("CONNECTOR_UPDATE_REQUIRED"));
        assert_eq!(e.suggestions.len(), 2);
        assert_eq!(e.raw["code"], "CONNECTOR_UPDATE_REQUIRED");
        let mut other = Envelope::from_value(
            json!({"success":false,"code":"UNKNOWN_ARGUMENT","data":{"path":"/name"}}),
        );
        let p = json!({"action":"x"});
        rewrite_version_skew("scene", p.as_object().unwrap(), &mut other);
        assert_eq!(other.code.as_deref(), Some("UNKNOWN_ARGUMENT"));
    }
}
