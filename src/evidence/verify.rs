//! `verify`: checks a session's hash chain, every inline output digest and every blob digest,
//! and names the first bad record or blob. IO (std::fs), read-only. Must not import `cli`,
//! `tui` or `query`.

use std::collections::BTreeSet;
use std::path::Path;

use super::blob::digest_file;
use super::chain::sha256_hex;
use super::error::{EvidenceError, Problem};
use super::log::SessionLog;
use super::record::Record;
use super::sigs::{self, Signer};

/// What verify found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    pub records: u64,
    pub blobs: usize,
    /// Hash of the last good record.
    pub head: String,
    /// The first problem; `None` means the session checks out.
    pub problem: Option<Problem>,
    /// The keys whose signatures check out, in the order they signed.
    pub signers: Vec<Signer>,
    /// Why the session has no signatures, when it has none (recorded without a key).
    pub unsigned: Option<String>,
    /// Temporary files of a blob writer that was killed (`blobs/.tmp-*`); reopening removes them.
    pub stray: Vec<String>,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.problem.is_none()
    }
}

/// Verifies the session in `dir`.
pub fn verify(dir: &Path) -> Result<VerifyReport, EvidenceError> {
    let log = SessionLog::read(dir)?;
    verify_log(&log)
}

/// Verifies a log already read (its blobs are read from `log.dir`).
pub fn verify_log(log: &SessionLog) -> Result<VerifyReport, EvidenceError> {
    let mut report = VerifyReport {
        records: log.entries.len() as u64,
        blobs: 0,
        head: log.head().to_owned(),
        problem: None,
        signers: Vec::new(),
        unsigned: None,
        stray: stray_files(&log.dir.join("blobs"))?,
    };
    report.problem = match journal_problem(log) {
        Some(p) => Some(p),
        None => match check_signatures(log, &mut report) {
            Err(p) => Some(p),
            Ok(()) => check_blobs(log, &mut report.blobs)?,
        },
    };
    Ok(report)
}

/// What is wrong with the journal as read, before any record is checked: a problem the
/// reader found, a torn last line, or no record at all.
fn journal_problem(log: &SessionLog) -> Option<Problem> {
    if let Some(p) = &log.problem {
        return Some(p.clone());
    }
    if let Some(t) = &log.torn {
        let msg = format!(
            "is incomplete ({} bytes; the process stopped while writing it); resuming the session drops it and keeps every record before it",
            t.bytes
        );
        return Some(Problem::line(t.line, None, msg));
    }
    log.entries.is_empty().then(|| Problem {
        location: "journal.jsonl".into(),
        message: "is empty; a session starts with a session_start record".into(),
    })
}

/// Checks every record's inline output and named blob, then the blobs no record names;
/// counts the blobs checked into `count`. The first problem, if any.
fn check_blobs(log: &SessionLog, count: &mut usize) -> Result<Option<Problem>, EvidenceError> {
    let blobs_dir = log.dir.join("blobs");
    let mut checked = BTreeSet::new();
    for (i, e) in log.entries.iter().enumerate() {
        if let Some(p) = check_record(&blobs_dir, i + 1, &e.record, &mut checked)? {
            return Ok(Some(p));
        }
    }
    *count = checked.len();
    for name in blob_names(&blobs_dir)? {
        if checked.contains(&name) {
            continue;
        }
        let (digest, _) = digest_file(&blobs_dir.join(&name))?;
        if digest != name {
            return Ok(Some(Problem {
                location: format!("blobs/{name}"),
                message: format!("content has sha256 {digest} — the blob was edited"),
            }));
        }
        *count += 1;
    }
    Ok(None)
}

