//! The one result shape every compact tool returns, and its output schema.
//!
//! Why one closed shape for everything: clients such as the TypeScript SDK validate
//! `structuredContent` against the advertised `outputSchema` on *every* result, errors included
//! (anchor weakness §10.1). So the schema below is the single source of truth, and every result
//! is built through [`Envelope`], whose fields are exactly the schema's properties.
//!
//! The text content always repeats the structured JSON (compact), never a bare "OK", so clients
//! that ignore `structuredContent` still see the data.

use crate::results::ShapedResult;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, CreateTaskResult, InputRequiredResult, Resource,
};
use serde::Serialize;
use serde_json::{Map, Value};

/// The structured content of every compact-tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Envelope {
    pub success: bool,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_hint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// The operation id the Connector recorded (mutations), so an agent can retry or look it up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    /// Set when the answer is the Editor's ledger replaying an operation that already ran under
    /// this id (`{replayed: true, first_ran_at, first_ran_at_ms}`): nothing ran now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<Value>,
    /// Set when the call named a GameObject by a path or name that denotes more than one, or
    /// created one whose path another already has: `{named, instance_ids, chosen?, truncated?,
    /// message}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ambiguous: Option<Value>,
    /// The Connector's non-fatal diagnostics (e.g. deprecated argument names), kept verbatim.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Value>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub timings: Map<String, Value>,
}

impl Envelope {
    pub fn ok(message: impl Into<String>, data: Value) -> Self {
        Envelope {
            success: true,
            message: message.into(),
            data: Some(data),
            ..Default::default()
        }
    }

