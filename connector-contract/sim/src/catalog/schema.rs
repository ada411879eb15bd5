//! The Connector's construction rules (the Connector's schema-building rules, connector-contract/README.md §3, connector-contract/README.md §3.3–§3.7),
//! applied to the data file: parameter schemas (description, `AllowNull`), object schemas,
//! argument-group encodings, the action const, output schemas, safety normalization, profiles
//! and titles.
//!
//! Each built schema is paired with the contract the validator reads, so both views come from
//! one pass over the data and cannot drift apart.

use super::contract::{GroupContract, ParamContract, SchemaContract, Term};
use super::data::{ActionSpec, GroupMode, GroupSpec, ParamSpec, RuleSpec, ToolSpec, ValueKind};
use hera_connector_contract::canonical::{canonical_text_of_value, cmp_utf16};
use hera_connector_contract::catalog::{
    ActionEntry, Example, RiskClass, Safety, SafetyRule, Source, ToolEntry,
};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// One built-in tool: its published entry plus the validator's view of every schema in it.
#[derive(Debug, Clone)]
pub(crate) struct BuiltTool {
    pub entry: ToolEntry,
    pub tool_contract: SchemaContract,
    pub action_contracts: BTreeMap<String, SchemaContract>,
}

/// Re-inserts object keys in ordinal order, recursively, so the value serializes canonically
/// whatever map implementation `serde_json` was compiled with.
pub(crate) fn sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut items: Vec<(String, Value)> = m.into_iter().collect();
            items.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
            Value::Object(items.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// `run_tests` → `Run Tests`, `ui_slop` → `Ui Slop` (§3.3: no built-in sets `Title`).
pub(crate) fn title_of(name: &str) -> String {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// §1.4 steps 1–4 for one parameter: base schema, top-level `description`, then `AllowNull`.
pub(crate) fn param_schema(p: &ParamSpec) -> Value {
    let mut schema = match &p.schema {
        Value::Object(m) => m.clone(),
        other => panic!(
            "tools.json: parameter {} has a non-object schema {other}",
            p.name
        ),
    };
    if !p.description.trim().is_empty() {
        schema.insert("description".into(), Value::String(p.description.clone()));
    }
    let schema = if p.allow_null {
        allow_null(schema)
    } else {
        Value::Object(schema)
    };
    sorted(schema)
}

/// `AllowNull` (§1.4 step 4). An `enum` is deliberately not extended with `null`.
fn allow_null(mut schema: Map<String, Value>) -> Value {
    let null_branch = json!({"type": "null"});
    match schema.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            schema.insert("type".into(), json!([t, "null"]));
            return Value::Object(schema);
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(Value::String("null".into()));
            }
            return Value::Object(schema);
        }
        _ => {}
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = schema.get_mut(key) {
            branches.push(null_branch);
            return Value::Object(schema);
        }
    }
    json!({"anyOf": [Value::Object(schema), null_branch]})
}

/// The presence test `P(name)` of one group term (§1.6).
fn presence_test(term: &Term, kind: ValueKind) -> Value {
    let x = match &term.value {
        Some(v) => json!({"const": v}),
        None if kind == ValueKind::String => json!({"pattern": "\\S"}),
        None => json!({"not": {"type": "null"}}),
    };
    json!({"properties": {term.name.clone(): x}, "required": [term.name.clone()]})
}

/// Parses `name` or `name=<JSON literal>` (the literal is parsed as JSON when possible).
pub(crate) fn parse_term(raw: &str) -> Term {
    match raw.split_once('=') {
        Some((name, lit)) => Term {
            name: name.trim().to_lowercase(),
            value: Some(
                serde_json::from_str(lit.trim())
                    .unwrap_or_else(|_| Value::String(lit.trim().to_string())),
            ),
        },
        None => Term {
            name: raw.trim().to_lowercase(),
            value: None,
        },
    }
}

fn group_contract(g: &GroupSpec) -> GroupContract {
    GroupContract {
        mode: g.mode,
        terms: g.terms.iter().map(|t| parse_term(t)).collect(),
        path: g.path.clone().unwrap_or_else(|| "/".to_string()),
        expected: g.expected.clone().unwrap_or_else(|| g.terms.join(" or ")),
        missing_code: g
            .missing_code
            .clone()
            .unwrap_or_else(|| "MISSING_ARGUMENT".to_string()),
        conflict_code: g
            .conflict_code
            .clone()
            .unwrap_or_else(|| "ARGUMENT_CONFLICT".to_string()),
    }
}

