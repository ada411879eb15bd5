//! Date-like strings the Editor could not take as strings (`connector-contract/README.md`,
//! "Dates in arguments").
//!
//! The Connector parses a request with date handling on, so a string that looks like an ISO
//! date-time (or `/Date(…)/`) arrives at its validator as a date, not a string: a `string`
//! parameter refuses it (`ARGUMENT_TYPE_MISMATCH`, actual `Date`) and a `format: date-time`
//! parameter refuses every value (`ARGUMENT_FORMAT_INVALID`). Our strict local validation sees a
//! string and lets it through, so only the Editor's answer shows it. This module recognises that
//! answer and names the strings, so each front-end can explain what happened and what to do; no
//! escaping on the wire avoids it.

use crate::connector::Envelope;
use hera_connector_contract::canonical::is_newtonsoft_date;
use serde_json::{Map, Value, json};

/// At most this many strings are named (a call with more is still explained by the first ones).
const MAX_NAMED: usize = 8;
/// How deep the arguments are searched when the refusal points at a container.
const MAX_DEPTH: usize = 32;

/// One argument string the Connector read as a date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateLikeString {
    /// JSON pointer into the call's arguments.
    pub pointer: String,
    pub value: String,
}

impl DateLikeString {
    pub fn to_json(&self) -> Value {
        json!({"pointer": self.pointer, "value": self.value})
    }
}

/// The strings behind a refusal caused by the Connector reading them as dates, or none when the
/// refusal has another cause. Decided from the refusal's code, its `data.path` (a JSON pointer
/// into the arguments) and `data.actual` (`"Date"`, or `12`, Newtonsoft's number for a date
/// token, in nested schema errors), and from the arguments as sent.
pub fn refused_date_strings(env: &Envelope, arguments: &Map<String, Value>) -> Vec<DateLikeString> {
    let code = env.code_str();
    if env.success || !matches!(code, "ARGUMENT_TYPE_MISMATCH" | "ARGUMENT_FORMAT_INVALID") {
        return Vec::new();
    }
    let data = env.data();
    let field = |k: &str| data.and_then(|d| d.get(k));
    let args = Value::Object(arguments.clone());
    let path = field("path").and_then(Value::as_str).unwrap_or("");
    let at = if path.is_empty() {
        Some(&args)
    } else {
        args.pointer(path)
    };
    let Some(at) = at else {
        return Vec::new();
    };
    // The refused value itself is a date-like string: that is the cause, whatever else is said.
    if let Some(s) = at.as_str() {
        return if is_newtonsoft_date(s) {
            vec![DateLikeString {
                pointer: path.to_string(),
                value: s.to_string(),
            }]
        } else {
            Vec::new()
        };
    }
    // A container was refused because something inside it is a date.
    let actual = field("actual");
    let says_date = actual.is_some_and(|a| a == "Date" || a == 12);
    if !says_date {
        return Vec::new();
    }
    let mut found = Vec::new();
    collect(at, path, 0, &mut found);
    found
}

fn collect(v: &Value, pointer: &str, depth: usize, out: &mut Vec<DateLikeString>) {
    if out.len() >= MAX_NAMED || depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::String(s) if is_newtonsoft_date(s) => out.push(DateLikeString {
            pointer: pointer.to_string(),
            value: s.clone(),
        }),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect(item, &format!("{pointer}/{i}"), depth + 1, out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                let key = k.replace('~', "~0").replace('/', "~1");
                collect(item, &format!("{pointer}/{key}"), depth + 1, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(code: &str, data: Value) -> Envelope {
        Envelope::from_value(
            json!({"success": false, "code": code, "message": "Validation failed.", "data": data}),
        )
    }
    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_refused_string_that_reads_as_a_date_is_named() {
        let a = args(json!({"action": "create", "name": "2024-01-02T03:04:05"}));
        let found = refused_date_strings(
            &refusal(
                "ARGUMENT_TYPE_MISMATCH",
                json!({"path": "/name", "expected": "string", "actual": "Date"}),
            ),
            &a,
        );
        assert_eq!(
            found,
            vec![DateLikeString {
                pointer: "/name".into(),
                value: "2024-01-02T03:04:05".into()
            }]
        );
        // The same refusal of an ordinary string has another cause.
        let plain = args(json!({"action": "create", "name": 5}));
        assert!(
            refused_date_strings(
                &refusal(
                    "ARGUMENT_TYPE_MISMATCH",
                    json!({"path": "/name", "expected": "string", "actual": "Integer"}),
                ),
                &plain,
            )
            .is_empty()
        );
    }

    #[test]
    fn a_container_refused_for_a_date_inside_names_the_dates_in_it() {
        let a = args(json!({"items": [{"when": "2024-01-02T03:04:05Z", "n": "x"}, "plain"]}));
        let found = refused_date_strings(
            &refusal(
                "ARGUMENT_TYPE_MISMATCH",
                json!({"path": "/items", "expected": [], "actual": 12}),
            ),
            &a,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/items/0/when");
        // A format refusal of a date-time parameter.
        let d = args(json!({"at": "2024-01-02T03:04:05+02:00"}));
        let found = refused_date_strings(
            &refusal(
                "ARGUMENT_FORMAT_INVALID",
                json!({"path": "/at", "expected": "date-time", "actual": "2024-01-02T03:04:05+02:00"}),
            ),
            &d,
        );
        assert_eq!(found[0].value, "2024-01-02T03:04:05+02:00");
    }

    #[test]
    fn other_refusals_and_successes_name_nothing() {
        let a = args(json!({"name": "2024-01-02T03:04:05"}));
        assert!(
            refused_date_strings(&refusal("INVALID_ARGUMENT", json!({"path": "/name"})), &a)
                .is_empty()
        );
        assert!(
            refused_date_strings(
                &refusal(
                    "ARGUMENT_TYPE_MISMATCH",
                    json!({"path": "/missing", "actual": "Date"})
                ),
                &a
            )
            .is_empty()
        );
    }
}
