//! Export for escalation: writes `summary.md` and/or `summary.json`, for `tar.gz` also a copy of
//! the journal and blobs, then `manifest.json` with the sha256 of every artifact, and packs the
//! folder as `<folder>.tar.gz`. Refuses a session that does not verify. IO (std::fs, tar,
//! flate2). Must not import `cli`, `tui` or `query`.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::tsg::Escalation;

use super::blob::sync_dir;
use super::checklist::build_checklist;
use super::error::EvidenceError;
use super::export_parts::{signed_copy, write, Summary};
use super::log::SessionLog;
use super::record::{ExportRecord, Record};
use super::redact::Redactor;
use super::verify::verify_log;

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
    let summary = Summary {
        log: &log,
        team,
        report: &report,
    };
    let mut files = summary.write(req.format, out, redactor)?;
    let signed = signed_copy(dir, report.records, &report.signers)?;
    if req.format == ExportFormat::TarGz {
        files.extend(signed.write(dir, out)?);
    }
    let text = summary.manifest(req, &signed, &files, out)?;
    files.push(write(out, "manifest.json", text.as_bytes())?);
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
        manifest_sha256: super::chain::sha256_hex(text.as_bytes()),
        missing,
        team: req.escalation.as_ref().map(|e| e.team.clone()),
        format: req.format,
    })
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
