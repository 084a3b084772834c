//! Journal signatures: `journal.sig` beside `journal.jsonl`, one JSON line per record. Line N
//! is the operator key's minisign signature of the journal's first N lines (every byte up to
//! and including record N's newline), so the last line alone vouches for the whole file, and
//! `minisign -V -m journal.jsonl` checks it without tsgnav (see [`minisig_for`]). The trusted
//! comment names the record count, the chain head and the operator. A signature is written and
//! fsync'd before its record, so a crash leaves at most the signatures of the records being
//! appended too many (dropped on resume), never a record without one. IO (std::fs); must not import `cli`, `tui` or `query`.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use blake2::{Blake2b512, Digest};
use serde::{Deserialize, Serialize};

use super::error::{EvidenceError, Problem};
use super::keys::{OperatorKey, PublicKey, Signature};

/// The signature file of a session.
pub const SIG_FILE: &str = "journal.sig";

/// One line of `journal.sig`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SigLine {
    pub seq: u64,
    /// minisign public key (base64) of the signer.
    pub key: String,
    /// minisign signature line (base64, `ED` form).
    pub sig: String,
    /// The trusted comment: `tsgnav journal.jsonl records=N head=H operator=NAME`.
    pub comment: String,
    /// The global signature over `sig` + `comment` (base64).
    pub global: String,
}

impl SigLine {
    pub fn signature(&self) -> Result<Signature, String> {
        Signature::from_parts(&self.sig, &self.comment, &self.global)
    }

    pub fn public_key(&self) -> Result<PublicKey, String> {
        PublicKey::parse(&self.key)
    }

    /// The operator named in the trusted comment.
    pub fn operator(&self) -> &str {
        self.comment
            .split(' ')
            .find_map(|w| w.strip_prefix("operator="))
            .unwrap_or("?")
    }
}

/// The trusted comment of the signature of record `seq` with hash `head`.
pub fn comment(seq: u64, head: &str, operator: &str) -> String {
    let op: String = operator
        .chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    format!("tsgnav journal.jsonl records={seq} head={head} operator={op}")
}

/// Appends signatures as the journal grows.
#[derive(Debug)]
pub struct SigWriter {
    key: Arc<OperatorKey>,
    key_b64: String,
    operator: String,
    path: PathBuf,
    file: File,
    len: u64,
    hasher: Blake2b512,
}

impl SigWriter {
    /// A new, empty `journal.sig` in `dir`.
    pub fn create(
        dir: &Path,
        key: Arc<OperatorKey>,
        operator: &str,
    ) -> Result<SigWriter, EvidenceError> {
        let path = dir.join(SIG_FILE);
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(EvidenceError::io(&path))?;
        Ok(SigWriter {
            key_b64: key.public().to_base64(),
            key,
            operator: operator.to_owned(),
            path,
            file,
            len: 0,
            hasher: Blake2b512::new(),
        })
    }

    /// Continues `dir/journal.sig` for a journal whose good part is `journal` (`records`
    /// records): drops a signature left for a record that never reached the journal; refuses
    /// when a record has no signature.
    pub fn resume(
        dir: &Path,
        key: Arc<OperatorKey>,
        operator: &str,
        journal: &[u8],
        records: u64,
    ) -> Result<SigWriter, EvidenceError> {
        let path = dir.join(SIG_FILE);
        let lines = read_lines(&path)?;
        let keep: u64 = lines
            .iter()
            .take_while(|(l, _)| l.as_ref().is_ok_and(|l| l.seq <= records))
            .map(|(_, n)| *n)
            .sum();
        let signed = lines
            .iter()
            .filter(|(l, _)| l.as_ref().is_ok_and(|l| l.seq <= records))
            .count() as u64;
        if signed < records {
            return Err(EvidenceError::Broken {
                path: dir.to_owned(),
                problem: Problem {
                    location: SIG_FILE.into(),
                    message: format!(
                        "has {signed} signatures for {records} records — signatures were removed, or records were added without the operator's key"
                    ),
                },
            });
        }
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(EvidenceError::io(&path))?;
        file.set_len(keep).map_err(EvidenceError::io(&path))?;
        file.sync_all().map_err(EvidenceError::io(&path))?;
        let mut hasher = Blake2b512::new();
        hasher.update(journal);
        Ok(SigWriter {
            key_b64: key.public().to_base64(),
            key,
            operator: operator.to_owned(),
            path,
            file,
            len: keep,
            hasher,
        })
    }

    /// Signs the journal with `line` (newline included) appended, writes and fsyncs the
    /// signature; returns the hasher state to [`SigWriter::commit`] once the record is written.
    pub fn sign_and_write(
        &mut self,
        line: &[u8],
        seq: u64,
        head: &str,
    ) -> Result<Blake2b512, EvidenceError> {
        self.sign_all_and_write(&[(line, seq, head)])
    }

