//! The client against hand-made misbehaving servers on 127.0.0.1: each test scripts the raw
//! bytes of every connection, so the retry rules are checked without timing guesses.

use super::*;
use crate::discovery::{AgentHome, Instance};
use hera_connector_contract::wire::Heartbeat;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the scripted server does with one connection.
#[derive(Clone)]
enum Act {
    /// Read the request, then close without answering.
    Drop,
    /// Read the request, answer these raw bytes.
    Answer(&'static str),
    /// Read the request and never answer.
    Stall,
}

/// Serves `acts` in order (the last one repeats); returns the port, the connection count and the
/// request bodies seen.
async fn server(acts: Vec<Act>) -> (u16, Arc<AtomicUsize>, Arc<Mutex<Vec<String>>>) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let (c, b) = (count.clone(), bodies.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = l.accept().await else {
                return;
            };
            let n = c.fetch_add(1, Ordering::SeqCst);
            let act = acts.get(n).or(acts.last()).cloned().unwrap();
            let b = b.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                // Read headers and the Content-Length body.
                loop {
                    let Ok(k) = s.read(&mut chunk).await else {
                        return;
                    };
                    if k == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..k]);
                    let text = String::from_utf8_lossy(&buf).to_string();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let len = text[..end]
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap())
                            })
                            .unwrap_or(0);
                        if buf.len() >= end + 4 + len {
                            b.lock().unwrap().push(text[end + 4..].to_string());
                            break;
                        }
                    }
                }
                match act {
                    Act::Drop => {}
                    Act::Answer(bytes) => {
                        let _ = s.write_all(bytes.as_bytes()).await;
                    }
                    Act::Stall => tokio::time::sleep(Duration::from_secs(30)).await,
                }
            });
        }
    });
    (port, count, bodies)
}

fn ok(body: &'static str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn client(port: u16, features: &[&str], timeout_ms: u64) -> (ConnectorClient, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let home = AgentHome::for_home(dir.path());
    let hb: Heartbeat = serde_json::from_value(json!({
        "state": "ready", "projectPath": "/p/Game", "port": port, "pid": std::process::id(),
        "features": features, "domainEpoch": "e1", "timestamp": 1
    }))
    .unwrap();
    std::fs::create_dir_all(home.instances_dir()).unwrap();
    std::fs::write(
        home.instances_dir().join("a.json"),
        serde_json::to_vec(&hb).unwrap(),
    )
    .unwrap();
    let inst = Instance::from_heartbeat(hb, home.instances_dir().join("a.json"));
    (
        ConnectorClient::new(home, inst, Duration::from_millis(timeout_ms)),
        dir,
    )
}

