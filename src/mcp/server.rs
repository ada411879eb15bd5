//! The rmcp handler: identity, capabilities, the fixed compact tool list, dispatch of the three
//! tools, and correct JSON-RPC errors for everything else.

use super::args;
use super::compact;
use super::envelope::Envelope;
use super::link::EditorLink;
use super::tools::{self, APPROVAL_META_KEY, INSTRUCTIONS, TOOL_CALL, TOOL_DESCRIBE, TOOL_SEARCH};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
    Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use std::sync::Arc;

pub const SERVER_NAME: &str = "hera-agent-unity";

/// Methods this server implements. When rmcp cannot parse their params it hands them to
/// `on_custom_request` (rmcp-guide pitfall 3); they get -32602, not -32601.
const KNOWN_METHODS: [&str; 5] = [
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
];

#[derive(Clone)]
pub struct HeraServer {
    link: Arc<EditorLink>,
    tools: Arc<Vec<Tool>>,
    allow_arbitrary_code: bool,
}

impl HeraServer {
    pub fn new(link: Arc<EditorLink>, allow_arbitrary_code: bool) -> Self {
        HeraServer {
            link,
            tools: Arc::new(tools::compact_tools()),
            allow_arbitrary_code,
        }
    }
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
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(identity)
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = canonical_tool_name(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; this server has tool_search, tool_describe and tool_call",
                    request.name
                ),
                None,
            ));
        };
        let envelope = match tool {
            TOOL_SEARCH => match args::search(&request.arguments) {
                Err(e) => e,
                Ok(a) => match self.link.view_for_reading().await {
                    Ok(view) => compact::search(&view, &a, self.allow_arbitrary_code),
                    Err(e) => e,
                },
            },
            TOOL_DESCRIBE => match args::describe(&request.arguments) {
                Err(e) => e,
                Ok(a) => match self.link.view_for_reading().await {
                    Ok(view) => compact::describe(&view, &a, self.allow_arbitrary_code),
                    Err(e) => e,
                },
            },
            _ => match args::call(&request.arguments) {
                Err(e) => e,
                Ok(mut a) => {
                    if a.approval_token.is_none() {
                        a.approval_token = approval_from_meta(&ctx);
                    }
                    // A cancelled request gets no response (rmcp drops it); stop working on it too.
                    tokio::select! {
                        env = self.link.call(a, self.allow_arbitrary_code) => env,
                        _ = ctx.ct.cancelled() => return Err(ErrorData::internal_error("request cancelled", None)),
                    }
                }
            },
        };
        Ok(CallToolResponse::Complete(Envelope::into_result(envelope)))
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
}
