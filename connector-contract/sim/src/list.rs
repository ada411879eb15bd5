//! The `list` command (§3.1, §3.11): the strict catalog fetch and the older list forms.
//!
//! `list` is answered by the router itself, never by a tool handler and never through the
//! ledger. Catalog faults (wrong epoch, unknown field, bad hash) are applied to the published
//! document here, so a client sees exactly the broken catalog a real Editor could send.

use crate::connector::Connector;
use crate::envelope::Envelope;
use hera_connector_contract::canonical::{catalog_hash_of_value, sha256_prefixed};
use hera_connector_contract::wire::CATALOG_SCHEMA;
use serde_json::{Map, Value, json};

fn is_true(params: &Map<String, Value>, key: &str) -> bool {
    params.get(key) == Some(&Value::Bool(true))
}

/// Whether this `list` needs the domain's catalog (the strict fetch with the right schema
/// version, or the entry of a tool whose contract cannot be built), and that catalog failed to
/// build: `Err` carries the builder's complaint for an `INTERNAL_ERROR`. The names and other
/// tools' entries come from discovery and still work.
pub fn needs_catalog(c: &Connector, params: &Map<String, Value>) -> Result<(), String> {
    if is_true(params, "catalog") {
        let right_schema =
            params.get("schema_version").and_then(Value::as_str) == Some(CATALOG_SCHEMA);
        return if right_schema {
            c.catalog_build()
        } else {
            Ok(())
        };
    }
    if is_true(params, "names") || is_true(params, "compact") {
        return Ok(());
    }
    if let Some(Value::String(name)) = params.get("tool")
        && let Some((_, why)) = c
            .unbuildable
            .lock()
            .expect("unbuildable")
            .iter()
            .find(|(n, _)| n == name)
    {
        return Err(format!(
            "Failed to build the tool contract of '{name}': {why}"
        ));
    }
    Ok(())
}

/// The answer to `list` with `params` (legacy Connectors know only the older forms).
pub fn answer(c: &Connector, params: &Map<String, Value>) -> Envelope {
    if !c.legacy() && is_true(params, "catalog") {
        return catalog(c, params);
    }
    let tools = c.tools.lock().expect("tools");
    if is_true(params, "names") || is_true(params, "compact") {
        return Envelope::success("Available tools", Some(json!(tools.legacy_names())));
    }
    if let Some(name) = params.get("tool").filter(|v| !v.is_null()) {
        let name = match name {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        return match tools.legacy_tool_info(&name) {
            Some(info) => Envelope::success(format!("Tool: {name}"), Some(info)),
            None => Envelope::error("UNKNOWN_TOOL", format!("Tool not found: {name}"))
                .with_suggestions(vec![
                    "List the tool names with list {\"names\":true}.".to_string(),
                ]),
        };
    }
    Envelope::success("Available tools", Some(tools.legacy_default_list()))
}

fn catalog(c: &Connector, params: &Map<String, Value>) -> Envelope {
    let requested = params.get("schema_version");
    if requested.and_then(Value::as_str) != Some(CATALOG_SCHEMA) {
        let shown = match requested {
            None | Some(Value::Null) => "(missing)".to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        return Envelope::error(
            "SCHEMA_INVALID",
            format!("Unsupported tool catalog schema: {shown}"),
        )
        .with_data(json!({
            "path": "/schema_version",
            "expected": CATALOG_SCHEMA,
            "actual": requested.cloned().unwrap_or(Value::Null),
        }));
    }
    let mut doc = c
        .tools
        .lock()
        .expect("tools")
        .catalog(&c.epoch(), &c.settings.project_id);
    let (faults, wrong_epoch) = c.with_faults(|f| (f.catalog(), f.take_epoch_mismatch()));
    if wrong_epoch {
        let other: [u8; 16] = rand::random();
        doc["domain_epoch"] = json!(other.iter().map(|b| format!("{b:02x}")).collect::<String>());
    }
    if faults.extra_field {
        if let Some(first) = doc["tools"].get_mut(0).and_then(Value::as_object_mut) {
            first.insert("x_simulator_unknown_field".into(), json!(true));
        }
        doc["catalog_hash"] = json!(catalog_hash_of_value(&doc));
    }
    if faults.bad_hash {
        doc["catalog_hash"] = json!(sha256_prefixed(b"not the hash of this catalog"));
    }
    Envelope::success("Tool catalog", Some(doc))
}
