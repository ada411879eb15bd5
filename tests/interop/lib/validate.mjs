// Our own check of `structuredContent` against a tool's advertised `outputSchema`, independent of
// the SDK's built-in check (which skips error results and, in TS SDK v1, knows only draft-07).
// MCP 2025-11-25 makes JSON Schema 2020-12 the default dialect, so a schema without `$schema`
// is compiled as 2020-12; an explicit `$schema` picks its own dialect.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Ajv07 = require('ajv').default;
const Ajv2019 = require('ajv/dist/2019').default;
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

const OPTIONS = { strict: false, allErrors: true, validateFormats: true };

function engineFor(schema) {
  const dialect = typeof schema?.$schema === 'string' ? schema.$schema : '';
  let ajv;
  if (dialect.includes('draft-07') || dialect.includes('draft-06') || dialect.includes('draft-04')) {
    ajv = new Ajv07(OPTIONS);
  } else if (dialect.includes('2019-09')) {
    ajv = new Ajv2019(OPTIONS);
  } else {
    ajv = new Ajv2020(OPTIONS);
  }
  addFormats(ajv);
  return ajv;
}

/** Compiles `schema`; returns `{ validate }` or `{ error }` (a schema that does not compile is a finding). */
export function compileSchema(schema) {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return { error: `outputSchema is not an object: ${JSON.stringify(schema)}` };
  }
  try {
    const validate = engineFor(schema).compile(schema);
    return { validate };
  } catch (e) {
    return { error: `outputSchema does not compile: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Validates `value`; returns null when valid, else a short list of errors with JSON pointers. */
export function validationErrors(compiled, value) {
  if (compiled.error) return compiled.error;
  if (compiled.validate(value)) return null;
  return compiled.validate.errors
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}`)
    .join('; ');
}
