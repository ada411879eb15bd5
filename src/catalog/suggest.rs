//! "Did you mean": close names for a misspelled tool or action. The one suggestion routine of
//! the adapter; the CLI, policy errors and the MCP tools all use it, so every surface suggests
//! the same names for the same typo.

/// Levenshtein distance over characters, case-insensitive.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Close names for a misspelled one: small edit distance, or one is a prefix/part of the other.
/// At most five, nearest first, ties by name.
pub fn close_names<'a>(wanted: &str, candidates: impl Iterator<Item = &'a str>) -> Vec<String> {
    let w = wanted.trim().to_lowercase();
    let limit = (w.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .filter_map(|c| {
            let lc = c.to_lowercase();
            let d = distance(&w, &lc);
            let related = !w.is_empty() && (lc.contains(&w) || w.contains(&lc));
            (d <= limit || related).then_some((if related { d.min(1) } else { d }, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(5)
        .map(|(_, c)| c.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_rank_by_distance() {
        let c = close_names(
            "manage_gameobjct",
            ["manage_gameobject", "manage_assets", "scene"].into_iter(),
        );
        assert_eq!(c[0], "manage_gameobject");
        assert!(!c.contains(&"scene".to_string()));
    }
}
