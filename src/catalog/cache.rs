//! The on-disk cache of verified catalogs (§3.10), so a fresh process in the same domain skips
//! the 268 KB fetch, and so the MCP server can still search and describe while the Editor is
//! down or reloading.
//!
//! Layout: `~/.hera-agent-unity/cache/catalog/<project-hex>/<catalog-hex>.json`, holding
//! `{"key":{"project_id","features","domain_epoch","catalog_hash"},"catalog":{…}}`. Directories
//! are 0700 and files 0600 (on Unix), files are replaced atomically and without waiting for
//! the disk (`platform::fs`; a read verifies the hash anyway), and at
//! most [`MAX_FILES_PER_PROJECT`] files are kept per project (newest by modification time).
//! The catalog is stored as canonical text with numbers as received, so its hash can be
//! recomputed on every read from the stored bytes as they stand
//! (`canonical::catalog_hash_of_canonical`, no tree rebuilt and re-written): a damaged or
//! edited file is ignored, never trusted. A file whose key is not the one looked for is not
//! read past its key.

use super::{CacheKey, CatalogKind, CatalogOrigin, CatalogSnapshot};
use crate::discovery::AgentHome;
use hera_connector_contract::canonical;
use hera_connector_contract::catalog::Catalog;
use hera_connector_contract::wire::LEGACY_CATALOG_SCHEMA;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

pub const MAX_FILES_PER_PROJECT: usize = 8;

/// The catalog cache directory of one user.
#[derive(Debug, Clone)]
pub struct CatalogCache {
    dir: PathBuf,
}

fn hex_of(prefixed: &str) -> Option<&str> {
    let hex = prefixed.strip_prefix("sha256:")?;
    (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit())).then_some(hex)
}

/// A cache file as stored: the key, and the catalog's canonical text exactly as written.
#[derive(Deserialize)]
struct CacheFile<'a> {
    key: CacheKey,
    #[serde(borrow)]
    catalog: &'a RawValue,
}

use crate::platform::fs::{create_private_dir as private_dir, write_private_atomic_unsynced};

impl CatalogCache {
    pub fn new(home: &AgentHome) -> CatalogCache {
        CatalogCache {
            dir: home.catalog_cache_dir(),
        }
    }
    #[cfg(test)]
    pub fn at(dir: PathBuf) -> CatalogCache {
        CatalogCache { dir }
    }
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    fn project_dir(&self, project_id: &str) -> Option<PathBuf> {
        hex_of(project_id).map(|h| self.dir.join(h))
    }

