//! Which catalog we trust: the checks a fetched catalog must pass before anything answers from
//! it (contract: "Catalog and catalog_hash").
//!
//! The `catalog_hash` recomputed from the received bytes (numbers exactly as written, which
//! `serde_json::Value` cannot keep) must equal the one it carries; its structure must pass
//! [`Catalog::check_structure`]; its `project_id` must be the id of the heartbeat's
//! `projectPath`; and its `domain_epoch` must equal the heartbeat's, allowing 2.5 s for a
//! heartbeat that lags behind a reload. Unknown fields are reported, not fatal.

use crate::connector::{ConnectorClient, ConnectorError};
use crate::discovery::Instance;
use hera_connector_contract::canonical::{self, Json, NumberMode};
use hera_connector_contract::catalog::{Catalog, ToolEntry};
use hera_connector_contract::identity::project_id;
use serde_json::Value;
use std::time::{Duration, Instant};

/// How long a catalog/heartbeat epoch disagreement may last before the catalog is refused.
pub const EPOCH_SETTLE: Duration = Duration::from_millis(2500);
const EPOCH_SETTLE_POLL: Duration = Duration::from_millis(250);

/// A verified strict catalog.
#[derive(Debug, Clone)]
pub struct FetchedCatalog {
    pub catalog: Catalog,
    /// The catalog (`data` member) as canonical text: sorted keys, numbers as received, unknown
    /// fields kept. Its catalog hash is `catalog.catalog_hash`; the on-disk cache stores it.
    pub canonical_text: String,
    /// The heartbeat whose epoch the catalog matched.
    pub instance: Instance,
}

/// Fetches the strict catalog and checks it.
pub async fn fetch_verified(client: &ConnectorClient) -> Result<FetchedCatalog, ConnectorError> {
    let reply = client.fetch_catalog().await?;
    let data_text = reply
        .data_text()
        .ok_or_else(|| ConnectorError::CatalogInvalid("the catalog reply has no data".into()))?;
    verify(client, data_text).await
}

/// Checks the catalog `data_text` (exactly as received). The text is parsed twice, each time
/// straight from the received bytes: into a tree that keeps number literals (the canonical
/// text, hence the hash, comes from it) and into the typed catalog. Nothing is decoded into a
/// generic tree and copied; the literal tree is dropped once the canonical text and the list
/// of unknown fields are made.
async fn verify(
    client: &ConnectorClient,
    data_text: &str,
) -> Result<FetchedCatalog, ConnectorError> {
    let data_json = canonical::parse(data_text).map_err(|e| {
        ConnectorError::CatalogInvalid(format!("catalog reply is not valid JSON: {e}"))
    })?;
    let canonical_text = canonical::write_canonical(&data_json, NumberMode::Literal);
    // The same hash as `catalog_hash_json(&data_json)`, read off the canonical text in place.
    let computed = canonical::catalog_hash_of_canonical(&canonical_text)
        .map_err(|e| ConnectorError::CatalogInvalid(format!("malformed catalog: {e}")))?;
    let catalog: Catalog = serde_json::from_str(data_text)
        .map_err(|e| ConnectorError::CatalogInvalid(format!("malformed catalog: {e}")))?;
    if computed != catalog.catalog_hash {
        return Err(ConnectorError::CatalogInvalid(format!(
            "tool catalog hash mismatch: it says {} but its content hashes to {computed}",
            catalog.catalog_hash
        )));
    }
    // A legacy or arbitrary-code custom tool published in a normal profile is the Editor's
    // mistake, not a broken catalog: that tool leaves the normal profiles and always needs
    // approval; the rest of the catalog is used.
    let mut catalog = catalog;
    for q in catalog.quarantine() {
        tracing::warn!("{}", q.describe());
    }
    let problems = catalog.check_structure();
    if !problems.is_empty() {
        return Err(ConnectorError::CatalogInvalid(problems.join("; ")));
    }
    let unknown_fields = unknown_fields(&data_json, &mut catalog);
    drop(data_json);
    let mut instance = client.instance();
    let expected_project = project_id(&instance.project_path);
    if catalog.project_id != expected_project {
        return Err(ConnectorError::CatalogInvalid(format!(
            "catalog project_id {} is not the id of {} ({expected_project})",
            catalog.project_id, instance.project_path
        )));
    }
    let settle_until = Instant::now() + EPOCH_SETTLE;
    while instance.domain_epoch() != Some(catalog.domain_epoch.as_str()) {
        if Instant::now() >= settle_until {
            return Err(ConnectorError::CatalogInvalid(format!(
                "catalog domain epoch {:?} does not match heartbeat epoch {:?}",
                catalog.domain_epoch,
                instance.domain_epoch().unwrap_or("")
            )));
        }
        tokio::time::sleep(EPOCH_SETTLE_POLL).await;
        if let Some(i) = client.refresh_instance().await? {
            instance = i;
        }
    }
    // A newer Connector may add fields; the hash covers them, so they are kept and reported
    // rather than refused.
    if !unknown_fields.is_empty() {
        tracing::warn!(
            fields = %unknown_fields.join(", "),
            "the catalog has fields this client does not know; they are ignored"
        );
    }
    Ok(FetchedCatalog {
        catalog,
        canonical_text,
        instance,
    })
}

