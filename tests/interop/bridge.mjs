// A small Streamable-HTTP front for a stdio MCP server, so that the conformance suite (which only
// speaks HTTP) can test the real stdio binary. It is deliberately thin: it forwards JSON-RPC lines
// both ways and adds nothing of its own to the protocol, so what the suite measures is the stdio
// server, not the bridge. (A general gateway such as supergateway answers parts of the 2026-07-28
// HTTP layer itself, binds all interfaces and spawns through a shell: all wrong for this job.)
//
// Shape:
//  - POST initialize without a session id  -> a new server child for that session (Mcp-Session-Id).
//  - POST with a known session id           -> that session's child.
//  - POST without a session id, not initialize -> one shared child for session-less (2026-07-28
//    per-request `_meta`) traffic.
//  - Requests wait for the child's reply with the same id (ids are rewritten per child, so two
//    HTTP clients reusing id 1 cannot collide) and answer application/json, or an SSE stream when
//    the child sends notifications/requests while the request is open and the client accepts it.
//  - Notifications and client responses are written through and answered 202.
//  - GET -> 405 (no standalone stream); DELETE ends the session's child; unknown session -> 404.
// Bounded: 32 sessions, 60 s per request, 120 s idle per session; children get stdin EOF, then
// SIGTERM, then SIGKILL.
//
// CLI (manual use): node bridge.mjs [--port N] -- SERVER_BIN ARGS...   (prints the URL on stdout)
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const MAX_SESSIONS = 32;
const REQUEST_TIMEOUT_MS = 60_000;
const IDLE_TIMEOUT_MS = 120_000;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

function log(...parts) {
  process.stderr.write(`[bridge] ${parts.join(' ')}\n`);
}

function rpcError(id, code, message) {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}

/** One stdio server child and the HTTP requests waiting on it. */
class Child {
  constructor(label, spec) {
    this.label = label;
    this.nextId = 1;
    this.pending = new Map(); // bridge id -> { clientId, reply }
    this.order = []; // bridge ids of open requests, oldest first
    this.exited = false;
    this.lastActive = Date.now();
    this.proc = spawn(spec.command, spec.args, { env: spec.env, cwd: spec.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.on('error', (e) => this.onExit(`spawn failed: ${e.message}`));
    this.proc.on('exit', (code, signal) => this.onExit(`exited (code ${code}, signal ${signal})`));
    this.proc.stdin.on('error', () => {});
    let buffered = '';
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (chunk) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line) this.fromServer(line);
      }
    });
    let errBuffered = '';
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (chunk) => {
      errBuffered += chunk;
      let nl;
      while ((nl = errBuffered.indexOf('\n')) >= 0) {
        process.stderr.write(`[server ${this.label}] ${errBuffered.slice(0, nl)}\n`);
        errBuffered = errBuffered.slice(nl + 1);
      }
    });
  }

  write(message) {
    this.lastActive = Date.now();
    if (this.exited) return false;
    this.proc.stdin.write(`${JSON.stringify(message)}\n`);
    return true;
  }

  /** Forwards a request and resolves through `reply(message, final)` calls. */
  request(message, reply) {
    const bridgeId = this.nextId++;
    const timer = setTimeout(() => {
      this.settle(bridgeId, rpcError(message.id, -32603, `bridge: no reply from the stdio server within ${REQUEST_TIMEOUT_MS} ms`));
    }, REQUEST_TIMEOUT_MS);
    this.pending.set(bridgeId, { clientId: message.id, reply, timer });
    this.order.push(bridgeId);
    if (!this.write({ ...message, id: bridgeId })) {
      this.settle(bridgeId, rpcError(message.id, -32603, 'bridge: the stdio server has exited'));
    }
  }

  settle(bridgeId, message) {
    const entry = this.pending.get(bridgeId);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.pending.delete(bridgeId);
    this.order = this.order.filter((id) => id !== bridgeId);
    entry.reply(message, true);
  }

  /** Maps a client's request id to the id the child saw (for notifications/cancelled). */
  bridgeIdFor(clientId) {
    for (const [bridgeId, entry] of this.pending) if (entry.clientId === clientId) return bridgeId;
    return undefined;
  }

  fromServer(line) {
    this.lastActive = Date.now();
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      log(`${this.label}: non-JSON line on the server's stdout (a protocol violation): ${line.slice(0, 200)}`);
      return;
    }
    const isResponse = message && message.id !== undefined && message.method === undefined;
    if (isResponse) {
      const entry = this.pending.get(message.id);
      if (!entry) {
        log(`${this.label}: reply for unknown id ${JSON.stringify(message.id)} dropped`);
        return;
      }
      this.settle(message.id, { ...message, id: entry.clientId });
      return;
    }
    // A notification or a server->client request: ride the newest open request's stream.
    const newest = this.order[this.order.length - 1];
    const entry = newest === undefined ? undefined : this.pending.get(newest);
    if (!entry || !entry.reply(message, false)) {
      log(`${this.label}: ${message.method} with no open stream to carry it, dropped`);
    }
  }

  onExit(why) {
    if (this.exited) return;
    this.exited = true;
    log(`${this.label}: server ${why}`);
    for (const [bridgeId, entry] of [...this.pending]) {
      this.settle(bridgeId, rpcError(entry.clientId, -32603, `bridge: the stdio server ${why}`));
    }
  }

  /** Polite stop: stdin EOF, then SIGTERM after 2 s, SIGKILL after 4 s. */
  stop() {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => resolve();
      this.proc.once('exit', done);
      this.proc.stdin.end();
      setTimeout(() => !this.exited && this.proc.kill('SIGTERM'), 2000).unref();
      setTimeout(() => {
        if (!this.exited) this.proc.kill('SIGKILL');
        resolve();
      }, 4000).unref();
    });
  }
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * A responder for one HTTP request: JSON for a lone reply; SSE once anything else must be sent
 * first (when the client accepts it). Returns false when a message cannot be delivered.
 */