/// Checks record `line` of the journal: its inline output against its digest, and the blob
/// it names (once per blob: `checked` holds those already read).
fn check_record(
    blobs_dir: &Path,
    line: usize,
    record: &Record,
    checked: &mut BTreeSet<String>,
) -> Result<Option<Problem>, EvidenceError> {
    let kind = Some(record.kind());
    let run = match record {
        Record::ProbeRun(p) => Some(p),
        _ => None,
    };
    if let Some(p) = run {
        if let Some(out) = &p.output {
            if sha256_hex(out.as_bytes()) != p.output_sha256 || out.len() as u64 != p.output_size {
                return Ok(Some(Problem::line(line, kind, "output_sha256 or output_size does not match the inline output — the record was edited")));
            }
        }
    }
    let Some(blob) = record.blob() else {
        return Ok(None);
    };
    if !is_digest(blob) {
        let why = format!("names blob `{blob}`, which is not a sha256 digest");
        return Ok(Some(Problem::line(line, kind, why)));
    }
    if !checked.insert(blob.to_owned()) {
        return Ok(None);
    }
    let location = format!(
        "blobs/{blob} (named by journal.jsonl line {line} ({}))",
        record.kind()
    );
    let path = blobs_dir.join(blob);
    if !path.is_file() {
        return Ok(Some(Problem {
            location,
            message: "is missing — the blob was deleted or not copied".into(),
        }));
    }
    let (digest, size) = digest_file(&path)?;
    let message = if digest != blob {
        format!("content has sha256 {digest} — the blob was edited")
    } else {
        match run {
            Some(p) if p.output_size != size => {
                format!("is {size} bytes but the record says {}", p.output_size)
            }
            _ => return Ok(None),
        }
    };
    Ok(Some(Problem { location, message }))
}

/// Checks `journal.sig` when the session says it is signed; notes why when it is not.
fn check_signatures(log: &SessionLog, report: &mut VerifyReport) -> Result<(), Problem> {
    let start = log.start().cloned().unwrap_or_default();
    let Some(key_id) = start.key_id else {
        report.unsigned = Some(
            start
                .unsigned
                .unwrap_or_else(|| "the session was recorded without an operator key".into()),
        );
        return Ok(());
    };
    let path = log.dir.join("journal.jsonl");
    let bytes = std::fs::read(&path).map_err(|e| Problem {
        location: "journal.jsonl".into(),
        message: e.to_string(),
    })?;
    let hashes: Vec<String> = log.entries.iter().map(|e| e.hash.clone()).collect();
    let signers = sigs::check(&log.dir, &bytes, &hashes)?;
    if let Some(first) = signers.first() {
        // session_start is record 1, covered by the first signature: it must name that key.
        // Older sessions hold minisign's key number instead of a fingerprint.
        let named = match &start.key_fingerprint {
            Some(f) => f.eq_ignore_ascii_case(&first.fingerprint),
            None => legacy_names(&key_id, first),
        };
        if !named {
            let said = start.key_fingerprint.as_deref().unwrap_or(&key_id);
            return Err(Problem {
                location: format!("{} line 1", sigs::SIG_FILE),
                message: format!(
                    "is signed by key {} (fingerprint {}), but session_start names key {said} — the signatures were replaced",
                    first.key_id, first.fingerprint
                ),
            });
        }
    }
    report.signers = signers;
    Ok(())
}

/// A session recorded before fingerprints names its key by id: the derived id, or (older still)
/// minisign's key number.
fn legacy_names(key_id: &str, first: &Signer) -> bool {
    if key_id.eq_ignore_ascii_case(&first.key_id) {
        return true;
    }
    super::keys::PublicKey::parse(&first.public_key)
        .is_ok_and(|k| k.minisign_id().eq_ignore_ascii_case(key_id))
}

/// Temporary files left in `blobs/` by a writer that was killed.
pub fn stray_files(dir: &Path) -> Result<Vec<String>, EvidenceError> {
    names_in(dir, true)
}

/// File names in `blobs/`, sorted, without temporary files of a writer that was interrupted.
pub fn blob_names(dir: &Path) -> Result<Vec<String>, EvidenceError> {
    names_in(dir, false)
}

/// The sorted names in `dir` that are (`temporary`) or are not a writer's `.tmp-` files; none
/// when `dir` does not exist.
fn names_in(dir: &Path, temporary: bool) -> Result<Vec<String>, EvidenceError> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(EvidenceError::Io {
                path: dir.to_owned(),
                source: e,
            })
        }
    };
    let mut names = Vec::new();
    for ent in rd {
        let name = ent.map_err(EvidenceError::io(dir))?.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(".tmp-") == temporary {
            names.push(name.into_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// 64 lower-case hex digits.
pub fn is_digest(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}
