// The interop scenario every JS driver runs, whatever SDK it wraps. A driver connects its own SDK
// client, then hands `api = { listTools(), callTool(params) }` here, bound to that SDK's own
// `listTools` / `callTool` (the calls under test) with a request timeout. The outcome is ONE JSON line on
// stdout, which tests/interop.rs parses; everything else goes to stderr.
import { compileSchema, validationErrors } from './validate.mjs';

export const EXPECTED_TOOLS = ['tool_call', 'tool_describe', 'tool_search'];
/** Per-request bound: a hung server must fail the step, not the whole CI run. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** Runs one named step; a throw or a returned reason marks it failed. Steps never throw. */
async function step(report, name, body) {
  const started = Date.now();
  const entry = { step: name, ok: false };
  try {
    const outcome = (await body(entry)) ?? null;
    if (typeof outcome === 'string') entry.reason = outcome;
    else entry.ok = true;
  } catch (e) {
    entry.reason = `threw: ${e instanceof Error ? e.message : String(e)}`;
  }
  entry.ms = Date.now() - started;
  report.steps.push(entry);
  return entry.ok;
}

/** Finds the structured error code a tool error carries (`code`, or `error.code`). */
function errorCode(structured) {
  if (structured && typeof structured === 'object') {
    if (typeof structured.code === 'string' && structured.code) return structured.code;
    if (structured.error && typeof structured.error.code === 'string' && structured.error.code) return structured.error.code;
  }
  return undefined;
}

function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

/**
 * Checks one tools/call result: error flag as expected, `structuredContent` present and valid
 * against the advertised output schema (also for errors: the design promises every result fits),
 * and a text block for clients that ignore structured output.
 */
function checkResult(entry, result, validators, tool, { expectError }) {
  entry.is_error = result.isError === true;
  const structured = result.structuredContent;
  if (expectError && !entry.is_error) return `expected isError:true, got a success: ${textOf(result).slice(0, 300)}`;
  if (!expectError && entry.is_error) return `expected success, got isError:true: ${textOf(result).slice(0, 500)}`;
  if (structured === undefined || structured === null) return 'no structuredContent although the tool advertises an outputSchema';
  const invalid = validationErrors(validators.get(tool), structured);
  if (invalid) return `structuredContent violates ${tool}.outputSchema: ${invalid}`;
  entry.schema_valid = true;
  if (!textOf(result)) return 'no text content block (clients that ignore structuredContent would see nothing)';
  if (!expectError && typeof structured.success === 'boolean' && structured.success !== true) {
    return `envelope says success:false: ${JSON.stringify(structured).slice(0, 300)}`;
  }
  return null;
}

/** An elicitation answer a human approving everything would give: defaults first, then a plausible value. */
export function acceptElicitation(params, counter) {
  counter.count += 1;
  const schema = params?.requestedSchema ?? {};
  const content = {};
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.default !== undefined) content[key] = prop.default;
    else if (prop.type === 'boolean') content[key] = true;
    else if (Array.isArray(prop.enum) && prop.enum.length) {
      content[key] = prop.enum.find((v) => /^(approve|approved|yes|accept|allow|confirm)$/i.test(String(v))) ?? prop.enum[0];
    } else if (Array.isArray(prop.oneOf) && prop.oneOf.length && prop.oneOf[0].const !== undefined) content[key] = prop.oneOf[0].const;
    else if (prop.type === 'number' || prop.type === 'integer') content[key] = prop.minimum ?? 1;
    else content[key] = 'interop-approve';
  }
  return { action: 'accept', content };
}

/**
 * The scenario. `report` already holds the connect step and connection facts; this appends the
 * remaining steps. `expectProtocol` (optional) is the version the driver pinned or expects.
 */
