//! The list of files a walk hands its workers: held back while a worker has the lock, taken
//! a batch at a time, what is ready sent before a worker waits.

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
    }
}

#[test]
fn the_walk_holds_files_back_while_a_worker_has_the_lock_then_hands_them_all() {
    let f = feed();
    let mut held = vec![src(0)];
    let guard = f.lock();
    f.hand(&mut held, false);
    assert_eq!(held.len(), 1, "the lock was taken: kept for later");
    drop(guard);
    held.push(src(1));
    f.hand(&mut held, false);
    assert!(held.is_empty());
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
        let mut held = vec![src(0), src(1), src(2)];
        f.hand(&mut held, true);
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
