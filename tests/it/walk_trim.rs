//! The walk of a library's folders does not hand glibc's folder-listing buffers back to the
//! system one at a time: each such `madvise` interrupts every other core to flush its TLB, and
//! a warm start of 20,000 guides made over two thousand of them. Traced for real with
//! `strace` (installed by `.ci/run`), over three copies of the ARO-HCP corpus.

use std::path::Path;
use std::process::Command;

/// Copies `from` (a folder tree) to `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let t = e.file_type().expect("type");
        if t.is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else if t.is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
        }
    }
}

#[test]
fn a_warm_walk_hands_back_no_folder_listing_buffer() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let strace = Command::new("strace").arg("-V").output();
    if strace.is_err() {
        assert!(
            std::env::var("TSGNAV_REQUIRE_SERVERS").as_deref() != Ok("1"),
            "strace not found and TSGNAV_REQUIRE_SERVERS=1"
        );
        eprintln!("SKIP: strace not found");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = dir.path().join("lib");
    for i in 0..3 {
        copy_tree(&corpus, &lib.join(format!("copy{i}")));
    }
    let cache = dir.path().join("cache");
    let trace = dir.path().join("trace");
    for _ in 0..2 {
        let out = Command::new("strace")
            .args(["-f", "-e", "trace=madvise", "-o"])
            .arg(&trace)
            .arg(env!("CARGO_BIN_EXE_tsgnav"))
            .args(["alerts", "--json"])
            .arg(&lib)
            .env("TSGNAV_CACHE_DIR", &cache)
            .output()
            .expect("strace tsgnav");
        assert!(out.status.code().is_some_and(|c| c < 2), "{out:?}");
    }
    let calls = std::fs::read_to_string(&trace).expect("trace");
    // glibc's `opendir` takes a 32 KiB buffer; handing it back is `madvise` of that length.
    let buffers = calls
        .lines()
        .filter(|l| l.contains("madvise(") && l.contains(", 32768, MADV_DONTNEED"))
        .count();
    assert_eq!(buffers, 0, "listing buffers handed back:\n{calls}");
    assert!(
        calls.lines().filter(|l| l.contains("madvise(")).count() < 200,
        "{calls}"
    );
}
