//! The simulator's tests, in one binary (one link instead of one per file). Each module drives
//! the simulator the way a client would: over real HTTP on 127.0.0.1, through its files, or as
//! the standalone `hera-connector-sim` process; `common` is the shared plumbing (a plain HTTP
//! client, a fixture with a temporary HOME, and the schema check every reply goes through).
//!
//! - Wire and ingress: `http_rules`, `pipeline`, `batch`, `approval`, `ledger`, `heartbeat`.
//! - The catalog: `catalog_reference` (against the committed reference extract),
//!   `custom_tools`, `legacy`.
//! - Long work and control: `file_bus`, `control`, `faults`, `binary`.
//! - `fidelity`: what a real Editor does that a client must survive, one test per behaviour;
//!   `payload_shapes`: every action's payload against the real handlers' shapes.

mod common;

mod approval;
mod batch;
mod binary;
mod catalog_reference;
mod control;
mod custom_tools;
mod faults;
mod fidelity;
mod file_bus;
mod heartbeat;
mod http_rules;
mod ledger;
mod legacy;
mod payload_shapes;
mod pipeline;
