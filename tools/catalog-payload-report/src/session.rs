//! Drives the real `hera-agent-unity mcp` binary through the measured exchanges and turns each
//! response into figures (see `measure`), after `normalize` has made volatile values stable.

use crate::client::{McpClient, Reply, SessionError};
use crate::measure::{self, Measured, compact_len, tokens_estimate};
use crate::normalize::Normalizer;
use crate::scenario::{DescribeCase, Exposure, Flow};
use hera_connector_contract::canonical::sha256_prefixed;
use serde_json::{Map, Value, json};
use std::path::Path;

/// Upper bound on `tools/list` pages followed through `nextCursor`.
const MAX_PAGES: usize = 50;

/// Where the server runs: binary, temp HOME, the pinned project.
pub struct Target<'a> {
    pub binary: &'a Path,
    pub home: &'a Path,
    pub project: &'a str,
}

fn measured(n: &mut Normalizer, reply: &Reply) -> Result<Measured, SessionError> {
    measure::response(&n.apply(&reply.line)).map_err(SessionError::Failed)
}

/// `initialize`: once per session; carries the instructions the client puts in the prompt.
pub fn initialize(client: &mut McpClient, n: &mut Normalizer) -> Result<Value, SessionError> {
    let reply = client.handshake()?;
    let m = measured(n, &reply)?;
    let result = m.result().clone();
    let mut figures = m.figures;
    let instructions = result
        .get("instructions")
        .and_then(Value::as_str)
        .map(|s| s.len())
        .unwrap_or(0);
    figures.insert("instructions_bytes".into(), json!(instructions));
    figures.insert("protocol_version".into(), result["protocolVersion"].clone());
    figures.insert("server_name".into(), result["serverInfo"]["name"].clone());
    figures.insert(
        "server_version".into(),
        result["serverInfo"]["version"].clone(),
    );
    Ok(Value::Object(figures))
}

/// `tools/list`, following `nextCursor`; figures are sums over the pages.
pub fn tools_list(client: &mut McpClient, n: &mut Normalizer) -> Result<Value, SessionError> {
    let mut pages: Vec<Measured> = Vec::new();
    let mut normalized_lines = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        if pages.len() >= MAX_PAGES {
            return Err(SessionError::Failed(format!(
                "tools/list still had a nextCursor after {MAX_PAGES} pages"
            )));
        }
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let reply = client.request("tools/list", params)?;
        let line = n.apply(&reply.line);
        let m = measure::response(&line).map_err(SessionError::Failed)?;
        normalized_lines.push(line);
        cursor = m.result()["nextCursor"].as_str().map(str::to_string);
        pages.push(m);
        if cursor.is_none() {
            break;
        }
    }
    let figures: Vec<&Map<String, Value>> = pages.iter().map(|p| &p.figures).collect();
    let tools: Vec<&Value> = pages
        .iter()
        .flat_map(|p| p.result()["tools"].as_array().into_iter().flatten())
        .collect();
    let array_bytes: u64 = pages
        .iter()
        .map(|p| compact_len(&p.result()["tools"]))
        .sum();
    let per_tool: Map<String, Value> = tools
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or("?").to_string(),
                json!(compact_len(t)),
            )
        })
        .collect();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let result_bytes = measure::sum(&figures, "result_bytes");
    Ok(json!({
        "tool_names": names,
        "pages": pages.len(),
        "tools": tools.len(),
        "frame_bytes": measure::sum(&figures, "frame_bytes"),
        "result_bytes": result_bytes,
        "tools_array_bytes": array_bytes,
        "tokens_estimate": tokens_estimate(result_bytes),
        "o200k_tokens": measure::sum(&figures, "o200k_tokens"),
        "per_tool_bytes": per_tool,
        "digest": sha256_prefixed(normalized_lines.join("\n").as_bytes()),
    }))
}

/// One `tools/call` of a compact tool; a tool error fails the run (it would measure an error
/// message instead of the task), except the code `expect_error` when given, which must come.
fn call_expecting(
    client: &mut McpClient,
    n: &mut Normalizer,
    tool: &str,
    arguments: &Value,
    context: &str,
    expect_error: Option<&str>,
) -> Result<(Measured, Value), SessionError> {
    let reply = client.request("tools/call", json!({"name": tool, "arguments": arguments}))?;
    // The raw result, before normalization, for values the next call must send back as they
    // were (an approval token).
    let raw: Value = serde_json::from_str::<Value>(&reply.line)
        .map(|v| v["result"].clone())
        .unwrap_or(Value::Null);
    let m = measured(n, &reply)?;
    let result = m.result();
    let payload = payload_of(result);
    let ok =
        result["isError"].as_bool() != Some(true) && payload["success"].as_bool() != Some(false);
    let code = payload["code"].as_str();
    match expect_error {
        None if ok => Ok((m, raw)),
        Some(want) if !ok && code == Some(want) => Ok((m, raw)),
        _ => Err(SessionError::Failed(format!(
            "{context}: {tool} {arguments} answered {} ({}){}",
            code.unwrap_or(if ok { "success" } else { "an error" }),
            payload["message"].as_str().unwrap_or("(no message)"),
            expect_error.map_or(String::new(), |w| format!("; expected {w}")),
        ))),
    }
}

