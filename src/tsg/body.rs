//! A node's markdown text: held in memory, or left where the parse cache keeps it and fetched
//! the first time something reads it. A warm start of a big library decodes titles, ids,
//! probes and edges for every guide, but the sections' text (over 40 % of what it would hold)
//! only for the guides someone opens. Plain data and one trait; must not import IO (the
//! fetching is `load`'s, behind [`Fetch`]) nor any other tsgnav module.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::{Arc, OnceLock};

/// Where the text of a body left behind comes from (the parse cache's pack, in `load`).
pub trait Fetch: Send + Sync + fmt::Debug {
    /// The text of node `node`, whose bytes were `range` of the record it was decoded from;
    /// or, when it can no longer be had as it was read, a sentence saying why and what to do.
    fn fetch(&self, node: usize, range: Range<usize>) -> Result<String, String>;
}

/// A section's markdown source (heading line excluded). Reads as a `str` (it derefs to one);
/// a body left behind is fetched on the first read, once, from any thread.
#[derive(Clone, Default)]
pub struct Body(Repr);

#[derive(Clone)]
enum Repr {
    Held(String),
    Later(Box<Later>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Held(String::new())
    }
}

#[derive(Clone)]
struct Later {
    from: Arc<dyn Fetch>,
    node: usize,
    range: Range<usize>,
    text: OnceLock<String>,
}

impl Body {
    /// The text of node `node`, left in `from` as bytes `range` of its record.
    pub fn later(from: Arc<dyn Fetch>, node: usize, range: Range<usize>) -> Body {
        Body(Repr::Later(Box::new(Later {
            from,
            node,
            range,
            text: OnceLock::new(),
        })))
    }

    /// The text, fetched first if it was left behind. When it cannot be fetched as it was
    /// read, the text is the reason (and stays so: it is asked for once).
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Held(s) => s,
            Repr::Later(l) => l.text.get_or_init(|| {
                l.from
                    .fetch(l.node, l.range.clone())
                    .unwrap_or_else(|why| why)
            }),
        }
    }

    /// The length in bytes of the text as it was read, without fetching it (a fetch that
    /// fails gives its reason instead, of another length).
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Held(s) => s.len(),
            Repr::Later(l) => l.text.get().map_or(l.range.len(), String::len),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the text is in memory (held from the start, or fetched already).
    pub fn is_held(&self) -> bool {
        match &self.0 {
            Repr::Held(_) => true,
            Repr::Later(l) => l.text.get().is_some(),
        }
    }
}

impl Deref for Body {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
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

/// Shows the text (fetching it if it was left behind), so a guide read back from the cache
/// debug-prints as the guide parsed.
impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A record of two sections' text; counts the fetches, fails for node 9.
    #[derive(Debug, Default)]
    struct Record(AtomicUsize);

    const TEXT: &str = "first section\nsecond, with é\n";

    impl Fetch for Record {
        fn fetch(&self, node: usize, range: Range<usize>) -> Result<String, String> {
            self.0.fetch_add(1, Ordering::SeqCst);
            match node {
                9 => Err("gone: read the guide again".into()),
                _ => Ok(TEXT[range].to_string()),
            }
        }
    }

    #[test]
    fn a_body_left_behind_is_fetched_at_its_first_read_and_only_once() {
        let rec = Arc::new(Record::default());
        let from: Arc<dyn Fetch> = rec.clone();
        let b = Body::later(Arc::clone(&from), 1, 14..TEXT.len());
        assert!(!b.is_held());
        assert_eq!(b.len(), 16, "the length is known without a fetch");
        assert_eq!(rec.0.load(Ordering::SeqCst), 0);
        assert_eq!(&*b, "second, with é\n");
        assert!(b.contains('é'), "reads as a str");
        let copy = b.clone();
        assert_eq!(copy.as_str(), "second, with é\n");
        assert_eq!(
            rec.0.load(Ordering::SeqCst),
            1,
            "fetched once, clones share it"
        );
        assert!(b.is_held() && copy.is_held());
    }

    #[test]
    fn a_fetch_that_fails_reads_as_its_reason_and_is_not_asked_again() {
        let rec = Arc::new(Record::default());
        let b = Body::later(rec.clone(), 9, 0..13);
        assert_eq!(b.as_str(), "gone: read the guide again");
        assert_eq!(b.as_str(), "gone: read the guide again");
        assert_eq!(rec.0.load(Ordering::SeqCst), 1);
        assert_eq!(b.len(), "gone: read the guide again".len());
    }

    #[test]
    fn a_held_body_is_its_text() {
        let b = Body::from("text");
        assert!(b.is_held());
        assert_eq!((b.len(), &*b), (4, "text"));
        assert!(Body::default().is_empty());
        assert_eq!(format!("{b:?}"), "\"text\"");
    }
}
