//! The simulator's built-in catalog against the committed extract of the shared reference
//! (`connector-contract/vectors/tool-*-reference.tsv`, written by
//! `connector-contract/sim/catalog/generate.py` from the Connector's schema-building rules, connector-contract/README.md §3 and
//! connector-contract/README.md §13). CI cannot read the reference itself, so the extract is the
//! yardstick: every schema's parameters, types, constraints and required flags, every argument
//! group's encoding, every safety and profile, and the catalog hash.

use hera_connector_contract::canonical::{catalog_hash_text, cmp_utf16};
use hera_connector_contract::catalog::{Catalog, RiskClass, Safety, ToolEntry};
use hera_connector_sim::catalog::{
    ActionResolution, ToolSet, effective_safety, resolve_action, validate,
};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};

const PARAMS_TSV: &str = include_str!("../../../vectors/tool-parameters-reference.tsv");
const SCHEMAS_TSV: &str = include_str!("../../../vectors/tool-schemas-reference.tsv");
const GROUPS_TSV: &str = include_str!("../../../vectors/tool-groups-reference.tsv");
const SAFETY_TSV: &str = include_str!("../../../vectors/tool-safety-reference.tsv");
const INVENTORY_TSV: &str = include_str!("../../../vectors/tool-inventory-reference.tsv");
const OUTPUTS_TSV: &str = include_str!("../../../vectors/tool-outputs-reference.tsv");

/// Rows of a TSV as header-name → cell maps (comment lines skipped).
fn rows(text: &str) -> Vec<BTreeMap<String, String>> {
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty());
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split('\t').collect();
            assert_eq!(cells.len(), header.len(), "bad row {l:?}");
            header
                .iter()
                .zip(cells)
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect()
        })
        .collect()
}

fn schema_of<'a>(tool: &'a ToolEntry, action: &str) -> &'a Value {
    if action == "-" {
        &tool.input_schema
    } else {
        &tool
            .action(action)
            .unwrap_or_else(|| panic!("{}/{action} missing", tool.name))
            .input_schema
    }
}

/// A published parameter schema without our `description` (top level, or inside the first
/// `anyOf` branch where `AllowNull` wrapped the whole schema).
fn without_description(mut v: Value) -> (Value, Option<String>) {
    let obj = v.as_object_mut().unwrap();
    if let Some(Value::String(d)) = obj.remove("description") {
        return (v, Some(d));
    }
    if let Some(Value::Array(branches)) = obj.get_mut("anyOf")
        && let Some(Value::Object(first)) = branches.first_mut()
        && let Some(Value::String(d)) = first.remove("description")
    {
        return (v, Some(d));
    }
    (v, None)
}

fn set() -> ToolSet {
    ToolSet::builtin()
}

fn strictly_sorted<'a>(names: impl Iterator<Item = &'a str>) -> bool {
    let v: Vec<&str> = names.collect();
    v.windows(2)
        .all(|w| cmp_utf16(w[0], w[1]) == std::cmp::Ordering::Less)
}

