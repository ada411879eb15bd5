//! `hera-agent-unity`: the CLI and (with `mcp`) the stdio MCP server. All logic is in the library.

fn main() -> std::process::ExitCode {
    hera_agent_unity::run()
}
