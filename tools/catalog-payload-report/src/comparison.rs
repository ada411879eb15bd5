//! Published figures of the Go anchor and of other Unity MCP bridges, each beside the figure of
//! ours that measures the same thing, with the document section it comes from.
//!
//! External numbers are copied from the reference documents (they cannot be re-measured here);
//! ours are read from this run's report by JSON pointer, never restated. Where a unit differs
//! (the anchor's Go serialization adds `"ttlMs":0,"cacheScope":""` and HTML escaping; the
//! simulator's catalog has its own descriptions), the `note` says so.

use serde_json::{Map, Value, json};

struct Published {
    id: &'static str,
    unit: &'static str,
    figure: u64,
    what: &'static str,
    source: &'static str,
    ours: &'static str,
    ours_what: &'static str,
    note: &'static str,
}

const ANCHOR_SERIALIZATION: &str = "The anchor counts Go's encoding of {\"ttlMs\":0,\"cacheScope\":\"\",\"tools\":[…]} with HTML escaping; ours is the result object exactly as our server writes it ({\"tools\":[…]}).";
const PEER_METHOD: &str =
    "Peers were measured as compact JSON of {\"tools\":…} from a stdio probe; same unit as ours.";
const DESCRIBE_UNIT: &str = "Ours is the describe payload (structuredContent); our result also carries the same JSON as text content for text-only clients, so its result_bytes are about twice this. The catalog descriptions differ (simulator vs Unity).";
const SIM_CATALOG: &str = "Our catalog is the reference simulator's (same 34 tools and 133 actions, its own descriptions), so catalog-derived sizes are comparable in scale, not byte for byte.";

