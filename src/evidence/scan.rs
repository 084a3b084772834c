//! Reading a journal back: checks every line and the chain link to the line before it, stops at
//! the first bad line, and tells a torn last line (a crash mid-write) from an edit. IO (reads the
//! file). Must not import `cli`, `tui` or `query`.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use super::chain::{self, Entry, GENESIS};
use super::error::{EvidenceError, Problem};
use super::record::Record;

/// An incomplete last line found when reading a journal (the process died mid-write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Torn {
    /// 1-based line number of the incomplete line.
    pub line: usize,
    /// Byte offset where it starts.
    pub offset: u64,
    /// Its length in bytes.
    pub bytes: u64,
}

impl std::fmt::Display for Torn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "journal.jsonl line {} is incomplete ({} bytes at offset {}; the process stopped while writing it) and was dropped; every record before it is kept",
            self.line, self.bytes, self.offset
        )
    }
}

/// The result of reading a journal through.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    pub records: u64,
    /// Hash of the last good record (`GENESIS` when none).
    pub head: String,
    pub torn: Option<Torn>,
    /// The first bad line, if any; reading stops there.
    pub problem: Option<Problem>,
    /// Bytes up to the end of the last good record (its newline included when present).
    pub good_len: u64,
    /// The last good record has no trailing newline (written but cut before the `\n`).
    pub needs_newline: bool,
}

/// Reads `path`, checking each line and the chain, and calls `f(line, entry)` for each good record.
pub fn scan(path: &Path, mut f: impl FnMut(usize, Entry)) -> Result<Scan, EvidenceError> {
    let file = File::open(path).map_err(EvidenceError::io(path))?;
    let mut r = BufReader::with_capacity(1 << 16, file);
    let mut s = Scan {
        head: GENESIS.to_owned(),
        ..Scan::default()
    };
    let mut buf = Vec::new();
    let mut line = 0usize;
    loop {
        buf.clear();
        let n = r
            .read_until(b'\n', &mut buf)
            .map_err(EvidenceError::io(path))?;
        if n == 0 {
            return Ok(s);
        }
        line += 1;
        let complete = buf.last() == Some(&b'\n');
        let text = std::str::from_utf8(if complete { &buf[..n - 1] } else { &buf[..] });
        let checked = match text {
            Err(e) => Err(Problem::line(
                line,
                None,
                format!(
                    "is not UTF-8 (byte {}) — the file was edited or damaged",
                    e.valid_up_to()
                ),
            )),
            Ok("") => Err(Problem::line(line, None, "is empty — the file was edited")),
            Ok(t) => check(t, line, &s),
        };
        match (checked, complete) {
            (Ok(entry), _) => {
                s.records += 1;
                s.head = entry.hash.clone();
                s.good_len += n as u64;
                s.needs_newline = !complete;
                f(line, entry);
            }
            (Err(_), false) => {
                s.torn = Some(Torn {
                    line,
                    offset: s.good_len,
                    bytes: n as u64,
                });
                return Ok(s);
            }
            (Err(p), true) => {
                s.problem = Some(p);
                return Ok(s);
            }
        }
    }
}

/// One line against the chain so far.
fn check(text: &str, line: usize, s: &Scan) -> Result<Entry, Problem> {
    let e = chain::check_line(text)
        .map_err(|(kind, p)| Problem::line(line, kind.as_deref(), p.to_string()))?;
    let kind = Some(e.record.kind());
    if e.seq != s.records + 1 {
        let msg = format!(
            "seq is {}, expected {} — records were removed, inserted or reordered",
            e.seq,
            s.records + 1
        );
        return Err(Problem::line(line, kind, msg));
    }
    if e.prev != s.head {
        return Err(Problem::line(line, kind, "prev does not match the hash of the record before it — a record was removed or replaced"));
    }
    if (line == 1) != matches!(e.record, Record::SessionStart(_)) {
        let msg = if line == 1 {
            "the first record must be session_start"
        } else {
            "session_start may only be the first record"
        };
        return Err(Problem::line(line, kind, msg));
    }
    Ok(e)
}
