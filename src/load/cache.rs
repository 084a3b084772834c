//! The parse cache: one pack file per library under the cache folder (see [`super::pack`]),
//! holding every guide parsed from that library, each keyed by the guide's path (and the path
//! it is known by in its library), its size, its modification time and the tool's build. A
//! start reads the pack once; an entry that does not match all of them, fails its checksum or
//! does not read back whole, is ignored and parsed again, never trusted, and a pack that is not
//! whole (cut short, from another layout or another build) is ignored as a whole. A guide's
//! payload is the CRC-32 of the guide's text and the mirror of the model in `bincode` (binary: no
//! text to scan or unescape), with each long section written as where it lies in the guide's file
//! rather than as its text (`super::later`): at 20,000 guides 82 MB, against the 324 MB of the
//! layout that copied the sections and the 390 MB of JSON of the first. When anything
//! changed, the entries encoded as the guides are parsed wait (as bytes, not as a second copy
//! of the model) until every guide is in; then the new pack is streamed to a temporary file
//! and renamed into place, so a killed process leaves the old pack or the new one, never a
//! torn one. Best effort: a cache folder that cannot
//! be written only costs speed. The mapping itself (its pages let go a chunk at a time once
//! the entries in it are decoded, the temporary packs of killed writers removed) is
//! [`mapped`]. Imports only `tsg`.

use std::fs::Metadata;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bincode::Options;
use serde::{Deserialize, Serialize};

#[cfg(test)]
mod forget_tests;
mod mapped;
mod names;
mod streaming;

use super::later::{self, Recorded};
use super::mirror::GuideDef;
use super::pack;
use crate::tsg::Guide;
use mapped::{remove_orphans, Bytes, Pending};
pub(super) use names::mtime_ns;
pub use names::{key, tool_stamp};
use streaming::{entry, Streaming};

/// Where parsed guides are kept between runs. Clones share one [`Cache::abandon`] switch.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    stamp: String,
    abandoned: Arc<AtomicBool>,
}

#[derive(Serialize)]
struct GuideOut<'a>(#[serde(with = "GuideDef")] &'a Guide);

