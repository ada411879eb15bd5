//! The integration tests, in one binary (one link instead of one per file): the real
//! `hera-agent-unity` binary as a child process on real stdio, against the reference Editor
//! (the simulator, in-process, over real HTTP on 127.0.0.1), with a temporary HOME.
//!
//! - `cli_*`: the everyday commands, one file per concern.
//! - `mcp_*`: the MCP server: protocol, the Editor's lifecycle, exposures, guarantees, project
//!   following.
//! - `fault_matrix`, `mcp_hostile`, `cli_trust`, `secret_corpus`: the reliability record and
//!   the trust boundary (faults end to end, hostile frames, other users' files and ports,
//!   credential screening).
//! - `parity`: the same scenario through the CLI and through MCP, with the rules both share and
//!   the one place a person and an agent are treated differently.
//! - `real_connector`: the client against the real Connector's behaviour, one test each.
//! - `search_quality`: recall of `tool_search` on committed query sets.
//! - `server_json`: the MCP registry manifest against its schema.
//! - `interop`: real MCP clients (installed by `.ci/run`).
//! - `tidy`: the code map's invariants, read from the source tree.

mod support;

mod cli_call;
mod cli_discovery;
mod cli_doctor;
mod cli_doctor_clients;
mod cli_doctor_platform;
mod cli_faults;
mod cli_legacy;
mod cli_reload;
mod cli_setup;
mod cli_task;
mod cli_trust;
mod cli_wait;
mod fault_matrix;
mod interop;
mod mcp_agentcost;
mod mcp_editor;
mod mcp_exposure;
mod mcp_guarantees;
mod mcp_hostile;
mod mcp_project_following;
mod mcp_protocol;
mod parity;
mod real_connector;
mod search_quality;
mod secret_corpus;
mod server_json;
mod tidy;
