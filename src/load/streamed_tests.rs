//! The list of files a walk hands its workers: handed over even while a worker has the lock,
//! taken a batch at a time, what is ready sent before a worker waits.

use super::*;

fn feed() -> Feed {
    Feed {
        found: std::sync::Mutex::new((Vec::new(), false, 0)),
        more: std::sync::Condvar::new(),
    }
}

fn src(n: usize) -> Source {
    Source {
        file: PathBuf::from(format!("g{n}.md")),
        rel: format!("g{n}.md"),
        keyed: format!("g{n}.md"),
        seen: None,
    }
}

/// A file found while a worker holds the lock is in the list once `hand` returns: held back
/// for a later call instead, it stayed with a walk that then stalled (a slow folder; in a test,
/// a walk waiting for its first guide) while the workers waited for it.
#[test]
fn a_file_found_while_a_worker_has_the_lock_is_handed_over_not_held_back() {
    let f = feed();
    std::thread::scope(|s| {
        let (locked_tx, locked) = mpsc::channel();
        let f = &f;
        let worker = s.spawn(move || {
            let guard = f.lock();
            locked_tx.send(()).expect("send");
            std::thread::sleep(Duration::from_millis(50));
            drop(guard);
        });
        locked.recv().expect("the worker has the lock");
        f.hand(Some(src(0)), false);
        assert_eq!(f.lock().0, vec![src(0)], "in the list when hand returns");
        worker.join().expect("join");
    });
    f.hand(Some(src(1)), false);
    assert_eq!(f.take(0..8, || panic!("two files are there")).len(), 2);
    assert_eq!(f.take(1..8, || {}).first(), Some(&src(1)));
}

#[test]
fn a_worker_sends_what_it_has_then_waits_for_the_walk_and_stops_at_its_end() {
    let f = feed();
    std::thread::scope(|s| {
        let (told_tx, told) = mpsc::channel();
        let waiter = s.spawn(|| {
            let first = f.take(0..8, move || told_tx.send(()).expect("send"));
            let after = f.take(first.len()..8, || {});
            (first, after)
        });
        told.recv().expect("told before it waits");
        f.hand([src(0), src(1), src(2)], true);
        let (first, after) = waiter.join().expect("join");
        assert_eq!(first, vec![src(0), src(1), src(2)]);
        assert!(after.is_empty(), "the walk is over");
    });
}

#[test]
fn a_walk_that_panics_ends_the_load_instead_of_leaving_the_workers_waiting() {
    let panicked = std::panic::catch_unwind(|| {
        let walk = |found: &mut dyn FnMut(Source)| {
            found(src(0));
            panic!("the walk broke");
        };
        let idle = Duration::from_millis(10);
        parse_streamed(walk, None, Finish::NONE, idle, &|g| g.title, |_| ())
    });
    assert!(panicked.is_err(), "the walk's panic comes out of the load");
}

/// The pack's writer takes the idle policy for its own thread only: the thread that started it
/// (in a load, the one that runs the workers and the navigator) keeps the policy it had.
#[cfg(target_os = "linux")]
#[test]
fn the_writer_runs_behind_the_workers_and_leaves_other_threads_as_they_were() {
    // SAFETY: sched_getscheduler reads this thread's policy; no memory of ours is touched.
    let policy = || unsafe { libc::sched_getscheduler(0) };
    let before = policy();
    let writer = std::thread::spawn(move || {
        behind_the_workers();
        policy()
    });
    assert_eq!(writer.join().ok(), Some(libc::SCHED_IDLE));
    assert_eq!(policy(), before);
    assert_ne!(before, libc::SCHED_IDLE);
}