/// §1.5 + §1.6: the object schema of one parameter set, and its validator contract.
/// `action` is `Some(name)` for an action schema (adds the const and requires it).
pub(crate) fn object_schema(
    params: Option<&[ParamSpec]>,
    groups: &[GroupSpec],
    action: Option<&str>,
    where_: &str,
) -> (Value, SchemaContract) {
    let mut properties = Map::new();
    let mut required: Vec<String> = Vec::new();
    let mut contract = SchemaContract::default();
    for p in params.unwrap_or(&[]) {
        let schema = param_schema(p);
        if properties.insert(p.name.clone(), schema.clone()).is_some() {
            panic!("tools.json: {where_} declares parameter {} twice", p.name);
        }
        if p.required {
            required.push(p.name.clone());
        }
        contract.params.push(ParamContract {
            name: p.name.clone(),
            kind: p.kind,
            schema,
            required: p.required,
            allow_null: p.allow_null,
            aliases: p.aliases.clone(),
        });
    }
    if let Some(a) = action {
        properties.insert("action".into(), json!({"const": a, "type": "string"}));
        required.push("action".into());
    }
    required.sort_by(|a, b| cmp_utf16(a, b));

    let mut one_of: Vec<Value> = Vec::new();
    let mut all_of: Vec<Value> = Vec::new();
    for g in groups {
        let gc = group_contract(g);
        let tests: Vec<Value> = gc
            .terms
            .iter()
            .map(|t| {
                let kind = contract
                    .param(&t.name)
                    .unwrap_or_else(|| {
                        panic!(
                            "tools.json: {where_} has a group term {} that is not a parameter",
                            t.name
                        )
                    })
                    .kind;
                presence_test(t, kind)
            })
            .collect();
        match g.mode {
            GroupMode::ExactlyOne => one_of.extend(tests),
            GroupMode::AtLeastOne => all_of.push(json!({"anyOf": tests})),
            GroupMode::AtMostOne => {
                for i in 0..tests.len() {
                    for j in i + 1..tests.len() {
                        all_of
                            .push(json!({"not": {"allOf": [tests[i].clone(), tests[j].clone()]}}));
                    }
                }
            }
            GroupMode::RequiredWhen => {
                let mut branches = vec![json!({"not": tests[0].clone()})];
                branches.extend(tests[1..].iter().cloned());
                all_of.push(json!({"anyOf": branches}));
            }
        }
        contract.groups.push(gc);
    }

    let mut schema = Map::new();
    schema.insert("additionalProperties".into(), Value::Bool(false));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("type".into(), json!("object"));
    if !one_of.is_empty() {
        schema.insert("oneOf".into(), Value::Array(one_of));
    }
    if !all_of.is_empty() {
        schema.insert("allOf".into(), Value::Array(all_of));
    }
    (sorted(Value::Object(schema)), contract)
}

/// §3.6 output schema: the success/message/data envelope around the handler's data schema.
pub(crate) fn output_schema(data: &Value) -> Value {
    sorted(json!({
        "properties": {"data": data, "message": {"type": "string"}, "success": {"type": "boolean"}},
        "type": "object"
    }))
}

fn rule(r: &RuleSpec, tool_risk: RiskClass) -> SafetyRule {
    let mut safety = r.safety.decl().normalize(Some(tool_risk));
    safety.rules = Vec::new();
    SafetyRule {
        operation: r.operation.clone(),
        when: r
            .when
            .iter()
            .map(|(k, v)| (k.clone(), json!({"const": v})))
            .collect(),
        safety,
    }
}

/// Tool safety with its rules, sorted by operation, then the `when` text (§3.5).
pub(crate) fn tool_safety(spec: &ToolSpec) -> Safety {
    let mut safety = spec.safety.decl().normalize(None);
    let mut rules: Vec<SafetyRule> = spec
        .rules
        .iter()
        .map(|r| rule(r, safety.risk_class))
        .collect();
    rules.sort_by(|a, b| {
        let wa = canonical_text_of_value(&json!(a.when));
        let wb = canonical_text_of_value(&json!(b.when));
        cmp_utf16(&a.operation, &b.operation).then_with(|| cmp_utf16(&wa, &wb))
    });
    safety.rules = rules;
    safety
}

