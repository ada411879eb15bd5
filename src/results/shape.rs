//! Deciding how a Connector result reaches the agent: inline, spilled to the cache with a
//! preview, or withheld.
//!
//! The order of the checks is the point:
//! 1. **Screen every result** for credentials, whatever its size. A flagged result is never
//!    returned, previewed or stored.
//! 2. **Inline** when the compact JSON fits the cap.
//! 3. Oversized output of an arbitrary-code action, or of an action whose safety could not be
//!    resolved, is **not persisted** (we cannot vouch for what it holds); the agent gets the
//!    preview and how to shrink the result.
//! 4. Otherwise **spill**: the full envelope goes to the store, the agent gets the link, the
//!    preview and the original success/code/message/operation id.
//!
//! A withheld result of a successful call that may have changed something keeps
//! `success: true` and its `operation_id`: the change happened, and reporting a failure would
//! invite the agent to repeat it (anchor §10.18).

use super::preview::{clip_chars, preview, preview_budget, preview_within, summary_line};
use super::schema::REASONS;
use super::screen::{Screening, screen};
use super::store::{JSON_MIME, ResultStore, SpoolMeta, StoredResult};
use super::uri::{ProjectKey, clip};
use hera_connector_contract::catalog::{RiskClass, Safety};
use serde_json::{Map, Value, json};

/// Default inline cap: 16 KiB of compact JSON.
pub const DEFAULT_INLINE_CAP: usize = 16 * 1024;
/// Largest cap accepted (the per-project cache cap by default).
pub const MAX_INLINE_CAP: usize = 64 * 1024 * 1024;
/// The environment variable read by [`InlineCap::from_env`].
pub const INLINE_CAP_ENV: &str = "HERA_MCP_MAX_INLINE_BYTES";
/// What a spilled answer may take even under a smaller cap: its link, hash, reason and next
/// steps (about 1 KiB) plus a [`super::PREVIEW_MIN_BYTES`] preview. A spilled answer is at most
/// `max(cap, SPILLED_MIN_BYTES)` bytes of JSON when the Editor's own message, hint, suggestions
/// and diagnostics (kept as sent, each bounded) are short, as they are for ordinary results.
pub const SPILLED_MIN_BYTES: usize = 1536;
/// The code of every withheld result.
pub const WITHHELD_CODE: &str = "RESULT_WITHHELD";

const MESSAGE_CHARS: usize = 1024;
const HINT_CHARS: usize = 1024;
const SUGGESTIONS: usize = 10;
const SUGGESTION_CHARS: usize = 256;
const TIMINGS: usize = 32;
const DIAGNOSTICS_BYTES: usize = 2048;

/// How many bytes of compact JSON a result may have and still be returned inline.
///
/// The MCP layer repeats the structured JSON as the text block, so the frame on the wire is
/// roughly twice this; 16 KiB keeps both under the 20,000-character client limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InlineCap(usize);

/// A cap setting that cannot be used, with the accepted range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{INLINE_CAP_ENV} must be a whole number of bytes from 1 to {MAX_INLINE_CAP} (default {DEFAULT_INLINE_CAP}); got {0:?}. Unset it to use the default."
)]
pub struct InlineCapError(pub String);

impl Default for InlineCap {
    fn default() -> Self {
        InlineCap(DEFAULT_INLINE_CAP)
    }
}

impl InlineCap {
    pub fn new(bytes: usize) -> Result<InlineCap, InlineCapError> {
        if (1..=MAX_INLINE_CAP).contains(&bytes) {
            Ok(InlineCap(bytes))
        } else {
            Err(InlineCapError(bytes.to_string()))
        }
    }

    /// Parses a setting: digits only; 0, negative, fractional or huge values are refused.
    pub fn parse(text: &str) -> Result<InlineCap, InlineCapError> {
        let t = text.trim();
        match t.parse::<usize>() {
            Ok(n) if !t.starts_with('+') => {
                InlineCap::new(n).map_err(|_| InlineCapError(clip(text)))
            }
            _ => Err(InlineCapError(clip(text))),
        }
    }

    /// [`INLINE_CAP_ENV`], or the default when it is unset or blank.
    pub fn from_env() -> Result<InlineCap, InlineCapError> {
        match std::env::var(INLINE_CAP_ENV) {
            Ok(v) if !v.trim().is_empty() => InlineCap::parse(&v),
            _ => Ok(InlineCap::default()),
        }
    }

    pub fn bytes(self) -> usize {
        self.0
    }
}

/// The safety of the operation that produced a result, as resolved by `policy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultSafety {
    Resolved {
        read_only: bool,
        arbitrary_code: bool,
    },
    /// Resolution failed (ambiguous or malformed rules): nothing oversized is persisted.
    Unresolved,
}

