//! The Editor's HTTP listener (§2.1–§2.3): loopback only, one request per connection, and the
//! ingress rules that run before any command logic.
//!
//! Order of checks (§2.2): `OPTIONS` → 204; an `Origin` header → 403; a method other than POST
//! → 405; an unknown path → 404; body over the path's limit → 413; not a JSON object → 400.
//! The endpoint then finishes parsing (its own 400s), takes one of the 64 queue places (429
//! when none is left) and answers HTTP 200 from there on.
//!
//! Faults that concern the transport (reset, empty 200, non-JSON, odd status, oversized body)
//! are turned into bytes on the wire here, so endpoint code only says *what* happens.

use crate::connector::Connector;
use crate::envelope::Envelope;
use crate::faults::{Fault, FaultKind};
use crate::handlers::ReloadAsk;
use bytes::Bytes;
use hera_connector_contract::wire::{MAX_BATCH_BODY, MAX_COMMAND_BODY, MAX_RESPONSE_BODY};
use http_body_util::{BodyExt, Full, Limited, combinators::BoxBody};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Map, Value};
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// The longest a client may take to send its request before the connection is dropped.
const READ_DEADLINE: Duration = Duration::from_secs(30);
/// With [`crate::Quirks::drain_oversized_bodies`], bodies over the limit are still read up to
/// this size, so the client reads a clean 413 instead of a reset caused by unread bytes.
const DRAIN_LIMIT: usize = 16 * 1024 * 1024;
// The reader's nesting limit (deeper bodies are not JSON to the Connector), shared with clients.
use hera_connector_contract::wire::{MAX_BODY_DEPTH, nesting_depth};

pub const JSON_CONTENT_TYPE: &str = "application/json; charset=utf-8";

/// What happens once a response was written.
#[derive(Debug, Default, Clone)]
pub struct AfterWrite {
    /// The ledger record to mark `responded` (only if the write succeeded).
    pub responded: Option<String>,
    /// A domain reload the Editor asked for (it reloads after answering).
    pub reload: Option<ReloadAsk>,
}

/// How a request is answered on the wire.
#[derive(Debug)]
pub enum Answer {
    /// A JSON body, and what to do after writing it.
    Json {
        status: u16,
        body: String,
        after: AfterWrite,
    },
    /// `204`, empty body (`OPTIONS`).
    NoContent,
    /// `200` with `Content-Length: 0`.
    Empty200,
    /// `200` with a body that is not JSON.
    NonJson200,
    /// A body one byte over the client's limit.
    Oversized,
    /// Drop the connection with a TCP reset, no response.
    Reset,
}

impl Answer {
    pub fn ok(body: String) -> Answer {
        Answer::Json {
            status: 200,
            body,
            after: AfterWrite::default(),
        }
    }
    /// An `HTTP_*` ingress error: its status, `"timings":null`.
    pub fn http_error(status: u16, code: &str, message: impl Into<String>) -> Answer {
        Answer::Json {
            status,
            body: Envelope::error(code, message).to_text(),
            after: AfterWrite::default(),
        }
    }
}

/// What a transport fault becomes on the wire.
pub fn ingress_fault_answer(f: &Fault) -> Answer {
    match f {
        Fault::ResetBeforeExecute { .. } => Answer::Reset,
        Fault::Empty200 { .. } => Answer::Empty200,
        Fault::NonJson200 { .. } => Answer::NonJson200,
        Fault::Oversized { .. } => Answer::Oversized,
        Fault::Status { status, code, .. } => {
            let message = format!("Injected HTTP {status} from the simulator.");
            let body = match code {
                Some(c) => Envelope::error(c, message).to_text(),
                None => {
                    let mut e = Envelope::error("", message);
                    e.code = None;
                    e.to_text()
                }
            };
            Answer::Json {
                status: *status,
                body,
                after: AfterWrite::default(),
            }
        }
        _ => Answer::Reset,
    }
}

/// A parsed ingress request handed to an endpoint.
pub struct ParsedRequest {
    /// The body text (UTF-8, BOM stripped).
    pub text: String,
    /// The body as an object.
    pub object: Map<String, Value>,
    /// When the request arrived (for `total_ms`).
    pub started: Instant,
}

/// Binds `127.0.0.1:port` (`0` = OS-assigned).
pub fn bind_port(port: u16) -> io::Result<std::net::TcpListener> {
    let l = std::net::TcpListener::bind(("127.0.0.1", port))?;
    l.set_nonblocking(true)?;
    Ok(l)
}