fn call(
    client: &mut McpClient,
    n: &mut Normalizer,
    tool: &str,
    arguments: &Value,
    context: &str,
) -> Result<Measured, SessionError> {
    call_expecting(client, n, tool, arguments, context, None).map(|(m, _)| m)
}

/// The envelope of a tool result: `structuredContent`, or the JSON of its first text block
/// (a server may send lookups as text only).
fn payload_of(result: &Value) -> Value {
    match result.get("structuredContent") {
        Some(sc) if !sc.is_null() => sc.clone(),
        _ => result["content"][0]["text"]
            .as_str()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(Value::Null),
    }
}

/// 1-based position of the flow's target among the search hits, if present.
fn target_rank(flow: &Flow, search: &Value) -> Option<usize> {
    let payload = payload_of(search);
    let hits = payload["data"]["results"].as_array()?;
    hits.iter()
        .position(|h| {
            h["name"].as_str() == Some(flow.target_tool)
                && h.get("action").and_then(Value::as_str) == flow.target_action
        })
        .map(|i| i + 1)
}

/// search → describe → call for each flow (or search alone for a capability not offered;
/// call twice, the second time with the approval token, for an approval). `setup_bytes` is
/// what every session pays first (`initialize` and `tools/list` results), added to each flow's
/// `session_result_bytes`.
pub fn flows(
    client: &mut McpClient,
    n: &mut Normalizer,
    flows: &[Flow],
    setup_bytes: u64,
) -> Result<Value, SessionError> {
    let mut out = Map::new();
    for flow in flows {
        let context = format!("flow {}", flow.id);
        let mut step_values = Vec::new();
        let mut figures = Vec::new();
        let mut arguments_bytes = 0;
        let mut arguments_tokens = 0;
        let mut record = |step: &str, tool: &str, arguments: &Value, m: Measured, extra: Value| {
            let args_text = serde_json::to_string(arguments).expect("JSON");
            arguments_bytes += args_text.len() as u64;
            arguments_tokens += measure::o200k(&args_text);
            let mut v = json!({
                "step": step,
                "tool": tool,
                "arguments": arguments,
                "arguments_bytes": args_text.len(),
            });
            if let Some(obj) = extra.as_object() {
                for (k, x) in obj {
                    v[k] = x.clone();
                }
            }
            figures.push(m.figures.clone());
            v["response"] = m.into_json();
            step_values.push(v);
        };

        let m = call(client, n, "tool_search", &flow.search, &context)?;
        let extra = match flow.not_offered {
            Some(capability) => {
                let said = payload_of(m.result())["data"]["not_offered"].clone();
                if said != json!(capability) {
                    return Err(SessionError::Failed(format!(
                        "{context}: the search did not answer not_offered {capability:?} (got {said})"
                    )));
                }
                json!({"not_offered": capability})
            }
            None => json!({
                "target": match flow.target_action {
                    Some(a) => format!("{}/{a}", flow.target_tool),
                    None => flow.target_tool.to_string(),
                },
                "target_rank": target_rank(flow, m.result()),
            }),
        };
        record("search", "tool_search", &flow.search, m, extra);
        if let Some(d) = &flow.describe {
            let m = call(client, n, "tool_describe", d, &context)?;
            record("describe", "tool_describe", d, m, json!({}));
        }
        if let Some(c) = &flow.call {
            if flow.approval {
                let (m, raw) = call_expecting(
                    client,
                    n,
                    "tool_call",
                    c,
                    &context,
                    Some("APPROVAL_REQUIRED"),
                )?;
                let token = payload_of(&raw)["data"]["token"]
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| {
                        SessionError::Failed(format!(
                            "{context}: APPROVAL_REQUIRED without data.token"
                        ))
                    })?;
                record(
                    "call",
                    "tool_call",
                    c,
                    m,
                    json!({"expected": "APPROVAL_REQUIRED"}),
                );
                let mut approved = c.clone();
                approved["approval_token"] = json!(token);
                let m = call(client, n, "tool_call", &approved, &context)?;
                // The token is volatile; the arguments are recorded without it.
                record(
                    "call_approved",
                    "tool_call",
                    c,
                    m,
                    json!({"approval_token": "<the token from APPROVAL_REQUIRED>"}),
                );
                arguments_bytes += (token.len() + r#","approval_token":"""#.len()) as u64;
            } else {
                let m = call(client, n, "tool_call", c, &context)?;
                record("call", "tool_call", c, m, json!({}));
            }
        }
        let refs: Vec<&Map<String, Value>> = figures.iter().collect();
        let result_bytes = measure::sum(&refs, "result_bytes");
        let kind = if flow.not_offered.is_some() {
            "search_only"
        } else {
            "search_describe_call"
        };
        out.insert(
            flow.id.to_string(),
            json!({
                "task": flow.task,
                "kind": kind,
                "steps": step_values,
                "total": {
                    "arguments_bytes": arguments_bytes,
                    "arguments_o200k_tokens": arguments_tokens,
                    "frame_bytes": measure::sum(&refs, "frame_bytes"),
                    "result_bytes": result_bytes,
                    "content_text_bytes": measure::sum(&refs, "content_text_bytes"),
                    "structured_content_bytes": measure::sum(&refs, "structured_content_bytes"),
                    "model_bytes": measure::sum(&refs, "model_bytes"),
                    "model_o200k_tokens": measure::sum(&refs, "model_o200k_tokens"),
                    "tokens_estimate": tokens_estimate(result_bytes),
                },
                "session_result_bytes": setup_bytes + result_bytes,
                "session_tokens_estimate": tokens_estimate(setup_bytes + result_bytes),
            }),
        );
    }
    Ok(Value::Object(out))
}

