//! The writing side of the parse cache: which entry a slot of the new pack keeps, and a pack
//! streamed to its temporary file and renamed into place whole, or removed. Part of `load`
//! (file IO); imports only its parent `cache` and `pack`.

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use super::super::pack::{self, Entry};
use super::Slot;

/// The entry that `s` keeps: the old pack's entry `old[at]`, or the new one.
pub(super) fn entry<'a>(
    old: &'a [(Entry<'a>, std::ops::Range<usize>)],
    s: &'a Slot,
) -> Option<Entry<'a>> {
    match s {
        Slot::Kept(at) => old.get(*at).map(|(e, _)| e.clone()),
        Slot::New {
            file,
            rel,
            size,
            mtime_ns,
            payload,
        } => Some(Entry {
            file,
            rel,
            size: *size,
            mtime_ns: *mtime_ns,
            crc: 0,
            payload,
        }),
    }
}

/// A pack being streamed to its temporary file; `writer` is `None` once a write failed (the
/// temporary file is then removed and the old pack stays).
pub(super) struct Streaming {
    pub(super) tmp: PathBuf,
    pub(super) writer: Option<pack::Writer<BufWriter<std::fs::File>>>,
}

impl Streaming {
    pub(super) fn add(&mut self, e: Option<Entry<'_>>) {
        let ok = match (self.writer.as_mut(), e) {
            (Some(w), Some(e)) => w.entry(&e).is_ok(),
            (Some(_), None) => true,
            (None, _) => false,
        };
        if !ok {
            self.writer = None;
        }
    }

    /// Gives the pack up: the temporary file is removed, nothing is renamed.
    pub(super) fn discard(self) {
        drop(self.writer);
        let _ = std::fs::remove_file(&self.tmp);
    }

    /// Finishes the pack and renames it to `target`; on any failure removes it.
    pub(super) fn close(self, target: &Path) {
        let done = self.writer.map(|w| {
            w.finish()
                .and_then(|b| b.into_inner().map_err(|e| e.into_error()))
        });
        let renamed = matches!(done, Some(Ok(_))) && std::fs::rename(&self.tmp, target).is_ok();
        if !renamed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}
