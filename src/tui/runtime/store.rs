//! A finished run's output, off the frame loop: the redaction and the blob write of a large
//! output run on a thread of their own (`spawn`), streamed from the output's spill file, and
//! the main loop only appends the run's small record when they are done (`Msg::Stored`). What
//! the screen holds of an output is bounded (`shown`): its first part, its last part and its
//! size; the whole stays in the evidence blob. Part of the runtime, the IO edge (std::fs,
//! std::thread); must not import `cli`.

use std::io::{Read, Seek, SeekFrom};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};

use super::Msg;
use crate::evidence::{EvidenceError, OutputStore, StoredOutput};
use crate::query::{Output, ProbeResult};
use crate::tsg::ProbeRef;

/// How much of an output's start the screen keeps.
pub const SHOWN_HEAD: usize = 256 * 1024;
/// How much of an output's end the screen keeps, when the middle is left out.
pub const SHOWN_TAIL: usize = 64 * 1024;

/// Redacts and stores `out`: from its spill file when it spilled (streamed, never whole in
/// memory), else from memory.
pub fn store(store: &OutputStore, out: &Output) -> Result<StoredOutput, EvidenceError> {
    match out.spill_path().map(std::fs::File::open) {
        Some(Ok(f)) => store.store_read(std::io::BufReader::with_capacity(1 << 16, f)),
        // The spill file could not be read back: the part held in memory is what is left.
        _ => store.store(out.head()),
    }
}

/// Stores `result`'s output on a thread of its own, then sends [`Msg::Stored`] on `tx`.
/// When no thread can be started it is stored here, so the run is recorded all the same.
pub fn spawn(store: OutputStore, probe: ProbeRef, result: Box<ProbeResult>, tx: Sender<Msg>) {
    type Job = (OutputStore, ProbeRef, Box<ProbeResult>, Sender<Msg>);
    let job: Arc<Mutex<Option<Job>>> = Arc::new(Mutex::new(Some((store, probe, result, tx))));
    let run = |job: &Mutex<Option<Job>>| {
        let taken = job.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some((store, probe, result, tx)) = taken {
            let stored = self::store(&store, &result.output);
            let _ = tx.send(Msg::Stored {
                probe,
                result,
                stored,
            });
        }
    };
    let theirs = job.clone();
    let spawned = std::thread::Builder::new()
        .name("tsgnav-store".into())
        .spawn(move || run(&theirs));
    if spawned.is_err() {
        run(&job);
    }
}

/// What the screen keeps of `out`: all of it when it is at most [`SHOWN_HEAD`] +
/// [`SHOWN_TAIL`] bytes, else its first [`SHOWN_HEAD`] bytes, a line naming the size and
/// where the whole is (`blob`, once stored), and its last [`SHOWN_TAIL`] bytes, each cut at
/// a line's edge. Lossy UTF-8.
pub fn shown(out: &Output, blob: Option<&str>) -> String {
    let total = out.total();
    if total <= (SHOWN_HEAD + SHOWN_TAIL) as u64 && !out.is_truncated() {
        return String::from_utf8_lossy(out.head()).into_owned();
    }
    let head = out.head();
    let cut = head.len().min(SHOWN_HEAD);
    let cut = head[..cut]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(cut, |i| i + 1);
    let mut s = String::from_utf8_lossy(&head[..cut]).into_owned();
    if !s.ends_with('\n') {
        s.push('\n');
    }
    let tail = tail(out, total);
    let left_out = total.saturating_sub((cut + tail.len()) as u64);
    let whole = match blob {
        Some(b) => format!("the whole output is in the evidence, redacted, as blob {b}"),
        None => "the whole output is in the evidence, redacted".to_string(),
    };
    s.push_str(&format!(
        "… {} in all ({total} bytes): {} in the middle are not shown here; {whole} …\n",
        crate::human::bytes(total),
        crate::human::bytes(left_out),
    ));
    s.push_str(&String::from_utf8_lossy(&tail));
    s
}

/// The last [`SHOWN_TAIL`] bytes of `out` (from its spill file), from a line's start.
fn tail(out: &Output, total: u64) -> Vec<u8> {
    let from_head = || {
        let h = out.head();
        h[h.len().saturating_sub(SHOWN_TAIL)..].to_vec()
    };
    let mut buf = match out.spill_path() {
        Some(p) => {
            let read = std::fs::File::open(p).and_then(|mut f| {
                f.seek(SeekFrom::Start(total.saturating_sub(SHOWN_TAIL as u64)))?;
                let mut b = Vec::with_capacity(SHOWN_TAIL);
                f.take(SHOWN_TAIL as u64).read_to_end(&mut b)?;
                Ok(b)
            });
            read.unwrap_or_else(|_| from_head())
        }
        None => from_head(),
    };
    if let Some(nl) = buf.iter().position(|&b| b == b'\n') {
        if nl + 1 < buf.len() {
            buf.drain(..=nl);
        }
    }
    buf
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{OutputLimits, OutputSink, ProbeId};

    fn spilled(lines: usize) -> (Output, String) {
        let mut sink = OutputSink::new(
            ProbeId("g.md#s/0".into()),
            None,
            OutputLimits { memory: 1 << 19 },
        );
        let mut all = String::new();
        for i in 0..lines {
            let l = format!("row {i:07} of the output\n");
            sink.write_str(&l);
            all.push_str(&l);
        }
        (sink.finish(), all)
    }

    #[test]
    fn a_small_output_is_shown_whole() {
        let (out, all) = spilled(100);
        assert_eq!(shown(&out, None), all);
    }

    #[test]
    fn a_large_output_shows_its_start_its_end_and_its_size_within_the_bound() {
        let (out, all) = spilled(40_000);
        assert!(out.spill_path().is_some(), "the fixture spilled");
        let s = shown(&out, Some("ab12"));
        assert!(
            s.len() <= SHOWN_HEAD + SHOWN_TAIL + 300,
            "{} bytes",
            s.len()
        );
        assert!(s.starts_with("row 0000000 of the output\n"));
        assert!(s.ends_with("row 0039999 of the output\n"), "the last line");
        let marker = s.lines().find(|l| l.starts_with("… ")).unwrap();
        assert!(
            marker.contains(&format!("({} bytes)", all.len())),
            "{marker}"
        );
        assert!(marker.contains("blob ab12"), "{marker}");
        // Every line shown is a whole line of the output, in order, the middle left out once.
        let rows: Vec<usize> = s
            .lines()
            .filter(|l| !l.starts_with("… "))
            .map(|l| {
                let n = l
                    .strip_prefix("row ")
                    .and_then(|r| r.strip_suffix(" of the output"));
                n.and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("a cut line: {l:?}"))
            })
            .collect();
        let gaps = rows.windows(2).filter(|w| w[1] != w[0] + 1).count();
        assert_eq!(gaps, 1, "one gap, where the marker is");
    }
}
