//! Parsing many guides at once: worker threads (one per core) take files in order, each read
//! from the cache when it holds a matching entry and parsed otherwise, and the results are
//! handed back in file order, so the library is the same whatever the timing. Threads live
//! here, never in `tsg`, which stays pure. Imports only `tsg`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use super::cache::Pending;
use super::{read_text, Cache, LoadError, Source};
use crate::tsg::{self, Guide};

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
    mut emit: impl FnMut(usize, Result<Guide, LoadError>),
) -> Stats {
    parse_steps(files, cache, Duration::MAX, |s| {
        if let Step::Ready(i, r) = s {
            emit(i, r)
        }
    })
}

/// [`parse_each`] that also reports [`Step::Idle`] when no result arrived for `idle`; returns
/// once every new cache entry is written too.
pub fn parse_steps(
    files: &[Source],
    cache: Option<&Cache>,
    idle: Duration,
    emit: impl FnMut(Step),
) -> Stats {
    let (stats, writer) = parse_steps_writing(files, cache, idle, emit);
    if let Some(w) = writer {
        let _ = w.join();
    }
    stats
}

/// [`parse_steps`] that returns as soon as every guide is emitted, with the thread still
/// writing the new cache entries (join it before the process exits, so none is lost).
pub fn parse_steps_writing(
    files: &[Source],
    cache: Option<&Cache>,
    idle: Duration,
    mut emit: impl FnMut(Step),
) -> (Stats, Option<std::thread::JoinHandle<()>>) {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(files.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let cached = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Result<Guide, LoadError>)>();
    // New cache entries are written by one thread of their own, off the parse threads; it
    // outlives this call until the last entry is written.
    let (writes, writer) = match cache {
        Some(_) => {
            let (wtx, wrx) = mpsc::channel::<Pending>();
            let h = std::thread::spawn(move || wrx.into_iter().for_each(Pending::write));
            (Some(wtx), Some(h))
        }
        None => (None, None),
    };
    std::thread::scope(|s| {
        for _ in 0..workers {
            let tx = tx.clone();
            let writes = writes.clone();
            let (next, cached) = (&next, &cached);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(src) = files.get(i) else {
                    return;
                };
                let (result, hit) = parse_one(src, cache, writes.as_ref());
                if hit {
                    cached.fetch_add(1, Ordering::Relaxed);
                }
                if tx.send((i, result)).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        drop(writes);
        let mut ready = BTreeMap::new();
        let mut want = 0;
        loop {
            let (i, r) = match rx.recv_timeout(idle) {
                Ok(x) => x,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    emit(Step::Idle);
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            ready.insert(i, r);
            while let Some(r) = ready.remove(&want) {
                emit(Step::Ready(want, r));
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

/// One guide: from the cache when its entry matches the file, else read and parsed (and its
/// new cache entry handed to `writes`). The flag says whether the cache answered.
fn parse_one(
    src: &Source,
    cache: Option<&Cache>,
    writes: Option<&mpsc::Sender<Pending>>,
) -> (Result<Guide, LoadError>, bool) {
    let shown = src.file.display().to_string();
    let meta = match std::fs::metadata(&src.file) {
        Ok(m) => m,
        Err(source) => {
            return (
                Err(LoadError::Io {
                    path: shown,
                    source,
                }),
                false,
            )
        }
    };
    if let Some(mut g) = cache.and_then(|c| c.get(&shown, &src.rel, &meta)) {
        g.file = shown;
        return (Ok(g), true);
    }
    let result = read_text(&src.file).map(|text| {
        let mut g = tsg::parse_guide(&src.rel, &text);
        g.file = shown.clone();
        if let (Some(c), Some(w)) = (cache, writes) {
            if let Some(entry) = c.prepare(&shown, &src.rel, &meta, &g) {
                let _ = w.send(entry);
            }
        }
        g
    });
    (result, false)
}
