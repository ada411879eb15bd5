//! A recording forwarder between the adapter and the simulator: the heartbeat is pointed at the
//! tap's port (`Simulator::set_heartbeat_port`), the tap records each request body exactly as
//! the adapter wrote it and relays the bytes both ways.
//!
//! Why: some facts of a request (`meta.client_kind`, the operation id of a read-only call that
//! never reaches the ledger) are visible only on the wire. The tap reads them from the real
//! bytes instead of trusting the adapter's own account.
//!
//! The Connector serves one request per connection (`Connection: close`), so each accepted
//! connection carries one request: read head and `Content-Length` body, record, forward, then
//! copy the upstream answer back until the upstream closes. Every wait is bounded.

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest the tap lives, whatever the test does (its accept loop ends then).
const TAP_LIFETIME: Duration = Duration::from_secs(600);
/// Longest one exchange may take on either side.
const IO_TIMEOUT: Duration = Duration::from_secs(120);
/// Requests larger than this are not expected from the adapter (the Connector caps bodies).
const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// One request as the adapter sent it.
#[derive(Debug, Clone)]
pub struct Tapped {
    pub path: String,
    /// The body parsed as JSON (`Null` if it was not JSON).
    pub body: Value,
}

/// Replaces the body of an answer: given the request and the upstream's body, `Some(new body)`.
/// A test uses it to play a Connector answer the simulator does not give.
pub type Rewrite = dyn Fn(&Tapped, &Value) -> Option<Value> + Send + Sync;

pub struct WireTap {
    port: u16,
    seen: Arc<Mutex<Vec<Tapped>>>,
    stop: Arc<AtomicBool>,
}

impl WireTap {
    /// Listens on 127.0.0.1 (OS-assigned port) and forwards to `127.0.0.1:<upstream()>`, asked
    /// afresh for each connection so the tap follows an upstream that moves.
    pub fn start(upstream: impl Fn() -> u16 + Send + Sync + 'static) -> WireTap {
        Self::start_rewriting(upstream, |_, _| None)
    }

    /// [`WireTap::start`], with the answers `rewrite` returns a body for replaced by it.
    pub fn start_rewriting(
        upstream: impl Fn() -> u16 + Send + Sync + 'static,
        rewrite: impl Fn(&Tapped, &Value) -> Option<Value> + Send + Sync + 'static,
    ) -> WireTap {
        let rewrite: Arc<Rewrite> = Arc::new(rewrite);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the wire tap");
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen2, stop2) = (seen.clone(), stop.clone());
        let upstream = Arc::new(upstream);
        std::thread::spawn(move || {
            let start = Instant::now();
            while !stop2.load(Ordering::Relaxed) && start.elapsed() < TAP_LIFETIME {
                match listener.accept() {
                    Ok((client, _)) => {
                        let seen = seen2.clone();
                        let up = upstream();
                        let rewrite = rewrite.clone();
                        std::thread::spawn(move || {
                            if let Err(e) = relay(client, up, &seen, rewrite.as_ref()) {
                                eprintln!("wire tap: {e}");
                            }
                        });
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        WireTap { port, seen, stop }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every request seen so far, in arrival order.
    pub fn requests(&self) -> Vec<Tapped> {
        self.seen.lock().unwrap().clone()
    }

    /// The `/command` requests whose `command` is `name`.
    pub fn commands(&self, name: &str) -> Vec<Tapped> {
        self.requests()
            .into_iter()
            .filter(|t| t.path == "/command" && t.body["command"] == name)
            .collect()
    }
}

impl Drop for WireTap {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn relay(
    mut client: TcpStream,
    upstream: u16,
    seen: &Mutex<Vec<Tapped>>,
    rewrite: &Rewrite,
) -> std::io::Result<()> {
    client.set_nonblocking(false)?;
    client.set_read_timeout(Some(IO_TIMEOUT))?;
    client.set_write_timeout(Some(IO_TIMEOUT))?;
    // The request head, then exactly Content-Length body bytes.
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > MAX_REQUEST_BYTES {
            return Err(std::io::Error::other("request head too large"));
        }
        let n = client.read(&mut chunk)?;
        if n == 0 {
            return Ok(()); // a probe that connected and left
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let path = head
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("")
        .to_string();
    let length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0)
        .min(MAX_REQUEST_BYTES);
    while buf.len() < head_end + length {
        let n = client.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body_end = (head_end + length).min(buf.len());
    let body = serde_json::from_slice(&buf[head_end..body_end]).unwrap_or(Value::Null);
    let tapped = Tapped { path, body };
    seen.lock().unwrap().push(tapped.clone());

    let mut up = TcpStream::connect(("127.0.0.1", upstream))?;
    up.set_read_timeout(Some(IO_TIMEOUT))?;
    up.set_write_timeout(Some(IO_TIMEOUT))?;
    up.write_all(&buf)?;
    up.flush()?;
    // The whole answer (the upstream closes after one), then possibly a replaced body.
    let mut answer = Vec::new();
    loop {
        let n = up.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..n]);
        if answer.len() > MAX_REQUEST_BYTES {
            return Err(std::io::Error::other("answer too large for the tap"));
        }
    }
    if let Some(head_end) = find(&answer, b"\r\n\r\n").map(|i| i + 4)
        && let Ok(old) = serde_json::from_slice::<Value>(&answer[head_end..])
        && let Some(new) = rewrite(&tapped, &old)
    {
        let body = new.to_string();
        let head: String = String::from_utf8_lossy(&answer[..head_end])
            .lines()
            .filter(|l| !l.is_empty() && !l.to_ascii_lowercase().starts_with("content-length:"))
            .map(|l| format!("{l}\r\n"))
            .collect();
        answer = format!("{head}content-length: {}\r\n\r\n{body}", body.len()).into_bytes();
    }
    client.write_all(&answer)?;
    client.flush()?;
    Ok(())
}