#[test]
fn tools_actions_and_titles_match_the_inventory() {
    let tools = set();
    let inventory = rows(INVENTORY_TSV);
    assert_eq!(tools.names().len(), 34);
    assert_eq!(inventory.len(), 34);
    assert!(
        strictly_sorted(tools.tools().iter().map(|t| t.name.as_str())),
        "tools sorted and unique"
    );
    let mut action_total = 0;
    for (t, row) in tools.tools().iter().zip(&inventory) {
        assert_eq!(t.name, row["tool"]);
        assert_eq!(t.title, row["title"], "title of {}", t.name);
        assert_eq!(t.contract_mode, "strict");
        assert_eq!(t.source.kind, "builtin");
        assert!(
            t.source
                .type_name
                .ends_with(&format!(".{}", row["csharp_class"])),
            "{}",
            t.name
        );
        assert!(t.aliases.is_empty());
        assert!(
            !t.description.trim().is_empty(),
            "{} needs a description",
            t.name
        );
        assert!(
            t.description.len() <= 1000,
            "{} description must fit a 1,000-character client cap",
            t.name
        );
        let names: Vec<&str> = t.actions.iter().map(|a| a.name.as_str()).collect();
        let want: Vec<&str> = if row["actions"] == "-" {
            vec![]
        } else {
            row["actions"].split(',').collect()
        };
        assert_eq!(names, want, "actions of {}", t.name);
        assert!(
            strictly_sorted(names.iter().copied()),
            "actions of {} sorted",
            t.name
        );
        for a in &t.actions {
            assert!(a.aliases.is_empty());
            // The real Connector declares no action description; the prose that helps an
            // agent lives in the tool and parameter descriptions instead.
            assert_eq!(
                a.description, "",
                "{}/{} publishes no description",
                t.name, a.name
            );
            assert!(a.safety.rules.is_empty(), "rules live at tool level only");
        }
        action_total += t.actions.len();
    }
    assert_eq!(action_total, 133);
}

#[test]
fn every_schema_has_the_reference_parameters() {
    let tools = set();
    let schemas = rows(SCHEMAS_TSV);
    let params = rows(PARAMS_TSV);
    assert_eq!(schemas.len(), 167);
    assert_eq!(params.len(), 667, "every property of every schema");
    assert_eq!(
        params.iter().filter(|r| r["printed"] == "yes").count(),
        587,
        "rows printed in the reference tables"
    );
    assert_eq!(schemas.iter().filter(|r| r["action"] == "-").count(), 34);

    let mut by_schema: BTreeMap<(String, String), Vec<&BTreeMap<String, String>>> = BTreeMap::new();
    for r in &params {
        by_schema
            .entry((r["tool"].clone(), r["action"].clone()))
            .or_default()
            .push(r);
    }
    let mut checked_rows = 0;
    for s in &schemas {
        let tool = tools.get(&s["tool"]).unwrap();
        let action = s["action"].as_str();
        let schema = schema_of(tool, action);
        let where_ = format!("{}/{}", s["tool"], action);
        let expected = by_schema
            .remove(&(s["tool"].clone(), s["action"].clone()))
            .unwrap_or_default();
        assert_eq!(
            expected.len(),
            s["params"].parse::<usize>().unwrap(),
            "{where_}"
        );

        assert_eq!(schema["type"], "object", "{where_}");
        assert_eq!(schema["additionalProperties"], false, "{where_}");
        let props = schema["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{where_} properties"));
        let mut names: BTreeSet<&str> = props.keys().map(String::as_str).collect();
        if action != "-" {
            assert_eq!(
                props["action"],
                json!({"const": action, "type": "string"}),
                "{where_}"
            );
            names.remove("action");
        }
        let want: BTreeSet<&str> = expected.iter().map(|r| r["param"].as_str()).collect();
        assert_eq!(names, want, "{where_} parameter names");

        let mut required: Vec<String> = expected
            .iter()
            .filter(|r| r["required"] == "yes")
            .map(|r| r["param"].clone())
            .collect();
        if action != "-" {
            required.push("action".into());
        }
        required.sort_by(|a, b| cmp_utf16(a, b));
        match schema.get("required") {
            None => assert!(required.is_empty(), "{where_} required missing"),
            Some(r) => {
                assert!(
                    !required.is_empty(),
                    "{where_}: an empty required is omitted"
                );
                assert_eq!(r, &json!(required), "{where_} required (sorted)");
            }
        }

        for r in &expected {
            let (published, description) = without_description(props[&r["param"]].clone());
            let want: Value = serde_json::from_str(&r["schema"]).unwrap();
            assert_eq!(published, want, "{where_}.{} schema", r["param"]);
            assert!(
                description.is_some_and(|d| !d.trim().is_empty()),
                "{where_}.{} description",
                r["param"]
            );
            checked_rows += 1;
        }
        if s["parameters_class"] == "no" && action == "-" {
            assert_eq!(
                schema,
                &json!({"additionalProperties": false, "properties": {}, "type": "object"}),
                "{where_}"
            );
        }
    }
    assert!(
        by_schema.is_empty(),
        "rows for unknown schemas: {:?}",
        by_schema.keys()
    );
    assert_eq!(checked_rows, 667);
}

