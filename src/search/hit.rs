//! What a search returns and what it may look at: [`SearchHit`] and [`SearchFilter`].

use hera_connector_contract::catalog::{RiskClass, Safety, ToolEntry};
use serde::Serialize;
use serde_json::{Map, Value};

/// One ranked result: a tool and, when one matched, the action to call.
///
/// `action` is `None` when the tool's default handler is the answer (tools without actions, or
/// `run_tests`/`menu`-style tools callable without one), or when the query matched the tool but
/// none of its actions; `actions` then lists the choices.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    pub tool: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Relevance; only comparable within one search.
    pub score: f64,
    /// The query words (as typed, lower-cased) that matched this hit, in query order.
    pub matched_terms: Vec<String>,
    /// The first sentence of the action's (or tool's) description.
    pub summary: String,
    /// The tool's action names, only when `action` is `None` and the tool has actions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    pub safety: CompactSafety,
}

/// The worst case of a call to this hit, folded over the tool-level safety rules that can apply
/// to it (anchor weakness §10.16: the action's own safety is included, not only the tool's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CompactSafety {
    pub risk_class: RiskClass,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub requires_confirmation: bool,
    /// Some arguments change the safety (a tool-level rule exists); `tool_describe` has details.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub conditional: bool,
}

impl CompactSafety {
    /// Safety of calling `tool` with `action` (or without one): that action's safety, or the
    /// tool's, folded with every tool-level rule that is not pinned to a different action.
    pub(crate) fn of(tool: &ToolEntry, action: Option<&str>) -> CompactSafety {
        let base: &Safety = action
            .and_then(|a| tool.action(a))
            .map(|a| &a.safety)
            .unwrap_or(&tool.safety);
        let mut s = CompactSafety {
            risk_class: base.risk_class,
            read_only: base.read_only,
            destructive: base.destructive,
            idempotent: base.idempotent,
            requires_confirmation: base.requires_confirmation,
            conditional: false,
        };
        for rule in &tool.safety.rules {
            let pinned = rule.when.get("action").and_then(|c| c.get("const"));
            let applies = match (pinned, action) {
                (None, _) => true,
                (Some(v), Some(a)) => v.as_str() == Some(a),
                (Some(_), None) => false,
            };
            if !applies {
                continue;
            }
            let r = &rule.safety;
            s.conditional = true;
            s.read_only &= r.read_only;
            s.idempotent &= r.idempotent;
            s.destructive |= r.destructive;
            s.requires_confirmation |= r.requires_confirmation;
            if worse(r.risk_class, s.risk_class) {
                s.risk_class = r.risk_class;
            }
        }
        s
    }
}

/// Whether `a` is a more severe risk than `b`, for folding rules into a worst case.
fn worse(a: RiskClass, b: RiskClass) -> bool {
    fn rank(r: RiskClass) -> u8 {
        match r {
            RiskClass::ReadOnly => 0,
            RiskClass::Write => 1,
            RiskClass::Destructive => 2,
            RiskClass::PackageChange => 3,
            RiskClass::ExternalProcess => 4,
            RiskClass::Unspecified => 5,
            RiskClass::ArbitraryCode => 6,
        }
    }
    rank(a) > rank(b)
}

impl SearchHit {
    /// The hit as `tool_search` returns it: identity, summary and compact safety, never schemas
    /// or scores. `{"name", "action"?, "summary", "actions"?, "safety"}`.
    pub fn to_compact_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::String(self.tool.clone()));
        if let Some(a) = &self.action {
            m.insert("action".into(), Value::String(a.clone()));
        }
        m.insert("summary".into(), Value::String(self.summary.clone()));
        if !self.actions.is_empty() {
            m.insert(
                "actions".into(),
                Value::Array(self.actions.iter().cloned().map(Value::String).collect()),
            );
        }
        m.insert(
            "safety".into(),
            serde_json::to_value(self.safety).expect("compact safety serializes"),
        );
        Value::Object(m)
    }
}

/// Which tools a search may return.
///
/// `profile`: `None`, `""` and `"compact"` mean every tool; any other name keeps the tools whose
/// `profiles` contain it. Tools that run arbitrary code anywhere (tool, action or rule) are left out
/// unless `allow_arbitrary_code` is set, matching what `tool_call` would refuse.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchFilter<'a> {
    pub profile: Option<&'a str>,
    pub allow_arbitrary_code: bool,
}

impl<'a> SearchFilter<'a> {
    /// Every tool, arbitrary-code ones included (for measurement and trusted callers).
    pub fn everything() -> SearchFilter<'static> {
        SearchFilter {
            profile: None,
            allow_arbitrary_code: true,
        }
    }

    /// Whether the filter looks at profiles at all.
    pub(crate) fn restricts_profile(&self) -> bool {
        !matches!(self.profile, None | Some("") | Some("compact"))
    }

    pub(crate) fn admits(&self, profiles: &[String], arbitrary_code: bool) -> bool {
        if arbitrary_code && !self.allow_arbitrary_code {
            return false;
        }
        match self.profile {
            None | Some("") | Some("compact") => true,
            Some(p) => profiles.iter().any(|x| x == p),
        }
    }
}

/// The first sentence of `text` (up to 160 characters), for a one-line summary.
pub(crate) fn first_sentence(text: &str) -> String {
    const MAX: usize = 160;
    let text = text.trim();
    let mut end = text.len();
    for (i, c) in text.char_indices() {
        if c == '\n' {
            end = i;
            break;
        }
        if c == '.' {
            let next = text[i + 1..].chars().next();
            if next.is_none_or(char::is_whitespace) {
                end = i + 1;
                break;
            }
        }
    }
    let s = &text[..end];
    if s.chars().count() <= MAX {
        return s.to_string();
    }
    let cut: String = s.chars().take(MAX - 1).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > MAX / 2 => &cut[..i],
        _ => &cut[..],
    };
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_the_first_sentence() {
        assert_eq!(first_sentence("Bakes lights. Then polls."), "Bakes lights.");
        assert_eq!(
            first_sentence("Uses Time.fixedDeltaTime. Next"),
            "Uses Time.fixedDeltaTime."
        );
        assert_eq!(first_sentence("No period"), "No period");
        let long = "word ".repeat(60);
        let s = first_sentence(&long);
        assert!(s.chars().count() <= 160 && s.ends_with('…'));
    }

    #[test]
    fn filter_profiles_and_arbitrary_code() {
        let p = vec!["core".to_string(), "full".to_string()];
        let f = SearchFilter::default();
        assert!(f.admits(&p, false));
        assert!(!f.admits(&p, true));
        assert!(SearchFilter::everything().admits(&p, true));
        let scene = SearchFilter {
            profile: Some("scene"),
            allow_arbitrary_code: false,
        };
        assert!(!scene.admits(&p, false));
        let compact = SearchFilter {
            profile: Some("compact"),
            allow_arbitrary_code: false,
        };
        assert!(compact.admits(&p, false));
    }
}