    /// Stores a verified catalog, given as its canonical text (numbers as received) with the
    /// key it is valid for, and prunes the project's folder to the newest 8 files.
    pub fn store(&self, key: &CacheKey, canonical_text: &str) -> std::io::Result<PathBuf> {
        let invalid =
            |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, m.to_string());
        let pdir = self
            .project_dir(&key.project_id)
            .ok_or_else(|| invalid("project id is not sha256:<64 hex>"))?;
        let chex = hex_of(&key.catalog_hash)
            .ok_or_else(|| invalid("catalog hash is not sha256:<64 hex>"))?;
        private_dir(&self.dir)?;
        private_dir(&pdir)?;
        let key = serde_json::to_string(key).expect("a key always serializes");
        let text = format!("{{\"key\":{key},\"catalog\":{canonical_text}}}");
        let path = pdir.join(format!("{chex}.json"));
        // Not synced to disk: every read re-verifies the hash, so a file a crash left torn is
        // ignored, and the first answer does not wait for the disk.
        write_private_atomic_unsynced(&path, text.as_bytes())?;
        self.prune(&pdir);
        Ok(path)
    }

    fn files(pdir: &Path) -> Vec<(SystemTime, PathBuf)> {
        let Ok(rd) = std::fs::read_dir(pdir) else {
            return Vec::new();
        };
        let mut v: Vec<(SystemTime, PathBuf)> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "json")
                    && !p
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with('.'))
            })
            .filter_map(|p| {
                let m = std::fs::metadata(&p).and_then(|m| m.modified()).ok()?;
                Some((m, p))
            })
            .collect();
        v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        v
    }

    fn prune(&self, pdir: &Path) {
        for (_, p) in Self::files(pdir).into_iter().skip(MAX_FILES_PER_PROJECT) {
            let _ = std::fs::remove_file(p);
        }
    }

    /// Reads and re-verifies one cache file. `None` when it is damaged, edited or foreign.
    #[cfg(test)]
    pub fn read(&self, path: &Path) -> Option<CatalogSnapshot> {
        self.read_if(path, |_| true)
    }

    /// [`CatalogCache::read`], when the file's key satisfies `wanted`; the catalog of a file
    /// with another key is neither parsed nor hashed.
    fn read_if(&self, path: &Path, wanted: impl Fn(&CacheKey) -> bool) -> Option<CatalogSnapshot> {
        let text = std::fs::read_to_string(path).ok()?;
        let file: CacheFile = serde_json::from_str(&text).ok()?;
        if !wanted(&file.key) {
            return None;
        }
        let catalog_text = file.catalog.get();
        // Hashed as stored: a file that is not the canonical text it was written as fails here.
        let hash = canonical::catalog_hash_of_canonical(catalog_text).ok()?;
        let catalog: Catalog = serde_json::from_str(catalog_text).ok()?;
        let key = file.key;
        if hash != key.catalog_hash || hash != catalog.catalog_hash {
            tracing::warn!(path = %path.display(), "ignoring a catalog cache file whose hash does not verify");
            return None;
        }
        if catalog.project_id != key.project_id || catalog.domain_epoch != key.domain_epoch {
            return None;
        }
        let kind = if catalog.schema_version == LEGACY_CATALOG_SCHEMA {
            CatalogKind::Legacy
        } else {
            CatalogKind::Strict
        };
        let mut catalog = catalog;
        catalog.quarantine();
        let problems: Vec<String> = catalog
            .check_structure()
            .into_iter()
            .filter(|p| !(kind == CatalogKind::Legacy && p.starts_with("schema_version")))
            .collect();
        if !problems.is_empty() {
            return None;
        }
        let stored_at = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        Some(CatalogSnapshot {
            catalog: Arc::new(catalog),
            key,
            kind,
            origin: CatalogOrigin::Cache {
                path: path.to_path_buf(),
                stored_at,
            },
        })
    }

    /// The cached catalog for exactly this project, feature set and domain epoch.
    pub fn lookup(
        &self,
        project_id: &str,
        features: &[String],
        domain_epoch: &str,
    ) -> Option<CatalogSnapshot> {
        let features = CacheKey::normalize_features(features);
        let pdir = self.project_dir(project_id)?;
        Self::files(&pdir).into_iter().find_map(|(_, p)| {
            self.read_if(&p, |k| {
                k.project_id == project_id
                    && k.features == features
                    && k.domain_epoch == domain_epoch
            })
        })
    }

    /// The newest verifiable catalog of a project, whatever its epoch: what to serve for search
    /// and describe while the Editor is down. Check `key.domain_epoch` before calling with it.
    pub fn latest_for_project(&self, project_id: &str) -> Option<CatalogSnapshot> {
        let pdir = self.project_dir(project_id)?;
        Self::files(&pdir)
            .into_iter()
            .find_map(|(_, p)| self.read_if(&p, |k| k.project_id == project_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::legacy;
    use serde_json::json;

    fn snapshot(epoch: &str, tool: &str) -> (CatalogSnapshot, String) {
        let pid = hera_connector_contract::identity::project_id("/p/Game");
        let listing = vec![
            json!({"name": tool, "schema": {"type":"object","properties":{"n":{"type":"number","minimum":1.10}}}, "output_schema": {}}),
        ];
        let (mut catalog, _) = legacy::adapt(&listing, &pid, Some(epoch));
        // Pretend it is strict so the normal checks apply.
        catalog.schema_version = "hera.tool-catalog/1".into();
        catalog.tools[0].contract_mode = "strict".into();
        let v = serde_json::to_value(&catalog).unwrap();
        catalog.catalog_hash = canonical::catalog_hash_of_value(&v);
        let text = canonical::canonical_text_of_value(&serde_json::to_value(&catalog).unwrap());
        let snap = CatalogSnapshot {
            key: CacheKey {
                project_id: pid,
                features: vec!["tool_catalog_v1".into()],
                domain_epoch: epoch.into(),
                catalog_hash: catalog.catalog_hash.clone(),
            },
            catalog: Arc::new(catalog),
            kind: CatalogKind::Strict,
            origin: CatalogOrigin::Live,
        };
        (snap, text)
    }

    #[test]
    fn store_lookup_latest_tamper_prune() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = CatalogCache::at(tmp.path().join("cache/catalog"));
        let (a, a_text) = snapshot("e1", "alpha");
        let path = cache.store(&a.key, &a_text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(path.parent().unwrap()), 0o700);
            assert_eq!(mode(cache.dir()), 0o700);
        }
        let pid = a.key.project_id.clone();
        let feats = vec!["tool_catalog_v1".to_string()];
        let hit = cache.lookup(&pid, &feats, "e1").unwrap();
        assert_eq!(hit.catalog, a.catalog);
        assert!(cache.lookup(&pid, &feats, "e2").is_none());
        assert!(cache.lookup(&pid, &[], "e1").is_none());
        // A later store under another epoch is the latest one, whatever the epoch.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let (b, b_text) = snapshot("e2", "beta");
        cache.store(&b.key, &b_text).unwrap();
        assert_eq!(
            cache.latest_for_project(&pid).unwrap().key.domain_epoch,
            "e2"
        );
        // Tampering is detected and the file ignored.
        let bpath = cache
            .project_dir(&pid)
            .unwrap()
            .join(format!("{}.json", hex_of(&b.key.catalog_hash).unwrap()));
        let text = std::fs::read_to_string(&bpath)
            .unwrap()
            .replace("beta", "gamma");
        std::fs::write(&bpath, text).unwrap();
        assert!(cache.read(&bpath).is_none());
        assert_eq!(
            cache.latest_for_project(&pid).unwrap().key.domain_epoch,
            "e1"
        );
        // At most 8 files per project.
        for i in 0..12 {
            let (s, text) = snapshot(&format!("x{i}"), &format!("t{i:02}"));
            cache.store(&s.key, &text).unwrap();
        }
        assert_eq!(
            CatalogCache::files(&cache.project_dir(&pid).unwrap()).len(),
            MAX_FILES_PER_PROJECT
        );
        let leftovers = std::fs::read_dir(cache.project_dir(&pid).unwrap())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .to_string_lossy()
                    .ends_with(".tmp")
            })
            .count();
        assert_eq!(leftovers, 0);
    }
}
