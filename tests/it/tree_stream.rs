//! `tree --json` streams guides out as they are parsed (and, with no usable parse cache, while
//! the folders are still walked), resolving links to other guides as they become known. Its
//! output must be exactly loading the whole library, linking it and serialising it with serde:
//! checked here over libraries built to stress the order (links forward and back, two roots
//! holding the same relative path, a guide with no heading, a link loop, refused files, a
//! missing root), with the cache off, empty and filled, and over the test fixtures.

use std::path::{Path, PathBuf};

/// What loading, classifying, refining and linking `roots` in one process gives, as JSON.
fn reference(roots: &[PathBuf]) -> (String, Vec<String>) {
    let (mut lib, errors) = tsgnav::load::load_library(roots);
    for g in &mut lib.guides {
        for p in g.nodes.iter_mut().flat_map(|n| n.probes.iter_mut()) {
            p.safety = Some(tsgnav::safety::classify_probe(p));
        }
        tsgnav::safety::refine_roles(g);
    }
    let json = serde_json::to_string(&lib).expect("serialise") + "\n";
    let problems = errors
        .iter()
        .map(|e| {
            let level = if e.is_warning() { "warning" } else { "error" };
            format!("{level}: {e}")
        })
        .collect();
    (json, problems)
}

/// `tree --json roots` with `TSGNAV_CACHE_DIR=cache`: stdout and the lines of stderr.
fn tree_json(roots: &[PathBuf], cache: &Path) -> (String, Vec<String>) {
    let out = crate::common::bin()
        .args(["tree", "--json"])
        .args(roots)
        .env("TSGNAV_CACHE_DIR", cache)
        .output()
        .expect("run tsgnav tree --json");
    let stderr = String::from_utf8_lossy(&out.stderr);
    (
        String::from_utf8(out.stdout).expect("utf-8 JSON"),
        stderr.lines().map(str::to_string).collect(),
    )
}

fn write(dir: &Path, rel: &str, text: &[u8]) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A library whose guides link to each other in both directions, across folders and roots.
fn library(dir: &Path) -> Vec<PathBuf> {
    let (one, two) = (dir.join("one"), dir.join("two"));
    // `aa.md` links forward to `zz.md` (read last) and to `docs/mid.md`; `zz.md` links back.
    write(
        &one,
        "aa.md",
        b"# First\n\nGo to [the last](zz.md), [the middle](docs/mid.md), [nothing](gone.md) \
          and [a section](zz.md#more).\n\n## Steps\n\n```bash\nkubectl get pods\n```\n",
    );
    write(
        &one,
        "docs/mid.md",
        b"# Middle \"quoted\"\n\nBack to [first](../aa.md) and [headless](headless.md).\n",
    );
    write(&one, "docs/headless.md", b"no heading, only text\n");
    write(
        &one,
        "zz.md",
        b"# Last\n\nSee [first](aa.md).\n\n## More\n\n```bash\nkubectl delete pod x\n```\n",
    );
    // The same relative paths under a second root: a target names the last file of a path.
    write(&two, "aa.md", b"# Second root first\n\nSee [zz](zz.md).\n");
    write(&two, "zz.md", b"# Second root last\n\nSee [aa](aa.md).\n");
    write(&one, "refused/binary.md", b"# B\n\x00\x01");
    write(&one, "refused/latin1.md", b"# caf\xe9\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", one.join("docs/up")).expect("symlink");
    vec![one.clone(), two, one.join("zz.md"), dir.join("missing")]
}

#[test]
fn streamed_json_is_loading_linking_and_serialising_the_library() {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "tree-stream-{}-{}",
        std::process::id(),
        crate::common::nanos()
    ));
    let roots = library(&base.join("lib"));
    let (want, problems) = reference(&roots);
    // The library is what the test says it is: links resolved both ways (to the last file of
    // a path, the second root's), one left as written, problems met.
    assert!(want.contains("\"to\":\"zz.md#second-root-last\""), "{want}");
    assert!(
        want.contains("\"to\":\"aa.md#second-root-first\""),
        "{want}"
    );
    assert!(want.contains("\"to\":\"gone.md\""), "{want}");
    assert!(problems.len() >= 3, "{problems:?}");
    let no_cache = base.join("no-cache-file");
    std::fs::write(
        &no_cache,
        b"a file, so no cache folder can be made under it",
    )
    .expect("write");
    let caches = [
        ("no cache", no_cache.join("cache")),
        ("empty cache", base.join("cache")),
        ("filled cache", base.join("cache")),
    ];
    for (what, cache) in &caches {
        let (got, errs) = tree_json(&roots, cache);
        assert_eq!(got, want, "{what}");
        assert_eq!(errs, problems, "{what}");
    }
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn streamed_json_over_the_fixtures_matches_the_reference() {
    let roots = [crate::common::root().join("tests/fixtures")];
    let (want, problems) = reference(&roots);
    let none = Path::new("/dev/null/no-cache");
    let (got, errs) = tree_json(&roots, none);
    assert_eq!(got, want);
    assert_eq!(errs, problems);
}

/// Guides are read in batches of consecutive files, each worker into a buffer of its own kept
/// from one file to the next: a library of 21 files (not a whole number of batches) where a
/// long guide is followed by short ones (a leftover tail of the long one would show in them),
/// and refused files sit on the edges of the batches (8th, 9th and 16th), streams exactly as
/// loading the library does.
#[test]
fn batched_reads_into_kept_buffers_give_every_guide_its_own_text() {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "tree-stream-batches-{}-{}",
        std::process::id(),
        crate::common::nanos()
    ));
    let lib = base.join("lib");
    let long_tail =
        "Check [the next guide](g03.md) and run:\n\n```bash\nkubectl get pods -A\n```\n\n"
            .repeat(40);
    for i in 0..21 {
        let rel = format!("g{i:02}.md");
        let text = match i {
            7 => b"# Seven\n\x00binary".to_vec(),
            8 => b"# Eight caf\xe9\n".to_vec(),
            15 => b"\x00".to_vec(),
            2 | 12 => format!("# Long {i}\n\n{long_tail}## Rollback\n\nkubectl delete pod x\n")
                .into_bytes(),
            _ => format!("# Guide {i}\n\nSee [two](g02.md).\n").into_bytes(),
        };
        write(&lib, &rel, &text);
    }
    let roots = [lib];
    let (want, problems) = reference(&roots);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert_eq!(want.matches("\"path\":\"g").count(), 18, "{want}");
    // Read on its own, each good file has as many nodes as the stream gives it.
    for i in (0..21).filter(|i| ![7, 8, 15].contains(i)) {
        let rel = format!("g{i:02}.md");
        let text = std::fs::read_to_string(roots[0].join(&rel)).expect("read");
        let nodes = tsgnav::tsg::parse_guide(&rel, &text).nodes.len();
        assert_eq!(
            want.matches(&format!("\"id\":\"{rel}#")).count(),
            nodes,
            "{rel}"
        );
    }
    let (got, errs) = tree_json(&roots, Path::new("/dev/null/no-cache"));
    assert_eq!(got, want);
    assert_eq!(errs, problems);
    let _ = std::fs::remove_dir_all(&base);
}
