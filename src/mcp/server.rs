//! The rmcp handler: identity, capabilities, the tool list (see `surface`), dispatch of the
//! compact tools or of native tools, and correct JSON-RPC errors for everything else.

use super::approval::{AgentApprover, TokenWhy};
use super::args::{self, CallArgs};
use super::call::{AgentCalls, CallContext, Progress, refusal};
use super::compact;
use super::envelope::Answer;
use super::native::{self, NativeCall};
use super::surface::ToolSurface;
use super::tools::{
    APPROVAL_META_KEY, INSTRUCTIONS, NATIVE_INSTRUCTIONS, TASK_POLL_NAME, TOOL_CALL, TOOL_DESCRIBE,
    TOOL_SEARCH,
};
use crate::results::{JSON_MIME, ProjectKey, StoreError, URI_TEMPLATE};
use crate::session::Session;
use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CustomRequest, CustomResult,
    ErrorCode, GetTaskParams, GetTaskResult, Implementation, InitializeResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};
use serde_json::json;
use std::sync::Arc;

pub const SERVER_NAME: &str = "hera-agent-unity";

/// Methods this server implements. When rmcp cannot parse their params it hands them to
/// `on_custom_request` (rmcp routes a known method whose params it cannot parse there); they get -32602, not -32601.
const KNOWN_METHODS: [&str; 12] = [
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "tasks/get",
    "tasks/cancel",
    "tasks/update",
    "subscriptions/listen",
];

#[derive(Clone)]
pub struct HeraServer {
    session: Arc<Session>,
    calls: Arc<AgentCalls>,
    surface: Arc<ToolSurface>,
    allow_arbitrary_code: bool,
}

impl HeraServer {
    pub fn new(calls: Arc<AgentCalls>, surface: Arc<ToolSurface>) -> Self {
        HeraServer {
            session: calls.session.clone(),
            allow_arbitrary_code: calls.allow_arbitrary_code,
            calls,
            surface,
        }
    }

    /// Runs a call through the shared pipeline (compact `tool_call` and native tools alike),
    /// stopping when the client cancels the request.
    async fn run_call(
        &self,
        mut a: CallArgs,
        native: Option<NativeCall>,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Answer, ErrorData> {
        if a.approval_token.is_none() {
            a.approval_token = approval_from_meta(ctx);
        }
        let progress = ctx.meta.get_progress_token().map(|token| Progress {
            peer: ctx.peer.clone(),
            token,
        });
        let cx = CallContext {
            progress,
            approver: if self.calls.ask_with_form {
                approver_for(ctx, request)
            } else {
                AgentApprover::Token {
                    protocol: negotiated(ctx),
                    why: TokenWhy::FormsOff,
                }
            },
            tasks: ctx
                .client_capabilities()
                .is_some_and(|c| c.supports_tasks()),
            native,
        };
        // A cancelled request gets no response (rmcp drops it); stop working on it too.
        tokio::select! {
            env = self.calls.call(a, cx) => Ok(env),
            _ = ctx.ct.cancelled() => Err(ErrorData::internal_error("request cancelled", None)),
        }
    }

    /// A native tool call: the name as published (or namespaced, as older clients send it).
    async fn call_native(
        &self,
        profile: &str,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Answer, ErrorData> {
        let arguments = request.arguments.clone().unwrap_or_default();
        let view = self.session.current_view();
        let known = |n: &str| {
            self.surface.was_published(n)
                || view
                    .as_ref()
                    .is_some_and(|v| v.catalog().tools.iter().any(|t| t.name == n))
        };
        let name = native_name(&request.name, known);
        if name == TASK_POLL_NAME {
            let a = CallArgs {
                name,
                arguments,
                operation_id: None,
                approval_token: None,
            };
            return self.run_call(a, None, request, ctx).await;
        }
        if view.is_some() && !known(&name) {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {name:?}; tools/list has this server's tools"),
                None,
            ));
        }
        if self.session.refreshing() {
            return Ok(native::catalog_stale(
                &name,
                "the Unity Editor's tool catalog is being reloaded",
            )
            .into());
        }
        let a = CallArgs {
            name,
            arguments,
            operation_id: None,
            approval_token: None,
        };
        let native = NativeCall {
            profile: profile.to_string(),
            before: view,
        };
        self.run_call(a, Some(native), request, ctx).await
    }
}

impl HeraServer {
    /// Puts a project switch the agent has not heard of into this result's `agent_hint` (before
    /// any hint the result has). Task and input-required answers have no hint: the switch waits
    /// for the next result.
    fn tell_switch(&self, answer: Answer) -> Answer {
        let Some(switch) = self.session.take_switch() else {
            return answer;
        };
        let join = |hint: Option<&str>| match hint {
            Some(h) if !h.is_empty() => format!("{} {h}", switch.hint()),
            _ => switch.hint(),
        };
        match answer {
            Answer::Made(mut e) => {
                e.agent_hint = Some(join(e.agent_hint.as_deref()));
                Answer::Made(e)
            }
            Answer::FromEditor(mut shaped) => match shaped.structured.as_object_mut() {
                Some(o) => {
                    let hint = join(o.get("agent_hint").and_then(|h| h.as_str()));
                    o.insert("agent_hint".into(), hint.into());
                    Answer::FromEditor(shaped)
                }
                None => {
                    self.session.restore_switch(switch);
                    Answer::FromEditor(shaped)
                }
            },
            other => {
                self.session.restore_switch(switch);
                other
            }
        }
    }
}

