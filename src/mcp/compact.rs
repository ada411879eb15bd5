//! `tool_search` and `tool_describe` over a catalog view: pure functions of (catalog, arguments).
//!
//! They never contact the Editor, so they work from the cached catalog while it is down.
//!
//! What they return is paid for by the model on every call, so each answer carries what the
//! next step needs and nothing else:
//! - a search hit: identity, a one-line summary and the call's own compact safety
//!   ([`ActionSafety`]); a weak ranking is answered "no action does that; closest: …", and a
//!   capability deliberately absent here (undo, arbitrary code without permission) is named;
//! - `tool_describe(name, action)`: that action's contract only (input and output schema,
//!   safety, the rules that can change it, its examples); nothing of the tool's other actions;
//! - `tool_describe(name)`: the tool's description, examples and action list (with the catalog
//!   hash, epoch and contract mode, which tell an agent which catalog answered); for a tool
//!   without actions, its contract;
//! - full provenance (source assembly and type, contract mode, profiles, catalog hash, domain
//!   epoch) of a contract only when asked for (`provenance: true`).

use super::args::{DescribeArgs, SearchArgs};
use super::envelope::Envelope;
use crate::catalog::profiles::{SUPPORTED_PROFILES, is_supported_profile};
use crate::search::{
    ActionSafety, CompactSafety, MAX_QUERY_CHARS, SearchFilter, SearchHit, Verdict,
};
use crate::session::{CatalogView, Origin};
use hera_connector_contract::catalog::{ActionEntry, Catalog, ToolEntry};
use serde_json::{Map, Value, json};

/// Closest hits shown when no action matches well.
const CLOSEST_SHOWN: usize = 3;

/// A tool's worst case over every call of it (its own safety when callable without an action,
/// every action, every rule), in the folded convention ([`CompactSafety`]): the worst concrete
/// `risk_class`, plus `conditional: true` when the answer depends on the action or the
/// arguments.
pub fn folded_safety(t: &ToolEntry) -> Value {
    CompactSafety::of(t, None).to_json()
}

fn visible(catalog: &Catalog, allow_arbitrary_code: bool) -> impl Iterator<Item = &ToolEntry> {
    catalog
        .tools
        .iter()
        .filter(move |t| allow_arbitrary_code || !t.is_arbitrary_code())
}

fn tool_not_found(name: &str, close: Vec<String>) -> Envelope {
    let message = if close.is_empty() {
        format!("tool {name:?} was not found; use tool_search to find tools by what they do")
    } else {
        format!(
            "tool {name:?} was not found; did you mean {}? (tool_search finds tools by what they do)",
            close.join(", ")
        )
    };
    Envelope::error("TOOL_NOT_FOUND", message)
        .with_suggestions(close.clone())
        .with_data(json!({"tool": name, "did_you_mean": close}))
}

/// Tools whose name (or alias) is close to `name`.
fn close_tools(catalog: &Catalog, name: &str, allow_arbitrary_code: bool) -> Vec<String> {
    let names = visible(catalog, allow_arbitrary_code)
        .flat_map(|t| std::iter::once(t.name.as_str()).chain(t.aliases.iter().map(String::as_str)));
    crate::catalog::suggest::close_names(name, names)
}

