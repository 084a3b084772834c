//! Node bodies a warm load leaves in the parse cache's pack, read back when an edge asks ([`hold`]:
//! the runtime for the guide it shows; `lint` where a rule needs a section). Decoding a guide from
//! the pack records where each body lies in its entry instead of copying it ([`decoding`] and
//! [`body`]); a guide's entry is read back from the pack's open file at the first body asked for,
//! checked against the checksum it was written with, and kept for its other bodies. A pack that no
//! longer holds the entry as it was (changed in place: tsgnav itself only ever renames a new pack
//! over the old, whose open file still reads as it did) is not trusted: the guide's file is parsed
//! again, when it is still the file the load read, or the body says why it cannot be shown. Part of
//! `load` (file IO); imports only `tsg` and its `load` siblings.

use std::cell::RefCell;
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use super::Source;
use crate::tsg::{Body, Fetch, Guide};

/// Bodies this short are copied at once: a record of where one lies costs as much memory.
const HELD_UP_TO: usize = 48;

/// One guide's entry in a pack, as a load decoded it.
#[derive(Debug)]
pub struct Recorded {
    pack: Arc<File>,
    /// Where the entry's payload lies in the pack, and its checksum.
    at: Range<u64>,
    crc: u32,
    /// The guide's file and the name it has in its library, with the size and modification
    /// time the load saw (the entry's).
    file: PathBuf,
    rel: String,
    size: u64,
    mtime_ns: u128,
    /// The payload read back, once (none when it no longer reads back whole).
    payload: OnceLock<Option<Box<[u8]>>>,
    /// The guide's bodies from its file parsed again, once, when the payload does not read
    /// back (or why they cannot be had): every section of the guide is then read from these.
    reparsed: OnceLock<Result<Vec<String>, String>>,
}

impl Recorded {
    /// The record of `source`'s entry, whose payload is `range` of `pack` (with checksum `crc`),
    /// written for the file as it was then (`size`, `mtime_ns`).
    pub fn of(
        pack: &Arc<File>,
        range: &Range<usize>,
        crc: u32,
        source: &Source,
        size: u64,
        mtime_ns: u128,
    ) -> Arc<dyn Fetch> {
        Arc::new(Recorded {
            pack: Arc::clone(pack),
            at: range.start as u64..range.end as u64,
            crc,
            file: source.file.clone(),
            rel: source.rel.clone(),
            size,
            mtime_ns,
            payload: OnceLock::new(),
            reparsed: OnceLock::new(),
        })
    }

    fn read_back(&self) -> Option<Box<[u8]>> {
        let len = usize::try_from(self.at.end.checked_sub(self.at.start)?).ok()?;
        let mut buf = vec![0; len];
        self.pack.read_exact_at(&mut buf, self.at.start).ok()?;
        super::pack::intact(&buf, self.crc).then(|| buf.into_boxed_slice())
    }

    /// Node `node`'s body from the guide's file, parsed again (once for all its sections), if
    /// it is still the file the load read (same size, same modification time): then it parses
    /// to the same nodes.
    fn parse_again(&self, node: usize) -> Result<String, String> {
        match self.reparsed.get_or_init(|| self.bodies_again()) {
            Ok(bodies) => Ok(bodies.get(node).cloned().unwrap_or_default()),
            Err(why) => Err(why.clone()),
        }
    }

    /// Every body of the guide's file parsed again, or why it cannot be (see [`parse_again`]).
    fn bodies_again(&self) -> Result<Vec<String>, String> {
        let unchanged = std::fs::metadata(&self.file).is_ok_and(|m| {
            m.len() == self.size && Some(self.mtime_ns) == super::cache::mtime_ns(&m)
        });
        let text = unchanged
            .then(|| crate::load::read_text(&self.file).ok())
            .flatten();
        let Some(text) = text else {
            return Err(format!(
                "> This section's text cannot be shown: the parse cache changed while tsgnav \
                 was running, and {} is no longer the file that was loaded. Quit and start \
                 tsgnav again to read the guide as it is now.",
                self.file.display()
            ));
        };
        let guide = crate::tsg::parse_guide(&self.rel, &text);
        Ok(guide
            .nodes
            .iter()
            .map(|n| n.body.fetch().to_string())
            .collect())
    }
}

impl Fetch for Recorded {
    fn fetch(&self, node: usize, range: Range<usize>) -> Result<String, String> {
        let payload = self.payload.get_or_init(|| self.read_back());
        let text = payload
            .as_deref()
            .and_then(|p| p.get(range))
            .and_then(|b| std::str::from_utf8(b).ok());
        match text {
            Some(t) => Ok(t.to_string()),
            None => self.parse_again(node),
        }
    }
}

/// Reads in every body of `guide` still left in the parse cache (one read of the guide's pack
/// entry), so that what shows, searches or lints it finds its text in memory. The edge's call:
/// the navigator's runtime makes it for the guide it is about to show, before each frame.
pub fn hold(guide: &Guide) {
    for n in guide.nodes.iter().filter(|n| !n.body.is_held()) {
        n.body.fetch();
    }
}

/// The guide being decoded on this thread: where its payload lies in memory, and what its
/// bodies are left with. Bodies are decoded in node order, one per node.
struct Decoding {
    base: usize,
    len: usize,
    from: Arc<dyn Fetch>,
    next: usize,
}

thread_local! {
    static DECODING: RefCell<Option<Decoding>> = const { RefCell::new(None) };
}

/// Runs `decode` (the decoding of `payload`, a slice of the mapped pack) with the bodies it
/// meets left in `from` rather than copied.
pub fn decoding<T>(payload: &[u8], from: Arc<dyn Fetch>, decode: impl FnOnce() -> T) -> T {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            DECODING.with(|d| d.borrow_mut().take());
        }
    }
    DECODING.with(|d| {
        *d.borrow_mut() = Some(Decoding {
            base: payload.as_ptr() as usize,
            len: payload.len(),
            from,
            next: 0,
        })
    });
    let _clear = Clear;
    decode()
}

/// The body whose bytes, as decoded, are `bytes`: left behind when they lie inside the payload
/// being decoded on this thread (see [`decoding`]), else (or when short) copied, if UTF-8.
pub fn body(bytes: &[u8]) -> Option<Body> {
    let left = DECODING.with(|d| {
        let mut d = d.borrow_mut();
        let d = d.as_mut()?;
        let node = d.next;
        d.next += 1;
        let start = (bytes.as_ptr() as usize).checked_sub(d.base)?;
        let range = start..start + bytes.len();
        (range.end <= d.len && bytes.len() > HELD_UP_TO)
            .then(|| Body::later(Arc::clone(&d.from), node, range))
    });
    left.or_else(|| std::str::from_utf8(bytes).ok().map(Body::from))
}
