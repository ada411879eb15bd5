//! Newline-delimited JSON-RPC over stdio, framed here rather than by rmcp's `AsyncRwTransport`.
//!
//! Why our own framing (rmcp still does all of JSON-RPC and MCP above it): rmcp 3.11's stdio
//! transport (rmcp's own stdio transport) stays silent on a line that is not JSON, answers a non-JSON-RPC
//! line with an error that has *no* `id` (not a JSON-RPC 2.0 frame), drops an oversized line
//! without a reply, and its `serve()` fails, ending the process, on a notification that arrives
//! before `initialize` (pitfall 4). Here:
//! - invalid JSON → `-32700` with `"id": null`; not a JSON-RPC 2.0 object, or a batch →
//!   `-32600` with the request's id when it has a usable one, else `null`; an oversized line →
//!   `-32600` with `null`; the session continues in every case;
//! - notifications and stray responses before the lifecycle starts are dropped (they need no
//!   reply), so an early `notifications/initialized` cannot kill the server;
//! - stdin EOF is signalled to `run`, which exits without waiting rmcp's 5 s for in-flight work;
//! - a request whose id is already in flight gets `-32600` with that id and is not delivered
//!   (two calls under one id would both run, and only one answer could reach the client);
//! - once stdout is gone (a write failed, or the [`OutputProbe`] says the reader closed it),
//!   the session is over: nothing more is delivered, and `run` is told as for stdin EOF.
//!
//! Reads are cancellation-safe: `receive` is polled inside rmcp's `select!`, so a partial line
//! stays in `self.line` until its newline arrives.

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Notify, mpsc, oneshot};

/// The longest line accepted (one JSON-RPC message), as rmcp's default.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Answers whether the peer has closed our output, without writing to it.
pub type OutputProbe = fn() -> bool;

/// [`OutputProbe`] for the process's stdout: a pipe whose reader went away polls `POLLERR`
/// (`POLLHUP` on some systems). A terminal or a file never reports that.
#[cfg(unix)]
pub fn stdout_closed() -> bool {
    output_fd_closed(libc::STDOUT_FILENO)
}

#[cfg(unix)]
fn output_fd_closed(fd: libc::c_int) -> bool {
    let mut fd = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: one valid pollfd, zero timeout.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n == 1 && fd.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
}

/// Without `poll` a closed stdout is only noticed by the first failed write.
#[cfg(not(unix))]
pub fn stdout_closed() -> bool {
    false
}

/// The process's stdin and stdout as the transport reads and writes them.
pub type StdioRead = Box<dyn AsyncRead + Unpin + Send>;
pub type StdioWrite = Box<dyn AsyncWrite + Unpin + Send>;