/// The fields of the received catalog (`raw`) that our types do not keep: `raw` against the
/// catalog written back, compared one tool at a time so only one tool's re-serialization
/// exists at once, and with the schemas (opaque to the comparison, and most of a tool) left
/// out of it rather than copied.
fn unknown_fields(raw: &Json, catalog: &mut Catalog) -> Vec<String> {
    let mut out = Vec::new();
    let tools = std::mem::take(&mut catalog.tools);
    let top = serde_json::to_value(&*catalog).unwrap_or(Value::Null);
    catalog.tools = tools;
    unknown_keys(raw, &top, "", &mut out);
    if let Some(Json::Array(raw_tools)) = member(raw, "tools") {
        for (i, (rt, tool)) in raw_tools.iter().zip(&mut catalog.tools).enumerate() {
            let known = without_schemas(tool, |t| serde_json::to_value(t));
            unknown_keys(
                rt,
                &known.unwrap_or(Value::Null),
                &format!("tools[{i}]"),
                &mut out,
            );
        }
    }
    out
}

/// Runs `f` on `tool` with its and its actions' schemas set aside (`null` in their place), then
/// puts them back.
fn without_schemas<T>(tool: &mut ToolEntry, f: impl FnOnce(&ToolEntry) -> T) -> T {
    let mut held = Vec::with_capacity(2 + 2 * tool.actions.len());
    held.push(std::mem::take(&mut tool.input_schema));
    held.push(std::mem::take(&mut tool.output_schema));
    for a in &mut tool.actions {
        held.push(std::mem::take(&mut a.input_schema));
        held.push(std::mem::take(&mut a.output_schema));
    }
    let out = f(tool);
    let mut held = held.into_iter();
    let mut next = || held.next().unwrap_or(Value::Null);
    tool.input_schema = next();
    tool.output_schema = next();
    for a in &mut tool.actions {
        a.input_schema = next();
        a.output_schema = next();
    }
    out
}

/// The last member `key` of an object (a repeated key keeps its last value).
fn member<'a>(v: &'a Json, key: &str) -> Option<&'a Json> {
    match v {
        Json::Object(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

/// Keys present in `raw` but absent from `known` (our re-serialization), skipping the opaque
/// parts: schemas and rule conditions.
fn unknown_keys(raw: &Json, known: &Value, at: &str, out: &mut Vec<String>) {
    match (raw, known) {
        (Json::Object(r), Value::Object(k)) => {
            for (key, rv) in r {
                let path = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                match k.get(key) {
                    None => out.push(path),
                    Some(_)
                        if matches!(key.as_str(), "input_schema" | "output_schema" | "when") => {}
                    Some(kv) => unknown_keys(rv, kv, &path, out),
                }
            }
        }
        (Json::Array(r), Value::Array(k)) => {
            for (i, (rv, kv)) in r.iter().zip(k).enumerate() {
                unknown_keys(rv, kv, &format!("{at}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn unknown_keys_are_listed_outside_schemas() {
        let raw = canonical::parse(
            r#"{"a": 1, "tools": [{"name": "x", "extra": true,
            "input_schema": {"anything": 1}}], "new_top": 2}"#,
        )
        .unwrap();
        let known = serde_json::json!({"a": 1, "tools": [{"name": "x", "input_schema": {}}]});
        let mut out = Vec::new();
        unknown_keys(&raw, &known, "", &mut out);
        // In the order received.
        assert_eq!(out, ["tools[0].extra", "new_top"]);
    }

    #[test]
    fn schemas_are_set_aside_and_put_back() {
        let safety = serde_json::json!({"risk_class": "read_only", "read_only": true,
            "destructive": false, "idempotent": true, "may_reload_domain": false,
            "requires_play_mode": false, "requires_confirmation": false, "reversible": true,
            "supports_cancellation": false, "side_effect_scope": "none"});
        let mut tool: ToolEntry = serde_json::from_value(serde_json::json!({
            "name": "t", "title": "T", "source": {"kind": "builtin", "assembly": "a", "type": "T"},
            "contract_mode": "strict", "input_schema": {"type": "object", "x": 1},
            "output_schema": {"type": "object"},
            "actions": [{"name": "a", "input_schema": {"a": 1}, "output_schema": {"b": 2},
                "safety": safety}],
            "safety": safety
        }))
        .unwrap();
        let before = tool.clone();
        let seen = without_schemas(&mut tool, |t| serde_json::to_value(t).unwrap());
        assert_eq!(seen["input_schema"], Value::Null);
        assert_eq!(seen["actions"][0]["output_schema"], Value::Null);
        assert_eq!(seen["actions"][0]["name"], "a");
        assert_eq!(tool, before);
    }
}
