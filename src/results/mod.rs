//! (module being written by the results-cache helper: the spill store for oversized results,
//! credential screening, `hera-result://` resource links. The MCP server calls its API; do not
//! edit this module from elsewhere.)
