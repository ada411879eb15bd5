// Interop driver: TS SDK v2 (`@modelcontextprotocol/client`, pinned in package.json), where the
// TypeScript SDK gets protocol 2026-07-28.
//   node ts-sdk-v2.mjs --home DIR [--cwd DIR] --negotiation auto|legacy|2026-07-28 [--expect-protocol V] -- SERVER_BIN ARGS...
// `auto` probes `server/discover` (on a short-lived sibling copy of the server) and falls back to
// `initialize`; a date pins that revision with no fallback; `legacy` is the plain 2025 handshake.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parseDriverArgs, serverEnv } from './lib/args.mjs';
import { acceptElicitation, armDeadline, finish, REQUEST_TIMEOUT_MS, runScenario } from './lib/flow.mjs';

const PACKAGE = '@modelcontextprotocol/client';
const version = JSON.parse(readFileSync(new URL(`./node_modules/${PACKAGE}/package.json`, import.meta.url), 'utf8')).version;

const report = { driver: 'ts-sdk-v2', client: { package: PACKAGE, version }, steps: [] };
armDeadline(report, 240_000);

function negotiationMode(value) {
  if (value === undefined || value === 'legacy') return 'legacy';
  if (value === 'auto') return 'auto';
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return { pin: value };
  throw new Error(`--negotiation must be auto, legacy or a protocol date, not ${value}`);
}

async function main() {
  const opts = parseDriverArgs(process.argv.slice(2));
  report.negotiation = opts.negotiation ?? 'legacy';
  const transport = new StdioClientTransport({
    command: opts.command,
    args: opts.args,
    env: serverEnv(opts.home),
    cwd: opts.cwd,
    stderr: 'inherit',
  });
  const elicitations = { count: 0 };
  const client = new Client(
    { name: 'hera-interop-ts-sdk-v2', version },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: negotiationMode(opts.negotiation), probe: { timeoutMs: 15_000 } },
    },
  );
  // Legacy era: a real elicitation/create request. 2026-07-28: the same handler fulfils the
  // `input_required` rounds the SDK drives inside callTool().
  client.setRequestHandler('elicitation/create', async (request) => acceptElicitation(request.params, elicitations));

  const started = Date.now();
  let connected = false;
  try {
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    report.protocol_version = client.getNegotiatedProtocolVersion() ?? null;
    report.era = client.getProtocolEra() ?? null;
    report.server = client.getServerVersion() ?? null;
    report.steps.push({ step: 'connect', ok: true, ms: Date.now() - started });
    connected = true;
  } catch (e) {
    report.steps.push({ step: 'connect', ok: false, reason: e instanceof Error ? e.message : String(e), ms: Date.now() - started });
  }

  if (connected) {
    await runScenario(
      {
        listTools: () => client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS }),
        callTool: (params) => client.callTool(params, { timeout: REQUEST_TIMEOUT_MS }),
      },
      report,
      { expectProtocol: opts.expectProtocol },
    );
  }
  report.elicitations = elicitations.count;
  await client.close().catch(() => {});
}

main()
  .catch((e) => report.steps.push({ step: 'driver', ok: false, reason: e instanceof Error ? e.message : String(e) }))
  .finally(() => {
    process.exitCode = finish(report);
    setTimeout(() => process.exit(), 100).unref();
  });
