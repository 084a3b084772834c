//! Parsing guides while the walk that finds them is still running (no parse cache): worker
//! threads take the files in order as they are found, and the results are handed back in the
//! walk's order. Threads live here, never in `tsg`. Imports only `tsg` and its `load` siblings.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use super::parallel::{parse_one, BATCH};
use super::{LoadError, Source};
use crate::tsg::Guide;

/// What [`parse_streamed`] hands its caller, on its thread.
pub enum Streamed<T, W> {
    /// The next guide in the walk's order (its index), or why it could not be loaded.
    Ready(usize, Result<T, LoadError>),
    /// The walk is over; what it returned. Comes once, anywhere among the guides.
    Walked(W),
}

/// The files a walk still running has found, and whether it is over.
struct Feed {
    found: std::sync::Mutex<(Vec<Source>, bool)>,
    more: std::sync::Condvar,
}

impl Feed {
    /// The `i`th file, waiting for the walk to find it; `None` once the walk ended short of it.
    fn get(&self, i: usize) -> Option<Source> {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(s) = found.0.get(i) {
                return Some(s.clone());
            }
            if found.1 {
                return None;
            }
            found = self.more.wait(found).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn push(&self, s: Option<Source>) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        match s {
            Some(s) => found.0.push(s),
            None => found.1 = true,
        }
        self.more.notify_all();
    }
}

/// What a worker of [`parse_streamed`] sends its caller's thread.
enum Sent<T, W> {
    Ready(Vec<(usize, Result<T, LoadError>)>),
    Walked(W),
}

/// Reads and parses the files `walk` finds while it is still walking (no parse cache: a
/// cache's pack is named after the whole library, so it needs the walk finished first), each
/// turned into a `T` by `map` on the thread that parsed it. `emit` comes on this thread: the
/// guides in the walk's order, and [`Streamed::Walked`] with what `walk` returned. Each worker
/// takes [`BATCH`] consecutive files at a time and hands their results back together.
pub fn parse_streamed<T: Send, W: Send>(
    walk: impl FnOnce(&mut dyn FnMut(Source)) -> W + Send,
    map: &(dyn Fn(Guide) -> T + Sync),
    mut emit: impl FnMut(Streamed<T, W>),
) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let feed = Feed {
        found: std::sync::Mutex::new((Vec::new(), false)),
        more: std::sync::Condvar::new(),
    };
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Sent<T, W>>();
    std::thread::scope(|s| {
        let (feed, next) = (&feed, &next);
        let walker = tx.clone();
        s.spawn(move || {
            let w = walk(&mut |src| feed.push(Some(src)));
            feed.push(None);
            let _ = walker.send(Sent::Walked(w));
        });
        for _ in 0..workers {
            let tx = tx.clone();
            let mut buf = Vec::new();
            s.spawn(move || loop {
                let first = next.fetch_add(BATCH, Ordering::Relaxed);
                let mut batch = Vec::with_capacity(BATCH);
                for i in first..first + BATCH {
                    let Some(src) = feed.get(i) else {
                        break;
                    };
                    let (result, _) = parse_one(i, &src, None, &mut Vec::new(), &mut buf);
                    batch.push((i, result.map(map)));
                }
                let last = batch.len() < BATCH;
                if !batch.is_empty() && tx.send(Sent::Ready(batch)).is_err() || last {
                    return;
                }
            });
        }
        drop(tx);
        let mut ready = BTreeMap::new();
        let mut want = 0;
        for m in rx {
            match m {
                Sent::Ready(batch) => ready.extend(batch),
                Sent::Walked(w) => emit(Streamed::Walked(w)),
            }
            while let Some(r) = ready.remove(&want) {
                emit(Streamed::Ready(want, r));
                want += 1;
            }
        }
    });
}