fn published() -> Vec<Published> {
    let profile = |id, figure, what, ours| Published {
        id,
        unit: "bytes",
        figure,
        what,
        source: "the Go adapter v0.2.17's published figures (baseline table)",
        ours,
        ours_what: "tools/list result bytes under that exposure",
        note: ANCHOR_SERIALIZATION,
    };
    vec![
        Published {
            id: "compact_tools_list_vs_anchor",
            unit: "bytes",
            figure: 2505,
            what: "Go anchor compact tools/list (tool_search 857, tool_describe 792, tool_call 816, 40 B wrapper)",
            source: "the Go adapter v0.2.17's published figures and Appendix A",
            ours: "/compact/tools_list/result_bytes",
            ours_what: "compact tools/list result bytes",
            note: ANCHOR_SERIALIZATION,
        },
        Published {
            id: "compact_tools_list_vs_anchor_reconstruction",
            unit: "bytes",
            figure: 2435,
            what: "the anchor's compact tools as {\"tools\":…}, reconstructed from its source",
            source: "the peer bridges' published measurements",
            ours: "/compact/tools_list/result_bytes",
            ours_what: "compact tools/list result bytes",
            note: PEER_METHOD,
        },
        Published {
            id: "compact_tools_list_vs_coplaydev_all_groups",
            unit: "bytes",
            figure: 114_050,
            what: "CoplayDev mcpforunityserver 10.3.0, stdio start, all groups (48 tools)",
            source: "the peer bridges' published measurements",
            ours: "/compact/tools_list/result_bytes",
            ours_what: "compact tools/list result bytes",
            note: PEER_METHOD,
        },
        Published {
            id: "compact_tools_list_vs_coplaydev_core",
            unit: "bytes",
            figure: 64_325,
            what: "CoplayDev 10.3.0, core groups only (29 tools; its HTTP default)",
            source: "the peer bridges' published measurements",
            ours: "/compact/tools_list/result_bytes",
            ours_what: "compact tools/list result bytes",
            note: PEER_METHOD,
        },
        Published {
            id: "compact_tools_list_vs_akiojin",
            unit: "bytes",
            figure: 91_253,
            what: "akiojin @akiojin/unity-mcp-server 5.5.0 default (108 tools)",
            source: "the peer bridges' published measurements",
            ours: "/compact/tools_list/result_bytes",
            ours_what: "compact tools/list result bytes",
            note: PEER_METHOD,
        },
        Published {
            id: "compact_tools_list_vs_mcp_unity",
            unit: "bytes",
            figure: 23_489,
            what: "CoderGamester mcp-unity 1.3.0 (30 tools), the smallest full-list peer",
            source: "the peer bridges' published measurements",
            ours: "/compact/tools_list/result_bytes",
            ours_what: "compact tools/list result bytes",
            note: PEER_METHOD,
        },
        Published {
            id: "compact_tools_list_vs_bridge_ai",
            unit: "bytes",
            figure: 176_281,
            what: "bridge-ai-unity-mcp 11.1.0, CoplayDev fork, stdio (100 tools)",
            source: "the peer bridges' published measurements",
            ours: "/compact/tools_list/result_bytes",
            ours_what: "compact tools/list result bytes",
            note: PEER_METHOD,
        },
        Published {
            id: "instructions_vs_coplaydev",
            unit: "bytes",
            figure: 5302,
            what: "CoplayDev initialize.instructions (sent once)",
            source: "the peer bridges' published measurements",
            ours: "/compact/initialize/instructions_bytes",
            ours_what: "our initialize instructions text",
            note: "Both are the instructions string alone.",
        },
        profile(
            "profile_core_vs_anchor",
            18_911,
            "anchor profile core, 8 tools",
            "/exposures/profile_core/result_bytes",
        ),
        profile(
            "profile_scene_vs_anchor",
            25_238,
            "anchor profile scene, 11 tools",
            "/exposures/profile_scene/result_bytes",
        ),
        profile(
            "profile_assets_vs_anchor",
            15_211,
            "anchor profile assets, 9 tools",
            "/exposures/profile_assets/result_bytes",
        ),
        profile(
            "profile_ui_vs_anchor",
            19_930,
            "anchor profile ui, 7 tools",
            "/exposures/profile_ui/result_bytes",
        ),
        profile(
            "profile_diagnostics_vs_anchor",
            23_011,
            "anchor profile diagnostics, 11 tools",
            "/exposures/profile_diagnostics/result_bytes",
        ),
        profile(
            "profile_testing_vs_anchor",
            17_238,
            "anchor profile testing, 6 tools",
            "/exposures/profile_testing/result_bytes",
        ),
        profile(
            "profile_advanced_vs_anchor",
            3259,
            "anchor profile advanced, 2 tools",
            "/exposures/profile_advanced/result_bytes",
        ),
        profile(
            "profile_full_vs_anchor",
            62_478,
            "anchor profile full, 32 tools",
            "/exposures/profile_full/result_bytes",
        ),
        profile(
            "exposure_full_vs_anchor",
            62_478,
            "anchor --exposure full (= the full profile), 32 tools",
            "/exposures/full/result_bytes",
        ),
        Published {
            id: "describe_input_replay_vs_anchor",
            unit: "bytes",
            figure: 1493,
            what: "anchor tool_describe input/replay (selected action)",
            source: "the Go adapter v0.2.17's published figures",
            ours: "/describe/input/actions/replay/structured_content_bytes",
            ours_what: "the JSON payload (structuredContent) of tool_describe {name:input, action:replay}",
            note: DESCRIBE_UNIT,
        },
        Published {
            id: "describe_input_state_vs_anchor",
            unit: "bytes",
            figure: 2264,
            what: "anchor tool_describe input/state (selected action)",
            source: "the Go adapter v0.2.17's published figures",
            ours: "/describe/input/actions/state/structured_content_bytes",
            ours_what: "the JSON payload (structuredContent) of tool_describe {name:input, action:state}",
            note: DESCRIBE_UNIT,
        },
        Published {
            id: "describe_input_whole_vs_anchor_full_tool",
            unit: "bytes",
            figure: 35_577,
            what: "anchor full-tool payload of input ({tool:<full tool>, catalog_hash, domain_epoch}) that the action describe saves",
            source: "the Go adapter v0.2.17's published figures",
            ours: "/describe/input/whole_tool/structured_content_bytes",
            ours_what: "the JSON payload (structuredContent) of tool_describe {name:input}: an overview of actions and safety, no schemas",
            note: "Different content: the anchor's figure is the whole tool with every schema; our name-only describe returns an overview. The full entry itself is /catalog/per_tool/input/entry_bytes.",
        },
        Published {
            id: "catalog_entry_input_vs_anchor",
            unit: "bytes",
            figure: 35_429,
            what: "anchor largest tool, input (13 actions), normalized entry",
            source: "the Go adapter v0.2.17's published figures",
            ours: "/catalog/per_tool/input/entry_bytes",
            ours_what: "the input entry of the raw catalog",
            note: SIM_CATALOG,
        },
        Published {
            id: "raw_catalog_vs_anchor",
            unit: "bytes",
            figure: 267_977,
            what: "anchor catalog input (the Connector's list-catalog reply, trimmed)",
            source: "the Go adapter v0.2.17's published figures",
            ours: "/catalog/envelope_bytes",
            ours_what: "list {catalog:true} reply envelope from the simulator",
            note: SIM_CATALOG,
        },
        Published {
            id: "scene_info_call_tokens_vs_anchor",
            unit: "tokens (ceil(bytes/4))",
            figure: 115,
            what: "anchor MCP compact scene info tool result, ceil(bytes/4) of the re-marshaled CallToolResult",
            source: "the Go adapter v0.2.17's published figures (variant D)",
            ours: "/flows/read_scene_info/steps/2/response/tokens_estimate",
            ours_what: "ceil(result_bytes/4) of our scene info tool_call result",
            note: "Same estimate rule over the whole CallToolResult. The anchor's text content is \"OK\" beside structuredContent; ours repeats the JSON as text (useful text for clients that read only the text), which roughly doubles it. The scene data differs (Unity fixture vs simulator scene).",
        },
        Published {
            id: "scene_info_text_vs_anchor_cli",
            unit: "bytes",
            figure: 297,
            what: "anchor CLI `scene info` stdout (75 tokens), the CLI bar an MCP surface competes with",
            source: "the Go adapter v0.2.17's published figures",
            ours: "/flows/read_scene_info/steps/2/response/content_text_bytes",
            ours_what: "text content of our scene info tool_call result",
            note: "Same scene read; the scene data differs (Unity 6000.3.5f2 vs simulator scene).",
        },
    ]
}

