//! The `hera.tool-catalog/1` document (README: Catalog and catalog_hash, Safety): types, safety normalization, rule resolution
//! and the structural checks a client makes before trusting a catalog.
//!
//! Readers are tolerant of unknown fields (a newer Connector may add some); the structural
//! checks in [`Catalog::check_structure`] are where strictness lives.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Profiles a client may expose natively. `advanced`, `custom` and `compact` are special.
pub const NORMAL_PROFILES: [&str; 7] = [
    "core",
    "scene",
    "assets",
    "ui",
    "diagnostics",
    "testing",
    "full",
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    pub schema_version: String,
    pub catalog_hash: String,
    pub domain_epoch: String,
    pub project_id: String,
    pub tools: Vec<ToolEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolEntry {
    pub name: String,
    pub title: String,
    #[serde(default)]
    pub description: String,
    pub source: Source,
    pub contract_mode: String,
    #[serde(default)]
    pub profiles: Vec<String>,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub examples: Vec<Example>,
    pub input_schema: Value,
    pub output_schema: Value,
    #[serde(default)]
    pub actions: Vec<ActionEntry>,
    pub safety: Safety,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    pub kind: String,
    pub assembly: String,
    #[serde(rename = "type")]
    pub type_name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Example {
    pub call: String,
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionEntry {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub input_schema: Value,
    pub output_schema: Value,
    pub safety: Safety,
}

/// Risk classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RiskClass {
    Unspecified,
    ReadOnly,
    Write,
    Destructive,
    ArbitraryCode,
    PackageChange,
    ExternalProcess,
}

impl RiskClass {
    pub fn as_str(self) -> &'static str {
        match self {
            RiskClass::Unspecified => "unspecified",
            RiskClass::ReadOnly => "read_only",
            RiskClass::Write => "write",
            RiskClass::Destructive => "destructive",
            RiskClass::ArbitraryCode => "arbitrary_code",
            RiskClass::PackageChange => "package_change",
            RiskClass::ExternalProcess => "external_process",
        }
    }
    /// `side_effect_scope` as the Connector derives it from risk.
    pub fn side_effect_scope(self) -> &'static str {
        match self {
            RiskClass::ReadOnly => "none",
            RiskClass::PackageChange => "package_environment",
            RiskClass::ExternalProcess => "external_process",
            RiskClass::ArbitraryCode => "unity_editor_and_project",
            _ => "unity_project",
        }
    }
    /// "External or package impact" in approval summaries.
    pub fn external_impact(self) -> bool {
        matches!(self, RiskClass::PackageChange | RiskClass::ExternalProcess)
    }
    /// Reaches beyond the project: packages, other processes, or arbitrary code (an MCP tool's
    /// `openWorldHint`).
    pub fn open_world(self) -> bool {
        matches!(
            self,
            RiskClass::PackageChange | RiskClass::ExternalProcess | RiskClass::ArbitraryCode
        )
    }
    /// Whether `self` is more severe than `other`, for folding a worst case. `unspecified`
    /// ranks above every known class but arbitrary code: an undeclared risk is assumed bad.
    pub fn is_worse_than(self, other: RiskClass) -> bool {
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
        rank(self) > rank(other)
    }
}

/// A published (normalized) safety object. Field order is the wire order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Safety {
    pub risk_class: RiskClass,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub may_reload_domain: bool,
    pub requires_play_mode: bool,
    pub requires_confirmation: bool,
    pub reversible: bool,
    pub supports_cancellation: bool,
    pub side_effect_scope: String,
    #[serde(default)]
    pub rules: Vec<SafetyRule>,
}

/// A tool-level rule: when every `when` entry deep-equals the argument, `safety` replaces the
/// action or tool safety. Serialized flat: `{"operation", "when", <safety keys…>, "rules": []}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SafetyRule {
    pub operation: String,
    /// parameter name → `{"const": <value>}`
    pub when: BTreeMap<String, Value>,
    #[serde(flatten)]
    pub safety: Safety,
}

/// Safety as declared by attributes, before the Connector normalizes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SafetyDecl {
    pub risk: Option<RiskClass>,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub may_reload_domain: bool,
    pub requires_play_mode: bool,
    pub requires_confirmation: bool,
    pub reversible: bool,
    pub supports_cancellation: bool,
}

