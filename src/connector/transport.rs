//! One HTTP exchange with the Connector, and what kind of failure it was.
//!
//! This is the only place in the program that speaks HTTP. It holds the process's single
//! `reqwest` client: no proxy (system proxy variables must never route 127.0.0.1), no redirects,
//! no TLS, and every request on a fresh socket (`Connection: close`) because Mono writes a stray
//! empty `200` onto pooled sockets during a domain reload (§2.2).

use hera_connector_contract::wire::MAX_RESPONSE_BODY;
use std::error::Error as _;
use std::sync::OnceLock;
use std::time::Duration;

/// TCP connect limit on loopback; a connect that takes longer is not coming.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// The only host we ever talk to.
pub const LOOPBACK_HOST: &str = "127.0.0.1";

/// The bytes of a response that arrived whole.
#[derive(Debug, Clone)]
pub struct RawResponse {
    pub status: u16,
    pub body: Vec<u8>,
}

/// How one attempt failed. The distinction decides whether resending is safe (§2.10).
#[derive(Debug, Clone)]
pub enum AttemptError {
    /// No connection was made, so the request was certainly not delivered.
    NotDelivered(String),
    /// Connected, but the exchange broke (reset, EOF, an empty `200`): it may have run.
    Broken(String),
    /// The time left for the request ran out.
    TimedOut(String),
    /// The answer is larger than [`MAX_RESPONSE_BODY`].
    TooLarge,
    /// Anything else; not worth retrying.
    Fatal(String),
}

fn http() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .pool_max_idle_per_host(0)
            .http1_only()
            .build()
            .expect("a plain HTTP client with no TLS always builds")
    })
}

/// The messages of an error and all its sources, for classification and for the user.
fn chain(e: &reqwest::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut src = e.source();
    while let Some(s) = src {
        parts.push(s.to_string());
        src = s.source();
    }
    parts.join(": ")
}

fn io_kind(e: &reqwest::Error) -> Option<std::io::ErrorKind> {
    let mut src = e.source();
    while let Some(s) = src {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        src = s.source();
    }
    None
}

fn classify(e: reqwest::Error) -> AttemptError {
    use std::io::ErrorKind as K;
    let text = chain(&e);
    if e.is_timeout() {
        return AttemptError::TimedOut(text);
    }
    if e.is_connect() {
        return AttemptError::NotDelivered(text);
    }
    let broken_kind = matches!(
        io_kind(&e),
        Some(K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof)
    );
    let lower = text.to_lowercase();
    let broken_text = [
        "connection closed before message completed",
        "incompletemessage",
        "unexpected eof",
        "end of file",
        "connection reset",
        "broken pipe",
        "closed idle connection",
        "connection refused",
        "actively refused",
    ]
    .iter()
    .any(|m| lower.contains(m));
    if broken_kind || broken_text {
        AttemptError::Broken(text)
    } else {
        AttemptError::Fatal(text)
    }
}

/// POSTs `body` to `http://127.0.0.1:<port><path>` and reads the whole answer within `time_left`.
pub async fn post(
    port: u16,
    path: &str,
    body: Vec<u8>,
    time_left: Duration,
) -> Result<RawResponse, AttemptError> {
    let url = reqwest::Url::parse(&format!("http://{LOOPBACK_HOST}:{port}{path}"))
        .map_err(|e| AttemptError::Fatal(format!("bad request URL: {e}")))?;
    if url.host_str() != Some(LOOPBACK_HOST) {
        return Err(AttemptError::Fatal(format!(
            "refusing to contact {url}: only {LOOPBACK_HOST} is allowed"
        )));
    }
    let exchange = async {
        let mut resp = http()
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::CONNECTION, "close")
            .body(body)
            .send()
            .await
            .map_err(classify)?;
        let status = resp.status().as_u16();
        let declared = resp
            .headers()
            .get(reqwest::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_RESPONSE_BODY as u64) {
            return Err(AttemptError::TooLarge);
        }
        // Mono's reload artefact: a 200 with `Content-Length: 0` is an unexpected EOF.
        if status == 200 && declared == Some(0) {
            return Err(AttemptError::Broken(
                "empty 200 response (unexpected EOF; the Editor is probably reloading)".into(),
            ));
        }
        // The declared length (at most the cap, checked above) is reserved at once, so a large
        // body is not copied through doubling reallocations; a liar gets pages it never touches.
        let mut buf = Vec::with_capacity(declared.unwrap_or(4096) as usize);
        while let Some(chunk) = resp.chunk().await.map_err(classify)? {
            if buf.len() + chunk.len() > MAX_RESPONSE_BODY {
                return Err(AttemptError::TooLarge);
            }
            buf.extend_from_slice(&chunk);
        }
        if status == 200 && buf.is_empty() {
            return Err(AttemptError::Broken(
                "empty 200 response (unexpected EOF; the Editor is probably reloading)".into(),
            ));
        }
        Ok(RawResponse { status, body: buf })
    };
    match tokio::time::timeout(time_left, exchange).await {
        Ok(r) => r,
        Err(_) => Err(AttemptError::TimedOut(format!(
            "no complete answer within {} ms",
            time_left.as_millis()
        ))),
    }
}

/// A short text for a status code, as in `HTTP 404 from Unity (Not Found)`.
pub fn status_label(status: u16) -> String {
    reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("unknown status")
        .to_string()
}

/// Whether something accepts TCP connections on `127.0.0.1:<port>` within `limit`. Used by
/// `status` for a stale heartbeat (§1.5): a cheap "is the listener there at all" probe that
/// sends nothing.
pub async fn tcp_probe(port: u16, limit: Duration) -> bool {
    if port == 0 {
        return false;
    }
    matches!(
        tokio::time::timeout(limit, tokio::net::TcpStream::connect((LOOPBACK_HOST, port))).await,
        Ok(Ok(_))
    )
}