#[derive(Deserialize)]
struct GuideIn(#[serde(with = "GuideDef")] Guide);

static TMP: AtomicU64 = AtomicU64::new(0);

/// The payload encoding: bincode with variable-length integers (line numbers and lengths are
/// small), trailing bytes refused.
fn payload_codec() -> impl Options {
    bincode::DefaultOptions::new()
}

impl Cache {
    /// A cache in `dir` for this build of tsgnav.
    pub fn new(dir: PathBuf) -> Cache {
        Cache::with_stamp(dir, tool_stamp())
    }

    /// A cache whose entries are valid only for `stamp` (a tool version and build).
    pub fn with_stamp(dir: PathBuf, stamp: String) -> Cache {
        Cache {
            dir,
            stamp,
            abandoned: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Gives up the pack being written (from this cache or a clone of it): its temporary file
    /// is removed at the next entry and nothing is renamed into place, so the old pack (or
    /// none) stays and the next start parses what it lacks. For a quit that will not wait.
    pub fn abandon(&self) {
        self.abandoned.store(true, Ordering::SeqCst);
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The pack file of the library read from `roots` (see [`names::pack_name`]).
    pub fn pack_path(&self, roots: &[PathBuf]) -> PathBuf {
        self.dir.join(names::pack_name(roots))
    }

    /// Whether the library read from `roots` has a pack on disk (a warm start, as far as a
    /// look before the walk can tell).
    pub fn has_pack(&self, roots: &[PathBuf]) -> bool {
        self.pack_path(roots).is_file()
    }

    /// The pack of the library read from `roots` as it is on disk, read once, for one load;
    /// `None` when the cache folder cannot be made (then nothing is kept, and no guide is
    /// serialized). Only a pack of this build whose guides were finished with the work named
    /// `finish` (see [`super::Finish`]) is read, and the next pack is stamped so. Every entry
    /// counts as wanted until [`Opened::forget_unfound`] is told which files the walk found.
    pub fn open(&self, roots: &[PathBuf], finish: &str) -> Option<Opened> {
        if std::fs::create_dir_all(&self.dir).is_err() {
            return None;
        }
        let target = self.pack_path(roots);
        remove_orphans(&target);
        let bytes = Bytes::map(&target);
        let mut index = hashbrown::HashMap::new();
        let mut slots = Vec::new();
        let stamp = match finish {
            "" => self.stamp.clone(),
            name => format!("{}; finished with {name}", self.stamp),
        };
        if let Some(d) = pack::decode(&bytes).filter(|d| d.stamp == stamp) {
            index.reserve(d.entries.len());
            slots.reserve(d.entries.len());
            for (e, payload) in d.entries {
                index.insert(key(e.file, e.rel), slots.len());
                slots.push((e.size, e.mtime_ns, e.crc, payload));
            }
        }
        // The framing was read (the index holds copies); the payloads' pages go a chunk at a
        // time as their guides are decoded (another build's pack has none wanted: all at once).
        let ranges = slots.iter().map(|s| s.3.clone());
        let pending = Pending::new(bytes.len(), ranges, |r| bytes.release(r));
        Some(Opened {
            dir: self.dir.clone(),
            target,
            stamp,
            bytes,
            index,
            slots,
            pending,
            abandoned: Arc::clone(&self.abandoned),
        })
    }
}

/// One load's view of a pack: the entries it held when the load started.
pub struct Opened {
    dir: PathBuf,
    target: PathBuf,
    stamp: String,
    bytes: Bytes,
    /// Entry by [`key`] (hashbrown's map: foldhash, seeded per process, rather than std's
    /// SipHash, which was 4.5 % of a warm start's CPU with this and the navigator's tables).
    index: hashbrown::HashMap<String, usize>,
    /// Size, mtime, checksum and payload range of each entry, in pack order.
    slots: Vec<(u64, u128, u32, std::ops::Range<usize>)>,
    /// The wanted payloads not read yet, by chunk of the pack.
    pending: Pending,
    abandoned: Arc<AtomicBool>,
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
    /// The entry of `file` (known as `rel`) in the pack, if it has one, for [`Opened::get`].
    pub fn find(&self, file: &str, rel: &str) -> Option<usize> {
        self.index.get(&key(file, rel)).copied()
    }

    /// The guide of entry `at` (found with [`Opened::find`] for `source`), if the entry
    /// matches `seen` and this build exactly, with the slot that keeps it in the next pack. Its
    /// long nodes' bodies are left in the guide's file, read when first read (`super::later`),
    /// and checked then against the checksum of the text parsed. Either
    /// way the entry is done with: its chunk of the pack is let go once every entry in it is.
    pub fn get(
        &self,
        at: usize,
        seen: &super::Seen,
        source: &super::Source,
    ) -> Option<(Guide, Slot)> {
        let (size, mtime, crc, range) = self.slots.get(at)?;
        let decode = |payload: &[u8]| {
            let (text_crc, guide) = payload.split_first_chunk::<4>()?;
            let record = Recorded::of(source.file.clone(), *size, u32::from_le_bytes(*text_crc));
            later::decoding(record, || {
                payload_codec().deserialize::<GuideIn>(guide).ok()
            })
        };
        let guide = (*size == seen.len && Some(*mtime) == seen.mtime_ns)
            .then(|| self.bytes.get(range.clone()))
            .flatten()
            .filter(|payload| pack::intact(payload, *crc))
            .and_then(decode);
        self.pending
            .read(range.clone(), |chunk| self.bytes.release(chunk));
        Some((guide?.0, Slot::Kept(at)))
    }

    /// The walk is over and found the files whose [`key`]s are `found`: the entries of files
    /// it did not find (gone from the library, or renamed) will never be asked for, so their
    /// pages need not wait for the end of the load.
    pub fn forget_unfound(&self, found: &[String]) {
        let mut asked = vec![false; self.slots.len()];
        for k in found {
            if let Some(&at) = self.index.get(k.as_str()) {
                asked[at] = true;
            }
        }
        for (s, _) in self.slots.iter().zip(&asked).filter(|(_, a)| !**a) {
            self.pending
                .read(s.3.clone(), |chunk| self.bytes.release(chunk));
        }
    }

    /// The new entry that keeps `guide`, parsed from `file` as it was when `meta` was read,
    /// serialized on the parse thread that parsed it. The payload is `crc`, the CRC-32 of the
    /// text parsed (four bytes), and the guide, whose sections left in the file are written as
    /// where they lie there (`super::later`): the pack holds no copy of their text.
    pub fn prepare(
        &self,
        file: &str,
        rel: &str,
        meta: &Metadata,
        guide: &Guide,
        crc: u32,
    ) -> Option<Slot> {
        let mut payload = crc.to_le_bytes().to_vec();
        payload_codec()
            .serialize_into(&mut payload, &GuideOut(guide))
            .ok()?;
        Some(Slot::New {
            file: file.to_string(),
            rel: rel.to_string(),
            size: meta.len(),
            mtime_ns: mtime_ns(meta)?,
            payload,
        })
    }

    /// Takes the slots of every guide (a load gathers them while it parses) and, when the
    /// library changed (a new entry, or a guide gone), streams the new pack to a temporary
    /// file slot by slot, then renames it into place. A failure leaves the old pack (or none)
    /// in place: the guides are parsed again next time.
    pub fn write_all(&self, slots: impl IntoIterator<Item = Vec<(usize, Slot)>>) {
        // The old pack's framing is read again only when a new pack is written (so an
        // unchanged library does not bring the whole pack back into memory).
        let framing = std::cell::OnceCell::new();
        let old = || {
            framing
                .get_or_init(|| {
                    pack::decode(&self.bytes)
                        .map(|d| d.entries)
                        .unwrap_or_default()
                })
                .as_slice()
        };
        // Entries kept as they were wait here (as indices) until a new one shows the pack must
        // be written; an unchanged library writes nothing.
        let mut kept: Vec<Slot> = Vec::new();
        let mut out: Option<Streaming> = None;
        let mut seen = 0;
        for (_, slot) in slots.into_iter().flatten() {
            if self.abandoned.load(Ordering::SeqCst) {
                return out.map_or((), Streaming::discard);
            }
            seen += 1;
            if out.is_none() && matches!(slot, Slot::Kept(_)) {
                kept.push(slot);
                continue;
            }
            let w = out.get_or_insert_with(|| self.stream());
            for s in kept.drain(..).chain(std::iter::once(slot)) {
                w.add(entry(old(), &s));
            }
        }
        if out.is_none() && seen == self.slots.len() {
            return;
        }
        let mut w = out.unwrap_or_else(|| self.stream());
        for s in kept.drain(..) {
            w.add(entry(old(), &s));
        }
        if self.slowed() {
            return w.discard();
        }
        w.close(&self.target);
    }

    /// `TSGNAV_TEST_SLOW_PACK=MS` holds a finished pack back for that long before it is
    /// renamed into place, so a test on a real terminal can see the quit wait for it and give
    /// it up (a pack of a small library is written in a blink). Whether it was abandoned then.
    fn slowed(&self) -> bool {
        let ms = std::env::var("TSGNAV_TEST_SLOW_PACK")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        let until = Instant::now() + Duration::from_millis(ms);
        while Instant::now() < until && !self.abandoned.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.abandoned.load(Ordering::SeqCst)
    }

    /// A new pack on a temporary file beside the target.
    fn stream(&self) -> Streaming {
        let tmp = self.target.with_extension(format!(
            "tmp.{}.{}",
            std::process::id(),
            TMP.fetch_add(1, Ordering::Relaxed)
        ));
        let made = self.dir.is_dir() || std::fs::create_dir_all(&self.dir).is_ok();
        let writer = made
            .then(|| std::fs::File::create(&tmp).ok())
            .flatten()
            .and_then(|f| {
                pack::Writer::new(BufWriter::with_capacity(1 << 20, f), &self.stamp).ok()
            });
        Streaming { tmp, writer }
    }
}
