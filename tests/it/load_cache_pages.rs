//! A warm start lets the mapped pack's pages go once each guide is decoded. Guides here are
//! big enough that each entry spans several whole pages, so what is released is really read
//! again: by the next start, and by the writer that copies kept entries into a new pack when
//! one guide changed. Every load must equal a parse with no cache at all.

use std::path::Path;

use tsgnav::load::{load_library_cached, Cache, Stats};

/// A guide of about 40 KiB: many steps, each with a probe and prose of its own.
fn big_guide(i: usize) -> String {
    let mut text = format!("# Shard {i} runbook\n\n| Alert | Step |\n|---|---|\n| ShardDown{i} | [Step 1](#step-1-look-at-shard-{i}-part-0) |\n");
    for part in 0..60 {
        text.push_str(&format!(
            "\n## Step {}: Look at shard {i} part {part}\n\n**Goal:** part {part} of shard {i} answers.\n\n```bash\nkubectl -n shard-{i} get pods -l part=p{part} -o wide\n```\n\nIf it is empty, see [the next part](#step-{}-look-at-shard-{i}-part-{}). {}\n",
            part + 1,
            part + 2,
            part + 1,
            "The replicas of this part keep their own copy of the index; ".repeat(5),
        ));
    }
    text
}

fn load(root: &Path, cache: Option<&Cache>) -> (String, Stats) {
    let (lib, errors, stats) = load_library_cached(&[root.to_path_buf()], cache);
    assert!(errors.is_empty(), "{errors:?}");
    // Bodies a warm load left in the guides' files are read in as the navigator does it.
    lib.guides.iter().for_each(tsgnav::load::hold);
    (format!("{:#?}", lib.guides), stats)
}

fn all(n: usize, parsed: usize) -> Stats {
    Stats {
        parsed,
        cached: n - parsed,
    }
}

#[test]
fn guides_whose_pages_were_released_read_back_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let guides = dir.path().join("guides");
    std::fs::create_dir_all(&guides).expect("mkdir");
    let n = 10;
    for i in 0..n {
        std::fs::write(guides.join(format!("shard-{i:02}.md")), big_guide(i)).expect("write");
    }
    let cache = Cache::with_stamp(dir.path().join("cache"), "pages-test".into());
    let (cold, stats) = load(&guides, Some(&cache));
    assert_eq!(stats, all(n, n));
    assert_eq!(cold, load(&guides, None).0);
    let pack = std::fs::read_dir(dir.path().join("cache"))
        .expect("the cache folder")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "pack"))
        .expect("a pack");
    let bytes = std::fs::read(&pack).expect("read the pack");
    assert!(
        bytes.len() > n * 3 * 4096,
        "entries span whole pages: {}",
        bytes.len()
    );

    let (warm, stats) = load(&guides, Some(&cache));
    assert_eq!(stats, all(n, 0));
    assert_eq!(warm, cold, "decoded from the pack, its pages then released");
    assert_eq!(
        std::fs::read(&pack).expect("read the pack"),
        bytes,
        "releasing pages never touches the file"
    );

    // One guide changes: the new pack copies the 9 kept entries from the old one's pages.
    let changed = guides.join("shard-07.md");
    std::fs::write(
        &changed,
        big_guide(7) + "\n## Step 99: Added later\n\nMore.\n",
    )
    .expect("write");
    let (third, stats) = load(&guides, Some(&cache));
    assert_eq!(stats, all(n, 1));
    assert!(third.contains("Step 99: Added later"));
    let uncached = load(&guides, None).0;
    assert_eq!(third, uncached);
    let (fourth, stats) = load(&guides, Some(&cache));
    assert_eq!(stats, all(n, 0), "every kept entry was copied whole");
    assert_eq!(fourth, uncached);
}

#[test]
fn a_killed_writers_temporary_pack_is_removed_and_a_live_ones_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let guides = dir.path().join("guides");
    std::fs::create_dir_all(&guides).expect("mkdir");
    std::fs::write(guides.join("one.md"), big_guide(1)).expect("write");
    let cache_dir = dir.path().join("cache");
    let cache = Cache::with_stamp(cache_dir.clone(), "orphans-test".into());
    load(&guides, Some(&cache));
    let pack = std::fs::read_dir(&cache_dir)
        .expect("the cache folder")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "pack"))
        .expect("a pack");
    let name = pack.to_str().expect("utf-8").trim_end_matches(".pack");
    // A pid above the kernel's limit (4,194,304) never runs; this test's own process does.
    let dead = std::path::PathBuf::from(format!("{name}.tmp.4999999.0"));
    let live = std::path::PathBuf::from(format!("{name}.tmp.{}.7", std::process::id()));
    let other = cache_dir.join("library-0000.tmp.4999999.0");
    for p in [&dead, &live, &other] {
        std::fs::write(p, b"half a pack").expect("write");
    }
    let (_, stats) = load(&guides, Some(&cache));
    assert_eq!(stats, all(1, 0), "the pack itself is still read");
    assert!(!dead.exists(), "left by a process that is gone: removed");
    assert!(live.exists(), "being written by a running process: kept");
    assert!(
        other.exists(),
        "another library's files are not this load's to judge"
    );
}
