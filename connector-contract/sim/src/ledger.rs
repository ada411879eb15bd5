//! The operation ledger (§6): one JSON file per operation id, where the real Connector keeps it
//! (`<home>/.hera-agent-unity/status/operations/<project_id with ':'→'_'>/<op>.json`), written
//! through a temp file and a rename.
//!
//! It is what makes a retry safe: a second request with the same operation id replays the
//! stored response instead of running again. Every state and begin rule of §6.5–§6.7 is here;
//! approval verification sits between [`Ledger::begin`] and [`Ledger::start`] and is the
//! caller's (it needs the request and the domain's secret).
//!
//! Records are written as text with the stored response embedded byte for byte, because a
//! replay must return exactly what was stored (the workspace's `serde_json` would re-sort its
//! keys). Reading uses the contract crate's order-preserving parser for the same reason.

use crate::envelope::Envelope;
use crate::heartbeat::write_atomic;
use hera_connector_contract::canonical::{self, Json, sha256_prefixed};
use hera_connector_contract::wire::{LedgerRecord, LedgerState};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;
/// Cleanup runs at most this often (§6.7).
pub const CLEANUP_INTERVAL_MS: i64 = 5 * 60_000;
/// Per-project size cap (§6.7, §9.6).
pub const DEFAULT_CAP_BYTES: u64 = 64 * 1024 * 1024;

/// A record as stored: the contract's fields, with the response kept as its exact text.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub operation_id: String,
    pub tool: String,
    pub action: Option<String>,
    pub arguments_hash: String,
    pub risk_class: String,
    pub idempotent: bool,
    pub approval_verified: bool,
    pub state: LedgerState,
    pub started_at_ms: i64,
    pub committed_at_ms: Option<i64>,
    pub response: Option<String>,
    pub response_hash: Option<String>,
    pub domain_epoch: String,
}

/// The identity a retry must repeat exactly (§6.6 step 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationKey {
    pub operation_id: String,
    pub tool: String,
    pub action: Option<String>,
    pub arguments_hash: String,
    pub risk_class: String,
    pub idempotent: bool,
}

/// What [`Ledger::begin`] decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Begin {
    /// Run it. `approval_done`: the existing record is `received` with `approval_verified`, so
    /// the token is not checked (or consumed) again.
    Run { approval_done: bool },
    /// Answer with the stored response, verbatim.
    Replay(String),
    /// Answer with this error (conflict, in progress, outcome unknown, response missing).
    Refuse(Envelope),
}

pub struct Ledger {
    dir: PathBuf,
    cap_bytes: u64,
    /// Serializes file operations and remembers the last cleanup (simulated clock).
    last_cleanup_ms: Mutex<Option<i64>>,
}

fn state_name(s: LedgerState) -> &'static str {
    match s {
        LedgerState::Received => "received",
        LedgerState::Running => "running",
        LedgerState::Committed => "committed",
        LedgerState::Failed => "failed",
        LedgerState::Responded => "responded",
        LedgerState::OutcomeUnknown => "outcome_unknown",
    }
}

impl Entry {
    /// The record text, keys in the Connector's order, `response` embedded verbatim.
    pub fn to_text(&self) -> String {
        let s = |v: &str| serde_json::to_string(v).expect("strings serialize");
        let opt = |v: &Option<String>| match v {
            Some(v) => s(v),
            None => "null".into(),
        };
        format!(
            "{{\"schema_version\":1,\"operation_id\":{},\"tool\":{},\"action\":{},\"arguments_hash\":{},\"risk_class\":{},\"idempotent\":{},\"approval_verified\":{},\"state\":\"{}\",\"started_at_ms\":{},\"committed_at_ms\":{},\"response\":{},\"response_hash\":{},\"domain_epoch\":{}}}",
            s(&self.operation_id),
            s(&self.tool),
            opt(&self.action),
            s(&self.arguments_hash),
            s(&self.risk_class),
            self.idempotent,
            self.approval_verified,
            state_name(self.state),
            self.started_at_ms,
            self.committed_at_ms
                .map_or_else(|| "null".to_string(), |v| v.to_string()),
            self.response.clone().unwrap_or_else(|| "null".into()),
            opt(&self.response_hash),
            s(&self.domain_epoch),
        )
    }