/// The presence test of a group term, re-derived from the reference's JSON type column.
fn presence(term: &str, types: &BTreeMap<&str, &str>) -> Value {
    let (name, x) = match term.split_once('=') {
        Some((n, lit)) => (
            n,
            json!({"const": serde_json::from_str::<Value>(lit).unwrap()}),
        ),
        None if types[term] == "string" => (term, json!({"pattern": "\\S"})),
        None => (term, json!({"not": {"type": "null"}})),
    };
    json!({"properties": {name: x}, "required": [name]})
}

#[test]
fn argument_groups_are_encoded_in_order() {
    let tools = set();
    let groups = rows(GROUPS_TSV);
    let params = rows(PARAMS_TSV);
    assert_eq!(groups.len(), 62);
    let mut by_schema: BTreeMap<(String, String), Vec<&BTreeMap<String, String>>> = BTreeMap::new();
    for g in &groups {
        by_schema
            .entry((g["tool"].clone(), g["action"].clone()))
            .or_default()
            .push(g);
    }
    for s in rows(SCHEMAS_TSV) {
        let tool = tools.get(&s["tool"]).unwrap();
        let schema = schema_of(tool, &s["action"]);
        let gs = by_schema
            .remove(&(s["tool"].clone(), s["action"].clone()))
            .unwrap_or_default();
        assert_eq!(gs.len(), s["groups"].parse::<usize>().unwrap());
        let types: BTreeMap<&str, &str> = params
            .iter()
            .filter(|p| p["tool"] == s["tool"] && p["action"] == s["action"])
            .map(|p| (p["param"].as_str(), p["type"].as_str()))
            .collect();
        let mut one_of = Vec::new();
        let mut all_of = Vec::new();
        for g in gs {
            let tests: Vec<Value> = g["terms"].split(',').map(|t| presence(t, &types)).collect();
            match g["mode"].as_str() {
                "exactly_one" => one_of.extend(tests),
                "at_least_one" => all_of.push(json!({"anyOf": tests})),
                "at_most_one" => {
                    for i in 0..tests.len() {
                        for j in i + 1..tests.len() {
                            all_of.push(json!({"not": {"allOf": [tests[i], tests[j]]}}));
                        }
                    }
                }
                "required_when" => {
                    let mut b = vec![json!({"not": tests[0]})];
                    b.extend(tests[1..].iter().cloned());
                    all_of.push(json!({"anyOf": b}));
                }
                m => panic!("unknown mode {m}"),
            }
        }
        let where_ = format!("{}/{}", s["tool"], s["action"]);
        assert_eq!(
            schema.get("oneOf"),
            (!one_of.is_empty()).then(|| json!(one_of)).as_ref(),
            "{where_} oneOf"
        );
        assert_eq!(
            schema.get("allOf"),
            (!all_of.is_empty()).then(|| json!(all_of)).as_ref(),
            "{where_} allOf"
        );
    }
    assert!(by_schema.is_empty());
}

