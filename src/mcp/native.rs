//! Native tools (profile and full exposure): one MCP tool per strict catalog tool of a
//! profile, defined at runtime from the catalog the server answers from.
//!
//! A definition is a pure function of one [`ToolEntry`], so the same catalog always yields the
//! same bytes and a changed contract is detected by comparing definitions:
//! - `name`, `title` from the catalog; `description` the catalog's, cut to
//!   [`MAX_DESCRIPTION_CHARS`] (2025-06-18 clients drop longer ones);
//! - `inputSchema` the tool-level input schema, plus the call controls this server reads from
//!   the arguments (`approval_token` where any call can need approval, `operation_id` where any
//!   call can change the project), because most agents cannot set `_meta`. A schema longer
//!   than [`MAX_INPUT_SCHEMA_CHARS`] is shortened by dropping keywords only (descriptions
//!   first, then everything below the top-level properties), so it still admits every call
//!   the full contract admits; the description says so. The server always validates against
//!   the resolved action's full schema;
//! - `outputSchema` the same closed envelope schema every tool advertises;
//! - `annotations` folded over every safety a call can resolve to (the tool's, its rules',
//!   every action's): read-only and idempotent only if all are, destructive and open-world if
//!   any is (open-world: package, external-process or arbitrary-code risk).
//!
//! Which tools: strict tools that declare the profile; tools that can run arbitrary code only
//! with `--allow-arbitrary-code` (by their safety, not by the profile's name). Legacy tools
//! never: their contract is unknown.

use super::envelope::{Envelope, output_schema};
use crate::catalog::CatalogSnapshot;
use crate::session::{
    CallError, CatalogView, Controls as CallControls, Fault, ToolScope, arbitrary_code_refused,
    invalid_arguments,
};
use hera_connector_contract::catalog::{Catalog, SafetyFold, ToolEntry};
use hera_connector_contract::wire::FEATURE_OPERATION_LEDGER;
use rmcp::model::Tool;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// 2025-06-18 clients keep at most this many characters of a tool description.
pub const MAX_DESCRIPTION_CHARS: usize = 1000;
/// … and of a tool's input schema (its JSON text).
pub const MAX_INPUT_SCHEMA_CHARS: usize = 8000;

/// Call controls read from a native call's arguments (removed before validation and sending).
pub const APPROVAL_TOKEN_ARG: &str = "approval_token";
pub const OPERATION_ID_ARG: &str = "operation_id";

/// Length as clients count it (JavaScript string length: UTF-16 code units).
fn chars(s: &str) -> usize {
    s.encode_utf16().count()
}

/// Whether `tool` is published in `profile`.
pub fn visible(tool: &ToolEntry, profile: &str, allow_arbitrary_code: bool) -> bool {
    !tool.is_legacy()
        && tool.in_profile(profile)
        && (allow_arbitrary_code || !tool.is_arbitrary_code())
}

/// The published tools of `profile`, sorted by name (byte order), whatever the catalog order.
pub fn visible_tools<'a>(
    catalog: &'a Catalog,
    profile: &str,
    allow_arbitrary_code: bool,
) -> Vec<&'a ToolEntry> {
    let mut tools: Vec<&ToolEntry> = catalog
        .tools
        .iter()
        .filter(|t| visible(t, profile, allow_arbitrary_code))
        .collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    tools
}

/// A tool's worst case over every safety a call can resolve to
/// ([`ToolEntry::reachable_safeties`]).
pub fn fold(tool: &ToolEntry) -> SafetyFold {
    tool.reachable_safeties(None).fold()
}

/// Which call controls a tool's native schema carries (never when the tool declares a
/// parameter of that name: then the name is the tool's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Controls {
    pub approval_token: bool,
    pub operation_id: bool,
}

fn declares(tool: &ToolEntry, name: &str) -> bool {
    tool.input_schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.contains_key(name))
}

pub fn controls(tool: &ToolEntry) -> Controls {
    let f = fold(tool);
    Controls {
        approval_token: f.requires_confirmation && !declares(tool, APPROVAL_TOKEN_ARG),
        operation_id: !f.read_only && !declares(tool, OPERATION_ID_ARG),
    }
}