/// stdin and stdout for the transport. When they are pipes (as an MCP client starts a server),
/// on Unix they are read and written by the runtime's event loop directly, in non-blocking
/// mode, through duplicates of the descriptors (fd 0 and 1 stay open and untouched otherwise).
/// Anything else (a terminal, a file, a socket, or Windows) goes through tokio's stdio, which
/// hands every read and write to its blocking pool: a thread hand-off per frame each way.
pub fn stdio() -> (StdioRead, StdioWrite) {
    #[cfg(unix)]
    {
        let read = dup_pipe(libc::STDIN_FILENO).and_then(|fd| {
            tokio::net::unix::pipe::Receiver::from_owned_fd(fd)
                .map(|r| Box::new(r) as StdioRead)
                .ok()
        });
        // O_NONBLOCK is shared by every descriptor of one open pipe: when stderr is the same
        // pipe as stdout, diagnostics written to it could fail with EAGAIN, so that case keeps
        // the blocking path.
        let shared_with_stderr = same_pipe(libc::STDOUT_FILENO, libc::STDERR_FILENO);
        let write = (!shared_with_stderr)
            .then(|| dup_pipe(libc::STDOUT_FILENO))
            .flatten()
            .and_then(|fd| {
                tokio::net::unix::pipe::Sender::from_owned_fd(fd)
                    .map(|w| Box::new(w) as StdioWrite)
                    .ok()
            });
        tracing::debug!(
            stdin_pipe = read.is_some(),
            stdout_pipe = write.is_some(),
            "stdio"
        );
        (
            read.unwrap_or_else(|| Box::new(tokio::io::stdin())),
            write.unwrap_or_else(|| Box::new(tokio::io::stdout())),
        )
    }
    #[cfg(not(unix))]
    {
        (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
    }
}

/// Whether two descriptors are the same pipe.
#[cfg(unix)]
fn same_pipe(a: libc::c_int, b: libc::c_int) -> bool {
    let stat = |fd| {
        // SAFETY: fstat of a descriptor number into a zeroed stat; an invalid one fails.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        (unsafe { libc::fstat(fd, &mut st) } == 0).then_some((st.st_dev, st.st_ino, st.st_mode))
    };
    match (stat(a), stat(b)) {
        (Some((da, ia, ma)), Some((db, ib, _))) => {
            ma & libc::S_IFMT == libc::S_IFIFO && da == db && ia == ib
        }
        _ => false,
    }
}

/// A duplicate of `fd` when it is a pipe, else `None`.
#[cfg(unix)]
fn dup_pipe(fd: libc::c_int) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: fstat of a descriptor number into a zeroed stat; an invalid one fails.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 || st.st_mode & libc::S_IFMT != libc::S_IFIFO {
        return None;
    }
    // SAFETY: dup of a valid descriptor; the new one is owned by the returned OwnedFd.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    (copy >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(copy) })
}

/// The ids of requests delivered and not yet answered, as their JSON text (`1` and `"1"` differ).
#[derive(Default)]
struct InFlight(std::sync::Mutex<HashSet<String>>);

impl InFlight {
    fn key(id: &rmcp::model::RequestId) -> String {
        serde_json::to_string(id).unwrap_or_default()
    }
    /// Records `id`; false when it is already in flight.
    fn begin(&self, id: &rmcp::model::RequestId) -> bool {
        self.0
            .lock()
            .map(|mut s| s.insert(Self::key(id)))
            .unwrap_or(true)
    }
    fn end(&self, id: &rmcp::model::RequestId) {
        if let Ok(mut s) = self.0.lock() {
            s.remove(&Self::key(id));
        }
    }
}

pub struct LineTransport<R, W> {
    reader: BufReader<R>,
    line: Vec<u8>,
    discarding: bool,
    max_line: usize,
    output: Output,
    started: bool,
    eof: Arc<Notify>,
    /// The writer task; `close` waits for it to write what is queued and release the output.
    writer: Option<tokio::task::JoinHandle<()>>,
    _output_type: std::marker::PhantomData<fn(W)>,
    in_flight: Arc<InFlight>,
    /// Set once output is known to be gone; from then on nothing is delivered.
    output_closed: Arc<AtomicBool>,
    probe: Option<OutputProbe>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// `eof` gets a stored permit when the peer closes its side. Must be called inside a tokio
    /// runtime: it starts the task that owns `write`.
    pub fn new(read: R, write: W, eof: Arc<Notify>) -> Self {
        let output_closed: Arc<AtomicBool> = Arc::default();
        let (tx, rx) = mpsc::unbounded_channel();
        let writer = tokio::spawn(write_frames(write, rx, output_closed.clone(), eof.clone()));
        LineTransport {
            reader: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            max_line: MAX_LINE_BYTES,
            output: Output(tx),
            started: false,
            eof,
            writer: Some(writer),
            _output_type: std::marker::PhantomData,
            in_flight: Arc::default(),
            output_closed,
            probe: None,
        }
    }

    /// Checks `probe` before each request is delivered, so a request that arrives after the
    /// client closed our stdout is not executed (the first failed write would come too late:
    /// after the call ran). The server passes [`stdout_closed`].
    pub fn with_output_probe(mut self, probe: OutputProbe) -> Self {
        self.probe = Some(probe);
        self
    }

