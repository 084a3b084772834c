//! Node bodies left in the guides' own files, read back when an edge asks ([`hold`]: the runtime
//! for the guide it shows; `lint` where a rule needs a section). A section's text is a stretch of
//! its guide's file, so the parse cache does not copy it: a new entry records where each long
//! body lies in the file it was parsed from, with the CRC-32 of that file's text ([`Placed`],
//! written through [`placing`] and [`place`]). A load leaves such bodies in a [`Recorded`] of the
//! file: a warm one as it decodes the entry ([`decoding`] and [`body_at`]), a cold one once the
//! guide is written to the pack ([`Placed::leave`]), so neither holds the text of guides nobody
//! opens. The file is read at the first body asked for, once for all the guide's sections, and
//! trusted only when it is still the text that was parsed (same length, same checksum); else each
//! section says why it cannot be shown and how to read the guide again. Short bodies, and any not
//! found verbatim in the file, stay in the pack as text and in memory. Part of `load` (file IO);
//! imports only `tsg` and its `load` siblings.

use std::cell::RefCell;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::tsg::{Body, Fetch, Guide};

/// Bodies this short stay in the pack as text and are copied at once: a record of where one
/// lies costs as much memory.
pub const HELD_UP_TO: usize = 48;

/// How many places that start like a body but are not it a search looks at before it keeps
/// the body as text (a guide crafted to repeat a body's start cannot make the write slow).
const TRIES: usize = 4;

/// One guide's file as a load found it in the pack: the text its sections are read from.
#[derive(Debug)]
pub struct Recorded {
    file: PathBuf,
    /// The length and CRC-32 of the file's text when it was parsed (the entry's).
    len: u64,
    crc: u32,
    /// The file's text, read once, or why it is no longer the text parsed.
    text: OnceLock<Result<Box<str>, String>>,
}

impl Recorded {
    /// The record of `file`, whose text was `len` bytes with checksum `crc` when parsed.
    pub fn of(file: PathBuf, len: u64, crc: u32) -> Arc<dyn Fetch> {
        Arc::new(Recorded {
            file,
            len,
            crc,
            text: OnceLock::new(),
        })
    }

    fn read(&self) -> Result<Box<str>, String> {
        crate::load::read_text(&self.file)
            .ok()
            .filter(|t| t.len() as u64 == self.len && crc32fast::hash(t.as_bytes()) == self.crc)
            .map(String::into_boxed_str)
            .ok_or_else(|| {
                format!(
                    "> This section's text cannot be shown: {} changed after tsgnav read it. \
                     Quit and start tsgnav again to read the guide as it is now.",
                    self.file.display()
                )
            })
    }
}

impl Fetch for Recorded {
    fn fetch(&self, range: Range<usize>) -> Result<String, String> {
        match self.text.get_or_init(|| self.read()) {
            Ok(text) => text.get(range).map(str::to_string).ok_or_else(|| {
                format!(
                    "> This section's text cannot be shown: it lies outside {} as it was read. \
                     Quit and start tsgnav again to read the guide as it is now.",
                    self.file.display()
                )
            }),
            Err(why) => Err(why.clone()),
        }
    }
}

/// Reads in every body of `guide` still left in its file (one read of the file), so that what
/// shows, searches or lints it finds its text in memory. The edge's call: the navigator's
/// runtime makes it for the guide it is about to show, before each frame.
pub fn hold(guide: &Guide) {
    for n in guide.nodes.iter().filter(|n| !n.body.is_held()) {
        n.body.fetch();
    }
}

/// Where each body of the guide being encoded on this thread lies in its file, and how many
/// were taken.
struct Placing {
    placed: Placed,
    next: usize,
}

thread_local! {
    static PLACING: RefCell<Option<Placing>> = const { RefCell::new(None) };
    static DECODING: RefCell<Option<Arc<dyn Fetch>>> = const { RefCell::new(None) };
}

/// Clears a thread-local when dropped (also when the closure it guards panics).
struct Clear(fn());

impl Drop for Clear {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// Where `body` lies in `text` at or after `*cursor` (then moved past it), if it is long
/// enough to be worth a record and found verbatim within [`TRIES`] places that start alike.
fn locate(text: &[u8], cursor: &mut usize, body: &[u8]) -> Option<Range<usize>> {
    if body.len() <= HELD_UP_TO {
        return None;
    }
    let head = memchr::memmem::Finder::new(body.get(..32)?);
    let mut from = *cursor;
    for _ in 0..TRIES {
        let at = from + head.find(text.get(from..)?)?;
        if text.get(at..at + body.len()) == Some(body) {
            *cursor = at + body.len();
            return Some(at..at + body.len());
        }
        from = at + 1;
    }
    None
}

/// Where each body of `guide`, parsed from `text`, lies in `text` (`None`: short, or not
/// found verbatim there), in node order, with the CRC-32 of `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub at: Vec<Option<Range<usize>>>,
    pub crc: u32,
}

