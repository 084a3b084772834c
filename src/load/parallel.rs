//! Parsing many guides at once: worker threads (one per core) take files in order, each read
//! from the cache when it holds a matching entry and parsed otherwise, and the results are
//! handed back in file order, so the library is the same whatever the timing. Threads live
//! here, never in `tsg`, which stays pure. Imports only `tsg`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use super::cache::{Opened, Slot};
use super::{Cache, LoadError, Source};
use crate::tsg::{self, Guide};

/// Work done on each guide by the thread that read it, before it is handed back (the safety
/// classes and the role refinement of the caller, which `load` may not name): so it is spread
/// over the cores with the parsing, not done after it on one thread.
pub type Finish<'a> = &'a (dyn Fn(&mut Guide) + Sync);

/// How many guides came from the cache and how many were parsed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub parsed: usize,
    pub cached: usize,
}

/// What [`parse_steps`] hands its caller (one at a time, so its size does not matter).
#[allow(clippy::large_enum_variant)]
pub enum Step {
    /// The next guide in file order (its index), or why it could not be loaded.
    Ready(usize, Result<Guide, LoadError>),
    /// Nothing became ready for the idle interval (a slow file): a moment to show progress.
    Idle,
}

/// Reads and parses `files` on every core; `emit(index, result)` is called on this thread,
/// in file order, as soon as each result and all before it are ready.
pub fn parse_each(
    files: &[Source],
    cache: Option<&Cache>,
    emit: impl FnMut(usize, Result<Guide, LoadError>),
) -> Stats {
    parse_each_with(files, cache, &|_| {}, emit)
}

/// [`parse_each`] with `finish` done on each guide on the thread that read it.
pub fn parse_each_with(
    files: &[Source],
    cache: Option<&Cache>,
    finish: Finish<'_>,
    mut emit: impl FnMut(usize, Result<Guide, LoadError>),
) -> Stats {
    let (stats, writer) = parse_steps_writing(files, cache, Duration::MAX, finish, |s| {
        if let Step::Ready(i, r) = s {
            emit(i, r)
        }
    });
    if let Some(w) = writer {
        let _ = w.join();
    }
    stats
}

/// [`parse_each`] that also reports [`Step::Idle`] when no result arrived for `idle`; returns
/// once every new cache entry is written too.
pub fn parse_steps(
    files: &[Source],
    cache: Option<&Cache>,
    idle: Duration,
    emit: impl FnMut(Step),
) -> Stats {
    let (stats, writer) = parse_steps_writing(files, cache, idle, &|_| {}, emit);
    if let Some(w) = writer {
        let _ = w.join();
    }
    stats
}

/// [`parse_steps`] that returns as soon as every guide is emitted, with the thread still
/// writing the library's new cache pack (join it before the process exits, so it is not lost),
/// and with `finish` done on each guide on the thread that read it.
pub fn parse_steps_writing(
    files: &[Source],
    cache: Option<&Cache>,
    idle: Duration,
    finish: Finish<'_>,
    mut emit: impl FnMut(Step),
) -> (Stats, Option<std::thread::JoinHandle<()>>) {
    let map = |mut g: Guide| {
        finish(&mut g);
        g
    };
    parse_mapped(files, cache, idle, &map, |step| match step {
        Some((i, r)) => emit(Step::Ready(i, r)),
        None => emit(Step::Idle),
    })
}

