//! What every integration test shares: a temporary HOME with simulated Editors and the CLI run
//! as a child process (`cli`), and the MCP server as a stdio child with a JSON-RPC client
//! (`mcp`). Not every test uses every helper.
#![allow(dead_code)]

pub mod cli;
pub mod mcp;
