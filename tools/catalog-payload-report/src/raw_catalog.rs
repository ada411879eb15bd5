//! The raw catalog: what "every schema exposed" would cost.
//!
//! Fetched from the Editor the way the adapter fetches it (`POST /command` with
//! `list {"catalog":true,"schema_version":"hera.tool-catalog/1"}`, connector-contract/README.md §3.1),
//! through the adapter's own HTTP transport, which is the project's one HTTP client. The
//! envelope is measured as received (after normalization); each tool's entry is measured by
//! compact re-serialization, checked against the envelope's length like every other part.

use crate::measure::{compact_len, tokens_estimate};
use crate::normalize::Normalizer;
use hera_agent_unity::transport;
use hera_connector_contract::canonical::sha256_prefixed;
use hera_connector_contract::wire::CATALOG_SCHEMA;
use serde_json::{Map, Value, json};
use std::time::Duration;

const FETCH_TIMEOUT: Duration = Duration::from_secs(60);

/// How many of the largest tools to name.
const LARGEST: usize = 5;

pub fn measure(port: u16, n: &mut Normalizer) -> Result<Value, String> {
    let body = serde_json::to_vec(&json!({
        "command": "list",
        "params": {"catalog": true, "schema_version": CATALOG_SCHEMA}
    }))
    .expect("a JSON value serializes");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start an async runtime for the catalog fetch: {e}"))?;
    let raw = runtime
        .block_on(transport::post(port, "/command", body, FETCH_TIMEOUT))
        .map_err(|e| format!("the catalog fetch from 127.0.0.1:{port} failed: {e:?}"))?;
    if raw.status != 200 {
        return Err(format!(
            "the catalog fetch answered HTTP {}",
            transport::status_label(raw.status)
        ));
    }
    let text =
        String::from_utf8(raw.body).map_err(|e| format!("the catalog reply is not UTF-8: {e}"))?;
    let text = n.apply(&text);
    let envelope: Value =
        serde_json::from_str(&text).map_err(|e| format!("the catalog reply is not JSON: {e}"))?;
    if envelope["success"].as_bool() != Some(true) {
        return Err(format!(
            "the catalog fetch was refused: {}",
            envelope["message"]
        ));
    }
    if compact_len(&envelope) != text.len() as u64 {
        return Err(
            "re-serializing the catalog reply changes its length, so per-tool sizes would be \
             inexact"
                .into(),
        );
    }
    let data = &envelope["data"];
    let tools = data["tools"].as_array().cloned().unwrap_or_default();
    let mut per_tool = Map::new();
    let mut sizes: Vec<(u64, String)> = Vec::new();
    let mut actions_total = 0;
    for t in &tools {
        let name = t["name"].as_str().unwrap_or("?").to_string();
        let actions = t["actions"].as_array().map_or(0, Vec::len);
        actions_total += actions;
        let bytes = compact_len(t);
        sizes.push((bytes, name.clone()));
        per_tool.insert(name, json!({"entry_bytes": bytes, "actions": actions}));
    }
    sizes.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let largest: Vec<Value> = sizes
        .iter()
        .take(LARGEST)
        .map(|(b, name)| json!({"name": name, "entry_bytes": b}))
        .collect();
    let envelope_bytes = text.len() as u64;
    Ok(json!({
        "request": "POST /command {\"command\":\"list\",\"params\":{\"catalog\":true,\"schema_version\":\"hera.tool-catalog/1\"}}",
        "catalog_hash": data["catalog_hash"],
        "envelope_bytes": envelope_bytes,
        "data_bytes": compact_len(data),
        "tokens_estimate": tokens_estimate(envelope_bytes),
        "o200k_tokens": crate::measure::o200k(&text),
        "tools": tools.len(),
        "actions": actions_total,
        "largest_tools": largest,
        "per_tool": per_tool,
        "digest": sha256_prefixed(text.as_bytes()),
    }))
}
