//! Shared test plumbing: a raw HTTP/1.1 client over `std::net::TcpStream` (the simulator must
//! be reachable by anything that speaks plain HTTP, so the tests use nothing fancier), a
//! fixture that starts a simulator in a temp HOME, and a schema check that every contract
//! message the tests receive goes through.

#![allow(dead_code)]

use hera_connector_contract::canonical::arguments_hash_of_value;
use hera_connector_sim::{SimConfig, Simulator};
use serde_json::{Value, json};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// A whole HTTP response.
#[derive(Debug, Clone)]
pub struct Http {
    pub status: u16,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Http {
    pub fn header(&self, name: &str) -> Option<&str> {
        let n = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| v.as_str())
    }
    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("UTF-8 body")
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// Sends raw request bytes and reads the response until the server closes the connection.
pub fn send_raw(port: u16, request: &[u8]) -> io::Result<Http> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    s.set_write_timeout(Some(Duration::from_secs(60)))?;
    s.write_all(request)?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    parse_response(&raw)
}

fn parse_response(raw: &[u8]) -> io::Result<Http> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "no complete response head"))?;
    let head = std::str::from_utf8(&raw[..end]).map_err(io::Error::other)?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::other(format!("bad status line {status_line:?}")))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    if let Some(len) = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
    {
        if body.len() < len {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "body shorter than Content-Length",
            ));
        }
        body.truncate(len);
    }
    Ok(Http {
        status,
        headers,
        body,
    })
}

/// A request with `method`, `path`, extra header lines and a body, sent the way the Go client
/// sends it (explicit Content-Length, `Connection: close`).
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    extra_headers: &[&str],
    body: &[u8],
) -> io::Result<Http> {
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for h in extra_headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(body);
    send_raw(port, &bytes)
}

/// POSTs `body`, checks the answer against the JSON Schema of its path, returns it.
pub fn post(port: u16, path: &str, body: &str) -> Http {
    let r = request(port, "POST", path, &[], body.as_bytes())
        .unwrap_or_else(|e| panic!("POST {path} failed: {e}"));
    check_response(path, &r);
    r
}

/// POSTs without the schema check (for fault answers that are not contract messages).
pub fn post_unchecked(port: u16, path: &str, body: &str) -> io::Result<Http> {
    request(port, "POST", path, &[], body.as_bytes())
}

/// `/command` with exactly these params and a Go-style `meta` (`op` as the operation id).
pub fn command_body(tool: &str, params: &Value, op: &str, token: Option<&str>) -> String {
    json!({
        "command": tool,
        "params": params,
        "meta": {
            "protocol_version": "hera.execution/1",
            "operation_id": op,
            "arguments_hash": arguments_hash_of_value(params),
            "approval_token": token,
            "client_kind": "cli",
        }
    })
    .to_string()
}

/// Sends a `/command` and returns the JSON body (HTTP 200 required).
pub fn call(port: u16, tool: &str, params: Value, op: &str) -> Value {
    call_with_token(port, tool, params, op, None)
}

