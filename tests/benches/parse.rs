//! Criterion benchmarks for the parsing front end.
//!
//! - `parse_guide/corpus`: every markdown file of the ARO-HCP corpus (`../shared/corpus/aro-hcp`
//!   beside the checkout, or `TSGNAV_CORPUS`; the bundled `tsg/` guides when neither exists),
//!   parsed from memory with `tsgnav::tsg::parse_guide`: pure CPU, no IO in the timed loop.
//! - `load_library/generated`: `tsgnav::load::load_library` over a library of copies of those
//!   files written to a temp dir (reads, parses and links, as `tsgnav tree` does).
//!
//! Bench code only: uses the public `tsg` and `load` API, never `cli`, and writes nothing
//! outside its temp dir. Run with `cargo bench --bench parse`.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// How many guides the generated library for `load_library` holds.
const LIBRARY_GUIDES: usize = 400;

/// The corpus directory, or the bundled guides when the corpus is not beside the checkout.
fn corpus_dir() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("TSGNAV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus/aro-hcp"));
    if corpus.is_dir() {
        corpus
    } else {
        eprintln!(
            "note: corpus not found at {}; benchmarking the bundled tsg/ guides",
            corpus.display()
        );
        root.join("tsg")
    }
}

/// Every `.md` file under `dir`, sorted, as (relative path, contents).
fn markdown_files(dir: &Path) -> Vec<(String, String)> {
    let mut stack = vec![dir.to_path_buf()];
    let mut out = Vec::new();
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    let rel = path.strip_prefix(dir).unwrap_or(&path);
                    out.push((rel.to_string_lossy().replace('\\', "/"), text));
                }
            }
        }
    }
    out.sort();
    out
}

fn bench_parse(c: &mut Criterion) {
    let files = markdown_files(&corpus_dir());
    assert!(!files.is_empty(), "no markdown files to benchmark");
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();

    let mut group = c.benchmark_group("parse_guide");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function(format!("corpus ({} files)", files.len()), |b| {
        b.iter(|| {
            for (path, text) in &files {
                black_box(tsgnav::tsg::parse_guide(black_box(path), black_box(text)));
            }
        })
    });
    group.finish();
}

fn bench_load(c: &mut Criterion) {
    let files = markdown_files(&corpus_dir());
    assert!(!files.is_empty(), "no markdown files to benchmark");
    let dir = tempfile::tempdir().expect("create a temp dir for the generated library");
    let mut bytes = 0usize;
    for i in 0..LIBRARY_GUIDES {
        let (rel, text) = &files[i % files.len()];
        // Spread copies over folders like a real team's docs tree; keep relative links working
        // inside each copy's own folder by copying the file's path under a numbered folder.
        let path = dir
            .path()
            .join(format!("team-{:02}/copy-{i:04}", i % 20))
            .join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a folder of the generated library");
        }
        std::fs::write(&path, text).expect("write a guide of the generated library");
        bytes += text.len();
    }
    let roots = [dir.path().to_path_buf()];

    let mut group = c.benchmark_group("load_library");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function(format!("generated ({LIBRARY_GUIDES} guides)"), |b| {
        b.iter(|| {
            let (library, errors) = tsgnav::load::load_library(black_box(&roots));
            assert!(errors.is_empty(), "generated library failed to load");
            black_box(library)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_parse, bench_load);
criterion_main!(benches);