/// The socket of one listener generation, closable from synchronous code.
pub struct ListenerHandle {
    stop: watch::Sender<bool>,
    closing: Arc<AtomicBool>,
    #[cfg(unix)]
    fd: std::os::fd::RawFd,
    pub task: tokio::task::JoinHandle<()>,
}

impl ListenerHandle {
    /// Stops accepting at once: later connects are refused (Linux) or dropped on accept, and
    /// open connections are torn down as the accept task ends.
    pub fn close(&self) {
        if self.closing.swap(true, Ordering::SeqCst) {
            return;
        }
        #[cfg(unix)]
        // SAFETY: `fd` is the listening socket owned by the accept task, which only drops it
        // after observing `stop`; shutting a listening socket down makes pending and future
        // accepts fail without closing the descriptor, so no other file can reuse it.
        unsafe {
            libc::shutdown(self.fd, libc::SHUT_RDWR);
        }
        let _ = self.stop.send(true);
    }
}

/// Starts serving `listener` for `connector` on the current runtime.
pub fn serve(
    connector: Arc<Connector>,
    listener: std::net::TcpListener,
) -> io::Result<ListenerHandle> {
    #[cfg(unix)]
    let fd = std::os::fd::AsRawFd::as_raw_fd(&listener);
    let listener = TcpListener::from_std(listener)?;
    let (stop, mut stop_rx) = watch::channel(false);
    let closing = Arc::new(AtomicBool::new(false));
    let closing_task = closing.clone();
    let task = tokio::spawn(async move {
        let mut conns = JoinSet::new();
        loop {
            tokio::select! {
                _ = stop_rx.changed() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        if closing_task.load(Ordering::SeqCst) {
                            drop(stream);
                            break;
                        }
                        conns.spawn(serve_connection(connector.clone(), stream));
                    }
                    Err(e) => {
                        if closing_task.load(Ordering::SeqCst) {
                            break;
                        }
                        tracing::warn!("accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                },
                Some(_) = conns.join_next(), if !conns.is_empty() => {}
            }
        }
        drop(listener);
        conns.shutdown().await;
    });
    Ok(ListenerHandle {
        stop,
        closing,
        #[cfg(unix)]
        fd,
        task,
    })
}

/// A TCP stream that can be made to close with a reset instead of a FIN.
struct ConnIo {
    stream: TcpStream,
    reset: Arc<AtomicBool>,
}

impl Drop for ConnIo {
    fn drop(&mut self) {
        if self.reset.load(Ordering::SeqCst) {
            let _ = self.stream.set_zero_linger();
        }
    }
}

impl AsyncRead for ConnIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for ConnIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// The error a service returns to make hyper drop the connection without a response.
#[derive(Debug)]
struct Dropped;
impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection dropped on purpose (fault injection)")
    }
}
impl std::error::Error for Dropped {}

/// What one connection's request left to do once the connection is over. The request runs on
/// a task of its own (a client that hangs up does not cancel a command, §2.5), so whichever of
/// the two finishes last carries out the after-write actions.
#[derive(Default)]
struct Pending {
    /// Set by the request task when it finished.
    after: Option<AfterWrite>,
    /// Set by the connection task when the connection ended.
    connection_done: bool,
}

