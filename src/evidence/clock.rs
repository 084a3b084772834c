//! The injectable clock that stamps records, so scripted sessions (tests, golden exports) get
//! fixed timestamps. Must not import `cli`, `tui` or `query`.

use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};

/// A source of "now".
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> DateTime<Utc>;
}

/// The wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A scripted clock: starts at `start` and moves `step_secs` forward on every reading.
#[derive(Debug)]
pub struct StepClock {
    next: AtomicI64,
    step: i64,
}

impl StepClock {
    /// `start` as Unix seconds.
    pub fn new(start: i64, step_secs: i64) -> StepClock {
        StepClock {
            next: AtomicI64::new(start),
            step: step_secs,
        }
    }
}

impl Clock for StepClock {
    fn now(&self) -> DateTime<Utc> {
        let t = self.next.fetch_add(self.step, Ordering::SeqCst);
        Utc.timestamp_opt(t, 0).single().unwrap_or_default()
    }
}

/// RFC 3339 with seconds (or micro-seconds when present) and `Z`.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    if t.timestamp_subsec_nanos() == 0 {
        t.to_rfc3339_opts(SecondsFormat::Secs, true)
    } else {
        t.to_rfc3339_opts(SecondsFormat::Micros, true)
    }
}