/// A group's error metadata reaches the wire: each group row is exercised through the validator.
#[test]
fn group_metadata_reaches_validation_errors() {
    let tools = set();
    let mut checked = BTreeSet::new();
    for g in rows(GROUPS_TSV) {
        if g["mode"] != "exactly_one" && g["mode"] != "at_least_one" {
            continue;
        }
        let tool = tools.get(&g["tool"]).unwrap();
        let (action, mut params) = if g["action"] == "-" {
            (None, Map::new())
        } else {
            let mut m = Map::new();
            m.insert("action".into(), json!(g["action"]));
            (tool.action(&g["action"]), m)
        };
        // Groups are checked in order, so with no group term present the first group that
        // needs a term is the one that reports.
        let first_missing = rows(GROUPS_TSV)
            .into_iter()
            .find(|o| {
                o["tool"] == g["tool"]
                    && o["action"] == g["action"]
                    && (o["mode"] == "exactly_one" || o["mode"] == "at_least_one")
            })
            .unwrap();
        if first_missing["index"] != g["index"] {
            continue;
        }
        // Fill required non-group parameters with a value of the right type.
        let schema = schema_of(tool, &g["action"]);
        for r in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = r.as_str().unwrap();
            if name == "action" {
                continue;
            }
            let t = &schema["properties"][name];
            params.insert(name.into(), sample(t));
        }
        let e = validate(tool, action, &params)
            .expect_err(&format!("{}/{} {:?}", g["tool"], g["action"], params));
        assert_eq!(e.code, g["missing_code"], "{}/{}", g["tool"], g["action"]);
        assert_eq!(e.data["path"], g["path"].as_str());
        assert_eq!(e.data["expected"], g["expected"].as_str());
        assert_eq!(e.message, format!("Validation failed at '{}'.", g["path"]));
        checked.insert((g["tool"].clone(), g["action"].clone()));
    }
    let needing: BTreeSet<(String, String)> = rows(GROUPS_TSV)
        .into_iter()
        .filter(|g| g["mode"] == "exactly_one" || g["mode"] == "at_least_one")
        .map(|g| (g["tool"].clone(), g["action"].clone()))
        .collect();
    assert_eq!(checked, needing);
    assert_eq!(checked.len(), 29);
}

/// A value that passes a property schema of the kinds the built-ins use for required
/// parameters (scalars, enums, and the `XYZ`/`LAYER`/`ANYVAL` combinators).
fn sample(schema: &Value) -> Value {
    if let Some(Value::Array(e)) = schema.get("enum") {
        return e[0].clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let plain = branches
                .iter()
                .find(|b| b.get("pattern").is_none())
                .unwrap_or(&branches[0]);
            return sample(plain);
        }
    }
    let ty = match &schema["type"] {
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts[0].as_str().unwrap().to_string(),
        _ => return json!("x"),
    };
    match ty.as_str() {
        "integer" | "number" => json!(1),
        "boolean" => json!(true),
        "array" => {
            let n = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            Value::Array(vec![sample(&schema["items"]); n])
        }
        "object" => json!({}),
        _ => json!("x"),
    }
}