impl Placed {
    pub fn of(text: &str, guide: &Guide) -> Placed {
        let mut cursor = 0;
        let at = guide
            .nodes
            .iter()
            .map(|n| locate(text.as_bytes(), &mut cursor, n.body.text()?.as_bytes()))
            .collect();
        Placed {
            at,
            crc: crc32fast::hash(text.as_bytes()),
        }
    }

    /// Leaves each body of `guide` that `self` places in its file, read from `file` (`len`
    /// bytes when parsed) when an edge asks: the text parsed, once written to the pack, need
    /// not stay in memory, nor be copied, beside the guides still to come.
    pub fn leave(&self, guide: &mut Guide, file: PathBuf, len: u64) {
        if self.at.iter().all(Option::is_none) {
            return;
        }
        let record = Recorded::of(file, len, self.crc);
        for (n, at) in guide.nodes.iter_mut().zip(&self.at) {
            if let Some(r) = at {
                n.body = Body::later(Arc::clone(&record), r.clone());
            }
        }
    }
}

/// Runs `encode` (the encoding of a guide) with each long body it meets written as where it
/// lies in its file, as `placed` says ([`place`]), rather than as its text; gives `placed` back.
pub fn placing<T>(placed: Placed, encode: impl FnOnce() -> T) -> (T, Placed) {
    PLACING.with(|p| *p.borrow_mut() = Some(Placing { placed, next: 0 }));
    let _clear = Clear(|| PLACING.with(|p| drop(p.borrow_mut().take())));
    let out = encode();
    let placed = PLACING.with(|p| p.borrow_mut().take()).map(|p| p.placed);
    (
        out,
        placed.unwrap_or(Placed {
            at: Vec::new(),
            crc: 0,
        }),
    )
}

/// Where the next body being encoded lies in its guide's file, if it is to be written so (see
/// [`placing`]); none outside it.
pub fn place() -> Option<Range<usize>> {
    PLACING.with(|p| {
        let mut p = p.borrow_mut();
        let p = p.as_mut()?;
        let at = p.placed.at.get(p.next).cloned().flatten();
        p.next += 1;
        at
    })
}

/// Runs `decode` (the decoding of one guide's entry) with the bodies it meets that lie in the
/// guide's file left in `from`, its record.
pub fn decoding<T>(from: Arc<dyn Fetch>, decode: impl FnOnce() -> T) -> T {
    DECODING.with(|d| *d.borrow_mut() = Some(from));
    let _clear = Clear(|| DECODING.with(|d| drop(d.borrow_mut().take())));
    decode()
}

/// The body that is bytes `range` of the file of the guide being decoded on this thread,
/// left there (see [`decoding`]); none outside a decoding.
pub fn body_at(range: Range<usize>) -> Option<Body> {
    DECODING.with(|d| Some(Body::later(Arc::clone(d.borrow().as_ref()?), range)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: &str = "A section long enough to be worth a record of where it lies in its file.\n";

    #[test]
    fn a_long_body_is_found_where_it_lies_and_the_search_moves_past_it() {
        let text = format!("# T\n\n{LONG}\n## Again\n\n{LONG}");
        let mut cursor = 0;
        let first = locate(text.as_bytes(), &mut cursor, LONG.as_bytes()).expect("found");
        assert_eq!(&text[first.clone()], LONG);
        assert_eq!(first.start, 5);
        let second = locate(text.as_bytes(), &mut cursor, LONG.as_bytes()).expect("found");
        assert_eq!(&text[second.clone()], LONG);
        assert!(
            second.start > first.end,
            "the same text again is found where it lies next"
        );
        assert_eq!(locate(text.as_bytes(), &mut cursor, LONG.as_bytes()), None);
    }

    #[test]
    fn short_absent_and_crafted_bodies_stay_text() {
        let mut cursor = 0;
        assert_eq!(locate(LONG.as_bytes(), &mut cursor, b"short"), None);
        assert_eq!(
            locate(LONG.as_bytes(), &mut cursor, "x".repeat(60).as_bytes()),
            None
        );
        // Many places start like the body, none is it: given up after a few, not scanned to
        // the end of a long run.
        let body = format!("{}END{}", "a".repeat(40), "b".repeat(20));
        let text = format!("{}{}", "a".repeat(10_000), body);
        let mut cursor = 0;
        assert_eq!(locate(text.as_bytes(), &mut cursor, body.as_bytes()), None);
        assert_eq!(cursor, 0);
    }

    #[test]
    fn place_answers_only_inside_placing_in_node_order() {
        let text = format!("# T\n\n{LONG}\n## S\n\nok\n");
        let guide = crate::tsg::parse_guide("t.md", &text);
        assert_eq!(place(), None);
        let placed = Placed::of(&text, &guide);
        assert_eq!(placed.crc, crc32fast::hash(text.as_bytes()));
        let (got, back) = placing(placed.clone(), || (place(), place(), place()));
        assert_eq!(back, placed, "given back whole");
        let (t, s, none) = got;
        assert_eq!(t.map(|r| &text[r]), guide.nodes[0].body.text());
        assert_eq!((s, none), (None, None), "short, then past the last node");
        assert_eq!(place(), None, "cleared after");
    }
}