/// A native tool's name as a client sent it: exact, or with a namespace prefix some older
/// clients add (`hera__scene`, `hera.scene`, `hera/scene`) when the bare name is known.
fn native_name(sent: &str, known: impl Fn(&str) -> bool) -> String {
    if sent == TASK_POLL_NAME || known(sent) {
        return sent.to_string();
    }
    for sep in ["__", ".", "/"] {
        if let Some((_, bare)) = sent.rsplit_once(sep)
            && !bare.is_empty()
            && (bare == TASK_POLL_NAME || known(bare))
        {
            return bare.to_string();
        }
    }
    sent.to_string()
}

/// Accepts our tool names as clients send them, including namespaced forms some older clients
/// use (`hera__tool_search`, `hera.tool_search`, `hera/tool_search`).
fn canonical_tool_name(name: &str) -> Option<&'static str> {
    [TOOL_SEARCH, TOOL_DESCRIBE, TOOL_CALL]
        .into_iter()
        .find(|t| {
            name == *t
                || name.strip_suffix(t).is_some_and(|prefix| {
                    prefix.ends_with("__") || prefix.ends_with('.') || prefix.ends_with('/')
                })
        })
}

/// How this request can ask the user for approval: the client's form (elicitation) when it
/// declared one, as MRTR on 2026-07-28 and mid-call before; otherwise the token round trip.
fn approver_for(
    ctx: &RequestContext<RoleServer>,
    request: &CallToolRequestParams,
) -> AgentApprover {
    let form = ctx
        .client_capabilities()
        .and_then(|c| c.elicitation)
        .is_some_and(|e| e.form.is_some() || e.url.is_none());
    let protocol = negotiated(ctx);
    if !form {
        return AgentApprover::Token {
            protocol,
            why: TokenWhy::NoForm,
        };
    }
    let protocol = protocol.unwrap_or_default();
    let modern = protocol.as_str() >= ProtocolVersion::V_2026_07_28.as_str();
    if modern {
        AgentApprover::Mrtr {
            responses: request.input_responses.clone(),
            state: request.request_state.clone(),
            protocol,
        }
    } else {
        AgentApprover::Elicit {
            peer: ctx.peer.clone(),
            protocol,
        }
    }
}

/// The protocol version of this request's session (negotiated at initialize, or the
/// request's own on 2026-07-28).
fn negotiated(ctx: &RequestContext<RoleServer>) -> Option<String> {
    ctx.protocol_version().map(|v| v.as_str().to_string())
}

