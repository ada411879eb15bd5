//! Decoding the arguments of the three compact tools.
//!
//! The arguments are checked against the very input schema published in `tools/list` (one
//! source of truth, so the advertised contract is the enforced one), then decoded. A failure is
//! an `INVALID_ARGUMENT` tool error with a JSON pointer, never a protocol error: the model can
//! read it and repair the call.

use super::envelope::Envelope;
use super::tools::{self, SEARCH_DEFAULT_LIMIT, TOOL_CALL, TOOL_DESCRIBE, TOOL_SEARCH};
use crate::session::{Fault, check_schema, compile_schema};
use jsonschema::Validator;
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

pub struct SearchArgs {
    pub query: String,
    pub limit: usize,
    pub profile: Option<String>,
}

pub struct DescribeArgs {
    pub name: String,
    pub action: Option<String>,
    /// Also the tool's source, contract mode, profiles and the catalog's hash and epoch.
    pub provenance: bool,
}

pub struct CallArgs {
    pub name: String,
    pub arguments: Map<String, Value>,
    pub operation_id: Option<String>,
    pub approval_token: Option<String>,
}

struct Compiled {
    schema: Value,
    validator: Validator,
}

fn compiled(tool: &str) -> &'static Compiled {
    static CELLS: OnceLock<Vec<(String, Compiled)>> = OnceLock::new();
    let all = CELLS.get_or_init(|| {
        tools::compact_tools()
            .into_iter()
            .map(|t| {
                let schema = Value::Object((*t.input_schema).clone());
                let validator = compile_schema(&schema).expect("compact input schemas compile");
                (t.name.to_string(), Compiled { schema, validator })
            })
            .collect()
    });
    &all.iter()
        .find(|(n, _)| n == tool)
        .expect("a compact tool")
        .1
}

/// Compiles the compact tools' argument validators now (they are otherwise compiled by the
/// first call that needs them).
pub fn prepare() {
    compiled(TOOL_SEARCH);
}

/// The `INVALID_ARGUMENT` error for faults in a call's arguments.
pub fn invalid(tool: &str, faults: &[Fault]) -> Envelope {
    let first = &faults[0];
    Envelope::error(
        "INVALID_ARGUMENT",
        format!(
            "{tool}: {} (at {})",
            first.message,
            if first.pointer.is_empty() {
                "/"
            } else {
                &first.pointer
            }
        ),
    )
    .with_data(json!({
        "pointer": first.pointer,
        "message": first.message,
        "expected": first.expected,
        "faults": faults.iter().map(Fault::to_json).collect::<Vec<_>>(),
    }))
}

fn validate(tool: &str, args: &Option<Map<String, Value>>) -> Result<Value, Envelope> {
    let value = Value::Object(args.clone().unwrap_or_default());
    let c = compiled(tool);
    let faults = check_schema(&c.validator, &c.schema, &value, "");
    if faults.is_empty() {
        Ok(value)
    } else {
        Err(invalid(tool, &faults))
    }
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

pub fn search(args: &Option<Map<String, Value>>) -> Result<SearchArgs, Envelope> {
    let v = validate(TOOL_SEARCH, args)?;
    let query = string(&v, "query").unwrap_or_default();
    if query.trim().is_empty() {
        return Err(invalid(
            TOOL_SEARCH,
            &[Fault {
                pointer: "/query".into(),
                message: "query has no words; describe the task, e.g. \"load scene\"".into(),
                expected: None,
            }],
        ));
    }
    Ok(SearchArgs {
        query,
        limit: v
            .get("limit")
            .and_then(Value::as_u64)
            .unwrap_or(SEARCH_DEFAULT_LIMIT) as usize,
        profile: string(&v, "profile"),
    })
}

pub fn describe(args: &Option<Map<String, Value>>) -> Result<DescribeArgs, Envelope> {
    let v = validate(TOOL_DESCRIBE, args)?;
    Ok(DescribeArgs {
        name: string(&v, "name").unwrap_or_default(),
        action: string(&v, "action"),
        provenance: v
            .get("provenance")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

pub fn call(args: &Option<Map<String, Value>>) -> Result<CallArgs, Envelope> {
    let v = validate(TOOL_CALL, args)?;
    Ok(CallArgs {
        name: string(&v, "name").unwrap_or_default(),
        arguments: v
            .get("arguments")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        operation_id: string(&v, "operation_id"),
        approval_token: string(&v, "approval_token"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Option<Map<String, Value>> {
        v.as_object().cloned()
    }

    #[test]
    fn search_limits_are_enforced_not_clamped() {
        assert_eq!(search(&obj(json!({"query":"scene"}))).unwrap().limit, 5);
        assert_eq!(
            search(&obj(json!({"query":"scene","limit":100})))
                .unwrap()
                .limit,
            100
        );
        for bad in [json!(0), json!(101), json!(-1), json!("5"), json!(2.5)] {
            let e = search(&obj(json!({"query":"scene","limit":bad})))
                .err()
                .unwrap();
            assert_eq!(e.code.as_deref(), Some("INVALID_ARGUMENT"));
            assert_eq!(e.data.as_ref().unwrap()["pointer"], "/limit");
        }
        let e = search(&obj(json!({"query":"  "}))).err().unwrap();
        assert_eq!(e.data.as_ref().unwrap()["pointer"], "/query");
        let e = search(&None).err().unwrap();
        assert_eq!(e.data.as_ref().unwrap()["pointer"], "/query");
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let e = describe(&obj(json!({"name":"scene","x":1}))).err().unwrap();
        assert_eq!(e.data.as_ref().unwrap()["pointer"], "/x");
        let e = call(&obj(json!({"name":"scene","arguments":[]})))
            .err()
            .unwrap();
        assert_eq!(e.data.as_ref().unwrap()["pointer"], "/arguments");
        let c = call(&obj(json!({"name":"scene"}))).unwrap();
        assert!(c.arguments.is_empty());
    }
}
