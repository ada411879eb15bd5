//! Fetching the tool catalog (§3.1–§3.9) and the legacy per-tool listing (§3.11).
//!
//! The catalog is trusted only after these checks: the `catalog_hash` recomputed from the
//! received bytes (numbers exactly as written, which `serde_json::Value` cannot keep) equals the
//! one it carries; its structure passes [`Catalog::check_structure`]; its `project_id` equals the
//! id of the heartbeat's `projectPath`; and its `domain_epoch` equals the heartbeat's, allowing
//! 2.5 s for a heartbeat that lags behind a reload. Turning the legacy listing into a catalog is
//! `catalog`'s job; this module only fetches it.

use super::{CATALOG_TIMEOUT, CallOptions, ConnectorClient, ConnectorError, decode};
use crate::discovery::Instance;
use hera_connector_contract::canonical::{self, Json, NumberMode};
use hera_connector_contract::catalog::Catalog;
use hera_connector_contract::identity::project_id;
use hera_connector_contract::wire::CATALOG_SCHEMA;
use serde_json::{Map, Value, json};
use std::time::{Duration, Instant};

/// How long a catalog/heartbeat epoch disagreement may last before the catalog is refused.
pub const EPOCH_SETTLE: Duration = Duration::from_millis(2500);
pub const EPOCH_SETTLE_POLL: Duration = Duration::from_millis(250);

/// A verified strict catalog.
#[derive(Debug, Clone)]
pub struct FetchedCatalog {
    pub catalog: Catalog,
    /// The catalog (`data` member) as canonical text: sorted keys, numbers as received, unknown
    /// fields kept. Its catalog hash is `catalog.catalog_hash`; the on-disk cache stores it.
    pub canonical_text: String,
    /// The heartbeat whose epoch the catalog matched.
    pub instance: Instance,
    /// Fields this client does not know (`tools[3].foo`), outside schemas. A newer Connector
    /// may add some; the hash covers them, so they are kept and reported rather than refused.
    pub unknown_fields: Vec<String>,
}

/// What a legacy Connector says about its tools: the `data` of `list {"tool": name}` for every
/// name, sorted by name.
#[derive(Debug, Clone)]
pub struct LegacyListing {
    pub tools: Vec<Value>,
    pub instance: Instance,
}

fn member<'a>(v: &'a Json, key: &str) -> Option<&'a Json> {
    match v {
        Json::Object(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

fn list_options(client: &ConnectorClient) -> CallOptions {
    CallOptions {
        idempotent: true,
        timeout: Some(client.timeout().min(CATALOG_TIMEOUT)),
        ..Default::default()
    }
}

impl ConnectorClient {
    /// Fetches and verifies the `hera.tool-catalog/1` catalog. Use it when the heartbeat
    /// `supports_strict_catalog()`; otherwise see [`ConnectorClient::fetch_legacy_listing`].
    pub async fn fetch_catalog(&self) -> Result<FetchedCatalog, ConnectorError> {
        let params = json!({"catalog": true, "schema_version": CATALOG_SCHEMA});
        let sent = self
            .send_command(
                "list",
                params.as_object().expect("object"),
                list_options(self),
            )
            .await?;
        let text = String::from_utf8_lossy(&sent.raw.body).into_owned();
        let env = decode(sent.raw, sent.parsed)?;
        if !env.success {
            return Err(ConnectorError::Rejected { envelope: env });
        }
        let body = canonical::parse(text.trim_start_matches('\u{feff}')).map_err(|e| {
            ConnectorError::CatalogInvalid(format!("catalog reply is not valid JSON: {e}"))
        })?;
        let data_json = member(&body, "data").ok_or_else(|| {
            ConnectorError::CatalogInvalid("the catalog reply has no data".into())
        })?;
        let data_value = env.data.unwrap_or(Value::Null);
        verify(self, data_json, data_value).await
    }

    /// Lists a legacy Connector's tools: `list {"names":true}`, then `list {"tool":name}` each.
    pub async fn fetch_legacy_listing(&self) -> Result<LegacyListing, ConnectorError> {
        let reply = self
            .command("list", &obj(json!({"names": true})), list_options(self))
            .await?;
        if !reply.envelope.success {
            return Err(ConnectorError::Rejected {
                envelope: reply.envelope,
            });
        }
        let mut names: Vec<String> = reply
            .envelope
            .data
            .as_ref()
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names.dedup();
        if names.is_empty() {
            return Err(ConnectorError::InvalidResponse(
                "the Connector listed no tools".into(),
            ));
        }
        let mut tools = Vec::with_capacity(names.len());
        for name in names {
            let reply = self
                .command("list", &obj(json!({"tool": name})), list_options(self))
                .await?;
            if !reply.envelope.success {
                return Err(ConnectorError::Rejected {
                    envelope: reply.envelope,
                });
            }
            let data = reply.envelope.data.unwrap_or(Value::Null);
            if data.get("name").and_then(Value::as_str) != Some(name.as_str()) {
                return Err(ConnectorError::InvalidResponse(format!(
                    "list {{\"tool\":\"{name}\"}} described a different tool"
                )));
            }
            for key in ["schema", "output_schema"] {
                if !data.get(key).is_some_and(Value::is_object) {
                    return Err(ConnectorError::InvalidResponse(format!(
                        "tool {name}: `{key}` is not an object"
                    )));
                }
            }
            tools.push(data);
        }
        Ok(LegacyListing {
            tools,
            instance: self.instance(),
        })
    }
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

async fn verify(
    client: &ConnectorClient,
    data_json: &Json,
    data_value: Value,
) -> Result<FetchedCatalog, ConnectorError> {
    let computed = canonical::catalog_hash_json(data_json);
    let raw = data_value.clone();
    let catalog: Catalog = serde_json::from_value(data_value)
        .map_err(|e| ConnectorError::CatalogInvalid(format!("malformed catalog: {e}")))?;
    if computed != catalog.catalog_hash {
        return Err(ConnectorError::CatalogInvalid(format!(
            "tool catalog hash mismatch: it says {} but its content hashes to {computed}",
            catalog.catalog_hash
        )));
    }
    let problems = catalog.check_structure();
    if !problems.is_empty() {
        return Err(ConnectorError::CatalogInvalid(problems.join("; ")));
    }
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
    let canonical_text = canonical::write_canonical(data_json, NumberMode::Literal);
    let known = serde_json::to_value(&catalog).unwrap_or(Value::Null);
    let mut unknown_fields = Vec::new();
    unknown_keys(&raw, &known, "", &mut unknown_fields);
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
        unknown_fields,
    })
}

/// Keys present in `raw` but absent from `known` (our re-serialization), skipping the opaque
/// parts: schemas and rule conditions.
fn unknown_keys(raw: &Value, known: &Value, at: &str, out: &mut Vec<String>) {
    match (raw, known) {
        (Value::Object(r), Value::Object(k)) => {
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
        (Value::Array(r), Value::Array(k)) => {
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
        let raw = serde_json::json!({"a": 1, "tools": [{"name": "x", "extra": true,
            "input_schema": {"anything": 1}}], "new_top": 2});
        let known = serde_json::json!({"a": 1, "tools": [{"name": "x", "input_schema": {}}]});
        let mut out = Vec::new();
        unknown_keys(&raw, &known, "", &mut out);
        assert_eq!(out, ["new_top", "tools[0].extra"]);
    }
}
