//! Tool profiles (§3.7): named subsets of the catalog for native MCP exposure.

/// Profiles a user may ask for (`--profile`).
pub const SUPPORTED_PROFILES: [&str; 9] = [
    "core",
    "scene",
    "assets",
    "ui",
    "diagnostics",
    "testing",
    "custom",
    "full",
    "advanced",
];

pub fn is_supported_profile(name: &str) -> bool {
    SUPPORTED_PROFILES.contains(&name)
}
