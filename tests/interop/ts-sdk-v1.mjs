// Interop driver: TS SDK v1 (`@modelcontextprotocol/sdk`, pinned in package.json). This SDK speaks
// only the handshake era and sends `initialize` with protocol 2025-11-25.
//   node ts-sdk-v1.mjs --home DIR [--cwd DIR] [--expect-protocol 2025-11-25] -- SERVER_BIN mcp --transport stdio
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseDriverArgs, serverEnv } from './lib/args.mjs';
import { acceptElicitation, armDeadline, finish, REQUEST_TIMEOUT_MS, runScenario } from './lib/flow.mjs';

const PACKAGE = '@modelcontextprotocol/sdk';
const version = JSON.parse(readFileSync(new URL(`./node_modules/${PACKAGE}/package.json`, import.meta.url), 'utf8')).version;

const report = { driver: 'ts-sdk-v1', client: { package: PACKAGE, version }, negotiation: 'initialize', steps: [] };
armDeadline(report, 240_000);

async function main() {
  const opts = parseDriverArgs(process.argv.slice(2));
  const transport = new StdioClientTransport({
    command: opts.command,
    args: opts.args,
    env: serverEnv(opts.home),
    cwd: opts.cwd,
    stderr: 'inherit',
  });
  // Client.connect hands the negotiated version to transports that accept it; stdio has no such
  // hook, so define one to observe what the server agreed to.
  transport.setProtocolVersion = (v) => {
    report.protocol_version = v;
  };
  const elicitations = { count: 0 };
  const client = new Client(
    { name: 'hera-interop-ts-sdk-v1', version },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => acceptElicitation(request.params, elicitations));

  const connected = await (async () => {
    const started = Date.now();
    try {
      await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
      report.server = client.getServerVersion() ?? null;
      report.steps.push({ step: 'connect', ok: true, ms: Date.now() - started });
      return true;
    } catch (e) {
      report.steps.push({ step: 'connect', ok: false, reason: e instanceof Error ? e.message : String(e), ms: Date.now() - started });
      return false;
    }
  })();

  if (connected) {
    await runScenario(
      {
        listTools: () => client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS }),
        callTool: (params) => client.callTool(params, undefined, { timeout: REQUEST_TIMEOUT_MS }),
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
    // The SDK closes stdin and signals the child itself; don't linger on any leftover handle.
    setTimeout(() => process.exit(), 100).unref();
  });
