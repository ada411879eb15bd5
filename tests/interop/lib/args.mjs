// Command line shared by the JS drivers:
//   node <driver>.mjs --home DIR [--cwd DIR] [--expect-protocol V] [--negotiation MODE] -- SERVER_BIN [ARGS...]
// Everything after `--` is the server command, spawned directly (never through a shell: a shell
// without `exec` in between delays shutdown and orphans the server, see interop notes).

/** Parses argv into `{ home, cwd, expectProtocol, negotiation, command, args }`; throws on misuse. */
export function parseDriverArgs(argv) {
  const out = { home: undefined, cwd: undefined, expectProtocol: undefined, negotiation: undefined };
  const sep = argv.indexOf('--');
  if (sep < 0 || sep === argv.length - 1) {
    throw new Error('usage: --home DIR [--cwd DIR] [--expect-protocol V] [--negotiation MODE] -- SERVER_BIN [ARGS...]');
  }
  const flags = argv.slice(0, sep);
  for (let i = 0; i < flags.length; i += 2) {
    const key = flags[i];
    const value = flags[i + 1];
    if (value === undefined) throw new Error(`flag ${key} needs a value`);
    switch (key) {
      case '--home': out.home = value; break;
      case '--cwd': out.cwd = value; break;
      case '--expect-protocol': out.expectProtocol = value; break;
      case '--negotiation': out.negotiation = value; break;
      default: throw new Error(`unknown flag ${key}`);
    }
  }
  if (!out.home) throw new Error('--home is required: the server must find the simulator heartbeat under it');
  out.command = argv[sep + 1];
  out.args = argv.slice(sep + 2);
  return out;
}

/**
 * The server's environment. SDK stdio transports pass only a handful of variables (HOME, PATH, ...)
 * unless told otherwise, so everything the server needs is named here: the opt-in switch, the
 * test's HOME (where the simulator writes heartbeats), and any HERA_* / RUST_* knobs the test set.
 */
export function serverEnv(home) {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, HERA_MCP_ENABLED: '1' };
  for (const [key, value] of Object.entries(process.env)) {
    if ((key.startsWith('HERA_') || key.startsWith('RUST_')) && key !== 'HERA_MCP_ENABLED' && value !== undefined) {
      env[key] = value;
    }
  }
  return env;
}
