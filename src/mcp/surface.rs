//! The tool list this server publishes, how it is paged, and how clients learn it changed.
//!
//! Compact exposure publishes three fixed tools. Native exposure (profile, full) publishes the
//! profile's tools from the catalog the server answers from, so the list has a lifecycle:
//! - **No Editor and no cached catalog**: `tools/list` answers at once with an empty list. The
//!   heartbeat watch loads the catalog as soon as an Editor appears, and the list then grows
//!   with a `notifications/tools/list_changed`. (The instructions say so.)
//! - **A cached catalog**: the list comes from it at once, before any Editor is reached.
//! - **Catalog changes** (a new domain epoch with another catalog hash, or a `CATALOG_STALE`
//!   refetch): every publish of a view is compared with the list the client last received;
//!   when it differs, the client is told: legacy sessions by an unsolicited
//!   `notifications/tools/list_changed`, 2026-07-28 sessions on their `subscriptions/listen`
//!   stream. The stream's change receiver is taken *before* the SDK sends the subscription
//!   acknowledgement (rmcp reads a subscription's filter before it acknowledges it), so no change between ack and `listen` is lost.
//! - **A catalog the profile cannot be served from** (a legacy Connector; a profile with tools
//!   that change the project on an Editor without `operation_ledger_v1`): `tools/list` answers
//!   a JSON-RPC error whose message says why and what to do, every native call gets the same
//!   refusal as a tool error, and the reason is logged on stderr. It clears by itself when the
//!   Editor's catalog changes (then list_changed).
//!
//! Paging: `nextCursor` splits the list into pages of a fixed size (`HERA_MCP_PAGE_SIZE`,
//! default [`DEFAULT_PAGE_SIZE`]); a cursor names its offset and the list it belongs to, so the
//! same cursor always yields the same page, and a cursor of a list that has since changed is
//! refused (-32602) instead of silently skipping or repeating tools.

use super::exposure::Exposure;
use super::native::{self, Refusal};
use super::tools::compact_tools;
use crate::session::{CatalogView, Session};
use hera_connector_contract::canonical::sha256_prefixed;
use rmcp::ErrorData;
use rmcp::Peer;
use rmcp::model::{ListToolsResult, SubscriptionFilter, Tool};
use rmcp::service::{RoleServer, SubscriptionContext};
use serde_json::json;
use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Tools per `tools/list` page unless `HERA_MCP_PAGE_SIZE` says otherwise. Larger than the
/// built-in `full` profile (32), so common lists are one page.
pub const DEFAULT_PAGE_SIZE: usize = 100;
pub const MAX_PAGE_SIZE: usize = 1000;

/// Listen requests whose change receiver waits for `listen` to start (normally one, briefly).
const MAX_WAITING_LISTENERS: usize = 64;

/// One published tool list.
#[derive(Debug)]
pub struct Listed {
    pub tools: Vec<Tool>,
    pub refusal: Option<Refusal>,
    /// Identifies the list's content; part of every cursor.
    pub fingerprint: String,
}

impl Listed {
    fn new(tools: Vec<Tool>, refusal: Option<Refusal>) -> Listed {
        let mut material = serde_json::to_vec(&tools).expect("tool definitions serialize");
        if let Some(r) = &refusal {
            material.extend_from_slice(r.code.as_bytes());
            material.extend_from_slice(r.message.as_bytes());
        }
        Listed {
            tools,
            refusal,
            fingerprint: sha256_prefixed(&material),
        }
    }

    fn cursor_tag(&self) -> &str {
        let hex = self
            .fingerprint
            .strip_prefix("sha256:")
            .unwrap_or(&self.fingerprint);
        &hex[..16.min(hex.len())]
    }
}

pub struct ToolSurface {
    exposure: Exposure,
    allow_arbitrary_code: bool,
    page_size: usize,
    compact: Arc<Listed>,
    /// The native list of the last catalog seen, keyed by what it depends on.
    memo: Mutex<Option<(String, Arc<Listed>)>>,
    /// The list of the newest catalog seen.
    current: Mutex<Option<Arc<Listed>>>,
    /// The fingerprint of the list the client last received from `tools/list`: a change is
    /// announced only when the client holds a list that differs from the current one.
    given: Mutex<Option<String>>,
    /// Every native name published in this process: calling one that has gone is a tool
    /// error (TOOL_NOT_FOUND), not a protocol error.
    published: Mutex<BTreeSet<String>>,
    /// The peer of a legacy (initialize) session, for unsolicited list_changed.
    legacy_peer: Mutex<Option<Peer<RoleServer>>>,
    changes: broadcast::Sender<()>,
    waiting_listeners: Mutex<VecDeque<broadcast::Receiver<()>>>,
}

