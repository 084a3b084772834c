//! The parse cache: one pack file per library under the cache folder (see [`super::pack`]),
//! holding every guide parsed from that library, each keyed by the guide's path (and the path
//! it is known by in its library), its size, its modification time and the tool's build. A
//! start reads the pack once; an entry that does not match all of them, or does not read back
//! whole, is ignored and parsed again, never trusted, and a pack that is not whole (cut short,
//! from another layout or another build) is ignored as a whole. When anything changed, the new
//! pack is written to a temporary file and renamed into place once every guide is in, so a
//! killed process leaves the old pack or the new one, never a torn one. Best effort: a cache
//! folder that cannot be written only costs speed. Imports only `tsg`.

use std::collections::{BTreeSet, HashMap};
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Receiver;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::mirror::GuideDef;
use super::pack::{self, Entry};
use super::Source;
use crate::tsg::Guide;

/// Where parsed guides are kept between runs.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    stamp: String,
}

#[derive(Serialize)]
struct GuideOut<'a>(#[serde(with = "GuideDef")] &'a Guide);

#[derive(Deserialize)]
struct GuideIn(#[serde(with = "GuideDef")] Guide);

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

    /// The pack file of the library `files` belong to: named after the roots they were found
    /// under, so each library keeps its own pack.
    pub fn pack_path(&self, files: &[Source]) -> PathBuf {
        let roots: BTreeSet<&str> = files
            .iter()
            .filter_map(|s| {
                let file = s.file.to_str()?;
                Some(file.strip_suffix(s.rel.as_str()).unwrap_or(file))
            })
            .collect();
        let mut h = Sha256::new();
        for r in roots {
            h.update(r.as_bytes());
            h.update([0]);
        }
        let name = format!("library-{}.pack", hex::encode(&h.finalize()[..16]));
        self.dir.join(name)
    }

    /// The library's pack as it is on disk, read once, for one load of `files`; `None` when
    /// the cache folder cannot be made (then nothing is kept, and no guide is serialized).
    pub fn open(&self, files: &[Source]) -> Option<Opened> {
        if std::fs::create_dir_all(&self.dir).is_err() {
            return None;
        }
        let target = self.pack_path(files);
        let bytes = std::fs::read(&target).unwrap_or_default();
        let mut index = HashMap::new();
        let mut slots = Vec::new();
        if let Some(d) = pack::decode(&bytes).filter(|d| d.stamp == self.stamp) {
            for (e, payload) in d.entries {
                index.insert(key(e.file, e.rel), slots.len());
                slots.push((e.size, e.mtime_ns, payload));
            }
        }
        Some(Opened {
            dir: self.dir.clone(),
            target,
            stamp: self.stamp.clone(),
            bytes,
            index,
            slots,
        })
    }
}

fn key(file: &str, rel: &str) -> String {
    format!("{file}\0{rel}")
}

/// One load's view of a pack: the entries it held when the load started.
pub struct Opened {
    dir: PathBuf,
    target: PathBuf,
    stamp: String,
    bytes: Vec<u8>,
    index: HashMap<String, usize>,
    /// Size, mtime and payload range of each entry, in pack order.
    slots: Vec<(u64, u128, std::ops::Range<usize>)>,
}

/// What the new pack keeps for one guide: an entry of the old pack as it was, or a new one.
pub enum Slot {
    Kept(usize),
    New {
        file: String,
        rel: String,
        size: u64,
        mtime_ns: u128,
        payload: Vec<u8>,
    },
}

impl Opened {
    /// The guide parsed earlier from `file` (known as `rel`), if its entry matches `meta` and
    /// this build exactly, with the slot that keeps it in the next pack.
    pub fn get(&self, file: &str, rel: &str, meta: &Metadata) -> Option<(Guide, Slot)> {
        let at = *self.index.get(&key(file, rel))?;
        let (size, mtime, range) = self.slots.get(at)?;
        if *size != meta.len() || Some(*mtime) != mtime_ns(meta) {
            return None;
        }
        let g: GuideIn = serde_json::from_slice(self.bytes.get(range.clone())?).ok()?;
        Some((g.0, Slot::Kept(at)))
    }

    /// The new entry that keeps `guide`, parsed from `file` as it was when `meta` was read,
    /// serialized on the parse thread that parsed it.
    pub fn prepare(&self, file: &str, rel: &str, meta: &Metadata, guide: &Guide) -> Option<Slot> {
        Some(Slot::New {
            file: file.to_string(),
            rel: rel.to_string(),
            size: meta.len(),
            mtime_ns: mtime_ns(meta)?,
            payload: serde_json::to_vec(&GuideOut(guide)).ok()?,
        })
    }

    /// Gathers the slots of every guide (index in file order, slot) until the channel closes
    /// and, when the library changed, writes the new pack in file order. A failure leaves the
    /// old pack (or none) in place: the guides are parsed again next time.
    pub fn write_all(&self, slots: Receiver<(usize, Slot)>) {
        let mut got: Vec<(usize, Slot)> = slots.into_iter().collect();
        let changed =
            got.len() != self.slots.len() || got.iter().any(|(_, s)| matches!(s, Slot::New { .. }));
        if !changed {
            return;
        }
        got.sort_by_key(|(i, _)| *i);
        let old = pack::decode(&self.bytes)
            .map(|d| d.entries)
            .unwrap_or_default();
        let entries: Vec<Entry> = got
            .iter()
            .filter_map(|(_, s)| match s {
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
                    payload,
                }),
            })
            .collect();
        let bytes = pack::encode(&self.stamp, entries.into_iter());
        if !self.dir.is_dir() && std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        let tmp = self.target.with_extension(format!(
            "tmp.{}.{}",
            std::process::id(),
            TMP.fetch_add(1, Ordering::Relaxed)
        ));
        if std::fs::write(&tmp, &bytes).is_err() || std::fs::rename(&tmp, &self.target).is_err() {
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
