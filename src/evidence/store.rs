//! Storing a probe's output apart from the journal: [`OutputStore`] is a cheap, `Send` handle
//! on a session's `blobs/` folder and redactor, so a large output can be redacted and written
//! on a thread of its own (the navigator's frame loop never waits for it) while the session
//! itself appends the run's record afterwards. Streams from a reader, so a 50 MB output never
//! sits in memory. IO (std::fs). Must not import `cli`, `tui` or `query`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::blob::BlobWriter;
use super::error::EvidenceError;
use super::redact::Redactor;
use super::session::StoredOutput;
use super::INLINE_MAX;

/// Where and how a session stores outputs: its `blobs/` folder and its redactor.
#[derive(Debug, Clone)]
pub struct OutputStore {
    pub(super) blobs: PathBuf,
    pub(super) redactor: Arc<Redactor>,
}

impl OutputStore {
    /// Redacts and stores `bytes`: inline when it is UTF-8 and at most [`INLINE_MAX`] bytes
    /// after redaction, else as a blob.
    pub fn store(&self, bytes: &[u8]) -> Result<StoredOutput, EvidenceError> {
        if bytes.len() <= INLINE_MAX {
            if let Ok(text) = std::str::from_utf8(bytes) {
                let (text, redactions) = self.redactor.redact_str(text);
                if text.len() <= INLINE_MAX {
                    let sha256 = hex::encode(Sha256::digest(text.as_bytes()));
                    return Ok(StoredOutput {
                        sha256,
                        size: text.len() as u64,
                        inline: Some(text),
                        blob: None,
                        redactions,
                    });
                }
            }
        }
        self.blob(bytes, std::io::empty())
    }

    /// [`OutputStore::store`] for an output read from `src` (a spill file): only the first
    /// [`INLINE_MAX`] + 1 bytes are held; the rest streams through the blob writer.
    pub fn store_read(&self, mut src: impl Read) -> Result<StoredOutput, EvidenceError> {
        let mut first = Vec::new();
        (&mut src)
            .take(INLINE_MAX as u64 + 1)
            .read_to_end(&mut first)
            .map_err(EvidenceError::io(&self.blobs))?;
        if first.len() <= INLINE_MAX {
            return self.store(&first);
        }
        self.blob(&first, src)
    }

    /// Writes `first` then all of `rest` into one redacted blob.
    fn blob(&self, first: &[u8], mut rest: impl Read) -> Result<StoredOutput, EvidenceError> {
        let mut w = BlobWriter::new(&self.blobs, self.redactor.clone())?;
        w.write_all(first)
            .and_then(|_| std::io::copy(&mut rest, &mut w).map(|_| ()))
            .map_err(EvidenceError::io(&self.blobs))?;
        let b = w.finish()?;
        Ok(StoredOutput {
            sha256: b.sha256.clone(),
            size: b.size,
            inline: None,
            blob: Some(b.sha256),
            redactions: b.redactions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &std::path::Path) -> OutputStore {
        OutputStore {
            blobs: dir.join("blobs"),
            redactor: Arc::new(Redactor::default()),
        }
    }

    #[test]
    fn a_small_output_read_from_a_file_is_stored_inline_and_redacted() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path());
        let text = "ok\npassword=hunter2-not-real\n";
        let got = s.store_read(text.as_bytes()).unwrap();
        let inline = got.inline.clone().unwrap();
        assert!(!inline.contains("hunter2"), "{inline}");
        assert_eq!(got, s.store(text.as_bytes()).unwrap());
    }

    #[test]
    fn a_large_output_streams_into_one_blob_equal_to_storing_it_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path());
        let mut big = String::new();
        for i in 0..20_000 {
            big.push_str(&format!("line {i} token=ghp_{:036}\n", i));
        }
        let streamed = s.store_read(big.as_bytes()).unwrap();
        let whole = s.store(big.as_bytes()).unwrap();
        assert_eq!(streamed, whole);
        let blob = std::fs::read_to_string(tmp.path().join("blobs").join(&streamed.sha256));
        let blob = blob.unwrap();
        assert!(blob.starts_with("line 0 "), "{}", &blob[..40]);
        assert!(!blob.contains("ghp_0000"), "redacted in the blob");
        assert_eq!(streamed.redactions, 20_000);
    }
}
