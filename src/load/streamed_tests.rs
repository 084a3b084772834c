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

/// A cold load writes nothing of its pack while its guides are parsed: 200 guides in (over
/// three of the batches a worker hands the writer), the walk holds back the rest while this
/// looks at the cache folder for half a second; then the load ends and the pack is there,
/// whole. (Writing as the slots came, the temporary pack was there within milliseconds.)
#[test]
fn the_pack_is_written_once_every_guide_is_parsed_not_beside_the_parsing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lib = dir.path().join("lib");
    std::fs::create_dir(&lib).expect("lib");
    let source = |i: usize| {
        let file = lib.join(format!("g{i}.md"));
        std::fs::write(
            &file,
            format!("# Guide {i}\n\n## Check\n\n```bash\nls /tmp/{i}\n```\n"),
        )
        .expect("guide");
        Source {
            keyed: file.display().to_string(),
            file,
            rel: format!("g{i}.md"),
            seen: None,
        }
    };
    let sources: Vec<Source> = (0..300).map(source).collect();
    let cached = dir.path().join("cache");
    let cache = crate::load::Cache::with_stamp(cached.clone(), "test".into());
    let roots = [lib.clone()];
    let pack_files = || {
        std::fs::read_dir(&cached)
            .map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let (go, wait) = mpsc::channel::<()>();
    let walk = move |found: &mut dyn FnMut(Source)| {
        let mut rest = sources.into_iter();
        rest.by_ref().take(200).for_each(&mut *found);
        // Held back until the test has looked (or gave up on seeing 200 guides).
        let _ = wait.recv_timeout(Duration::from_secs(30));
        rest.for_each(found);
    };
    let (mut ready, mut early) = (0, Vec::new());
    let idle = Duration::from_millis(10);
    let (_, writer) = parse_streamed(
        walk,
        Some((&cache, &roots)),
        Finish::NONE,
        idle,
        &|g| g.title,
        |step| {
            if let Streamed::Ready(_, Ok(_)) = step {
                ready += 1;
                if ready == 200 {
                    let until = std::time::Instant::now() + Duration::from_millis(500);
                    while early.is_empty() && std::time::Instant::now() < until {
                        std::thread::sleep(Duration::from_millis(10));
                        early = pack_files();
                    }
                    let _ = go.send(());
                }
            }
        },
    );
    writer
        .expect("a writer for a cache")
        .join()
        .expect("writer");
    assert_eq!(ready, 300);
    assert!(early.is_empty(), "written while parsing: {early:?}");
    let after = pack_files();
    assert_eq!(after.len(), 1, "{after:?}");
    assert!(after[0].to_string_lossy().ends_with(".pack"), "{after:?}");
    let (lib2, _, stats) = crate::load::load_library_cached(&roots, Some(&cache));
    assert_eq!((lib2.guides.len(), stats.cached), (300, 300));
}