impl From<&Safety> for ResultSafety {
    fn from(s: &Safety) -> Self {
        ResultSafety::Resolved {
            read_only: s.read_only,
            arbitrary_code: s.risk_class == RiskClass::ArbitraryCode,
        }
    }
}

impl ResultSafety {
    fn known_read_only(self) -> bool {
        matches!(
            self,
            ResultSafety::Resolved {
                read_only: true,
                ..
            }
        )
    }
}

/// Everything [`shape_result`] needs besides the envelope.
#[derive(Debug, Clone, Copy)]
pub struct ShapeContext<'a> {
    pub safety: ResultSafety,
    pub cap: InlineCap,
    pub store: &'a ResultStore,
    /// The project of the Editor that answered (its catalog `project_id`).
    pub project: &'a ProjectKey,
    /// What produced the result, e.g. `scene/hierarchy`; used in messages and listings.
    pub label: &'a str,
    /// The operation id of the call; falls back to the envelope's `operation_id`.
    pub operation_id: Option<&'a str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultShape {
    Inline,
    Spilled,
    Withheld,
}

/// A `resource_link` to put next to a spilled result's structured content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultLink {
    pub uri: String,
    pub name: String,
    pub title: String,
    pub description: String,
    pub mime_type: &'static str,
    pub size: u64,
    pub expires_at_ms: u64,
}

/// The decision, ready for the MCP layer.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapedResult {
    pub shape: ResultShape,
    /// `structuredContent`; always valid against [`super::envelope_output_schema`]
    /// (for inline results, provided the input envelope was).
    pub structured: Value,
    /// `isError` (`!structured.success`).
    pub is_error: bool,
    /// Present for [`ResultShape::Spilled`].
    pub link: Option<ResultLink>,
}

fn human_bytes(n: usize) -> String {
    const KIB: f64 = 1024.0;
    let f = n as f64;
    if f < KIB {
        format!("{n} bytes")
    } else if f < KIB * KIB {
        format!("{:.1} KiB", f / KIB)
    } else {
        format!("{:.1} MiB", f / (KIB * KIB))
    }
}

/// The envelope fields a non-inline shape keeps, bounded so the shape itself stays small.
struct Kept {
    success: bool,
    message: String,
    code: Option<String>,
    suggestions: Vec<Value>,
    agent_hint: Option<String>,
    operation_id: Option<String>,
    /// The replay mark (the answer is a ledger replay): small, always kept.
    replay: Option<Value>,
    /// The ambiguity mark (a path or name denoting several GameObjects): small, always kept.
    ambiguous: Option<Value>,
    timings: Map<String, Value>,
    diagnostics: Option<Value>,
}

impl Kept {
    fn of(envelope: &Value, operation_id: Option<&str>) -> Kept {
        let s = |k: &str| envelope.get(k).and_then(Value::as_str).map(str::to_string);
        Kept {
            success: envelope
                .get("success")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            message: clip_chars(&s("message").unwrap_or_default(), MESSAGE_CHARS),
            code: s("code").filter(|c| !c.is_empty()),
            suggestions: envelope
                .get("suggestions")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .take(SUGGESTIONS)
                        .map(|x| Value::String(clip_chars(x, SUGGESTION_CHARS)))
                        .collect()
                })
                .unwrap_or_default(),
            agent_hint: s("agent_hint").map(|h| clip_chars(&h, HINT_CHARS)),
            operation_id: operation_id
                .map(str::to_string)
                .or_else(|| s("operation_id")),
            replay: envelope.get("replay").filter(|r| r.is_object()).cloned(),
            ambiguous: envelope.get("ambiguous").filter(|r| r.is_object()).cloned(),
            timings: envelope
                .get("timings")
                .and_then(Value::as_object)
                .map(|t| {
                    t.iter()
                        .filter(|(_, v)| v.is_number())
                        .take(TIMINGS)
                        .map(|(k, v)| (clip_chars(k, 64), v.clone()))
                        .collect()
                })
                .unwrap_or_default(),
            diagnostics: envelope
                .get("diagnostics")
                .filter(|d| d.is_array())
                .filter(|d| {
                    serde_json::to_vec(d).map(|b| b.len()).unwrap_or(usize::MAX)
                        <= DIAGNOSTICS_BYTES
                })
                .cloned(),
        }
    }
}

/// Shapes one Connector result.
///
/// `envelope` is the result as the MCP layer would return it inline: an object with `success`,
/// `message` and optionally `code`, `suggestions`, `agent_hint`, `data`, `operation_id`,
/// `diagnostics`, `timings`. Only pass results that came from the Editor: adapter-made
/// envelopes (an approval request carries a token on purpose) are not results to screen.
///
/// Blocking file I/O happens when a result is spilled; call it from a blocking context
/// (`tokio::task::spawn_blocking`) in async code.
pub fn shape_result(envelope: &Value, ctx: &ShapeContext<'_>) -> ShapedResult {
    shape_owned(envelope.clone(), ctx)
}

