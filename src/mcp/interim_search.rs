//! A deliberately small, deterministic ranking used by `tool_search` until `crate::search`
//! (owned by the search module) provides the real one. Replace the single call in
//! `compact::search` and delete this file.
//!
//! Score: query tokens (split on non-alphanumerics and camelCase, lower-cased) matched against a
//! tool's name, title, description, and each action's name, aliases, description and parameter
//! names. Ties break by tool name, so the order never depends on hashing or timing.

use hera_connector_contract::catalog::{ActionEntry, ToolEntry};

/// One ranked tool: its position in the catalog and its actions, best first.
pub struct Hit<'a> {
    pub tool: &'a ToolEntry,
    pub score: u32,
    /// Actions whose text matched, best first; empty when only tool-level text matched.
    pub actions: Vec<&'a ActionEntry>,
}

pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn hits(words: &[String], q: &str) -> u32 {
    words.iter().filter(|w| *w == q || w.starts_with(q)).count() as u32
}

fn action_score(a: &ActionEntry, query: &[String]) -> u32 {
    let name = tokens(&a.name);
    let aliases: Vec<String> = a.aliases.iter().flat_map(|x| tokens(x)).collect();
    let desc = tokens(&a.description);
    let params: Vec<String> = a
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| p.keys().flat_map(|k| tokens(k)).collect())
        .unwrap_or_default();
    query
        .iter()
        .map(|q| {
            30 * hits(&name, q).min(1)
                + 20 * hits(&aliases, q).min(1)
                + 5 * hits(&desc, q).min(1)
                + 5 * hits(&params, q).min(1)
        })
        .sum()
}

/// Ranks `tools` for `query`; drops tools that match nothing.
pub fn rank<'a>(tools: impl Iterator<Item = &'a ToolEntry>, query: &str) -> Vec<Hit<'a>> {
    let q = tokens(query);
    let whole = query.trim().to_lowercase();
    let mut out: Vec<Hit<'a>> = tools
        .filter_map(|t| {
            let name = tokens(&t.name);
            let title = tokens(&t.title);
            let desc = tokens(&t.description);
            let mut score: u32 = if t.name == whole { 1000 } else { 0 };
            for w in &q {
                score += 100 * hits(&name, w).min(1)
                    + 40 * hits(&title, w).min(1)
                    + 10 * hits(&desc, w).min(1);
            }
            let mut actions: Vec<(&ActionEntry, u32)> = t
                .actions
                .iter()
                .map(|a| (a, action_score(a, &q)))
                .filter(|(_, s)| *s > 0)
                .collect();
            actions.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name)));
            score += actions.first().map(|a| a.1).unwrap_or(0);
            (score > 0).then(|| Hit {
                tool: t,
                score,
                actions: actions.into_iter().map(|(a, _)| a).collect(),
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| a.tool.name.cmp(&b.tool.name))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn splits_snake_and_camel() {
        assert_eq!(
            tokens("manage_gameObject runTests"),
            ["manage", "game", "object", "run", "tests"]
        );
    }
}
