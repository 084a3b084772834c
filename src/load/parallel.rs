//! Parsing one guide of many (for [`super::streamed`], which runs the threads): from the parse
//! cache's pack when it holds the file as it is, else read and parsed, with its slot in the
//! next pack. Imports only `tsg` and its `load` siblings.

use super::cache::{Opened, Slot};
use super::{later, LoadError, Seen, Source};
use crate::tsg::{self, roles::Synonyms, Guide};

/// Work done on a guide just parsed, on the thread that parsed it and before the pack keeps it
/// (the safety classes and the role refinement of the caller, which `load` may not name): so a
/// guide read back from the pack has it done already, and a warm start does not do it again.
/// `name` joins the pack's stamp: a pack whose guides were finished otherwise is not read.
#[derive(Debug, Clone, Copy)]
pub struct Finish {
    pub name: &'static str,
    pub work: fn(&mut Guide),
}

impl Finish {
    /// No work: the guides as `tsg::parse_guide` reads them.
    pub const NONE: Finish = Finish {
        name: "",
        work: |_| {},
    };
}

/// How many guides came from the cache and how many were parsed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub parsed: usize,
    pub cached: usize,
}

/// One guide (the `i`th): from the pack when its entry matches the file, else read, parsed and
/// finished (`finish`); either way its slot in the next pack is added to `slots` (for the writer),
/// and whether the cache answered comes back. A file the pack holds is first checked by what the
/// walk saw of it ([`Source::seen`]), or else by its path alone: when it is unchanged (a warm
/// start), that is at most one system call where opening it, reading its metadata and closing it
/// are three. Any other file is opened once, its metadata read from the open file, and read into
/// `buf`, the thread's own, kept from one file to the next.
pub(super) fn parse_one(
    i: usize,
    src: &Source,
    cache: Option<&Opened>,
    finish: Finish,
    slots: &mut Vec<(usize, Slot)>,
    buf: &mut Vec<u8>,
) -> (Result<Guide, LoadError>, bool) {
    // As `display` shows it (the same lossy text), without the formatting machinery.
    let shown = src.file.to_string_lossy().into_owned();
    let mut known = cache.and_then(|c| Some((c, c.find(&src.keyed, &src.rel)?)));
    let hit = |(mut g, slot): (Guide, Slot), slots: &mut Vec<(usize, Slot)>| {
        slots.push((i, slot));
        g.file = shown.clone();
        (Ok(g), true)
    };
    if let Some((c, at)) = known {
        // Only a plain file that someone may read (`Seen::plain`). The walk may have looked
        // already, relative to the folder it was listing, which costs the kernel less than
        // following the whole path again.
        let seen = src
            .seen
            .or_else(|| std::fs::metadata(&src.file).ok().map(|m| Seen::of(&m)));
        if let Some(seen) = seen.filter(|s| s.plain) {
            known = None;
            if let Some(found) = c.get(at, &seen, src) {
                return hit(found, slots);
            }
        }
    }
    let io = |source| LoadError::Io {
        path: shown.clone(),
        source,
    };
    let opened = std::fs::File::open(&src.file).and_then(|f| f.metadata().map(|m| (f, m)));
    let (file, meta) = match opened {
        Ok(x) => x,
        Err(e) => return (Err(io(e)), false),
    };
    if let Some(found) = known.and_then(|(c, at)| c.get(at, &Seen::of(&meta), src)) {
        return hit(found, slots);
    }
    let result = super::read_open_into(&src.file, file, &meta, buf).map(|text| {
        // With a pack to write, the long sections stay in the file (read again when asked
        // for, as after a warm start), so no copy of them is made nor held beside the guides
        // still to come. A pipe or a device gives its text once: its sections are copied.
        let leaving = cache.map(|_| later::Leaving::new(src.file.clone(), text));
        let left_in = leaving.as_ref().filter(|_| meta.is_file());
        let leave = |r| left_in?.body(r);
        let mut g = tsg::parse_guide_leaving(&src.rel, text, &Synonyms::default(), &leave);
        (finish.work)(&mut g);
        g.file = shown.clone();
        let slot = cache
            .zip(leaving.as_ref())
            .and_then(|(c, l)| c.prepare(&src.keyed, &src.rel, &meta, &g, l.crc()));
        if let Some(slot) = slot {
            slots.push((i, slot));
        }
        g
    });
    (result, false)
}

/// How many consecutive files a worker takes at once when the files before them number
/// `first`: their results go to the caller's thread as one message, so it wakes once per
/// batch, not once per guide. Eight at the start, so a small library is shared between the
/// workers at once, then growing with the count up to 32: a big library then wakes the
/// caller's thread a quarter as often (each wake-up is a context switch on two cores; at
/// 2,000 guides, 750 became 190 and `tree --json` took 2 % less CPU).
pub(super) fn batch(first: usize) -> usize {
    (first / 8).clamp(8, 32)
}

/// How many guides' slots a worker gathers before it hands them to the pack's writer: the
/// writer has nothing to do until a new entry shows up (a warm start has none), so it is woken
/// eight times less often than the loading thread.
pub(super) const SLOTS_EVERY: usize = 64;

#[cfg(test)]
mod tests {
    use super::batch;

    /// A small library is shared out eight files at a time; a big one 32 at a time; the
    /// claims, taken one after another, cover every file once.
    #[test]
    fn batches_start_small_and_grow_to_32() {
        assert_eq!((batch(0), batch(8), batch(71)), (8, 8, 8));
        assert_eq!((batch(72), batch(160)), (9, 20));
        assert_eq!((batch(256), batch(1 << 40)), (32, 32));
        let (mut at, mut claims) = (0, 0);
        while at < 2_000 {
            let n = batch(at);
            assert!((8..=32).contains(&n) && n >= batch(at.saturating_sub(1)));
            at += n;
            claims += 1;
        }
        // 2,000 guides: 75 claims (250 were made eight at a time).
        assert_eq!(claims, 75);
    }
}