impl SafetyDecl {
    /// Applies the normalization invariants (README: Safety). `inherit` is the tool risk a rule falls back to.
    pub fn normalize(self, inherit: Option<RiskClass>) -> Safety {
        let mut risk = self.risk.unwrap_or(RiskClass::Unspecified);
        if risk == RiskClass::Unspecified {
            if self.read_only {
                risk = RiskClass::ReadOnly;
            } else if self.destructive {
                risk = RiskClass::Destructive;
            } else if let Some(t) = inherit {
                risk = t;
            }
        }
        let read_only = risk == RiskClass::ReadOnly;
        let destructive =
            self.destructive || matches!(risk, RiskClass::Destructive | RiskClass::Unspecified);
        let idempotent = (self.idempotent || read_only) && risk != RiskClass::Unspecified;
        let requires_confirmation = self.requires_confirmation
            || destructive
            || matches!(
                risk,
                RiskClass::ArbitraryCode | RiskClass::PackageChange | RiskClass::ExternalProcess
            );
        Safety {
            risk_class: risk,
            read_only,
            destructive,
            idempotent,
            may_reload_domain: self.may_reload_domain,
            requires_play_mode: self.requires_play_mode,
            requires_confirmation,
            reversible: self.reversible,
            supports_cancellation: self.supports_cancellation,
            side_effect_scope: risk.side_effect_scope().to_string(),
            rules: Vec::new(),
        }
    }
}

impl Safety {
    /// The conservative safety a legacy tool gets (README: Legacy mode).
    pub fn legacy_conservative() -> Safety {
        Safety {
            risk_class: RiskClass::Unspecified,
            read_only: false,
            destructive: true,
            idempotent: false,
            may_reload_domain: false,
            requires_play_mode: false,
            requires_confirmation: true,
            reversible: false,
            supports_cancellation: false,
            side_effect_scope: "unknown".to_string(),
            rules: Vec::new(),
        }
    }
    /// The ledger is used unless the call is read-only *and* idempotent.
    pub fn uses_ledger(&self) -> bool {
        !(self.read_only && self.idempotent)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SafetyError {
    #[error("Ambiguous safety rules matched: {0}")]
    AmbiguousRules(String),
    #[error("Safety rule `{0}` has a malformed `when` condition")]
    MalformedRule(String),
}

impl ToolEntry {
    /// The action named `name` (case-insensitive) or having it as an alias.
    pub fn action(&self, name: &str) -> Option<&ActionEntry> {
        let n = name.trim().to_lowercase();
        self.actions
            .iter()
            .find(|a| a.name == n)
            .or_else(|| self.actions.iter().find(|a| a.aliases.contains(&n)))
    }

    /// Whether any safety in this tool (tool, its rules, actions, their rules) runs arbitrary code.
    pub fn is_arbitrary_code(&self) -> bool {
        let hit = |s: &Safety| {
            s.risk_class == RiskClass::ArbitraryCode
                || s.rules
                    .iter()
                    .any(|r| r.safety.risk_class == RiskClass::ArbitraryCode)
        };
        hit(&self.safety) || self.actions.iter().any(|a| hit(&a.safety))
    }

    pub fn is_legacy(&self) -> bool {
        self.contract_mode == "legacy"
    }

    /// Whether the tool declares `profile` among its profiles.
    pub fn in_profile(&self, profile: &str) -> bool {
        self.profiles.iter().any(|p| p == profile)
    }

    /// Whether the tool can be called without an action: it has none, or its tool-level schema
    /// does not require `action`.
    ///
    /// Why `required` and not `properties`: the Connector runs the tool's default handler for a
    /// call that names no action and validates it against the tool-level schema
    /// (connector-contract/README.md §2.5 step 7), so such a call is refused exactly when that
    /// schema requires `action`. The action-less call's safety is the tool's own.
    pub fn callable_without_action(&self) -> bool {
        self.actions.is_empty()
            || !self.input_schema["required"]
                .as_array()
                .is_some_and(|r| r.iter().any(|v| v == "action"))
    }

    /// Every safety a call can resolve to, the one definition that search hits, `tool_describe`
    /// and native tool annotations fold over:
    /// - `Some(action)`: that action's safety (the tool's own for an unknown action, as
    ///   resolution does) and every tool-level rule not pinned to a different action;
    /// - `None`: any call of the tool: its own safety when it is callable without an action,
    ///   every action's safety, and every rule some call can match.
    pub fn reachable_safeties(&self, action: Option<&str>) -> ReachableSafeties<'_> {
        let mut bases: Vec<&Safety> = Vec::new();
        let rules: Vec<&SafetyRule> = match action {
            Some(name) => match self.action(name) {
                Some(a) => {
                    bases.push(&a.safety);
                    self.safety
                        .rules
                        .iter()
                        .filter(|r| {
                            r.pinned_action()
                                .is_none_or(|p| p.eq_ignore_ascii_case(&a.name))
                        })
                        .collect()
                }
                None => {
                    bases.push(&self.safety);
                    self.safety
                        .rules
                        .iter()
                        .filter(|r| r.pinned_action().is_none())
                        .collect()
                }
            },
            None => {
                if self.callable_without_action() {
                    bases.push(&self.safety);
                }
                bases.extend(self.actions.iter().map(|a| &a.safety));
                self.safety
                    .rules
                    .iter()
                    .filter(|r| r.pinned_action().is_none_or(|p| self.action(p).is_some()))
                    .collect()
            }
        };
        if bases.is_empty() {
            // Not reachable for a catalog that passed its structure check (an action-required
            // tool has actions); the tool's own safety is the honest answer.
            bases.push(&self.safety);
        }
        ReachableSafeties { bases, rules }
    }
}

impl SafetyRule {
    /// The action this rule is pinned to (`when.action.const`), if any.
    pub fn pinned_action(&self) -> Option<&str> {
        self.when
            .get("action")
            .and_then(|c| c.get("const"))
            .and_then(Value::as_str)
    }
}

/// The safeties one call (or any call) of a tool can resolve to: see
/// [`ToolEntry::reachable_safeties`]. `bases` is never empty.
#[derive(Debug, Clone)]
pub struct ReachableSafeties<'a> {
    /// The action's or the tool's own safeties.
    pub bases: Vec<&'a Safety>,
    /// The tool-level rules that can replace them, depending on the arguments.
    pub rules: Vec<&'a SafetyRule>,
}

