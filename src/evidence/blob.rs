//! Blobs: large outputs and attachments stored as `blobs/<sha256>`. The writer redacts line by
//! line with a bounded buffer, hashes and writes to a temporary file as bytes stream in, then
//! fsyncs and renames it, so a 100 MB output never sits in memory. IO (std::fs). Must not import
//! `cli`, `tui` or `query`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::error::EvidenceError;
use super::redact::Redactor;
use super::redact_k8s;

/// Longest run of bytes without a newline held before it is redacted and written anyway.
/// A longer line is cut at its last whitespace (or here when it has none).
pub const MAX_LINE: usize = 256 * 1024;

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A stored blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobRef {
    /// sha256 of the stored (redacted) bytes; also the file name under `blobs/`.
    pub sha256: String,
    pub size: u64,
    pub redactions: u64,
}

/// Streams bytes into `blobs/`. Call [`BlobWriter::finish`]; a writer dropped unfinished
/// removes its temporary file.
#[derive(Debug)]
pub struct BlobWriter {
    dir: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
    hasher: Sha256,
    pending: Vec<u8>,
    size: u64,
    redactions: u64,
    redactor: Arc<Redactor>,
}

impl BlobWriter {
    /// A writer for the `blobs` folder `dir` (created if missing).
    pub fn new(dir: &Path, redactor: Arc<Redactor>) -> Result<BlobWriter, EvidenceError> {
        std::fs::create_dir_all(dir).map_err(EvidenceError::io(dir))?;
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".tmp-{}-{n}", std::process::id()));
        let file = File::create(&tmp).map_err(EvidenceError::io(&tmp))?;
        Ok(BlobWriter {
            dir: dir.to_owned(),
            tmp,
            out: Some(BufWriter::with_capacity(1 << 16, file)),
            hasher: Sha256::new(),
            pending: Vec::new(),
            size: 0,
            redactions: 0,
            redactor,
        })
    }

    /// Redacts and writes `pending[..end]`, keeping the rest.
    fn emit(&mut self, end: usize) -> std::io::Result<()> {
        self.emit_as(end, false)
    }

    /// [`BlobWriter::emit`]; `force_secret` redacts every `data:` value (a held document
    /// grew too long to wait for its `kind`).
    fn emit_as(&mut self, end: usize, force_secret: bool) -> std::io::Result<()> {
        let (bytes, n) = self
            .redactor
            .redact_chunk(&self.pending[..end], force_secret);
        self.redactions += n;
        self.hasher.update(&bytes);
        self.size += bytes.len() as u64;
        if let Some(out) = self.out.as_mut() {
            out.write_all(&bytes)?;
        }
        drop(bytes);
        self.pending.drain(..end);
        Ok(())
    }

    /// Redacts what is left, fsyncs, and moves the file to `blobs/<sha256>`.
    pub fn finish(mut self) -> Result<BlobRef, EvidenceError> {
        let done = self.finish_inner();
        if done.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        done
    }

    fn finish_inner(&mut self) -> Result<BlobRef, EvidenceError> {
        let end = self.pending.len();
        self.emit(end).map_err(EvidenceError::io(&self.tmp))?;
        let Some(out) = self.out.take() else {
            return Err(EvidenceError::Io {
                path: self.tmp.clone(),
                source: std::io::ErrorKind::Other.into(),
            });
        };
        let file = out.into_inner().map_err(|e| EvidenceError::Io {
            path: self.tmp.clone(),
            source: e.into_error(),
        })?;
        file.sync_all().map_err(EvidenceError::io(&self.tmp))?;
        drop(file);
        let sha256 = hex::encode(std::mem::take(&mut self.hasher).finalize());
        let dest = self.dir.join(&sha256);
        std::fs::rename(&self.tmp, &dest).map_err(EvidenceError::io(&dest))?;
        sync_dir(&self.dir)?;
        Ok(BlobRef {
            sha256,
            size: self.size,
            redactions: self.redactions,
        })
    }
}

impl Write for BlobWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if let Some(nl) = self.pending.iter().rposition(|&b| b == b'\n') {
            // A PEM block or a Secret's data still open is held back until it is whole.
            let cut = redact_k8s::hold_from(&self.pending[..nl + 1]).unwrap_or(nl + 1);
            if cut > 0 {
                self.emit(cut)?;
            }
        }
        while self.pending.len() > MAX_LINE {
            let held = redact_k8s::hold_from(&self.pending).is_some();
            let cut = self.pending[..MAX_LINE]
                .iter()
                .rposition(|b| b.is_ascii_whitespace())
                .map_or(MAX_LINE, |i| i + 1);
            self.emit_as(cut, held)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.out.as_mut() {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for BlobWriter {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// fsyncs a folder so a new or renamed entry in it survives a crash.
pub fn sync_dir(dir: &Path) -> Result<(), EvidenceError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(EvidenceError::io(dir))
}

/// sha256 and size of a file, read in chunks.
pub fn digest_file(path: &Path) -> Result<(String, u64), EvidenceError> {
    let mut f = File::open(path).map_err(EvidenceError::io(path))?;
    let mut h = Sha256::new();
    let n = std::io::copy(&mut f, &mut h).map_err(EvidenceError::io(path))?;
    Ok((hex::encode(h.finalize()), n))
}