/// [`find_tool`] for `tool_describe`: a hidden arbitrary-code tool is not found (it is not
/// offered in this session), and when no name is close, the tools a search for the name's
/// words ranks first are suggested.
fn find_tool_for_describe<'a>(
    view: &'a CatalogView,
    name: &str,
    allow_arbitrary_code: bool,
) -> Result<&'a ToolEntry, Envelope> {
    let catalog = view.catalog();
    match crate::session::find_tool(view, name, allow_arbitrary_code) {
        Ok(t) => Ok(t),
        Err(e) if e.code == "ARBITRARY_CODE_PERMISSION_REQUIRED" => {
            let close = close_tools(catalog, name, false)
                .into_iter()
                .filter(|c| !c.eq_ignore_ascii_case(name))
                .collect();
            Err(tool_not_found(name, close))
        }
        Err(e) if e.code == "TOOL_NOT_FOUND" => {
            // Spelling matches first (a typo is the likeliest mistake), then what a search for
            // the guessed name's words ranks first ("unity_take_picture" → screenshot).
            const MAX: usize = 5;
            const SEARCHED: usize = 3;
            let words = name.replace(['_', '-', '.'], " ");
            let filter = SearchFilter {
                profile: None,
                allow_arbitrary_code,
            };
            let mut close: Vec<String> =
                e.suggestions.iter().take(MAX - SEARCHED).cloned().collect();
            let mut added = 0;
            for h in view.search_index().search(&words, 10, &filter) {
                if added == SEARCHED {
                    break;
                }
                if !close.contains(&h.tool) {
                    close.push(h.tool);
                    added += 1;
                }
            }
            Err(tool_not_found(name, close))
        }
        Err(e) => Err(super::call::refusal(e, false)),
    }
}

/// Finds an action by canonical name or alias (case-insensitive).
pub fn find_action<'a>(tool: &'a ToolEntry, action: &str) -> Result<&'a ActionEntry, Envelope> {
    tool.action(action).ok_or_else(|| {
        let names = tool
            .actions
            .iter()
            .flat_map(|a| std::iter::once(a.name.as_str()).chain(a.aliases.iter().map(String::as_str)));
        let mut close = crate::catalog::suggest::close_names(action, names);
        let available: Vec<&str> = tool.actions.iter().map(|a| a.name.as_str()).collect();
        if close.is_empty() {
            // Nothing is close to the guess, so every action is a suggestion, when few enough
            // to read.
            if available.len() <= 8 {
                close = available.iter().map(|a| a.to_string()).collect();
            }
        }
        Envelope::error(
            "ACTION_NOT_FOUND",
            if available.is_empty() {
                format!("tool {:?} has no actions; call it without \"action\"", tool.name)
            } else {
                format!(
                    "action {action:?} was not found for tool {:?}; available: {}",
                    tool.name,
                    available.join(", ")
                )
            },
        )
        .with_suggestions(close.clone())
        .with_data(json!({"tool": tool.name, "action": action, "available_actions": available, "did_you_mean": close}))
    })
}

/// An ACTION_NOT_FOUND with the tool's actions a search for the guessed name ranks first put
/// ahead of the spelling matches: "remove" finds `destroy`, "spawn" finds `create`.
fn with_searched_actions(
    view: &CatalogView,
    tool: &ToolEntry,
    action: &str,
    mut e: Envelope,
) -> Envelope {
    const MAX: usize = 5;
    let words = action.replace(['_', '-', '.'], " ");
    let mut found: Vec<String> = view
        .search_index()
        .search(&words, 20, &SearchFilter::everything())
        .into_iter()
        .filter(|h| h.tool == tool.name)
        .filter_map(|h| h.action)
        .take(3)
        .collect();
    for s in &e.suggestions {
        if !found.contains(s) {
            found.push(s.clone());
        }
    }
    found.truncate(MAX);
    if let Some(d) = e.data.as_mut() {
        d["did_you_mean"] = json!(found);
    }
    e.suggestions = found;
    e
}

/// The warning that travels with every search and describe while the catalog is not the
/// Editor's live, strict one.
pub(crate) const LISTING_FALLBACK_NOTE: &str = "The Unity Editor cannot build its tool catalog (a \
custom tool's contract is broken; its console names it), so tools come from its per-tool \
listing: safety is guessed and the Editor asks for approval where it must. Tell the user; the \
full catalog returns once the tool is fixed and Unity reloads.";

fn catalog_note(view: &CatalogView, env: Envelope) -> Envelope {
    let cached = "The Editor is not connected; this answer comes from the last cached catalog and \
                  may be out of date.";
    match (view.origin, view.snapshot.listing_in_place_of_strict()) {
        (Origin::Live, false) => env,
        (Origin::Live, true) => env.with_hint(LISTING_FALLBACK_NOTE),
        (Origin::Cached, false) => env.with_hint(cached),
        (Origin::Cached, true) => env.with_hint(format!("{cached} {LISTING_FALLBACK_NOTE}")),
    }
}

