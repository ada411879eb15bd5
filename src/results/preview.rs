//! A bounded look at a result that did not fit inline.
//!
//! Why: a bare link makes the agent pay a second round trip just to learn what came back. The
//! preview answers the usual first questions (how many, what keys, what does an item look like,
//! where are the big arrays so I can page them) in at most [`PREVIEW_MAX_BYTES`] of JSON.
//!
//! The budget follows the inline cap ([`preview_budget`]): a user who sets a small cap asked for
//! small answers, and a preview larger than the cap would defeat it (a 32-byte cap once gave a
//! 2.3 KB spilled answer for a 460-byte payload). At the default 16 KiB cap the budget is the full
//! [`PREVIEW_MAX_BYTES`]; it never drops below [`PREVIEW_MIN_BYTES`], which always holds the type
//! and the counts, so even a tiny preview says what came back.
//!
//! The preview describes the envelope's `data` (where a tool's output lives). Array pointers are
//! absolute (`/data/items`), so they can be used as-is in `?items=<pointer>` reads.

use serde_json::{Map, Value, json};

/// Upper bound of the serialized preview, whatever the cap.
pub const PREVIEW_MAX_BYTES: usize = 2048;
/// Lower bound of the preview budget: room for `data_type` and `key_count`/`length` (at most
/// ~60 bytes) and usually the largest array's pointer.
pub const PREVIEW_MIN_BYTES: usize = 128;
/// The preview may use this fraction (1/N) of the inline cap: 2 KiB at the default 16 KiB.
pub const PREVIEW_CAP_DIVISOR: usize = 8;
/// How many items of the largest array are shown.
pub const SAMPLE_ITEMS: usize = 3;

const MAX_KEYS: usize = 16;
const MAX_ARRAYS: usize = 5;
const ARRAY_SEARCH_DEPTH: usize = 3;
const ARRAY_SEARCH_NODES: usize = 2_000;
const MAX_POINTER: usize = 200;
const TEXT_CHARS: usize = 200;
const SAMPLE_STRING_CHARS: usize = 80;
const SAMPLE_KEYS: usize = 8;

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// First `n` characters, with `…` when something was cut.
pub(crate) fn clip_chars(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}…", &s[..cut]),
    }
}

fn escape_segment(seg: &str) -> String {
    seg.replace('~', "~0").replace('/', "~1")
}

/// Arrays reachable from `root` through object keys (and the root itself), largest first.
fn arrays(root: &Value, root_pointer: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut queue = std::collections::VecDeque::from([(root_pointer.to_string(), root, 0usize)]);
    let mut visited = 0;
    while let Some((pointer, v, depth)) = queue.pop_front() {
        visited += 1;
        if visited > ARRAY_SEARCH_NODES {
            break;
        }
        match v {
            Value::Array(a) => found.push((pointer, a.len())),
            Value::Object(o) if depth < ARRAY_SEARCH_DEPTH => {
                for (k, child) in o {
                    let p = format!("{pointer}/{}", escape_segment(k));
                    if p.len() <= MAX_POINTER && (child.is_array() || child.is_object()) {
                        queue.push_back((p, child, depth + 1));
                    }
                }
            }
            _ => {}
        }
    }
    // Largest first; ties keep document (breadth-first) order.
    found.sort_by_key(|a| std::cmp::Reverse(a.1));
    found.truncate(MAX_ARRAYS);
    found
}