function responder(res, acceptsSse, extraHeaders) {
  let streaming = false;
  return (message, final) => {
    if (res.writableEnded) return false;
    if (!streaming && final) {
      res.writeHead(200, { 'content-type': 'application/json', ...extraHeaders });
      res.end(JSON.stringify(message));
      return true;
    }
    if (!streaming) {
      if (!acceptsSse) return false;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...extraHeaders });
      streaming = true;
    }
    res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    if (final) res.end();
    return true;
  };
}

/** Starts the bridge on 127.0.0.1; resolves to `{ url, close() }`. */
export async function startBridge({ command, args = [], env = process.env, cwd, port = 0, path = '/mcp' }) {
  const spec = { command, args, env, cwd };
  const sessions = new Map(); // session id -> Child
  let shared = null;
  let counter = 0;

  const reaper = setInterval(() => {
    for (const [sid, child] of sessions) {
      if (child.pending.size === 0 && Date.now() - child.lastActive > IDLE_TIMEOUT_MS) {
        sessions.delete(sid);
        child.stop();
      }
    }
  }, 5_000);
  reaper.unref();

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'DELETE') {
      const child = sid && sessions.get(sid);
      if (!child) {
        res.writeHead(sid ? 404 : 400).end();
        return;
      }
      sessions.delete(sid);
      await child.stop();
      res.writeHead(200).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST, DELETE' }).end();
      return;
    }
    let message;
    try {
      message = JSON.parse(await readBody(req));
    } catch (e) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(rpcError(null, -32700, `bridge: ${e.message}`)));
      return;
    }
    if (Array.isArray(message) || message === null || typeof message !== 'object') {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(rpcError(null, -32600, 'bridge: one JSON-RPC object per POST')));
      return;
    }

    let child;
    const headers = {};
    if (sid !== undefined) {
      child = sessions.get(sid);
      if (!child) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(rpcError(message.id, -32001, 'bridge: session not found')));
        return;
      }
    } else if (message.method === 'initialize') {
      if (sessions.size >= MAX_SESSIONS) {
        res.writeHead(503).end();
        return;
      }
      const newSid = randomUUID();
      child = new Child(`s${++counter}`, spec);
      sessions.set(newSid, child);
      headers['mcp-session-id'] = newSid;
    } else {
      if (!shared || shared.exited) shared = new Child('shared', spec);
      child = shared;
    }

    const isRequest = typeof message.method === 'string' && message.id !== undefined;
    if (!isRequest) {
      if (message.method === 'notifications/cancelled' && message.params?.requestId !== undefined) {
        const mapped = child.bridgeIdFor(message.params.requestId);
        if (mapped !== undefined) message = { ...message, params: { ...message.params, requestId: mapped } };
      }
      child.write(message);
      res.writeHead(202, headers).end();
      return;
    }
    const acceptsSse = String(req.headers.accept ?? '').includes('text/event-stream');
    child.request(message, responder(res, acceptsSse, headers));
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  return {
    url: `http://127.0.0.1:${address.port}${path}`,
    async close() {
      clearInterval(reaper);
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
      const all = [...sessions.values()];
      if (shared) all.push(shared);
      sessions.clear();
      await Promise.all(all.map((c) => c.stop()));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const sep = argv.indexOf('--');
  if (sep < 0 || sep === argv.length - 1) {
    process.stderr.write('usage: node bridge.mjs [--port N] -- SERVER_BIN [ARGS...]\n');
    process.exit(2);
  }
  const portFlag = argv.indexOf('--port');
  const port = portFlag >= 0 && portFlag < sep ? Number(argv[portFlag + 1]) : 0;
  const bridge = await startBridge({ command: argv[sep + 1], args: argv.slice(sep + 2), port });
  process.stdout.write(`${bridge.url}\n`);
  const stop = () => bridge.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