async fn serve_connection(connector: Arc<Connector>, stream: TcpStream) {
    let reset = Arc::new(AtomicBool::new(false));
    let pending: Arc<Mutex<Pending>> = Arc::new(Mutex::new(Pending::default()));
    let io = TokioIo::new(ConnIo {
        stream,
        reset: reset.clone(),
    });
    let svc_connector = connector.clone();
    let svc_reset = reset.clone();
    let svc_pending = pending.clone();
    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
        let connector = svc_connector.clone();
        let reset = svc_reset.clone();
        let pending = svc_pending.clone();
        async move {
            let task_connector = connector.clone();
            let task_pending = pending.clone();
            let routed = tokio::spawn(async move {
                let mut answer = route(&task_connector, req).await;
                if let Answer::Json { after, .. } = &mut answer {
                    let after = std::mem::take(after);
                    let mut p = task_pending.lock().expect("pending slot");
                    if p.connection_done {
                        // Nobody will write this answer: only the reload still applies.
                        if let Some(ask) = after.reload {
                            task_connector.reload_with(
                                task_connector.reload_downtime,
                                false,
                                ask.first_state,
                            );
                        }
                    } else {
                        p.after = Some(after);
                    }
                }
                answer
            })
            .await;
            let answer = routed.unwrap_or_else(|e| {
                Answer::http_error(
                    500,
                    "HTTP_INTERNAL_ERROR",
                    format!("Request handling error: {e}"),
                )
            });
            to_response(answer, &reset).await
        }
    });
    let served = hyper::server::conn::http1::Builder::new()
        .keep_alive(false)
        .header_read_timeout(READ_DEADLINE)
        .timer(hyper_util::rt::TokioTimer::new())
        .serve_connection(io, service)
        .await;
    let after = {
        let mut p = pending.lock().expect("pending slot");
        p.connection_done = true;
        p.after.take()
    };
    let Some(after) = after else { return };
    if served.is_ok()
        && let Some(op) = &after.responded
    {
        connector.mark_responded(op);
    }
    if let Some(ask) = after.reload {
        connector.reload_with(connector.reload_downtime, false, ask.first_state);
    }
}

type Reply = Response<BoxBody<Bytes, Infallible>>;

async fn to_response(answer: Answer, reset: &AtomicBool) -> Result<Reply, Dropped> {
    let full = |status: u16, body: Bytes, json: bool| {
        let mut r = Response::new(Full::new(body).boxed());
        *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if json {
            r.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(JSON_CONTENT_TYPE));
        }
        r
    };
    Ok(match answer {
        Answer::Json { status, body, .. } => full(status, Bytes::from(body), true),
        Answer::NoContent => full(204, Bytes::new(), false),
        Answer::Empty200 => full(200, Bytes::new(), true),
        Answer::NonJson200 => full(
            200,
            Bytes::from_static(b"<html><body>Unity is busy</body></html>"),
            false,
        ),
        Answer::Oversized => {
            let mut r = Response::new(OversizedBody::new(MAX_RESPONSE_BODY as u64 + 1).boxed());
            r.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(JSON_CONTENT_TYPE));
            r
        }
        Answer::Reset => {
            reset.store(true, Ordering::SeqCst);
            return Err(Dropped);
        }
    })
}

/// `{"success":true,"message":"xxxx…"}` of an exact length, produced in chunks so a 50 MiB
/// answer never sits in memory.
struct OversizedBody {
    total: u64,
    sent: u64,
}

impl OversizedBody {
    fn new(total: u64) -> Self {
        OversizedBody { total, sent: 0 }
    }
}

impl Body for OversizedBody {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        const HEAD: &[u8] = b"{\"success\":true,\"message\":\"";
        const TAIL: &[u8] = b"\"}";
        if self.sent >= self.total {
            return Poll::Ready(None);
        }
        let chunk = 64 * 1024u64;
        let mut out = Vec::with_capacity(chunk as usize);
        while (out.len() as u64) < chunk && self.sent < self.total {
            let pos = self.sent;
            let byte = if pos < HEAD.len() as u64 {
                HEAD[pos as usize]
            } else if pos >= self.total - TAIL.len() as u64 {
                TAIL[(pos - (self.total - TAIL.len() as u64)) as usize]
            } else {
                b'x'
            };
            out.push(byte);
            self.sent += 1;
        }
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))))
    }
    fn is_end_stream(&self) -> bool {
        self.sent >= self.total
    }
    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.total - self.sent)
    }
}

/// The ingress rules, then the endpoint.
async fn route(connector: &Arc<Connector>, req: Request<Incoming>) -> Answer {
    let started = Instant::now();
    let path = req.uri().path().to_string();
    connector.count_request(&path);
    if req.method() == Method::OPTIONS {
        return Answer::NoContent;
    }
    if req.headers().contains_key(hyper::header::ORIGIN) {
        return Answer::http_error(
            403,
            "HTTP_BROWSER_REQUEST_FORBIDDEN",
            "Requests from browsers (with an Origin header) are not accepted.",
        );
    }
    let answer = route_checked(connector, req, &path, started).await;
    connector.after_request();
    answer
}

