// Runs the official MCP conformance suite's protocol-level server scenarios against the stdio
// server, through bridge.mjs (the suite only speaks HTTP). The chosen scenarios, and the checks
// inside them that measure the bridge or need the suite's fixture tools, are listed with reasons
// in conformance-scenarios.json. Prints ONE JSON summary line on stdout (tests/interop.rs parses it).
//
//   <node 22> conformance.mjs --home DIR [--cwd DIR] --out DIR -- SERVER_BIN ARGS...
//
// Needs Node >= 22: the suite imports `fs.globSync` and dies at load on Node 20.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDriverArgs, serverEnv } from './lib/args.mjs';
import { startBridge } from './bridge.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const SUITE_PACKAGE = '@modelcontextprotocol/conformance';
const SUITE_CLI = join(HERE, 'node_modules', SUITE_PACKAGE, 'dist', 'index.js');
const SCENARIO_TIMEOUT_MS = 30_000;
/** Hard bound on one suite process, on top of the suite's own per-scenario timeout. */
const PROCESS_TIMEOUT_MS = 90_000;

const report = { driver: 'conformance', node: process.version, scenarios: [], steps: [] };

function takeOut(argv) {
  const i = argv.indexOf('--out');
  const sep = argv.indexOf('--');
  if (i < 0 || (sep >= 0 && i > sep)) throw new Error('--out DIR is required (where the suite writes checks.json)');
  const out = argv[i + 1];
  return { out, rest: [...argv.slice(0, i), ...argv.slice(i + 2)] };
}

function runSuite(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SUITE_CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

function findChecks(dir) {
  if (!existsSync(dir)) return null;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === 'checks.json') return path;
    if (entry.isDirectory()) {
      const found = findChecks(path);
      if (found) return found;
    }
  }
  return null;
}

/** The server's capabilities, read through the bridge (also proves the bridge works at all). */
async function serverCapabilities(url) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hera-conformance-probe', version: '0' } },
    }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = await response.json();
  const sid = response.headers.get('mcp-session-id');
  if (sid) await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sid } }).catch(() => {});
  if (!body.result) throw new Error(`initialize through the bridge failed: ${JSON.stringify(body).slice(0, 300)}`);
  return body.result.capabilities ?? {};
}

/** Why a check does not count for this server, or null when it counts. */
function exclusion(entry, check, capabilities) {
  const id = check.id;
  if (entry.ignore_checks?.[id]) return entry.ignore_checks[id];
  for (const [prefix, why] of Object.entries(entry.ignore_check_prefixes ?? {})) if (id.startsWith(prefix)) return why;
  const cap = entry.checks_requiring_capability?.[id];
  if (cap && !capabilities[cap]) return `the server does not declare the ${cap} capability`;
  return null;
}

async function runEntry(entry, index, bridgeUrl, outRoot, capabilities) {
  const result = { scenario: entry.scenario, spec_version: entry.spec_version, status: 'failed', counted: {}, failures: [], excluded: [] };
  if (entry.requires_capability && !capabilities[entry.requires_capability]) {
    result.status = 'not-applicable';
    result.reason = `the server does not declare the ${entry.requires_capability} capability`;
    return result;
  }
  const out = join(outRoot, `${String(index).padStart(2, '0')}-${entry.scenario}@${entry.spec_version}`);
  mkdirSync(out, { recursive: true });
  const started = Date.now();
  const run = await runSuite([
    'server', '--url', bridgeUrl, '--scenario', entry.scenario, '--spec-version', entry.spec_version,
    '--timeout', String(SCENARIO_TIMEOUT_MS), '-o', out,
  ]);
  result.ms = Date.now() - started;
  const checksPath = findChecks(out);
  if (!checksPath) {
    result.reason = `the suite wrote no checks.json (exit ${run.code}, signal ${run.signal}): ${run.output.slice(-600)}`;
    return result;
  }
  const checks = JSON.parse(readFileSync(checksPath, 'utf8'));
  for (const check of checks) {
    const why = exclusion(entry, check, capabilities);
    if (why) {
      result.excluded.push({ id: check.id, status: check.status, why });
      continue;
    }
    result.counted[check.status] = (result.counted[check.status] ?? 0) + 1;
    if (check.status === 'FAILURE') result.failures.push({ id: check.id, message: check.errorMessage ?? check.description });
    if (check.status === 'WARNING') (result.warnings ??= []).push({ id: check.id, message: check.errorMessage ?? check.description });
  }
  result.checks_json = checksPath;
  if (result.failures.length) result.reason = result.failures.map((f) => `${f.id}: ${f.message}`).join('; ').slice(0, 800);
  else if (!result.counted.SUCCESS) result.reason = 'no counted check succeeded';
  else result.status = 'passed';
  return result;
}

async function main() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) throw new Error(`the conformance suite needs Node >= 22, this is ${process.version} (use tests/interop/node_modules/node/bin/node)`);
  const { out, rest } = takeOut(process.argv.slice(2));
  const opts = parseDriverArgs(rest);
  const chosen = JSON.parse(readFileSync(join(HERE, 'conformance-scenarios.json'), 'utf8'));
  report.suite = {
    package: SUITE_PACKAGE,
    version: JSON.parse(readFileSync(join(HERE, 'node_modules', SUITE_PACKAGE, 'package.json'), 'utf8')).version,
  };
  if (report.suite.version !== chosen.suite_version) {
    throw new Error(`installed ${SUITE_PACKAGE} ${report.suite.version}, but conformance-scenarios.json was chosen for ${chosen.suite_version}`);
  }
  const bridge = await startBridge({ command: opts.command, args: opts.args, env: serverEnv(opts.home), cwd: opts.cwd });
  try {
    const capabilities = await serverCapabilities(bridge.url);
    report.capabilities = Object.keys(capabilities).sort();
    let index = 0;
    for (const entry of chosen.scenarios) {
      const result = await runEntry(entry, index++, bridge.url, out, capabilities);
      report.scenarios.push(result);
      process.stderr.write(`[conformance] ${entry.scenario}@${entry.spec_version}: ${result.status}${result.reason ? ` (${result.reason.slice(0, 200)})` : ''}\n`);
    }
  } finally {
    await bridge.close();
  }
}

main()
  .catch((e) => report.steps.push({ step: 'conformance', ok: false, reason: e instanceof Error ? e.message : String(e) }))
  .finally(() => {
    report.passed = report.scenarios.filter((s) => s.status === 'passed').length;
    report.not_applicable = report.scenarios.filter((s) => s.status === 'not-applicable').length;
    report.failed = report.scenarios.filter((s) => s.status === 'failed').length + report.steps.filter((s) => !s.ok).length;
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.exitCode = report.failed === 0 && report.passed > 0 ? 0 : 1;
    setTimeout(() => process.exit(), 100).unref();
  });
