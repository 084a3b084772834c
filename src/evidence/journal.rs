//! The journal file: append-only JSONL, one sealed record per line, fsync'd before `append`
//! returns; resuming drops a torn last line (see `scan`) and continues the chain. This is IO
//! (std::fs). Must not import `cli`, `tui` or `query`.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::chain::{Entry, GENESIS};
use super::clock::{rfc3339, Clock};
use super::error::EvidenceError;
pub use super::journal_seal::redact_value;
use super::journal_seal::seal;
use super::record::Record;
use super::redact::Redactor;
use super::scan::{scan, Torn};
use super::sigs::SigWriter;

/// What `append` wrote. Report a record as recorded only after you hold one of these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    pub seq: u64,
    pub ts: String,
    pub hash: String,
    pub redactions: u64,
}

/// An open journal that appends.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    len: u64,
    records: u64,
    head: String,
    redactor: Arc<Redactor>,
    clock: Arc<dyn Clock>,
    /// Signs every record (see `sigs`); `None` for an unsigned session.
    sigs: Option<SigWriter>,
}

impl Journal {
    /// Creates a new, empty journal; fails if the file exists.
    pub fn create(
        path: &Path,
        redactor: Arc<Redactor>,
        clock: Arc<dyn Clock>,
        sigs: Option<SigWriter>,
    ) -> Result<Journal, EvidenceError> {
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(path)
            .map_err(EvidenceError::io(path))?;
        Ok(Journal {
            path: path.to_owned(),
            file,
            len: 0,
            records: 0,
            head: GENESIS.to_owned(),
            redactor,
            clock,
            sigs,
        })
    }

    /// Opens an existing journal to continue it. A torn last line is moved aside to
    /// `journal.jsonl.torn-<offset>` and cut off; a broken chain is refused.
    pub fn resume(
        path: &Path,
        redactor: Arc<Redactor>,
        clock: Arc<dyn Clock>,
        f: impl FnMut(usize, Entry),
    ) -> Result<(Journal, Option<Torn>), EvidenceError> {
        let s = scan(path, f)?;
        if let Some(problem) = s.problem {
            let dir = path.parent().unwrap_or(path).to_owned();
            return Err(EvidenceError::Broken { path: dir, problem });
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(EvidenceError::io(path))?;
        if let Some(t) = &s.torn {
            // Keep the torn bytes (already redacted when written) beside the journal.
            let mut tail = Vec::new();
            file.seek(SeekFrom::Start(t.offset))
                .and_then(|_| file.read_to_end(&mut tail))
                .map_err(EvidenceError::io(path))?;
            let aside = path.with_extension(format!("jsonl.torn-{}", t.offset));
            std::fs::write(&aside, &tail).map_err(EvidenceError::io(&aside))?;
            file.set_len(s.good_len).map_err(EvidenceError::io(path))?;
        }
        let mut len = s.good_len;
        if s.needs_newline {
            file.write_all(b"\n").map_err(EvidenceError::io(path))?;
            len += 1;
        }
        file.sync_all().map_err(EvidenceError::io(path))?;
        let j = Journal {
            path: path.to_owned(),
            file,
            len,
            records: s.records,
            head: s.head,
            redactor,
            clock,
            sigs: None,
        };
        Ok((j, s.torn))
    }

    /// Redacts, seals, writes and fsyncs one record. Returns only after the data is on disk.
    pub fn append(&mut self, rec: Record) -> Result<Appended, EvidenceError> {
        self.append_ref(&rec)
    }

    /// [`Journal::append`] without giving up the record.
    pub fn append_ref(&mut self, rec: &Record) -> Result<Appended, EvidenceError> {
        let now = self.clock.now();
        self.append_at(rec, now)
    }

    /// [`Journal::append_ref`] stamped with `at` instead of the clock's reading.
    pub fn append_at(
        &mut self,
        rec: &Record,
        at: DateTime<Utc>,
    ) -> Result<Appended, EvidenceError> {
        let mut done = self.append_all_at(&[rec], at)?;
        done.pop()
            .ok_or_else(|| EvidenceError::Encode("no record was appended".into()))
    }

    /// Appends `recs` in order as one write: each is redacted, sealed on the chain and signed
    /// as if appended alone, then every signature is fsync'd once and every record once.
    /// Returns only after all of them are on disk; on an error none of them is kept. The
    /// durability of each record is that of [`Journal::append`]: none is reported before
    /// it is on disk; the records merely share the fsync.
    pub fn append_all(&mut self, recs: &[&Record]) -> Result<Vec<Appended>, EvidenceError> {
        let now = self.clock.now();
        self.append_all_at(recs, now)
    }

    fn append_all_at(
        &mut self,
        recs: &[&Record],
        at: DateTime<Utc>,
    ) -> Result<Vec<Appended>, EvidenceError> {
        let ts = rfc3339(at);
        let mut bytes = Vec::new();
        let mut sealed: Vec<(usize, Appended)> = Vec::with_capacity(recs.len());
        let mut head = self.head.clone();
        for (i, rec) in recs.iter().enumerate() {
            let seq = self.records + 1 + i as u64;
            let (line, hash, redactions) = seal(&self.redactor, rec, seq, &ts, &head)?;
            let from = bytes.len();
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            head = hash.clone();
            sealed.push((
                from,
                Appended {
                    seq,
                    ts: ts.clone(),
                    hash,
                    redactions,
                },
            ));
        }
        if sealed.is_empty() {
            return Ok(Vec::new());
        }
        // The signatures reach the disk first: a crash leaves signatures too many, never a
        // record without one.
        let sig_len = self.sigs.as_ref().map_or(0, SigWriter::len);
        let signed = match self.sigs.as_mut() {
            Some(s) => {
                let ends = sealed
                    .iter()
                    .skip(1)
                    .map(|(from, _)| *from)
                    .chain([bytes.len()]);
                let lines: Vec<(&[u8], u64, &str)> = sealed
                    .iter()
                    .zip(ends)
                    .map(|((from, a), to)| (&bytes[*from..to], a.seq, a.hash.as_str()))
                    .collect();
                Some(s.sign_all_and_write(&lines)?)
            }
            None => None,
        };
        let written = self
            .file
            .write_all(&bytes)
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            // Leave no partial line behind for the next append to glue onto.
            let _ = self.file.set_len(self.len);
            if let Some(s) = self.sigs.as_mut() {
                s.rollback(sig_len);
            }
            return Err(EvidenceError::Io {
                path: self.path.clone(),
                source: e,
            });
        }
        if let (Some(s), Some(next)) = (self.sigs.as_mut(), signed) {
            s.commit(next);
        }
        self.len += bytes.len() as u64;
        self.records += sealed.len() as u64;
        self.head = head;
        Ok(sealed.into_iter().map(|(_, a)| a).collect())
    }

    /// Number of records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Hash of the last record.
    pub fn head(&self) -> &str {
        &self.head
    }

    /// Starts signing (a resumed session's signature file, see `sigs`).
    pub fn set_signer(&mut self, sigs: SigWriter) {
        self.sigs = Some(sigs);
    }

    /// Id of the key signing new records, when the journal is signed.
    pub fn key_id(&self) -> Option<String> {
        self.sigs.as_ref().map(SigWriter::key_id)
    }

    /// The full fingerprint of the signing key (sha256 of the public key).
    pub fn key_fingerprint(&self) -> Option<String> {
        self.sigs.as_ref().map(SigWriter::key_fingerprint)
    }

    /// Bytes of the journal's good part.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn redactor(&self) -> &Arc<Redactor> {
        &self.redactor
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}
