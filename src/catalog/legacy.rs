//! A catalog for Connectors without `tool_catalog_v1` (§3.11), built from `list {"tool":name}`.
//!
//! Nothing in a legacy listing says what a tool may do, so every tool and action gets the most
//! conservative safety: destructive, confirmation required, not idempotent. Such tools can be
//! searched and described, and every call to them goes through approval.

use hera_connector_contract::canonical::{canonical_text_of_value, catalog_hash_of_value};
use hera_connector_contract::catalog::{ActionEntry, Catalog, Safety, Source, ToolEntry};
use hera_connector_contract::wire::LEGACY_CATALOG_SCHEMA;
use serde_json::{Value, json};

/// The `domain_epoch` of a legacy catalog whose heartbeat has none.
pub const LEGACY_EPOCH: &str = "legacy";

fn open_object_schema() -> Value {
    json!({"type": "object", "additionalProperties": true})
}

fn tool_from_listing(data: &Value) -> Option<ToolEntry> {
    let name = data.get("name")?.as_str()?.to_string();
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let mut actions: Vec<ActionEntry> = data
        .get("actions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| {
                    let n = x.get("name")?.as_str()?.trim();
                    (!n.is_empty()).then(|| ActionEntry {
                        name: n.to_string(),
                        description: text(x.get("description")),
                        aliases: Vec::new(),
                        input_schema: open_object_schema(),
                        output_schema: open_object_schema(),
                        safety: Safety::legacy_conservative(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    actions.sort_by(|a, b| hera_connector_contract::canonical::cmp_utf16(&a.name, &b.name));
    actions.dedup_by(|a, b| a.name == b.name);
    Some(ToolEntry {
        title: name.clone(),
        description: text(data.get("description")),
        source: Source {
            kind: "unknown".into(),
            assembly: "unknown".into(),
            type_name: "unknown".into(),
        },
        contract_mode: "legacy".into(),
        profiles: vec!["compact".into()],
        aliases: Vec::new(),
        examples: Vec::new(),
        input_schema: data
            .get("schema")
            .cloned()
            .unwrap_or_else(open_object_schema),
        output_schema: data
            .get("output_schema")
            .cloned()
            .unwrap_or_else(open_object_schema),
        actions,
        safety: Safety::legacy_conservative(),
        name,
    })
}

/// Builds the legacy catalog and its canonical text. `epoch` is the heartbeat's, if any.
pub fn adapt(tools: &[Value], project_id: &str, epoch: Option<&str>) -> (Catalog, String) {
    let mut entries: Vec<ToolEntry> = tools.iter().filter_map(tool_from_listing).collect();
    entries.sort_by(|a, b| hera_connector_contract::canonical::cmp_utf16(&a.name, &b.name));
    entries.dedup_by(|a, b| a.name == b.name);
    let mut catalog = Catalog {
        schema_version: LEGACY_CATALOG_SCHEMA.to_string(),
        catalog_hash: String::new(),
        domain_epoch: epoch
            .filter(|e| !e.is_empty())
            .unwrap_or(LEGACY_EPOCH)
            .to_string(),
        project_id: project_id.to_string(),
        tools: entries,
    };
    let value = serde_json::to_value(&catalog).expect("a catalog always serializes");
    catalog.catalog_hash = catalog_hash_of_value(&value);
    let value = serde_json::to_value(&catalog).expect("a catalog always serializes");
    (catalog, canonical_text_of_value(&value))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn every_tool_needs_confirmation() {
        let listing = vec![
            json!({"name":"spawn_cube","description":"Spawns","schema":{"type":"object"},"output_schema":{"type":"object"},
                   "actions":[{"name":"b"},{"name":"a","description":"first"}]}),
            json!({"name":"alpha","description":"","schema":{"type":"object"},"output_schema":{"type":"object"}}),
        ];
        let (c, text) = adapt(&listing, "sha256:00", None);
        assert_eq!(c.schema_version, "hera.tool-catalog/legacy");
        assert_eq!(c.domain_epoch, "legacy");
        assert_eq!(c.tools[0].name, "alpha");
        let cube = &c.tools[1];
        assert_eq!(
            cube.actions
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert!(cube.is_legacy() && cube.safety.requires_confirmation && cube.safety.destructive);
        assert!(cube.actions.iter().all(|a| a.safety.requires_confirmation));
        assert_eq!(
            hera_connector_contract::canonical::catalog_hash_text(&text).unwrap(),
            c.catalog_hash
        );
    }
}
