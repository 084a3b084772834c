//! Loading a library on every core and through the parse cache: the same guides in the same
//! order as parsing one file at a time, a second start parses only what changed, and a cache
//! entry that is corrupt, stale or from another build is ignored.

use std::path::{Path, PathBuf};

use tsgnav::load::{load_library_cached, Cache, Stats};

/// A library of small guides, each different: the bundled ones, the lint fixtures and a few
/// written here (front matter, a triage table, probes, a cross-guide link).
fn library(dir: &Path) -> Vec<PathBuf> {
    let root = crate::common::root();
    let mut files = Vec::new();
    for name in [
        "TEMPLATE.md",
        "swift-networking.md",
        "maestro-stuck-deletion.md",
    ] {
        let to = dir.join("bundled").join(name);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(root.join("tsg").join(name), &to).expect("copy");
        files.push(to);
    }
    let own = [
        ("own/a.md", "---\ntitle: Disk pressure\nalerts:\n  NodeDiskPressure: step-1-look\n---\n# Disk pressure\n\n## Step 1: Look\n\n```bash\nkubectl get nodes -o wide\n```\n\nSee [the other guide](b.md#restart).\n"),
        ("own/b.md", "# Restarts\n\n## Restart\n\n**Goal:** the pod runs again.\n\n**Risk:** a short outage.\n\n```bash\nkubectl -n ${NS} rollout restart deploy/x\n```\n\n- [ ] pods are ready\n"),
        ("own/nested/c.md", "# Quiet\n\nNo steps, only prose.\n"),
        ("own/nested/d.md", "# Triage\n\n| Alert | Go to |\n|---|---|\n| HighLatency | [Step 2](#step-2-check) |\n\n## Step 2: Check\n\n```promql\nrate(http_requests_total[5m])\n```\n\n> **GOTCHA** the metric lags.\n"),
    ];
    for (rel, text) in own {
        let to = dir.join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::write(&to, text).expect("write");
        files.push(to);
    }
    files
}

fn load(root: &Path, cache: Option<&Cache>) -> (String, Stats, usize) {
    let (lib, errors, stats) = load_library_cached(&[root.to_path_buf()], cache);
    assert!(errors.is_empty(), "{errors:?}");
    // Debug shows every field, the ones `tree --json` leaves out (bodies, links …) too; the
    // bodies a warm load left in the guides' files are read in first, as the navigator does.
    lib.guides.iter().for_each(tsgnav::load::hold);
    (format!("{:#?}", lib.guides), stats, lib.guides.len())
}

#[test]
fn parallel_load_matches_parsing_one_file_at_a_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    library(dir.path());
    let (lib, errors) = tsgnav::load::load_library(&[dir.path().to_path_buf()]);
    assert!(errors.is_empty());
    let (files, _) = tsgnav::load::discover(&[dir.path().to_path_buf()]);
    let mut one_by_one = tsgnav::tsg::Library::default();
    for f in &files {
        let text = std::fs::read_to_string(&f.file).expect("read");
        let mut g = tsgnav::tsg::parse_guide(&f.rel, &text);
        g.file = f.file.display().to_string();
        one_by_one.guides.push(g);
    }
    tsgnav::tsg::link_library(&mut one_by_one);
    assert_eq!(lib.guides.len(), 7);
    assert_eq!(
        format!("{:?}", lib.guides),
        format!("{:?}", one_by_one.guides)
    );
}

#[test]
fn a_second_start_parses_only_what_changed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let guides = dir.path().join("guides");
    let files = library(&guides);
    let cache = Cache::with_stamp(dir.path().join("cache"), "test-build-1".into());
    let (first, stats, n) = load(&guides, Some(&cache));
    assert_eq!(
        stats,
        Stats {
            parsed: n,
            cached: 0
        }
    );
    let uncached = load(&guides, None).0;
    assert_eq!(first, uncached, "the cache does not change what is loaded");

    let (second, stats, _) = load(&guides, Some(&cache));
    assert_eq!(
        stats,
        Stats {
            parsed: 0,
            cached: n
        }
    );
    assert_eq!(
        second, first,
        "a guide read back from the cache is the guide parsed"
    );

    // One guide gains a step: only it is parsed again, and the new step is there.
    let changed = &files[4];
    let mut text = std::fs::read_to_string(changed).expect("read");
    text.push_str("\n## Step 9: Added later\n\nMore text.\n");
    std::fs::write(changed, text).expect("write");
    let (third, stats, _) = load(&guides, Some(&cache));
    assert_eq!(
        stats,
        Stats {
            parsed: 1,
            cached: n - 1
        }
    );
    assert!(third.contains("Step 9: Added later"));
    assert_eq!(third, load(&guides, None).0);
}