    fn output_gone(&self) -> bool {
        if self.output_closed.load(Ordering::SeqCst) {
            return true;
        }
        if self.probe.is_some_and(|p| p()) {
            self.output_closed.store(true, Ordering::SeqCst);
            return true;
        }
        false
    }

    #[cfg(test)]
    fn with_max_line(mut self, n: usize) -> Self {
        self.max_line = n;
        self
    }
}

/// One step of line reading.
enum Read {
    Line,
    Oversized,
    Eof,
}

/// What the writer task is asked to do.
enum Frame {
    /// One frame, ending in its newline; the outcome of its write is sent back when wanted.
    Line(Vec<u8>, Option<oneshot::Sender<std::io::Result<()>>>),
    /// Write what is queued before this, flush, release the output and stop.
    Close,
}

/// The queue to the writer task. Frames are written whole and in the order they were queued.
#[derive(Clone)]
struct Output(mpsc::UnboundedSender<Frame>);

impl Output {
    fn closed() -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::NotConnected, "the transport is closed")
    }

    /// Queues a frame and waits for its write.
    async fn write(&self, bytes: Vec<u8>) -> std::io::Result<()> {
        let (done, outcome) = oneshot::channel();
        self.0
            .send(Frame::Line(bytes, Some(done)))
            .map_err(|_| Self::closed())?;
        outcome.await.unwrap_or_else(|_| Err(Self::closed()))
    }

    /// Queues a frame without waiting: a write failure is handled by the writer task.
    fn queue(&self, bytes: Vec<u8>) {
        let _ = self.0.send(Frame::Line(bytes, None));
    }
}

/// At most this many bytes of queued frames go out in one write (a larger frame goes alone).
const BATCH_BYTES: usize = 1 << 20;

/// The one owner of the output. Every frame that is ready when a write starts goes out in that
/// one write: stdout is written through tokio's blocking pool, a thread hand-off per write, so
/// with many calls in flight the answers share hand-offs instead of queueing for one each.
/// Once a write fails the output is gone: `closed` is set, `eof` told (the session is over),
/// and later frames fail without being written.
async fn write_frames<W: AsyncWrite + Unpin>(
    mut out: W,
    mut queue: mpsc::UnboundedReceiver<Frame>,
    closed: Arc<AtomicBool>,
    eof: Arc<Notify>,
) {
    let mut failed: Option<std::io::ErrorKind> = None;
    let mut batch: Vec<u8> = Vec::new();
    let mut waiting: Vec<oneshot::Sender<std::io::Result<()>>> = Vec::new();
    let mut closing = false;
    while !closing {
        let Some(first) = queue.recv().await else {
            break;
        };
        let mut next = Some(first);
        while let Some(frame) = next.take() {
            match frame {
                Frame::Line(bytes, done) => {
                    if batch.is_empty() {
                        batch = bytes;
                    } else {
                        batch.extend_from_slice(&bytes);
                    }
                    waiting.extend(done);
                }
                Frame::Close => {
                    closing = true;
                    break;
                }
            }
            if batch.len() < BATCH_BYTES {
                next = queue.try_recv().ok();
            }
        }
        let outcome = match failed {
            Some(kind) => Err(kind),
            None if batch.is_empty() => Ok(()),
            None => match out.write_all(&batch).await {
                Ok(()) => out.flush().await.map_err(|e| e.kind()),
                Err(e) => Err(e.kind()),
            },
        };
        batch = Vec::new();
        if let Err(kind) = outcome
            && failed.is_none()
        {
            // The client closed our stdout: the session is over.
            tracing::info!("stdout closed ({kind}); ending the session");
            failed = Some(kind);
            closed.store(true, Ordering::SeqCst);
            eof.notify_one();
        }
        for done in waiting.drain(..) {
            let _ = done.send(outcome.map_err(std::io::Error::from));
        }
    }
    if failed.is_none() {
        let _ = out.flush().await;
    }
}

