//! Hand-off: pack a live session (journal and blobs) as a `.tar.gz` for another engineer, and
//! import one, verifying the chain and every blob before the session is accepted. IO (std::fs,
//! tar, flate2). Must not import `cli`, `tui` or `query`.

use std::fs::File;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use super::blob::sync_dir;
use super::error::{EvidenceError, Problem};
use super::log::SessionLog;
use super::sigs::{Signer, SIG_FILE};
use super::verify::{blob_names, is_digest, verify, verify_log};

/// Largest file accepted from a hand-off archive (a journal or one blob).
const MAX_ENTRY: u64 = 8 << 30;

/// Packs the session in `dir` as `<out_dir>/<id>.tar.gz` (entries `<id>/journal.jsonl`,
/// `<id>/blobs/<sha256>`). Refuses a session that does not verify.
pub fn export_handoff(dir: &Path, out_dir: &Path) -> Result<PathBuf, EvidenceError> {
    let log = SessionLog::read(dir)?;
    let report = verify_log(&log)?;
    if let Some(problem) = report.problem {
        return Err(EvidenceError::Broken {
            path: dir.to_owned(),
            problem,
        });
    }
    std::fs::create_dir_all(out_dir).map_err(EvidenceError::io(out_dir))?;
    let path = out_dir.join(format!("{}.tar.gz", log.id));
    let file = File::create(&path).map_err(EvidenceError::io(&path))?;
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        file,
        flate2::Compression::fast(),
    ));
    let add = |tar: &mut tar::Builder<_>, from: &Path, name: String| {
        tar.append_path_with_name(from, name)
            .map_err(EvidenceError::io(from))
    };
    add(
        &mut tar,
        &dir.join("journal.jsonl"),
        format!("{}/journal.jsonl", log.id),
    )?;
    if dir.join(SIG_FILE).is_file() {
        add(
            &mut tar,
            &dir.join(SIG_FILE),
            format!("{}/{SIG_FILE}", log.id),
        )?;
    }
    for b in blob_names(&dir.join("blobs"))? {
        add(
            &mut tar,
            &dir.join("blobs").join(&b),
            format!("{}/blobs/{b}", log.id),
        )?;
    }
    let gz = tar.into_inner().map_err(EvidenceError::io(&path))?;
    gz.finish()
        .and_then(|f| f.sync_all())
        .map_err(EvidenceError::io(&path))?;
    Ok(path)
}

/// What `import_handoff` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    pub id: String,
    pub dir: PathBuf,
    pub records: u64,
    /// Records this machine's copy already had (0 for a new session).
    pub had: u64,
    /// Whose keys signed it (empty: unsigned, see `unsigned`).
    pub signers: Vec<Signer>,
    pub unsigned: Option<String>,
}

/// Unpacks `archive` into `state_dir`, verifies it, and only then makes it a session. An existing
/// copy is replaced only when the archive continues it (same records, more of them).
pub fn import_handoff(archive: &Path, state_dir: &Path) -> Result<Imported, EvidenceError> {
    import_handoff_with(archive, state_dir, &[])
}

