//! Node bodies left in the guides' own files, read back when an edge asks ([`hold`]: the runtime
//! for the guide it shows; `lint` where a rule needs a section). A section's text is a stretch of
//! its guide's file, so a load that writes the parse cache does not copy it: the parse leaves each
//! long section where it lies ([`Leaving`]), the pack's entry records those ranges with the
//! CRC-32 of the file's text, and a warm load leaves them there too as it decodes the entry
//! ([`decoding`] and [`body_at`]): neither holds the text of guides nobody opens. The file is
//! read at the first body asked for, once for all the guide's sections, and trusted only when it
//! is still the text that was parsed (same length, same checksum); else each section says why it
//! cannot be shown and how to read the guide again. Short sections, and every section of a guide
//! read from a pipe or a device (which gives its text once), are copied. Part of `load` (file
//! IO); imports only `tsg` and its `load` siblings.

use std::cell::RefCell;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::tsg::{Body, Fetch, Guide};

/// Sections this short are copied (and kept in the pack as text): a record of where one lies
/// costs as much memory.
pub const HELD_UP_TO: usize = 48;

/// One guide's file as a load found it in the pack: the text its sections are read from.
#[derive(Debug)]
pub struct Recorded {
    file: PathBuf,
    /// The length and CRC-32 of the file's text when it was parsed (the entry's).
    len: u64,
    crc: u32,
    /// The file's text, read once, or why it is no longer the text parsed.
    text: OnceLock<Result<Box<str>, String>>,
    /// Why a range asked for is not in the text (made at the first such range).
    outside: OnceLock<String>,
}

impl Recorded {
    /// The record of `file`, whose text was `len` bytes with checksum `crc` when parsed.
    pub fn of(file: PathBuf, len: u64, crc: u32) -> Arc<dyn Fetch> {
        Arc::new(Recorded {
            file,
            len,
            crc,
            text: OnceLock::new(),
            outside: OnceLock::new(),
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

impl Recorded {
    /// Bytes `range` of what the file gave (`read`): a section of the text, or why not.
    fn cut<'a>(
        &'a self,
        read: &'a Result<Box<str>, String>,
        range: Range<usize>,
    ) -> Result<&'a str, &'a str> {
        match read {
            Ok(text) => text.get(range).ok_or_else(|| {
                self.outside
                    .get_or_init(|| {
                        format!(
                            "> This section's text cannot be shown: it lies outside {} as it \
                             was read. Quit and start tsgnav again to read the guide as it is now.",
                            self.file.display()
                        )
                    })
                    .as_str()
            }),
            Err(why) => Err(why),
        }
    }
}

impl Fetch for Recorded {
    fn fetch(&self, range: Range<usize>) -> Result<&str, &str> {
        self.cut(self.text.get_or_init(|| self.read()), range)
    }

    fn fetched(&self, range: Range<usize>) -> Option<Result<&str, &str>> {
        Some(self.cut(self.text.get()?, range))
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

/// How a parse leaves the long sections of one guide's file in it: the file's record, and
/// the CRC-32 of the text parsed (which the pack's entry keeps).
pub struct Leaving {
    record: Arc<dyn Fetch>,
    crc: u32,
}

impl Leaving {
    /// For `text`, just read whole from `file`.
    pub fn new(file: PathBuf, text: &str) -> Leaving {
        let crc = crc32fast::hash(text.as_bytes());
        Leaving {
            record: Recorded::of(file, text.len() as u64, crc),
            crc,
        }
    }

    /// The body of the section at `range` of the text, left in the file when it is long.
    pub fn body(&self, range: Range<usize>) -> Option<Body> {
        (range.len() > HELD_UP_TO).then(|| Body::later(Arc::clone(&self.record), range))
    }

    pub fn crc(&self) -> u32 {
        self.crc
    }
}

thread_local! {
    static DECODING: RefCell<Option<Arc<dyn Fetch>>> = const { RefCell::new(None) };
}

/// Clears the decoding's record when dropped (also when the decoding panics).
struct Clear;

impl Drop for Clear {
    fn drop(&mut self) {
        DECODING.with(|d| drop(d.borrow_mut().take()));
    }
}

/// Runs `decode` (the decoding of one guide's entry) with the bodies it meets that lie in the
/// guide's file left in `from`, its record.
pub fn decoding<T>(from: Arc<dyn Fetch>, decode: impl FnOnce() -> T) -> T {
    DECODING.with(|d| *d.borrow_mut() = Some(from));
    let _clear = Clear;
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

    #[test]
    fn long_sections_are_left_short_ones_are_not() {
        let text = "# T\n\nA section long enough to be worth a record of where it lies.\n";
        let leaving = Leaving::new(PathBuf::from("t.md"), text);
        assert_eq!(leaving.crc(), crc32fast::hash(text.as_bytes()));
        let long = leaving.body(4..text.len()).expect("left");
        assert_eq!(long.left_at(), Some(4..text.len()));
        assert!(leaving.body(0..HELD_UP_TO).is_none());
        assert!(body_at(0..1).is_none(), "none outside a decoding");
        let from: Arc<dyn Fetch> = Recorded::of(PathBuf::from("t.md"), 1, 2);
        let inside = decoding(from, || body_at(3..90).map(|b| b.left_at()));
        assert_eq!(inside, Some(Some(3..90)));
        assert!(body_at(0..1).is_none(), "cleared after");
    }
}
