//! Reading the library in the background, so the first frame is drawn before parsing is
//! done: a thread finds the files, parses them on every core (through the parse cache) and
//! sends the guides to the main loop in file order, in batches, with the count read so far.
//! What the start-up asked for (an alert to land on, variables) waits until every guide is in,
//! so an alert lands where the whole library routes it. The parse cache is written behind the
//! last batch; quitting waits for it (up to [`PACK_GRACE`]), so a start that quits as soon as
//! the library is in still leaves the next start a filled cache. Part of the runtime (may do
//! IO).

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Msg;
use crate::load::{self, Cache};
use crate::nav::Cmd;
use crate::tui::loading::GuideBatch;

/// How soon the first batch of parsed guides is handed to the screen. Each later batch waits
/// twice as long as the one before, up to [`BATCH_MAX`], so a small library appears at once
/// and a large one in about ten batches. A batch costs the UI thread only its own guides (their
/// links and ids), but each is drawn, and the cores are busy parsing: batches every 40 ms
/// made a warm 20,000-guide start spend more CPU and end no sooner.
const BATCH_EVERY: Duration = Duration::from_millis(40);
const BATCH_MAX: Duration = Duration::from_millis(5120);
/// Between batches the `loading N/M` count alone is sent at least this often (cheap: the
/// screen only redraws its header).
const PROGRESS_EVERY: Duration = Duration::from_millis(640);

/// How long quitting waits for the parse cache to be written once every guide is in (a
/// 20,000-guide pack takes about a second).
pub const PACK_GRACE: Duration = Duration::from_secs(30);

/// The loading thread, seen from the loop: what it waits for at quit.
pub struct Loading {
    /// Disconnected when the thread is done: every guide sent and the cache written.
    done: Receiver<()>,
    /// The cache the thread writes to, to give its pack up when the quit will not wait.
    cache: Option<Cache>,
}

impl Loading {
    /// Waits until the loading thread is done, at most `grace`; whether it is.
    pub fn wait(&self, grace: Duration) -> bool {
        matches!(
            self.done.recv_timeout(grace),
            Err(mpsc::RecvTimeoutError::Disconnected) | Ok(())
        )
    }

    /// Gives up the parse-cache pack being written (nothing is put in place; the next start
    /// parses again), then waits at most `grace` for the thread to clear its temporary file.
    pub fn abandon(&self, grace: Duration) {
        if let Some(c) = &self.cache {
            c.abandon();
        }
        self.wait(grace);
    }
}

/// A load problem, kept for the CLI to print after the terminal is restored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub warning: bool,
    pub message: String,
}

/// The guides to read after the first frame, and what waits for them.
pub struct Loader {
    pub roots: Vec<PathBuf>,
    pub cache: Option<Cache>,
    /// What each guide parsed has done on the thread that parsed it (the pack keeps it).
    pub finish: load::Finish,
    /// Start-up commands applied, in order, once every guide is in. A variable from the config
    /// file (`VarSource::Config`) only fills a name nothing else has set.
    pub pending: Vec<Cmd>,
    /// Filled with the problems met (shared with the caller, which prints them on exit).
    pub problems: Arc<Mutex<Vec<Problem>>>,
}

/// Starts the loading thread; returns the commands to apply when it is done, and the thread's
/// handle for the quit.
pub fn start(loader: Loader, tx: Sender<Msg>) -> (Vec<Cmd>, Loading) {
    let Loader {
        roots,
        cache,
        finish,
        pending,
        problems,
    } = loader;
    let (done_tx, done) = mpsc::channel::<()>();
    let kept = cache.clone();
    std::thread::spawn(move || {
        // Dropped when this thread ends, which is what `Loading::wait` waits for.
        let _done = done_tx;
        let mut failed = false;
        // Problems of files met before the walk is over wait for the walk's own, so they
        // are listed in the order a walk before the reading would list them.
        let mut held = Some(Vec::new());
        let mut note = |e: load::LoadError| {
            failed |= !e.is_warning();
            if let Ok(mut p) = problems.lock() {
                p.push(Problem {
                    warning: e.is_warning(),
                    message: e.to_string(),
                });
            }
        };
        // The count of files is not known until the walk is over: 0 until then.
        let mut total = 0;
        let send = |guides, loaded, total, done| {
            tx.send(Msg::Guides(Box::new(GuideBatch {
                guides,
                loaded,
                total,
                done,
                pending: Vec::new(),
            })))
            .is_ok()
        };
        if !send(Vec::new(), 0, 0, None) {
            return;
        }
        let mut batch = Vec::new();
        let (mut loaded, mut shown, mut told) = (0, 0, 0);
        let (mut last, mut counted) = (Instant::now(), Instant::now());
        let mut every = BATCH_EVERY;
        let mut open = true;
        // Each guide is finished on the thread that parsed it (`finish`), not on this one.
        let keep = |g: crate::tsg::Guide| g;
        // With a pack to check the files against, the walk looks at each file as it meets it.
        let look = cache.as_ref().is_some_and(|c| c.has_pack(&roots));
        let walk = |found: &mut dyn FnMut(load::Source)| {
            let mut n = 0;
            let mut count = |s| {
                n += 1;
                found(s)
            };
            let errors = load::discover_each_with(&roots, look, &mut count);
            (errors, n)
        };
        let packed = cache.as_ref().map(|c| (c, roots.as_slice()));
        let (_, writer) = load::parse_streamed(walk, packed, finish, BATCH_EVERY, &keep, |step| {
            let idle = matches!(step, load::Streamed::Idle);
            match step {
                load::Streamed::Ready(_, r) => {
                    loaded += 1;
                    match (r, held.as_mut()) {
                        (Ok(g), _) => batch.push(g),
                        (Err(e), Some(h)) => h.push(e),
                        (Err(e), None) => note(e),
                    }
                }
                load::Streamed::Walked((errors, n)) => {
                    errors.into_iter().for_each(&mut note);
                    held.take().into_iter().flatten().for_each(&mut note);
                    total = n;
                    // The count now has its total: shown at the next progress step.
                    told = 0;
                }
                load::Streamed::Idle => {}
            }
            // A batch every interval, and whatever is ready when a slow file holds up the
            // rest (an idle step means an interval passed with nothing new to read): then
            // no later than the progress interval.
            let due = if idle {
                every.min(PROGRESS_EVERY)
            } else {
                every
            };
            if open && loaded > shown && last.elapsed() >= due {
                open = send(std::mem::take(&mut batch), loaded, total, None);
                (shown, told) = (loaded, loaded);
                (last, counted) = (Instant::now(), Instant::now());
                every = (every * 2).min(BATCH_MAX);
            } else if open && loaded > told && counted.elapsed() >= PROGRESS_EVERY {
                open = send(Vec::new(), loaded, total, None);
                told = loaded;
                counted = Instant::now();
            }
        });
        if open {
            send(batch, loaded, total, Some(failed));
        }
        // Every guide is on screen; the parse cache is still being written behind it.
        if let Some(w) = writer {
            let _ = w.join();
        }
    });
    (pending, Loading { done, cache: kept })
}