/// [`shape_result`] for a result the caller gives up: an inline result is returned without a
/// copy, and a large one is released before it is compressed and stored, so a spilled result
/// is held at most twice at once (the parsed value and its JSON text, then the text and its
/// compressed form).
pub fn shape_owned(envelope: Value, ctx: &ShapeContext<'_>) -> ShapedResult {
    let full = serde_json::to_vec(&envelope).expect("a JSON value always serializes");
    let screening = screen(&envelope);
    if !screening.is_clean() {
        let kept = Kept::of(&envelope, ctx.operation_id);
        return withheld(kept, ctx, full.len(), Withhold::Credentials(&screening));
    }
    if full.len() <= ctx.cap.bytes() {
        let success = envelope
            .get("success")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        return ShapedResult {
            shape: ResultShape::Inline,
            structured: envelope,
            is_error: !success,
            link: None,
        };
    }
    // The agent's preview fits a budget that follows the cap; listings and the link describe the
    // result from the full-size preview (they are not part of the structured answer).
    let pv = preview_within(&envelope, preview_budget(ctx.cap.bytes()));
    let kept = Kept::of(&envelope, ctx.operation_id);
    match ctx.safety {
        ResultSafety::Unresolved => {
            return withheld(kept, ctx, full.len(), Withhold::Unresolved(pv));
        }
        ResultSafety::Resolved {
            arbitrary_code: true,
            ..
        } => {
            return withheld(kept, ctx, full.len(), Withhold::ArbitraryCode(pv));
        }
        ResultSafety::Resolved { .. } => {}
    }
    let summary = summary_line(&preview(&envelope));
    drop(envelope);
    let meta = SpoolMeta {
        label: ctx.label,
        operation_id: kept.operation_id.as_deref(),
        summary: &summary,
    };
    let size = full.len();
    let put = ctx.store.put(ctx.project, &full, &meta);
    drop(full);
    match put {
        Ok(stored) => spilled(kept, ctx, &stored, pv, &summary),
        Err(e) => withheld(kept, ctx, size, Withhold::StorageFailed(pv, e.to_string())),
    }
}

fn base_object(
    kept: &Kept,
    success: bool,
    message: String,
    code: Option<String>,
) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("success".into(), success.into());
    out.insert("message".into(), message.into());
    if let Some(c) = code {
        out.insert("code".into(), c.into());
    }
    if let Some(op) = &kept.operation_id {
        out.insert("operation_id".into(), op.clone().into());
    }
    if let Some(r) = &kept.replay {
        out.insert("replay".into(), r.clone());
    }
    if let Some(a) = &kept.ambiguous {
        out.insert("ambiguous".into(), a.clone());
    }
    if !kept.timings.is_empty() {
        out.insert("timings".into(), Value::Object(kept.timings.clone()));
    }
    out
}

fn spilled(
    kept: Kept,
    ctx: &ShapeContext<'_>,
    stored: &StoredResult,
    pv: Value,
    summary: &str,
) -> ShapedResult {
    let size = stored.byte_size as usize;
    let uri = stored.uri.to_string();
    let mut out = base_object(&kept, kept.success, kept.message.clone(), kept.code.clone());
    if !kept.suggestions.is_empty() {
        out.insert("suggestions".into(), kept.suggestions.clone().into());
    }
    if let Some(h) = &kept.agent_hint {
        out.insert("agent_hint".into(), h.clone().into());
    }
    if let Some(d) = &kept.diagnostics {
        out.insert("diagnostics".into(), d.clone());
    }
    let hours = ctx.store.config().retention.as_secs().div_ceil(3600);
    out.insert(
        "result".into(),
        json!({
            "status": "spilled",
            "reason": REASONS[0],
            "detail": format!(
                "The result is {} of JSON, over the {} inline cap, so it is stored as a resource; `data` is there, not here.",
                human_bytes(size), human_bytes(ctx.cap.bytes())
            ),
            "next_steps": format!(
                "Read it with resources/read on `uri`. Page a large array with `<uri>?items=<pointer>&offset=0&length=50` \
                 (pointers are in preview.arrays) or the JSON text with `<uri>?offset=0&length=8000`. It stays readable for {hours} h after its last read. \
                 If the tool has projection arguments (limit, fields, ids only), calling it again with them gives a smaller inline result."
            ),
            "uri": uri,
            "mime_type": JSON_MIME,
            "byte_size": stored.byte_size,
            "sha256": stored.sha256,
            "inline_cap": ctx.cap.bytes(),
            "expires_at_ms": stored.expires_at_ms,
            "preview": pv,
        }),
    );
    let link = ResultLink {
        uri: uri.clone(),
        name: format!("hera-result-{}", &stored.uri.id.as_hex()[..12]),
        title: format!("Result of {}", ctx.label),
        description: format!(
            "Full result of {} ({} JSON; {summary}). Kept {hours} h after its last read.",
            ctx.label,
            human_bytes(size)
        ),
        mime_type: JSON_MIME,
        size: stored.byte_size,
        expires_at_ms: stored.expires_at_ms,
    };
    ShapedResult {
        shape: ResultShape::Spilled,
        is_error: !kept.success,
        structured: Value::Object(out),
        link: Some(link),
    }
}

