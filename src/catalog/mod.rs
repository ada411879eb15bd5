//! The tool catalog as plain data: verified snapshots, legacy adaptation, profiles, and the
//! on-disk cache of the last good catalog.
//!
//! The catalog types themselves (`Catalog`, `ToolEntry`, `Safety`, …) are the contract crate's;
//! this module decides *which* catalog we trust and keeps it. [`load`] is the one entry point
//! that talks to the Editor (through [`ConnectorClient`], never HTTP directly).
//!
//! # Layout
//! - `cache`: the on-disk cache of verified catalogs (private files, hash re-checked on read).
//! - `legacy`: a legacy Connector's listing adapted to catalog entries of unknown safety.
//! - `profiles`: which tools a profile serves.
//! - `suggest`: the one "did you mean" routine for names.
//! - `verify`: the checks a fetched catalog must pass (hash, structure, project, epoch).

mod cache;
pub mod legacy;
pub mod profiles;
pub mod suggest;
mod verify;

pub use cache::CatalogCache;
pub use hera_connector_contract::catalog::{Catalog, Safety, ToolEntry};

use crate::connector::{ConnectorClient, ConnectorError};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// What a cached catalog is valid for (§3.10): one project, one feature set, one domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheKey {
    pub project_id: String,
    /// Sorted and unique.
    pub features: Vec<String>,
    pub domain_epoch: String,
    pub catalog_hash: String,
}

impl CacheKey {
    pub fn normalize_features(features: &[String]) -> Vec<String> {
        let mut f = features.to_vec();
        f.sort();
        f.dedup();
        f
    }
}

/// A strict `hera.tool-catalog/1` catalog, or one adapted from a legacy Connector (every tool
/// legacy, confirmation-required, MCP compact exposure only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogKind {
    Strict,
    Legacy,
}

/// Where a snapshot came from.
#[derive(Debug, Clone, PartialEq)]
pub enum CatalogOrigin {
    /// Fetched from the Editor by this process and verified.
    Live,
    /// Read back (and re-verified) from the on-disk cache.
    Cache {
        path: PathBuf,
        stored_at: Option<SystemTime>,
    },
}

/// A verified catalog with the key it is valid for. Cheap to clone.
#[derive(Debug, Clone)]
pub struct CatalogSnapshot {
    pub catalog: Arc<Catalog>,
    pub key: CacheKey,
    pub kind: CatalogKind,
    pub origin: CatalogOrigin,
}

impl CatalogSnapshot {
    pub fn is_legacy(&self) -> bool {
        self.kind == CatalogKind::Legacy
    }
    /// A listing used because an Editor that publishes a strict catalog could not build it (one
    /// custom tool's contract is broken): not an old Connector, and it recovers on a reload.
    pub fn listing_in_place_of_strict(&self) -> bool {
        use hera_connector_contract::wire::{FEATURE_DOMAIN_EPOCH, FEATURE_TOOL_CATALOG};
        let has = |f: &str| self.key.features.iter().any(|x| x == f);
        self.is_legacy() && has(FEATURE_TOOL_CATALOG) && has(FEATURE_DOMAIN_EPOCH)
    }
    pub fn catalog_hash(&self) -> &str {
        &self.key.catalog_hash
    }
    pub fn domain_epoch(&self) -> &str {
        &self.key.domain_epoch
    }
}

/// Loads the catalog of the client's Editor: the cached one for this exact project, feature set
/// and epoch when present, otherwise [`refresh`].
pub async fn load(
    client: &ConnectorClient,
    cache: Option<&CatalogCache>,
) -> Result<CatalogSnapshot, ConnectorError> {
    let instance = client.instance();
    if instance.heartbeat.supports_strict_catalog() {
        let features = CacheKey::normalize_features(
            instance.heartbeat.features.as_deref().unwrap_or_default(),
        );
        let epoch = instance.domain_epoch().unwrap_or_default();
        if let Some(hit) = cache.and_then(|c| c.lookup(&instance.project_id(), &features, epoch)) {
            return Ok(hit);
        }
    }
    refresh(client, cache).await
}

/// Fetches and verifies the catalog from the Editor, ignoring any cached copy (strict, or the
/// legacy listing adapted), then stores it. Cache write failures are logged, never fatal.
pub async fn refresh(
    client: &ConnectorClient,
    cache: Option<&CatalogCache>,
) -> Result<CatalogSnapshot, ConnectorError> {
    let instance = client.instance();
    let project_id = instance.project_id();
    let strict = if instance.heartbeat.supports_strict_catalog() {
        match verify::fetch_verified(client).await {
            Ok(f) => Some(f),
            // One custom tool whose contract the Editor cannot build makes its strict catalog
            // fail for the whole domain; the per-tool listing still works. Use it (compact
            // exposure only, no catalog hash sent) until a reload builds the catalog again.
            Err(ConnectorError::Rejected { envelope })
                if envelope.code.as_deref() == Some("INTERNAL_ERROR") =>
            {
                tracing::warn!(
                    "the Unity Editor cannot build its tool catalog ({}); using its per-tool \
                     listing until the next domain reload (a custom tool's contract is broken)",
                    envelope.message.as_deref().unwrap_or("INTERNAL_ERROR")
                );
                None
            }
            Err(e) => return Err(e),
        }
    } else {
        None
    };
    // The canonical text (numbers as received) goes to the cache and is then dropped: the
    // snapshot keeps the parsed catalog only.
    let (snapshot, canonical_text) = if let Some(fetched) = strict {
        let snapshot = CatalogSnapshot {
            key: CacheKey {
                project_id: fetched.catalog.project_id.clone(),
                features: CacheKey::normalize_features(
                    fetched
                        .instance
                        .heartbeat
                        .features
                        .as_deref()
                        .unwrap_or_default(),
                ),
                domain_epoch: fetched.catalog.domain_epoch.clone(),
                catalog_hash: fetched.catalog.catalog_hash.clone(),
            },
            catalog: Arc::new(fetched.catalog),
            kind: CatalogKind::Strict,
            origin: CatalogOrigin::Live,
        };
        (snapshot, fetched.canonical_text)
    } else {
        let listing = client.fetch_legacy_listing().await?;
        let (catalog, text) =
            legacy::adapt(&listing.tools, &project_id, listing.instance.domain_epoch());
        let snapshot = CatalogSnapshot {
            key: CacheKey {
                project_id: project_id.clone(),
                features: CacheKey::normalize_features(
                    listing
                        .instance
                        .heartbeat
                        .features
                        .as_deref()
                        .unwrap_or_default(),
                ),
                domain_epoch: catalog.domain_epoch.clone(),
                catalog_hash: catalog.catalog_hash.clone(),
            },
            catalog: Arc::new(catalog),
            kind: CatalogKind::Legacy,
            origin: CatalogOrigin::Live,
        };
        (snapshot, text)
    };
    if let Some(c) = cache
        && let Err(e) = c.store(&snapshot.key, &canonical_text)
    {
        tracing::warn!(dir = %c.dir().display(), "could not cache the tool catalog: {e}");
    }
    Ok(snapshot)
}