impl ReachableSafeties<'_> {
    /// Every reachable safety, bases first.
    pub fn all(&self) -> impl Iterator<Item = &Safety> + '_ {
        self.bases
            .iter()
            .copied()
            .chain(self.rules.iter().map(|r| &r.safety))
    }

    /// The worst case over every reachable safety.
    pub fn fold(&self) -> SafetyFold {
        let first = self.bases[0];
        let mut f = SafetyFold {
            risk_class: first.risk_class,
            read_only: true,
            destructive: false,
            idempotent: true,
            requires_confirmation: false,
            open_world: false,
            conditional: !self.rules.is_empty(),
        };
        let five = |s: &Safety| {
            (
                s.risk_class,
                s.read_only,
                s.destructive,
                s.idempotent,
                s.requires_confirmation,
            )
        };
        for s in self.all() {
            f.read_only &= s.read_only;
            f.idempotent &= s.idempotent;
            f.destructive |= s.destructive;
            f.requires_confirmation |= s.requires_confirmation;
            f.open_world |= s.risk_class.open_world();
            if s.risk_class.is_worse_than(f.risk_class) {
                f.risk_class = s.risk_class;
            }
            f.conditional |= five(s) != five(first);
        }
        f
    }
}

/// A worst case folded over reachable safeties ([`ReachableSafeties::fold`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SafetyFold {
    /// The most severe reachable risk class (never a placeholder like "conditional").
    pub risk_class: RiskClass,
    /// Every reachable safety is read-only.
    pub read_only: bool,
    /// Some reachable safety is destructive.
    pub destructive: bool,
    /// Every reachable safety is idempotent.
    pub idempotent: bool,
    /// Some reachable safety needs approval.
    pub requires_confirmation: bool,
    /// Some reachable safety reaches beyond the project ([`RiskClass::open_world`]).
    pub open_world: bool,
    /// The answer depends on the action or the arguments: a rule applies, or the reachable
    /// safeties differ.
    pub conditional: bool,
}

