//! The parts of an export bundle, each written on its own: the summaries (`summary.md`,
//! `summary.json`), the session's signed journal and blobs for a `tar.gz`, and the
//! `manifest.json` that lists every artifact with its sha256. IO (std::fs). Must not import
//! `cli`, `tui` or `query`.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::tsg::Escalation;

use super::blob::digest_file;
use super::checklist::CheckItem;
use super::error::EvidenceError;
use super::export::{ExportFormat, ExportRequest};
use super::journal::redact_value;
use super::keys::PublicKey;
use super::log::SessionLog;
use super::redact::Redactor;
use super::sigs::{self, Signer, SIG_FILE};
use super::summary::render_markdown;
use super::summary_json::summary_json;
use super::verify::{blob_names, VerifyReport};

/// What the summaries and the manifest are written from: the verified log, the chosen team
/// with its checklist, and what verify found.
pub struct Summary<'a> {
    pub log: &'a SessionLog,
    pub team: Option<(&'a Escalation, &'a [CheckItem])>,
    pub report: &'a VerifyReport,
}

impl Summary<'_> {
    /// Writes `summary.md` and/or `summary.json` as `format` asks, redacted once more.
    pub fn write(
        &self,
        format: ExportFormat,
        out: &Path,
        redactor: &Redactor,
    ) -> Result<Vec<PathBuf>, EvidenceError> {
        let mut files = Vec::new();
        if matches!(format, ExportFormat::Md | ExportFormat::TarGz) {
            let md = render_markdown(self.log, self.team, self.report);
            let (md, _) = redactor.redact_str(&md);
            files.push(write(out, "summary.md", md.as_bytes())?);
        }
        if matches!(format, ExportFormat::Json | ExportFormat::TarGz) {
            let mut v = summary_json(self.log, self.team, self.report);
            redact_value(redactor, &mut v);
            files.push(write(out, "summary.json", pretty(&v)?.as_bytes())?);
        }
        Ok(files)
    }

    /// The text of `manifest.json`: the session, its chain head and signers, and the sha256
    /// of each of `files` (paths relative to `out`).
    pub fn manifest(
        &self,
        req: &ExportRequest,
        signed: &SignedCopy,
        files: &[PathBuf],
        out: &Path,
    ) -> Result<String, EvidenceError> {
        let (log, report) = (self.log, self.report);
        let mut artifacts = Vec::new();
        for f in files {
            let (sha256, bytes) = digest_file(f)?;
            let rel = f
                .strip_prefix(out)
                .unwrap_or(f)
                .to_string_lossy()
                .replace('\\', "/");
            artifacts.push(json!({"path": rel, "sha256": sha256, "bytes": bytes}));
        }
        let simulated = log.start().is_some_and(|s| s.simulated);
        let last_signer = report.signers.last();
        let manifest = json!({
            // Upper case sorts first: the manifest's first member says SIMULATED.
            "SIMULATED": simulated.then_some("this session ran against simulated systems; nothing in it happened on a real one"),
            "session": log.id,
            "records": report.records,
            "chain_head": report.head,
            "key_id": last_signer.map(|s| s.key_id.clone()),
            "key_fingerprint": last_signer.map(|s| s.fingerprint.clone()),
            "public_key": last_signer.map(|s| s.public_key.clone()),
            "operator": last_signer.map(|s| s.operator.clone()),
            "signature": signed.minisig.as_ref().map(|(m, _)| m.clone()),
            "signers": report.signers.iter().map(|s| json!({"key_id": s.key_id, "fingerprint": s.fingerprint, "operator": s.operator, "public_key": s.public_key, "from_record": s.from_seq})).collect::<Vec<_>>(),
            "unsigned": report.unsigned,
            "team": req.escalation.as_ref().map(|e| e.team.clone()),
            "format": req.format.as_str(),
            "artifacts": artifacts,
        });
        pretty(&manifest)
    }
}

fn pretty(v: &serde_json::Value) -> Result<String, EvidenceError> {
    serde_json::to_string_pretty(v)
        .map(|t| t + "\n")
        .map_err(|e| EvidenceError::Encode(e.to_string()))
}

pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, EvidenceError> {
    let p = dir.join(name);
    std::fs::write(&p, bytes).map_err(EvidenceError::io(&p))?;
    Ok(p)
}

/// The journal cut to `records` lines, its signature lines, and the minisign signature of the
/// whole cut journal with the public key that made it.
pub struct SignedCopy {
    journal: Vec<u8>,
    sig_lines: Option<Vec<u8>>,
    minisig: Option<(String, PublicKey)>,
}

impl SignedCopy {
    /// Writes the session itself into `out`: exactly the records verified (a live session
    /// may have grown since), with their signatures, the signature of the whole file and the
    /// key that made it, and every blob of `dir`.
    pub fn write(&self, dir: &Path, out: &Path) -> Result<Vec<PathBuf>, EvidenceError> {
        let mut files = vec![write(out, "journal.jsonl", &self.journal)?];
        if let Some(sig) = &self.sig_lines {
            files.push(write(out, SIG_FILE, sig)?);
        }
        if let Some((minisig, public)) = &self.minisig {
            files.push(write(out, "journal.jsonl.minisig", minisig.as_bytes())?);
            files.push(write(out, "operator.pub", public.to_minisign().as_bytes())?);
        }
        let blobs = out.join("blobs");
        std::fs::create_dir_all(&blobs).map_err(EvidenceError::io(&blobs))?;
        for name in blob_names(&dir.join("blobs"))? {
            let to = blobs.join(&name);
            copy(&dir.join("blobs").join(&name), &to)?;
            files.push(to);
        }
        Ok(files)
    }
}

pub fn signed_copy(
    dir: &Path,
    records: u64,
    signers: &[Signer],
) -> Result<SignedCopy, EvidenceError> {
    let path = dir.join("journal.jsonl");
    let mut journal = std::fs::read(&path).map_err(EvidenceError::io(&path))?;
    journal.truncate(nth_line_end(&journal, records));
    if signers.is_empty() {
        return Ok(SignedCopy {
            journal,
            sig_lines: None,
            minisig: None,
        });
    }
    let sig_path = dir.join(SIG_FILE);
    let mut sig_lines = std::fs::read(&sig_path).map_err(EvidenceError::io(&sig_path))?;
    sig_lines.truncate(nth_line_end(&sig_lines, records));
    let last = sigs::read_lines(&sig_path)?
        .into_iter()
        .nth(usize::try_from(records.saturating_sub(1)).unwrap_or(usize::MAX))
        .and_then(|(l, _)| l.ok());
    let minisig = last.and_then(|l| {
        let text = sigs::minisig_for(&l).ok()?;
        Some((text, l.public_key().ok()?))
    });
    Ok(SignedCopy {
        journal,
        sig_lines: Some(sig_lines),
        minisig,
    })
}

/// Bytes up to and including the `n`-th newline (all of `b` when it has fewer).
fn nth_line_end(b: &[u8], n: u64) -> usize {
    if n == 0 {
        return 0;
    }
    b.iter()
        .enumerate()
        .filter(|(_, &c)| c == b'\n')
        .nth(usize::try_from(n - 1).unwrap_or(usize::MAX))
        .map_or(b.len(), |(i, _)| i + 1)
}

fn copy(from: &Path, to: &Path) -> Result<(), EvidenceError> {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(EvidenceError::io(from))
}
