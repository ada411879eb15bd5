//! What a search returns and what it may look at: [`SearchHit`] and [`SearchFilter`].

use hera_connector_contract::catalog::{RiskClass, SafetyDecl, ToolEntry};
use serde::Serialize;
use serde_json::{Map, Value};

/// One ranked result: a tool and, when one matched, the action to call.
///
/// `action` is `None` when the tool's default handler is the answer (tools without actions, or
/// tools callable without one such as `run_tests`, `menu` and `profiler`, see
/// [`ToolEntry::callable_without_action`]), or when the query matched the tool but none of its actions;
/// `actions` then lists the choices.
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
    /// The safety of this call itself (the action's own, not the tool's worst case).
    pub safety: ActionSafety,
    /// Share of the query's meaningful words this hit matched (0..1; a synonym or typo counts
    /// at its weight). The basis of "no action does that" answers.
    pub coverage: f32,
}

/// The safety a search hit shows: the call's own risk class, only the flags that differ from
/// that class's defaults, and `worst_case` when some arguments (a tool-level rule) make the call
/// riskier. Reading the console is `read_only` with `worst_case: destructive` (its `clear`
/// argument), not `destructive`: the label answers "what does *this* do", and the caveat says
/// when it does more.
///
/// A tool-level hit (no action chosen, the tool not callable without one) shows the tool's own
/// safety with `worst_case` over every action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ActionSafety {
    pub risk_class: RiskClass,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_confirmation: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub may_reload_domain: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_play_mode: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reversible: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_cancellation: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_case: Option<RiskClass>,
}

impl ActionSafety {
    /// The safety of calling `tool` with `action` (`None`: the tool itself), see the type.
    pub fn of(tool: &ToolEntry, action: Option<&str>) -> ActionSafety {
        let base = match action.and_then(|a| tool.action(a)) {
            Some(a) => &a.safety,
            None => &tool.safety,
        };
        let worst = match action {
            Some(_) => CompactSafety::of(tool, action).risk_class,
            None if tool.actions.is_empty() => CompactSafety::of(tool, None).risk_class,
            // The action-less call of a tool that also has actions: its own rules only.
            None if tool.callable_without_action() => {
                let mut w = base.risk_class;
                for r in tool
                    .safety
                    .rules
                    .iter()
                    .filter(|r| r.pinned_action().is_none())
                {
                    if r.safety.risk_class.is_worse_than(w) {
                        w = r.safety.risk_class;
                    }
                }
                w
            }
            None => CompactSafety::of(tool, None).risk_class,
        };
        let default = SafetyDecl {
            risk: Some(base.risk_class),
            ..Default::default()
        }
        .normalize(None);
        let differs = |mine: bool, theirs: bool| (mine != theirs).then_some(mine);
        ActionSafety {
            risk_class: base.risk_class,
            destructive: differs(base.destructive, default.destructive),
            idempotent: differs(base.idempotent, default.idempotent),
            requires_confirmation: differs(
                base.requires_confirmation,
                default.requires_confirmation,
            ),
            may_reload_domain: differs(base.may_reload_domain, default.may_reload_domain),
            requires_play_mode: differs(base.requires_play_mode, default.requires_play_mode),
            reversible: differs(base.reversible, default.reversible),
            supports_cancellation: differs(
                base.supports_cancellation,
                default.supports_cancellation,
            ),
            worst_case: worst.is_worse_than(base.risk_class).then_some(worst),
        }
    }

    /// The JSON object `tool_search` hits and the describe overview show.
    pub fn to_json(self) -> Value {
        serde_json::to_value(self).expect("action safety serializes")
    }
}

/// The compact safety convention, the one `tool_search` hits and `tool_describe` (its
/// `tool_safety` and the action overview) both use: the worst case over every safety the call
/// can resolve to, as five flags and a risk class.
///
/// - `risk_class` is always a concrete class, the worst one reachable, so clients that switch on
///   its values get a real class (the Go anchor wrote `"conditional"` there and threw the class
///   away).
/// - `conditional: true` (omitted when false) says the answer depends on the action or the
///   arguments: a tool-level rule applies, or the reachable safeties differ. `tool_describe`
///   with an action shows the rules.
///
/// Folding includes the action's own safety, not only the tool's rules (anchor weakness §10.16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CompactSafety {
    pub risk_class: RiskClass,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub requires_confirmation: bool,
    /// The safety depends on the action or the arguments; `tool_describe` has details.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub conditional: bool,
}

impl CompactSafety {
    /// The worst case of calling `tool` with `action` (`None`: any call of it), folded over
    /// [`ToolEntry::reachable_safeties`].
    pub fn of(tool: &ToolEntry, action: Option<&str>) -> CompactSafety {
        let f = tool.reachable_safeties(action).fold();
        CompactSafety {
            risk_class: f.risk_class,
            read_only: f.read_only,
            destructive: f.destructive,
            idempotent: f.idempotent,
            requires_confirmation: f.requires_confirmation,
            conditional: f.conditional,
        }
    }

    /// The JSON object both tools return (`conditional` only when true).
    pub fn to_json(self) -> Value {
        serde_json::to_value(self).expect("compact safety serializes")
    }
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
        m.insert("safety".into(), self.safety.to_json());
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
            Some(p) => profiles.iter().any(|x| x == p), // (a hit carries profiles, not its entry)
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
