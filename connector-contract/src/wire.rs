//! Names, numbers and record shapes of the wire (README: Discovery and heartbeat, Transport and limits, Operation ledger, File bus).
//!
//! Readers are tolerant (README: Responses): every field except the ones the protocol guarantees is optional,
//! unknown fields are ignored. Writers (the simulator) emit every field, nulls included, in the
//! Connector's key order, which is the declaration order here.

use serde::{Deserialize, Serialize};

pub const EXECUTION_PROTOCOL: &str = "hera.execution/1";
pub const CATALOG_SCHEMA: &str = "hera.tool-catalog/1";
pub const LEGACY_CATALOG_SCHEMA: &str = "hera.tool-catalog/legacy";

pub const FEATURE_APPROVAL: &str = "approval_v1";
pub const FEATURE_DOMAIN_EPOCH: &str = "domain_epoch_v1";
pub const FEATURE_EXECUTION_PROTOCOL: &str = "execution_protocol_v1";
pub const FEATURE_OPERATION_LEDGER: &str = "operation_ledger_v1";
pub const FEATURE_TASK_BRIDGE: &str = "task_bridge_v1";
pub const FEATURE_TOOL_CATALOG: &str = "tool_catalog_v1";
/// The six features a current Connector advertises, in heartbeat order.
pub const ALL_FEATURES: [&str; 6] = [
    FEATURE_APPROVAL,
    FEATURE_DOMAIN_EPOCH,
    FEATURE_EXECUTION_PROTOCOL,
    FEATURE_OPERATION_LEDGER,
    FEATURE_TASK_BRIDGE,
    FEATURE_TOOL_CATALOG,
];

/// Ports the Connector tries, in order.
pub const PORT_RANGE: std::ops::RangeInclusive<u16> = 8090..=8099;
/// Request body limits (README: Transport and limits).
pub const MAX_COMMAND_BODY: usize = 1024 * 1024;
pub const MAX_BATCH_BODY: usize = 4 * 1024 * 1024;
pub const MAX_BATCH_ITEMS: usize = 50;
pub const MAX_PENDING_REQUESTS: usize = 64;
/// The most a client reads of a response body.
pub const MAX_RESPONSE_BODY: usize = 50 * 1024 * 1024;
/// The Connector's JSON reader refuses a body whose objects and arrays nest deeper than this
/// (`HTTP_INVALID_JSON`), whatever the schema says.
pub const MAX_BODY_DEPTH: usize = 64;

/// The deepest nesting of objects and arrays in JSON text (0 for a scalar), counted over the
/// bytes: brackets inside strings do not count. Linear, no allocation; for malformed text the
/// count is still bounded by the number of opening brackets.
pub fn nesting_depth(text: &[u8]) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &c in text {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Folder names under `~/.hera-agent-unity/`.
pub const BASE_DIR_NAME: &str = ".hera-agent-unity";
pub const INSTANCES_DIR: &str = "instances";
pub const STATUS_DIR: &str = "status";
pub const OPERATIONS_DIR: &str = "operations";

/// The heartbeat file. `port` is the only field every Connector writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Heartbeat {
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub project_path: Option<String>,
    pub port: u16,
    #[serde(default)]
    pub pid: Option<i64>,
    #[serde(default)]
    pub unity_version: Option<String>,
    #[serde(default)]
    pub docs_version: Option<String>,
    #[serde(default)]
    pub compiler: Option<Compiler>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain_epoch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub features: Option<Vec<String>>,
    #[serde(default)]
    pub timestamp: Option<i64>,
    #[serde(default)]
    pub compile_errors: Option<bool>,
}

impl Heartbeat {
    pub fn has_feature(&self, name: &str) -> bool {
        self.features
            .as_deref()
            .unwrap_or_default()
            .iter()
            .any(|f| f == name)
    }
    /// Whether the strict catalog path may be used (README: Catalog and catalog_hash).
    pub fn supports_strict_catalog(&self) -> bool {
        self.has_feature(FEATURE_TOOL_CATALOG)
            && self.has_feature(FEATURE_DOMAIN_EPOCH)
            && self.domain_epoch.as_deref().is_some_and(|e| !e.is_empty())
    }
    pub fn state(&self) -> &str {
        self.state.as_deref().unwrap_or("")
    }
}

/// The heartbeat's `compiler` object; any string may be null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compiler {
    #[serde(default)]
    pub csc_path: Option<String>,
    #[serde(default)]
    pub csc_kind: Option<String>,
    #[serde(default)]
    pub csc_found: Option<bool>,
    #[serde(default)]
    pub dotnet_path: Option<String>,
    #[serde(default)]
    pub dotnet_kind: Option<String>,
    #[serde(default)]
    pub dotnet_found: Option<bool>,
    #[serde(default)]
    pub error: Option<String>,
}

/// Ledger record states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LedgerState {
    Received,
    Running,
    Committed,
    Failed,
    Responded,
    OutcomeUnknown,
}

impl LedgerState {
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            LedgerState::Committed | LedgerState::Failed | LedgerState::Responded
        )
    }
}

/// One operation in `status/operations/<project>/<operation_id>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerRecord {
    pub schema_version: u32,
    pub operation_id: String,
    pub tool: String,
    pub action: Option<String>,
    pub arguments_hash: String,
    pub risk_class: String,
    pub idempotent: bool,
    pub approval_verified: bool,
    pub state: LedgerState,
    pub started_at_ms: i64,
    pub committed_at_ms: Option<i64>,
    pub response: Option<serde_json::Value>,
    pub response_hash: Option<String>,
    pub domain_epoch: String,
}

/// `status/test-pending-<port>-<run_id>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestPending {
    pub port: u16,
    pub run_id: String,
    #[serde(default)]
    pub filter: String,
    #[serde(default)]
    pub mode: String,
    #[serde(default)]
    pub selective: bool,
    #[serde(default)]
    pub nunit_guid: String,
    #[serde(default)]
    pub owner_pid: i64,
    #[serde(default)]
    pub project_id: Option<String>,
}

/// `status/package-pending-<port>-<job_id>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackagePending {
    pub job_id: String,
    pub port: u16,
    pub action: String,
    pub identifier: String,
    #[serde(default)]
    pub project_id: Option<String>,
    #[serde(default)]
    pub owner_pid: i64,
    #[serde(default)]
    pub started_unix_ms: i64,
}

/// File names on the file bus, in one place so writer and reader cannot drift.
pub mod file_bus {
    pub fn test_pending(port: u16, run_id: &str) -> String {
        format!("test-pending-{port}-{run_id}.json")
    }
    pub fn test_results(port: u16, run_id: &str) -> String {
        format!("test-results-{port}-{run_id}.json")
    }
    pub fn test_results_legacy(port: u16) -> String {
        format!("test-results-{port}.json")
    }
    pub fn package_pending(port: u16, job_id: &str) -> String {
        format!("package-pending-{port}-{job_id}.json")
    }
    pub fn package_result(port: u16, job_id: &str) -> String {
        format!("package-result-{port}-{job_id}.json")
    }
    pub fn build_result(port: u16) -> String {
        format!("build-result-{port}.json")
    }
}
