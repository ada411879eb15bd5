//! Ranking tools and actions for `tool_search`.
//!
//! ```text
//! let index = SearchIndex::build(&catalog.tools);          // once per catalog snapshot
//! let hits = index.search("add a rigidbody to the player", 5, &SearchFilter::default());
//! // hits[0]: tool "manage_components", action Some("add"), compact safety, summary
//! let json = hits[0].to_compact_json();                   // what tool_search returns per hit
//! ```
//!
//! Why not the anchor's substring scoring (as the Go adapter v0.2.17 ranks): it scores whole tools on
//! raw substrings of the query, so "run tests" and "take a screenshot" depend on luck, synonyms
//! and typos never match, parameters are invisible, and the result names no action. Here:
//!
//! - [`text`] — words from identifiers and prose (snake_case, camelCase, stopwords, a small stemmer);
//! - [`synonyms`] — the words Unity developers use, mapped to catalog words, at reduced weight;
//! - [`typo`] — one-letter typo tolerance for words of four or more letters;
//! - [`index`] — BM25F over tools and over callable entries (actions, or the tool itself when it
//!   runs without one), names weighted above prose; deterministic tie-break by tool then action;
//! - [`hit`] — [`SearchHit`] (tool, best action, score, matched words, coverage, summary, the
//!   call's own [`ActionSafety`]) and [`SearchFilter`] (profile, arbitrary-code exclusion);
//! - [`answer`] — the verdict on a ranking: found, no good match ("no action does that"), or a
//!   capability deliberately not offered (undo; arbitrary code without the permission).
//!
//! Queries are bounded ([`MAX_QUERY_CHARS`]) and every step is linear in the query's length
//! (typo matching skips words longer than any catalog term), so a pathological query costs what
//! a sentence costs.
//!
//! Recall on a fixed set of Unity requests is measured by `tests/search_quality.rs` and committed
//! in `metrics/search-quality.json`; latency by `examples/bench` (metrics/bench.json).

mod answer;
mod hit;
mod index;
mod synonyms;
mod text;
mod typo;

pub use answer::Verdict;
pub use hit::{ActionSafety, CompactSafety, SearchFilter, SearchHit};
pub use index::{MAX_QUERY_CHARS, SearchIndex};

#[cfg(test)]
mod tests;