    /// Reads a record file's text; `None` when it is not a ledger record.
    pub fn from_text(text: &str) -> Option<Entry> {
        let rec: LedgerRecord = serde_json::from_str(text).ok()?;
        let response = match canonical::parse(text).ok()? {
            Json::Object(members) => members
                .into_iter()
                .find(|(k, _)| k == "response")
                .map(|(_, v)| v)
                .filter(|v| *v != Json::Null)
                .map(|v| write_in_order(&v)),
            _ => return None,
        };
        Some(Entry {
            operation_id: rec.operation_id,
            tool: rec.tool,
            action: rec.action,
            arguments_hash: rec.arguments_hash,
            risk_class: rec.risk_class,
            idempotent: rec.idempotent,
            approval_verified: rec.approval_verified,
            state: rec.state,
            started_at_ms: rec.started_at_ms,
            committed_at_ms: rec.committed_at_ms,
            response,
            response_hash: rec.response_hash,
            domain_epoch: rec.domain_epoch,
        })
    }

    fn key(&self) -> OperationKey {
        OperationKey {
            operation_id: self.operation_id.clone(),
            tool: self.tool.clone(),
            action: self.action.clone(),
            arguments_hash: self.arguments_hash.clone(),
            risk_class: self.risk_class.clone(),
            idempotent: self.idempotent,
        }
    }

    /// Age reference for cleanup: commit time, else start time.
    fn age_from(&self) -> i64 {
        self.committed_at_ms.unwrap_or(self.started_at_ms)
    }
}

/// Compact text of a parsed tree, members in their stored order (numbers as written, strings
/// escaped as `serde_json` escaped them when the record was written, so the bytes round-trip).
fn write_in_order(v: &Json) -> String {
    fn go(v: &Json, out: &mut String) {
        match v {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(n),
            Json::String(s) => out.push_str(&serde_json::to_string(s).expect("strings serialize")),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    go(item, out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                out.push('{');
                for (i, (k, val)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).expect("strings serialize"));
                    out.push(':');
                    go(val, out);
                }
                out.push('}');
            }
        }
    }
    let mut out = String::new();
    go(v, &mut out);
    out
}

impl Ledger {
    pub fn new(dir: PathBuf, cap_bytes: u64) -> Ledger {
        Ledger {
            dir,
            cap_bytes,
            last_cleanup_ms: Mutex::new(None),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, op: &str) -> PathBuf {
        self.dir.join(format!("{op}.json"))
    }

    /// The stored record of `op`, if any.
    pub fn load(&self, op: &str) -> io::Result<Option<Entry>> {
        match std::fs::read_to_string(self.path_of(op)) {
            Ok(t) => Ok(Entry::from_text(&t)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn save(&self, e: &Entry) -> io::Result<()> {
        write_atomic(&self.dir, &self.path_of(&e.operation_id), &e.to_text())
    }

    /// §6.6: what to do with a request whose operation may already have a record. A record that
    /// exists but cannot be read is an error (the Connector's reader throws, which the router
    /// answers `INTERNAL_ERROR`), not a reason to run again.
    pub fn begin(&self, key: &OperationKey, epoch: &str) -> io::Result<Begin> {
        let _g = self.last_cleanup_ms.lock().expect("ledger lock");
        let text = match std::fs::read_to_string(self.path_of(&key.operation_id)) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let rec = match text {
            None => None,
            Some(t) => Some(Entry::from_text(&t).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "the ledger record of '{}' is not valid JSON",
                        key.operation_id
                    ),
                )
            })?),
        };
        let Some(mut rec) = rec else {
            return Ok(Begin::Run {
                approval_done: false,
            });
        };
        let id = &key.operation_id;
        if rec.key() != *key {
            return Ok(Begin::Refuse(Envelope::error(
                "OPERATION_CONFLICT",
                format!("Operation '{id}' was already used for a different request."),
            )));
        }
        match rec.state {
            LedgerState::Committed | LedgerState::Responded | LedgerState::Failed => {
                Ok(match rec.response {
                    Some(r) => Begin::Replay(r),
                    None => Begin::Refuse(Envelope::error(
                        "OPERATION_RESPONSE_MISSING",
                        format!(
                            "Operation '{id}' finished, but its stored response was removed to keep the ledger small; check the Editor state before running it again under a new operation id."
                        ),
                    )),
                })
            }
            LedgerState::Running if rec.domain_epoch != epoch => {
                rec.state = LedgerState::OutcomeUnknown;
                self.save(&rec)?;
                Ok(Begin::Refuse(outcome_unknown(id)))
            }
            LedgerState::Running => Ok(Begin::Refuse(Envelope::error(
                "OPERATION_IN_PROGRESS",
                format!(
                    "Operation '{id}' is still running; retry later with the same operation id."
                ),
            ))),
            LedgerState::OutcomeUnknown if !rec.idempotent => {
                Ok(Begin::Refuse(outcome_unknown(id)))
            }
            LedgerState::OutcomeUnknown => Ok(Begin::Run {
                approval_done: false,
            }),
            LedgerState::Received => Ok(Begin::Run {
                approval_done: rec.approval_verified,
            }),
        }
    }

