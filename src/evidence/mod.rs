//! The evidence bundle: an append-only, hash-chained, fsync'd session journal with redaction
//! before write, blobs for large outputs, verify, escalation checklists, export for IcM,
//! hand-off and replay data. Depends on `tsg` types only; must not import `cli`, `tui`, `nav`
//! or `query`. This module does file IO (it is an edge); `chain`, `record`, `redact`,
//! `checklist` and `summary` are pure.
//!
//! # Layout on disk
//!
//! A session is a folder `<state_dir>/YYYYMMDDTHHMMSSZ-<8 hex>/` holding `journal.jsonl` (one
//! JSON record per line) and `blobs/<sha256>`. [`state_dir`] is `$TSGNAV_STATE_DIR` when set,
//! else the platform state folder (or local data folder) + `tsgnav/sessions`.
//!
//! Every line is a [`Record`] (tagged `"type"`) plus `seq` (1, 2, …), `ts` (RFC 3339), `prev`
//! (the previous record's hash; 64 zeros for the first), `redactions` (secrets replaced in this
//! record) and `hash = sha256(prev + canonical JSON of the record without "hash")` (compact,
//! keys sorted). A probe's output is inline when it is UTF-8 and ≤ [`INLINE_MAX`] bytes, else a
//! blob; both are redacted before a byte is written and `output_sha256` is the digest of what
//! is stored.
//!
//! # API for the rest of tsgnav
//!
//! ```text
//! evidence::state_dir() -> PathBuf
//! evidence::session_start(guide: &str, guide_bytes: &[u8], alert: Option<String>) -> SessionStart
//! Session::create(state_dir: &Path, start: SessionStart) -> Result<Session, EvidenceError>
//! Session::create_with(state_dir, start, Options { clock, redactor })   // tests: StepClock
//! Session::open(dir: &Path) -> Result<Session, EvidenceError>            // resume; see recovered()
//! Session::append(&mut self, Record) -> Result<Appended, EvidenceError>  // fsync'd on Ok
//! Session::append_all(&mut self, Vec<Record>) -> Result<Vec<Appended>, _> // one fsync for all, on Ok
//! Session::blob_writer(&self) -> Result<BlobWriter, EvidenceError>       // io::Write + finish()
//! Session::store_output(&self, &[u8]) -> Result<StoredOutput, EvidenceError> // then apply_to(&mut ProbeRun)
//! Session::output_store(&self) -> OutputStore                          // Send + Clone: store_read(reader) elsewhere
//! Session::attach(&mut self, file: &Path, note: Option<String>) -> Result<(Appended, BlobRef), _>
//! Session::{dir, id, records, head, recovered, state}
//! SessionLog::read(dir) / list(state_dir) / resolve(state_dir, "latest" | id prefix)
//! verify(dir) -> Result<VerifyReport, EvidenceError>
//! Replay::load(&SessionLog) + Replay::lookup(probe_id, command) -> Option<Replayed>
//! ```
//!
//! A caller reports a record as "recorded" only after `append` returns `Ok`: the line is on
//! disk (`sync_data`) by then, so a killed process loses nothing it showed as recorded.

mod blob;
mod chain;
mod checklist;
mod clock;
mod describe;
mod error;
mod expect;
mod export;
mod export_parts;
mod handoff;
mod journal;
mod journal_seal;
mod keys;
mod lock;
mod log;
mod open;
mod record;
mod redact;
mod redact_k8s;
mod redact_rules;
mod redact_shapes;
mod redact_structure;
mod replay;
mod scan;
mod session;
mod sigs;
mod store;
mod summary;
mod summary_json;
mod summary_waves;
mod verify;

use std::path::PathBuf;