/// The tool-level input schema as an MCP input schema (always an object schema) with the call
/// controls added.
fn input_schema(tool: &ToolEntry) -> Value {
    let mut schema = match &tool.input_schema {
        Value::Object(o) => o.clone(),
        _ => Map::new(),
    };
    schema.insert("type".into(), json!("object"));
    let c = controls(tool);
    if c.approval_token || c.operation_id {
        let props = schema
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut();
        if let Some(props) = props {
            if c.approval_token {
                props.insert(
                    APPROVAL_TOKEN_ARG.into(),
                    json!({"type": "string", "minLength": 1,
                        "description": "Only after APPROVAL_REQUIRED and the user's yes: data.token."}),
                );
            }
            if c.operation_id {
                props.insert(
                    OPERATION_ID_ARG.into(),
                    json!({"type": "string",
                        "description": "8-128 letters, digits, _ or -. Reuse to repeat an operation safely (e.g. after OPERATION_OUTCOME_UNKNOWN); generated when absent."}),
                );
            }
        }
    }
    Value::Object(schema)
}

/// How much of a schema was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    Whole,
    /// Descriptions and titles removed.
    NoDescriptions,
    /// Top-level property names (with `action`'s own schema), `required` and closedness only.
    TopLevel,
    /// Any object.
    AnyObject,
}

fn len(v: &Value) -> usize {
    chars(&v.to_string())
}

/// Schema keywords whose value is a map of name → schema.
const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Schema keywords whose value is one schema.
const SCHEMA_ONE: [&str; 12] = [
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "contentSchema",
];
/// Schema keywords whose value is a list of schemas.
const SCHEMA_LISTS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Removes annotation keywords (`description`, `title`, `examples`) from a schema and every
/// subschema, never touching property *names* (a parameter may be called `description`).
fn strip_annotations(schema: &mut Value) {
    let Some(o) = schema.as_object_mut() else {
        return;
    };
    for k in ["description", "title", "examples"] {
        o.remove(k);
    }
    for (k, v) in o.iter_mut() {
        if SCHEMA_MAPS.contains(&k.as_str()) {
            if let Some(m) = v.as_object_mut() {
                m.values_mut().for_each(strip_annotations);
            }
        } else if SCHEMA_ONE.contains(&k.as_str()) {
            strip_annotations(v);
        } else if SCHEMA_LISTS.contains(&k.as_str())
            && let Some(list) = v.as_array_mut()
        {
            list.iter_mut().for_each(strip_annotations);
        }
    }
}

/// The top-level skeleton: every top-level property name with an unconstrained schema (except
/// `action`, whose names an agent needs), the same `required`, `additionalProperties` and
/// pattern names. Only keywords are removed, so it admits every instance the original admits.
fn top_level(schema: &Value) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let mut p = Map::new();
        for (name, sub) in props {
            let mut kept = if name == "action" {
                sub.clone()
            } else {
                json!({})
            };
            strip_annotations(&mut kept);
            p.insert(name.clone(), kept);
        }
        out.insert("properties".into(), Value::Object(p));
    }
    if let Some(pp) = schema.get("patternProperties").and_then(Value::as_object) {
        let p: Map<String, Value> = pp.keys().map(|k| (k.clone(), json!({}))).collect();
        out.insert("patternProperties".into(), Value::Object(p));
    }
    for k in ["required", "additionalProperties"] {
        if let Some(v) = schema.get(k)
            && (v.is_array() || v.is_boolean())
        {
            out.insert(k.into(), v.clone());
        }
    }
    Value::Object(out)
}

/// Fits a schema into [`MAX_INPUT_SCHEMA_CHARS`], loosening as little as needed.
pub fn fit_schema(schema: Value) -> (Value, Fit) {
    if len(&schema) <= MAX_INPUT_SCHEMA_CHARS {
        return (schema, Fit::Whole);
    }
    let mut bare = schema.clone();
    strip_annotations(&mut bare);
    if len(&bare) <= MAX_INPUT_SCHEMA_CHARS {
        return (bare, Fit::NoDescriptions);
    }
    let top = top_level(&schema);
    if len(&top) <= MAX_INPUT_SCHEMA_CHARS {
        return (top, Fit::TopLevel);
    }
    (json!({"type": "object"}), Fit::AnyObject)
}

/// Says in the description what a shortened schema left out.
fn fit_note(fit: Fit) -> Option<&'static str> {
    match fit {
        Fit::Whole => None,
        Fit::NoDescriptions => Some(
            " [Input schema shortened to 8,000 characters: parameter descriptions removed. The \
             server validates the full schema; compact exposure's tool_describe shows it.]",
        ),
        Fit::TopLevel | Fit::AnyObject => Some(
            " [Input schema shortened to 8,000 characters: parameter details removed. The server \
             validates the full schema and its errors name each expected field; compact \
             exposure's tool_describe shows it.]",
        ),
    }
}

/// `text` cut to at most `max` UTF-16 units, ending in "…" when cut.
fn cut(text: &str, max: usize) -> String {
    if chars(text) <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let n = c.len_utf16();
        if used + n > max.saturating_sub(1) {
            break;
        }
        out.push(c);
        used += n;
    }
    out.push('…');
    out
}

