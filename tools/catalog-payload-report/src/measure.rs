//! Byte accounting for one JSON-RPC response line (already normalized).
//!
//! Four figures, because clients hand different parts to the model:
//! - `frame_bytes`: the whole line as written to stdout, without its `\n`;
//! - `result_bytes`: the `result` object alone, the unit the anchor and the peers measure
//!   (`{"tools":[…]}` for `tools/list`, the whole `CallToolResult` for a call);
//! - `content_text_bytes`: the text blocks of a tool result, what a text-only client shows;
//! - `structured_content_bytes`: `structuredContent`, what a structured client may show instead.
//!
//! Sub-parts are measured by re-serializing the parsed value compactly. That is exact only if
//! re-serializing the whole line gives back its length, which every measurement checks first;
//! a mismatch fails the run rather than reporting a guess.

use hera_connector_contract::canonical::sha256_prefixed;
use serde_json::{Map, Value, json};

/// ⌈bytes / 4⌉: a rough token estimate, not a tokenizer count. Real tokenizers give
/// 4.1-4.5 bytes per token on tool JSON (peers.md §2), so this slightly overstates.
pub fn tokens_estimate(bytes: u64) -> u64 {
    bytes.div_ceil(4)
}

pub fn compact_len(v: &Value) -> u64 {
    serde_json::to_string(v).expect("a Value serializes").len() as u64
}

/// A parsed response and its figures.
pub struct Measured {
    pub value: Value,
    pub figures: Map<String, Value>,
}

impl Measured {
    pub fn result(&self) -> &Value {
        &self.value["result"]
    }
    pub fn figure(&self, key: &str) -> u64 {
        self.figures.get(key).and_then(Value::as_u64).unwrap_or(0)
    }
    pub fn into_json(self) -> Value {
        Value::Object(self.figures)
    }
}

/// Parses and measures a normalized response line.
pub fn response(line: &str) -> Result<Measured, String> {
    let value: Value = serde_json::from_str(line)
        .map_err(|e| format!("a response line is not JSON after normalization: {e}"))?;
    let reserialized = compact_len(&value);
    if reserialized != line.len() as u64 {
        return Err(format!(
            "re-serializing a response changes its length ({} → {reserialized} bytes), so its \
             parts cannot be measured exactly; the server's JSON differs from compact serde_json \
             output (first 200 chars: {})",
            line.len(),
            line.chars().take(200).collect::<String>()
        ));
    }
    let result = &value["result"];
    let result_bytes = compact_len(result);
    let mut figures = Map::new();
    figures.insert("frame_bytes".into(), json!(line.len()));
    figures.insert("result_bytes".into(), json!(result_bytes));
    figures.insert(
        "tokens_estimate".into(),
        json!(tokens_estimate(result_bytes)),
    );
    figures.insert("digest".into(), json!(sha256_prefixed(line.as_bytes())));
    if let Some(content) = result.get("content").and_then(Value::as_array) {
        let text: u64 = content
            .iter()
            .filter_map(|c| c.get("text").and_then(Value::as_str))
            .map(|t| t.len() as u64)
            .sum();
        figures.insert("content_text_bytes".into(), json!(text));
    }
    if let Some(sc) = result.get("structuredContent") {
        figures.insert("structured_content_bytes".into(), json!(compact_len(sc)));
    }
    Ok(Measured { value, figures })
}

/// Adds up the same figure over several measurements (pages, flow steps).
pub fn sum(items: &[&Map<String, Value>], key: &str) -> u64 {
    items
        .iter()
        .filter_map(|m| m.get(key).and_then(Value::as_u64))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_rounds_up() {
        assert_eq!(tokens_estimate(0), 0);
        assert_eq!(tokens_estimate(1), 1);
        assert_eq!(tokens_estimate(4), 1);
        assert_eq!(tokens_estimate(2505), 627);
    }

    #[test]
    fn parts_of_a_call_result() {
        let line = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"success\":true}"}],"structuredContent":{"success":true},"isError":false}}"#;
        let m = response(line).unwrap();
        assert_eq!(m.figure("frame_bytes"), line.len() as u64);
        let result = r#"{"content":[{"type":"text","text":"{\"success\":true}"}],"structuredContent":{"success":true},"isError":false}"#;
        assert_eq!(m.figure("result_bytes"), result.len() as u64);
        assert_eq!(
            m.figure("content_text_bytes"),
            r#"{"success":true}"#.len() as u64
        );
        assert_eq!(m.figure("structured_content_bytes"), 16);
    }

    #[test]
    fn a_line_that_does_not_round_trip_is_refused() {
        let err = response(r#"{"jsonrpc": "2.0", "id": 1, "result": {}}"#)
            .err()
            .unwrap();
        assert!(err.contains("changes its length"), "{err}");
    }
}
