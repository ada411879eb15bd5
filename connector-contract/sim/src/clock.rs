//! The simulator's clock: wall time plus a test-controlled offset.
//!
//! Approval expiry (§5.4) and ledger ages (§6.7) are minutes to days long; tests cannot wait for
//! them, so both read this clock and tests move it forward with `Simulator::advance_clock`.
//! Heartbeat timestamps deliberately do **not** use it: a client compares them with its own wall
//! clock, and a heartbeat "from the future" would test nothing real.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch on the real wall clock.
pub fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Wall time shifted by an offset that only ever grows.
#[derive(Debug, Default)]
pub struct SimClock {
    offset_ms: AtomicI64,
}

impl SimClock {
    /// Unix milliseconds as the simulated Editor sees them.
    pub fn now_ms(&self) -> i64 {
        wall_ms() + self.offset_ms.load(Ordering::SeqCst)
    }

    /// Moves simulated time forward (never backwards: tokens and ledger ages only age).
    pub fn advance(&self, by: Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX / 4);
        self.offset_ms.fetch_add(ms, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn advances() {
        let c = SimClock::default();
        let before = c.now_ms();
        c.advance(Duration::from_secs(3600));
        assert!(c.now_ms() >= before + 3_600_000);
    }
}