fn hit_label(h: &SearchHit) -> String {
    match &h.action {
        Some(a) => format!("{}/{a}", h.tool),
        None => h.tool.clone(),
    }
}

pub fn search(view: &CatalogView, args: &SearchArgs, allow_arbitrary_code: bool) -> Envelope {
    if let Some(p) = &args.profile
        && !is_supported_profile(p)
    {
        return Envelope::error(
            "INVALID_ARGUMENT",
            format!(
                "unknown profile {p:?}; use one of {}",
                SUPPORTED_PROFILES.join(", ")
            ),
        )
        .with_data(json!({"pointer": "/profile", "message": "unknown profile", "expected": SUPPORTED_PROFILES}));
    }
    // Counting stops one past the bound: a huge query costs no more than a long one to refuse.
    let chars = args.query.chars().take(MAX_QUERY_CHARS + 1).count();
    if chars > MAX_QUERY_CHARS {
        return Envelope::error(
            "INVALID_ARGUMENT",
            format!(
                "query is longer than {MAX_QUERY_CHARS} characters; describe the task in a \
                 sentence, e.g. \"add a Rigidbody to the Player\""
            ),
        )
        .with_data(
            json!({"pointer": "/query", "message": "too long", "max_chars": MAX_QUERY_CHARS}),
        );
    }
    let filter = SearchFilter {
        profile: args.profile.as_deref(),
        allow_arbitrary_code,
    };
    let answer = view.search_index().answer(&args.query, args.limit, &filter);
    let closest = |hits: &[SearchHit]| -> Vec<Value> {
        hits.iter()
            .take(CLOSEST_SHOWN)
            .map(SearchHit::to_compact_json)
            .collect()
    };
    let env = match &answer.verdict {
        Verdict::Found => {
            let results: Vec<Value> = answer.hits.iter().map(|h| h.to_compact_json()).collect();
            Envelope::ok(
                format!(
                    "{} results, best first; tool_describe {{name, action}} gives the input schema",
                    results.len()
                ),
                json!({"results": results}),
            )
        }
        Verdict::NoGoodMatch if answer.hits.is_empty() => Envelope::ok(
            "no action does that; try other words (the Unity object, window or asset type)",
            json!({"results": []}),
        ),
        Verdict::NoGoodMatch => {
            let names: Vec<String> = answer
                .hits
                .iter()
                .take(CLOSEST_SHOWN)
                .map(hit_label)
                .collect();
            Envelope::ok(
                format!(
                    "no action does that; closest: {} (each matched only part of the request; \
                     try other words before calling one)",
                    names.join(", ")
                ),
                json!({"results": [], "closest": closest(&answer.hits)}),
            )
        }
        Verdict::NotOffered(n) => Envelope::ok(
            n.message,
            json!({"results": [], "not_offered": n.capability}),
        ),
    };
    catalog_note(view, env)
}

fn identity(t: &ToolEntry, provenance: bool) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(t.name));
    if !t.title.is_empty() && !t.title.eq_ignore_ascii_case(&t.name) {
        m.insert("title".into(), json!(t.title));
    }
    if !t.description.is_empty() {
        m.insert("description".into(), json!(t.description));
    }
    if !t.aliases.is_empty() {
        m.insert("aliases".into(), json!(t.aliases));
    }
    if provenance {
        m.insert("source".into(), json!(t.source));
        m.insert("contract_mode".into(), json!(t.contract_mode));
        m.insert("profiles".into(), json!(t.profiles));
    }
    Value::Object(m)
}

fn provenance_of(catalog: &Catalog) -> Value {
    json!({"catalog_hash": catalog.catalog_hash, "domain_epoch": catalog.domain_epoch})
}