    /// Writes `received`, then `running` (§6.6 step 6).
    pub fn start(
        &self,
        key: &OperationKey,
        approval_verified: bool,
        epoch: &str,
        now_ms: i64,
    ) -> io::Result<()> {
        let _g = self.last_cleanup_ms.lock().expect("ledger lock");
        // Running an existing record again (after `received`, or an idempotent retry after an
        // unknown outcome) keeps its first start time.
        let started_at_ms = self
            .load(&key.operation_id)
            .ok()
            .flatten()
            .map_or(now_ms, |r| r.started_at_ms);
        let mut e = Entry {
            operation_id: key.operation_id.clone(),
            tool: key.tool.clone(),
            action: key.action.clone(),
            arguments_hash: key.arguments_hash.clone(),
            risk_class: key.risk_class.clone(),
            idempotent: key.idempotent,
            approval_verified,
            state: LedgerState::Received,
            started_at_ms,
            committed_at_ms: None,
            response: None,
            response_hash: None,
            domain_epoch: epoch.to_string(),
        };
        self.save(&e)?;
        e.state = LedgerState::Running;
        self.save(&e)
    }

    /// Stores the response (before `total_ms` is added) as `committed` or `failed`.
    pub fn commit(&self, op: &str, response: &str, failed: bool, now_ms: i64) -> io::Result<()> {
        let _g = self.last_cleanup_ms.lock().expect("ledger lock");
        let Some(mut e) = self.load(op)? else {
            return Err(io::Error::other(format!("ledger record {op} vanished")));
        };
        e.state = if failed {
            LedgerState::Failed
        } else {
            LedgerState::Committed
        };
        e.committed_at_ms = Some(now_ms);
        e.response_hash = Some(sha256_prefixed(response.as_bytes()));
        e.response = Some(response.to_string());
        self.save(&e)
    }

    /// A committed record whose response was fully written becomes `responded`.
    pub fn mark_responded(&self, op: &str) -> io::Result<()> {
        let _g = self.last_cleanup_ms.lock().expect("ledger lock");
        if let Some(mut e) = self.load(op)?
            && e.state == LedgerState::Committed
        {
            e.state = LedgerState::Responded;
            self.save(&e)?;
        }
        Ok(())
    }

    /// Runs [`Ledger::cleanup`] if `force` (first request of a domain) or 5 minutes passed.
    pub fn maybe_cleanup(&self, epoch: &str, now_ms: i64, force: bool) -> io::Result<bool> {
        {
            let mut last = self.last_cleanup_ms.lock().expect("ledger lock");
            let due = force || last.is_none_or(|t| now_ms - t >= CLEANUP_INTERVAL_MS);
            if !due {
                return Ok(false);
            }
            *last = Some(now_ms);
        }
        self.cleanup(epoch, now_ms)?;
        Ok(true)
    }