impl ToolSurface {
    pub fn new(exposure: Exposure, allow_arbitrary_code: bool, page_size: usize) -> Arc<Self> {
        Arc::new(ToolSurface {
            exposure,
            allow_arbitrary_code,
            page_size: page_size.clamp(1, MAX_PAGE_SIZE),
            compact: Arc::new(Listed::new(compact_tools(), None)),
            memo: Mutex::new(None),
            current: Mutex::new(None),
            given: Mutex::new(None),
            published: Mutex::new(BTreeSet::new()),
            legacy_peer: Mutex::new(None),
            changes: broadcast::channel(16).0,
            waiting_listeners: Mutex::new(VecDeque::new()),
        })
    }

    pub fn exposure(&self) -> &Exposure {
        &self.exposure
    }

    /// The list for a view (or for no catalog at all). Pure in the view; memoized per catalog.
    pub fn list_for(&self, view: Option<&CatalogView>) -> Arc<Listed> {
        let Exposure::Native { profile } = &self.exposure else {
            return self.compact.clone();
        };
        let Some(view) = view else {
            return Arc::new(Listed::new(Vec::new(), None));
        };
        let snapshot = &view.snapshot;
        let key = format!(
            "{}|{:?}|{}",
            snapshot.catalog_hash(),
            snapshot.kind,
            snapshot.key.features.join(",")
        );
        let mut memo = self.memo.lock().expect("memo lock");
        if let Some((k, l)) = memo.as_ref()
            && *k == key
        {
            return l.clone();
        }
        let refusal = native::refusal(snapshot, profile, self.allow_arbitrary_code);
        let tools = if refusal.is_some() {
            Vec::new()
        } else {
            native::visible_tools(view.catalog(), profile, self.allow_arbitrary_code)
                .into_iter()
                .map(native::definition)
                .collect()
        };
        let listed = Arc::new(Listed::new(tools, refusal));
        *memo = Some((key, listed.clone()));
        listed
    }

    /// Makes `list` the current one; `true` when it differs from the previous one. Logs
    /// refusals and list changes when they start.
    pub fn adopt(&self, list: &Arc<Listed>) -> bool {
        let mut current = self.current.lock().expect("current lock");
        if current
            .as_ref()
            .is_some_and(|c| c.fingerprint == list.fingerprint)
        {
            return false;
        }
        if let Some(r) = &list.refusal {
            tracing::error!("{}", r.message);
        } else if let Exposure::Native { profile } = &self.exposure {
            tracing::info!(
                profile,
                tools = list.tools.len(),
                "native tool list changed"
            );
        }
        self.published
            .lock()
            .expect("published lock")
            .extend(list.tools.iter().map(|t| t.name.to_string()));
        *current = Some(list.clone());
        true
    }

    /// Records that the client received `list` (from `tools/list`).
    pub fn give(&self, list: &Listed) {
        *self.given.lock().expect("given lock") = Some(list.fingerprint.clone());
    }

    /// Whether the client holds a list other than `list` (and so must be told it changed).
    fn client_is_behind(&self, list: &Listed) -> bool {
        self.given
            .lock()
            .expect("given lock")
            .as_ref()
            .is_some_and(|g| *g != list.fingerprint)
    }

    /// Whether `name` was ever published by this process.
    pub fn was_published(&self, name: &str) -> bool {
        self.published
            .lock()
            .expect("published lock")
            .contains(name)
    }