async fn route_checked(
    connector: &Arc<Connector>,
    req: Request<Incoming>,
    path: &str,
    started: Instant,
) -> Answer {
    if req.method() != Method::POST {
        return Answer::http_error(
            405,
            "HTTP_METHOD_NOT_ALLOWED",
            format!("Method {} is not allowed; send POST.", req.method()),
        );
    }
    let limit = match path {
        "/command" => MAX_COMMAND_BODY,
        "/approval/preflight" if !connector.legacy() => MAX_COMMAND_BODY,
        "/commands" => MAX_BATCH_BODY,
        _ => {
            return Answer::http_error(
                404,
                "HTTP_NOT_FOUND",
                format!("No endpoint at {path}; use /command, /commands or /approval/preflight."),
            );
        }
    };
    let declared = req
        .headers()
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let too_large = || {
        Answer::http_error(
            413,
            "HTTP_REQUEST_BODY_TOO_LARGE",
            format!("Request body exceeds the {limit}-byte limit of {path}."),
        )
    };
    // The Connector refuses on the declared length before reading a byte, and stops reading a
    // chunked body at the limit; the unread rest may then reach the client as a reset.
    let drain = connector.quirks().drain_oversized_bodies;
    let read_limit = if drain { DRAIN_LIMIT } else { limit };
    if declared.is_some_and(|n| n > read_limit as u64) {
        return too_large();
    }
    let body = match tokio::time::timeout(
        READ_DEADLINE,
        Limited::new(req.into_body(), read_limit).collect(),
    )
    .await
    {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(_)) => return too_large(),
        Err(_) => return Answer::Reset,
    };
    if body.len() > limit {
        return too_large();
    }
    let Some(parsed) = parse_object(&body, started) else {
        return Answer::http_error(
            400,
            "HTTP_INVALID_JSON",
            "Request body must be a UTF-8 JSON object.",
        );
    };
    let command = match path {
        "/command" => parsed.object.get("command").and_then(Value::as_str),
        _ => None,
    };
    if let Some(f) = connector.take_fault(FaultKind::Ingress, path, command) {
        return ingress_fault_answer(&f);
    }
    match path {
        "/command" => crate::pipeline::command(connector, parsed).await,
        "/commands" => crate::batch::commands(connector, parsed).await,
        _ => crate::preflight::preflight(connector, parsed).await,
    }
}

/// `HTTP_QUEUE_FULL`: every endpoint takes a queue place once its request has parsed (for
/// `/command`, after the request context: its errors come before queueing).
pub fn queue_full() -> Answer {
    Answer::http_error(
        429,
        "HTTP_QUEUE_FULL",
        "More than 64 requests are waiting for the Editor; retry later.",
    )
}

/// UTF-8 and a JSON object of at most 64 nested levels. A leading BOM is refused: the body is
/// decoded without stripping it, and the JSON reader does not skip it.
fn parse_object(body: &[u8], started: Instant) -> Option<ParsedRequest> {
    let text = std::str::from_utf8(body).ok()?;
    if nesting_depth(text.as_bytes()) > MAX_BODY_DEPTH {
        return None;
    }
    match serde_json::from_str::<Value>(text).ok()? {
        Value::Object(object) => Some(ParsedRequest {
            text: text.to_string(),
            object,
            started,
        }),
        _ => None,
    }
}

/// The deepest container nesting of a JSON text (strings skipped); only meaningful for text
/// that then parses.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversized_body_is_valid_json_of_exact_length() {
        let mut b = OversizedBody::new(100);
        let mut out = Vec::new();
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        while let Poll::Ready(Some(Ok(f))) = Pin::new(&mut b).poll_frame(&mut cx) {
            out.extend_from_slice(f.data_ref().unwrap());
        }
        assert_eq!(out.len(), 100);
        assert!(serde_json::from_slice::<Value>(&out).is_ok());
    }

    #[test]
    fn bodies() {
        let now = Instant::now();
        assert!(parse_object(b"{}", now).is_some());
        assert!(parse_object("\u{feff}{}".as_bytes(), now).is_none());
        let deep = |n: usize| format!("{{\"a\":{}1{}}}", "[".repeat(n - 1), "]".repeat(n - 1));
        assert!(parse_object(deep(64).as_bytes(), now).is_some());
        assert!(parse_object(deep(65).as_bytes(), now).is_none());
        assert_eq!(nesting_depth(br#"{"a":"[[[{"}"#), 1);
        assert!(parse_object(b"[]", now).is_none());
        assert!(parse_object(b"", now).is_none());
        assert!(parse_object(b"{", now).is_none());
        assert!(parse_object(&[0xff, b'{', b'}'], now).is_none());
    }
}
