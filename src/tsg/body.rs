//! A node's markdown text: held in memory, or left in the guide's file, where it lies, until an
//! edge fetches it (the runtime when a guide is opened, `lint` where a rule needs it). A load
//! that writes the parse cache, and a warm start, make titles, ids, probes and edges for every
//! guide, but read the sections' text (over 40 % of what the guides would hold) only for the
//! guides someone opens. Pure code reads a body with [`Body::text`], which never fetches: a body
//! still left behind is `None` there, not a read from disk. Plain data and one trait; must not
//! import IO (the fetching is `load`'s, behind [`Fetch`]) nor any other tsgnav module.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// Where the text of a body left behind comes from (the guide's file, read by `load`). The
/// record reads its source once, at the first fetch of any range, and keeps it: every section of
/// a guide borrows its text from that one copy.
pub trait Fetch: Send + Sync + fmt::Debug {
    /// The text that was bytes `range` of the record's source, the source read if it was not
    /// yet; or, when it can no longer be had as it was read, a sentence saying why and what to
    /// do (asked for once: a later call gives the same).
    fn fetch(&self, range: Range<usize>) -> Result<&str, &str>;

    /// What [`Fetch::fetch`] gives, once the source has been read; `None` before (never reads).
    fn fetched(&self, range: Range<usize>) -> Option<Result<&str, &str>>;
}

/// A section's markdown source (heading line excluded): held, or left behind and fetched
/// from any thread by the first [`Body::fetch`] of any section of its guide; until then
/// [`Body::text`] is `None`. One left behind is its record and its range, with no allocation
/// of its own (a library of 20,000 guides leaves about 200,000 of them).
#[derive(Clone, Default)]
pub struct Body(Repr);

#[derive(Clone)]
enum Repr {
    Held(String),
    Later(Arc<dyn Fetch>, Range<usize>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Held(String::new())
    }
}

/// The text, or the reason it cannot be had (which then reads as the text).
fn either<'a>(r: Result<&'a str, &'a str>) -> &'a str {
    r.unwrap_or_else(|why| why)
}

impl Body {
    /// The text left in `from` as bytes `range` of its source.
    pub fn later(from: Arc<dyn Fetch>, range: Range<usize>) -> Body {
        Body(Repr::Later(from, range))
    }

    /// The text when it is in memory: held since the parse, or fetched already. `None` for a
    /// body still in its file; the runtime's edge fetches a guide's bodies
    /// ([`Body::fetch`]) before it is shown, searched or linted, so pure code never reads one
    /// from disk.
    pub fn text(&self) -> Option<&str> {
        match &self.0 {
            Repr::Held(s) => Some(s),
            Repr::Later(from, range) => from.fetched(range.clone()).map(either),
        }
    }

    /// The text, read from where it was left if it is not in memory yet (IO, through
    /// [`Fetch`]: for the edges only, the navigator's runtime and the command line's loaders).
    /// When it cannot be fetched as it was read, the text is the reason (and stays so: it is
    /// asked for once).
    pub fn fetch(&self) -> &str {
        match &self.0 {
            Repr::Held(s) => s,
            Repr::Later(from, range) => either(from.fetch(range.clone())),
        }
    }

    /// The length in bytes of the text as it was read, without fetching it (a fetch that
    /// fails gives its reason instead, of another length).
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Held(s) => s.len(),
            Repr::Later(from, range) => from
                .fetched(range.clone())
                .map_or(range.len(), |t| either(t).len()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where a body left behind lies in its source (whether fetched since or not); `None` for
    /// one held from the start. What the parse cache writes instead of the text.
    pub fn left_at(&self) -> Option<Range<usize>> {
        match &self.0 {
            Repr::Held(_) => None,
            Repr::Later(_, range) => Some(range.clone()),
        }
    }

    /// Whether the text is in memory (held from the start, or fetched already).
    pub fn is_held(&self) -> bool {
        match &self.0 {
            Repr::Held(_) => true,
            Repr::Later(from, range) => from.fetched(range.clone()).is_some(),
        }
    }
}

impl From<String> for Body {
    fn from(s: String) -> Body {
        Body(Repr::Held(s))
    }
}

impl From<&str> for Body {
    fn from(s: &str) -> Body {
        Body(Repr::Held(s.to_string()))
    }
}

/// Shows the text when it is in memory (so a guide read back from the cache and fetched
/// debug-prints as the guide parsed), else how long it is; never fetches.
impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.text() {
            Some(t) => fmt::Debug::fmt(t, f),
            None => write!(f, "Body(left in the guide's file: {} bytes)", self.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A record of two sections' text; counts the fetches that read it, fails for a range
    /// past its end.
    #[derive(Debug, Default)]
    struct Record(AtomicUsize, std::sync::OnceLock<&'static str>);

    const TEXT: &str = "first section\nsecond, with é\n";

    fn cut(text: &str, range: Range<usize>) -> Result<&str, &str> {
        text.get(range).ok_or("gone: read the guide again")
    }

    impl Fetch for Record {
        fn fetch(&self, range: Range<usize>) -> Result<&str, &str> {
            let text = self.1.get_or_init(|| {
                self.0.fetch_add(1, Ordering::SeqCst);
                TEXT
            });
            cut(text, range)
        }

        fn fetched(&self, range: Range<usize>) -> Option<Result<&str, &str>> {
            self.1.get().map(|text| cut(text, range))
        }
    }

    #[test]
    fn a_body_left_behind_is_fetched_by_its_first_fetch_only_and_once() {
        let rec = Arc::new(Record::default());
        let from: Arc<dyn Fetch> = rec.clone();
        let b = Body::later(Arc::clone(&from), 14..TEXT.len());
        assert!(!b.is_held());
        assert_eq!(b.len(), 16, "the length is known without a fetch");
        assert_eq!(b.text(), None, "pure code's read does not fetch");
        assert_eq!(format!("{b:?}"), "Body(left in the guide's file: 16 bytes)");
        assert_eq!(rec.0.load(Ordering::SeqCst), 0);
        assert_eq!(b.fetch(), "second, with é\n");
        assert_eq!(b.text(), Some("second, with é\n"));
        let copy = b.clone();
        assert_eq!(copy.fetch(), "second, with é\n");
        assert_eq!(copy.text(), Some("second, with é\n"));
        assert_eq!(
            rec.0.load(Ordering::SeqCst),
            1,
            "fetched once, clones share it"
        );
        assert!(b.is_held() && copy.is_held());
        assert_eq!(format!("{b:?}"), "\"second, with é\\n\"");
        // Its guide's other sections were read with it: in memory, without a fetch.
        let sibling = Body::later(from, 0..13);
        assert_eq!(sibling.text(), Some("first section"));
        assert_eq!(rec.0.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_fetch_that_fails_reads_as_its_reason_and_is_not_asked_again() {
        let rec = Arc::new(Record::default());
        let b = Body::later(rec.clone(), 90..103);
        assert_eq!(b.fetch(), "gone: read the guide again");
        assert_eq!(b.fetch(), "gone: read the guide again");
        assert_eq!(b.text(), Some("gone: read the guide again"));
        assert_eq!(rec.0.load(Ordering::SeqCst), 1);
        assert_eq!(b.len(), "gone: read the guide again".len());
    }

    #[test]
    fn a_held_body_is_its_text() {
        let b = Body::from("text");
        assert!(b.is_held());
        assert_eq!((b.len(), b.text(), b.fetch()), (4, Some("text"), "text"));
        assert!(Body::default().is_empty());
        assert_eq!(format!("{b:?}"), "\"text\"");
    }
}