/// A small stand-in for a value: strings clipped, containers cut to a few entries, and
/// anything deeper than `depth` replaced by a count.
fn shrink(v: &Value, depth: usize) -> Value {
    match v {
        Value::String(s) => Value::String(clip_chars(s, SAMPLE_STRING_CHARS)),
        Value::Array(a) if depth == 0 => Value::String(format!("[{} items]", a.len())),
        Value::Object(o) if depth == 0 => Value::String(format!("{{{} keys}}", o.len())),
        Value::Array(a) => {
            let mut out: Vec<Value> = a
                .iter()
                .take(SAMPLE_ITEMS)
                .map(|x| shrink(x, depth - 1))
                .collect();
            if a.len() > SAMPLE_ITEMS {
                out.push(Value::String(format!("…+{} more", a.len() - SAMPLE_ITEMS)));
            }
            Value::Array(out)
        }
        Value::Object(o) => {
            let mut out: Map<String, Value> = o
                .iter()
                .take(SAMPLE_KEYS)
                .map(|(k, x)| (clip_chars(k, 40), shrink(x, depth - 1)))
                .collect();
            if o.len() > SAMPLE_KEYS {
                out.insert(
                    "…".into(),
                    Value::String(format!("+{} more keys", o.len() - SAMPLE_KEYS)),
                );
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn size(v: &Value) -> usize {
    serde_json::to_vec(v).map(|b| b.len()).unwrap_or(usize::MAX)
}

/// The first few items of the array at `pointer`, shrunk until the sample fits `budget`.
fn sample(array: &[Value], pointer: &str, budget: usize) -> Option<Value> {
    for depth in [2, 1, 0] {
        for n in (1..=SAMPLE_ITEMS.min(array.len())).rev() {
            let items: Vec<Value> = array.iter().take(n).map(|x| shrink(x, depth)).collect();
            let s = json!({"pointer": pointer, "items": items});
            if size(&s) <= budget {
                return Some(s);
            }
        }
    }
    None
}

/// How many bytes the preview of a result may use under an inline cap of `cap_bytes`:
/// `cap / 8`, at least [`PREVIEW_MIN_BYTES`] and at most [`PREVIEW_MAX_BYTES`].
pub fn preview_budget(cap_bytes: usize) -> usize {
    (cap_bytes / PREVIEW_CAP_DIVISOR).clamp(PREVIEW_MIN_BYTES, PREVIEW_MAX_BYTES)
}

/// The preview object at the largest budget, [`PREVIEW_MAX_BYTES`] (schema: `result.preview` in
/// [`super::envelope_output_schema`]).
pub fn preview(envelope: &Value) -> Value {
    preview_within(envelope, PREVIEW_MAX_BYTES)
}

/// The preview object in at most `budget` bytes of JSON (see [`preview_budget`]); a budget below
/// [`PREVIEW_MIN_BYTES`] or above [`PREVIEW_MAX_BYTES`] is clamped to that range.
pub fn preview_within(envelope: &Value, budget: usize) -> Value {
    let budget = budget.clamp(PREVIEW_MIN_BYTES, PREVIEW_MAX_BYTES);
    let Some(data) = envelope.get("data") else {
        return json!({"data_type": "none"});
    };
    let mut out = Map::new();
    out.insert("data_type".into(), type_name(data).into());
    match data {
        Value::Object(o) => {
            out.insert("key_count".into(), o.len().into());
            let keys: Vec<Value> = o
                .keys()
                .take(MAX_KEYS)
                .map(|k| Value::String(clip_chars(k, 40)))
                .collect();
            out.insert("keys".into(), keys.into());
        }
        Value::Array(a) => {
            out.insert("length".into(), a.len().into());
        }
        Value::String(s) => {
            out.insert("length".into(), s.chars().count().into());
            out.insert("text".into(), clip_chars(s, TEXT_CHARS).into());
        }
        _ => {}
    }
    let found = arrays(data, "/data");
    if !found.is_empty() {
        let list: Vec<Value> = found
            .iter()
            .map(|(p, n)| json!({"pointer": p, "length": n}))
            .collect();
        out.insert("arrays".into(), list.into());
    }
    if let Some((pointer, _)) = found.first().filter(|(_, n)| *n > 0) {
        let room = budget.saturating_sub(size(&Value::Object(out.clone())) + 16);
        if let Some(Value::Array(items)) = envelope.pointer(pointer)
            && let Some(s) = sample(items, pointer, room)
        {
            out.insert("sample".into(), s);
        }
    }
    enforce_budget(out, budget)
}

/// Keys and pointers can be long in bytes (multi-byte names), and a small budget holds little:
/// drop detail until the preview fits, least useful first. `data_type` and the counts stay.
fn enforce_budget(mut out: Map<String, Value>, budget: usize) -> Value {
    // Each pass removes something, and there are at most MAX_KEYS + MAX_ARRAYS + a few
    // removable things, so this ends; the bound only makes that visible.
    for _ in 0..(MAX_KEYS + MAX_ARRAYS + TEXT_CHARS + 8) {
        if size(&Value::Object(out.clone())) <= budget {
            break;
        }
        if out.remove("sample").is_some() {
            continue;
        }
        // Keys go before array pointers: a pointer is what a `?items=` read needs.
        if shorten(&mut out, "keys") || shorten(&mut out, "arrays") {
            continue;
        }
        // Only `text` can be left (at most TEXT_CHARS characters): shorten it, then drop it.
        match out.get("text").and_then(Value::as_str) {
            Some(t) if t.chars().count() > 16 => {
                let half = t.chars().count() / 2;
                let clipped = clip_chars(t.trim_end_matches('…'), half);
                out.insert("text".into(), clipped.into());
            }
            Some(_) => {
                out.remove("text");
            }
            None => break,
        }
    }
    Value::Object(out)
}

/// Drops the last entry of the list at `key`, and the list itself once it is empty (an empty
/// `keys` next to a non-zero `key_count` would read as "no keys").
fn shorten(out: &mut Map<String, Value>, key: &str) -> bool {
    let Some(list) = out.get_mut(key).and_then(Value::as_array_mut) else {
        return false;
    };
    list.pop();
    if list.is_empty() {
        out.remove(key);
    }
    true
}

/// One line for listings: what the result holds, e.g. `object, 3 keys; /data/items: 5000 items`.
pub fn summary_line(preview: &Value) -> String {
    let ty = preview["data_type"].as_str().unwrap_or("none");
    let mut s = match ty {
        "none" => "no data".to_string(),
        "object" => format!("object, {} keys", preview["key_count"]),
        "array" => format!("array, {} items", preview["length"]),
        "string" => format!("string, {} characters", preview["length"]),
        other => other.to_string(),
    };
    if let Some(Value::Array(arrays)) = preview.get("arrays") {
        for a in arrays.iter().take(2) {
            if a["pointer"] != "/data" {
                s.push_str(&format!(
                    "; {}: {} items",
                    a["pointer"].as_str().unwrap_or(""),
                    a["length"]
                ));
            }
        }
    }
    clip_chars(&s, 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big_items(n: usize) -> Vec<Value> {
        (0..n)
            .map(|i| json!({"name": format!("GameObject {i}"), "id": i, "path": "x".repeat(500),
                "children": (0..20).collect::<Vec<_>>(), "components": {"Transform": {"position": [i, 0, 0]}}}))
            .collect()
    }

    #[test]
    fn object_with_arrays() {
        let env = json!({"success": true, "message": "ok", "data": {
            "scene": "Main", "items": big_items(500), "tags": ["a", "b"], "nested": {"deep": [1, 2, 3]}}});
        let p = preview(&env);
        assert_eq!(p["data_type"], "object");
        assert_eq!(p["key_count"], 4);
        assert_eq!(
            p["arrays"][0],
            json!({"pointer": "/data/items", "length": 500})
        );
        assert_eq!(
            p["arrays"][1],
            json!({"pointer": "/data/nested/deep", "length": 3})
        );
        assert_eq!(p["sample"]["pointer"], "/data/items");
        let items = p["sample"]["items"].as_array().unwrap();
        assert!(!items.is_empty() && items.len() <= SAMPLE_ITEMS);
        assert_eq!(items[0]["name"], "GameObject 0");
        assert!(size(&p) <= PREVIEW_MAX_BYTES, "{}", size(&p));
        assert_eq!(
            summary_line(&p),
            "object, 4 keys; /data/items: 500 items; /data/nested/deep: 3 items"
        );
    }

    #[test]
    fn root_array_string_and_none() {
        let p = preview(&json!({"success": true, "message": "", "data": big_items(10)}));
        assert_eq!(p["data_type"], "array");
        assert_eq!(p["length"], 10);
        assert_eq!(p["sample"]["pointer"], "/data");
        assert_eq!(summary_line(&p), "array, 10 items");

        let text = "é".repeat(5000);
        let p = preview(&json!({"success": true, "message": "", "data": text}));
        assert_eq!(p["length"], 5000);
        assert_eq!(p["text"].as_str().unwrap().chars().count(), TEXT_CHARS + 1);

        let p = preview(&json!({"success": true, "message": "x".repeat(100_000)}));
        assert_eq!(p, json!({"data_type": "none"}));
    }

    #[test]
    fn always_bounded() {
        // Wide keys and huge items still give a bounded preview.
        let mut wide = Map::new();
        for i in 0..1000 {
            wide.insert(format!("{}{i}", "k".repeat(300)), json!(vec![i; 50]));
        }
        let env = json!({"success": true, "message": "", "data": wide});
        assert!(size(&preview(&env)) <= PREVIEW_MAX_BYTES);
        let mut wide = Map::new();
        for i in 0..40 {
            wide.insert(format!("{}{i}", "鍵".repeat(60)), json!([i]));
        }
        let env = json!({"success": true, "message": "", "data": wide});
        let p = preview(&env);
        assert!(size(&p) <= PREVIEW_MAX_BYTES, "{}", size(&p));
        assert!(!p["keys"].as_array().unwrap().is_empty());
        let env = json!({"success": true, "message": "", "data": [{"a": "z".repeat(100_000)}]});
        let p = preview(&env);
        assert!(size(&p) <= PREVIEW_MAX_BYTES);
        assert_eq!(
            p["sample"]["items"][0]["a"]
                .as_str()
                .unwrap()
                .chars()
                .count(),
            81
        );
    }

    #[test]
    fn a_small_budget_keeps_the_type_counts_and_pointers_first() {
        let env = json!({"success": true, "message": "", "data": {
            "scene": "Main", "items": big_items(50), "tags": ["a", "b"], "more": 1, "other": 2}});
        for budget in [0, PREVIEW_MIN_BYTES, 200, 400, 1000] {
            let p = preview_within(&env, budget);
            assert!(size(&p) <= budget.max(PREVIEW_MIN_BYTES), "{budget}: {p}");
            assert_eq!(p["data_type"], "object");
            assert_eq!(p["key_count"], 5);
            // Never an empty list next to a non-zero count.
            assert!(
                p.get("keys")
                    .is_none_or(|k| !k.as_array().unwrap().is_empty())
            );
            assert!(
                p.get("arrays")
                    .is_none_or(|k| !k.as_array().unwrap().is_empty())
            );
        }
        // The largest array's pointer outlives the key names.
        let p = preview_within(&env, 200);
        assert_eq!(p["arrays"][0]["pointer"], "/data/items", "{p}");
        // Text is shortened before it is dropped.
        let p = preview_within(&json!({"data": "word ".repeat(100)}), PREVIEW_MIN_BYTES);
        assert_eq!(p["length"], 500);
        assert!(!p["text"].as_str().unwrap().is_empty(), "{p}");
        assert!(size(&p) <= PREVIEW_MIN_BYTES);
        // The budget follows the cap between the bounds.
        assert_eq!(preview_budget(1), PREVIEW_MIN_BYTES);
        assert_eq!(preview_budget(2048), 256);
        assert_eq!(preview_budget(1 << 30), PREVIEW_MAX_BYTES);
    }
}
