//! The parse cache's file at the edge of memory: a pack mapped rather than read, its pages let
//! go a chunk at a time once what they hold is decoded ([`Pending`]), and the temporary packs a
//! killed writer left beside it removed. Part of `load` (file IO); imports nothing of the crate.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A pack's bytes, mapped rather than read: a warm start of a big library does not copy the
/// whole pack into memory before its first guide can be decoded (a 300 MB pack took a third of
/// a second to read, and as much again to fault in the copy), and the pages are the page
/// cache's, shared, not the process's own.
pub enum Bytes {
    Mapped(memmap2::Mmap),
    None,
}

impl Bytes {
    pub fn map(path: &Path) -> Bytes {
        let Ok(file) = std::fs::File::open(path) else {
            return Bytes::None;
        };
        // SAFETY: a mapping is only sound while nobody truncates or rewrites the file under
        // it. tsgnav never does: a pack is replaced by writing a new file and renaming it over
        // the old one, which leaves the mapped file whole until it is unmapped. A pack cut or
        // edited in place by something else is refused by `pack::decode` and the checksums;
        // only a truncation while this start reads it could fault, in the user's own cache.
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(m) => Bytes::Mapped(m),
            Err(_) => Bytes::None,
        }
    }

    /// Lets the pages wholly inside `range` go from this process's memory once what they hold
    /// has been read (decoded): a warm start of a big library would otherwise keep the whole
    /// pack resident beside the guides decoded from it. They stay in the page cache, and a
    /// later read of them (a changed library copies kept entries into the new pack) faults
    /// them in again from the file.
    pub fn release(&self, range: std::ops::Range<usize>) {
        let Bytes::Mapped(m) = self else {
            return;
        };
        const PAGE: usize = 4096;
        let start = range.start.div_ceil(PAGE) * PAGE;
        let end = (range.end.min(m.len()) / PAGE) * PAGE;
        if start < end {
            // SAFETY: the mapping is private and read-only, of a file tsgnav never writes in
            // place (see `map`); dropping its pages only means the next read of them comes
            // from the file again, which holds the same bytes. So a slice still borrowed from
            // them (the writer's view of the old entries) reads what it read before.
            let _ = unsafe {
                m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
            };
        }
    }
}

/// How much of a mapped pack is let go at once. Each `madvise` that drops pages of a process
/// with threads on other cores interrupts those cores to flush their TLBs: once per guide, or
/// per batch of eight, that was a fifth of a warm start's CPU (20,000 guides); once per 4 MiB
/// it is about eighty calls, and the pages still held are at most a few chunks more.
pub const CHUNK: usize = 4 << 20;

/// What is still to be read in each [`CHUNK`] of a pack: the bytes of the payloads a load
/// wants (its files' entries) that lie in that chunk, counted down as they are read. A chunk
/// whose count reaches zero is let go whole, once; one that holds no wanted payload at all
/// (framing only, or entries of files no longer in the library) at once.
pub struct Pending {
    left: Vec<AtomicUsize>,
    len: usize,
}

impl Pending {
    /// The chunks of a pack `len` bytes long whose wanted payloads are `wanted`; `release` is
    /// called with the chunks that hold none (adjacent ones merged).
    pub fn new(
        len: usize,
        wanted: impl Iterator<Item = Range<usize>>,
        mut release: impl FnMut(Range<usize>),
    ) -> Pending {
        let mut left = vec![0usize; len.div_ceil(CHUNK)];
        for r in wanted {
            each_chunk(r, |c, n| {
                if let Some(l) = left.get_mut(c) {
                    *l += n;
                }
            });
        }
        let mut idle: Option<Range<usize>> = None;
        for (c, l) in left.iter().enumerate() {
            let here = c * CHUNK..((c + 1) * CHUNK).min(len);
            match (&mut idle, *l == 0) {
                (Some(run), true) => run.end = here.end,
                (None, true) => idle = Some(here),
                (_, false) => idle.take().into_iter().for_each(&mut release),
            }
        }
        idle.into_iter().for_each(&mut release);
        let left = left.into_iter().map(AtomicUsize::new).collect();
        Pending { left, len }
    }

    /// The wanted bytes not read yet, per chunk.
    #[cfg(test)]
    pub fn left(&self) -> Vec<usize> {
        self.left
            .iter()
            .map(|l| l.load(Ordering::Acquire))
            .collect()
    }

