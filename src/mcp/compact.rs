//! `tool_search` and `tool_describe` over a catalog view: pure functions of (catalog, arguments).
//!
//! They never contact the Editor, so they work from the cached catalog while it is down.

use super::args::{DescribeArgs, SearchArgs};
use super::envelope::Envelope;
use crate::catalog::profiles::{SUPPORTED_PROFILES, is_supported_profile};
use crate::search::{CompactSafety, SearchFilter, callable_without_action};
use crate::session::{CatalogView, Origin};
use hera_connector_contract::catalog::{ActionEntry, Catalog, ToolEntry};
use serde_json::{Value, json};

/// A tool's worst case over every call of it (its own safety when callable without an action,
/// every action, every rule), in the one compact convention `tool_search` also uses
/// ([`CompactSafety`]): the worst concrete `risk_class`, plus `conditional: true` when the answer
/// depends on the action or the arguments.
pub fn folded_safety(t: &ToolEntry) -> Value {
    CompactSafety::of(t, None).to_json()
}

fn visible(catalog: &Catalog, allow_arbitrary_code: bool) -> impl Iterator<Item = &ToolEntry> {
    catalog
        .tools
        .iter()
        .filter(move |t| allow_arbitrary_code || !t.is_arbitrary_code())
}

/// Finds a tool by name, alias, or a unique case-insensitive match. Arbitrary-code tools are
/// refused unless permitted, with a message that says how to permit them.
pub fn find_tool<'a>(
    catalog: &'a Catalog,
    name: &str,
    allow_arbitrary_code: bool,
) -> Result<&'a ToolEntry, Envelope> {
    let found = catalog.tool(name).or_else(|| {
        let mut it = catalog
            .tools
            .iter()
            .filter(|t| t.name.eq_ignore_ascii_case(name));
        match (it.next(), it.next()) {
            (Some(t), None) => Some(t),
            _ => None,
        }
    });
    match found {
        Some(t) if t.is_arbitrary_code() && !allow_arbitrary_code => Err(Envelope::error(
            "ARBITRARY_CODE_PERMISSION_REQUIRED",
            format!(
                "tool {:?} runs arbitrary code in the Editor and is disabled; the user must \
                 restart the server with --allow-arbitrary-code (or \
                 HERA_MCP_ALLOW_ARBITRARY_CODE=1) to use it",
                t.name
            ),
        )
        .with_data(json!({"tool": t.name}))),
        Some(t) => Ok(t),
        None => {
            let names = visible(catalog, allow_arbitrary_code).flat_map(|t| {
                std::iter::once(t.name.as_str()).chain(t.aliases.iter().map(String::as_str))
            });
            let close = crate::catalog::suggest::close_names(name, names);
            Err(Envelope::error(
                "TOOL_NOT_FOUND",
                format!("tool {name:?} was not found; use tool_search to find tools"),
            )
            .with_suggestions(close.clone())
            .with_data(json!({"tool": name, "did_you_mean": close})))
        }
    }
}