fn params() -> Map<String, Value> {
    json!({"action": "create", "name": "A"})
        .as_object()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn meta_is_complete_and_catalog_hash_never_goes_on_list() {
    let (port, _, bodies) = server(vec![Act::Answer(leak(ok(
        r#"{"success":true,"message":"ok","data":{"x":1},"timings":null}"#,
    )))])
    .await;
    let (c, _d) = client(port, &[], 5000);
    let op = OperationId::parse("op_fixed_12345678").unwrap();
    let r = c
        .command(
            "scene",
            &params(),
            CallOptions {
                operation_id: Some(op.clone()),
                catalog_hash: Some("sha256:abc".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(r.envelope.success && r.envelope.data() == Some(&json!({"x":1})));
    c.command(
        "list",
        &Map::new(),
        CallOptions {
            catalog_hash: Some("sha256:abc".into()),
            client_kind: ClientKind::Mcp,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let sent: Vec<Value> = bodies
        .lock()
        .unwrap()
        .iter()
        .map(|b| serde_json::from_str(b).unwrap())
        .collect();
    let meta = &sent[0]["meta"];
    assert_eq!(meta["protocol_version"], "hera.execution/1");
    assert_eq!(meta["operation_id"], "op_fixed_12345678");
    assert_eq!(meta["approval_token"], Value::Null);
    assert_eq!(meta["client_kind"], "cli");
    assert_eq!(meta["catalog_hash"], "sha256:abc");
    assert_eq!(
        meta["arguments_hash"],
        hera_connector_contract::canonical::arguments_hash_of_value(&Value::Object(params()))
    );
    assert!(sent[1]["meta"].get("catalog_hash").is_none());
    assert_eq!(sent[1]["meta"]["client_kind"], "mcp");
}

#[tokio::test]
async fn a_broken_mutation_is_resent_with_the_same_id_only_with_a_ledger() {
    let good = leak(ok(r#"{"success":true,"message":"done"}"#));
    // With the ledger: drop, then answer; the resend carries the same operation id.
    let (port, count, bodies) = server(vec![Act::Drop, Act::Answer(good)]).await;
    let (c, _d) = client(port, &["operation_ledger_v1"], 10_000);
    let r = c
        .command("manage_gameobject", &params(), CallOptions::default())
        .await
        .unwrap();
    assert!(r.envelope.success);
    assert_eq!(count.load(Ordering::SeqCst), 2);
    let ids: Vec<String> = bodies
        .lock()
        .unwrap()
        .iter()
        .map(|b| {
            serde_json::from_str::<Value>(b).unwrap()["meta"]["operation_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids[0], ids[1]);
    assert_eq!(ids[0], r.operation_id.as_str());

    // Without it: unknown outcome, exactly one send.
    let (port, count, _) = server(vec![Act::Drop, Act::Answer(good)]).await;
    let (c, _d) = client(port, &[], 10_000);
    let e = c
        .command("manage_gameobject", &params(), CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), "OPERATION_OUTCOME_UNKNOWN");
    assert_eq!(e.data()["tool"], "manage_gameobject");
    assert_eq!(count.load(Ordering::SeqCst), 1);

    // An idempotent call is resent even without a ledger.
    let (port, count, _) = server(vec![Act::Drop, Act::Answer(good)]).await;
    let (c, _d) = client(port, &[], 10_000);
    c.command(
        "scene",
        &params(),
        CallOptions {
            idempotent: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn empty_and_non_json_200_are_broken_exchanges() {
    let empty = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    let good = leak(ok(r#"{"success":true,"message":"after"}"#));
    let (port, count, _) = server(vec![Act::Answer(empty), Act::Answer(good)]).await;
    let (c, _d) = client(port, &["operation_ledger_v1"], 10_000);
    let r = c
        .command("scene", &params(), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.envelope.message.as_deref(), Some("after"));
    assert_eq!(count.load(Ordering::SeqCst), 2);
    // Without a ledger an empty 200 on a mutation is an unknown outcome.
    let (port, count, _) = server(vec![Act::Answer(empty)]).await;
    let (c, _d) = client(port, &[], 10_000);
    assert!(
        c.command("scene", &params(), CallOptions::default())
            .await
            .unwrap_err()
            .is_outcome_unknown()
    );
    assert_eq!(count.load(Ordering::SeqCst), 1);

    let text = leak(
        "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\nhello world".to_string(),
    );
    // A non-JSON 200 is never an answer: on a mutation without a ledger it is an unknown
    // outcome, never resent; on an idempotent call it is resent like a broken exchange.
    let (port, count, _) = server(vec![Act::Answer(text)]).await;
    let (c, _d) = client(port, &[], 5000);
    let e = c
        .command("scene", &params(), CallOptions::default())
        .await
        .unwrap_err();
    assert!(e.is_outcome_unknown(), "{e}");
    assert!(e.to_string().contains("not a Connector envelope"), "{e}");
    assert_eq!(count.load(Ordering::SeqCst), 1);
    let (port, count, _) = server(vec![Act::Answer(text), Act::Answer(good)]).await;
    let (c, _d) = client(port, &[], 5000);
    let r = c
        .command(
            "scene",
            &params(),
            CallOptions {
                idempotent: true,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(r.envelope.message.as_deref(), Some("after"));
    assert_eq!(count.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn statuses_are_decoded_per_the_contract() {
    let no_body =
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    let (port, _, _) = server(vec![Act::Answer(no_body)]).await;
    let (c, _d) = client(port, &[], 5000);
    let e = c
        .command("scene", &params(), CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("HTTP 500 from Unity (Internal Server Error)"),
        "{e}"
    );
    let coded = r#"{"success":false,"message":"busy","code":"HTTP_QUEUE_FULL"}"#;
    let resp = leak(format!(
        "HTTP/1.1 429 Too Many Requests\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{coded}",
        coded.len()
    ));
    let (port, _, _) = server(vec![Act::Answer(resp)]).await;
    let (c, _d) = client(port, &[], 5000);
    let r = c
        .command("scene", &params(), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.envelope.code.as_deref(), Some("HTTP_QUEUE_FULL"));
    let big = "HTTP/1.1 200 OK\r\nContent-Length: 60000000\r\nConnection: close\r\n\r\n{";
    let (port, _, _) = server(vec![Act::Answer(big)]).await;
    let (c, _d) = client(port, &[], 5000);
    assert_eq!(
        c.command("scene", &params(), CallOptions::default())
            .await
            .unwrap_err()
            .code(),
        "RESPONSE_TOO_LARGE"
    );
}

#[tokio::test]
async fn a_stall_ends_at_the_deadline() {
    let (port, _, _) = server(vec![Act::Stall]).await;
    let (c, _d) = client(port, &["operation_ledger_v1"], 600);
    let start = Instant::now();
    let e = c
        .command(
            "scene",
            &params(),
            CallOptions {
                idempotent: true,
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code(), "EDITOR_UNRESPONSIVE", "{e}");
    assert!(start.elapsed() < Duration::from_secs(5));
    let e = c
        .command("scene", &params(), CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        e.is_outcome_unknown(),
        "a delivered mutation at the deadline: {e}"
    );
}

#[tokio::test]
async fn nothing_listening_is_retried_then_reported() {
    // Bound but never listened on: connections are refused, and no other test's server can
    // be handed this port while the socket lives.
    let closed = tokio::net::TcpSocket::new_v4().unwrap();
    closed
        .bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .unwrap();
    let port = closed.local_addr().unwrap().port();
    let (c, _d) = client(port, &[], 1200);
    let e = c
        .command("manage_gameobject", &params(), CallOptions::default())
        .await
        .unwrap_err();
    // Never delivered, so not an unknown outcome even for a mutation without a ledger.
    assert_eq!(e.code(), "EDITOR_UNRESPONSIVE", "{e}");
    assert!(
        c.preflight("scene", Some("close"), &params(), None)
            .await
            .is_err()
    );
}