/// [`import_handoff`] that also refuses the archive unless every signature is by one of
/// `expected` (`--key`); nothing is imported then.
pub fn import_handoff_with(
    archive: &Path,
    state_dir: &Path,
    expected: &[super::expect::ExpectedKey],
) -> Result<Imported, EvidenceError> {
    let bad = |message: String| EvidenceError::Archive {
        path: archive.to_owned(),
        message,
    };
    std::fs::create_dir_all(state_dir).map_err(EvidenceError::io(state_dir))?;
    let staging = state_dir.join(format!(".import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(EvidenceError::io(&staging))?;
    let result = unpack(archive, &staging).and_then(|id| {
        let id = id.ok_or_else(|| bad("holds no <session>/journal.jsonl; is it a `tsgnav sessions export --handoff` file?".into()))?;
        accept(&staging.join(&id), state_dir, &id, expected)
    });
    let _ = std::fs::remove_dir_all(&staging);
    result
}

/// Extracts the journal and blobs of one session; returns the session id.
fn unpack(archive: &Path, staging: &Path) -> Result<Option<String>, EvidenceError> {
    let bad = |message: String| EvidenceError::Archive {
        path: archive.to_owned(),
        message,
    };
    let file = File::open(archive).map_err(EvidenceError::io(archive))?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut id: Option<String> = None;
    let entries = tar
        .entries()
        .map_err(|e| bad(format!("is not a .tar.gz archive: {e}")))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| bad(format!("is damaged: {e}")))?;
        let path = entry
            .path()
            .map_err(|e| bad(format!("has an unreadable entry name: {e}")))?
            .into_owned();
        let parts: Vec<String> = path
            .components()
            .map(|c| match c {
                Component::Normal(s) => Ok(s.to_string_lossy().into_owned()),
                _ => Err(bad(format!(
                    "entry `{}` leaves the session folder; refusing the archive",
                    path.display()
                ))),
            })
            .collect::<Result<_, _>>()?;
        let Some(first) = parts.first() else { continue };
        if first.starts_with('.') {
            return Err(bad(format!(
                "entry `{}` is not inside a session folder",
                path.display()
            )));
        }
        if id.get_or_insert_with(|| first.clone()) != first {
            return Err(bad(format!(
                "holds more than one session (`{}` and `{first}`)",
                id.unwrap_or_default()
            )));
        }
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            continue;
        }
        let wanted = match parts.as_slice() {
            [_, j] if j == "journal.jsonl" || j == SIG_FILE => true,
            [_, b, d] if b == "blobs" && is_digest(d) => true,
            _ => false,
        };
        if !wanted || !kind.is_file() {
            continue;
        }
        if entry.header().size().unwrap_or(u64::MAX) > MAX_ENTRY {
            return Err(bad(format!(
                "entry `{}` is larger than 8 GiB",
                path.display()
            )));
        }
        let to = staging.join(parts.join("/"));
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(EvidenceError::io(parent))?;
        }
        let mut out = File::create(&to).map_err(EvidenceError::io(&to))?;
        std::io::copy(&mut (&mut entry).take(MAX_ENTRY), &mut out)
            .map_err(EvidenceError::io(&to))?;
        out.sync_all().map_err(EvidenceError::io(&to))?;
    }
    Ok(id)
}

/// Verifies the unpacked session and moves it into `state_dir`.
fn accept(
    unpacked: &Path,
    state_dir: &Path,
    id: &str,
    expected: &[super::expect::ExpectedKey],
) -> Result<Imported, EvidenceError> {
    let report = verify(unpacked)?;
    if let Some(problem) = report.problem {
        return Err(EvidenceError::Broken {
            path: PathBuf::from(id),
            problem,
        });
    }
    super::expect::check_signers(&report.signers, report.unsigned.as_deref(), expected).map_err(
        |message| EvidenceError::Broken {
            path: PathBuf::from(id),
            problem: Problem {
                location: "import --key".into(),
                message,
            },
        },
    )?;
    let dest = state_dir.join(id);
    let mut had = 0;
    if dest.join("journal.jsonl").is_file() {
        let mine = SessionLog::read(&dest)?;
        let theirs = SessionLog::read(unpacked)?;
        had = mine.entries.len() as u64;
        let diverged = mine
            .entries
            .iter()
            .zip(&theirs.entries)
            .find(|(a, b)| a.hash != b.hash)
            .map(|(a, _)| a.seq);
        let refuse = |message: String| EvidenceError::Broken {
            path: dest.clone(),
            problem: Problem {
                location: "import".into(),
                message,
            },
        };
        if let Some(seq) = diverged {
            return Err(refuse(format!("the archive and this machine's copy differ from record #{seq}; import it into another state folder (TSGNAV_STATE_DIR) to compare")));
        }
        if theirs.entries.len() < mine.entries.len() {
            return Err(refuse(format!(
                "this machine's copy has {} records, the archive only {}; nothing to import",
                mine.entries.len(),
                theirs.entries.len()
            )));
        }
        let _lock = super::lock::WriteLock::acquire(&dest)?;
        let old = state_dir.join(format!(".replaced-{id}-{}", std::process::id()));
        std::fs::rename(&dest, &old).map_err(EvidenceError::io(&dest))?;
        std::fs::rename(unpacked, &dest).map_err(EvidenceError::io(&dest))?;
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(unpacked, &dest).map_err(EvidenceError::io(&dest))?;
    }
    std::fs::create_dir_all(dest.join("blobs")).map_err(EvidenceError::io(&dest))?;
    sync_dir(state_dir)?;
    Ok(Imported {
        id: id.to_owned(),
        dir: dest,
        records: report.records,
        had,
        signers: report.signers,
        unsigned: report.unsigned,
    })
}
