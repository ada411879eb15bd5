//! One-letter typo tolerance: "rigidbdy", "destory", "instantate", "scnee".
//!
//! A query term the index does not know is compared with the terms it does know; those at
//! optimal-string-alignment distance 1 (one insertion, deletion, substitution or swap of two
//! neighbours) stand in for it at a reduced weight. Only words of four or more letters qualify:
//! below that, one edit turns most words into other real words.
//!
//! Lookup uses a deletion neighbourhood (each known term stored under itself and each of its
//! one-letter deletions), so a lookup costs a handful of hash probes however large the catalog is.
//! A query word can be at distance 1 from a known term only if it is at most one letter longer
//! than the longest known term; longer words are answered "no correction" after counting their
//! letters, so the cost of a lookup is linear in the word's length (a word's deletion
//! neighbourhood is quadratic in it: 200,000 letters would be 40 GB of keys).

use std::collections::HashMap;

/// Shortest query word (in characters, before stemming) that typo matching considers.
pub(crate) const MIN_TYPO_LEN: usize = 4;

/// Known terms under their one-deletion keys.
#[derive(Debug, Default, Clone)]
pub(crate) struct TypoIndex {
    by_key: HashMap<String, Vec<u32>>,
    terms: Vec<String>,
    /// Characters in the longest indexed term.
    max_len: usize,
}

fn deletions(term: &str) -> impl Iterator<Item = String> + '_ {
    let chars: Vec<char> = term.chars().collect();
    (0..chars.len()).map(move |skip| {
        chars
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != skip)
            .map(|(_, c)| *c)
            .collect()
    })
}

impl TypoIndex {
    /// Indexes `terms` (each should be unique); short terms are left out.
    pub(crate) fn build<'a>(terms: impl Iterator<Item = &'a str>) -> TypoIndex {
        let mut idx = TypoIndex::default();
        for t in terms {
            if t.chars().count() < MIN_TYPO_LEN - 1 {
                continue;
            }
            let id = idx.terms.len() as u32;
            idx.max_len = idx.max_len.max(t.chars().count());
            idx.terms.push(t.to_string());
            idx.by_key.entry(t.to_string()).or_default().push(id);
            for d in deletions(t) {
                let ids = idx.by_key.entry(d).or_default();
                if ids.last() != Some(&id) {
                    ids.push(id);
                }
            }
        }
        idx
    }

    /// Known terms at distance exactly 1 from `term`, sorted and unique.
    pub(crate) fn near(&self, term: &str) -> Vec<&str> {
        // Counting stops one past the bound, so even this check is bounded by the index.
        if term.chars().take(self.max_len + 2).count() > self.max_len + 1 {
            return Vec::new();
        }
        let mut ids: Vec<u32> = Vec::new();
        if let Some(v) = self.by_key.get(term) {
            ids.extend(v);
        }
        for d in deletions(term) {
            if let Some(v) = self.by_key.get(&d) {
                ids.extend(v);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        let mut out: Vec<&str> = ids
            .into_iter()
            .map(|i| self.terms[i as usize].as_str())
            .filter(|t| osa_distance_is_one(term, t))
            .collect();
        out.sort_unstable();
        out
    }
}

/// True when `a` and `b` differ by exactly one insertion, deletion, substitution or adjacent swap.
pub(crate) fn osa_distance_is_one(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a == b {
        return false;
    }
    let (la, lb) = (a.len(), b.len());
    if la.abs_diff(lb) > 1 {
        return false;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[prefix..], &b[prefix..]);
    if la == lb {
        // One substitution, or one swap of neighbours.
        ra[1..] == rb[1..]
            || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
    } else if la > lb {
        ra[1..] == *rb
    } else {
        rb[1..] == *ra
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_one_covers_the_four_edit_kinds() {
        assert!(osa_distance_is_one("rigidbdy", "rigidbody")); // deletion
        assert!(osa_distance_is_one("destory", "destroy")); // swap
        assert!(osa_distance_is_one("scane", "scene")); // substitution
        assert!(osa_distance_is_one("screenshoot", "screenshot")); // insertion
        assert!(!osa_distance_is_one("scene", "scene"));
        assert!(!osa_distance_is_one("scene", "sense"));
        assert!(!osa_distance_is_one("abcd", "badc"));
    }

    #[test]
    fn a_word_longer_than_every_known_term_is_not_expanded() {
        let idx = TypoIndex::build(["destroy", "rigidbody"].into_iter());
        // "rigidbodyy" is one letter longer than the longest term: still a candidate.
        assert_eq!(idx.near("rigidbodyy"), ["rigidbody"]);
        assert!(idx.near("rigidbodyyy").is_empty());
        // A 200,000-letter word returns at once instead of building 200,000 deletions.
        assert!(idx.near(&"d".repeat(200_000)).is_empty());
    }

    #[test]
    fn neighbourhood_lookup_finds_only_distance_one() {
        let idx = TypoIndex::build(["destroy", "deploy", "rigidbody", "mod", "scen"].into_iter());
        assert_eq!(idx.near("destory"), ["destroy"]);
        assert_eq!(idx.near("rigidbdy"), ["rigidbody"]);
        assert_eq!(idx.near("mdo"), ["mod"]);
        assert_eq!(idx.near("scne"), ["scen"]);
        assert!(idx.near("unrelated").is_empty());
    }
}