/// The MCP definition of one native tool, as JSON (what `tools/list` carries).
pub fn definition_json(tool: &ToolEntry) -> Value {
    let (schema, fit) = fit_schema(input_schema(tool));
    let base = if tool.description.trim().is_empty() {
        tool.title.clone()
    } else {
        tool.description.trim().to_string()
    };
    let description = match fit_note(fit) {
        None => cut(&base, MAX_DESCRIPTION_CHARS),
        Some(note) => format!("{}{note}", cut(&base, MAX_DESCRIPTION_CHARS - chars(note))),
    };
    let f = fold(tool);
    json!({
        "name": tool.name,
        "title": tool.title,
        "description": description,
        "inputSchema": schema,
        "outputSchema": output_schema(),
        "annotations": {
            "title": tool.title,
            "readOnlyHint": f.read_only,
            "destructiveHint": f.destructive,
            "idempotentHint": f.idempotent,
            "openWorldHint": f.open_world,
        }
    })
}

pub fn definition(tool: &ToolEntry) -> Tool {
    serde_json::from_value(definition_json(tool)).expect("a native definition is a valid MCP Tool")
}

/// Why a catalog cannot be served natively in this profile. A persistent condition of the
/// Editor, not of a call: `tools/list` answers it as an error and every native call gets it.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
    pub data: Value,
}

impl Refusal {
    fn call_error(&self) -> CallError {
        CallError::input(self.code, self.message.clone()).with_data(self.data.clone())
    }
}

/// Whether `snapshot` can back native exposure of `profile`: it must be a strict catalog, and
/// a profile with tools that change the project needs the Editor's operation ledger.
pub fn refusal(
    snapshot: &CatalogSnapshot,
    profile: &str,
    allow_arbitrary_code: bool,
) -> Option<Refusal> {
    if snapshot.listing_in_place_of_strict() {
        return Some(Refusal {
            code: "STRICT_CATALOG_REQUIRED",
            message: "profile and full exposure need the Editor's strict tool catalog, which the \
                      Unity Editor cannot build now: a custom tool's contract is broken (the \
                      Unity console names it). Fix that tool and let Unity reload, or restart \
                      the MCP server with --exposure compact (the default), which works from \
                      the Editor's per-tool listing meanwhile."
                .into(),
            data: json!({"profile": profile, "reason": "catalog_build_failed",
                "suggestion": "--exposure compact"}),
        });
    }
    if snapshot.is_legacy() {
        return Some(Refusal {
            code: "STRICT_CATALOG_REQUIRED",
            message: "profile and full exposure need the Editor's strict tool catalog \
                      (tool_catalog_v1, domain_epoch_v1), but this Unity Connector is a legacy \
                      one. Restart the MCP server with --exposure compact (the default), which \
                      works with legacy Connectors, or update the AgentConnector package."
                .into(),
            data: json!({"profile": profile, "features": ["tool_catalog_v1", "domain_epoch_v1"],
                "suggestion": "--exposure compact"}),
        });
    }
    let ledger = snapshot
        .key
        .features
        .iter()
        .any(|f| f == FEATURE_OPERATION_LEDGER);
    if ledger {
        return None;
    }
    let mutating: Vec<&str> = visible_tools(&snapshot.catalog, profile, allow_arbitrary_code)
        .into_iter()
        .filter(|t| !fold(t).read_only)
        .map(|t| t.name.as_str())
        .collect();
    if mutating.is_empty() {
        return None;
    }
    Some(Refusal {
        code: "OPERATION_LEDGER_REQUIRED",
        message: format!(
            "profile {profile:?} has tools that change the project ({}) but this Unity Connector \
             does not advertise {FEATURE_OPERATION_LEDGER}, so a domain reload mid-call could \
             leave an outcome unknown. Update the AgentConnector package, choose a read-only \
             profile, or use --exposure compact.",
            mutating.join(", ")
        ),
        data: json!({"profile": profile, "feature": FEATURE_OPERATION_LEDGER,
            "mutating_tools": mutating}),
    })
}