#[test]
fn profiles_match_section_13() {
    let tools = set();
    let mut sizes: BTreeMap<String, usize> = BTreeMap::new();
    for (t, row) in tools.tools().iter().zip(rows(INVENTORY_TSV)) {
        assert_eq!(
            t.profiles.join(","),
            row["profiles"],
            "profiles of {}",
            t.name
        );
        assert!(strictly_sorted(t.profiles.iter().map(String::as_str)));
        let arbitrary = t.safety.risk_class == RiskClass::ArbitraryCode;
        assert_eq!(
            t.profiles.contains(&"full".to_string()),
            !arbitrary,
            "{}: full iff not arbitrary code",
            t.name
        );
        for p in &t.profiles {
            *sizes.entry(p.clone()).or_default() += 1;
        }
    }
    let want: BTreeMap<String, usize> = [
        ("core", 8),
        ("scene", 11),
        ("assets", 9),
        ("ui", 7),
        ("diagnostics", 11),
        ("testing", 6),
        ("advanced", 2),
        ("full", 32),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(sizes, want);
}

/// The §13 notation of a normalized safety: risk plus the flags that are not implied.
fn notation(s: &Safety) -> (String, String) {
    let mut flags = Vec::new();
    if s.requires_confirmation {
        flags.push("approval");
    }
    if s.supports_cancellation {
        flags.push("cancellable");
    }
    if s.destructive && s.risk_class != RiskClass::Destructive {
        flags.push("destructive-flag");
    }
    if s.idempotent && !s.read_only {
        flags.push("idempotent");
    }
    if s.may_reload_domain {
        flags.push("may_reload");
    }
    flags.sort();
    let flags = if flags.is_empty() {
        "-".to_string()
    } else {
        flags.join(",")
    };
    (s.risk_class.as_str().to_string(), flags)
}

fn assert_normalized(s: &Safety, what: &str) {
    assert_eq!(s.read_only, s.risk_class == RiskClass::ReadOnly, "{what}");
    assert_ne!(
        s.risk_class,
        RiskClass::Unspecified,
        "{what}: built-ins may not be unspecified"
    );
    // The only two declarations beyond §13: screenshot is reversible, and four input actions
    // require play mode.
    let play_mode = [
        "input action keyboard",
        "input action mouse",
        "input action replay",
        "input action sequence",
    ];
    assert_eq!(s.requires_play_mode, play_mode.contains(&what), "{what}");
    assert_eq!(s.reversible, what == "screenshot tool -", "{what}");
    assert_eq!(
        s.side_effect_scope,
        s.risk_class.side_effect_scope(),
        "{what}"
    );
    if s.destructive
        || matches!(
            s.risk_class,
            RiskClass::ArbitraryCode | RiskClass::PackageChange | RiskClass::ExternalProcess
        )
    {
        assert!(s.requires_confirmation, "{what}");
    }
}

#[test]
fn safety_matches_section_13() {
    let tools = set();
    let table = rows(SAFETY_TSV);
    let mut seen_rules = 0;
    let mut seen_actions = 0;
    for r in &table {
        let tool = tools.get(&r["tool"]).unwrap();
        let what = format!("{} {} {}", r["tool"], r["scope"], r["name"]);
        let s = match r["scope"].as_str() {
            "tool" => tool.safety.clone(),
            "action" => {
                seen_actions += 1;
                tool.action(&r["name"]).unwrap().safety.clone()
            }
            "rule" => {
                seen_rules += 1;
                let rule = tool
                    .safety
                    .rules
                    .iter()
                    .find(|x| x.operation == r["name"])
                    .unwrap_or_else(|| panic!("{what}"));
                let (param, value) = r["when"].split_once('=').unwrap();
                assert_eq!(
                    json!(rule.when),
                    json!({param: {"const": serde_json::from_str::<Value>(value).unwrap()}}),
                    "{what}"
                );
                assert!(rule.safety.rules.is_empty());
                rule.safety.clone()
            }
            other => panic!("scope {other}"),
        };
        assert_normalized(&s, &what);
        assert_eq!(
            notation(&s),
            (r["risk"].clone(), r["flags"].clone()),
            "{what}"
        );
    }
    assert_eq!(seen_actions, 133);
    assert_eq!(seen_rules, 4);
    let with_rules: Vec<&str> = tools
        .tools()
        .iter()
        .filter(|t| !t.safety.rules.is_empty())
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(
        with_rules,
        vec!["console", "exec", "manage_settings", "screenshot"]
    );
}

/// Resolve, validate and resolve safety exactly as the `/command` pipeline does.
fn call_safety(tools: &ToolSet, tool: &str, params: Value) -> Safety {
    let t = tools.get(tool).unwrap();
    let params = params.as_object().unwrap().clone();
    let (action, normalized) = match resolve_action(t, &params) {
        ActionResolution::Action { name, params, .. } => {
            let n = validate(t, t.action(&name), &params).unwrap();
            (Some(name), n)
        }
        ActionResolution::Default => (None, validate(t, None, &params).unwrap()),
        ActionResolution::Unknown(e) => panic!("{e}"),
    };
    effective_safety(t, action.as_deref(), &normalized).unwrap()
}

#[test]
fn rule_driven_tools_follow_section_13() {
    let tools = set();
    let n = |tool: &str, p: Value| notation(&call_safety(&tools, tool, p));
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());

    // console: reading is read-only; clearing (JSON or coerced string `true`) needs approval.
    assert_eq!(n("console", json!({})), s("read_only", "-"));
    assert_eq!(n("console", json!({"clear": false})), s("read_only", "-"));
    assert_eq!(
        n("console", json!({"clear": true})),
        s("destructive", "approval,idempotent")
    );
    assert_eq!(
        n("console", json!({"clear": "true"})),
        s("destructive", "approval,idempotent")
    );

    // exec: arbitrary code unless it only compiles.
    assert_eq!(
        n("exec", json!({"code": "return 1;"})),
        s("arbitrary_code", "approval")
    );
    assert_eq!(
        n("exec", json!({"code": "return 1;", "compile_only": true})),
        s("write", "idempotent")
    );
    assert_eq!(
        n(
            "exec",
            json!({"args": ["return 1;"], "compile_only": "yes"})
        ),
        s("write", "idempotent")
    );

    // manage_settings: every setter is destructive, and read-only as a dry run.
    let settings = tools.get("manage_settings").unwrap();
    let setters: Vec<&str> = settings
        .actions
        .iter()
        .map(|a| a.name.as_str())
        .filter(|a| a.starts_with("set_"))
        .collect();
    assert_eq!(setters.len(), 9);
    for a in setters {
        let mut base = json!({"action": a});
        if a == "set_input" {
            base["axis"] = json!("Horizontal");
        }
        let wet = n("manage_settings", base.clone());
        assert_eq!(wet.0, "destructive", "{a}");
        assert!(wet.1.contains("approval"), "{a}");
        let mut dry = base.clone();
        dry["dry_run"] = json!(true);
        assert_eq!(
            n("manage_settings", dry),
            s("read_only", "-"),
            "{a} dry run"
        );
    }

    // screenshot: writing a new file is a plain write; overwriting needs approval.
    assert_eq!(n("screenshot", json!({})), s("write", "-"));
    assert_eq!(
        n("screenshot", json!({"overwrite": true})),
        s("write", "approval")
    );

    // Action safety replaces tool safety where no rule matches.
    assert_eq!(n("scene", json!({"action": "info"})), s("read_only", "-"));
    assert_eq!(
        n("scene", json!({"args": ["close", "Assets/A.unity"]})),
        s("destructive", "approval")
    );
    assert_eq!(
        n(
            "manage_packages",
            json!({"action": "add", "identifier": "com.unity.x"})
        ),
        s("package_change", "approval,may_reload")
    );
}

