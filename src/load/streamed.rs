//! Parsing guides while the walk that finds them is still running: worker threads take the
//! files in order as they are found, each read from the library's parse-cache pack when it
//! holds a matching entry and parsed otherwise, and the results are handed back in the walk's
//! order, so the library is the same whatever the timing. The pack is named after the roots,
//! so it is opened (on the thread that then writes its successor) while the walk goes on, and
//! no core waits for the other before the first guide is decoded. Threads live here, never in
//! `tsg`, which stays pure. Imports only `tsg` and its `load` siblings.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use super::cache::{key, Opened, Slot};
use super::parallel::{batch, parse_one, Finish, Stats, SLOTS_EVERY};
use super::{Cache, LoadError, Source};
use crate::tsg::Guide;

/// What [`parse_streamed`] hands its caller, on its thread.
pub enum Streamed<T, W> {
    /// The next guide in the walk's order (its index), or why it could not be loaded.
    Ready(usize, Result<T, LoadError>),
    /// The walk is over; what it returned. Comes once, anywhere among the guides.
    Walked(W),
    /// Nothing became ready for the idle interval (a slow file): a moment to show progress.
    Idle,
}

/// The parse cache a load reads and refills, with the roots its library is read from (the
/// pack's name).
pub type Packed<'a> = Option<(&'a Cache, &'a [PathBuf])>;

/// The files a walk still running has found, and whether it is over.
struct Feed {
    /// The files found, whether the walk is over, and how many workers wait for more.
    found: std::sync::Mutex<(Vec<Source>, bool, usize)>,
    more: std::sync::Condvar,
}

impl Feed {
    fn lock(&self) -> std::sync::MutexGuard<'_, (Vec<Source>, bool, usize)> {
        self.found.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The files of `want` found so far (from its start, at least one), waiting for the walk to
    /// find its first; none once the walk ended short of it. `waiting` is called first when it
    /// has to wait (so what is ready is not held back by a slow walk). One lock for them all.
    fn take(&self, want: Range<usize>, waiting: impl FnOnce()) -> Vec<Source> {
        let mut waiting = Some(waiting);
        let mut found = self.lock();
        loop {
            if found.0.len() > want.start || found.1 {
                let end = want.end.min(found.0.len());
                return found
                    .0
                    .get(want.start..end)
                    .map_or_else(Vec::new, <[_]>::to_vec);
            }
            if let Some(w) = waiting.take() {
                drop(found);
                w();
                found = self.lock();
                continue;
            }
            found.2 += 1;
            found = self.more.wait(found).unwrap_or_else(|e| e.into_inner());
            found.2 -= 1;
        }
    }

    /// Hands `files` over (the next ones the walk found), and marks the walk over when `over`.
    /// Waits for the lock when a worker holds it (never long: a worker holds it only to copy
    /// a batch's files or to start waiting). Holding a file back instead, for a later call,
    /// left it with a walk that then stalled (a slow folder) while the workers sat idle,
    /// waiting for that very file. Wakes the workers only when one waits, since a wake is a
    /// system call.
    fn hand(&self, files: impl IntoIterator<Item = Source>, over: bool) {
        let mut all = self.lock();
        all.0.extend(files);
        all.1 |= over;
        if all.2 > 0 {
            self.more.notify_all();
        }
    }
}

/// Marks the walk over when dropped.
struct Ended<'a>(&'a Feed);

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        self.0.hand(None, true);
    }
}

/// What a worker of [`parse_streamed`] sends its caller's thread.
enum Sent<T, W> {
    Ready(Vec<(usize, Result<T, LoadError>)>),
    Walked(W),
}

/// The opened pack, shared by the thread that opens it and the workers that wait for it.
type Shared = Arc<OnceLock<Option<Arc<Opened>>>>;

/// Sets the shared pack to none when its opener ends without setting it (a panic), so no
/// worker waits for it forever.
struct Unblock(Shared);

impl Drop for Unblock {
    fn drop(&mut self) {
        let _ = self.0.set(None);
    }
}

