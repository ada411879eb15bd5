//! Results that reach the agent: inline, spilled to a local cache with a preview, or withheld.
//!
//! A pure library: no MCP types and no HTTP. The `mcp` module maps these values onto rmcp
//! (`structuredContent`, `resource_link`, `resources/list`, `resources/read`).
//!
//! # Layout
//! - `shape`: [`shape_result`] decides Inline / Spilled / Withheld for one Connector result,
//!   with the [`InlineCap`] (`HERA_MCP_MAX_INLINE_BYTES`, default 16 KiB of compact JSON).
//! - `screen`: credential screening, run on **every** result (and on every resource read).
//! - `ruleset`: the vendored Gitleaks rules (`rules/`) that `screen` applies.
//! - `preview`: the bounded preview of a spilled or withheld result (counts, first items, the
//!   pointers of the big arrays).
//! - `store`: [`ResultStore`], the TTL- and byte-capped cache under
//!   `<home>/.hera-agent-unity/results/<project-hex>/` (zstd, 0700/0600, atomic writes,
//!   SHA-256 verified on every read, headers sealed with an HMAC under a per-home key and bound
//!   to their project, least-recently-used eviction per project).
//! - `uri`: `hera-result://<project-hex>/<id>` handles and their ranges, parsed strictly.
//! - `schema`: [`envelope_output_schema`], the one closed output schema every shape fits.
//!
//! # The shapes (all valid against [`envelope_output_schema`])
//! - **Inline**: the envelope unchanged.
//! - **Spilled**: `success`, `message`, `code`, `suggestions`, `agent_hint`, `operation_id`,
//!   `timings`, `diagnostics` as the Editor sent them (bounded), no `data`, and
//!   `result: {status:"spilled", reason:"over_inline_cap", uri, byte_size, sha256, mime_type,
//!   inline_cap, expires_at_ms, preview, detail, next_steps}`. `isError = !success`.
//! - **Withheld**: `code: "RESULT_WITHHELD"`, our own `message`, `operation_id`, `timings`, and
//!   `result: {status:"withheld", reason, detail, next_steps, byte_size, original_code?,
//!   findings?/findings_total? (credentials), preview? (other reasons), inline_cap?}`.
//!   `success` stays `true` for a successful call that is not known to be read-only (the change
//!   happened; do not invite a retry); otherwise `false`.
//!
//! Reasons: `over_inline_cap` (spilled), `credential_shaped`, `arbitrary_code_output`,
//! `safety_unresolved`, `storage_failed` (withheld).
//!
//! # Reads and ranges
//! [`ResultStore::read_as`] (the session's project, a handle and an optional [`ReadRange`];
//! another project's handle is not found) is how sessions read; [`ResultStore::read`] takes a
//! handle and an optional [`ReadRange`]; the handle may carry the
//! range itself, which is how `resources/read` (which has only a `uri`) asks for one:
//! - `hera-result://<p>/<id>`: the whole stored JSON (the full envelope), `application/json`.
//! - `…?offset=N&length=M`: **bytes** `N..N+M` of that JSON text, snapped to whole UTF-8
//!   characters, `text/plain` (a fragment).
//! - `…?items=/data/items&offset=N&length=M`: **items** `N..N+M` of the array at the JSON
//!   pointer, as `{"pointer","offset","length","total","items","next"}`, `application/json`.
//!   `next` (also [`ServedRange::next_uri`]) is the handle of the following page, or `null`.
//!
//! Retention counts from the last write or read (default 24 h); the byte cap (default 64 MiB
//! on disk) is per project.
//!
//! # Example
//! ```
//! use hera_agent_unity::{
//!     InlineCap, ProjectKey, ResultSafety, ResultShape, ResultStore, ShapeContext, StoreConfig,
//!     shape_result,
//! };
//! use serde_json::json;
//!
//! let home = tempfile::tempdir()?; // in the server: AgentHome::from_env().base()
//! let store = ResultStore::new(&home.path().join(".hera-agent-unity"), StoreConfig::default());
//! let project = ProjectKey::from_project_id(
//!     "sha256:eddb71bd6dcc1509ea1fe8ad4aa23d4e01088ce758c86fe03005fd7107de2a99",
//! )?;
//! let items = vec![json!({"name": "Cube"}); 5000];
//! let envelope = json!({"success": true, "message": "Hierarchy", "data": {"items": items}});
//! let shaped = shape_result(&envelope, &ShapeContext {
//!     safety: ResultSafety::Resolved { read_only: true, arbitrary_code: false },
//!     cap: InlineCap::default(), // the server uses InlineCap::from_env()?
//!     store: &store,
//!     project: &project,
//!     label: "scene/hierarchy",
//!     operation_id: None,
//! });
//! assert_eq!(shaped.shape, ResultShape::Spilled);
//! assert_eq!(shaped.structured["result"]["preview"]["arrays"][0]["length"], 5000);
//! let uri = shaped.link.unwrap().uri;
//! let page = store.read_as(&project, &format!("{uri}?items=/data/items&offset=0&length=100"), None)?;
//! assert_eq!(page.range.unwrap().total, 5000);
//! let listed = store.list(&project)?;
//! assert_eq!(listed[0].uri, uri);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod preview;
mod ruleset;
mod schema;
mod screen;
mod shape;
mod store;
mod uri;

pub use schema::envelope_output_schema;
pub use screen::screen;
pub use shape::{
    InlineCap, ResultSafety, ResultShape, SPILLED_MIN_BYTES, ShapeContext, ShapedResult,
    shape_owned, shape_result,
};
pub use store::{JSON_MIME, ResultStore, StoreConfig, StoreError};
pub use uri::{ProjectKey, ResultUri, URI_TEMPLATE};

#[cfg(test)]
mod tests;