/// §3.7: declared profiles trimmed, lower-cased, de-duplicated and sorted; `full` for a strict
/// tool that does not run arbitrary code; `custom` for a strict non-built-in tool that declared
/// none; nothing at all when the risk is unspecified.
pub(crate) fn published_profiles(
    declared: &[String],
    risk: RiskClass,
    strict: bool,
    builtin: bool,
) -> Vec<String> {
    if risk == RiskClass::Unspecified {
        return Vec::new();
    }
    let mut out: Vec<String> = declared
        .iter()
        .map(|p| p.trim().to_lowercase())
        .filter(|p| !p.is_empty())
        .collect();
    let declared_none = out.is_empty();
    if strict && risk != RiskClass::ArbitraryCode {
        out.push("full".into());
    }
    if strict && !builtin && declared_none {
        out.push("custom".into());
    }
    out.sort_by(|a, b| cmp_utf16(a, b));
    out.dedup();
    out
}

fn action_entry(a: &ActionSpec, tool: &str) -> (ActionEntry, SchemaContract) {
    let where_ = format!("{tool}/{}", a.name);
    let (input, contract) = object_schema(Some(&a.parameters), &a.groups, Some(&a.name), &where_);
    let mut safety = a.safety.decl().normalize(None);
    safety.rules = Vec::new();
    let entry = ActionEntry {
        name: a.name.trim().to_lowercase(),
        description: a.description.clone(),
        aliases: Vec::new(),
        input_schema: input,
        output_schema: output_schema(&a.output),
        safety,
    };
    (entry, contract)
}