    /// [`SigWriter::sign_and_write`] for records appended together (`(line, seq, head)`, in
    /// order): one signature line each, every one over the journal up to its record, written
    /// and fsync'd once, before any of the records is written.
    pub fn sign_all_and_write(
        &mut self,
        records: &[(&[u8], u64, &str)],
    ) -> Result<Blake2b512, EvidenceError> {
        let mut next = self.hasher.clone();
        let mut bytes = Vec::new();
        for (line, seq, head) in records {
            next.update(line);
            let prehash = next.clone().finalize();
            let s = self
                .key
                .sign(&prehash, &comment(*seq, head, &self.operator));
            let rec = SigLine {
                seq: *seq,
                key: self.key_b64.clone(),
                sig: s.sig_base64(),
                comment: s.trusted_comment.clone(),
                global: s.global_base64(),
            };
            serde_json::to_writer(&mut bytes, &rec)
                .map_err(|e| EvidenceError::Encode(e.to_string()))?;
            bytes.push(b'\n');
        }
        let written = self
            .file
            .write_all(&bytes)
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            let _ = self.file.set_len(self.len);
            return Err(EvidenceError::Io {
                path: self.path.clone(),
                source: e,
            });
        }
        self.len += bytes.len() as u64;
        Ok(next)
    }

    /// The record was written: its bytes are now part of what the next signature covers.
    pub fn commit(&mut self, next: Blake2b512) {
        self.hasher = next;
    }

    /// The record could not be written: drop its signature.
    pub fn rollback(&mut self, sig_len_before: u64) {
        if self.file.set_len(sig_len_before).is_ok() {
            self.len = sig_len_before;
        }
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn key_id(&self) -> String {
        self.key.public().id()
    }

    pub fn key_fingerprint(&self) -> String {
        self.key.public().fingerprint()
    }
}

/// One line of a signature file as read: parsed (or why not), and its length in bytes.
pub type ReadLine = (Result<SigLine, String>, u64);

/// The lines of a signature file; none when it is missing.
pub fn read_lines(path: &Path) -> Result<Vec<ReadLine>, EvidenceError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(EvidenceError::Io {
                path: path.to_owned(),
                source: e,
            })
        }
    };
    let mut r = BufReader::new(file);
    let mut out = Vec::new();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = r
            .read_until(b'\n', &mut buf)
            .map_err(EvidenceError::io(path))?;
        if n == 0 {
            return Ok(out);
        }
        let parsed = if buf.last() == Some(&b'\n') {
            serde_json::from_slice::<SigLine>(&buf[..n - 1]).map_err(|e| e.to_string())
        } else {
            Err("incomplete line".to_owned())
        };
        out.push((parsed, n as u64));
    }
}

/// The `.minisig` text of the signature on the whole journal (the last signature line).
pub fn minisig_for(line: &SigLine) -> Result<String, String> {
    Ok(line.signature()?.to_minisign())
}

/// Who signed a session: one entry per run of consecutive records signed by the same key
/// (the same key bytes, whatever minisign key number it carries), with the operator its
/// signatures name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    /// The first 16 hex digits of the fingerprint.
    pub key_id: String,
    /// sha256 of the Ed25519 public key (64 hex digits).
    pub fingerprint: String,
    pub operator: String,
    /// The minisign public key (base64).
    pub public_key: String,
    /// The first record this key signed.
    pub from_seq: u64,
}

/// Checks every signature in `dir/journal.sig` against `journal` (the good lines of
/// `journal.jsonl`) whose record hashes are `hashes`, and returns the signers, or the first
/// problem.
pub fn check(dir: &Path, journal: &[u8], hashes: &[String]) -> Result<Vec<Signer>, Problem> {
    let path = dir.join(SIG_FILE);
    let at = |seq: u64, message: String| Problem {
        location: format!("{SIG_FILE} line {seq}"),
        message,
    };
    let lines = read_lines(&path).map_err(|e| Problem {
        location: SIG_FILE.into(),
        message: e.to_string(),
    })?;
    let mut signers: Vec<Signer> = Vec::new();
    let mut hasher = Blake2b512::new();
    let mut rest = journal;
    for (i, hash) in hashes.iter().enumerate() {
        let seq = i as u64 + 1;
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |p| p + 1);
        hasher.update(&rest[..end]);
        rest = &rest[end..];
        let Some((parsed, _)) = lines.get(i) else {
            return Err(Problem {
                location: format!("journal.jsonl line {seq}"),
                message: format!("has no signature in {SIG_FILE} — records were added without the operator's key, or signatures were removed"),
            });
        };
        let line = parsed
            .as_ref()
            .map_err(|e| at(seq, format!("is not a signature ({e})")))?;
        if line.seq != seq {
            return Err(at(
                seq,
                format!(
                    "is for record {}, expected {seq} — signatures were removed or reordered",
                    line.seq
                ),
            ));
        }
        if line.comment != comment(seq, hash, line.operator()) {
            return Err(at(seq, format!("names another chain head than record {seq}'s hash {hash} — the record was replaced")));
        }
        let key = line
            .public_key()
            .map_err(|e| at(seq, format!("has no valid public key ({e})")))?;
        let sig = line.signature().map_err(|e| at(seq, e))?;
        key.verify(&hasher.clone().finalize(), &sig)
            .map_err(|e| at(seq, format!("the signature of key {} {e}", key.id())))?;
        let fingerprint = key.fingerprint();
        if signers.last().is_none_or(|s| s.fingerprint != fingerprint) {
            signers.push(Signer {
                key_id: key.id(),
                fingerprint,
                operator: line.operator().to_owned(),
                public_key: line.key.clone(),
                from_seq: seq,
            });
        }
    }
    let extra = lines.len().saturating_sub(hashes.len());
    if extra > 1 || (extra == 1 && lines.last().is_some_and(|(l, _)| l.is_err())) {
        return Err(Problem {
            location: SIG_FILE.into(),
            message: format!(
                "has {} signatures for {} records — records were removed from the end of the journal",
                lines.len(),
                hashes.len()
            ),
        });
    }
    Ok(signers)
}
