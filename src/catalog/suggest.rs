//! "Did you mean": close names for a misspelled or guessed tool or action. The one suggestion
//! routine of the adapter; the CLI, policy errors and the MCP tools all use it, so every surface
//! suggests the same names for the same input.
//!
//! Two kinds of closeness count, because agents get names wrong in two ways:
//! - a typo of the real name (`manage_gameobjct`): string similarity, from the `strsim` crate
//!   (Damerau-Levenshtein, normalized to 0..1) rather than a hand-written edit distance;
//! - a guess built from the right words (`gameobject_create`, `components`, `unity_scene`):
//!   shared name words, where a word also matches a longer word it starts or ends
//!   (`object` ~ `gameobject`).

/// Longest input compared, in characters: names are short, and similarity is quadratic in the
/// length, so a huge input must not cost more than a name-sized one.
const MAX_COMPARED_CHARS: usize = 64;
/// Similarity at or above which a name counts as a typo of the input.
const TYPO_SIMILARITY: f64 = 0.6;
/// At most this many suggestions.
const MAX_SUGGESTIONS: usize = 5;
/// Name words shorter than this never match by prefix or suffix.
const MIN_PART_WORD: usize = 3;

/// Words of a name: split on `_`, `-`, `.`, `/`, spaces and camelCase, lower-cased.
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Whether two name words mean the same thing here: equal, or one starts or ends the other
/// (`object`/`gameobject`, `component`/`components`).
fn words_match(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= MIN_PART_WORD && (long.starts_with(short) || long.ends_with(short))
}

/// How many of `wanted`'s words some word of `candidate` matches.
fn shared_words(wanted: &[String], candidate: &[String]) -> usize {
    wanted
        .iter()
        .filter(|w| candidate.iter().any(|c| words_match(w, c)))
        .count()
}

/// Close names for a misspelled or guessed one, best first (more shared words, then higher
/// similarity, then the name), at most five. Candidates may repeat (a name and its alias).
pub fn close_names<'a>(wanted: &str, candidates: impl Iterator<Item = &'a str>) -> Vec<String> {
    let w: String = wanted
        .trim()
        .chars()
        .take(MAX_COMPARED_CHARS)
        .collect::<String>()
        .to_lowercase();
    if w.is_empty() {
        return Vec::new();
    }
    let w_words = name_words(&w);
    let mut scored: Vec<(usize, f64, &str)> = candidates
        .filter_map(|c| {
            let lc = c.to_lowercase();
            let similarity = strsim::normalized_damerau_levenshtein(&w, &lc);
            let shared = shared_words(&w_words, &name_words(&lc));
            let contains = lc.contains(&w) || w.contains(&lc);
            (similarity >= TYPO_SIMILARITY || shared > 0 || contains).then_some((
                shared + usize::from(contains),
                similarity,
                c,
            ))
        })
        .collect();
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then_with(|| a.2.cmp(b.2))
    });
    let mut out: Vec<String> = Vec::new();
    for (_, _, c) in scored {
        if !out.iter().any(|o| o == c) {
            out.push(c.to_string());
        }
        if out.len() == MAX_SUGGESTIONS {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: [&str; 6] = [
        "manage_gameobject",
        "manage_assets",
        "manage_components",
        "scene",
        "find_gameobjects",
        "screenshot",
    ];

    #[test]
    fn typos_rank_the_intended_name_first() {
        let c = close_names("manage_gameobjct", TOOLS.into_iter());
        assert_eq!(c[0], "manage_gameobject");
        assert!(!c.contains(&"scene".to_string()), "{c:?}");
        assert_eq!(close_names("scen", TOOLS.into_iter())[0], "scene");
        assert_eq!(close_names("screnshot", TOOLS.into_iter())[0], "screenshot");
    }

    #[test]
    fn guesses_from_the_right_words_are_suggested() {
        let c = close_names("gameobject_create", TOOLS.into_iter());
        assert!(c[..2].contains(&"manage_gameobject".to_string()), "{c:?}");
        let c = close_names("components", TOOLS.into_iter());
        assert_eq!(c[0], "manage_components");
        let c = close_names("unity_scene", TOOLS.into_iter());
        assert_eq!(c[0], "scene");
        let c = close_names("addComponent", ["add", "get", "remove"].into_iter());
        assert_eq!(c[0], "add");
    }

    #[test]
    fn unrelated_and_empty_inputs_suggest_nothing() {
        assert!(close_names("zzzz", TOOLS.into_iter()).is_empty());
        assert!(close_names("   ", TOOLS.into_iter()).is_empty());
    }

    #[test]
    fn a_huge_input_costs_a_name_sized_comparison() {
        let huge = "x".repeat(200_000);
        assert!(close_names(&huge, TOOLS.into_iter()).is_empty());
        let huge_scene = format!("scene{}", "q".repeat(200_000));
        assert_eq!(close_names(&huge_scene, TOOLS.into_iter())[0], "scene");
    }

    #[test]
    fn duplicates_are_suggested_once_and_at_most_five() {
        let many = [
            "scene", "scene", "scenes", "scene_a", "scene_b", "scene_c", "scene_d",
        ];
        let c = close_names("scene", many.into_iter());
        assert_eq!(c.len(), 5);
        assert_eq!(c.iter().filter(|n| *n == "scene").count(), 1);
    }
}
