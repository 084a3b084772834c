//! Criterion benchmarks of the navigator's start on a big library (2,000 guides: copies of the
//! ARO-HCP corpus files, or of the bundled `tsg/` guides when the corpus is absent, written to a
//! temp dir).
//!
//! - `startup/first_frame_2000_cold` and `_warm`: what happens before the first frame when
//!   guides are given: the loading thread is started (it finds, reads and parses the files in
//!   the background, through an empty or a filled parse cache), the app is built and the
//!   library screen with its "loading N/M" count is drawn on a 120×40 TestBackend. The timer
//!   stops at the drawn frame; the load then finishes untimed. Goal: ≤ 100 ms.
//! - `startup/whole_library_2000_cold` and `_warm`: until every guide is in (found, read or
//!   taken from the cache, parsed on every core, linked): when the count disappears.
//!
//! Bench code only: public API, TestBackend, no terminal; writes only in its temp dir.
//! Run with `cargo bench --bench startup -- --warm-up-time 1 --measurement-time 3`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use tsgnav::load::{load_library_cached, Cache};
use tsgnav::tui::frame::FrameState;
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::{view, App};

const GUIDES: usize = 2000;

fn sources() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("TSGNAV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus/aro-hcp"));
    if corpus.is_dir() {
        corpus
    } else {
        eprintln!("note: corpus not found; copying the bundled tsg/ guides");
        root.join("tsg")
    }
}

/// Writes `GUIDES` guides under `dir`, each corpus file copied into numbered folders.
fn library(dir: &Path) {
    let (files, _) = tsgnav::load::discover(&[sources()]);
    assert!(!files.is_empty(), "no guides to copy");
    for i in 0..GUIDES {
        let src = &files[i % files.len()];
        let to = dir
            .join(format!("copy-{:03}", i / files.len()))
            .join(&src.rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&src.file, &to).expect("copy");
    }
}

/// The first frame, timed; the load it started finishes afterwards, untimed.
fn first_frame(root: &Path, cache: Cache) -> Duration {
    let start = Instant::now();
    let roots = vec![root.to_path_buf()];
    let loading = std::thread::spawn(move || load_library_cached(&roots, Some(&cache)));
    let mut app = App::new(Default::default(), Keymap::bundled(), Theme::bundled(false));
    tsgnav::tui::loading::absorb(&mut app, Vec::new(), 0, 0);
    let mut term = Terminal::new(TestBackend::new(120, 40)).expect("backend");
    let mut fs = FrameState::default();
    term.draw(|f| view::draw(f, &app, &mut fs)).expect("draw");
    let took = start.elapsed();
    let (lib, errors, _) = loading.join().expect("loading thread");
    assert_eq!(lib.guides.len() + errors.len(), GUIDES);
    took
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("library");
    library(&root);
    let warm = dir.path().join("warm-cache");
    load_library_cached(std::slice::from_ref(&root), Some(&Cache::new(warm.clone())));
    let cold = || {
        let d = dir.path().join("cold-cache");
        let _ = std::fs::remove_dir_all(&d);
        Cache::new(d)
    };

    let mut g = c.benchmark_group("startup");
    g.sample_size(10);
    g.bench_function("first_frame_2000_cold", |b| {
        b.iter_custom(|n| (0..n).map(|_| first_frame(&root, cold())).sum())
    });
    g.bench_function("first_frame_2000_warm", |b| {
        b.iter_custom(|n| {
            (0..n)
                .map(|_| first_frame(&root, Cache::new(warm.clone())))
                .sum()
        })
    });
    g.bench_function("whole_library_2000_cold", |b| {
        b.iter_custom(|n| {
            (0..n)
                .map(|_| {
                    let cache = cold();
                    let start = Instant::now();
                    std::hint::black_box(load_library_cached(
                        std::slice::from_ref(&root),
                        Some(&cache),
                    ));
                    start.elapsed()
                })
                .sum()
        })
    });
    g.bench_function("whole_library_2000_warm", |b| {
        let cache = Cache::new(warm.clone());
        b.iter(|| {
            std::hint::black_box(load_library_cached(
                std::slice::from_ref(&root),
                Some(&cache),
            ))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
