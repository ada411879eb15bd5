//! The catalog the server answers from right now, with where it came from and its compiled
//! validators.
//!
//! A view is immutable once published: a refresh builds a new view and swaps the `Arc`, so a call
//! in flight keeps the catalog (and catalog hash) it started with.

use super::validate::ValidatorCache;
use crate::catalog::CatalogSnapshot;
use crate::search::SearchIndex;
use hera_connector_contract::catalog::Catalog;
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Verified for the Editor's current domain (fetched, or the exact cache entry).
    Live,
    /// The last good catalog from the on-disk cache; the Editor has not confirmed it.
    Cached,
}

pub struct CatalogView {
    pub snapshot: CatalogSnapshot,
    pub origin: Origin,
    pub validators: ValidatorCache,
    /// Built on the first search of this catalog.
    index: OnceLock<SearchIndex>,
}

impl CatalogView {
    pub fn new(snapshot: CatalogSnapshot, origin: Origin) -> Self {
        CatalogView {
            snapshot,
            origin,
            validators: ValidatorCache::default(),
            index: OnceLock::new(),
        }
    }

    pub fn search_index(&self) -> &SearchIndex {
        self.index
            .get_or_init(|| SearchIndex::build(&self.snapshot.catalog.tools))
    }

    pub fn catalog(&self) -> &Catalog {
        &self.snapshot.catalog
    }
}
