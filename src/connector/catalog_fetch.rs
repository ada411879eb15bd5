//! The catalog requests: `list {"catalog": true}` with the reply's exact bytes kept (the hash
//! is computed over them), and a legacy Connector's per-tool listing. Whether to trust what they
//! return is `catalog`'s decision; this module only fetches.

use super::{CATALOG_TIMEOUT, CallOptions, ConnectorClient, ConnectorError, Envelope, decode};
use crate::discovery::Instance;
use hera_connector_contract::wire::CATALOG_SCHEMA;
use serde_json::{Map, Value, json};

/// A successful `list {"catalog": true}` reply, before any check.
#[derive(Debug, Clone)]
pub struct CatalogReply {
    /// The body exactly as received (BOM removed), for the hash over the literal numbers.
    pub text: String,
    pub envelope: Envelope,
}

/// What a legacy Connector says about its tools: the `data` of `list {"tool": name}` for every
/// name, sorted by name.
#[derive(Debug, Clone)]
pub struct LegacyListing {
    pub tools: Vec<Value>,
    pub instance: Instance,
}

fn list_options(client: &ConnectorClient) -> CallOptions {
    CallOptions {
        idempotent: true,
        read_only: true,
        timeout: Some(client.timeout().min(CATALOG_TIMEOUT)),
        ..Default::default()
    }
}

impl ConnectorClient {
    /// Asks for the `hera.tool-catalog/1` catalog. Use it when the heartbeat
    /// `supports_strict_catalog()`; otherwise see [`ConnectorClient::fetch_legacy_listing`].
    /// A refusal (the Connector's envelope) is `Err(Rejected)`.
    pub async fn fetch_catalog(&self) -> Result<CatalogReply, ConnectorError> {
        let params = json!({"catalog": true, "schema_version": CATALOG_SCHEMA});
        let sent = self
            .send_command(
                "list",
                params.as_object().expect("object"),
                list_options(self),
            )
            .await?;
        let text = String::from_utf8_lossy(&sent.raw.body)
            .trim_start_matches('\u{feff}')
            .to_string();
        let envelope = decode(sent.raw, sent.parsed)?;
        if !envelope.success {
            return Err(ConnectorError::Rejected { envelope });
        }
        Ok(CatalogReply { text, envelope })
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
            .data()
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
                // One tool the Editor cannot describe (its contract does not build) stays
                // listed, saying so, instead of hiding every other tool.
                let why = reply.envelope.message.clone().unwrap_or_default();
                tracing::warn!(tool = %name, "the Editor cannot describe this tool: {why}");
                tools.push(json!({
                    "name": name,
                    "description": format!(
                        "The Unity Editor cannot build this tool's contract ({why}); calls to it \
                         fail until its code is fixed and the Editor reloads."
                    ),
                    "schema": {"type": "object"},
                    "output_schema": {"type": "object"},
                }));
                continue;
            }
            let data = reply.envelope.into_data().unwrap_or(Value::Null);
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