    /// An adapter-made error the model can act on: a stable `code`, a message that says what to
    /// do, and optional structured `data`.
    pub fn error(code: &str, message: impl Into<String>) -> Self {
        Envelope {
            success: false,
            message: message.into(),
            code: Some(code.to_string()),
            ..Default::default()
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub fn with_suggestions(mut self, suggestions: Vec<String>) -> Self {
        self.suggestions = suggestions;
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.agent_hint = Some(hint.into());
        self
    }

    pub fn with_operation_id(mut self, op: impl Into<String>) -> Self {
        self.operation_id = Some(op.into());
        self
    }

    /// Maps a Connector response body onto the envelope, preserving its code, message,
    /// suggestions, hint, data, diagnostics and timings.
    ///
    /// Tools may return any JSON (an anonymous object, even a bare string, §2.4); anything the
    /// envelope has no field for is kept under `data` rather than dropped, and non-numeric
    /// timings (the Connector writes `"timings": null`) are omitted.
    pub fn from_connector(body: &Value, default_message: &str) -> Self {
        Envelope::from_connector_owned(body.clone(), default_message)
    }

    /// [`Envelope::from_connector`] that moves the body's members instead of copying them (a
    /// result can be tens of MiB).
    pub fn from_connector_owned(body: Value, default_message: &str) -> Self {
        let obj = match body {
            Value::Object(obj) if obj.get("success").is_some_and(Value::is_boolean) => obj,
            other => return Envelope::ok(default_message, other),
        };
        let mut env = Envelope {
            success: obj.get("success").and_then(Value::as_bool).unwrap_or(false),
            message: obj
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or(default_message)
                .to_string(),
            ..Default::default()
        };
        let mut extra = Map::new();
        for (key, value) in obj {
            match key.as_str() {
                "success" | "message" => {}
                "code" => env.code = value.as_str().map(str::to_string),
                "suggestions" => {
                    env.suggestions = value
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default()
                }
                "agent_hint" => env.agent_hint = value.as_str().map(str::to_string),
                "data" => {
                    if !value.is_null() {
                        env.data = Some(value)
                    }
                }
                "diagnostics" => {
                    env.diagnostics = match value {
                        Value::Array(a) => a,
                        _ => Vec::new(),
                    }
                }
                "timings" => {
                    if let Value::Object(t) = value {
                        env.timings = t.into_iter().filter(|(_, v)| v.is_number()).collect();
                    }
                }
                _ => {
                    extra.insert(key, value);
                }
            }
        }
        if !extra.is_empty() {
            env.data = Some(match env.data.take() {
                None => Value::Object(extra),
                Some(data) => {
                    extra.insert("data".into(), data);
                    Value::Object(extra)
                }
            });
        }
        env
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("an envelope always serializes")
    }

    /// [`Envelope::to_value`] that moves `data` (and the rest) instead of copying them: the
    /// same JSON, with a large result held once.
    pub fn into_value(mut self) -> Value {
        let data = self.data.take();
        let mut v = self.to_value();
        if let (Some(d), Some(m)) = (data, v.as_object_mut()) {
            m.insert("data".into(), d);
        }
        v
    }

    /// The MCP result: `structuredContent` = the envelope, one text block with the same JSON,
    /// `isError` = `!success`.
    pub fn into_result(self) -> CallToolResult {
        let success = self.success;
        let value = self.into_value();
        if success {
            CallToolResult::structured(value)
        } else {
            CallToolResult::structured_error(value)
        }
    }
}

/// The output schema every tool advertises (`tool_call` and every native tool): the results
/// module's closed envelope schema (one source of truth) with each property reduced to the
/// least that still documents it. `success`, `message` and `code` keep their types (clients
/// branch on them); every other property keeps its name with an unconstrained schema, and
/// `result` stays "an object".
///
/// Why: every client pays for `tools/list` in tokens on every session, and the detailed schema
/// (≈1.5 KB: preview, findings, patterns…) is documentation the result itself carries. Only
/// keywords are removed, never properties, `required` or `additionalProperties`, so the
/// advertised schema admits everything the full one admits (and so every result we build);
/// tests check results against both.
pub fn output_schema() -> Value {
    compact_of(&crate::results::envelope_output_schema())
}

/// Properties whose type the advertised schema keeps.
const TYPED: [&str; 3] = ["success", "message", "code"];

fn compact_of(full: &Value) -> Value {
    let mut s = full.clone();
    if let Some(props) = s.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, sub) in props.iter_mut() {
            let ty = sub.get("type").cloned();
            *sub = match (name.as_str(), ty) {
                (n, Some(t)) if TYPED.contains(&n) => serde_json::json!({ "type": t }),
                ("result", Some(t)) => serde_json::json!({ "type": t }),
                _ => serde_json::json!({}),
            };
        }
    }
    s
}

/// The output schema of `tool_search` and `tool_describe`: the same closed envelope without the
/// `result` object, which only shaped Editor results carry. Derived from [`output_schema`] so
/// the two cannot drift.
pub fn lookup_output_schema() -> Value {
    let mut s = output_schema();
    if let Some(p) = s.get_mut("properties").and_then(Value::as_object_mut) {
        p.remove("result");
    }
    s
}

/// What a tool returns: an envelope the adapter made (search, describe, refusals), or a result
/// from the Editor after the results module decided inline, spilled or withheld.
pub enum Answer {
    Made(Envelope),
    FromEditor(ShapedResult),
    /// 2026-07-28 only: the client must ask its user and retry (MRTR).
    InputRequired(InputRequiredResult),
    /// The client declared the Tasks extension and the call started a long job.
    Task(CreateTaskResult),
}

impl From<Envelope> for Answer {
    fn from(e: Envelope) -> Self {
        Answer::Made(e)
    }
}

impl Answer {
    pub fn into_response(self) -> CallToolResponse {
        match self {
            Answer::InputRequired(r) => CallToolResponse::InputRequired(r),
            Answer::Task(t) => CallToolResponse::Task(t),
            other => CallToolResponse::Complete(other.into_result()),
        }
    }

