//! What a search *says*, beyond its ranking: found, nothing close, or a capability that is
//! deliberately not offered.
//!
//! A ranker always returns something for a query that shares one word with the catalog; "undo
//! last change" shares "change" with eighteen settings writers. Handing those back as hits
//! invites the agent to call one. So every answer carries a [`Verdict`]:
//! - [`Verdict::Found`]: the best hit matched at least [`CONFIDENT_COVERAGE`] of the query's
//!   meaningful words (a synonym or typo counting at its weight), or
//!   [`CONFIDENT_DESTRUCTIVE_COVERAGE`] when that hit destroys or changes packages;
//! - [`Verdict::NoGoodMatch`]: it did not; the hits are only the closest, and `tool_search`
//!   says "no action does that" instead of listing them as results;
//! - [`Verdict::NotOffered`]: the query asks for something this server deliberately does not do
//!   here: undo/redo (no tool offers it), or running arbitrary code without the permission
//!   (the tool exists but is hidden; [`SearchIndex::answer`] finds it by ranking the query
//!   without the filter).

use super::hit::{SearchFilter, SearchHit};
use super::index::SearchIndex;
use super::text;

/// Least coverage of the query by the best hit for the answer to count as found.
pub const CONFIDENT_COVERAGE: f32 = 0.5;
/// Least coverage for a hidden arbitrary-code tool, ranked first without the filter, to make
/// the answer "not offered": lower than [`CONFIDENT_COVERAGE`] because code requests carry the
/// code's own words ("execute code that prints the frame count").
const ARBITRARY_CODE_COVERAGE: f32 = 0.3;

/// Least coverage for a destructive or package-changing best hit ("get rid of the spam in my
/// inbox" shares one verb with `destroy`, "remove my git credentials" with a package removal):
/// such a call is offered as found only when more of the request is about it.
pub const CONFIDENT_DESTRUCTIVE_COVERAGE: f32 = 0.6;

fn confidence_needed(hit: &SearchHit) -> f32 {
    use hera_connector_contract::catalog::RiskClass;
    if matches!(
        hit.safety.risk_class,
        RiskClass::Destructive | RiskClass::PackageChange
    ) {
        CONFIDENT_DESTRUCTIVE_COVERAGE
    } else {
        CONFIDENT_COVERAGE
    }
}

/// A capability a query asked for that this server does not offer in this session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotOffered {
    /// A stable name: `undo` or `arbitrary_code`.
    pub capability: &'static str,
    /// What to tell the agent: what is missing and what it or the user can do instead.
    pub message: &'static str,
}

pub const UNDO: NotOffered = NotOffered {
    capability: "undo",
    message: "Undo is not offered: no tool here undoes or redoes a change. Editor changes made \
              through these tools go into Unity's own Undo history, so the user can undo them in \
              the Editor (Edit > Undo, Ctrl+Z / Cmd+Z); to reverse a change yourself, call the \
              opposite action (destroy what was created, set the previous value back).",
};

pub const ARBITRARY_CODE: NotOffered = NotOffered {
    capability: "arbitrary_code",
    message: "Running arbitrary code in the Editor is not offered in this session: it is disabled \
              unless the user restarts the server with --allow-arbitrary-code (or \
              HERA_MCP_ALLOW_ARBITRARY_CODE=1). Look for a dedicated tool for the task instead.",
};

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Found,
    NoGoodMatch,
    NotOffered(NotOffered),
}

/// A ranking with its verdict. `hits` are results when `Found`, the closest otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchAnswer {
    pub hits: Vec<SearchHit>,
    pub verdict: Verdict,
}

/// Words that ask to undo or redo.
const UNDO_WORDS: &[&str] = &["undo", "redo", "undone", "rollback", "ctrl+z", "cmd+z"];

fn asks_for_undo(query: &str) -> bool {
    let lower = query.to_lowercase();
    let words: Vec<String> = text::words(&lower).into_iter().map(|w| w.surface).collect();
    words.iter().any(|w| UNDO_WORDS.contains(&w.as_str()))
        || lower.contains("ctrl+z")
        || lower.contains("cmd+z")
        || lower.contains("ctrl-z")
        || words
            .windows(2)
            .any(|p| (p[0] == "roll" && p[1] == "back") || (p[0] == "ctrl" && p[1] == "z"))
}

impl SearchIndex {
    /// [`SearchIndex::search`] with a verdict (see the module).
    pub fn answer(&self, query: &str, limit: usize, filter: &SearchFilter) -> SearchAnswer {
        let hits = self.search(query, limit, filter);
        // Undo is absent only while no tool or action is named for it.
        if asks_for_undo(query) && !self.names.iter().any(|n| n.contains("undo")) {
            return SearchAnswer {
                hits,
                verdict: Verdict::NotOffered(UNDO),
            };
        }
        if !filter.allow_arbitrary_code {
            let unfiltered = SearchFilter {
                allow_arbitrary_code: true,
                ..*filter
            };
            let best = self.search(query, 1, &unfiltered);
            if let Some(b) = best.first()
                && self.is_arbitrary(&b.tool)
                && b.coverage >= ARBITRARY_CODE_COVERAGE
                && hits.first().is_none_or(|h| h.score < b.score)
            {
                return SearchAnswer {
                    hits,
                    verdict: Verdict::NotOffered(ARBITRARY_CODE),
                };
            }
        }
        let verdict = match hits.first() {
            Some(h) if h.coverage >= confidence_needed(h) => Verdict::Found,
            _ => Verdict::NoGoodMatch,
        };
        SearchAnswer { hits, verdict }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_phrasings_are_recognized() {
        for q in [
            "undo last change",
            "Undo that",
            "redo",
            "roll back what you just did",
            "press ctrl+z",
            "ctrl z",
        ] {
            assert!(asks_for_undo(q), "{q}");
        }
        for q in [
            "revert the prefab overrides",
            "rolling ball",
            "undock the window",
        ] {
            assert!(!asks_for_undo(q), "{q}");
        }
    }
}