/// The tool's examples that call `action` (`None`: those that name no action).
fn examples_for(tool: &ToolEntry, action: Option<&str>) -> Vec<Value> {
    tool.examples
        .iter()
        .filter(|e| {
            let args = e
                .call
                .split_once(char::is_whitespace)
                .and_then(|(_, rest)| serde_json::from_str::<Value>(rest.trim()).ok());
            let named = args
                .as_ref()
                .and_then(|a| a.get("action"))
                .and_then(Value::as_str)
                .and_then(|n| tool.action(n).map(|a| a.name.as_str()));
            named == action
        })
        .map(|e| {
            if e.description.is_empty() {
                json!({"call": e.call})
            } else {
                json!({"call": e.call, "description": e.description})
            }
        })
        .collect()
}

/// Tool-level rules that can change the safety of `action` (`None`: of the action-less call).
fn rules_for<'a>(
    tool: &'a ToolEntry,
    action: Option<&str>,
) -> Vec<&'a hera_connector_contract::catalog::SafetyRule> {
    tool.safety
        .rules
        .iter()
        .filter(|r| {
            match r
                .when
                .get("action")
                .and_then(|c| c.get("const"))
                .and_then(Value::as_str)
            {
                None => true,
                Some(x) => action.is_some_and(|a| a == x),
            }
        })
        .collect()
}

/// A rule as the agent needs it: when it applies and what the call then is.
fn rule_json(r: &hera_connector_contract::catalog::SafetyRule) -> Value {
    json!({
        "operation": r.operation,
        "when": r.when,
        "risk_class": r.safety.risk_class,
        "destructive": r.safety.destructive,
        "requires_confirmation": r.safety.requires_confirmation,
    })
}

/// `tool_describe` without provenance (what the `tool_describe` tool answers unless the
/// arguments ask for provenance).
#[cfg(test)]
pub fn describe(view: &CatalogView, args: &DescribeArgs, allow_arbitrary_code: bool) -> Envelope {
    describe_with(view, args, allow_arbitrary_code, false)
}

