//! Export for escalation: writes `summary.md` and/or `summary.json`, for `tar.gz` also a copy of
//! the journal and blobs, then `manifest.json` with the sha256 of every artifact, and packs the
//! folder as `<folder>.tar.gz`. Refuses a session that does not verify. IO (std::fs, tar,
//! flate2). Must not import `cli`, `tui` or `query`.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::tsg::Escalation;

use super::blob::{digest_file, sync_dir};
use super::checklist::build_checklist;
use super::error::EvidenceError;
use super::journal::redact_value;
use super::keys::PublicKey;
use super::log::SessionLog;
use super::record::{ExportRecord, Record};
use super::redact::Redactor;
use super::sigs::{self, Signer, SIG_FILE};
use super::summary::render_markdown;
use super::summary_json::summary_json;
use super::verify::{blob_names, verify_log};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Md,
    Json,
    TarGz,
}

impl ExportFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Md => "md",
            ExportFormat::Json => "json",
            ExportFormat::TarGz => "tar.gz",
        }
    }
}

impl std::str::FromStr for ExportFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "md" | "markdown" => Ok(ExportFormat::Md),
            "json" => Ok(ExportFormat::Json),
            "tar.gz" | "tgz" | "targz" => Ok(ExportFormat::TarGz),
            other => Err(format!(
                "unknown export format `{other}`; use md, json or tar.gz"
            )),
        }
    }
}

/// What to export and where.
#[derive(Debug, Clone)]
pub struct ExportRequest {
    /// The chosen escalation target (its evidence list becomes the checklist).
    pub escalation: Option<Escalation>,
    pub format: ExportFormat,
    /// The folder to write (created; files in it are overwritten).
    pub out: PathBuf,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct Exported {
    pub dir: PathBuf,
    /// Every artifact, `manifest.json` last.
    pub files: Vec<PathBuf>,
    pub tarball: Option<PathBuf>,
    pub manifest_sha256: String,
    /// Checklist items still without evidence.
    pub missing: Vec<String>,
    pub team: Option<String>,
    pub format: ExportFormat,
}

impl Exported {
    /// The `export` record to append to the session.
    pub fn record(&self) -> Record {
        Record::Export(ExportRecord {
            team: self.team.clone(),
            format: self.format.as_str().into(),
            manifest_sha256: self.manifest_sha256.clone(),
        })
    }
}

/// The folder (and, with `.tar.gz`, archive) name of an export: `tsgnav-<id>` or
/// `tsgnav-<id>-<team>`, so each team's bundle has a file of its own.
pub fn export_name(id: &str, team: Option<&str>) -> String {
    let slug: String = team
        .unwrap_or("")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let slug = slug.trim_matches('-');
    if slug.is_empty() {
        format!("tsgnav-{id}")
    } else {
        format!("tsgnav-{id}-{slug}")
    }
}

/// Exports the session in `dir`. `redactor` is applied once more to the summaries (they quote
/// guide text, not only the already-redacted journal).
pub fn export(
    dir: &Path,
    req: &ExportRequest,
    redactor: &Redactor,
) -> Result<Exported, EvidenceError> {
    let log = SessionLog::read(dir)?;
    let report = verify_log(&log)?;
    if let Some(problem) = report.problem.clone() {
        return Err(EvidenceError::Broken {
            path: dir.to_owned(),
            problem,
        });
    }
    let items = req
        .escalation
        .as_ref()
        .map(|e| build_checklist(e, &log.entries));
    let team = req.escalation.as_ref().zip(items.as_deref());
    let out = &req.out;
    std::fs::create_dir_all(out).map_err(EvidenceError::io(out))?;
    let mut files = Vec::new();
    if matches!(req.format, ExportFormat::Md | ExportFormat::TarGz) {
        let (md, _) = redactor.redact_str(&render_markdown(&log, team, &report));
        files.push(write(out, "summary.md", md.as_bytes())?);
    }
    if matches!(req.format, ExportFormat::Json | ExportFormat::TarGz) {
        let mut v = summary_json(&log, team, &report);
        redact_value(redactor, &mut v);
        let text = serde_json::to_string_pretty(&v)
            .map_err(|e| EvidenceError::Encode(e.to_string()))?
            + "\n";
        files.push(write(out, "summary.json", text.as_bytes())?);
    }
    let signed = signed_copy(dir, report.records, &report.signers)?;
    if req.format == ExportFormat::TarGz {
        // Exactly the records verified (a live session may have grown since), with their
        // signatures, the signature of the whole file and the key that made it.
        files.push(write(out, "journal.jsonl", &signed.journal)?);
        if let Some(sig) = &signed.sig_lines {
            files.push(write(out, SIG_FILE, sig)?);
        }
        if let Some((minisig, public)) = &signed.minisig {
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
    }
    let mut artifacts = Vec::new();
    for f in &files {
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
    let text = serde_json::to_string_pretty(&manifest)
        .map_err(|e| EvidenceError::Encode(e.to_string()))?
        + "\n";
    let manifest_path = write(out, "manifest.json", text.as_bytes())?;
    let manifest_sha256 = super::chain::sha256_hex(text.as_bytes());
    files.push(manifest_path);
    let tarball = if req.format == ExportFormat::TarGz {
        Some(pack(out)?)
    } else {
        None
    };
    let missing = items
        .iter()
        .flatten()
        .filter(|i| !i.done())
        .map(|i| i.text.clone())
        .collect();
    Ok(Exported {
        dir: out.clone(),
        files,
        tarball,
        manifest_sha256,
        missing,
        team: req.escalation.as_ref().map(|e| e.team.clone()),
        format: req.format,
    })
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, EvidenceError> {
    let p = dir.join(name);
    std::fs::write(&p, bytes).map_err(EvidenceError::io(&p))?;
    Ok(p)
}

/// The journal cut to `records` lines, its signature lines, and the minisign signature of the
/// whole cut journal with the public key that made it.
struct SignedCopy {
    journal: Vec<u8>,
    sig_lines: Option<Vec<u8>>,
    minisig: Option<(String, PublicKey)>,
}

fn signed_copy(dir: &Path, records: u64, signers: &[Signer]) -> Result<SignedCopy, EvidenceError> {
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

/// Packs `dir` as `<dir>.tar.gz` (entries under the folder's name); returns its path.
pub fn pack(dir: &Path) -> Result<PathBuf, EvidenceError> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export".into());
    let path = dir.with_file_name(format!("{name}.tar.gz"));
    let file = File::create(&path).map_err(EvidenceError::io(&path))?;
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    tar.follow_symlinks(false);
    tar.append_dir_all(&name, dir)
        .map_err(EvidenceError::io(dir))?;
    let gz = tar.into_inner().map_err(EvidenceError::io(&path))?;
    let file = gz.finish().map_err(EvidenceError::io(&path))?;
    file.sync_all().map_err(EvidenceError::io(&path))?;
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    sync_dir(parent)?;
    Ok(path)
}