#[test]
fn output_schemas_are_the_connectors() {
    let tools = set();
    let table = rows(OUTPUTS_TSV);
    assert_eq!(table.len(), 167);
    for r in &table {
        let tool = tools.get(&r["tool"]).unwrap();
        let published = if r["action"] == "-" {
            &tool.output_schema
        } else {
            &tool.action(&r["action"]).unwrap().output_schema
        };
        let data: Value = serde_json::from_str(&r["data_schema"]).unwrap();
        assert_eq!(
            *published,
            json!({
                "properties": {
                    "data": data,
                    "message": {"type": "string"},
                    "success": {"type": "boolean"}
                },
                "type": "object"
            }),
            "{}/{}",
            r["tool"],
            r["action"]
        );
    }
    // Spot checks the Connector's own tests make on its schemas.
    let data = |t: &str, a: &str| {
        let t = tools.get(t).unwrap();
        t.action(a).unwrap().output_schema["properties"]["data"].clone()
    };
    assert_eq!(
        data("manage_gameobject", "get_transform")["properties"]["transform"]["properties"]["position"]
            ["properties"]["x"],
        json!({"type": "number"})
    );
    assert_eq!(data("scene", "list")["type"], "array");
    assert_eq!(
        data("scene", "info")["properties"]["active"]["properties"]["is_dirty"],
        json!({"type": "boolean"})
    );
}

