//! The built-in tool data: `connector-contract/sim/catalog/tools.json`, embedded at compile time.
//!
//! The file holds facts (names, base schemas, groups, declared safety, profiles) generated from
//! the shared reference, plus our own descriptions; see `catalog/generate.py`. This module only
//! gives it Rust types. The Connector's construction rules live in `schema.rs`, so the data
//! stays in the form the Connector's attributes declare it (before its builder runs).

use hera_connector_contract::catalog::{RiskClass, SafetyDecl};
use serde::Deserialize;
use serde_json::Value;
use std::sync::OnceLock;

const TOOLS_JSON: &str = include_str!("../../catalog/tools.json");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolData {
    pub format: String,
    pub connector_version: String,
    pub tools: Vec<ToolSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolSpec {
    pub name: String,
    pub description: String,
    pub source: SourceSpec,
    /// Declared profiles, before the Connector adds `full`/`custom` (§3.7).
    pub profiles: Vec<String>,
    pub safety: SafetySpec,
    pub rules: Vec<RuleSpec>,
    pub examples: Vec<ExampleSpec>,
    /// `None`: the tool has no `Parameters` class (its tool-level schema is an empty object).
    pub parameters: Option<Vec<ParamSpec>>,
    pub groups: Vec<GroupSpec>,
    /// The `data` schema of a success response.
    pub output: Value,
    pub actions: Vec<ActionSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourceSpec {
    pub assembly: String,
    #[serde(rename = "type")]
    pub type_name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExampleSpec {
    pub call: String,
    pub description: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ActionSpec {
    pub name: String,
    pub description: String,
    pub safety: SafetySpec,
    pub parameters: Vec<ParamSpec>,
    pub groups: Vec<GroupSpec>,
    pub output: Value,
}

/// One `[ToolParameter]` property, in declaration order (which decides positional mapping).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ParamSpec {
    pub name: String,
    pub kind: ValueKind,
    /// The base schema (type mapping or `SchemaJson`), before `description` and `AllowNull`.
    pub schema: Value,
    pub required: bool,
    pub allow_null: bool,
    /// Extra names only the Connector's validator accepts; never published.
    pub aliases: Vec<String>,
    pub description: String,
}

/// The CLR type family of a parameter, which decides the validator's coercion (§1.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ValueKind {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
    /// `JToken`: anything goes through coercion; the schema alone constrains it.
    Token,
}

impl ValueKind {
    pub fn json_name(self) -> &'static str {
        match self {
            ValueKind::String => "string",
            ValueKind::Integer => "integer",
            ValueKind::Number => "number",
            ValueKind::Boolean => "boolean",
            ValueKind::Array => "array",
            ValueKind::Object => "object",
            ValueKind::Token => "any",
        }
    }
}

/// `[HeraArgumentGroup]` (the Connector's schema-building rules, connector-contract/README.md §3). Terms are the raw attribute strings
/// (`name` or `name=<JSON literal>`), because the default `expected` text is built from them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GroupSpec {
    pub mode: GroupMode,
    pub terms: Vec<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub expected: Option<String>,
    #[serde(default)]
    pub missing_code: Option<String>,
    #[serde(default)]
    pub conflict_code: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum GroupMode {
    ExactlyOne,
    AtLeastOne,
    AtMostOne,
    RequiredWhen,
}

/// Safety as the attributes declare it; `schema.rs` normalizes it (§3.5).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SafetySpec {
    pub risk_class: RiskClass,
    #[serde(default)]
    pub read_only: bool,
    #[serde(default)]
    pub destructive: bool,
    #[serde(default)]
    pub idempotent: bool,
    #[serde(default)]
    pub may_reload_domain: bool,
    #[serde(default)]
    pub requires_play_mode: bool,
    #[serde(default)]
    pub requires_confirmation: bool,
    #[serde(default)]
    pub reversible: bool,
    #[serde(default)]
    pub supports_cancellation: bool,
}

impl SafetySpec {
    pub fn decl(&self) -> SafetyDecl {
        SafetyDecl {
            risk: Some(self.risk_class),
            read_only: self.read_only,
            destructive: self.destructive,
            idempotent: self.idempotent,
            may_reload_domain: self.may_reload_domain,
            requires_play_mode: self.requires_play_mode,
            requires_confirmation: self.requires_confirmation,
            reversible: self.reversible,
            supports_cancellation: self.supports_cancellation,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RuleSpec {
    pub operation: String,
    /// parameter name → the JSON value it must deep-equal.
    pub when: serde_json::Map<String, Value>,
    pub safety: SafetySpec,
}

/// The parsed data file. A parse failure is a build defect (the file is embedded), so it panics
/// with the serde error, which names the offending line.
pub(crate) fn tool_data() -> &'static ToolData {
    static DATA: OnceLock<ToolData> = OnceLock::new();
    DATA.get_or_init(|| {
        let data: ToolData = serde_json::from_str(TOOLS_JSON).unwrap_or_else(|e| {
            panic!("connector-contract/sim/catalog/tools.json is malformed: {e}")
        });
        assert_eq!(
            data.format, "hera-sim-tool-data/1",
            "unexpected tools.json format"
        );
        data
    })
}
