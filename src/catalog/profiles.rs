//! Tool profiles (§3.7): named subsets of the catalog for native MCP exposure.

use hera_connector_contract::catalog::{Catalog, ToolEntry};
use std::collections::BTreeMap;

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

/// Strict tools that declare `profile`, in catalog order. Legacy tools are never in a profile
/// (their contract is unknown), whatever they declare.
pub fn tools_in_profile<'a>(catalog: &'a Catalog, profile: &str) -> Vec<&'a ToolEntry> {
    catalog
        .tools
        .iter()
        .filter(|t| !t.is_legacy() && t.profiles.iter().any(|p| p == profile))
        .collect()
}

/// How many strict tools each declared profile holds.
pub fn profile_counts(catalog: &Catalog) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for t in catalog.tools.iter().filter(|t| !t.is_legacy()) {
        for p in &t.profiles {
            *counts.entry(p.clone()).or_insert(0) += 1;
        }
    }
    counts
}