/// Whether rmcp will take this request as the start of a session: an `initialize`, or any
/// request other than a probe (`ping`, `server/discover`) with complete 2026-07-28 metadata
/// naming a version we support.
fn starts_lifecycle(request: &ClientRequest) -> bool {
    match request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        other => {
            let meta = other.get_meta();
            meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty()
                && meta
                    .protocol_version()
                    .is_some_and(|v| ProtocolVersion::KNOWN_VERSIONS.contains(&v))
        }
    }
}

/// What to do with one line.
enum Verdict {
    Deliver(Box<ClientJsonRpcMessage>),
    Reply(Value),
    Ignore(&'static str),
}

fn error_frame(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Classifies one line (without its newline).
fn judge(line: &[u8]) -> Verdict {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Ignore("blank line");
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Reply(error_frame(
                Value::Null,
                -32700,
                &format!("Parse error: the line is not valid JSON ({e})"),
            ));
        }
    };
    let Some(obj) = value.as_object() else {
        let what = if value.is_array() {
            "batches are not supported; send one message per line"
        } else {
            "a JSON-RPC message must be an object"
        };
        return Verdict::Reply(error_frame(
            Value::Null,
            -32600,
            &format!("Invalid Request: {what}"),
        ));
    };
    let id = obj.get("id");
    let usable_id = id
        .filter(|i| i.is_string() || i.is_i64() || i.is_u64())
        .cloned();
    let is_request = obj.get("method").is_some_and(Value::is_string);
    if obj.get("jsonrpc") != Some(&json!("2.0")) || (id.is_some() && usable_id.is_none()) {
        return Verdict::Reply(error_frame(
            usable_id.unwrap_or(Value::Null),
            -32600,
            "Invalid Request: expected a JSON-RPC 2.0 object with \"jsonrpc\":\"2.0\" and a string or integer id",
        ));
    }
    let is_response = obj.contains_key("result") || obj.contains_key("error");
    match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        Ok(m) => Verdict::Deliver(Box::new(m)),
        Err(e) => match (is_request, usable_id) {
            (true, Some(id)) => {
                Verdict::Reply(error_frame(id, -32600, &format!("Invalid Request: {e}")))
            }
            (true, None) => Verdict::Ignore("malformed notification"),
            (false, Some(_)) if is_response => Verdict::Ignore("malformed response"),
            (false, id) => Verdict::Reply(error_frame(
                id.unwrap_or(Value::Null),
                -32600,
                "Invalid Request: no method",
            )),
        },
    }
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Reads up to and including the next newline into `self.line`, never holding more than
    /// `max_line` bytes of one line.
    async fn read_line(&mut self) -> std::io::Result<Read> {
        loop {
            let buf = self.reader.fill_buf().await?;
            if buf.is_empty() {
                return Ok(Read::Eof);
            }
            let (take, done) = match buf.iter().position(|b| *b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            let mut oversized = false;
            if !self.discarding {
                if self.line.len() + take > self.max_line + 1 {
                    self.discarding = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(&buf[..take]);
                }
            }
            self.reader.consume(take);
            if done {
                if self.discarding {
                    self.discarding = false;
                    oversized = true;
                }
                return Ok(if oversized {
                    Read::Oversized
                } else {
                    Read::Line
                });
            }
        }
    }

    /// Queues an error frame. Queuing does not wait, so a reply is neither lost nor
    /// half-written when rmcp's `select!` cancels `receive`.
    fn reply(&mut self, frame: &Value) {
        let mut bytes = serde_json::to_vec(frame).expect("a JSON value serializes");
        bytes.push(b'\n');
        self.output.queue(bytes);
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let output = self.output.clone();
        let answered = match &item {
            rmcp::model::JsonRpcMessage::Response(r) => Some(r.id.clone()),
            rmcp::model::JsonRpcMessage::Error(e) => e.id.clone(),
            _ => None,
        };
        let in_flight = self.in_flight.clone();
        async move {
            if let Some(id) = &answered {
                in_flight.end(id);
            }
            let mut bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            output.write(bytes).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.output_gone() {
                self.eof.notify_one();
                return None;
            }
            match self.read_line().await {
                Ok(Read::Line) => {}
                Ok(Read::Oversized) => {
                    tracing::warn!(max = self.max_line, "dropping an oversized line");
                    let frame = error_frame(
                        Value::Null,
                        -32600,
                        &format!("Invalid Request: the line exceeds {} bytes", self.max_line),
                    );
                    self.reply(&frame);
                    continue;
                }
                Ok(Read::Eof) | Err(_) => {
                    self.eof.notify_one();
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            match judge(body) {
                Verdict::Deliver(message) => {
                    // Checked again here: the line may have waited in the pipe while the
                    // client went away.
                    if self.output_gone() {
                        tracing::info!(
                            "stdout is closed; not executing a request that came after it"
                        );
                        self.eof.notify_one();
                        return None;
                    }
                    if !self.started {
                        match message.as_ref() {
                            ClientJsonRpcMessage::Request(r) => {
                                if starts_lifecycle(&r.request) {
                                    self.started = true;
                                }
                            }
                            _ => {
                                tracing::debug!(
                                    "ignoring a notification or response before initialize"
                                );
                                continue;
                            }
                        }
                    }
                    match message.as_ref() {
                        ClientJsonRpcMessage::Request(r) if !self.in_flight.begin(&r.id) => {
                            let id = serde_json::to_value(&r.id).unwrap_or(Value::Null);
                            tracing::warn!("refusing a request whose id is already in flight");
                            self.reply(&error_frame(
                                id,
                                -32600,
                                "Invalid Request: a request with this id is still in flight; \
                                 use a new id for every request (this one was not executed)",
                            ));
                            continue;
                        }
                        ClientJsonRpcMessage::Notification(n) => {
                            // A cancelled request will get no answer: its id may be used again.
                            if let rmcp::model::ClientNotification::CancelledNotification(c) =
                                &n.notification
                                && let Some(id) = &c.params.request_id
                            {
                                self.in_flight.end(id);
                            }
                        }
                        _ => {}
                    }
                    return Some(*message);
                }
                Verdict::Reply(frame) => {
                    tracing::debug!("answering a malformed line: {frame}");
                    self.reply(&frame);
                }
                Verdict::Ignore(what) => tracing::debug!("ignoring a {what}"),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let _ = self.output.0.send(Frame::Close);
        if let Some(writer) = self.writer.take() {
            // Bounded: a client that stopped reading must not hold the exit.
            let _ = tokio::time::timeout(std::time::Duration::from_millis(500), writer).await;
        }
        Ok(())
    }
}

/// Feeds `data` to the line transport as a client's stdin, then closes it; returns (lines
/// delivered to the protocol layer, error frames written), checking every frame written is
/// JSON-RPC 2.0 with a valid id and error code. For the stdio fuzz target (`crate::fuzzing`).
pub(crate) fn frames_of(data: &[u8]) -> (usize, usize) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let (mut client, server_in) = tokio::io::duplex(1 << 16);
        let (mut out_read, server_out) = tokio::io::duplex(1 << 16);
        let eof = std::sync::Arc::new(tokio::sync::Notify::new());
        let mut t = LineTransport::new(server_in, server_out, eof);
        let input = data.to_vec();
        let writer = tokio::spawn(async move {
            let _ = client.write_all(&input).await;
        });
        let reader = tokio::spawn(async move {
            let mut text = Vec::new();
            let _ = out_read.read_to_end(&mut text).await;
            text
        });
        let mut delivered = 0;
        while rmcp::transport::Transport::receive(&mut t).await.is_some() {
            delivered += 1;
        }
        let _ = writer.await;
        let _ = rmcp::transport::Transport::<rmcp::RoleServer>::close(&mut t).await;
        drop(t);
        let out = reader.await.unwrap_or_default();
        let mut answered = 0;
        for line in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let frame: serde_json::Value =
                serde_json::from_slice(line).expect("every frame written is JSON");
            assert_eq!(frame["jsonrpc"], "2.0", "{frame}");
            let id = frame.get("id").expect("every error frame has an id");
            assert!(id.is_null() || id.is_string() || id.is_i64() || id.is_u64());
            let code = frame["error"]["code"].as_i64().expect("an error code");
            assert!((-32768..=-32000).contains(&code), "{code}");
            answered += 1;
        }
        (delivered, answered)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn exchange(input: &str, max: usize) -> (Vec<String>, usize) {
        let (mut cw, server) = tokio::io::duplex(1 << 16);
        let (out_read, out_write) = tokio::io::duplex(1 << 16);
        let eof = Arc::new(Notify::new());
        let mut t = LineTransport::new(server, out_write, eof).with_max_line(max);
        cw.write_all(input.as_bytes()).await.unwrap();
        drop(cw);
        let mut delivered = 0;
        while t.receive().await.is_some() {
            delivered += 1;
        }
        t.close().await.unwrap();
        drop(t);
        let mut text = String::new();
        let mut r = out_read;
        r.read_to_string(&mut text).await.unwrap();
        (text.lines().map(str::to_string).collect(), delivered)
    }

    #[tokio::test]
    async fn malformed_lines_get_jsonrpc_errors() {
        let input = concat!(
            "not json\n",
            "[1,2]\n",
            "{\"hello\":1}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
            "\n",
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\r\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
        );
        let (out, delivered) = exchange(input, 1 << 20).await;
        // initialize and the later notification are delivered; the early notification is not.
        assert_eq!(delivered, 2);
        let frames: Vec<Value> = out
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let codes: Vec<i64> = frames
            .iter()
            .map(|f| f["error"]["code"].as_i64().unwrap())
            .collect();
        assert_eq!(codes, [-32700, -32600, -32600, -32600]);
        assert!(
            frames
                .iter()
                .all(|f| f["jsonrpc"] == "2.0" && f.get("id").is_some())
        );
    }

    #[tokio::test]
    async fn oversized_lines_are_answered_and_skipped() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}\n",
            "a".repeat(300)
        );
        let input = format!("{big}{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n");
        let (out, delivered) = exchange(&input, 100).await;
        assert_eq!(delivered, 1);
        assert_eq!(out.len(), 1);
        assert!(out[0].contains("-32600"));
    }

    const INIT: &str = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n";

    fn call(id: &str) -> String {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"tool_call\",\"arguments\":{{}}}}}}\n"
        )
    }

    fn request_id(m: &RxJsonRpcMessage<RoleServer>) -> Option<String> {
        match m {
            ClientJsonRpcMessage::Request(r) => serde_json::to_string(&r.id).ok(),
            _ => None,
        }
    }

    #[tokio::test]
    async fn a_duplicate_in_flight_id_is_refused_and_not_delivered() {
        let (mut cw, server) = tokio::io::duplex(1 << 16);
        let (out_read, out_write) = tokio::io::duplex(1 << 16);
        let mut t = LineTransport::new(server, out_write, Arc::new(Notify::new()));
        let input = format!("{INIT}{}{}{}", call("5"), call("5"), call("\"5\""));
        cw.write_all(input.as_bytes()).await.unwrap();
        let mut got = Vec::new();
        for _ in 0..3 {
            got.push(request_id(&t.receive().await.unwrap()).unwrap());
        }
        // The second `5` was answered, not delivered; the string "5" is another id.
        assert_eq!(got, ["0", "5", "\"5\""]);
        // Once 5 is answered, the id may be used again.
        let answer: TxJsonRpcMessage<RoleServer> = serde_json::from_value(json!(
            {"jsonrpc": "2.0", "id": 5, "result": {}}
        ))
        .unwrap();
        t.send(answer).await.unwrap();
        cw.write_all(call("5").as_bytes()).await.unwrap();
        assert_eq!(request_id(&t.receive().await.unwrap()).unwrap(), "5");
        // A cancelled request frees its id too.
        cw.write_all(
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"5\"}}\n",
        )
        .await
        .unwrap();
        assert!(matches!(
            t.receive().await.unwrap(),
            ClientJsonRpcMessage::Notification(_)
        ));
        cw.write_all(call("\"5\"").as_bytes()).await.unwrap();
        assert_eq!(request_id(&t.receive().await.unwrap()).unwrap(), "\"5\"");
        drop(cw);
        assert!(t.receive().await.is_none());
        t.close().await.unwrap();
        drop(t);
        let mut text = String::new();
        let mut r = out_read;
        r.read_to_string(&mut text).await.unwrap();
        let frames: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let refusals: Vec<&Value> = frames.iter().filter(|f| f.get("error").is_some()).collect();
        assert_eq!(refusals.len(), 1, "{text}");
        assert_eq!(refusals[0]["id"], 5);
        assert_eq!(refusals[0]["error"]["code"], -32600);
    }

    #[tokio::test]
    async fn nothing_is_delivered_after_the_output_closed() {
        // A failed write ends delivery even though more requests are waiting.
        let (mut cw, server) = tokio::io::duplex(1 << 16);
        let (out_read, out_write) = tokio::io::duplex(1 << 16);
        let eof = Arc::new(Notify::new());
        let mut t = LineTransport::new(server, out_write, eof.clone());
        cw.write_all(INIT.as_bytes()).await.unwrap();
        assert!(t.receive().await.is_some());
        drop(out_read);
        let answer: TxJsonRpcMessage<RoleServer> = serde_json::from_value(json!(
            {"jsonrpc": "2.0", "id": 0, "result": {}}
        ))
        .unwrap();
        assert!(t.send(answer).await.is_err());
        cw.write_all(call("1").as_bytes()).await.unwrap();
        assert!(
            t.receive().await.is_none(),
            "a request after stdout closed was delivered"
        );
        // `run` was told, as for stdin EOF.
        tokio::time::timeout(std::time::Duration::from_secs(5), eof.notified())
            .await
            .expect("eof signalled");

        // The probe catches a close before any write fails.
        static CLOSED: AtomicBool = AtomicBool::new(false);
        let (mut cw, server) = tokio::io::duplex(1 << 16);
        let (_out_read, out_write) = tokio::io::duplex(1 << 16);
        let mut t = LineTransport::new(server, out_write, Arc::new(Notify::new()))
            .with_output_probe(|| CLOSED.load(Ordering::SeqCst));
        cw.write_all(INIT.as_bytes()).await.unwrap();
        assert!(t.receive().await.is_some());
        CLOSED.store(true, Ordering::SeqCst);
        cw.write_all(call("2").as_bytes()).await.unwrap();
        assert!(t.receive().await.is_none());
    }

    #[cfg(unix)]
    #[test]
    fn stdout_shared_with_stderr_is_recognized() {
        let (mut a, mut b) = ([0; 2], [0; 2]);
        assert_eq!(unsafe { libc::pipe(a.as_mut_ptr()) }, 0);
        assert_eq!(unsafe { libc::pipe(b.as_mut_ptr()) }, 0);
        let copy = unsafe { libc::dup(a[1]) };
        assert!(same_pipe(a[1], copy), "a duplicate is the same pipe");
        assert!(!same_pipe(a[1], b[1]), "two pipes are not");
        assert!(!same_pipe(a[1], -1), "an invalid descriptor is not");
        for fd in [a[0], a[1], b[0], b[1], copy] {
            unsafe { libc::close(fd) };
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_probe_sees_a_pipe_whose_reader_closed() {
        let mut fds = [0; 2];
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        assert!(!output_fd_closed(fds[1]), "an open pipe is not closed");
        unsafe { libc::close(fds[0]) };
        assert!(output_fd_closed(fds[1]));
        unsafe { libc::close(fds[1]) };
    }
}
