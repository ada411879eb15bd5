//! Is the Editor behind a heartbeat still running? (`connector-contract/README.md`, liveness)
//!
//! A heartbeat outlives a crashed Editor (and on Windows the Connector's `stopped` write is not
//! guaranteed at quit), so the pid is the main signal: [`pid_alive`] asks the OS on Unix and on
//! Windows. Where the OS cannot answer (no pid in the heartbeat, or a platform without a check),
//! a heartbeat that has not moved for [`PRESUMED_GONE_AFTER_MS`] is presumed to belong to an
//! Editor that is gone, so it is not chosen as a target; it is never deleted on a presumption.

use hera_connector_contract::wire::Heartbeat;

pub use crate::platform::process::pid_alive;

/// How long an unverifiable heartbeat may stand still before its Editor is presumed gone. A
/// live Editor writes every second; even a long import or a modal dialog that stalls the main
/// thread this long would also time out the Connector's own command lock (120 s), so such an
/// Editor could not serve a request anyway.
pub const PRESUMED_GONE_AFTER_MS: i64 = 120_000;

/// What is known about the Editor process behind one heartbeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditorLiveness {
    /// The OS says the process exists.
    Running,
    /// The OS says the process is gone: the heartbeat may be deleted.
    Gone,
    /// The OS cannot tell, and the heartbeat is older than [`PRESUMED_GONE_AFTER_MS`]: do not
    /// choose it, but keep the file.
    PresumedGone { age_ms: i64 },
    /// The OS cannot tell and the heartbeat is recent: treat it as running.
    Unverified,
}

impl EditorLiveness {
    #[cfg(test)]
    /// Whether discovery may choose this Editor.
    pub fn may_be_running(self) -> bool {
        matches!(self, EditorLiveness::Running | EditorLiveness::Unverified)
    }
}

/// Judges one heartbeat: the pid check when the OS gives one, else the heartbeat's age.
pub fn judge(heartbeat: &Heartbeat, now_ms: i64) -> EditorLiveness {
    judge_with(
        heartbeat.pid.and_then(pid_alive),
        heartbeat.timestamp,
        now_ms,
    )
}

/// [`judge`] with the pid answer given, so that every branch is testable on any platform.
pub fn judge_with(
    pid_alive: Option<bool>,
    timestamp_ms: Option<i64>,
    now_ms: i64,
) -> EditorLiveness {
    match pid_alive {
        Some(true) => EditorLiveness::Running,
        Some(false) => EditorLiveness::Gone,
        None => {
            let age_ms = now_ms.saturating_sub(timestamp_ms.unwrap_or(0));
            if age_ms > PRESUMED_GONE_AFTER_MS {
                EditorLiveness::PresumedGone { age_ms }
            } else {
                EditorLiveness::Unverified
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pid_answer_wins_and_age_decides_only_without_one() {
        let now = 1_000_000_000;
        assert_eq!(
            judge_with(Some(true), Some(1), now),
            EditorLiveness::Running
        );
        assert_eq!(
            judge_with(Some(false), Some(now), now),
            EditorLiveness::Gone
        );
        assert_eq!(
            judge_with(None, Some(now - 5_000), now),
            EditorLiveness::Unverified
        );
        assert_eq!(
            judge_with(None, Some(now - PRESUMED_GONE_AFTER_MS), now),
            EditorLiveness::Unverified,
            "exactly at the limit is still running"
        );
        assert_eq!(
            judge_with(None, Some(now - PRESUMED_GONE_AFTER_MS - 1), now),
            EditorLiveness::PresumedGone {
                age_ms: PRESUMED_GONE_AFTER_MS + 1
            }
        );
        // No timestamp at all: as old as can be.
        assert!(!judge_with(None, None, now).may_be_running());
        assert!(judge_with(None, Some(now), now).may_be_running());
    }

    #[cfg(unix)]
    #[test]
    fn judging_a_real_heartbeat_asks_the_os_first() {
        let hb = |pid: Option<i64>, ts: i64| Heartbeat {
            pid,
            timestamp: Some(ts),
            ..serde_json::from_str::<Heartbeat>(r#"{"port":8090}"#).unwrap()
        };
        let now = crate::discovery::now_ms();
        // A minutes-old heartbeat of a live process is still a target (no age rule then).
        let me = hb(
            Some(std::process::id() as i64),
            now - 10 * PRESUMED_GONE_AFTER_MS,
        );
        assert_eq!(judge(&me, now), EditorLiveness::Running);
        // No pid: the age decides.
        assert_eq!(
            judge(&hb(None, now - 1_000), now),
            EditorLiveness::Unverified
        );
        assert!(matches!(
            judge(&hb(Some(0), now - 2 * PRESUMED_GONE_AFTER_MS), now),
            EditorLiveness::PresumedGone { .. }
        ));
    }
}
