//! The parse cache: one file per guide under the cache folder, keyed by the guide's path (and
//! the path it is known by in its library), its size, its modification time and the tool's
//! build. An entry that does not match all of them, or does not read back whole, is ignored and
//! replaced, never trusted. Entries are written to a temporary file and renamed into place, so
//! a killed process leaves no half-written entry. Best effort: a cache folder that cannot be
//! written only costs speed. Imports only `tsg`.

use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::mirror::GuideDef;
use crate::tsg::Guide;

/// Where parsed guides are kept between runs.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    stamp: String,
}

#[derive(Serialize)]
struct EntryOut<'a> {
    stamp: &'a str,
    file: &'a str,
    rel: &'a str,
    size: u64,
    mtime_ns: u128,
    #[serde(with = "GuideDef")]
    guide: &'a Guide,
}

#[derive(Deserialize)]
struct EntryIn {
    stamp: String,
    file: String,
    rel: String,
    size: u64,
    mtime_ns: u128,
    #[serde(with = "GuideDef")]
    guide: Guide,
}

static TMP: AtomicU64 = AtomicU64::new(0);

impl Cache {
    /// A cache in `dir` for this build of tsgnav.
    pub fn new(dir: PathBuf) -> Cache {
        Cache::with_stamp(dir, tool_stamp())
    }

    /// A cache whose entries are valid only for `stamp` (a tool version and build).
    pub fn with_stamp(dir: PathBuf, stamp: String) -> Cache {
        Cache { dir, stamp }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn entry(&self, file: &str, rel: &str) -> PathBuf {
        let mut h = Sha256::new();
        h.update(file.as_bytes());
        h.update([0]);
        h.update(rel.as_bytes());
        self.dir
            .join(format!("{}.json", hex::encode(&h.finalize()[..16])))
    }

    /// The guide parsed earlier from `file` (known as `rel`), if the entry matches `meta` and
    /// this build exactly.
    pub fn get(&self, file: &str, rel: &str, meta: &Metadata) -> Option<Guide> {
        let bytes = std::fs::read(self.entry(file, rel)).ok()?;
        let e: EntryIn = serde_json::from_slice(&bytes).ok()?;
        (e.stamp == self.stamp
            && e.file == file
            && e.rel == rel
            && e.size == meta.len()
            && Some(e.mtime_ns) == mtime_ns(meta))
        .then_some(e.guide)
    }

    /// The entry that keeps `guide`, parsed from `file` as it was when `meta` was read,
    /// serialized but not yet written: the parse threads prepare
    /// entries and one writer thread writes them, so a slow disk never holds up parsing.
    pub fn prepare(
        &self,
        file: &str,
        rel: &str,
        meta: &Metadata,
        guide: &Guide,
    ) -> Option<Pending> {
        let mtime_ns = mtime_ns(meta)?;
        let entry = EntryOut {
            stamp: &self.stamp,
            file,
            rel,
            size: meta.len(),
            mtime_ns,
            guide,
        };
        let bytes = serde_json::to_vec(&entry).ok()?;
        Some(Pending {
            dir: self.dir.clone(),
            target: self.entry(file, rel),
            bytes,
        })
    }
}

/// A serialized cache entry waiting to be written (see [`Cache::prepare`]).
pub struct Pending {
    dir: PathBuf,
    target: PathBuf,
    bytes: Vec<u8>,
}

impl Pending {
    /// Writes the entry to a temporary file and renames it into place; any failure leaves the
    /// cache without this entry (the guide is parsed again next time), never a torn entry.
    pub fn write(self) {
        if !self.dir.is_dir() && std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        let tmp = self.target.with_extension(format!(
            "tmp.{}.{}",
            std::process::id(),
            TMP.fetch_add(1, Ordering::Relaxed)
        ));
        if std::fs::write(&tmp, &self.bytes).is_err()
            || std::fs::rename(&tmp, &self.target).is_err()
        {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

fn mtime_ns(meta: &Metadata) -> Option<u128> {
    let t = meta.modified().ok()?;
    Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos())
}

/// This build of tsgnav: its version and the modification time of its executable, so a
/// rebuilt binary (whose parser may have changed) never reads an older build's entries.
pub fn tool_stamp() -> String {
    let built = std::env::current_exe()
        .and_then(std::fs::metadata)
        .ok()
        .as_ref()
        .and_then(mtime_ns)
        .unwrap_or(0);
    format!("{}+{built}", env!("CARGO_PKG_VERSION"))
}