    /// §6.7: age out `running` records, delete old records, then enforce the size cap.
    pub fn cleanup(&self, epoch: &str, now_ms: i64) -> io::Result<()> {
        let _g = self.last_cleanup_ms.lock().expect("ledger lock");
        let read = match std::fs::read_dir(&self.dir) {
            Ok(r) => r,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let mut kept: Vec<(Entry, u64)> = Vec::new();
        for item in read {
            let path = item?.path();
            if path.extension().and_then(|x| x.to_str()) != Some("json") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Some(mut e) = Entry::from_text(&text) else {
                continue;
            };
            if e.state == LedgerState::Running
                && (e.domain_epoch != epoch || now_ms - e.started_at_ms > HOUR_MS)
            {
                e.state = LedgerState::OutcomeUnknown;
                self.save(&e)?;
            }
            let live = e.state == LedgerState::Running;
            let limit = if e.state == LedgerState::OutcomeUnknown {
                7 * DAY_MS
            } else {
                DAY_MS
            };
            if !live && now_ms - e.age_from() > limit {
                remove(&path)?;
                continue;
            }
            let size = e.to_text().len() as u64;
            kept.push((e, size));
        }
        let mut total: u64 = kept.iter().map(|(_, s)| *s).sum();
        if total <= self.cap_bytes {
            return Ok(());
        }
        kept.sort_by_key(|(e, _)| (e.age_from(), e.operation_id.clone()));
        for (e, size) in kept.iter_mut() {
            if total <= self.cap_bytes {
                return Ok(());
            }
            if e.state.is_terminal() && e.response.is_some() {
                e.response = None;
                let new_size = e.to_text().len() as u64;
                self.save(e)?;
                total = total - *size + new_size;
                *size = new_size;
            }
        }
        for (e, size) in &kept {
            if total <= self.cap_bytes {
                break;
            }
            if e.state == LedgerState::Running && e.domain_epoch == epoch {
                continue;
            }
            remove(&self.path_of(&e.operation_id))?;
            total -= size;
        }
        Ok(())
    }
}

fn remove(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn outcome_unknown(id: &str) -> Envelope {
    Envelope::error(
        "OPERATION_OUTCOME_UNKNOWN",
        format!(
            "Operation '{id}' may have executed before the Unity domain changed; it was not re-run."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(op: &str) -> OperationKey {
        OperationKey {
            operation_id: op.into(),
            tool: "scene".into(),
            action: Some("save".into()),
            arguments_hash: "sha256:aa".into(),
            risk_class: "write".into(),
            idempotent: false,
        }
    }

    #[test]
    fn states_and_replay() {
        let d = tempfile::tempdir().unwrap();
        let l = Ledger::new(d.path().join("ops"), DEFAULT_CAP_BYTES);
        let k = key("op_aaaaaaaa");
        assert_eq!(
            l.begin(&k, "e1").unwrap(),
            Begin::Run {
                approval_done: false
            }
        );
        l.start(&k, true, "e1", 1000).unwrap();
        assert!(
            matches!(l.begin(&k, "e1").unwrap(), Begin::Refuse(e) if e.code.as_deref() == Some("OPERATION_IN_PROGRESS"))
        );
        let body = r#"{"success":true,"message":"done","data":{"z":1,"a":2},"timings":null}"#;
        l.commit("op_aaaaaaaa", body, false, 1500).unwrap();
        assert_eq!(l.begin(&k, "e2").unwrap(), Begin::Replay(body.into()));
        let mut other = k.clone();
        other.arguments_hash = "sha256:bb".into();
        assert!(
            matches!(l.begin(&other, "e1").unwrap(), Begin::Refuse(e) if e.code.as_deref() == Some("OPERATION_CONFLICT"))
        );
        l.mark_responded("op_aaaaaaaa").unwrap();
        let e = l.load("op_aaaaaaaa").unwrap().unwrap();
        assert_eq!(e.state, LedgerState::Responded);
        assert_eq!(e.response_hash.unwrap(), sha256_prefixed(body.as_bytes()));
        // The file is a valid contract record.
        let text = std::fs::read_to_string(l.dir().join("op_aaaaaaaa.json")).unwrap();
        let rec: LedgerRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(rec.schema_version, 1);
    }

    #[test]
    fn running_across_epochs_and_cleanup() {
        let d = tempfile::tempdir().unwrap();
        let l = Ledger::new(d.path().join("ops"), DEFAULT_CAP_BYTES);
        let k = key("op_bbbbbbbb");
        l.start(&k, false, "e1", 0).unwrap();
        assert!(
            matches!(l.begin(&k, "e2").unwrap(), Begin::Refuse(e) if e.code.as_deref() == Some("OPERATION_OUTCOME_UNKNOWN"))
        );
        assert_eq!(
            l.load("op_bbbbbbbb").unwrap().unwrap().state,
            LedgerState::OutcomeUnknown
        );
        let mut idem = key("op_cccccccc");
        idem.idempotent = true;
        l.start(&idem, false, "e1", 0).unwrap();
        l.cleanup("e2", 10).unwrap();
        assert_eq!(
            l.begin(&idem, "e2").unwrap(),
            Begin::Run {
                approval_done: false
            }
        );
        l.cleanup("e2", 8 * DAY_MS).unwrap();
        assert!(l.load("op_bbbbbbbb").unwrap().is_none());
    }

    #[test]
    fn size_cap_strips_then_deletes() {
        let d = tempfile::tempdir().unwrap();
        let l = Ledger::new(d.path().join("ops"), 1500);
        let big = format!(
            r#"{{"success":true,"message":"{}","timings":null}}"#,
            "x".repeat(300)
        );
        for (i, op) in ["op_11111111", "op_22222222", "op_33333333"]
            .iter()
            .enumerate()
        {
            let k = key(op);
            l.start(&k, false, "e1", i as i64).unwrap();
            l.commit(op, &big, false, 10 + i as i64).unwrap();
        }
        l.cleanup("e1", 100).unwrap();
        // ~700 bytes each: stripping the two oldest responses brings ~2100 under 1500.
        assert!(l.load("op_11111111").unwrap().unwrap().response.is_none());
        assert!(l.load("op_22222222").unwrap().unwrap().response.is_none());
        assert!(l.load("op_33333333").unwrap().unwrap().response.is_some());
        // A tighter cap then deletes the oldest files.
        let tight = Ledger::new(d.path().join("ops"), 500);
        tight.cleanup("e1", 100).unwrap();
        assert!(tight.load("op_11111111").unwrap().is_none());
        assert!(tight.load("op_33333333").unwrap().is_some());
    }
}
