//! The simulator's tool catalog: the Connector 0.1.3 built-ins (34 tools, 133 actions) built
//! from `connector-contract/sim/catalog/tools.json` by the Connector's own rules, plus the
//! Connector-side steps of the `/command` pipeline that depend on the catalog: action
//! resolution (§2.5 step 7), argument validation (step 8) and safety resolution (step 9).
//!
//! # Layout
//! - `data`: the embedded data file (facts from the reference, our own descriptions).
//! - `schema`: the construction rules (schemas, groups, safety, profiles, titles).
//! - `contract`: the validator's view of a schema, for built-in and custom tools alike.
//! - `validate`: the Connector's permissive validator.
//! - `resolve`: action resolution.
//!
//! Safety types and rule resolution come from the shared contract crate
//! (`hera_connector_contract::catalog`); [`effective_safety`] only names the step.

mod contract;
mod data;
mod resolve;
mod schema;
mod validate;

pub use resolve::{ActionResolution, resolve_action};
pub use validate::ValidationFailure;

use contract::SchemaContract;
use hera_connector_contract::canonical::{catalog_hash_of_value, cmp_utf16};
use hera_connector_contract::catalog::{
    ActionEntry, Safety, SafetyError, ToolEntry, resolve_safety,
};
use hera_connector_contract::wire::CATALOG_SCHEMA;
use schema::{BuiltTool, sorted};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The built-in tools, built once per process (the Connector builds once per domain).
fn builtins() -> &'static BTreeMap<String, BuiltTool> {
    static BUILT: OnceLock<BTreeMap<String, BuiltTool>> = OnceLock::new();
    BUILT.get_or_init(|| {
        data::tool_data()
            .tools
            .iter()
            .map(|spec| (spec.name.clone(), schema::build_tool(spec)))
            .collect()
    })
}

/// The Connector version whose built-in catalog the data file describes.
pub fn connector_version() -> &'static str {
    &data::tool_data().connector_version
}

#[derive(Debug, Clone)]
struct Published {
    tools: Value,
    hash: String,
}

/// The tools an Editor currently serves: the built-ins plus custom tools added at runtime.
/// Kept sorted by name (ordinal), as the catalog publishes them.
#[derive(Debug, Clone)]
pub struct ToolSet {
    tools: Vec<ToolEntry>,
    published: OnceLock<Published>,
}

impl ToolSet {
    /// The 34 built-in tools of Connector 0.1.3.
    pub fn builtin() -> ToolSet {
        ToolSet {
            tools: builtins().values().map(|b| b.entry.clone()).collect(),
            published: OnceLock::new(),
        }
        .sorted()
    }

    /// An empty set (a project without the Connector's tools; useful for custom-only tests).
    pub fn empty() -> ToolSet {
        ToolSet {
            tools: Vec::new(),
            published: OnceLock::new(),
        }
    }

    fn sorted(mut self) -> ToolSet {
        self.tools.sort_by(|a, b| cmp_utf16(&a.name, &b.name));
        self
    }

    /// Adds a tool, replacing any tool of the same name. The entry is published as given, so a
    /// test can also add deliberately odd tools (a legacy tool in a normal profile, say).
    pub fn add_custom(&mut self, tool: ToolEntry) {
        self.tools.retain(|t| t.name != tool.name);
        self.tools.push(tool);
        self.tools.sort_by(|a, b| cmp_utf16(&a.name, &b.name));
        self.published = OnceLock::new();
    }