/// Takes the call controls out of a native call's arguments. A control of the wrong type is an
/// `INVALID_ARGUMENT` at its pointer, like any other argument fault.
pub fn take_controls(
    tool: &ToolEntry,
    arguments: &mut Map<String, Value>,
) -> Result<CallControls, CallError> {
    let c = controls(tool);
    let mut take = |on: bool, key: &str| -> Result<Option<String>, CallError> {
        if !on {
            return Ok(None);
        }
        match arguments.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s)),
            Some(_) => Err(invalid_arguments(
                &tool.name,
                &tool.name,
                &[Fault {
                    pointer: format!("/{key}"),
                    message: format!("{key} must be a non-empty string"),
                    expected: Some(json!("string")),
                }],
            )),
        }
    };
    let approval_token = take(c.approval_token, APPROVAL_TOKEN_ARG)?;
    let operation_id = take(c.operation_id, OPERATION_ID_ARG)?;
    Ok(CallControls {
        operation_id,
        approval_token,
    })
}

/// The retryable answer to a native call made while the catalog is being replaced: the Editor
/// is not contacted; once the new list is out (tools/list_changed) the call can be repeated.
pub fn catalog_stale(tool: &str, why: &str) -> Envelope {
    super::call::refusal(stale(tool, why), true)
}

fn stale(tool: &str, why: &str) -> CallError {
    let mut e = CallError::unavailable(
        "CATALOG_STALE",
        "catalog_refresh",
        format!(
            "{why}; {tool} was not run. Read tools/list again if it changed, then repeat the call."
        ),
        json!({"tool": tool}),
    );
    e.data["retry_after_ms"] = json!(1000);
    e
}

/// What a native call brings to the shared call pipeline: its profile, and the view its
/// client's tool list was built from (to tell a changed contract from an unchanged one).
pub struct NativeCall {
    pub profile: String,
    pub before: Option<Arc<CatalogView>>,
}

impl NativeCall {
    /// The tool a native call names, in the view the call will run against. Refused when the
    /// profile cannot be served, when the tool is gone or not in the profile, and (retryably)
    /// when its contract changed since the client's list.
    pub fn resolve<'a>(
        &self,
        view: &'a CatalogView,
        name: &str,
        allow_arbitrary_code: bool,
    ) -> Result<&'a ToolEntry, CallError> {
        let profile = self.profile.as_str();
        if let Some(r) = refusal(&view.snapshot, profile, allow_arbitrary_code) {
            return Err(r.call_error());
        }
        let catalog = view.catalog();
        let served = || -> Vec<String> {
            visible_tools(catalog, profile, allow_arbitrary_code)
                .iter()
                .map(|t| t.name.clone())
                .collect()
        };
        let Some(tool) = catalog.tools.iter().find(|t| t.name == name) else {
            let names = served();
            let close =
                crate::catalog::suggest::close_names(name, names.iter().map(String::as_str));
            let mut e = CallError::input(
                "TOOL_NOT_FOUND",
                format!(
                    "tool {name:?} is no longer in the Unity Editor's tool catalog (removed or \
                     renamed); read tools/list again"
                ),
            )
            .with_data(json!({"tool": name, "profile": profile, "did_you_mean": close}));
            e.suggestions = close;
            return Err(e);
        };
        if !visible(tool, profile, allow_arbitrary_code) {
            if tool.in_profile(profile) && tool.is_arbitrary_code() {
                return Err(arbitrary_code_refused(name));
            }
            return Err(CallError::input(
                "TOOL_NOT_FOUND",
                format!(
                    "tool {name:?} is not in profile {profile:?} (its profiles: {}); read \
                     tools/list for this server's tools",
                    if tool.profiles.is_empty() {
                        "none".to_string()
                    } else {
                        tool.profiles.join(", ")
                    }
                ),
            )
            .with_data(json!({"tool": name, "profile": profile, "tool_profiles": tool.profiles})));
        }
        if let Some(before) = &self.before
            && before.snapshot.catalog_hash() != view.snapshot.catalog_hash()
            && let Some(old) = before.catalog().tools.iter().find(|t| t.name == name)
            && definition_json(old) != definition_json(tool)
        {
            return Err(stale(
                name,
                "the tool's contract changed in the Editor's new catalog",
            ));
        }
        Ok(tool)
    }
}

/// The tools a native call may name: its profile's, as its client's list showed them.
pub struct NativeScope {
    pub call: NativeCall,
    pub allow_arbitrary_code: bool,
}

