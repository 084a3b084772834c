//! Output while a probe runs: the chunks the runner streams are folded here, off the frame
//! loop, into each run's size so far and a bounded tail ([`TAIL_MAX`] bytes, whole lines), and
//! reach the main loop at most once per [`EVERY`] per run, so a probe printing 50 MB costs the
//! navigator a few small messages a second, not one per chunk. Part of the runtime; plain
//! data and std only (no IO of its own). Must not import `cli` or `evidence`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How often a running probe's progress reaches the screen, at most.
pub const EVERY: Duration = Duration::from_millis(200);
/// How much of a running probe's latest output is kept for the screen.
pub const TAIL_MAX: usize = 8 * 1024;

/// What a running probe printed so far: the size and the last lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub id: String,
    pub bytes: u64,
    pub tail: String,
}

#[derive(Debug, Default)]
struct Live {
    bytes: u64,
    tail: Vec<u8>,
    changed: bool,
    sent: Option<Instant>,
}

/// The running probes' progress, keyed by request id.
#[derive(Debug, Default)]
pub struct Streams {
    live: HashMap<String, Live>,
}

impl Streams {
    /// Adds a chunk of run `id`'s output.
    pub fn fold(&mut self, id: &str, chunk: &[u8]) {
        let l = self.live.entry(id.to_string()).or_default();
        l.bytes += chunk.len() as u64;
        l.changed = true;
        let keep = &chunk[chunk.len().saturating_sub(TAIL_MAX)..];
        l.tail.extend_from_slice(keep);
        if l.tail.len() > TAIL_MAX {
            let over = l.tail.len() - TAIL_MAX;
            // Start at a line's start when one is in reach, so no line is shown cut.
            let from = l.tail[over..]
                .iter()
                .position(|&b| b == b'\n')
                .map(|i| over + i + 1)
                .filter(|&f| f < l.tail.len())
                .unwrap_or(over);
            l.tail.drain(..from);
        }
    }

    /// The runs with news not sent in the last [`EVERY`], marked as sent at `now`.
    pub fn due(&mut self, now: Instant) -> Vec<Progress> {
        let mut out = Vec::new();
        for (id, l) in self.live.iter_mut() {
            let ready = l
                .sent
                .is_none_or(|t| now.saturating_duration_since(t) >= EVERY);
            if l.changed && ready {
                l.changed = false;
                l.sent = Some(now);
                out.push(Progress {
                    id: id.clone(),
                    bytes: l.bytes,
                    tail: String::from_utf8_lossy(&l.tail).into_owned(),
                });
            }
        }
        out
    }

    /// Run `id` finished: its progress is forgotten; what it printed since the last news
    /// was sent is returned, so the screen shows the whole size while the output is stored.
    pub fn end(&mut self, id: &str) -> Option<Progress> {
        let l = self.live.remove(id)?;
        l.changed.then(|| Progress {
            id: id.to_string(),
            bytes: l.bytes,
            tail: String::from_utf8_lossy(&l.tail).into_owned(),
        })
    }

    /// How long until the next run with news may be sent (`None` when none has news).
    pub fn wait(&self, now: Instant) -> Option<Duration> {
        self.live
            .values()
            .filter(|l| l.changed)
            .map(|l| match l.sent {
                Some(t) => EVERY.saturating_sub(now.saturating_duration_since(t)),
                None => Duration::ZERO,
            })
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifty_megabytes_of_chunks_keep_a_bounded_tail_and_the_exact_size() {
        let mut s = Streams::default();
        let line = "y".repeat(99) + "\n";
        let chunk = line.repeat(80); // 8,000 bytes, as a pipe hands them over
        for _ in 0..6_250 {
            s.fold("a", chunk.as_bytes());
        }
        s.fold("a", b"the last line\n");
        let p = s.due(Instant::now());
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].bytes, 50_000_014);
        assert!(p[0].tail.len() <= TAIL_MAX, "{}", p[0].tail.len());
        assert!(p[0].tail.ends_with("the last line\n"));
        assert!(p[0]
            .tail
            .lines()
            .all(|l| l.len() == 99 || l == "the last line"));
    }

    #[test]
    fn news_is_sent_at_most_once_per_interval_and_forgotten_at_the_end() {
        let mut s = Streams::default();
        let t0 = Instant::now();
        s.fold("a", b"one\n");
        assert_eq!(s.due(t0).len(), 1);
        s.fold("a", b"two\n");
        assert!(s.due(t0 + EVERY / 2).is_empty(), "too soon");
        assert_eq!(s.wait(t0 + EVERY / 2), Some(EVERY - EVERY / 2));
        let p = s.due(t0 + EVERY);
        assert_eq!(p[0].tail, "one\ntwo\n");
        assert!(s.due(t0 + EVERY * 3).is_empty(), "nothing new");
        assert_eq!(s.wait(t0 + EVERY * 3), None);
        s.fold("a", b"three\n");
        let last = s.end("a").expect("the news not sent yet");
        assert_eq!((last.bytes, last.tail.as_str()), (14, "one\ntwo\nthree\n"));
        assert_eq!(s.end("a"), None, "forgotten");
        s.fold("a", b"again\n");
        assert_eq!(
            s.due(t0 + EVERY * 3)[0].bytes,
            6,
            "a new run starts from zero"
        );
    }

    #[test]
    fn a_line_longer_than_the_tail_is_kept_as_its_end() {
        let mut s = Streams::default();
        s.fold("a", "x".repeat(TAIL_MAX * 3).as_bytes());
        let p = s.due(Instant::now());
        assert_eq!(p[0].tail.len(), TAIL_MAX);
    }
}