/// Finds an action by canonical name or alias (case-insensitive).
pub fn find_action<'a>(tool: &'a ToolEntry, action: &str) -> Result<&'a ActionEntry, Envelope> {
    tool.action(action).ok_or_else(|| {
        let names = tool
            .actions
            .iter()
            .flat_map(|a| std::iter::once(a.name.as_str()).chain(a.aliases.iter().map(String::as_str)));
        let close = crate::catalog::suggest::close_names(action, names);
        let available: Vec<&str> = tool.actions.iter().map(|a| a.name.as_str()).collect();
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

fn catalog_note(view: &CatalogView, env: Envelope) -> Envelope {
    match view.origin {
        Origin::Live => env,
        Origin::Cached => env.with_hint(
            "The Editor is not connected; this answer comes from the last cached catalog and may \
             be out of date.",
        ),
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
    let filter = SearchFilter {
        profile: args.profile.as_deref(),
        allow_arbitrary_code,
    };
    let hits = view.search_index().search(&args.query, args.limit, &filter);
    let results: Vec<Value> = hits.iter().map(|h| h.to_compact_json()).collect();
    let message = if results.is_empty() {
        "no tool matched; try other words (e.g. the Unity object, window or asset type)".to_string()
    } else {
        format!(
            "{} results, best first; tool_describe {{name, action}} gives the input schema",
            results.len()
        )
    };
    catalog_note(view, Envelope::ok(message, json!({"results": results})))
}

fn identity(t: &ToolEntry) -> Value {
    json!({
        "name": t.name,
        "title": t.title,
        "description": t.description,
        "source": t.source,
        "contract_mode": t.contract_mode,
        "profiles": t.profiles,
        "aliases": t.aliases,
        "examples": t.examples,
    })
}

pub fn describe(view: &CatalogView, args: &DescribeArgs, allow_arbitrary_code: bool) -> Envelope {
    let catalog = view.catalog();
    let tool = match find_tool(catalog, &args.name, allow_arbitrary_code) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let mut data = json!({
        "tool": identity(tool),
        "catalog_hash": catalog.catalog_hash,
        "domain_epoch": catalog.domain_epoch,
    });
    let message;
    match &args.action {
        None => {
            data["tool_safety"] = folded_safety(tool);
            if tool.actions.is_empty() {
                data["input_schema"] = tool.input_schema.clone();
                data["output_schema"] = tool.output_schema.clone();
                data["safety"] = serde_json::to_value(&tool.safety).expect("safety serializes");
                message = format!(
                    "{}: no actions; input_schema is the call contract",
                    tool.name
                );
            } else {
                data["actions"] = tool
                    .actions
                    .iter()
                    .map(|a| {
                        json!({
                            "name": a.name,
                            "description": a.description,
                            "aliases": a.aliases,
                            // The action's own safety folded with the rules that can apply
                            // to it, as its search hit shows it.
                            "safety": CompactSafety::of(tool, Some(&a.name)).to_json(),
                        })
                    })
                    .collect();
                if callable_without_action(tool) {
                    // e.g. `run_tests`: running the tests *is* the action-less call, and its
                    // arguments (`mode`, `filter`, …) live only in the tool-level schema.
                    data["input_schema"] = tool.input_schema.clone();
                    data["output_schema"] = tool.output_schema.clone();
                    message = format!(
                        "{}: callable without an action (input_schema is that contract), or with one of {} actions; describe one with action for its input schema",
                        tool.name,
                        tool.actions.len()
                    );
                } else {
                    message = format!(
                        "{}: {} actions; describe one with action for its input schema",
                        tool.name,
                        tool.actions.len()
                    );
                }
            }
        }
        Some(action) => {
            let a = match find_action(tool, action) {
                Ok(a) => a,
                Err(e) => return e,
            };
            data["action"] = serde_json::to_value(a).expect("action serializes");
            // Tool-level rules can override the action's safety for particular arguments.
            let rules: Vec<&hera_connector_contract::catalog::SafetyRule> = tool
                .safety
                .rules
                .iter()
                .filter(|r| {
                    r.when
                        .get("action")
                        .and_then(|c| c.get("const"))
                        .and_then(Value::as_str)
                        .is_none_or(|x| x == a.name)
                })
                .collect();
            if !rules.is_empty() {
                data["safety_rules"] = serde_json::to_value(&rules).expect("rules serialize");
            }
            message = format!(
                "{}/{}: call tool_call with name {:?} and arguments matching input_schema",
                tool.name, a.name, tool.name
            );
        }
    }
    catalog_note(view, Envelope::ok(message, data))
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
            canonical_text: std::sync::Arc::new(String::new()),
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
        let r = search(&v, &s("exec code", 5), true).to_value();
        assert_eq!(r["data"]["results"][0]["name"], "exec");
        let d = describe(
            &v,
            &DescribeArgs {
                name: "exec".into(),
                action: None,
            },
            false,
        );
        assert_eq!(
            d.code.as_deref(),
            Some("ARBITRARY_CODE_PERMISSION_REQUIRED")
        );
    }

    #[test]
    fn describe_overview_action_and_errors() {
        let v = view();
        let d = describe(
            &v,
            &DescribeArgs {
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
        assert!(!callable_without_action(&scene));
        let mut optional = scene;
        optional.input_schema["required"] = json!([]);
        assert!(callable_without_action(&optional));
        let d = describe(
            &v,
            &DescribeArgs {
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
                name: "scene".into(),
                action: Some("lod".into()),
            },
            false,
        );
        assert_eq!(d.code.as_deref(), Some("ACTION_NOT_FOUND"));
        assert_eq!(d.suggestions[0], "load");
    }

    /// tool_search and tool_describe speak one safety convention: the worst concrete risk class
    /// plus `conditional: true` when the action or the arguments change the answer.
    #[test]
    fn search_and_describe_share_one_safety_convention() {
        let v = view();
        let overview = |name: &str| {
            describe(
                &v,
                &DescribeArgs {
                    name: name.into(),
                    action: None,
                },
                false,
            )
            .to_value()
        };
        // console: read-only, but `clear: true` makes it destructive.
        let d = overview("console");
        let ts = &d["data"]["tool_safety"];
        assert_eq!(ts["risk_class"], "destructive", "{d}");
        assert_eq!(ts["conditional"], true);
        assert_eq!(ts["read_only"], false);
        let hit = search(&v, &s("clear the console", 1), false).to_value();
        assert_eq!(hit["data"]["results"][0]["name"], "console");
        assert_eq!(&hit["data"]["results"][0]["safety"], ts, "{hit}");
        // scene: its actions differ (read-only info, write load, destructive close).
        let d = overview("scene");
        let ts = &d["data"]["tool_safety"];
        assert_eq!(ts["risk_class"], "destructive", "{d}");
        assert_eq!(ts["conditional"], true);
        assert_eq!(ts["destructive"], true);
        // Each action's overview safety is what its search hit says; one fixed answer has no
        // `conditional`.
        let info = d["data"]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == "info")
            .unwrap()["safety"]
            .clone();
        assert_eq!(info["risk_class"], "read_only");
        assert!(info.get("conditional").is_none(), "{info}");
        let hit = search(&v, &s("report the active scene", 1), false).to_value();
        assert_eq!(hit["data"]["results"][0]["action"], "info", "{hit}");
        assert_eq!(hit["data"]["results"][0]["safety"], info);
        // No value outside the catalog's risk classes is ever used.
        for t in ["console", "scene"] {
            let rc = overview(t)["data"]["tool_safety"]["risk_class"].clone();
            assert!(
                serde_json::from_value::<RiskClass>(rc.clone()).is_ok(),
                "{t}: {rc}"
            );
        }
    }
}