/// Resolves the effective safety of a call: the action's safety (or the
/// tool's), replaced by the most specific matching tool-level rule. `params` should be the
/// normalized arguments with JSON booleans, as the Connector matches on coerced values.
pub fn resolve_safety(
    tool: &ToolEntry,
    action: Option<&str>,
    params: &Map<String, Value>,
) -> Result<Safety, SafetyError> {
    let fallback = action
        .and_then(|a| tool.action(a))
        .map(|a| &a.safety)
        .unwrap_or(&tool.safety);
    let mut best: Option<(&SafetyRule, usize)> = None;
    let mut tie = false;
    for rule in &tool.safety.rules {
        let mut matched = true;
        for (param, cond) in &rule.when {
            let Some(expected) = cond.get("const") else {
                return Err(SafetyError::MalformedRule(rule.operation.clone()));
            };
            let actual = if param == "action" {
                params
                    .get(param)
                    .and_then(Value::as_str)
                    .map(|s| Value::String(s.to_lowercase()))
            } else {
                params.get(param).cloned()
            };
            if actual.as_ref() != Some(expected) {
                matched = false;
                break;
            }
        }
        if !matched {
            continue;
        }
        let n = rule.when.len();
        match best {
            Some((_, m)) if m > n => {}
            Some((_, m)) if m == n => tie = true,
            _ => {
                best = Some((rule, n));
                tie = false;
            }
        }
    }
    match best {
        Some((rule, _)) if tie => Err(SafetyError::AmbiguousRules(rule.operation.clone())),
        Some((rule, _)) => {
            let mut s = rule.safety.clone();
            s.rules.clear();
            Ok(s)
        }
        None => {
            let mut s = fallback.clone();
            s.rules.clear();
            Ok(s)
        }
    }
}

fn is_hash(s: &str) -> bool {
    s.len() == 71
        && s.starts_with("sha256:")
        && s[7..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn sorted_unique<'a>(items: impl Iterator<Item = &'a str>) -> bool {
    let v: Vec<&str> = items.collect();
    v.windows(2)
        .all(|w| crate::canonical::cmp_utf16(w[0], w[1]) == std::cmp::Ordering::Less)
}

/// A tool [`Catalog::quarantine`] took out of the normal profiles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quarantined {
    pub tool: String,
    /// Why: `"legacy"` (no strict contract) or `"arbitrary_code"` (it, a rule or an action runs
    /// arbitrary code), or both, in that order.
    pub reasons: Vec<&'static str>,
    /// The normal profiles it was published in and no longer is.
    pub removed_profiles: Vec<String>,
}

impl Quarantined {
    /// One line for `doctor` and the initialize instructions.
    pub fn describe(&self) -> String {
        format!(
            "tool {} is {} but the Editor lists it in {}; it was taken out of those profiles and every call needs approval",
            self.tool,
            self.reasons.join(" and "),
            self.removed_profiles.join(", ")
        )
    }
}

impl Catalog {
    /// Quarantines every tool that is legacy or runs arbitrary code yet sits in a normal profile:
    /// the Connector publishes such a custom tool as declared (its own check of this rule never
    /// runs in the Editor), and one such tool must not cost the client the whole catalog. Each
    /// one leaves the normal profiles (it stays in the others, e.g. `custom`, `advanced`) and
    /// becomes confirmation-required, with its actions and rules. Returns what was done, by
    /// name, for the client to report. Call it before [`Catalog::check_structure`], which then
    /// no longer finds the rule broken. `catalog_hash` stays the published one: it identifies
    /// what the Editor sent, and the Editor checks it against its own catalog.
    pub fn quarantine(&mut self) -> Vec<Quarantined> {
        let mut out = Vec::new();
        for t in &mut self.tools {
            let mut reasons = Vec::new();
            if t.is_legacy() {
                reasons.push("legacy");
            }
            if t.is_arbitrary_code() {
                reasons.push("arbitrary_code");
            }
            if reasons.is_empty() {
                continue;
            }
            let (removed, kept): (Vec<String>, Vec<String>) = std::mem::take(&mut t.profiles)
                .into_iter()
                .partition(|p| NORMAL_PROFILES.contains(&p.as_str()));
            t.profiles = kept;
            if removed.is_empty() {
                continue;
            }
            let confirm = |s: &mut Safety| {
                s.requires_confirmation = true;
                for r in &mut s.rules {
                    r.safety.requires_confirmation = true;
                }
            };
            confirm(&mut t.safety);
            for a in &mut t.actions {
                confirm(&mut a.safety);
            }
            out.push(Quarantined {
                tool: t.name.clone(),
                reasons,
                removed_profiles: removed,
            });
        }
        out
    }

