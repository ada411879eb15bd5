//! Byte accounting for one JSON-RPC response line (already normalized).
//!
//! Four figures, because clients hand different parts to the model:
//! - `frame_bytes`: the whole line as written to stdout, without its `\n`;
//! - `result_bytes`: the `result` object alone, the unit the anchor and the peers measure
//!   (`{"tools":[…]}` for `tools/list`, the whole `CallToolResult` for a call);
//! - `content_text_bytes`: the text blocks of a tool result, what a text-only client shows;
//! - `structured_content_bytes`: `structuredContent`, what a structured client may show instead.
//!
//! - `model_bytes` / `model_o200k_tokens`: the result as a client shows it to the model, counted
//!   once (see [`model_text`]);
//! - `o200k_tokens`: the `result` object in o200k_base tokens (`tiktoken-rs`, offline).
//!
//! Sub-parts are measured by re-serializing the parsed value compactly. That is exact only if
//! re-serializing the whole line gives back its length, which every measurement checks first;
//! a mismatch fails the run rather than reporting a guess.

use hera_connector_contract::canonical::sha256_prefixed;
use serde_json::{Map, Value, json};

/// ⌈bytes / 4⌉: a rough token estimate, not a tokenizer count. Real tokenizers give
/// 4.1-4.5 bytes per token on tool JSON, so this slightly overstates.
pub fn tokens_estimate(bytes: u64) -> u64 {
    bytes.div_ceil(4)
}

/// o200k_base tokens of `text` (special-token text counted as ordinary text).
pub fn o200k(text: &str) -> u64 {
    static BPE: std::sync::OnceLock<tiktoken_rs::CoreBPE> = std::sync::OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().expect("the bundled o200k_base encoding loads"))
        .encode_ordinary(text)
        .len() as u64
}

/// A tool result as the client hands it to the model, each payload once: the compact JSON of
/// `structuredContent` when the result has one (Claude Code, Codex and Copilot CLI forward that
/// and drop the text), else the text blocks joined by newlines (Claude Desktop, Cursor, VS Code
/// and SDK-built agents that read `content`); resource links add their URI. The two are the
/// same JSON for this server, so either choice counts the same bytes.
pub fn model_text(result: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    match result.get("structuredContent") {
        Some(sc) if !sc.is_null() => parts.push(serde_json::to_string(sc).expect("JSON")),
        _ => parts.extend(
            result["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("text").and_then(Value::as_str))
                .map(str::to_string),
        ),
    }
    parts.extend(
        result["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["type"] == "resource_link")
            .filter_map(|c| c["uri"].as_str())
            .map(str::to_string),
    );
    parts.join("\n")
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
    figures.insert(
        "o200k_tokens".into(),
        json!(o200k(&serde_json::to_string(result).expect("JSON"))),
    );
    figures.insert("digest".into(), json!(sha256_prefixed(line.as_bytes())));
    if result.get("content").is_some() || result.get("structuredContent").is_some() {
        let shown = model_text(result);
        figures.insert("model_bytes".into(), json!(shown.len()));
        figures.insert("model_o200k_tokens".into(), json!(o200k(&shown)));
    }
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
    fn the_model_sees_each_result_once() {
        let r = json!({"content":[{"type":"text","text":"{\"success\":true}"}],"structuredContent":{"success":true}});
        assert_eq!(model_text(&r), r#"{"success":true}"#);
        let text_only = json!({"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]});
        assert_eq!(model_text(&text_only), "a\nb");
        let linked = json!({"content":[{"type":"text","text":"x"},{"type":"resource_link","uri":"hera-result://r","name":"n"}],"structuredContent":{"a":1}});
        assert_eq!(model_text(&linked), "{\"a\":1}\nhera-result://r");
    }

    #[test]
    fn o200k_counts_real_tokens() {
        assert_eq!(o200k(""), 0);
        assert_eq!(o200k("hello"), 1);
        // JSON punctuation and keys cost tokens of their own: more than 1 per 8 bytes here.
        let t = o200k(r#"{"name":"manage_gameobject","action":"create"}"#);
        assert!((6..=20).contains(&t), "{t}");
    }

    #[test]
    fn a_line_that_does_not_round_trip_is_refused() {
        let err = response(r#"{"jsonrpc": "2.0", "id": 1, "result": {}}"#)
            .err()
            .unwrap();
        assert!(err.contains("changes its length"), "{err}");
    }
}
