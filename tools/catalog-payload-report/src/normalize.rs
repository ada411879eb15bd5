//! Volatile values, made stable before anything is counted or hashed.
//!
//! A run starts a fresh simulator in a fresh temporary HOME, so a few values differ from run to
//! run although the surface does not. Each is replaced in the raw text (including inside the
//! JSON-escaped copy in a result's `content[].text`) before bytes are counted:
//!
//! | value | why it varies | replaced by | effect on byte counts |
//! |---|---|---|---|
//! | `domain_epoch` | random per Editor domain | 32 `0`s | none (same length) |
//! | `project_id` | hash of the temp project path | `sha256:` + 64 `0`s | none (same length) |
//! | operation ids `op_` + 32 hex | random per call | `op_` + a 32-hex counter in order of first appearance | none (same length) |
//! | numbers inside a `timings` object | wall-clock milliseconds | `0` | each counts as one digit |
//! | the temp HOME path | differs per machine | `$HOME` | paths count as `$HOME/...` (none are expected) |
//! | other 32-hex words (asset GUIDs) | random per asset | a 32-hex counter in order of first appearance | none (same length) |
//! | approval tokens (`"token":"…"`) | random per preflight | as many `x` | none (same length) |
//! | 13-digit numbers (millisecond clocks, e.g. in a screenshot's file name) | wall clock | `1000000000000` | none (same length) |
//!
//! Same-length replacements keep byte counts exact; token counts are of the replaced text, so
//! a random value counts as its stable stand-in does.
//!
//! So every byte count is exact except that timings count one digit each; the committed report
//! states this in `about.normalization`.

use regex::{Captures, Regex};
use std::collections::HashMap;

pub const EPOCH_PLACEHOLDER: &str = "00000000000000000000000000000000";

pub fn project_id_placeholder() -> String {
    format!("sha256:{}", "0".repeat(64))
}

pub struct Normalizer {
    exact: Vec<(String, String)>,
    operation_ids: HashMap<String, String>,
    operation_re: Regex,
    timings_re: Regex,
    number_re: Regex,
    hex_ids: HashMap<String, String>,
    hex_re: Regex,
    token_re: Regex,
    clock_re: Regex,
}

