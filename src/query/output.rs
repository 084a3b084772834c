//! Probe output: kept in memory up to a limit, spilled whole to a temp file past it (and
//! still readable), streamed chunk by chunk to the runner's event channel as it arrives.
//! Imports std and tokio's mpsc only.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::{Event, ProbeId};

/// How much output stays in memory before it spills to disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputLimits {
    pub memory: usize,
}

impl Default for OutputLimits {
    fn default() -> Self {
        OutputLimits {
            memory: 1024 * 1024,
        }
    }
}

/// The output of one run. Cheap to clone; the spill file is removed when the last clone drops.
#[derive(Debug, Clone, Default)]
pub struct Output {
    head: Vec<u8>,
    total: u64,
    spill: Option<Arc<Spill>>,
    spill_error: Option<String>,
}

#[derive(Debug)]
struct Spill {
    path: PathBuf,
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Output {
    /// Output held entirely in memory (for results built without a sink).
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        Output {
            total: bytes.len() as u64,
            head: bytes,
            ..Output::default()
        }
    }

    /// Total bytes produced.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The first bytes, up to the memory limit.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// Whether more was produced than memory holds.
    pub fn is_truncated(&self) -> bool {
        self.total > self.head.len() as u64
    }

    /// The file holding the whole output, when it spilled.
    pub fn spill_path(&self) -> Option<&Path> {
        self.spill.as_deref().map(|s| s.path.as_path())
    }

    /// Why spilling failed, if it did (the head is then all that is left).
    pub fn spill_error(&self) -> Option<&str> {
        self.spill_error.as_deref()
    }

    /// The whole output: from the spill file when there is one.
    pub fn read_all(&self) -> io::Result<Vec<u8>> {
        match &self.spill {
            Some(s) => {
                let mut buf = Vec::new();
                File::open(&s.path)?.read_to_end(&mut buf)?;
                Ok(buf)
            }
            None => Ok(self.head.clone()),
        }
    }

    /// The in-memory part as text (lossy UTF-8), with a note when more is on disk.
    pub fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        if self.is_truncated() {
            let where_ = self
                .spill_path()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "lost".into());
            s.push_str(&format!(
                "\n… {} bytes in all; the rest is in {where_}\n",
                self.total
            ));
        }
        s
    }
}

/// Where an executor writes output. Owned by one run; `finish` yields the [`Output`].
#[derive(Debug)]
pub struct OutputSink {
    id: ProbeId,
    events: Option<UnboundedSender<Event>>,
    limits: OutputLimits,
    out: Output,
    file: Option<File>,
}

static SPILL_COUNTER: AtomicU64 = AtomicU64::new(0);

impl OutputSink {
    pub fn new(id: ProbeId, events: Option<UnboundedSender<Event>>, limits: OutputLimits) -> Self {
        OutputSink {
            id,
            events,
            limits,
            out: Output::default(),
            file: None,
        }
    }

    /// A sink that streams nowhere (tests, one-off runs).
    pub fn detached(id: ProbeId) -> Self {
        Self::new(id, None, OutputLimits::default())
    }

    pub fn id(&self) -> &ProbeId {
        &self.id
    }

    /// Appends a chunk: streamed as an `Event::Output`, kept in memory or spilled.
    pub fn write(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        if let Some(tx) = &self.events {
            let _ = tx.send(Event::Output {
                id: self.id.clone(),
                chunk: chunk.to_vec(),
            });
        }
        self.out.total += chunk.len() as u64;
        let room = self.limits.memory.saturating_sub(self.out.head.len());
        if self.file.is_none() && chunk.len() <= room {
            self.out.head.extend_from_slice(chunk);
            return;
        }
        if self.file.is_none() && self.out.spill_error.is_none() {
            if let Err(e) = self.open_spill() {
                self.out.spill_error = Some(e.to_string());
            }
        }
        let take = room.min(chunk.len());
        self.out.head.extend_from_slice(&chunk[..take]);
        if let Some(f) = &mut self.file {
            if let Err(e) = f.write_all(chunk) {
                self.out.spill_error = Some(e.to_string());
                self.file = None;
            }
        }
    }

    /// Writes text.
    pub fn write_str(&mut self, s: &str) {
        self.write(s.as_bytes());
    }

    fn open_spill(&mut self) -> io::Result<()> {
        let n = SPILL_COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("tsgnav-output-{}-{n}.log", std::process::id());
        let path = std::env::temp_dir().join(name);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        self.out.spill = Some(Arc::new(Spill { path }));
        f.write_all(&self.out.head)?;
        self.file = Some(f);
        Ok(())
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> Output {
        if let Some(f) = &mut self.file {
            if let Err(e) = f.flush() {
                self.out.spill_error = Some(e.to_string());
            }
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_stays_in_memory() {
        let mut s = OutputSink::detached(ProbeId("a#b/1".into()));
        s.write_str("hello ");
        s.write_str("world");
        let o = s.finish();
        assert_eq!(o.head(), b"hello world");
        assert!(!o.is_truncated());
        assert!(o.spill_path().is_none());
        assert_eq!(o.read_all().unwrap(), b"hello world");
    }

    #[test]
    fn large_output_spills_and_stays_readable() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut s = OutputSink::new(
            ProbeId("a#b/1".into()),
            Some(tx),
            OutputLimits { memory: 10 },
        );
        let chunks: Vec<String> = (0..50).map(|i| format!("line {i}\n")).collect();
        for c in &chunks {
            s.write_str(c);
        }
        let o = s.finish();
        let all = chunks.concat();
        assert_eq!(o.head(), &all.as_bytes()[..10]);
        assert_eq!(o.total(), all.len() as u64);
        assert!(o.is_truncated());
        let path = o.spill_path().unwrap().to_path_buf();
        assert_eq!(o.read_all().unwrap(), all.as_bytes());
        assert!(o.text().contains(&path.display().to_string()));
        let mut streamed = Vec::new();
        while let Ok(Event::Output { chunk, .. }) = rx.try_recv() {
            streamed.extend(chunk);
        }
        assert_eq!(streamed, all.as_bytes());
        drop(o);
        assert!(!path.exists(), "spill file removed with the last clone");
    }
}