pub use blob::{BlobRef, BlobWriter, MAX_LINE};
pub use chain::{canonical, sha256_hex, Entry, GENESIS};
pub use checklist::{build_checklist, find_team, mentions, terms, CheckItem, ItemLink, LinkHow};
pub use clock::{rfc3339, Clock, StepClock, SystemClock};
pub use describe::{describe, render_timeline};
pub use error::{EvidenceError, Problem};
pub use expect::{check_signers, ExpectedKey};
pub use export::{export, export_name, pack, ExportFormat, ExportRequest, Exported};
pub use handoff::{export_handoff, import_handoff, import_handoff_with, Imported};
pub use journal::{redact_value, Appended, Journal};
pub use keys::{key_dir, prehash, KeyError, OperatorKey, PublicKey, Signature};
pub use log::{guide_records, list, resolve, SessionLog, SessionSummary};
pub use open::{open_mitigations, restore_value};
pub use record::{
    ChecklistTick, Confirmation, ExportRecord, Note, PriorState, ProbeRun, Record, SessionStart,
};
pub use redact::{BadPattern, Redactor};
pub use redact_rules::{
    builtin as redaction_rules, is_secret_name, OwnRule, RuleInfo, OWN as OWN_RULES,
};
pub use redact_structure::value_is_secret;
pub use replay::{Replay, Replayed};
pub use scan::{scan, Scan, Torn};
pub use session::{operator_key, Options, ResumeState, Session, StoredOutput};
pub use sigs::{SigLine, Signer, SIG_FILE};
pub use store::OutputStore;
pub use summary::render_markdown;
pub use summary_json::summary_json;
pub use verify::{verify, verify_log, VerifyReport};

/// Largest probe output kept inline in its record; larger or non-UTF-8 output goes to a blob.
pub const INLINE_MAX: usize = 64 * 1024;

/// The folder holding session folders: `$TSGNAV_STATE_DIR` when set, else the platform state
/// folder (`~/.local/state` on Linux) or local data folder + `tsgnav/sessions`.
pub fn state_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("TSGNAV_STATE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    dirs::state_dir()
        .or_else(dirs::data_local_dir)
        .unwrap_or_else(std::env::temp_dir)
        .join("tsgnav")
        .join("sessions")
}

/// A session_start record for `guide` (a path or `bundled:<name>`) with this tool's version,
/// the guide's sha256 (and, for a file, its absolute path), the operator (see [`operator`]) and
/// the host (`$HOSTNAME` or `/etc/hostname`).
pub fn session_start(guide: &str, guide_bytes: &[u8], alert: Option<String>) -> SessionStart {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let host = env("HOSTNAME")
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into());
    let bundled = guide.starts_with("bundled:");
    let guide_path = (!bundled)
        .then(|| std::fs::canonicalize(guide).ok())
        .flatten()
        .map(|p| p.display().to_string());
    SessionStart {
        tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        guide: guide.to_owned(),
        guide_sha256: sha256_hex(guide_bytes),
        operator: operator(),
        host,
        alert,
        guide_path,
        bundled,
        ..SessionStart::default()
    }
}

/// Who runs tsgnav: `$USER`, else `$USERNAME`, else the account name of the process's uid,
/// else `unknown`.
pub fn operator() -> String {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    env("USER")
        .or_else(|| env("USERNAME"))
        .or_else(account_name)
        .unwrap_or_else(|| "unknown".into())
}

/// The account name of the current uid (`getpwuid_r`).
#[cfg(unix)]
fn account_name() -> Option<String> {
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buf = vec![0 as libc::c_char; 4096];
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; `buf` outlives the use of `pwd`'s fields.
    let rc = unsafe {
        libc::getpwuid_r(
            libc::getuid(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut out,
        )
    };
    if rc != 0 || out.is_null() || pwd.pw_name.is_null() {
        return None;
    }
    // SAFETY: pw_name points into `buf`, NUL-terminated by getpwuid_r.
    let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
    Some(name.to_string_lossy().into_owned()).filter(|n| !n.is_empty())
}

#[cfg(not(unix))]
fn account_name() -> Option<String> {
    None
}
