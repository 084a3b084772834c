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
    /// A PEM private key block longer than [`MAX_LINE`] was cut: its BEGIN line went out
    /// (redacted to the cut) and its body is dropped until its END line. `Some(true)` once a
    /// redaction marker stands for it.
    in_pem: Option<bool>,
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
            in_pem: None,
        })
    }

    /// Redacts and writes `pending[..end]`, keeping the rest.
    fn emit(&mut self, end: usize) -> std::io::Result<()> {
        self.emit_as(end, false)
    }

    /// [`BlobWriter::emit`]; `force_secret` redacts every `data:` value (a held document
    /// grew too long to wait for its `kind`).
    fn emit_as(&mut self, end: usize, force_secret: bool) -> std::io::Result<()> {
        let mut start = 0;
        if let Some(marked) = self.in_pem {
            if !marked {
                self.redactions += 1;
                self.put(PEM_MARKER)?;
                self.in_pem = Some(true);
            }
            match find(&self.pending[..end], PEM_END) {
                Some(e) => {
                    self.in_pem = None;
                    start = e;
                }
                None => {
                    // Still the key's body: nothing of it is written. A tail that may be the
                    // start of the END line stays for the next chunk.
                    let keep = partial_tail(&self.pending[..end], PEM_END);
                    self.pending.drain(..end - keep);
                    return Ok(());
                }
            }
        }
        let chunk = &self.pending[start..end];
        let open = redact_k8s::open_pem(chunk);
        let (bytes, n) = self.redactor.redact_chunk(chunk, force_secret);
        let bytes = bytes.into_owned();
        self.redactions += n;
        self.pending.drain(..end);
        self.put(&bytes)?;
        self.in_pem = open.then(|| bytes.ends_with(PEM_MARKER));
        Ok(())
    }

    /// Hashes and writes redacted bytes.
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hasher.update(bytes);
        self.size += bytes.len() as u64;
        match self.out.as_mut() {
            Some(out) => out.write_all(bytes),
            None => Ok(()),
        }
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
            let mut cut = self.pending[..MAX_LINE]
                .iter()
                .rposition(|b| b.is_ascii_whitespace())
                .map_or(MAX_LINE, |i| i + 1);
            // Never inside a PEM BEGIN line: the chunk either ends before it or holds it whole
            // (so the key is known as one and its body after the cut is dropped).
            if let Some((begin, header_end)) = redact_k8s::pem_header(&self.pending) {
                if cut > begin && cut < header_end {
                    cut = if begin > 0 { begin } else { header_end };
                }
            }
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

const PEM_END: &[u8] = b"-----END";
const PEM_MARKER: &[u8] = b"[REDACTED:pem-private-key]";

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

/// How many bytes at the end of `h` are a proper start of `n`.
fn partial_tail(h: &[u8], n: &[u8]) -> usize {
    (1..n.len())
        .rev()
        .find(|&k| h.len() >= k && h[h.len() - k..] == n[..k])
        .unwrap_or(0)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A private key whose body is longer than [`MAX_LINE`], written in `chunk`-byte pieces.
    fn store(text: &[u8], chunk: usize) -> String {
        let dir = tempfile::tempdir().expect("tmp");
        let mut w = BlobWriter::new(dir.path(), Arc::new(Redactor::default())).expect("writer");
        for piece in text.chunks(chunk) {
            w.write_all(piece).expect("write");
        }
        let b = w.finish().expect("finish");
        let out = std::fs::read(dir.path().join(&b.sha256)).expect("blob");
        String::from_utf8_lossy(&out).into_owned()
    }

    fn long_key(line_end: &str) -> String {
        let mut t = String::from("before the key\n-----BEGIN RSA PRIVATE KEY-----");
        t.push_str(line_end);
        // 9,000 lines of 64 characters: about 580 KiB, past the cut twice.
        for i in 0..9000 {
            t.push_str(&format!("ZmFrZWJvZHk{i:053}{line_end}"));
        }
        t.push_str("-----END RSA PRIVATE KEY-----");
        t.push_str(line_end);
        t.push_str("after the key\n");
        t
    }

    #[test]
    fn a_private_key_longer_than_the_cut_is_redacted_whole() {
        for (end, what) in [("\n", "multi-line"), ("\\n", "JSON-escaped, one line")] {
            let text = long_key(end);
            assert!(text.len() > 2 * MAX_LINE);
            // Small writes are covered by the rule tests; a held block is rescanned per write.
            for chunk in [4093, 65536, 1 << 20] {
                let out = store(text.as_bytes(), chunk);
                assert!(
                    !out.contains("ZmFrZWJvZHk"),
                    "{what}, {chunk}-byte writes: a piece of the key's body was stored"
                );
                assert!(out.contains("before the key"), "{what}");
                assert!(out.contains("[REDACTED:pem-private-key]"), "{what}");
                assert!(
                    out.contains("-----END RSA PRIVATE KEY-----") && out.contains("after the key"),
                    "{what}, {chunk}: what follows the key is kept"
                );
            }
        }
    }

    #[test]
    fn the_tail_of_a_cut_end_line_is_recognised() {
        assert_eq!(partial_tail(b"abc-----EN", PEM_END), 7);
        assert_eq!(partial_tail(b"abc", PEM_END), 0);
        assert_eq!(find(b"xx-----END RSA", PEM_END), Some(2));
    }
}
