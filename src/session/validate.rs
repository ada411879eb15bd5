//! Strict argument validation with the `jsonschema` crate (draft 2020-12, formats asserted,
//! no remote resolving), and faults phrased so a model can repair its call.
//!
//! Validators are compiled once per catalog and kept in [`ValidatorCache`]; a new catalog gets a
//! new cache, so a stale compiled schema can never validate against a changed contract.

use jsonschema::{ValidationError, Validator, error::ValidationErrorKind};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One thing wrong with the arguments, located by a JSON pointer into the *call* (so
/// `/arguments/path` for a tool argument).
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub pointer: String,
    pub message: String,
    /// What the schema wanted at that place (the keyword's value), when that is meaningful.
    pub expected: Option<Value>,
}

impl Fault {
    pub fn to_json(&self) -> Value {
        let mut v = json!({"pointer": self.pointer, "message": self.message});
        if let Some(e) = &self.expected {
            v["expected"] = e.clone();
        }
        v
    }
}

/// At most this many faults are reported per call; the first usually explains the rest.
pub const MAX_FAULTS: usize = 5;

pub fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| format!("the schema does not compile: {e}"))
}

/// Validates `instance` and returns its faults, pointers prefixed with `prefix` (e.g.
/// `/arguments`). Empty means valid.
pub fn check(validator: &Validator, schema: &Value, instance: &Value, prefix: &str) -> Vec<Fault> {
    validator
        .iter_errors(instance)
        .take(MAX_FAULTS)
        .map(|e| fault(&e, schema, prefix))
        .collect()
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn fault(e: &ValidationError<'_>, schema: &Value, prefix: &str) -> Fault {
    let at = format!("{prefix}{}", e.instance_path().as_str());
    let keyword_value = schema.pointer(e.schema_path().as_str()).cloned();
    match e.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let parent = e
                .schema_path()
                .as_str()
                .rsplit_once('/')
                .map(|(p, _)| p)
                .unwrap_or("");
            let allowed: Vec<String> = schema
                .pointer(parent)
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            let first = unexpected.first().map(String::as_str).unwrap_or("");
            Fault {
                pointer: format!("{at}/{}", escape(first)),
                message: format!(
                    "unknown field {:?}; allowed fields: {}",
                    first,
                    if allowed.is_empty() {
                        "none".to_string()
                    } else {
                        allowed.join(", ")
                    }
                ),
                expected: Some(json!({"allowed": allowed})),
            }
        }
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            Fault {
                pointer: format!("{at}/{}", escape(name)),
                message: format!("missing required field {name:?}"),
                expected: None,
            }
        }
        _ => Fault {
            pointer: at,
            message: e.to_string(),
            expected: keyword_value,
        },
    }
}

/// Compiled validators of one catalog, keyed by `tool` or `tool/action`.
#[derive(Default)]
pub struct ValidatorCache {
    compiled: Mutex<HashMap<String, Arc<Result<Validator, String>>>>,
}

impl ValidatorCache {
    /// The validator for `key`, compiling `schema` on first use.
    pub fn get(&self, key: &str, schema: &Value) -> Arc<Result<Validator, String>> {
        let mut map = self.compiled.lock().expect("validator cache lock");
        if let Some(v) = map.get(key) {
            return v.clone();
        }
        let v = Arc::new(compile(schema));
        map.insert(key.to_string(), v.clone());
        v
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.compiled.lock().expect("validator cache lock").len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({"type":"object","additionalProperties":false,
            "properties":{"action":{"type":"string","const":"load"},"path":{"type":"string"},"count":{"type":"integer","minimum":1}},
            "required":["action","path"]})
    }

    #[test]
    fn faults_point_at_the_field() {
        let s = schema();
        let v = compile(&s).unwrap();
        let f = check(
            &v,
            &s,
            &json!({"action":"load","path":"a","bogus":1}),
            "/arguments",
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].pointer, "/arguments/bogus");
        assert!(f[0].message.contains("allowed fields"));

        let f = check(&v, &s, &json!({"action":"load"}), "/arguments");
        assert_eq!(f[0].pointer, "/arguments/path");

        let f = check(
            &v,
            &s,
            &json!({"action":"load","path":"a","count":"x"}),
            "/arguments",
        );
        assert_eq!(f[0].pointer, "/arguments/count");
        assert_eq!(f[0].expected, Some(json!("integer")));

        let f = check(
            &v,
            &s,
            &json!({"action":"load","path":"a","count":0}),
            "/arguments",
        );
        assert_eq!(f[0].pointer, "/arguments/count");
        assert_eq!(f[0].expected, Some(json!(1)));

        assert!(check(&v, &s, &json!({"action":"load","path":"a"}), "").is_empty());
    }

    #[test]
    fn cache_compiles_once() {
        let c = ValidatorCache::default();
        let s = schema();
        let a = c.get("scene/load", &s);
        let b = c.get("scene/load", &s);
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(c.len(), 1);
    }
}
