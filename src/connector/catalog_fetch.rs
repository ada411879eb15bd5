//! The catalog requests: `list {"catalog": true}` with the reply's exact bytes kept (the hash
//! is computed over them), and a legacy Connector's per-tool listing. Whether to trust what they
//! return is `catalog`'s decision; this module only fetches.

use super::{CATALOG_TIMEOUT, CallOptions, ConnectorClient, ConnectorError, Envelope, decode};
use crate::discovery::Instance;
use hera_connector_contract::wire::CATALOG_SCHEMA;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::ops::Range;

/// A successful `list {"catalog": true}` reply, before any check.
#[derive(Debug, Clone)]
pub struct CatalogReply {
    /// The body exactly as received (BOM removed), for the hash over the literal numbers.
    pub text: String,
    /// The envelope without its `data`: the catalog is read from `text` once, by whoever
    /// checks it, instead of also being decoded here into a tree nobody keeps.
    pub envelope: Envelope,
    /// Where the envelope's `data` stands in `text`; `None` when the reply has none.
    data: Option<Range<usize>>,
}

impl CatalogReply {
    /// The catalog (`data`) exactly as received; `None` when the reply has none.
    pub fn data_text(&self) -> Option<&str> {
        self.data.clone().map(|r| &self.text[r])
    }
}

/// Splits an envelope `text` into its members other than `data`, decoded, and the place of
/// `data` in `text`. `None` when `text` is not an object with a boolean `success` (not an
/// envelope). A repeated member keeps its last value, as when the whole body is decoded.
fn split_envelope(text: &str) -> Option<(Envelope, Option<Range<usize>>)> {
    let members: BTreeMap<String, &RawValue> = serde_json::from_str(text).ok()?;
    let mut head = Map::new();
    let mut data = None;
    for (key, raw) in members {
        if key == "data" {
            let at = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            data = Some(at..at + raw.get().len());
        } else {
            head.insert(key, serde_json::from_str(raw.get()).ok()?);
        }
    }
    if !head.get("success").is_some_and(Value::is_boolean) {
        return None;
    }
    Some((Envelope::from_value(Value::Object(head)), data))
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
        let status = sent.raw.status;
        let mut text = match String::from_utf8(sent.raw.body) {
            Ok(t) => t,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        if status == 200
            && let Some((envelope, data)) = split_envelope(&text)
        {
            if !envelope.success {
                return Err(ConnectorError::Rejected { envelope });
            }
            return Ok(CatalogReply {
                text,
                envelope,
                data,
            });
        }
        // Anything else (another status, not an envelope) is decoded as any reply is.
        let raw = super::transport::RawResponse {
            status,
            body: text.as_bytes().to_vec(),
        };
        let envelope = decode(raw, sent.parsed)?;
        if !envelope.success {
            return Err(ConnectorError::Rejected { envelope });
        }
        let data = split_envelope(&text).and_then(|(_, d)| d);
        Ok(CatalogReply {
            text,
            envelope,
            data,
        })
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