impl ToolScope for NativeScope {
    fn admit<'v>(&self, view: &'v CatalogView, name: &str) -> Result<&'v ToolEntry, CallError> {
        self.call.resolve(view, name, self.allow_arbitrary_code)
    }
    fn take_controls(
        &self,
        tool: &ToolEntry,
        arguments: &mut Map<String, Value>,
    ) -> Result<CallControls, CallError> {
        take_controls(tool, arguments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::compact::tests::sample_catalog;

    fn tool<'a>(c: &'a Catalog, name: &str) -> &'a ToolEntry {
        c.tools.iter().find(|t| t.name == name).unwrap()
    }

    #[test]
    fn annotations_fold_every_safety() {
        let c = sample_catalog();
        // scene: info is read-only, close destructive, load write.
        let a = definition_json(tool(&c, "scene"))["annotations"].clone();
        assert_eq!(a["readOnlyHint"], false);
        assert_eq!(a["destructiveHint"], true);
        assert_eq!(a["idempotentHint"], false);
        assert_eq!(a["openWorldHint"], false);
        // console: read-only itself, but a rule (clear) is destructive.
        let f = fold(tool(&c, "console"));
        assert!(!f.read_only && f.destructive && f.requires_confirmation);
        // exec: arbitrary code is open-world.
        assert!(fold(tool(&c, "exec")).open_world);
    }

    #[test]
    fn visibility_gates_arbitrary_code_by_safety() {
        let mut c = sample_catalog();
        for t in c.tools.iter_mut() {
            t.profiles.push("custom".into());
        }
        let names = |allow| -> Vec<String> {
            visible_tools(&c, "custom", allow)
                .iter()
                .map(|t| t.name.clone())
                .collect()
        };
        assert!(!names(false).contains(&"exec".to_string()));
        assert!(names(true).contains(&"exec".to_string()));
        let n = names(true);
        let mut sorted = n.clone();
        sorted.sort();
        assert_eq!(n, sorted);
    }

    #[test]
    fn controls_are_added_only_where_they_mean_something() {
        let c = sample_catalog();
        let d = definition_json(tool(&c, "scene"));
        let props = d["inputSchema"]["properties"].as_object().unwrap();
        assert!(props.contains_key(APPROVAL_TOKEN_ARG));
        assert!(props.contains_key(OPERATION_ID_ARG));
        let mut args =
            json!({"action":"close","path":"a","approval_token":"t","operation_id":"op_12345678"})
                .as_object()
                .cloned()
                .unwrap();
        let controls = take_controls(tool(&c, "scene"), &mut args).unwrap();
        assert_eq!(controls.operation_id.as_deref(), Some("op_12345678"));
        assert_eq!(controls.approval_token.as_deref(), Some("t"));
        assert_eq!(args.len(), 2);
        let mut bad = json!({"approval_token": 5}).as_object().cloned().unwrap();
        let e = take_controls(tool(&c, "scene"), &mut bad).unwrap_err();
        assert_eq!(e.data["pointer"], "/approval_token");
    }

    #[test]
    fn long_descriptions_and_schemas_are_cut_honestly() {
        let mut c = sample_catalog();
        let t = c.tools.iter_mut().find(|t| t.name == "scene").unwrap();
        t.description = "é".repeat(3000);
        let mut props = Map::new();
        for i in 0..200 {
            props.insert(
                format!("p{i}"),
                json!({"type":"string","description":"x".repeat(60),"pattern":"^a+$"}),
            );
        }
        props.insert(
            "action".into(),
            json!({"type":"string","enum":["close","info","load"],"description":"which"}),
        );
        t.input_schema = json!({"type":"object","additionalProperties":false,"properties":props,"required":["action"]});
        let d = definition_json(t);
        let desc = d["description"].as_str().unwrap();
        assert!(chars(desc) <= MAX_DESCRIPTION_CHARS, "{}", chars(desc));
        assert!(desc.contains("shortened"));
        let schema = &d["inputSchema"];
        assert!(len(schema) <= MAX_INPUT_SCHEMA_CHARS);
        // Still closed over the same names, still requires action, still lists the actions.
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], json!(["action"]));
        assert_eq!(
            schema["properties"]["action"]["enum"],
            json!(["close", "info", "load"])
        );
        assert!(schema["properties"]["p199"].is_object());
        // Every call the full schema admits, the shortened one admits.
        let full = jsonschema::validator_for(&input_schema(t)).unwrap();
        let small = jsonschema::validator_for(schema).unwrap();
        let ok = json!({"action":"load","p3":"aaa","approval_token":"x"});
        assert!(full.is_valid(&ok) && small.is_valid(&ok));
        assert!(!small.is_valid(&json!({"action":"load","zzz":1})));
    }

    #[test]
    fn strip_keeps_parameters_named_like_keywords() {
        let mut s = json!({"type":"object","description":"d","properties":{
            "description":{"type":"string","description":"the text"},
            "title":{"type":"string"}},
            "oneOf":[{"required":["title"],"description":"x"}]});
        strip_annotations(&mut s);
        assert_eq!(
            s,
            json!({"type":"object","properties":{"description":{"type":"string"},"title":{"type":"string"}},"oneOf":[{"required":["title"]}]})
        );
    }
}