/// 1 − part/whole, to three decimals; `null` for an empty whole.
pub fn ratio_saved(part: u64, whole: u64) -> Value {
    if whole == 0 {
        return Value::Null;
    }
    let saved = 1.0 - part as f64 / whole as f64;
    json!((saved * 1000.0).round() / 1000.0)
}

/// `tool_describe` of a whole tool against each listed action.
pub fn describes(
    client: &mut McpClient,
    n: &mut Normalizer,
    cases: &[DescribeCase],
) -> Result<Value, SessionError> {
    let mut out = Map::new();
    for case in cases {
        let context = format!("describe {}", case.tool);
        let whole = call(
            client,
            n,
            "tool_describe",
            &json!({"name": case.tool}),
            &context,
        )?;
        let whole_bytes = whole.figure("result_bytes");
        let mut actions = Map::new();
        for action in case.actions {
            let m = call(
                client,
                n,
                "tool_describe",
                &json!({"name": case.tool, "action": action}),
                &context,
            )?;
            let bytes = m.figure("result_bytes");
            let mut v = m.into_json();
            v["saving_vs_whole_tool"] = ratio_saved(bytes, whole_bytes);
            actions.insert(action.to_string(), v);
        }
        out.insert(
            case.tool.to_string(),
            json!({"whole_tool": whole.into_json(), "actions": actions}),
        );
    }
    Ok(Value::Object(out))
}

/// A command line the build does not know, or an exposure it has not implemented, is "not
/// available in this build"; any other refusal (say, a profile with no tools) is the server's
/// considered answer and is kept as such.
fn refusal_status(reason: &str) -> &'static str {
    let r = reason.to_ascii_lowercase();
    if r.contains("unexpected argument") || r.contains("not implemented") {
        "not available in this build"
    } else {
        "refused by the server"
    }
}

/// `tools/list` under another exposure. A server that refuses the command line is recorded as
/// not available, with its reason, and nothing is derived for it.
pub fn exposure(
    target: &Target,
    n: &mut Normalizer,
    exposure: &Exposure,
) -> Result<Value, SessionError> {
    let args: Vec<&str> = exposure.args.iter().map(String::as_str).collect();
    let attempt = (|| {
        let mut client = McpClient::spawn(target.binary, target.home, target.project, &args)?;
        let init = initialize(&mut client, n)?;
        let mut listed = tools_list(&mut client, n)?;
        client.close();
        // The instructions may differ per exposure; they are paid once per session too.
        listed["initialize_result_bytes"] = init["result_bytes"].clone();
        Ok::<Value, SessionError>(listed)
    })();
    let command = format!("hera-agent-unity mcp --transport stdio {}", args.join(" "));
    match attempt {
        Ok(mut listed) => {
            listed["available"] = json!(true);
            listed["command"] = json!(command);
            Ok(listed)
        }
        Err(SessionError::Refused(reason)) => Ok(json!({
            "available": false,
            "command": command,
            "status": refusal_status(&reason),
            "reason": n.apply(&reason),
        })),
        Err(e) => Err(SessionError::Failed(format!("{command}: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_told_apart() {
        assert_eq!(
            refusal_status("error: unexpected argument '--profile' found"),
            "not available in this build"
        );
        assert_eq!(
            refusal_status("Error: MCP exposure \"full\" is not implemented in this build yet"),
            "not available in this build"
        );
        assert_eq!(
            refusal_status("Error: profile custom has no tools in this catalog"),
            "refused by the server"
        );
    }
}