impl Normalizer {
    pub fn new(epoch: &str, project_id: &str, home: &str) -> Normalizer {
        let mut exact = Vec::new();
        if !epoch.is_empty() {
            exact.push((epoch.to_string(), EPOCH_PLACEHOLDER.to_string()));
        }
        if !project_id.is_empty() {
            exact.push((project_id.to_string(), project_id_placeholder()));
        }
        if !home.is_empty() {
            // As written raw and as it appears inside a JSON string (backslashes doubled).
            let escaped = serde_json::to_string(home).expect("a string serializes");
            let escaped = escaped.trim_matches('"').to_string();
            if escaped != home {
                exact.push((escaped, "$HOME".to_string()));
            }
            exact.push((home.to_string(), "$HOME".to_string()));
        }
        Normalizer {
            exact,
            operation_ids: HashMap::new(),
            operation_re: Regex::new(r"op_[0-9a-f]{32}").expect("valid regex"),
            // A `timings` object with no nested object, its key quoted directly or inside an
            // escaped string (`\"timings\":{`). Schemas that describe `timings` nest objects,
            // so they never match.
            timings_re: Regex::new(r#"(\\*"timings\\*":\{)([^{}]*)\}"#).expect("valid regex"),
            number_re: Regex::new(r#"(\\*"[^"\\]*\\*":)-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"#)
                .expect("valid regex"),
            hex_ids: HashMap::new(),
            hex_re: Regex::new(r"\b[0-9a-f]{32}\b").expect("valid regex"),
            token_re: Regex::new(r#"(\\*"token\\*":\\*")([^"\\]+)"#).expect("valid regex"),
            clock_re: Regex::new(r"\b[12][0-9]{12}\b").expect("valid regex"),
        }
    }

    /// The text with every volatile value replaced (see the module table).
    pub fn apply(&mut self, text: &str) -> String {
        let mut out = text.to_string();
        for (from, to) in &self.exact {
            if out.contains(from.as_str()) {
                out = out.replace(from.as_str(), to);
            }
        }
        let ids = &mut self.operation_ids;
        let out = self
            .operation_re
            .replace_all(&out, |c: &Captures| {
                let next = ids.len() + 1;
                ids.entry(c[0].to_string())
                    .or_insert_with(|| format!("op_{next:032x}"))
                    .clone()
            })
            .into_owned();
        let hex_ids = &mut self.hex_ids;
        let out = self
            .hex_re
            .replace_all(&out, |c: &Captures| {
                if c[0].bytes().all(|b| b == b'0') {
                    return c[0].to_string();
                }
                let next = hex_ids.len() + 1;
                hex_ids
                    .entry(c[0].to_string())
                    .or_insert_with(|| format!("{next:032x}"))
                    .clone()
            })
            .into_owned();
        let out = self
            .token_re
            .replace_all(&out, |c: &Captures| {
                format!("{}{}", &c[1], "x".repeat(c[2].len()))
            })
            .into_owned();
        let out = self
            .clock_re
            .replace_all(&out, "1000000000000")
            .into_owned();
        let number_re = &self.number_re;
        self.timings_re
            .replace_all(&out, |c: &Captures| {
                let inner = number_re.replace_all(&c[2], "${1}0");
                format!("{}{}}}", &c[1], inner)
            })
            .into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_become_zero_raw_and_escaped() {
        let mut n = Normalizer::new("", "", "");
        let raw = r#"{"success":true,"timings":{"total_ms":123,"queue_ms":4.5}}"#;
        assert_eq!(
            n.apply(raw),
            r#"{"success":true,"timings":{"total_ms":0,"queue_ms":0}}"#
        );
        let escaped = r#"{"text":"{\"timings\":{\"total_ms\":17}}"}"#;
        assert_eq!(
            n.apply(escaped),
            r#"{"text":"{\"timings\":{\"total_ms\":0}}"}"#
        );
    }

    #[test]
    fn timing_schemas_are_left_alone() {
        let mut n = Normalizer::new("", "", "");
        let schema = r#"{"timings":{"additionalProperties":{"type":"number"},"type":"object"}}"#;
        assert_eq!(n.apply(schema), schema);
    }

    #[test]
    fn operation_ids_map_to_a_stable_counter() {
        let mut n = Normalizer::new("", "", "");
        let a = "op_9c065e5ecac8b6064f2f2220fa610ed3";
        let b = "op_6e116afb0f580970d30e52ee27bd31cc";
        let text = format!("{a} {b} {a}");
        let out = n.apply(&text);
        let one = format!("op_{:032x}", 1);
        let two = format!("op_{:032x}", 2);
        assert_eq!(out, format!("{one} {two} {one}"));
        assert_eq!(out.len(), text.len());
        // Remembered across texts.
        assert_eq!(n.apply(b), two);
    }

    #[test]
    fn guids_tokens_and_clocks_become_stable_at_the_same_length() {
        let mut n = Normalizer::new("", "", "");
        let g = "9c065e5ecac8b6064f2f2220fa610ed3";
        let text = format!(
            r#"{{"guid":"{g}","again":"{g}","token":"hv1.abc-DEF_9","path":"shot-1790000000123.png"}}"#
        );
        let out = n.apply(&text);
        assert_eq!(out.len(), text.len());
        assert_eq!(out.matches(&format!("{:032x}", 1)).count(), 2);
        assert!(out.contains(r#""token":"xxxxxxxxxxxxx""#), "{out}");
        assert!(out.contains("shot-1000000000000.png"), "{out}");
        let escaped = r#"{"text":"{\"token\":\"abc\"}"}"#;
        assert_eq!(n.apply(escaped), r#"{"text":"{\"token\":\"xxx\"}"}"#);
    }

    #[test]
    fn epoch_project_and_home_are_replaced() {
        let epoch = "2433bd7a3dc2d26a5e54e17fa6466fb2";
        let pid = format!("sha256:{}", "ab".repeat(32));
        let mut n = Normalizer::new(epoch, &pid, "/tmp/.tmpXYZ");
        let text =
            format!(r#"{{"domain_epoch":"{epoch}","project_id":"{pid}","p":"/tmp/.tmpXYZ/a"}}"#);
        let out = n.apply(&text);
        assert_eq!(
            out,
            format!(
                r#"{{"domain_epoch":"{EPOCH_PLACEHOLDER}","project_id":"{}","p":"$HOME/a"}}"#,
                project_id_placeholder()
            )
        );
    }
}
