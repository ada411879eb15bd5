//! The maintained secret-scanner ruleset: Gitleaks' default rules (v8.30.1, MIT), as the
//! `keyspoor` crate ships them, reduced to what we use by `rules/derive.py` (provenance and
//! licence in `rules/README.md` and `rules/LICENSE-gitleaks`).
//!
//! Applied the way Gitleaks applies them, so that the rules keep the precision their authors
//! tuned: a rule runs only on text that contains one of its keywords (one Aho-Corasick pass
//! over all keywords, ASCII case-insensitive); its regex is compiled on first use; a match's
//! secret (the rule's group, else the first group that matched, else the whole match) must
//! reach the rule's Shannon entropy, and must not be excused by the shared allowlist, the rule's
//! own allowlists (secret, match or line) or its stopwords.
//!
//! Why hand-applied instead of a scanner crate: the scanner crates bring file walking, git,
//! archives and reporting; we need one function over strings, and the rules are data.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use serde::Deserialize;
use std::sync::{LazyLock, OnceLock};

const RULES_JSON: &str = include_str!("rules/gitleaks.json");

#[derive(Debug, Deserialize)]
struct RulesFile {
    allow_secret: Vec<String>,
    rules: Vec<Rule>,
}

#[derive(Debug, Deserialize)]
struct Rule {
    id: String,
    pattern: String,
    keywords: Vec<String>,
    #[serde(default)]
    group: Option<usize>,
    #[serde(default)]
    entropy: Option<f64>,
    #[serde(default)]
    allow_secret: Vec<String>,
    #[serde(default)]
    allow_match: Vec<String>,
    #[serde(default)]
    allow_line: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
}

/// A rule compiled on demand: its regex and its own allowlists.
struct Compiled {
    regex: Regex,
    allow_secret: Option<RegexSet>,
    allow_match: Option<RegexSet>,
    allow_line: Option<RegexSet>,
}

struct Ruleset {
    rules: Vec<Rule>,
    compiled: Vec<OnceLock<Option<Compiled>>>,
    shared_allow: RegexSet,
    keywords: AhoCorasick,
    /// For each keyword pattern of `keywords`, the rules it unlocks.
    keyword_rules: Vec<Vec<usize>>,
}

/// Regexes of some rules are large (bounded repetitions of Unicode classes); the default
/// compile limit refuses a few of them.
const REGEX_SIZE_LIMIT: usize = 64 << 20;

fn build_set(patterns: &[String]) -> Option<RegexSet> {
    if patterns.is_empty() {
        return None;
    }
    RegexSetBuilder::new(patterns)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .ok()
}

static RULESET: LazyLock<Ruleset> = LazyLock::new(|| {
    let file: RulesFile = serde_json::from_str(RULES_JSON).expect("the vendored ruleset parses");
    let mut keywords: Vec<String> = Vec::new();
    let mut keyword_rules: Vec<Vec<usize>> = Vec::new();
    for (i, rule) in file.rules.iter().enumerate() {
        for k in &rule.keywords {
            match keywords.iter().position(|x| x == k) {
                Some(at) => keyword_rules[at].push(i),
                None => {
                    keywords.push(k.clone());
                    keyword_rules.push(vec![i]);
                }
            }
        }
    }
    let ac = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(&keywords)
        .expect("keywords build an automaton");
    Ruleset {
        compiled: (0..file.rules.len()).map(|_| OnceLock::new()).collect(),
        shared_allow: build_set(&file.allow_secret).expect("the shared allowlist compiles"),
        rules: file.rules,
        keywords: ac,
        keyword_rules,
    }
});

fn compile(rule: &Rule) -> Option<Compiled> {
    let regex = RegexBuilder::new(&rule.pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .ok()?;
    Some(Compiled {
        regex,
        allow_secret: build_set(&rule.allow_secret),
        allow_match: build_set(&rule.allow_match),
        allow_line: build_set(&rule.allow_line),
    })
}

/// Shannon entropy in bits per byte, as Gitleaks measures a secret.
pub fn shannon_entropy(s: &str) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts = [0usize; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = *c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// The line of `text` around `start..end`.
fn line_around(text: &str, start: usize, end: usize) -> &str {
    let from = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let to = text[end..].find('\n').map_or(text.len(), |i| end + i);
    &text[from..to]
}

impl Ruleset {
    fn candidates(&self, text: &str) -> Vec<usize> {
        let mut wanted = vec![false; self.rules.len()];
        for m in self.keywords.find_overlapping_iter(text) {
            for &r in &self.keyword_rules[m.pattern().as_usize()] {
                wanted[r] = true;
            }
        }
        wanted
            .iter()
            .enumerate()
            .filter_map(|(i, w)| w.then_some(i))
            .collect()
    }

    fn rule_matches(&self, index: usize, text: &str) -> bool {
        let rule = &self.rules[index];
        let Some(c) = self.compiled[index].get_or_init(|| compile(rule)) else {
            return false;
        };
        for caps in c.regex.captures_iter(text) {
            let whole = caps.get(0).expect("group 0 always matches");
            let secret = match rule.group {
                Some(g) => caps.get(g),
                None => (1..caps.len()).find_map(|g| caps.get(g)),
            }
            .unwrap_or(whole)
            .as_str();
            if rule.entropy.is_some_and(|e| shannon_entropy(secret) < e) {
                continue;
            }
            if self.shared_allow.is_match(secret)
                || c.allow_secret.as_ref().is_some_and(|s| s.is_match(secret))
                || c.allow_match
                    .as_ref()
                    .is_some_and(|s| s.is_match(whole.as_str()))
                || c.allow_line
                    .as_ref()
                    .is_some_and(|s| s.is_match(line_around(text, whole.start(), whole.end())))
            {
                continue;
            }
            if !rule.stopwords.is_empty() {
                let lower = secret.to_ascii_lowercase();
                if rule.stopwords.iter().any(|w| lower.contains(w.as_str())) {
                    continue;
                }
            }
            return true;
        }
        false
    }
}

/// The id of the first rule whose secret `text` contains, if any.
pub fn find(text: &str) -> Option<&'static str> {
    let set: &'static Ruleset = &RULESET;
    set.candidates(text)
        .into_iter()
        .find(|&i| set.rule_matches(i, text))
        .map(|i| set.rules[i].id.as_str())
}

#[cfg(test)]
/// How many rules the vendored file holds, and the ids of those whose regex this regex engine
/// cannot compile (they are skipped; the test below keeps the list short and known).
pub fn coverage() -> (usize, Vec<&'static str>) {
    let set: &'static Ruleset = &RULESET;
    let broken = (0..set.rules.len())
        .filter(|&i| {
            set.compiled[i]
                .get_or_init(|| compile(&set.rules[i]))
                .is_none()
        })
        .map(|i| set.rules[i].id.as_str())
        .collect();
    (set.rules.len(), broken)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vendored_rules_compile_here() {
        let (total, broken) = coverage();
        assert!(total >= 200, "{total} rules");
        assert!(
            broken.is_empty(),
            "rules this regex engine rejects: {broken:?}"
        );
    }

    #[test]
    fn keywords_gate_the_rules_and_allowlists_excuse_matches() {
        assert_eq!(
            find("token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"),
            Some("github-pat")
        );
        // The same shape without its keyword's prefix is not looked at by that rule.
        assert_eq!(find("plain words only, nothing secret here"), None);
        // The shared allowlist excuses template placeholders.
        assert_eq!(find("api_key = ${API_KEY}"), None);
        assert!(shannon_entropy("aaaa") < 0.01);
        assert!((shannon_entropy("abcd") - 2.0).abs() < 1e-9);
    }
}