fn ratio(ours: u64, external: u64) -> Value {
    if external == 0 {
        return Value::Null;
    }
    json!(((ours as f64 / external as f64) * 1000.0).round() / 1000.0)
}

/// The comparison section for a measured report.
pub fn section(report: &Value) -> Value {
    let mut out = Map::new();
    for p in published() {
        let ours = report.pointer(p.ours).and_then(Value::as_u64);
        let mut entry = json!({
            "unit": p.unit,
            "external": {"figure": p.figure, "what": p.what, "source": p.source},
            "ours": {"figure": ours, "what": p.ours_what, "report_path": p.ours},
            "note": p.note,
        });
        match ours {
            Some(o) => entry["ratio_ours_to_external"] = ratio(o, p.figure),
            None => {
                // The measured section says why it has no figure (an exposure's status).
                let status = p
                    .ours
                    .rsplit_once('/')
                    .and_then(|(parent, _)| report.pointer(&format!("{parent}/status")))
                    .cloned()
                    .unwrap_or_else(|| json!("not available in this build"));
                entry["ours"]["status"] = status;
            }
        }
        out.insert(p.id.to_string(), entry);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ours_by_pointer_and_marks_missing() {
        let report = json!({"compact": {"tools_list": {"result_bytes": 2000}}});
        let s = section(&report);
        let c = &s["compact_tools_list_vs_anchor"];
        assert_eq!(c["ours"]["figure"], json!(2000));
        assert_eq!(c["ratio_ours_to_external"], json!(0.798));
        let p = &s["profile_core_vs_anchor"];
        assert_eq!(p["ours"]["figure"], Value::Null);
        assert_eq!(p["ours"]["status"], json!("not available in this build"));
        let with_status = json!({"exposures": {"profile_ui": {"status": "refused by the server"}}});
        let s = section(&with_status);
        assert_eq!(
            s["profile_ui_vs_anchor"]["ours"]["status"],
            json!("refused by the server")
        );
    }

    #[test]
    fn every_entry_names_where_its_figure_comes_from() {
        for p in published() {
            assert!(
                p.source.contains("Go adapter") || p.source.contains("published"),
                "{} does not say where its figure comes from: {}",
                p.id,
                p.source
            );
        }
    }
}