    /// Counts `range` (a wanted payload) as read; `release` is called with each chunk whose
    /// last wanted byte that was. A range counted twice (a file listed twice) only lets its
    /// chunk go early, which costs a read from the page cache, never a wrong byte.
    pub fn read(&self, range: Range<usize>, mut release: impl FnMut(Range<usize>)) {
        let len = self.len;
        each_chunk(range, |c, n| {
            let Some(l) = self.left.get(c) else { return };
            let before = l.fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| {
                Some(v.saturating_sub(n))
            });
            if matches!(before, Ok(v) if v > 0 && v <= n) {
                release(c * CHUNK..((c + 1) * CHUNK).min(len));
            }
        });
    }
}

/// Calls `f(chunk, bytes)` for each chunk `r` overlaps, with how many of its bytes are there.
fn each_chunk(r: Range<usize>, mut f: impl FnMut(usize, usize)) {
    let mut at = r.start;
    while at < r.end {
        let c = at / CHUNK;
        let end = ((c + 1) * CHUNK).min(r.end);
        f(c, end - at);
        at = end;
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::None => &[],
        }
    }
}

/// Removes the temporary files a killed process left while it streamed `target`'s new pack
/// (`<pack>.tmp.<pid>.<n>`, as large as the pack): those of a process that is gone. One of a
/// process still running (another start writing the same library) is left alone. Linux only:
/// elsewhere whether a process runs is not asked, and nothing is removed.
pub fn remove_orphans(target: &Path) {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name().and_then(|n| n.to_str()))
    else {
        return;
    };
    let Some(stem) = name.strip_suffix(".pack") else {
        return;
    };
    let prefix = format!("{stem}.tmp.");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|rest| rest.split('.').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let gone = cfg!(target_os = "linux") && !Path::new(&format!("/proc/{pid}")).exists();
        if gone {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    const C: usize = CHUNK;

    fn released(p: &Pending, r: Range<usize>) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        p.read(r, |c| out.push(c));
        out
    }

    #[test]
    fn a_chunk_goes_once_the_last_wanted_byte_in_it_is_read() {
        let len = 3 * C + 100;
        let first = 10..C - 10;
        let across = C - 5..C + 20;
        let third = 2 * C + 5..2 * C + 50;
        let mut at_once = Vec::new();
        let p = Pending::new(
            len,
            [first.clone(), across.clone(), third.clone()].into_iter(),
            |r| at_once.push(r),
        );
        assert_eq!(
            at_once,
            vec![3 * C..len],
            "the last chunk holds nothing wanted"
        );
        assert_eq!(
            released(&p, first.clone()),
            Vec::<Range<usize>>::new(),
            "5 bytes of chunk 0 are still to read"
        );
        assert_eq!(released(&p, across.clone()), vec![0..C, C..2 * C]);
        assert_eq!(released(&p, third.clone()), vec![2 * C..3 * C]);
        for r in [first, across, third] {
            assert!(
                released(&p, r).is_empty(),
                "a chunk goes once, however often it is read"
            );
        }
    }

    #[test]
    fn chunks_with_nothing_wanted_go_at_once_neighbours_together() {
        let mut at_once = Vec::new();
        let p = Pending::new(4 * C + 1, std::iter::once(C + 1..C + 2), |r| {
            at_once.push(r)
        });
        assert_eq!(at_once, vec![0..C, 2 * C..4 * C + 1]);
        assert_eq!(released(&p, C + 1..C + 2), vec![C..2 * C]);
        let mut none = Vec::new();
        Pending::new(C / 2, std::iter::empty(), |r| none.push(r));
        assert_eq!(
            none,
            vec![0..C / 2],
            "a pack with nothing wanted goes whole"
        );
    }

    #[test]
    fn entries_read_on_two_threads_let_each_chunk_go_exactly_once() {
        // 1,000 entries of 50,000 bytes (a chunk holds about 84): most chunks are finished by
        // whichever thread reads their last entry, some by both at about the same time.
        let entries: Vec<Range<usize>> = (0..1000).map(|i| i * 50_000..(i + 1) * 50_000).collect();
        let len = 1000 * 50_000;
        let p = Pending::new(len, entries.iter().cloned(), |r| {
            panic!("{r:?} holds entries")
        });
        let out = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for half in [0, 1] {
                let (p, out, entries) = (&p, &out, &entries);
                s.spawn(move || {
                    for r in entries.iter().skip(half).step_by(2) {
                        p.read(r.clone(), |c| out.lock().expect("lock").push(c));
                    }
                });
            }
        });
        let mut out = out.into_inner().expect("lock");
        out.sort_by_key(|r| r.start);
        let want: Vec<Range<usize>> = (0..len.div_ceil(C))
            .map(|c| c * C..((c + 1) * C).min(len))
            .collect();
        assert_eq!(out, want);
    }
}
