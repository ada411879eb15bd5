//! Entry points for the fuzz targets in `fuzz/` (cargo-fuzz, excluded from the workspace).
//!
//! Each function takes arbitrary bytes, runs them through the same code the adapter runs on
//! untrusted input, and panics only when a property the adapter promises is broken (a panic
//! is what the fuzzer reports). They are the only public surface the targets need, so no module
//! has to be widened for them. Not a stable API.

/// What one run of [`stdio_frames`] saw.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FrameCounts {
    /// Lines the transport handed to the protocol layer.
    pub delivered: usize,
    /// Error frames it wrote itself (malformed, oversized, duplicate id).
    pub answered: usize,
}

/// Feeds `data` to the stdio transport as if a client wrote it, then closes stdin.
///
/// Properties: it terminates; every frame written is one line of JSON-RPC 2.0 with an `id`
/// (a number, a string or null) and an `error.code` in the JSON-RPC ranges.
pub fn stdio_frames(data: &[u8]) -> FrameCounts {
    let (delivered, answered) = crate::mcp::frames_of(data);
    FrameCounts {
        delivered,
        answered,
    }
}

/// `tool_call` arguments as an agent may send them: the canonical `arguments_hash` (text and
/// value paths), approval-token inspection of an `approval_token` field, and credential
/// screening. Properties: no panic; hashing the same text twice gives the same hash.
pub fn tool_call_arguments(data: &[u8]) {
    use hera_connector_contract::canonical;
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(h) = canonical::arguments_hash_text(text) {
        assert_eq!(canonical::arguments_hash_text(text).ok(), Some(h));
    }
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    let _ = canonical::arguments_hash_of_value(&value);
    let _ = canonical::canonical_arguments_text(&value);
    if let Some(token) = value.get("approval_token").and_then(|t| t.as_str()) {
        let _ = hera_connector_contract::approval::inspect(token);
    }
    let _ = crate::results::screen(&value);
}

/// A `tool_catalog` payload: the canonical parser, the catalog hash, the typed catalog with its
/// structural checks, and safety resolution of every action. Properties: no panic; the hash
/// of the text equals the hash of its parsed form.
pub fn catalog_text(data: &[u8]) {
    use hera_connector_contract::canonical;
    use hera_connector_contract::catalog::{Catalog, resolve_safety};
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(json) = canonical::parse(text) else {
        return;
    };
    let hash = canonical::catalog_hash_json(&json);
    assert_eq!(canonical::catalog_hash_text(text).ok(), Some(hash));
    let Ok(catalog) = serde_json::from_str::<Catalog>(text) else {
        return;
    };
    let _ = catalog.check_structure();
    let empty = serde_json::Map::new();
    for tool in &catalog.tools {
        let _ = resolve_safety(tool, None, &empty);
        for action in &tool.actions {
            let _ = resolve_safety(tool, Some(&action.name), &empty);
        }
    }
}

/// A heartbeat file's bytes: bounded parsing and the instance built from it. Properties: no
/// panic; anything over the size bound is refused unparsed.
pub fn heartbeat_bytes(data: &[u8]) {
    if let Ok(hb) = crate::discovery::parse_heartbeat(data) {
        assert!(data.len() as u64 <= crate::discovery::MAX_HEARTBEAT_BYTES);
        let i = crate::discovery::Instance::from_heartbeat(hb, "fuzz.json".into());
        let _ = (
            i.project_id(),
            i.is_active(),
            i.is_stale(0),
            i.domain_epoch(),
        );
    }
}

/// A `hera-result://` handle. Properties: no panic; a handle that parses prints to a handle
/// that parses to the same value, and never names a path outside hex ids.
pub fn result_uri(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(uri) = crate::results::ResultUri::parse(text) {
        let printed = uri.to_string();
        let again = crate::results::ResultUri::parse(&printed).expect("a printed handle parses");
        assert_eq!(again, uri);
        assert!(
            uri.project
                .as_hex()
                .chars()
                .chain(uri.id.as_hex().chars())
                .all(|c| c.is_ascii_hexdigit())
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_points_accept_their_seeds() {
        let c = stdio_frames(
            b"not json\n{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"f\",\"version\":\"1\"}}}\n[1]\n",
        );
        assert_eq!(
            c,
            FrameCounts {
                delivered: 1,
                answered: 2
            }
        );
        tool_call_arguments(br#"{"action":"create","name":"Cube","approval_token":"eyJ.x"}"#);
        catalog_text(br#"{"schema_version":"x","tools":[]}"#);
        heartbeat_bytes(br#"{"state":"ready","port":8090,"timestamp":1}"#);
        result_uri(format!("hera-result://{}/{}", "ab".repeat(32), "cd".repeat(16)).as_bytes());
    }
}
