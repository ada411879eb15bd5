//! The one output schema that admits every result shape `tool_call` can return.
//!
//! Why one closed schema: MCP clients (the TypeScript SDK among them) validate
//! `structuredContent` against the advertised `outputSchema` on every result, errors included.
//! The anchor advertised a closed envelope and then added fields to spilled and withheld results
//! (§10.1), which such clients reject. Here the extra facts live in one declared `result` object,
//! so inline, spilled and withheld results, successes and errors, all validate. No `$ref`: some
//! clients do not resolve references in tool schemas.

use serde_json::{Value, json};

/// `result.status` values.
pub const STATUSES: [&str; 2] = ["spilled", "withheld"];

/// `result.reason` values.
pub const REASONS: [&str; 5] = [
    "over_inline_cap",
    "credential_shaped",
    "arbitrary_code_output",
    "safety_unresolved",
    "storage_failed",
];

fn preview_schema() -> Value {
    json!({
        "type": "object",
        "description": "A bounded look at the result's `data`: its type, counts, the largest arrays (pointers usable in ?items= reads) and the first few items.",
        "additionalProperties": false,
        "required": ["data_type"],
        "properties": {
            "data_type": {"enum": ["object", "array", "string", "number", "boolean", "null", "none"]},
            "key_count": {"type": "integer", "minimum": 0},
            "keys": {"type": "array", "items": {"type": "string"}},
            "length": {"type": "integer", "minimum": 0},
            "text": {"type": "string"},
            "arrays": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["pointer", "length"],
                    "properties": {
                        "pointer": {"type": "string"},
                        "length": {"type": "integer", "minimum": 0}
                    }
                }
            },
            "sample": {
                "type": "object",
                "additionalProperties": false,
                "required": ["pointer", "items"],
                "properties": {
                    "pointer": {"type": "string"},
                    "items": {"type": "array"}
                }
            }
        }
    })
}

fn result_schema() -> Value {
    json!({
        "type": "object",
        "description": "Present when the result was not returned inline: spilled to a hera-result resource (uri, preview) or withheld (reason, what to do).",
        "additionalProperties": false,
        "required": ["status", "reason", "byte_size"],
        "properties": {
            "status": {"enum": STATUSES},
            "reason": {"enum": REASONS},
            "detail": {"type": "string"},
            "next_steps": {"type": "string"},
            "byte_size": {"type": "integer", "minimum": 0},
            "inline_cap": {"type": "integer", "minimum": 1},
            "uri": {"type": "string", "pattern": "^hera-result://"},
            "mime_type": {"type": "string"},
            "sha256": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
            "expires_at_ms": {"type": "integer", "minimum": 0},
            "original_code": {"type": "string"},
            "findings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["pointer", "kind"],
                    "properties": {
                        "pointer": {"type": "string"},
                        "kind": {"type": "string"}
                    }
                }
            },
            "findings_total": {"type": "integer", "minimum": 0},
            "preview": preview_schema()
        }
    })
}

/// The superset envelope schema for `tool_call` (and any tool whose results pass through
/// [`super::shape_result`]). The top level is closed (`additionalProperties: false`); `data` is
/// unconstrained because it is whatever the Editor's tool returned.
pub fn envelope_output_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["success", "message"],
        "properties": {
            "success": {"type": "boolean"},
            "message": {"type": "string"},
            "code": {"type": "string"},
            "suggestions": {"type": "array", "items": {"type": "string"}},
            "agent_hint": {"type": "string"},
            "data": {},
            "operation_id": {"type": "string"},
            "replay": {
                "type": "object",
                "description": "Set when the answer is the Editor's ledger replaying an operation that already ran under this id; nothing ran now.",
                "properties": {
                    "replayed": {"const": true},
                    "first_ran_at": {"type": "string"},
                    "first_ran_at_ms": {"type": "integer"}
                },
                "required": ["replayed"]
            },
            "ambiguous": {
                "type": "object",
                "description": "Set when the call named a GameObject by a path or name that denotes more than one, or created one whose path another already has; target by instance_id to choose.",
                "properties": {
                    "named": {"type": "string"},
                    "instance_ids": {"type": "array", "items": {"type": "integer"}},
                    "chosen": {"type": "integer"},
                    "truncated": {"type": "boolean"},
                    "message": {"type": "string"}
                },
                "required": ["named", "instance_ids", "message"]
            },
            "diagnostics": {"type": "array"},
            "timings": {"type": "object", "additionalProperties": {"type": "number"}},
            "result": result_schema()
        }
    })
}