    /// The structural checks a client runs before trusting a catalog, except the hash,
    /// which needs the received text: compare [`crate::canonical::catalog_hash_text`] with
    /// `catalog_hash`. Returns every problem found, so one fetch reports them all.
    pub fn check_structure(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.schema_version != crate::wire::CATALOG_SCHEMA {
            problems.push(format!(
                "schema_version is {:?}, expected {:?}",
                self.schema_version,
                crate::wire::CATALOG_SCHEMA
            ));
        }
        if !is_hash(&self.catalog_hash) {
            problems.push("catalog_hash is not sha256:<64 hex>".into());
        }
        if !is_hash(&self.project_id) {
            problems.push("project_id is not sha256:<64 hex>".into());
        }
        if self.domain_epoch.is_empty() {
            problems.push("domain_epoch is empty".into());
        }
        if self.tools.is_empty() {
            problems.push("the catalog has no tools".into());
        }
        if !sorted_unique(self.tools.iter().map(|t| t.name.as_str())) {
            problems.push("tools are not sorted by name and unique".into());
        }
        for t in &self.tools {
            if t.name.is_empty() || t.title.is_empty() {
                problems.push(format!("tool {:?} lacks a name or title", t.name));
            }
            if t.source.kind.is_empty()
                || t.source.assembly.is_empty()
                || t.source.type_name.is_empty()
            {
                problems.push(format!("tool {} has an incomplete source", t.name));
            }
            if t.contract_mode != "strict" && t.contract_mode != "legacy" {
                problems.push(format!(
                    "tool {} has contract_mode {:?}",
                    t.name, t.contract_mode
                ));
            }
            if !sorted_unique(t.profiles.iter().map(String::as_str)) {
                problems.push(format!("tool {} has unsorted or repeated profiles", t.name));
            }
            let in_normal = t
                .profiles
                .iter()
                .any(|p| NORMAL_PROFILES.contains(&p.as_str()));
            if in_normal && (t.is_legacy() || t.is_arbitrary_code()) {
                problems.push(format!(
                    "tool {} is legacy or runs arbitrary code but sits in a normal profile",
                    t.name
                ));
            }
            if !t.input_schema.is_object() || !t.output_schema.is_object() {
                problems.push(format!(
                    "tool {} has a schema that is not an object",
                    t.name
                ));
            }
            if !sorted_unique(t.actions.iter().map(|a| a.name.as_str())) {
                problems.push(format!("tool {} has unsorted or repeated actions", t.name));
            }
            for a in &t.actions {
                if a.name.is_empty() {
                    problems.push(format!("tool {} has an unnamed action", t.name));
                }
                if !a.input_schema.is_object() || !a.output_schema.is_object() {
                    problems.push(format!(
                        "action {}/{} has a schema that is not an object",
                        t.name, a.name
                    ));
                }
            }
        }
        problems
    }

    pub fn tool(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.iter().find(|t| t.name == name).or_else(|| {
            self.tools
                .iter()
                .find(|t| t.aliases.iter().any(|a| a == name))
        })
    }