    /// Removes a tool by exact name; `true` if it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.tools.len();
        self.tools.retain(|t| t.name != name);
        let removed = self.tools.len() != before;
        if removed {
            self.published = OnceLock::new();
        }
        removed
    }

    /// The tool called `name` (ordinal, case-sensitive, as the router looks commands up).
    pub fn get(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Tool names in published (sorted) order.
    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.name.clone()).collect()
    }

    pub fn tools(&self) -> &[ToolEntry] {
        &self.tools
    }

    fn published(&self) -> &Published {
        self.published.get_or_init(|| {
            let tools = sorted(serde_json::to_value(&self.tools).expect("tool entries serialize"));
            let hash =
                catalog_hash_of_value(&json!({"schema_version": CATALOG_SCHEMA, "tools": tools}));
            Published { tools, hash }
        })
    }

    /// The full `hera.tool-catalog/1` envelope (§3.2), with its `catalog_hash` (§3.8).
    pub fn catalog(&self, domain_epoch: &str, project_id: &str) -> Value {
        let p = self.published();
        json!({
            "catalog_hash": p.hash,
            "domain_epoch": domain_epoch,
            "project_id": project_id,
            "schema_version": CATALOG_SCHEMA,
            "tools": p.tools,
        })
    }

    /// `sha256:` hash of `{schema_version, tools}`; independent of epoch and project.
    pub fn catalog_hash(&self) -> String {
        self.published().hash.clone()
    }

    /// Typo suggestions for an unknown command (`UNKNOWN_COMMAND` `data.did_you_mean`): names
    /// within edit distance 2, nearest first, ties by name, at most 3.
    pub fn did_you_mean(&self, name: &str) -> Vec<String> {
        let wanted = name.to_lowercase();
        let mut scored: Vec<(usize, &str)> = self
            .tools
            .iter()
            .map(|t| {
                (
                    edit_distance(&wanted, &t.name.to_lowercase()),
                    t.name.as_str(),
                )
            })
            .filter(|(d, _)| *d <= 2)
            .collect();
        scored.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| cmp_utf16(a.1, b.1)));
        scored
            .into_iter()
            .take(3)
            .map(|(_, n)| n.to_string())
            .collect()
    }

    /// `list {"names":true}` / `{"compact":true}` data: sorted tool names (§3.11).
    pub fn legacy_names(&self) -> Vec<String> {
        self.names()
    }

    /// `list {}` data: `[{"name","description"}]`.
    pub fn legacy_default_list(&self) -> Value {
        Value::Array(
            self.tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description}))
                .collect(),
        )
    }

    /// `list {"tool":"<name>"}` data (§3.11), or `None` for an unknown tool (`UNKNOWN_TOOL`).
    pub fn legacy_tool_info(&self, name: &str) -> Option<Value> {
        let t = self.get(name)?;
        let five = |s: &Safety| {
            json!({
                "read_only": s.read_only,
                "destructive": s.destructive,
                "idempotent": s.idempotent,
                "may_reload_domain": s.may_reload_domain,
                "requires_play_mode": s.requires_play_mode,
            })
        };
        let group = t
            .profiles
            .iter()
            .find(|p| *p != "full")
            .or(t.profiles.first())
            .cloned()
            .unwrap_or_default();
        let action_safety: Map<String, Value> = t
            .actions
            .iter()
            .map(|a| (a.name.clone(), five(&a.safety)))
            .collect();
        Some(sorted(json!({
            "name": t.name,
            "description": t.description,
            "group": group,
            "groups": t.profiles,
            "examples": t.examples.iter().map(|e| json!({"call": e.call, "description": e.description})).collect::<Vec<_>>(),
            "actions": t.actions.iter().map(|a| json!({
                "name": a.name,
                "description": a.description,
                "aliases": a.aliases,
                "input_schema": a.input_schema,
                "output_schema": a.output_schema,
            })).collect::<Vec<_>>(),
            "schema": t.input_schema,
            "output_schema": t.output_schema,
            "metadata": {
                "enum_support": true,
                "default_support": false,
                "output_schema_support": true,
                "custom_types": t.source.kind != "builtin",
                "safety": five(&t.safety),
                "action_safety": action_safety,
            },
        })))
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The validator's contract for a call: the data file's for a built-in tool (it knows
/// declaration order, aliases and group metadata), otherwise read back from the schema.
fn contract_for(tool: &ToolEntry, action: Option<&ActionEntry>) -> SchemaContract {
    if tool.source.kind == "builtin"
        && let Some(b) = builtins().get(&tool.name)
    {
        match action {
            None => return b.tool_contract.clone(),
            Some(a) => {
                if let Some(c) = b.action_contracts.get(&a.name) {
                    return c.clone();
                }
            }
        }
    }
    match action {
        Some(a) => SchemaContract::from_schema(&a.input_schema, true),
        None => SchemaContract::from_schema(&tool.input_schema, false),
    }
}

/// §2.5 step 8: validates and normalizes `params` for `tool` (and the resolved `action`, whose
/// name `params.action` must carry; [`ActionResolution::Action`] gives params that do). Returns
/// the normalized params (positionals mapped, aliases renamed, values coerced, enums in their
/// canonical spelling). Legacy tools are not validated, as on the Connector.
pub fn validate(
    tool: &ToolEntry,
    action: Option<&ActionEntry>,
    params: &Map<String, Value>,
) -> Result<Map<String, Value>, ValidationFailure> {
    if tool.is_legacy() {
        return Ok(params.clone());
    }
    let contract = contract_for(tool, action);
    validate::validate_contract(&contract, action.map(|a| a.name.as_str()), params)
}

/// §2.5 step 9: the effective safety of a call, from the action (or tool) safety and the
/// tool-level rules, matched against the **normalized** params that [`validate`] returned.
pub fn effective_safety(
    tool: &ToolEntry,
    action: Option<&str>,
    normalized: &Map<String, Value>,
) -> Result<Safety, SafetyError> {
    resolve_safety(tool, action, normalized)
}

#[cfg(test)]
mod tests;

/// A project's own tool as the Connector publishes it: a custom source
/// (`Assembly-CSharp-Editor`, `Game.<name>`), no actions, the given contract mode, profiles,
/// tool-level input schema and declared safety. Tests add it with `Simulator::add_custom_tool`.
pub fn custom_tool(
    name: &str,
    mode: &str,
    profiles: &[&str],
    safety: hera_connector_contract::catalog::SafetyDecl,
    input_schema: Value,
) -> ToolEntry {
    ToolEntry {
        name: name.into(),
        title: name.into(),
        description: "A project's own tool.".into(),
        source: hera_connector_contract::catalog::Source {
            kind: "custom".into(),
            assembly: "Assembly-CSharp-Editor".into(),
            type_name: format!("Game.{name}"),
        },
        contract_mode: mode.into(),
        profiles: profiles.iter().map(|p| p.to_string()).collect(),
        aliases: vec![],
        examples: vec![],
        input_schema,
        output_schema: serde_json::json!({"type":"object"}),
        actions: vec![],
        safety: safety.normalize(None),
    }
}