    /// One page of `list`. `cursor` must be one this list handed out.
    pub fn page(&self, list: &Listed, cursor: Option<&str>) -> Result<ListToolsResult, ErrorData> {
        let start = match cursor {
            None => 0,
            Some(c) => c
                .split_once('@')
                .filter(|(_, tag)| *tag == list.cursor_tag())
                .and_then(|(offset, _)| offset.parse::<usize>().ok())
                .filter(|o| *o < list.tools.len())
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        "this cursor does not belong to the current tool list (the list changed \
                         since, see notifications/tools/list_changed, or it is not one of ours); \
                         call tools/list again without a cursor",
                        Some(json!({"cursor": c})),
                    )
                })?,
        };
        let end = (start + self.page_size).min(list.tools.len());
        let mut result = ListToolsResult::with_all_items(list.tools[start..end].to_vec());
        if end < list.tools.len() {
            result.next_cursor = Some(format!("{end}@{}", list.cursor_tag()));
        }
        Ok(result)
    }

    pub fn set_legacy_peer(&self, peer: Peer<RoleServer>) {
        *self.legacy_peer.lock().expect("peer lock") = Some(peer);
    }

    /// Tells every client that the list changed.
    pub async fn announce(&self) {
        let _ = self.changes.send(());
        let peer = self.legacy_peer.lock().expect("peer lock").clone();
        if let Some(peer) = peer
            && let Err(e) = peer.notify_tool_list_changed().await
        {
            tracing::debug!("could not send tools/list_changed: {e}");
        }
    }

    /// Follows every publish of the session's catalog view for the life of the server (the
    /// loop ends when the session is dropped) and announces list changes.
    pub fn follow(self: Arc<Self>, session: Arc<Session>) -> tokio::task::JoinHandle<()> {
        let mut views = session.subscribe_views();
        drop(session);
        tokio::spawn(async move {
            while views.changed().await.is_ok() {
                let view = views.borrow_and_update().clone();
                let list = self.list_for(view.as_deref());
                if self.adopt(&list) && self.client_is_behind(&list) {
                    self.announce().await;
                }
            }
        })
    }

    /// The filter a 2026-07-28 `subscriptions/listen` gets, and the change receiver its
    /// `listen` will use, taken now, before the acknowledgement goes out. Compact exposure's
    /// list never changes: no subscription.
    pub fn accept_listener(&self) -> Option<SubscriptionFilter> {
        if !self.exposure.is_native() {
            return None;
        }
        let rx = self.changes.subscribe();
        let mut waiting = self.waiting_listeners.lock().expect("listeners lock");
        if waiting.len() >= MAX_WAITING_LISTENERS {
            waiting.pop_front();
        }
        waiting.push_back(rx);
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    /// Runs one `subscriptions/listen` stream until the client cancels it.
    pub async fn listen(&self, ctx: SubscriptionContext) -> Result<(), ErrorData> {
        let taken = self
            .waiting_listeners
            .lock()
            .expect("listeners lock")
            .pop_front();
        let mut rx = taken.unwrap_or_else(|| self.changes.subscribe());
        if ctx.accepted().tools_list_changed != Some(true) {
            ctx.cancelled().await;
            return Ok(());
        }
        loop {
            tokio::select! {
                _ = ctx.cancelled() => return Ok(()),
                change = rx.recv() => match change {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        if let Err(e) = ctx.sink().notify_tool_list_changed().await {
                            tracing::debug!("subscription closed: {e}");
                            return Ok(());
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surface(page: usize) -> Arc<ToolSurface> {
        ToolSurface::new(Exposure::Compact, false, page)
    }

    #[test]
    fn pages_are_deterministic_and_cursors_bound_to_their_list() {
        let s = surface(2);
        let list = s.list_for(None);
        let first = s.page(&list, None).unwrap();
        assert_eq!(first.tools.len(), 2);
        let cursor = first.next_cursor.clone().unwrap();
        let second = s.page(&list, Some(&cursor)).unwrap();
        assert_eq!(second.tools.len(), 1);
        assert!(second.next_cursor.is_none());
        assert_eq!(s.page(&list, Some(&cursor)).unwrap().tools, second.tools);
        let other = Listed::new(Vec::new(), None);
        assert!(s.page(&other, Some(&cursor)).is_err());
        for bad in ["", "x", "9@zz", "99@", &format!("7@{}", list.cursor_tag())] {
            assert!(s.page(&list, Some(bad)).is_err(), "{bad}");
        }
        assert!(
            surface(100)
                .page(&list, None)
                .unwrap()
                .next_cursor
                .is_none()
        );
    }

    #[test]
    fn adoption_reports_changes_once() {
        let s = surface(10);
        let a = Arc::new(Listed::new(compact_tools(), None));
        assert!(s.adopt(&a));
        assert!(!s.adopt(&Arc::new(Listed::new(compact_tools(), None))));
        assert!(s.was_published("tool_call"));
        let empty = Arc::new(Listed::new(Vec::new(), None));
        assert!(s.adopt(&empty));
        assert!(s.was_published("tool_call"));
        // Only a client holding another list is behind.
        assert!(!s.client_is_behind(&a));
        s.give(&a);
        assert!(!s.client_is_behind(&a));
        assert!(s.client_is_behind(&empty));
    }
}