/// Builds one built-in tool entry exactly as the Connector's catalog builder would.
pub(crate) fn build_tool(spec: &ToolSpec) -> BuiltTool {
    let (input, tool_contract) =
        object_schema(spec.parameters.as_deref(), &spec.groups, None, &spec.name);
    let safety = tool_safety(spec);
    let mut actions: Vec<(ActionEntry, SchemaContract)> = spec
        .actions
        .iter()
        .map(|a| action_entry(a, &spec.name))
        .collect();
    actions.sort_by(|a, b| cmp_utf16(&a.0.name, &b.0.name));
    let mut action_contracts = BTreeMap::new();
    let mut entries = Vec::with_capacity(actions.len());
    for (entry, contract) in actions {
        if action_contracts
            .insert(entry.name.clone(), contract)
            .is_some()
        {
            panic!(
                "tools.json: {} declares action {} twice",
                spec.name, entry.name
            );
        }
        entries.push(entry);
    }
    let entry = ToolEntry {
        name: spec.name.clone(),
        title: title_of(&spec.name),
        description: spec.description.clone(),
        source: Source {
            kind: "builtin".into(),
            assembly: spec.source.assembly.clone(),
            type_name: spec.source.type_name.clone(),
        },
        contract_mode: "strict".into(),
        profiles: published_profiles(&spec.profiles, safety.risk_class, true, true),
        aliases: Vec::new(),
        examples: spec
            .examples
            .iter()
            .map(|e| Example {
                call: e.call.clone(),
                description: e.description.clone(),
            })
            .collect(),
        input_schema: input,
        output_schema: output_schema(&spec.output),
        actions: entries,
        safety,
    };
    BuiltTool {
        entry,
        tool_contract,
        action_contracts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, kind: ValueKind, schema: Value, allow_null: bool) -> ParamSpec {
        ParamSpec {
            name: name.into(),
            kind,
            schema,
            required: false,
            allow_null,
            aliases: vec![],
            description: "Words.".into(),
        }
    }

    #[test]
    fn allow_null_follows_the_four_cases() {
        let s = param_schema(&param(
            "a",
            ValueKind::String,
            json!({"type": "string"}),
            true,
        ));
        assert_eq!(
            s,
            json!({"description": "Words.", "type": ["string", "null"]})
        );
        let s = param_schema(&param(
            "a",
            ValueKind::Token,
            json!({"oneOf": [{"type": "integer"}]}),
            true,
        ));
        assert_eq!(
            s,
            json!({"description": "Words.", "oneOf": [{"type": "integer"}, {"type": "null"}]})
        );
        let s = param_schema(&param("a", ValueKind::Token, json!({}), true));
        assert_eq!(
            s,
            json!({"anyOf": [{"description": "Words."}, {"type": "null"}]})
        );
        let s = param_schema(&param(
            "a",
            ValueKind::Integer,
            json!({"type": ["integer", "null"]}),
            true,
        ));
        assert_eq!(
            s,
            json!({"description": "Words.", "type": ["integer", "null"]})
        );
        // An enum is not extended.
        let s = param_schema(&param(
            "a",
            ValueKind::String,
            json!({"type": "string", "enum": ["x"]}),
            true,
        ));
        assert_eq!(s["enum"], json!(["x"]));
    }

    #[test]
    fn titles_capitalize_each_word() {
        assert_eq!(title_of("find_gameobjects"), "Find Gameobjects");
        assert_eq!(title_of("manage_ui"), "Manage Ui");
        assert_eq!(title_of("log"), "Log");
    }

    #[test]
    fn profiles_get_full_and_custom_by_rule() {
        let p = |d: &[&str], r, b| {
            published_profiles(
                &d.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                r,
                true,
                b,
            )
        };
        assert_eq!(
            p(&["Scene ", "core", "scene"], RiskClass::Write, true),
            vec!["core", "full", "scene"]
        );
        assert_eq!(
            p(&["advanced"], RiskClass::ArbitraryCode, true),
            vec!["advanced"]
        );
        assert_eq!(p(&[], RiskClass::Write, false), vec!["custom", "full"]);
        assert!(p(&["core"], RiskClass::Unspecified, true).is_empty());
    }

    #[test]
    fn groups_encode_as_published() {
        let params = vec![
            param("a", ValueKind::String, json!({"type": "string"}), false),
            param(
                "b",
                ValueKind::Integer,
                json!({"type": ["integer", "null"]}),
                false,
            ),
            param("c", ValueKind::Boolean, json!({"type": "boolean"}), false),
        ];
        let groups = vec![
            GroupSpec {
                mode: GroupMode::ExactlyOne,
                terms: vec!["a".into(), "b".into()],
                path: None,
                expected: None,
                missing_code: None,
                conflict_code: None,
            },
            GroupSpec {
                mode: GroupMode::AtMostOne,
                terms: vec!["a".into(), "b".into(), "c=true".into()],
                path: None,
                expected: None,
                missing_code: None,
                conflict_code: None,
            },
            GroupSpec {
                mode: GroupMode::RequiredWhen,
                terms: vec!["c=true".into(), "a".into()],
                path: Some("/c".into()),
                expected: None,
                missing_code: None,
                conflict_code: None,
            },
        ];
        let (schema, contract) = object_schema(Some(&params), &groups, Some("go"), "t/go");
        let pa = json!({"properties": {"a": {"pattern": "\\S"}}, "required": ["a"]});
        let pb = json!({"properties": {"b": {"not": {"type": "null"}}}, "required": ["b"]});
        let pc = json!({"properties": {"c": {"const": true}}, "required": ["c"]});
        assert_eq!(schema["oneOf"], json!([pa, pb]));
        assert_eq!(
            schema["allOf"],
            json!([
                {"not": {"allOf": [pa, pb]}},
                {"not": {"allOf": [pa, pc]}},
                {"not": {"allOf": [pb, pc]}},
                {"anyOf": [{"not": pc}, pa]}
            ])
        );
        assert_eq!(schema["required"], json!(["action"]));
        assert_eq!(
            schema["properties"]["action"],
            json!({"const": "go", "type": "string"})
        );
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(contract.groups[0].expected, "a or b");
        assert_eq!(contract.groups[2].path, "/c");
    }

    #[test]
    fn empty_required_is_omitted() {
        let (schema, _) = object_schema(None, &[], None, "t");
        assert_eq!(
            schema,
            json!({"additionalProperties": false, "properties": {}, "type": "object"})
        );
    }
}