/// Reads and parses `files` on every core, and turns each guide into a `T` with `map` on the
/// thread that parsed it (so a caller that only needs, say, the guide's JSON never holds the
/// library). `emit(Some((index, result)))` comes on this thread in file order, `emit(None)`
/// when nothing became ready for `idle`. Returns with the cache pack's writer, as
/// [`parse_steps_writing`] does.
pub fn parse_mapped<T: Send>(
    files: &[Source],
    cache: Option<&Cache>,
    idle: Duration,
    map: &(dyn Fn(Guide) -> T + Sync),
    mut emit: impl FnMut(Option<(usize, Result<T, LoadError>)>),
) -> (Stats, Option<std::thread::JoinHandle<()>>) {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(files.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let cached = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Vec<(usize, Result<T, LoadError>)>>();
    // The library's pack is read once, here; the new one is written by one thread of its own,
    // off the parse threads, once every guide's slot is in. It outlives this call until then.
    let opened = cache.and_then(|c| c.open(files)).map(std::sync::Arc::new);
    let (writes, writer) = match &opened {
        Some(o) => {
            let (wtx, wrx) = mpsc::channel::<Vec<(usize, Slot)>>();
            let o = std::sync::Arc::clone(o);
            let h = std::thread::spawn(move || o.write_all(wrx));
            (Some(wtx), Some(h))
        }
        None => (None, None),
    };
    std::thread::scope(|s| {
        for _ in 0..workers {
            let tx = tx.clone();
            let writes = writes.clone();
            let (next, cached, opened) = (&next, &cached, &opened);
            let mut buf = Vec::new();
            // Each worker takes [`BATCH`] consecutive files at a time and hands their guides
            // to this thread once per batch, and their slots to the pack's writer once per
            // [`SLOTS_EVERY`], not once per guide (each send wakes another thread).
            s.spawn(move || {
                let mut slots = Vec::new();
                let flush = |slots: &mut Vec<(usize, Slot)>| {
                    if let Some(w) = writes.as_ref().filter(|_| !slots.is_empty()) {
                        let _ = w.send(std::mem::take(slots));
                    }
                };
                loop {
                    let first = next.fetch_add(BATCH, Ordering::Relaxed);
                    let chunk = match files.get(first..(first + BATCH).min(files.len())) {
                        Some(c) if !c.is_empty() => c,
                        _ => break,
                    };
                    let mut batch = Vec::with_capacity(chunk.len());
                    for (i, src) in (first..).zip(chunk) {
                        let (result, hit) =
                            parse_one(i, src, opened.as_deref(), &mut slots, &mut buf);
                        if hit {
                            cached.fetch_add(1, Ordering::Relaxed);
                        }
                        batch.push((i, result.map(map)));
                    }
                    if slots.len() >= SLOTS_EVERY {
                        flush(&mut slots);
                    }
                    if tx.send(batch).is_err() {
                        break;
                    }
                }
                flush(&mut slots);
            });
        }
        drop(tx);
        drop(writes);
        let mut ready = BTreeMap::new();
        let mut want = 0;
        loop {
            let batch = match rx.recv_timeout(idle) {
                Ok(x) => x,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    emit(None);
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            ready.extend(batch);
            while let Some(r) = ready.remove(&want) {
                emit(Some((want, r)));
                want += 1;
            }
        }
    });
    let cached = cached.into_inner();
    let stats = Stats {
        parsed: files.len() - cached,
        cached,
    };
    (stats, writer)
}

/// One guide (the `i`th): from the pack when its entry matches the file, else read and parsed;
/// either way its slot in the next pack is added to `slots` (for the writer), and whether the
/// cache answered comes back. The file is opened once: its metadata (for the cache) is read from the open file.
/// It is read into `buf`, the thread's own, kept from one file to the next.
pub(super) fn parse_one(
    i: usize,
    src: &Source,
    cache: Option<&Opened>,
    slots: &mut Vec<(usize, Slot)>,
    buf: &mut Vec<u8>,
) -> (Result<Guide, LoadError>, bool) {
    let shown = src.file.display().to_string();
    let io = |source| LoadError::Io {
        path: shown.clone(),
        source,
    };
    let opened = std::fs::File::open(&src.file).and_then(|f| f.metadata().map(|m| (f, m)));
    let (file, meta) = match opened {
        Ok(x) => x,
        Err(e) => return (Err(io(e)), false),
    };
    if let Some((mut g, slot)) = cache.and_then(|c| c.get(&shown, &src.rel, &meta)) {
        slots.push((i, slot));
        g.file = shown;
        return (Ok(g), true);
    }
    let result = super::read_open_into(&src.file, file, &meta, buf).map(|text| {
        let mut g = tsg::parse_guide(&src.rel, text);
        g.file = shown.clone();
        if let Some(slot) = cache.and_then(|c| c.prepare(&shown, &src.rel, &meta, &g)) {
            slots.push((i, slot));
        }
        g
    });
    (result, false)
}

/// How many consecutive files a worker takes at once: their results go to the caller's
/// thread as one message, so it wakes once per batch, not once per guide.
pub(super) const BATCH: usize = 8;

/// How many guides' slots a worker gathers before it hands them to the pack's writer: the
/// writer has nothing to do until a new entry shows up (a warm start has none), so it is woken
/// eight times less often than the loading thread.
const SLOTS_EVERY: usize = 64;