    /// The tool a caller means by `name`: [`Catalog::tool`], else the one tool whose name
    /// matches ignoring ASCII case (two such tools: none, rather than a guess).
    pub fn find_tool(&self, name: &str) -> Option<&ToolEntry> {
        self.tool(name).or_else(|| {
            let mut it = self
                .tools
                .iter()
                .filter(|t| t.name.eq_ignore_ascii_case(name));
            match (it.next(), it.next()) {
                (Some(t), None) => Some(t),
                _ => None,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, mode: &str, risk: RiskClass, profiles: &[&str]) -> ToolEntry {
        serde_json::from_value(serde_json::json!({
            "name": name, "title": name, "description": "",
            "source": {"kind": "custom", "assembly": "Assembly-CSharp-Editor", "type": format!("Game.{name}")},
            "contract_mode": mode, "profiles": profiles, "aliases": [], "examples": [],
            "input_schema": {"type": "object"}, "output_schema": {"type": "object"},
            "actions": [],
            "safety": SafetyDecl { risk: Some(risk), ..Default::default() }.normalize(None),
        }))
        .unwrap()
    }

    #[test]
    fn reachable_safeties_follow_the_action_and_the_pinned_rules() {
        let safety = |r| {
            SafetyDecl {
                risk: Some(r),
                ..Default::default()
            }
            .normalize(None)
        };
        let mut t = entry("console", "strict", RiskClass::ReadOnly, &["core"]);
        t.input_schema = serde_json::json!({"type": "object", "required": ["action"]});
        for name in ["read", "clear"] {
            t.actions.push(
                serde_json::from_value(serde_json::json!({
                    "name": name, "description": "", "aliases": [],
                    "input_schema": {"type": "object"}, "output_schema": {"type": "object"},
                    "safety": safety(RiskClass::ReadOnly),
                }))
                .unwrap(),
            );
        }
        t.safety.rules.push(SafetyRule {
            operation: "console.clear".into(),
            when: serde_json::from_value(serde_json::json!({"action": {"const": "clear"}}))
                .unwrap(),
            safety: safety(RiskClass::Destructive),
        });
        // Reading: the action's own safety; the rule pinned to `clear` does not reach it.
        let read = t.reachable_safeties(Some("read")).fold();
        assert_eq!(read.risk_class, RiskClass::ReadOnly);
        assert!(read.read_only && !read.conditional && !read.open_world);
        // Clearing: the rule can apply, so the worst case is destructive and conditional.
        let clear = t.reachable_safeties(Some("CLEAR")).fold();
        assert_eq!(clear.risk_class, RiskClass::Destructive);
        assert!(clear.destructive && clear.conditional && !clear.read_only);
        // Any call: the tool needs an action, so its own safety is not a base; both actions are.
        let any = t.reachable_safeties(None);
        assert!(!t.callable_without_action());
        assert_eq!(any.bases.len(), 2);
        assert_eq!(any.fold().risk_class, RiskClass::Destructive);
        assert!(t.in_profile("core") && !t.in_profile("scene"));
        assert!(RiskClass::Unspecified.is_worse_than(RiskClass::ExternalProcess));
        assert!(RiskClass::ArbitraryCode.is_worse_than(RiskClass::Unspecified));
        assert!(RiskClass::PackageChange.open_world() && !RiskClass::Destructive.open_world());
    }

    #[test]
    fn quarantine_takes_offenders_out_of_normal_profiles_instead_of_rejecting_the_catalog() {
        let mut c = Catalog {
            schema_version: crate::wire::CATALOG_SCHEMA.into(),
            catalog_hash: format!("sha256:{}", "0".repeat(64)),
            domain_epoch: "e".into(),
            project_id: format!("sha256:{}", "1".repeat(64)),
            tools: vec![
                entry("ok_tool", "strict", RiskClass::Write, &["core", "full"]),
                entry(
                    "run_lua",
                    "strict",
                    RiskClass::ArbitraryCode,
                    &["custom", "scene"],
                ),
                entry(
                    "spawn_wave",
                    "legacy",
                    RiskClass::Write,
                    &["core", "custom", "full"],
                ),
            ],
        };
        assert_eq!(c.check_structure().len(), 2, "the rule is broken twice");
        let q = c.quarantine();
        assert_eq!(
            q,
            vec![
                Quarantined {
                    tool: "run_lua".into(),
                    reasons: vec!["arbitrary_code"],
                    removed_profiles: vec!["scene".into()],
                },
                Quarantined {
                    tool: "spawn_wave".into(),
                    reasons: vec!["legacy"],
                    removed_profiles: vec!["core".into(), "full".into()],
                },
            ]
        );
        assert!(q[1].describe().contains("spawn_wave"));
        assert_eq!(c.check_structure(), Vec::<String>::new());
        let wave = c.tool("spawn_wave").unwrap();
        assert_eq!(wave.profiles, vec!["custom".to_string()]);
        assert!(wave.safety.requires_confirmation);
        assert_eq!(c.tool("ok_tool").unwrap().profiles, vec!["core", "full"]);
        assert!(!c.tool("ok_tool").unwrap().safety.requires_confirmation);
        assert!(c.quarantine().is_empty(), "idempotent");
    }

    #[test]
    fn normalization() {
        let d = SafetyDecl {
            risk: Some(RiskClass::Destructive),
            ..Default::default()
        };
        let s = d.normalize(None);
        assert!(s.destructive && s.requires_confirmation && !s.idempotent && !s.read_only);
        let r = SafetyDecl {
            read_only: true,
            ..Default::default()
        }
        .normalize(None);
        assert_eq!(r.risk_class, RiskClass::ReadOnly);
        assert!(r.idempotent && !r.destructive && !r.requires_confirmation);
        assert_eq!(r.side_effect_scope, "none");
        let u = SafetyDecl::default().normalize(None);
        assert!(u.destructive && u.requires_confirmation && !u.idempotent);
        let p = SafetyDecl {
            risk: Some(RiskClass::PackageChange),
            ..Default::default()
        }
        .normalize(None);
        assert!(p.requires_confirmation && !p.destructive);
        assert_eq!(p.side_effect_scope, "package_environment");
    }
}