#[test]
fn descriptions_are_as_long_as_the_real_catalogs() {
    // The real catalog: 9,940 characters of tool descriptions and 35,588 of parameter
    // descriptions, none for actions. Ours stays within a tenth of both.
    let tools = set();
    let tool_chars: usize = tools
        .tools()
        .iter()
        .map(|t| t.description.chars().count())
        .sum();
    let mut param_chars = 0;
    let mut count = |schema: &Value| {
        for p in schema["properties"].as_object().unwrap().values() {
            let (_, d) = without_description(p.clone());
            param_chars += d.map_or(0, |d| d.chars().count());
        }
    };
    for t in tools.tools() {
        count(&t.input_schema);
        for a in &t.actions {
            count(&a.input_schema);
        }
    }
    assert!((8_946..=10_934).contains(&tool_chars), "{tool_chars}");
    assert!((32_029..=39_147).contains(&param_chars), "{param_chars}");
}

#[test]
fn catalog_hash_verifies() {
    let tools = set();
    let epoch = "5f0c6e9a2b7d4c1e8f3a9b6d2c7e4f1a";
    let project = hera_connector_contract::identity::project_id("/home/dev/Projects/Game");
    let envelope = tools.catalog(epoch, &project);
    let text = serde_json::to_string(&envelope).unwrap();

    // The hash a client recomputes from the received text matches the published one.
    let recomputed = catalog_hash_text(&text).unwrap();
    assert_eq!(envelope["catalog_hash"], recomputed);
    assert_eq!(tools.catalog_hash(), recomputed);
    // Epoch and project are not hashed.
    assert_eq!(
        tools.catalog("another", "sha256:00").get("catalog_hash"),
        envelope.get("catalog_hash")
    );

    // The envelope parses as a catalog and passes a client's structural checks.
    let catalog: Catalog = serde_json::from_str(&text).unwrap();
    assert_eq!(catalog.schema_version, "hera.tool-catalog/1");
    assert_eq!(catalog.domain_epoch, epoch);
    assert_eq!(catalog.project_id, project);
    assert_eq!(catalog.tools.len(), 34);
    assert_eq!(catalog.check_structure(), Vec::<String>::new());
    assert_eq!(catalog.tools, tools.tools());

    // Every tool entry carries exactly the §3.3 keys; every action the §3.4 keys.
    for t in envelope["tools"].as_array().unwrap() {
        let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
        let mut keys = keys;
        keys.sort();
        assert_eq!(
            keys,
            vec![
                "actions",
                "aliases",
                "contract_mode",
                "description",
                "examples",
                "input_schema",
                "name",
                "output_schema",
                "profiles",
                "safety",
                "source",
                "title"
            ]
        );
        for a in t["actions"].as_array().unwrap() {
            let mut keys: Vec<&str> = a.as_object().unwrap().keys().map(String::as_str).collect();
            keys.sort();
            assert_eq!(
                keys,
                vec![
                    "aliases",
                    "description",
                    "input_schema",
                    "name",
                    "output_schema",
                    "safety"
                ]
            );
            assert_eq!(
                a["output_schema"]["properties"]["success"],
                json!({"type": "boolean"})
            );
        }
        assert_eq!(
            t["output_schema"]["properties"]["message"],
            json!({"type": "string"})
        );
        assert_eq!(t["output_schema"]["type"], "object");
    }

    // Numbers keep their literal form (the Connector's schema-building rules, connector-contract/README.md §3).
    assert!(text.contains(r#""maximum":100000,"#) && text.contains(r#""minimum":0.0001,"#));
    assert!(text.contains(r#""minimum":-2147483648,"#));

    // The text is canonical: compact, keys sorted.
    assert_eq!(
        text,
        hera_connector_contract::canonical::canonical_text_of_value(&envelope)
    );

    // Changing the tool set changes the hash; restoring it restores the hash.
    let mut changed = tools.clone();
    let mut extra = tools.get("log").unwrap().clone();
    extra.name = "log2".into();
    extra.source.kind = "custom".into();
    changed.add_custom(extra);
    assert_ne!(changed.catalog_hash(), tools.catalog_hash());
    assert!(changed.remove("log2"));
    assert_eq!(changed.catalog_hash(), tools.catalog_hash());
}