/// Reads and parses the files `walk` finds while it is still walking, each from `cache`'s pack when
/// it holds the file as it is (else parsed and finished with `finish`, which the pack then keeps),
/// and turns each guide into a `T` with `map` on the thread that read it (so a caller that only
/// needs, say, the guide's JSON never holds the library). `emit` comes on this thread: the guides
/// in the walk's order, [`Streamed::Walked`] with what `walk` returned, and [`Streamed::Idle`] when
/// nothing became ready for `idle`. Each worker takes [`batch`] consecutive files at a time and
/// hands their results back together (what is ready goes back early when it has to wait for the
/// walk). Returns once every guide is emitted, with the thread still writing the library's new pack
/// (join it before the process exits, so it is not lost).
pub fn parse_streamed<T: Send, W: Send>(
    walk: impl FnOnce(&mut dyn FnMut(Source)) -> W + Send,
    cache: Packed<'_>,
    finish: Finish,
    idle: Duration,
    map: &(dyn Fn(Guide) -> T + Sync),
    mut emit: impl FnMut(Streamed<T, W>),
) -> (Stats, Option<JoinHandle<()>>) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let feed = Feed {
        found: std::sync::Mutex::new((Vec::new(), false, 0)),
        more: std::sync::Condvar::new(),
    };
    let (next, cached) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel::<Sent<T, W>>();
    let pack: Shared = Arc::new(OnceLock::new());
    let (writes, writer) = open_pack(cache, finish, &pack);
    let mut emitted = 0;
    std::thread::scope(|s| {
        let (feed, next, cached, pack) = (&feed, &next, &cached, &*pack);
        let walker = tx.clone();
        let keep = cache.is_some();
        s.spawn(move || {
            // The keys of the files found: the pack's other entries are let go once it is over.
            let mut found = Vec::new();
            // Should the walk panic, the workers still learn it is over (the panic then comes
            // out of the scope), rather than wait for it forever.
            let ended = Ended(feed);
            let w = walk(&mut |src| {
                // No keys once the pack is known to be none (a cache folder that cannot be
                // made): nothing would be let go.
                if keep && !matches!(pack.get(), Some(None)) {
                    found.push(key(&src.keyed, &src.rel));
                }
                feed.hand(Some(src), false);
            });
            drop(ended); // the walk is over
            let _ = walker.send(Sent::Walked(w));
            if let Some(o) = pack.wait() {
                o.forget_unfound(&found);
            }
        });
        for _ in 0..workers {
            let tx = tx.clone();
            let writes = writes.clone();
            s.spawn(move || {
                let opened = pack.wait().as_deref();
                let (mut slots, mut buf) = (Vec::new(), Vec::new());
                let flush = |slots: &mut Vec<(usize, Slot)>| {
                    if let Some(w) = writes.as_ref().filter(|_| !slots.is_empty()) {
                        let _ = w.send(std::mem::take(slots));
                    }
                };
                let mut over = false;
                while !over {
                    let first = next
                        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |f| Some(f + batch(f)))
                        .unwrap_or_else(|f| f);
                    let end = first + batch(first);
                    let (mut taken, mut i) = (Vec::with_capacity(end - first), first);
                    while i < end {
                        // What is ready goes back before waiting for a walk that is slow.
                        let send = || {
                            if !taken.is_empty() {
                                let _ = tx.send(Sent::Ready(std::mem::take(&mut taken)));
                            }
                        };
                        let files = feed.take(i..end, send);
                        over = files.is_empty();
                        if over {
                            break;
                        }
                        for src in &files {
                            let (result, hit) =
                                parse_one(i, src, opened, finish, &mut slots, &mut buf);
                            if hit {
                                cached.fetch_add(1, Ordering::Relaxed);
                            }
                            taken.push((i, result.map(map)));
                            i += 1;
                        }
                    }
                    if slots.len() >= SLOTS_EVERY {
                        flush(&mut slots);
                    }
                    if !taken.is_empty() && tx.send(Sent::Ready(taken)).is_err() {
                        break;
                    }
                }
                flush(&mut slots);
            });
        }
        drop(tx);
        drop(writes);
        let mut ready = BTreeMap::new();
        loop {
            match rx.recv_timeout(idle) {
                Ok(Sent::Ready(batch)) => ready.extend(batch),
                Ok(Sent::Walked(w)) => emit(Streamed::Walked(w)),
                Err(mpsc::RecvTimeoutError::Timeout) => emit(Streamed::Idle),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            while let Some(r) = ready.remove(&emitted) {
                emit(Streamed::Ready(emitted, r));
                emitted += 1;
            }
        }
    });
    let cached = cached.into_inner();
    let stats = Stats {
        parsed: emitted - cached,
        cached,
    };
    (stats, writer)
}

/// The channel to the pack's writer, and the writer: a thread of its own that first opens the
/// library's pack (into `pack`, which the workers wait for; a pack whose guides were finished
/// otherwise than with `finish` is not read) and then gathers the slots of the new one until
/// every worker is done. Without a cache, `pack` is none at once.
#[allow(clippy::type_complexity)]
fn open_pack(
    cache: Packed<'_>,
    finish: Finish,
    pack: &Shared,
) -> (
    Option<mpsc::Sender<Vec<(usize, Slot)>>>,
    Option<JoinHandle<()>>,
) {
    let Some((cache, roots)) = cache else {
        let _ = pack.set(None);
        return (None, None);
    };
    let (wtx, wrx) = mpsc::channel::<Vec<(usize, Slot)>>();
    let (cache, roots, unblock) = (cache.clone(), roots.to_vec(), Unblock(Arc::clone(pack)));
    let writer = std::thread::spawn(move || {
        let opened = cache.open(&roots, finish.name).map(Arc::new);
        let _ = unblock.0.set(opened.clone());
        drop(unblock);
        if let Some(o) = opened {
            // Gathered while the workers parse, written once they are done: the writing
            // (mostly the kernel's copy into the page cache) does not take a core from
            // them, so a cold start shows its guides first. The slots' entries are encoded
            // already, and the workers would have made them anyway: at 20,000 guides they
            // hold about 80 MB until the pack is written.
            let gathered: Vec<_> = wrx.into_iter().collect();
            o.write_all(gathered);
        }
    });
    (Some(wtx), Some(writer))
}

#[cfg(test)]
#[path = "streamed_tests.rs"]
mod tests;