pub fn call_with_token(
    port: u16,
    tool: &str,
    params: Value,
    op: &str,
    token: Option<&str>,
) -> Value {
    let r = post(port, "/command", &command_body(tool, &params, op, token));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// Sends a `/command` and returns the body text exactly.
pub fn call_text(port: u16, tool: &str, params: Value, op: &str, token: Option<&str>) -> String {
    let r = post(port, "/command", &command_body(tool, &params, op, token));
    assert_eq!(r.status, 200, "{}", r.text());
    r.text()
}

/// A preflight for `tool`/`action` with these arguments.
pub fn preflight(
    port: u16,
    op: &str,
    tool: &str,
    action: Option<&str>,
    arguments: &Value,
) -> Value {
    let mut body = json!({"operation_id": op, "tool": tool, "arguments": arguments});
    if let Some(a) = action {
        body["action"] = json!(a);
    }
    let r = post(port, "/approval/preflight", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// A fresh `op_<32 hex>` id.
pub fn op() -> String {
    hera_connector_contract::operation::OperationId::generate().to_string()
}

pub fn code(v: &Value) -> &str {
    v.get("code").and_then(Value::as_str).unwrap_or("")
}

/// A running simulator in its own temp HOME.
pub struct Fixture {
    pub home: tempfile::TempDir,
    pub sim: Simulator,
}

impl Fixture {
    pub fn port(&self) -> u16 {
        self.sim.port()
    }
}

pub const PROJECT: &str = "/Users/me/Unity/MyGame";

pub fn start() -> Fixture {
    start_with(|_| {})
}

pub fn start_with(f: impl FnOnce(&mut SimConfig)) -> Fixture {
    let home = tempfile::tempdir().expect("temp home");
    let mut cfg = SimConfig::new(home.path(), PROJECT);
    f(&mut cfg);
    let sim = Simulator::start_background(cfg).expect("simulator starts");
    Fixture { home, sim }
}

/// Polls `f` every 20 ms until it returns `Some`, for at most `timeout`.
pub fn wait_for<T>(timeout: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if std::time::Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---- schema checks ------------------------------------------------------------------------

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

struct Schemas {
    validators: Vec<(String, jsonschema::Validator)>,
}

fn schemas() -> &'static Schemas {
    static S: OnceLock<Schemas> = OnceLock::new();
    S.get_or_init(|| {
        let mut docs = Vec::new();
        for entry in std::fs::read_dir(schema_dir()).expect("connector-contract/schemas exists") {
            let path = entry.expect("dir entry").path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let doc: Value =
                serde_json::from_slice(&std::fs::read(&path).expect("schema readable"))
                    .expect("schema is JSON");
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            docs.push((name, doc));
        }
        let registry =
            jsonschema::Registry::new()
                .extend(docs.iter().filter_map(|(_, doc)| {
                    doc.get("$id").and_then(Value::as_str).map(|id| (id, doc))
                }))
                .and_then(|b| b.prepare())
                .expect("the contract schemas form a registry");
        let options = jsonschema::options()
            .should_validate_formats(true)
            .with_registry(&registry);
        let validators = docs
            .iter()
            .map(|(name, doc)| {
                let v = options
                    .build(doc)
                    .unwrap_or_else(|e| panic!("schema {name} does not compile: {e}"));
                (name.clone(), v)
            })
            .collect();
        Schemas { validators }
    })
}

/// Validates `instance` against `connector-contract/schemas/<name>`; panics with every error.
pub fn assert_schema(name: &str, instance: &Value) {
    let s = schemas();
    let (_, v) = s
        .validators
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no schema {name}"));
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{name} rejects {instance}:\n{}",
        errors.join("\n")
    );
}

/// The schema of an answer on `path` with `status`.
pub fn check_response(path: &str, r: &Http) {
    if r.status == 204 {
        assert!(r.body.is_empty(), "204 with a body");
        return;
    }
    let v = r.json();
    if r.status != 200 {
        assert_schema("http-error.schema.json", &v);
        return;
    }
    match path {
        "/command" => assert_schema("command-response.schema.json", &v),
        "/commands" => assert_schema("batch-response.schema.json", &v),
        "/approval/preflight" => assert_schema("preflight-response.schema.json", &v),
        _ => panic!("200 on unexpected path {path}"),
    }
}

/// Reads and schema-checks the heartbeat file.
pub fn heartbeat(sim: &Simulator) -> Value {
    let v: Value =
        serde_json::from_slice(&std::fs::read(sim.heartbeat_path()).expect("heartbeat exists"))
            .expect("heartbeat is JSON");
    assert_schema("heartbeat.schema.json", &v);
    v
}

/// Reads and schema-checks a ledger record file.
pub fn ledger_record(sim: &Simulator, op: &str) -> Option<Value> {
    let path = sim.ledger_dir().join(format!("{op}.json"));
    let bytes = std::fs::read(path).ok()?;
    let v: Value = serde_json::from_slice(&bytes).expect("ledger record is JSON");
    assert_schema("ledger-record.schema.json", &v);
    Some(v)
}

pub use hera_connector_sim::catalog::custom_tool;