fn approval_from_meta(ctx: &RequestContext<RoleServer>) -> Option<String> {
    ctx.meta
        .get(APPROVAL_META_KEY)
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

impl ServerHandler for HeraServer {
    fn get_info(&self) -> ServerConfig {
        let mut identity = Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION"));
        identity.title = Some("Hera Agent Unity".into());
        identity.description =
            Some("Unity Editor tools for agents, over the AgentConnector".into());
        let native = self.surface.exposure().is_native();
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_tasks()
            .build();
        // Only native lists change; compact's three tools are fixed.
        if native && let Some(t) = capabilities.tools.as_mut() {
            t.list_changed = Some(true);
        }
        InitializeResult::new(capabilities)
            .with_server_info(identity)
            .with_instructions(if native {
                NATIVE_INSTRUCTIONS
            } else {
                INSTRUCTIONS
            })
    }

    async fn on_initialized(&self, ctx: NotificationContext<RoleServer>) {
        // The client is there: load the catalog before its first search or call asks for it.
        self.session.look_now();
        // A legacy session: list changes reach it as unsolicited notifications.
        if self.surface.exposure().is_native() {
            self.surface.set_legacy_peer(ctx.peer.clone());
        }
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.surface.accept_listener()
    }

    async fn listen(&self, ctx: SubscriptionContext) -> Result<(), ErrorData> {
        self.surface.listen(ctx).await
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        let view = if self.surface.exposure().is_native() {
            // Bounded: a live catalog when the Editor answers soon, else the cached one, else
            // none (an empty list at once; list_changed follows when the Editor appears). The
            // newest published view wins, so the client never gets a list older than the one
            // a concurrent refresh has just announced.
            let read = self.session.view_for_reading().await.ok();
            self.session.current_view().or(read)
        } else {
            None
        };
        let list = self.surface.list_for(view.as_deref());
        self.surface.adopt(&list);
        self.surface.give(&list);
        if let Some(r) = &list.refusal {
            let mut data = r.data.clone();
            data["code"] = json!(r.code);
            return Err(ErrorData::internal_error(r.message.clone(), Some(data)));
        }
        self.surface.page(&list, cursor.as_deref())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(profile) = self.surface.exposure().profile() {
            let profile = profile.to_string();
            let answer = self.call_native(&profile, &request, &ctx).await?;
            return Ok(self.tell_switch(answer).into_response());
        }
        let Some(tool) = canonical_tool_name(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; this server has tool_search, tool_describe and tool_call",
                    request.name
                ),
                None,
            ));
        };
        let envelope: Answer = match tool {
            TOOL_SEARCH => match args::search(&request.arguments) {
                Err(e) => e.into(),
                Ok(a) => match self.session.view_for_reading().await {
                    // Ranking is CPU work: off the async workers, so other requests (a ping, a
                    // cancel) are answered while a long query is ranked.
                    Ok(view) => {
                        let allow = self.allow_arbitrary_code;
                        match tokio::task::spawn_blocking(move || compact::search(&view, &a, allow))
                            .await
                        {
                            Ok(env) => env.into(),
                            Err(e) => {
                                return Err(ErrorData::internal_error(
                                    format!("search failed: {e}"),
                                    None,
                                ));
                            }
                        }
                    }
                    Err(e) => refusal(e, false).into(),
                },
            },
            TOOL_DESCRIBE => match args::describe(&request.arguments) {
                Err(e) => e.into(),
                Ok(a) => match self.session.view_for_reading().await {
                    Ok(view) => {
                        compact::describe_with(&view, &a, self.allow_arbitrary_code, a.provenance)
                            .into()
                    }
                    Err(e) => refusal(e, false).into(),
                },
            },
            _ => match args::call(&request.arguments) {
                Err(e) => e.into(),
                Ok(a) => self.run_call(a, None, &request, &ctx).await?,
            },
        };
        Ok(self.tell_switch(envelope).into_response())
    }

    /// This project's spilled results, newest first.
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let Some(project) = self
            .session
            .project_id()
            .and_then(|id| ProjectKey::from_project_id(&id).ok())
        else {
            return Ok(ListResourcesResult::with_all_items(Vec::new()));
        };
        let listed = self
            .calls
            .results
            .list(&project)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let resources = listed
            .into_iter()
            .map(|r| {
                Resource::new(r.uri, r.label.clone())
                    .with_title(format!("Result of {}", r.label))
                    .with_description(r.summary)
                    .with_mime_type(r.mime_type)
                    .with_size(r.byte_size)
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template: ResourceTemplate = serde_json::from_value(json!({
            "uriTemplate": URI_TEMPLATE,
            "name": "hera-result",
            "title": "Stored Unity tool result",
            "description": "A Unity tool result too large to return inline; ?offset&length reads bytes, ?items=<pointer>&offset&length reads array items.",
            "mimeType": JSON_MIME,
        }))
        .expect("a valid resource template");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    /// Reads a spilled result (whole, or the range in the URI), verified against its hash.
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let results = self.calls.results.clone();
        let uri = request.uri.clone();
        // Only this session's project's results are served, whatever the URI names.
        let Some(project) = self
            .session
            .project_id()
            .and_then(|id| ProjectKey::from_project_id(&id).ok())
        else {
            return Err(ErrorData::resource_not_found(
                "no result of this project is stored (no Editor or catalog is known yet)",
                Some(json!({"uri": request.uri})),
            ));
        };
        let read = tokio::task::spawn_blocking(move || results.read_as(&project, &uri, None))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match read {
            Ok(r) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(r.text, r.uri).with_mime_type(r.mime_type),
            ])
            .into()),
            Err(e) => {
                let data = Some(json!({"uri": request.uri, "code": e.code()}));
                Err(match e {
                    StoreError::Storage { .. } => ErrorData::internal_error(e.to_string(), data),
                    _ => ErrorData::resource_not_found(e.to_string(), data),
                })
            }
        }
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.calls
            .get_task(&request.task_id)
            .await
            .map(GetTaskResult::new)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.calls.cancel_task(&request.task_id).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Err(ErrorData::invalid_params(
            "this task asks for no input; poll tasks/get",
            Some(json!({"taskId": request.task_id})),
        ))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if KNOWN_METHODS.contains(&request.method.as_str()) {
            Err(ErrorData::invalid_params(
                format!(
                    "invalid params for {}: they do not match the method's schema",
                    request.method
                ),
                None,
            ))
        } else {
            Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {}", request.method),
                None,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn namespaced_names_resolve() {
        assert_eq!(canonical_tool_name("tool_search"), Some(TOOL_SEARCH));
        assert_eq!(canonical_tool_name("hera__tool_call"), Some(TOOL_CALL));
        assert_eq!(
            canonical_tool_name("hera.tool_describe"),
            Some(TOOL_DESCRIBE)
        );
        assert_eq!(canonical_tool_name("xtool_search"), None);
        assert_eq!(canonical_tool_name("scene"), None);
    }

    #[test]
    fn native_names_accept_namespaces_of_known_tools() {
        let known = |n: &str| n == "scene";
        assert_eq!(native_name("scene", known), "scene");
        assert_eq!(native_name("hera__scene", known), "scene");
        assert_eq!(native_name("hera.scene", known), "scene");
        assert_eq!(native_name("hera__bogus", known), "hera__bogus");
        assert_eq!(native_name("hera.task", known), "hera.task");
    }
}