export async function runScenario(api, report, { expectProtocol } = {}) {
  const validators = new Map();

  if (expectProtocol) {
    await step(report, 'protocol', () =>
      report.protocol_version === expectProtocol ? null : `negotiated ${report.protocol_version}, expected ${expectProtocol}`,
    );
  }

  const listed = await step(report, 'tools/list', async (entry) => {
    const { tools } = await api.listTools();
    const names = tools.map((t) => t.name).sort();
    entry.tools = names;
    if (JSON.stringify(names) !== JSON.stringify(EXPECTED_TOOLS)) return `expected exactly ${EXPECTED_TOOLS.join(', ')}, got ${names.join(', ')}`;
    for (const tool of tools) {
      if (!tool.outputSchema) return `${tool.name} has no outputSchema`;
      const compiled = compileSchema(tool.outputSchema);
      if (compiled.error) return `${tool.name}: ${compiled.error}`;
      validators.set(tool.name, compiled);
    }
    entry.annotations = Object.fromEntries(tools.map((t) => [t.name, t.annotations ?? null]));
    return null;
  });
  if (!listed) return report;

  // Clients derive a risk class from annotations: search/describe are safe, tool_call is not.
  await step(report, 'annotations', (entry) => {
    const a = report.steps.find((s) => s.step === 'tools/list').annotations;
    const problems = [];
    for (const safe of ['tool_search', 'tool_describe']) {
      const x = a[safe] ?? {};
      if (x.readOnlyHint !== true || x.destructiveHint === true || x.openWorldHint !== false) {
        problems.push(`${safe} should be readOnlyHint:true, destructiveHint:false, openWorldHint:false (got ${JSON.stringify(x)})`);
      }
    }
    if ((a.tool_call ?? {}).readOnlyHint === true) problems.push('tool_call must not claim readOnlyHint:true');
    entry.checked = ['tool_search', 'tool_describe', 'tool_call'];
    return problems.length ? problems.join('; ') : null;
  });

  await step(report, 'tool_search', async (entry) => {
    const result = await api.callTool({ name: 'tool_search', arguments: { query: 'create a game object' } });
    const bad = checkResult(entry, result, validators, 'tool_search', { expectError: false });
    if (bad) return bad;
    // Search that finds things: the obvious answer must be among the hits.
    if (!JSON.stringify(result.structuredContent).includes('manage_gameobject')) {
      return `"create a game object" did not find manage_gameobject: ${JSON.stringify(result.structuredContent).slice(0, 400)}`;
    }
    return null;
  });

  await step(report, 'tool_describe', async (entry) => {
    const result = await api.callTool({ name: 'tool_describe', arguments: { name: 'manage_gameobject', action: 'create' } });
    const bad = checkResult(entry, result, validators, 'tool_describe', { expectError: false });
    if (bad) return bad;
    // The create action's input contract names its `primitive` parameter.
    if (!JSON.stringify(result.structuredContent).includes('primitive')) {
      return `describe manage_gameobject/create does not show the create parameters: ${JSON.stringify(result.structuredContent).slice(0, 400)}`;
    }
    return null;
  });

  await step(report, 'tool_call:scene.info', async (entry) => {
    const result = await api.callTool({ name: 'tool_call', arguments: { name: 'scene', arguments: { action: 'info' } } });
    return checkResult(entry, result, validators, 'tool_call', { expectError: false });
  });

  const created = {};
  await step(report, 'tool_call:manage_gameobject.create', async (entry) => {
    const result = await api.callTool({ name: 'tool_call', arguments: { name: 'manage_gameobject', arguments: { action: 'create', name: 'InteropCube' } } });
    const bad = checkResult(entry, result, validators, 'tool_call', { expectError: false });
    if (bad) return bad;
    created.instanceId = result.structuredContent?.data?.instance_id;
    entry.instance_id = created.instanceId;
    entry.operation_id = result.structuredContent?.operation_id;
    return null;
  });

  // The mutation really happened: a fresh read through the same surface sees the new object.
  await step(report, 'tool_call:find_gameobjects.verify', async (entry) => {
    const result = await api.callTool({ name: 'tool_call', arguments: { name: 'find_gameobjects', arguments: { name: 'InteropCube' } } });
    const bad = checkResult(entry, result, validators, 'tool_call', { expectError: false });
    if (bad) return bad;
    const seen = JSON.stringify(result.structuredContent);
    const wanted = created.instanceId === undefined ? '"InteropCube"' : `"instance_id":${created.instanceId}`;
    return seen.includes(wanted) ? null : `the created object (${wanted}) is not found after the mutation: ${seen.slice(0, 400)}`;
  });

  // Bad input: an enum violation in the resolved action's schema must come back as a tool error
  // the model can repair (isError + a structured code), not a protocol error and not a success.
  await step(report, 'tool_call:bad_arguments', async (entry) => {
    const result = await api.callTool({
        name: 'tool_call',
        arguments: { name: 'manage_gameobject', arguments: { action: 'create', name: 'InteropBad', primitive: 'dodecahedron' } },
      });
    const bad = checkResult(entry, result, validators, 'tool_call', { expectError: true });
    if (bad) return bad;
    entry.code = errorCode(result.structuredContent);
    if (!entry.code) return `isError result has no structured code: ${JSON.stringify(result.structuredContent).slice(0, 300)}`;
    // Repairable means it names the fault; an "editor not running" error would not.
    if (!JSON.stringify(result.structuredContent).includes('primitive')) {
      return `the error does not point at the bad parameter "primitive": ${JSON.stringify(result.structuredContent).slice(0, 400)}`;
    }
    return null;
  });

  return report;
}

/** Prints the single summary line and returns the process exit code. */
export function finish(report) {
  report.passed = report.steps.filter((s) => s.ok).length;
  report.failed = report.steps.length - report.passed;
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return report.failed === 0 && report.steps.length > 0 ? 0 : 1;
}

/** Arms a whole-run bound: a wedged client still prints a (failed) summary and exits. */
export function armDeadline(report, ms) {
  const timer = setTimeout(() => {
    report.steps.push({ step: 'deadline', ok: false, reason: `driver exceeded ${ms} ms` });
    process.exitCode = finish(report);
    process.exit();
  }, ms);
  timer.unref();
  return timer;
}