#[test]
fn corrupt_stale_or_foreign_cache_entries_are_ignored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let guides = dir.path().join("guides");
    library(&guides);
    let cache_dir = dir.path().join("cache");
    let cache = Cache::with_stamp(cache_dir.clone(), "test-build-1".into());
    let (fresh, _, n) = load(&guides, Some(&cache));

    // Another build of tsgnav must not trust these entries.
    let other = Cache::with_stamp(cache_dir.clone(), "test-build-2".into());
    let (seen, stats, _) = load(&guides, Some(&other));
    assert_eq!(
        stats,
        Stats {
            parsed: n,
            cached: 0
        }
    );
    assert_eq!(seen, fresh);

    // The pack cut short, emptied, or replaced by other bytes: every guide is parsed again,
    // and the pack is written again, whole.
    let packs: Vec<PathBuf> = std::fs::read_dir(&cache_dir)
        .expect("cache dir")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(
        packs.len(),
        1,
        "one pack for the library, not one file per guide"
    );
    let pack = &packs[0];
    let whole = std::fs::read(pack).expect("read");
    // The same pack under the first layout's name (JSON payloads, no checksums).
    let mut first_layout = whole.clone();
    let v = b"TSGNAVPACK2".len() - 1;
    first_layout[v] = b'1';
    // Cut just before its end, or a byte of its framing changed (the first entry's path length).
    let mut reframed = whole.clone();
    let at = b"TSGNAVPACK2\n".len() + 4 + "test-build-2".len();
    reframed[at] ^= 0x40;
    let bad: [Vec<u8>; 6] = [
        whole[..whole.len() / 2].to_vec(),
        whole[..whole.len() - 1].to_vec(),
        Vec::new(),
        b"{\"stamp\":\"test-build-2\",\"guide\":null}".to_vec(),
        first_layout,
        reframed,
    ];
    for bytes in bad {
        load(&guides, Some(&other));
        std::fs::write(pack, bytes).expect("write");
        let (seen, stats, _) = load(&guides, Some(&other));
        assert_eq!(
            stats,
            Stats {
                parsed: n,
                cached: 0
            }
        );
        assert_eq!(seen, fresh);
        assert_eq!(
            load(&guides, Some(&other)).1,
            Stats {
                parsed: 0,
                cached: n
            }
        );
    }
}

#[test]
fn a_damaged_entry_costs_only_its_own_guide() {
    let dir = tempfile::tempdir().expect("tempdir");
    let guides = dir.path().join("guides");
    library(&guides);
    let cache_dir = dir.path().join("cache");
    let cache = Cache::with_stamp(cache_dir.clone(), "test-build-1".into());
    let (fresh, _, n) = load(&guides, Some(&cache));
    let pack = std::fs::read_dir(&cache_dir)
        .expect("cache dir")
        .map(|e| e.expect("entry").path())
        .next()
        .expect("a pack");
    // Flip one bit of one entry without moving any byte: its title reads back as another
    // valid title ("Restarts" → "Restarus"), so only the entry's checksum can tell.
    let mut bytes = std::fs::read(&pack).expect("read");
    let at = bytes
        .windows(b"Restarts".len())
        .position(|w| w == b"Restarts")
        .expect("the entry of own/b.md");
    bytes[at + 6] ^= 0x01;
    std::fs::write(&pack, &bytes).expect("write");
    let (seen, stats, _) = load(&guides, Some(&cache));
    assert_eq!(
        stats,
        Stats {
            parsed: 1,
            cached: n - 1
        }
    );
    assert_eq!(seen, fresh);
    // The entry was written again.
    assert_eq!(load(&guides, Some(&cache)).1.cached, n);
}

#[test]
fn a_guide_removed_from_the_library_leaves_the_pack() {
    let dir = tempfile::tempdir().expect("tempdir");
    let guides = dir.path().join("guides");
    let files = library(&guides);
    let cache = Cache::with_stamp(dir.path().join("cache"), "t".into());
    let (_, _, n) = load(&guides, Some(&cache));
    let pack = |d: &Path| {
        let p = std::fs::read_dir(d)
            .expect("cache dir")
            .map(|e| e.expect("entry").path())
            .next()
            .expect("a pack");
        std::fs::read(p).expect("read")
    };
    assert!(pack(&dir.path().join("cache"))
        .windows(b"Restarts".len())
        .any(|w| w == b"Restarts"));
    std::fs::remove_file(&files[4]).expect("remove own/b.md");
    let (_, stats, m) = load(&guides, Some(&cache));
    assert_eq!((m, stats.cached, stats.parsed), (n - 1, n - 1, 0));
    assert!(!pack(&dir.path().join("cache"))
        .windows(b"Restarts".len())
        .any(|w| w == b"Restarts"));
}

#[test]
fn two_loads_at_once_leave_one_whole_pack() {
    let dir = tempfile::tempdir().expect("tempdir");
    let guides = dir.path().join("guides");
    library(&guides);
    let cache = Cache::with_stamp(dir.path().join("cache"), "t".into());
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| load(&guides, Some(&cache)).0);
        let b = s.spawn(|| load(&guides, Some(&cache)).0);
        (a.join().expect("a"), b.join().expect("b"))
    });
    assert_eq!(a, b);
    let (c, stats, n) = load(&guides, Some(&cache));
    assert_eq!(stats.cached, n, "the pack one of them left is whole");
    assert_eq!(c, a);
    let files = std::fs::read_dir(dir.path().join("cache"))
        .expect("cache dir")
        .count();
    assert_eq!(files, 1, "no temporary file is left behind");
}

#[test]
fn an_edit_that_keeps_the_size_is_seen_through_the_mtime() {
    let dir = tempfile::tempdir().expect("tempdir");
    let guides = dir.path().join("guides");
    let files = library(&guides);
    let cache = Cache::with_stamp(dir.path().join("cache"), "b".into());
    load(&guides, Some(&cache));
    let target = &files[4];
    let text = std::fs::read_to_string(target).expect("read");
    let same_size = text.replace("Restart", "Reboots");
    assert!(same_size != text && same_size.len() == text.len());
    let meta = std::fs::metadata(target).expect("meta");
    std::fs::write(target, &same_size).expect("write");
    // A clock that did not move would hide the edit; move the mtime on explicitly.
    let later = meta.modified().expect("mtime") + std::time::Duration::from_secs(2);
    std::fs::File::options()
        .write(true)
        .open(target)
        .and_then(|f| f.set_modified(later))
        .expect("set mtime");
    let (seen, stats, _) = load(&guides, Some(&cache));
    assert_eq!(stats.parsed, 1);
    assert!(seen.contains("Reboots"));
}