    pub fn into_result(self) -> CallToolResult {
        match self {
            Answer::InputRequired(_) | Answer::Task(_) => {
                unreachable!("into_response handles input_required and task results")
            }
            Answer::Made(e) => e.into_result(),
            Answer::FromEditor(shaped) => {
                let mut r = if shaped.is_error {
                    CallToolResult::structured_error(shaped.structured)
                } else {
                    CallToolResult::structured(shaped.structured)
                };
                if let Some(link) = shaped.link {
                    let resource = Resource::new(link.uri, link.name)
                        .with_title(link.title)
                        .with_description(link.description)
                        .with_mime_type(link.mime_type)
                        .with_size(link.size);
                    r.content.push(ContentBlock::resource_link(resource));
                }
                r
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assert_fits(env: &Envelope) {
        let schema = output_schema();
        let v = jsonschema::draft202012::new(&schema).unwrap();
        let value = env.to_value();
        assert!(v.is_valid(&value), "{value} does not fit the output schema");
    }

    #[test]
    fn connector_success_and_error_fit_the_schema() {
        let ok = json!({"success":true,"message":"Scene info","data":{"name":"Main"},"timings":{"total_ms":3}});
        let env = Envelope::from_connector(&ok, "done");
        assert!(env.success);
        assert_eq!(env.data, Some(json!({"name":"Main"})));
        assert_eq!(env.timings.get("total_ms"), Some(&json!(3)));
        assert_fits(&env);

        let err = json!({"success":false,"message":"Validation failed at '/path'.","code":"MISSING_ARGUMENT",
            "suggestions":["pass path"],"data":{"path":"/path","expected":"string","actual":null},"timings":null});
        let env = Envelope::from_connector(&err, "done");
        assert!(!env.success);
        assert_eq!(env.code.as_deref(), Some("MISSING_ARGUMENT"));
        assert!(env.timings.is_empty());
        assert_fits(&env);
        let r = env.into_result();
        assert_eq!(r.is_error, Some(true));
    }

    #[test]
    fn anonymous_and_bare_results_keep_their_content() {
        let anon = json!({"success":true,"value":42});
        let env = Envelope::from_connector(&anon, "exec completed");
        assert_eq!(env.message, "exec completed");
        assert_eq!(env.data, Some(json!({"value":42})));
        assert_fits(&env);

        let bare = json!("just text");
        let env = Envelope::from_connector(&bare, "done");
        assert!(env.success);
        assert_eq!(env.data, Some(json!("just text")));
        assert_fits(&env);

        let diag = json!({"success":true,"message":"m","data":1,"diagnostics":[{"Code":"DEPRECATED_ARGUMENT"}],"extra":true});
        let env = Envelope::from_connector(&diag, "d");
        assert_eq!(env.data, Some(json!({"extra":true,"data":1})));
        assert_eq!(env.diagnostics.len(), 1);
        assert_fits(&env);
    }

    /// The advertised schema only drops keywords: same properties, same `required`, same
    /// closedness, and each property schema keeps at most its `type`.
    #[test]
    fn advertised_schema_loosens_the_full_one() {
        let full = crate::results::envelope_output_schema();
        let small = output_schema();
        assert_eq!(small["required"], full["required"]);
        assert_eq!(small["additionalProperties"], full["additionalProperties"]);
        assert_eq!(small["type"], full["type"]);
        let fp = full["properties"].as_object().unwrap();
        let sp = small["properties"].as_object().unwrap();
        assert_eq!(fp.keys().collect::<Vec<_>>(), sp.keys().collect::<Vec<_>>());
        for (k, v) in sp {
            for (kw, val) in v.as_object().unwrap() {
                assert_eq!(kw, "type", "{k} keeps only its type");
                assert_eq!(Some(val), fp[k].get("type"), "{k}");
            }
        }
        assert!(serde_json::to_string(&small).unwrap().len() < 330);
    }

    #[test]
    fn text_content_is_the_structured_json() {
        let r = Envelope::ok("OK", json!([1, 2])).into_result();
        let text = r.content[0].as_text().unwrap().text.clone();
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(Some(parsed), r.structured_content);
        assert_eq!(r.is_error, Some(false));
    }
}