enum Withhold<'s> {
    Credentials(&'s Screening),
    ArbitraryCode(Value),
    Unresolved(Value),
    StorageFailed(Value, String),
}

fn withheld(kept: Kept, ctx: &ShapeContext<'_>, size: usize, why: Withhold<'_>) -> ShapedResult {
    // A call that may have changed something and succeeded stays a success: the change happened.
    let success = kept.success && !ctx.safety.known_read_only();
    let label = ctx.label;
    let op_note = kept
        .operation_id
        .as_deref()
        .map(|op| format!(" (operation {op})"))
        .unwrap_or_default();
    let outcome = if success {
        format!("{label} succeeded{op_note} and its change was made; do not repeat it. ")
    } else if kept.success {
        String::new()
    } else {
        match &kept.code {
            Some(c) => format!("{label} failed with {c}{op_note}. "),
            None => format!("{label} failed{op_note}. "),
        }
    };
    let over_cap = format!(
        "is {} of JSON, over the {} inline cap",
        human_bytes(size),
        human_bytes(ctx.cap.bytes())
    );
    let mut result = Map::new();
    result.insert("status".into(), "withheld".into());
    result.insert("byte_size".into(), size.into());
    if let Some(c) = &kept.code {
        result.insert("original_code".into(), c.clone().into());
    }
    let (reason, message, detail, next_steps, pv) = match why {
        Withhold::Credentials(s) => {
            let findings: Vec<Value> = s
                .findings
                .iter()
                .map(|f| json!({"pointer": f.pointer, "kind": f.kind.as_str()}))
                .collect();
            result.insert("findings".into(), findings.into());
            result.insert("findings_total".into(), s.total.into());
            (
                "credential_shaped",
                format!("{outcome}The result of {label} was withheld because it looks like it contains credentials."),
                format!(
                    "{} credential-shaped value(s) found (see findings: JSON pointers and kinds, never the values). The result was neither returned nor stored.",
                    s.total
                ),
                "Ask for less: use the action's projection arguments (fields, ids only, limit) to leave out the flagged \
                 fields, or ask the user to look at them in the Unity Editor. Do not try to work around the screening."
                    .to_string(),
                None,
            )
        }
        Withhold::ArbitraryCode(pv) => (
            "arbitrary_code_output",
            format!("{outcome}The output of {label} {over_cap}; output of arbitrary code is never written to the result cache."),
            "Output of arbitrary-code actions is not persisted because nothing vouches for what it contains. The preview shows its shape.".to_string(),
            "Make the code return less (a count, a summary or the first items) so the result fits inline.".to_string(),
            Some(pv),
        ),
        Withhold::Unresolved(pv) => (
            "safety_unresolved",
            format!("{outcome}The result of {label} {over_cap}, and the action's safety could not be resolved, so it was not cached."),
            "Results are only cached for actions whose safety resolves; the preview shows its shape.".to_string(),
            "Call again with projection arguments (limit, fields, ids only) so the result fits inline; tool_describe shows which the action has."
                .to_string(),
            Some(pv),
        ),
        Withhold::StorageFailed(pv, err) => (
            "storage_failed",
            format!("{outcome}The result of {label} {over_cap} and could not be stored in the result cache."),
            err,
            "Call again with projection arguments (limit, fields, ids only) so the result fits inline, or free disk space in the result cache."
                .to_string(),
            Some(pv),
        ),
    };
    result.insert("reason".into(), reason.into());
    result.insert("detail".into(), detail.into());
    result.insert("next_steps".into(), next_steps.into());
    if reason != "credential_shaped" {
        result.insert("inline_cap".into(), ctx.cap.bytes().into());
    }
    if let Some(pv) = pv {
        result.insert("preview".into(), pv);
    }
    let mut out = base_object(&kept, success, message, Some(WITHHELD_CODE.to_string()));
    out.insert("result".into(), Value::Object(result));
    ShapedResult {
        shape: ResultShape::Withheld,
        structured: Value::Object(out),
        is_error: !success,
        link: None,
    }
}