/// `tool_describe`; `provenance` adds the tool's source, contract mode, profiles and the
/// catalog's hash and epoch.
pub fn describe_with(
    view: &CatalogView,
    args: &DescribeArgs,
    allow_arbitrary_code: bool,
    provenance: bool,
) -> Envelope {
    let catalog = view.catalog();
    let tool = match find_tool_for_describe(view, &args.name, allow_arbitrary_code) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let mut data = Map::new();
    let message;
    match &args.action {
        None => {
            data.insert("tool".into(), identity(tool, provenance));
            let examples = examples_for(tool, None);
            if tool.actions.is_empty() || tool.callable_without_action() {
                // e.g. `run_tests`: running the tests *is* the action-less call, and its
                // arguments (`mode`, `filter`, …) live only in the tool-level schema.
                data.insert("input_schema".into(), tool.input_schema.clone());
                data.insert("output_schema".into(), tool.output_schema.clone());
                data.insert("safety".into(), ActionSafety::of(tool, None).to_json());
                let rules: Vec<Value> = rules_for(tool, None).into_iter().map(rule_json).collect();
                if !rules.is_empty() {
                    data.insert("safety_rules".into(), json!(rules));
                }
            }
            if !examples.is_empty() {
                data.insert("examples".into(), json!(examples));
            }
            if tool.actions.is_empty() {
                message = format!(
                    "{}: no actions; call tool_call {{name: {:?}, arguments}} matching input_schema",
                    tool.name, tool.name
                );
            } else {
                // An overview of a tool with actions is a map, not a contract: it says which
                // catalog it comes from (so an agent can tell an answer from before a reload)
                // and the tool's contract mode. A contract (an action, an action-less tool)
                // carries provenance only when asked for.
                if !provenance {
                    data.insert("catalog_hash".into(), json!(catalog.catalog_hash));
                    data.insert("domain_epoch".into(), json!(catalog.domain_epoch));
                    if let Some(t) = data.get_mut("tool").and_then(Value::as_object_mut) {
                        t.insert("contract_mode".into(), json!(tool.contract_mode));
                    }
                }
                data.insert(
                    "actions".into(),
                    tool.actions
                        .iter()
                        .map(|a| {
                            let mut m = Map::new();
                            m.insert("name".into(), json!(a.name));
                            if !a.description.is_empty() {
                                m.insert("description".into(), json!(a.description));
                            }
                            if !a.aliases.is_empty() {
                                m.insert("aliases".into(), json!(a.aliases));
                            }
                            m.insert(
                                "safety".into(),
                                ActionSafety::of(tool, Some(&a.name)).to_json(),
                            );
                            Value::Object(m)
                        })
                        .collect(),
                );
                data.insert("tool_safety".into(), folded_safety(tool));
                message = if tool.callable_without_action() {
                    format!(
                        "{}: callable without an action (input_schema is that contract), or with one of {} actions; describe one with action for its input schema",
                        tool.name,
                        tool.actions.len()
                    )
                } else {
                    format!(
                        "{}: {} actions; describe one with action for its input schema",
                        tool.name,
                        tool.actions.len()
                    )
                };
            }
        }
        Some(action) => {
            let a = match find_action(tool, action) {
                Ok(a) => a,
                Err(e) => return with_searched_actions(view, tool, action, e),
            };
            data.insert("tool".into(), json!(tool.name));
            if provenance {
                data.insert("tool_identity".into(), identity(tool, true));
            }
            let mut act = Map::new();
            act.insert("name".into(), json!(a.name));
            if !a.description.is_empty() {
                act.insert("description".into(), json!(a.description));
            }
            if !a.aliases.is_empty() {
                act.insert("aliases".into(), json!(a.aliases));
            }
            act.insert("input_schema".into(), a.input_schema.clone());
            act.insert("output_schema".into(), a.output_schema.clone());
            act.insert(
                "safety".into(),
                ActionSafety::of(tool, Some(&a.name)).to_json(),
            );
            data.insert("action".into(), Value::Object(act));
            // Tool-level rules can override the action's safety for particular arguments.
            let rules: Vec<Value> = rules_for(tool, Some(&a.name))
                .into_iter()
                .map(rule_json)
                .collect();
            if !rules.is_empty() {
                data.insert("safety_rules".into(), json!(rules));
            }
            let examples = examples_for(tool, Some(&a.name));
            if !examples.is_empty() {
                data.insert("examples".into(), json!(examples));
            }
            message = format!(
                "{}/{}: call tool_call {{name: {:?}, arguments: {{\"action\": {:?}, …}}}} matching input_schema",
                tool.name, a.name, tool.name, a.name
            );
        }
    }
    if provenance {
        data.insert("provenance".into(), provenance_of(catalog));
    }
    catalog_note(view, Envelope::ok(message, Value::Object(data)))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use hera_connector_contract::catalog::{RiskClass, Safety, SafetyDecl};

    fn safety(risk: RiskClass) -> Safety {
        SafetyDecl {
            risk: Some(risk),
            ..Default::default()
        }
        .normalize(None)
    }

    fn action(name: &str, desc: &str, risk: RiskClass, props: Value, required: &[&str]) -> Value {
        let mut properties = props.as_object().cloned().unwrap_or_default();
        properties.insert("action".into(), json!({"type":"string","const":name}));
        let mut req: Vec<&str> = required.to_vec();
        req.push("action");
        req.sort();
        json!({
            "name": name, "description": desc, "aliases": [],
            "input_schema": {"type":"object","additionalProperties":false,"properties":properties,"required":req},
            "output_schema": {"type":"object"},
            "safety": safety(risk),
        })
    }

    /// A small catalog in the wire shape, for unit tests of search/describe/call decoding.
    pub(crate) fn sample_catalog() -> Catalog {
        let scene_actions = vec![
            action(
                "close",
                "Close a scene.",
                RiskClass::Destructive,
                json!({"path":{"type":"string"}}),
                &["path"],
            ),
            action(
                "info",
                "Report the active scene.",
                RiskClass::ReadOnly,
                json!({}),
                &[],
            ),
            action(
                "load",
                "Open a scene asset.",
                RiskClass::Write,
                json!({"path":{"type":"string"},"additive":{"type":"boolean"}}),
                &["path"],
            ),
        ];
        let source = |t: &str| json!({"kind":"builtin","assembly":"HeraAgent.Editor","type":format!("HeraAgent.Tools.{t}")});
        let mut clear_rule = serde_json::to_value(safety(RiskClass::Destructive)).unwrap();
        clear_rule["operation"] = json!("clear");
        clear_rule["when"] = json!({"clear":{"const":true}});
        let mut console_safety = serde_json::to_value(safety(RiskClass::ReadOnly)).unwrap();
        console_safety["rules"] = json!([clear_rule]);
        let console = json!({"name":"console","title":"Console","description":"Read or clear the Unity console log.",
            "source": source("Console"), "contract_mode":"strict","profiles":["core","diagnostics","full"],
            "aliases":[],"examples":[],
            "input_schema":{"type":"object","additionalProperties":false,"properties":{"clear":{"type":"boolean"},"limit":{"type":"integer","minimum":1}}},
            "output_schema":{"type":"object"},"actions":[],"safety": console_safety});
        let exec = json!({"name":"exec","title":"Exec","description":"Compile and run C# code in the Editor.",
            "source": source("Exec"), "contract_mode":"strict","profiles":["advanced"],"aliases":[],"examples":[],
            "input_schema":{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]},
            "output_schema":{"type":"object"},"actions":[],"safety": safety(RiskClass::ArbitraryCode)});
        let scene = json!({"name":"scene","title":"Scene","description":"Open, save and inspect scenes. Second sentence.",
            "source": source("Scene"), "contract_mode":"strict","profiles":["core","full","scene"],"aliases":[],"examples":[],
            "input_schema":{"type":"object","properties":{"action":{"type":"string"}},"required":["action"]},
            "output_schema":{"type":"object"},"actions": scene_actions, "safety": safety(RiskClass::Write)});
        let v = json!({
            "schema_version": "hera.tool-catalog/1",
            "catalog_hash": format!("sha256:{}", "a".repeat(64)),
            "domain_epoch": "0123456789abcdef0123456789abcdef",
            "project_id": format!("sha256:{}", "b".repeat(64)),
            "tools": [console, exec, scene]
        });
        serde_json::from_value(v).unwrap()
    }

    pub(crate) fn snapshot_of(catalog: Catalog) -> crate::catalog::CatalogSnapshot {
        use crate::catalog::{CacheKey, CatalogKind, CatalogOrigin, CatalogSnapshot};
        CatalogSnapshot {
            key: CacheKey {
                project_id: catalog.project_id.clone(),
                features: vec![],
                domain_epoch: catalog.domain_epoch.clone(),
                catalog_hash: catalog.catalog_hash.clone(),
            },
            catalog: std::sync::Arc::new(catalog),
            kind: CatalogKind::Strict,
            origin: CatalogOrigin::Live,
        }
    }

    fn view() -> CatalogView {
        CatalogView::new(snapshot_of(sample_catalog()), Origin::Live)
    }

    fn s(q: &str, limit: usize) -> SearchArgs {
        SearchArgs {
            query: q.into(),
            limit,
            profile: None,
        }
    }

    #[test]
    fn search_is_deterministic_and_schema_free() {
        let v = view();
        let a = search(&v, &s("load scene", 5), false).to_value();
        let b = search(&v, &s("load scene", 5), false).to_value();
        assert_eq!(a, b);
        let results = a["data"]["results"].as_array().unwrap();
        assert_eq!(results[0]["name"], "scene");
        assert_eq!(results[0]["action"], "load");
        assert!(!a.to_string().contains("input_schema"));
        assert_eq!(results[0]["safety"]["risk_class"], "write");
        let e = search(
            &v,
            &SearchArgs {
                query: "scene".into(),
                limit: 5,
                profile: Some("nope".into()),
            },
            false,
        );
        assert_eq!(e.code.as_deref(), Some("INVALID_ARGUMENT"));
    }

    #[test]
    fn arbitrary_code_is_hidden_unless_permitted() {
        let v = view();
        let r = search(&v, &s("exec code", 5), false).to_value();
        assert!(r["data"]["results"].as_array().unwrap().is_empty());
        assert_eq!(r["data"]["not_offered"], "arbitrary_code", "{r}");
        assert!(
            !r.to_string().contains("\"exec\""),
            "the hidden tool is not named: {r}"
        );
        let r = search(&v, &s("exec code", 5), true).to_value();
        assert_eq!(r["data"]["results"][0]["name"], "exec");
        // Describe hides the tool (not offered in this session); tool_call's lookup keeps the
        // permission error, which says how to enable it.
        let d = describe(
            &v,
            &DescribeArgs {
                provenance: false,
                name: "exec".into(),
                action: None,
            },
            false,
        );
        assert_eq!(d.code.as_deref(), Some("TOOL_NOT_FOUND"), "{d:?}");
        assert!(!d.suggestions.contains(&"exec".to_string()));
        let c = crate::session::find_tool(&v, "exec", false).err().unwrap();
        assert_eq!(c.code, "ARBITRARY_CODE_PERMISSION_REQUIRED");
        let ok = describe(
            &v,
            &DescribeArgs {
                provenance: false,
                name: "exec".into(),
                action: None,
            },
            true,
        );
        assert!(ok.success);
    }

    #[test]
    fn weak_matches_and_undo_are_not_dressed_up_as_results() {
        let v = view();
        let r = search(&v, &s("undo last change", 5), false).to_value();
        assert_eq!(r["data"]["not_offered"], "undo", "{r}");
        assert!(r["data"]["results"].as_array().unwrap().is_empty());
        assert!(
            r["message"]
                .as_str()
                .unwrap()
                .contains("Undo is not offered")
        );
        // One word of five matches "scene": closest, not a result.
        let r = search(&v, &s("bake the terrain grass scene heightmap", 5), false).to_value();
        assert!(r["data"]["results"].as_array().unwrap().is_empty(), "{r}");
        assert!(
            r["message"]
                .as_str()
                .unwrap()
                .starts_with("no action does that; closest: scene"),
            "{r}"
        );
        assert!(!r["data"]["closest"].as_array().unwrap().is_empty());
        let r = search(&v, &s("zzzz qqqq", 5), false).to_value();
        assert!(
            r["message"]
                .as_str()
                .unwrap()
                .starts_with("no action does that")
        );
        // An over-long query is refused with a pointer, at once.
        let huge = "a".repeat(200_000);
        let e = search(&v, &s(&huge, 5), false);
        assert_eq!(e.code.as_deref(), Some("INVALID_ARGUMENT"));
        assert_eq!(e.data.unwrap()["pointer"], "/query");
    }

    #[test]
    fn describe_overview_action_and_errors() {
        let v = view();
        let d = describe(
            &v,
            &DescribeArgs {
                provenance: false,
                name: "scene".into(),
                action: None,
            },
            false,
        )
        .to_value();
        assert_eq!(d["data"]["actions"].as_array().unwrap().len(), 3);
        assert!(d["data"].get("input_schema").is_none());
        // A tool whose tool-level schema leaves `action` optional (run_tests, profiler) is also
        // callable without one, so its overview carries that contract.
        let scene = v.catalog().tool("scene").unwrap().clone();
        assert!(!scene.callable_without_action());
        let mut optional = scene;
        optional.input_schema["required"] = json!([]);
        assert!(optional.callable_without_action());
        let d = describe(
            &v,
            &DescribeArgs {
                provenance: false,
                name: "scene".into(),
                action: Some("LOAD".into()),
            },
            false,
        )
        .to_value();
        assert_eq!(d["data"]["action"]["name"], "load");
        assert!(d["data"]["action"]["input_schema"].is_object());
        let d = describe(
            &v,
            &DescribeArgs {
                provenance: false,
                name: "console".into(),
                action: None,
            },
            false,
        )
        .to_value();
        assert!(d["data"]["input_schema"].is_object());
        let d = describe(
            &v,
            &DescribeArgs {
                provenance: false,
                name: "scen".into(),
                action: None,
            },
            false,
        );
        assert_eq!(d.code.as_deref(), Some("TOOL_NOT_FOUND"));
        assert_eq!(d.suggestions, ["scene"]);
        let d = describe(
            &v,
            &DescribeArgs {
                provenance: false,
                name: "scene".into(),
                action: Some("lod".into()),
            },
            false,
        );
        assert_eq!(d.code.as_deref(), Some("ACTION_NOT_FOUND"));
        assert_eq!(d.suggestions[0], "load");
    }

    /// A hit shows the call's own risk class and only non-default flags; a rule that makes some
    /// arguments riskier shows as `worst_case`. The describe overview and the action describe
    /// use the same object; the overview's `tool_safety` is the tool's folded worst case.
    #[test]
    fn hits_and_describes_show_the_calls_own_safety() {
        let v = view();
        let overview = |name: &str| {
            describe(
                &v,
                &DescribeArgs {
                    provenance: false,
                    name: name.into(),
                    action: None,
                },
                false,
            )
            .to_value()
        };
        // console: reading is read-only; `clear: true` makes it destructive.
        let hit = search(&v, &s("read the console log", 1), false).to_value();
        let h = &hit["data"]["results"][0];
        assert_eq!(h["name"], "console", "{hit}");
        assert_eq!(
            h["safety"],
            json!({"risk_class": "read_only", "worst_case": "destructive"})
        );
        let d = overview("console");
        assert_eq!(d["data"]["safety"], h["safety"], "{d}");
        assert_eq!(d["data"]["safety_rules"][0]["operation"], "clear");
        // scene/info is read-only with no caveat: one field.
        let hit = search(&v, &s("report the active scene", 1), false).to_value();
        assert_eq!(hit["data"]["results"][0]["action"], "info", "{hit}");
        assert_eq!(
            hit["data"]["results"][0]["safety"],
            json!({"risk_class": "read_only"})
        );
        let d = overview("scene");
        let info = d["data"]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == "info")
            .unwrap()["safety"]
            .clone();
        assert_eq!(info, json!({"risk_class": "read_only"}));
        let ts = &d["data"]["tool_safety"];
        assert_eq!(ts["risk_class"], "destructive", "{d}");
        assert_eq!(ts["conditional"], true);
        // The action describe: that action's contract only, no provenance unless asked.
        let args = DescribeArgs {
            provenance: false,
            name: "scene".into(),
            action: Some("load".into()),
        };
        let d = describe(&v, &args, false).to_value();
        assert_eq!(
            d["data"]["action"]["safety"],
            json!({"risk_class": "write"})
        );
        let text = d.to_string();
        for absent in [
            "close",
            "info",
            "catalog_hash",
            "domain_epoch",
            "HeraAgent",
            "profiles",
        ] {
            assert!(!text.contains(absent), "{absent} in {text}");
        }
        let p = describe_with(&v, &args, false, true).to_value();
        assert_eq!(
            p["data"]["provenance"]["catalog_hash"],
            v.catalog().catalog_hash
        );
        assert_eq!(
            p["data"]["tool_identity"]["source"]["assembly"],
            "HeraAgent.Editor"
        );
        // No value outside the catalog's risk classes is ever used.
        for (t, at) in [
            ("console", "/data/safety/risk_class"),
            ("scene", "/data/tool_safety/risk_class"),
        ] {
            let rc = overview(t).pointer(at).cloned().unwrap_or_default();
            assert!(
                serde_json::from_value::<RiskClass>(rc.clone()).is_ok(),
                "{t}: {rc}"
            );
        }
    }
}
