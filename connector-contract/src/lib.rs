//! The AgentConnector wire contract, shared by the adapter and the reference simulator.
//!
//! # Layout
//! - [`canonical`]: canonical JSON and the two hashes (`arguments_hash`, `catalog_hash`). This is
//!   the project's one hashing routine.
//! - [`identity`]: heartbeat file names and `project_id`, purely lexical.
//! - [`operation`]: operation ids.
//! - [`approval`]: approval token signing, verification and client-side inspection.
//! - [`task_id`]: durable task ids.
//! - [`catalog`]: `hera.tool-catalog/1` types, safety normalization and rule resolution.
//! - [`wire`]: constants, the heartbeat, ledger and file-bus records.
//!
//! Nothing here does I/O or knows HTTP or MCP: it is the meaning of the bytes, not their transport.
//! Every rule cites its section of `connector-contract/README.md`.

pub mod approval;
pub mod canonical;
pub mod catalog;
pub mod identity;
pub mod operation;
pub mod task_id;
pub mod wire;
