//! A warm start reads the parse cache's pack while the walk of the folders is still going: the
//! pack is named after the roots, so the first guide comes from it before the last file is
//! found. The walk here is held at its first file until that guide is handed back: a load that
//! waited for the whole walk before reading the pack would never hand it back, and the walk
//! goes on after a time-out with the test failing, instead of hanging.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use tsgnav::load::{self, Cache, Source, Stats, Streamed};

/// A library of `n` guides in a temporary folder, and a parse cache beside it.
fn library(n: usize) -> (tempfile::TempDir, std::path::PathBuf, Cache) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("guides");
    write_guides(&root, n);
    let cache = Cache::with_stamp(dir.path().join("cache"), "streamed-test".into());
    (dir, root, cache)
}

fn write_guides(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir).expect("mkdir");
    for i in 0..n {
        let text = format!(
            "# Pool {i}\n\n## Step 1: Look at pool {i}\n\n```bash\nkubectl get nodes -l pool=p{i}\n```\n"
        );
        std::fs::write(dir.join(format!("pool-{i:02}.md")), text).expect("write");
    }
}

/// Loads `root` through `cache` with a walk that stops after its first file until the first
/// guide is emitted; what was emitted, in order (`G i` a guide, `W true` the walk's end after
/// it was let go, `W false` after a time-out), and the stats.
fn held_walk(root: &Path, cache: &Cache) -> (Vec<String>, Stats) {
    let roots = vec![root.to_path_buf()];
    let (files, errors) = load::discover(&roots);
    assert!(errors.is_empty(), "{errors:?}");
    let (first_back, go) = mpsc::channel::<()>();
    let walk = move |found: &mut dyn FnMut(Source)| {
        let mut files = files.into_iter();
        files.next().into_iter().for_each(&mut *found);
        let went = go.recv_timeout(Duration::from_secs(20)).is_ok();
        files.for_each(found);
        went
    };
    let mut seen = Vec::new();
    let (stats, writer) = load::parse_streamed(
        walk,
        Some((cache, roots.as_slice())),
        load::Finish::NONE,
        Duration::from_millis(20),
        &|g| g.title.clone(),
        |step| match step {
            Streamed::Ready(i, r) => {
                assert!(r.expect("parses").starts_with("Pool "));
                seen.push(format!("G {i}"));
                let _ = first_back.send(());
            }
            Streamed::Walked(went) => seen.push(format!("W {went}")),
            Streamed::Idle => {}
        },
    );
    if let Some(w) = writer {
        w.join().expect("the pack's writer");
    }
    (seen, stats)
}

#[test]
fn the_first_guide_comes_from_the_pack_before_the_walk_is_over() {
    let (_dir, root, cache) = library(12);
    let (_, _, stats) = load::load_library_cached(std::slice::from_ref(&root), Some(&cache));
    assert_eq!(
        stats,
        Stats {
            parsed: 12,
            cached: 0
        }
    );

    let (seen, stats) = held_walk(&root, &cache);
    assert_eq!(seen.first().map(String::as_str), Some("G 0"), "{seen:?}");
    assert!(
        seen.contains(&"W true".to_string()),
        "let go by the first guide: {seen:?}"
    );
    assert_eq!(seen.iter().filter(|s| s.starts_with("G ")).count(), 12);
    assert_eq!(
        stats,
        Stats {
            parsed: 0,
            cached: 12
        },
        "every guide from the pack"
    );
}

#[test]
fn without_a_pack_the_first_guide_is_parsed_before_the_walk_is_over() {
    let (_dir, root, cache) = library(12);
    let (seen, stats) = held_walk(&root, &cache);
    assert_eq!(seen.first().map(String::as_str), Some("G 0"), "{seen:?}");
    assert!(seen.contains(&"W true".to_string()), "{seen:?}");
    assert_eq!(
        stats,
        Stats {
            parsed: 12,
            cached: 0
        }
    );
    // What was parsed while walking is in the pack the next start reads.
    let (_, _, stats) = load::load_library_cached(std::slice::from_ref(&root), Some(&cache));
    assert_eq!(
        stats,
        Stats {
            parsed: 0,
            cached: 12
        }
    );
}

#[test]
fn a_cache_folder_that_cannot_be_made_costs_only_speed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("guides");
    write_guides(&root, 3);
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "not a folder").expect("write");
    let cache = Cache::with_stamp(blocker.join("cache"), "streamed-test".into());
    let (seen, stats) = held_walk(&root, &cache);
    assert_eq!(seen.first().map(String::as_str), Some("G 0"), "{seen:?}");
    assert_eq!(
        stats,
        Stats {
            parsed: 3,
            cached: 0
        }
    );
    assert!(std::fs::read(&blocker).is_ok_and(|b| b == b"not a folder"));
}

/// What loading `root` gives: the guides' titles, or each problem (the path left out).
fn outcome(root: &Path, cache: Option<&Cache>) -> (Vec<String>, Vec<String>) {
    let (lib, errors, _) = load::load_library_cached(&[root.to_path_buf()], cache);
    let titles = lib.guides.iter().map(|g| g.title.clone()).collect();
    let shown = root.display().to_string();
    (
        titles,
        errors
            .iter()
            .map(|e| e.to_string().replace(&shown, "ROOT"))
            .collect(),
    )
}

#[test]
fn a_cached_file_made_unreadable_loads_as_it_would_with_no_cache() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, root, cache) = library(3);
    assert_eq!(outcome(&root, Some(&cache)).0.len(), 3);
    // The mode changes, not the content or the modification time: the entry still matches.
    let locked = root.join("pool-01.md");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let readable = std::fs::File::open(&locked).is_ok();
    let uncached = outcome(&root, None);
    let cached = outcome(&root, Some(&cache));
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    // As root the file is still read; as anyone else it fails, with the cache or without.
    assert_eq!(cached, uncached);
    assert_eq!(
        uncached.0.len(),
        if readable { 3 } else { 2 },
        "{uncached:?}"
    );
}

#[test]
fn a_root_spelled_any_way_reads_the_same_pack_and_its_guides_keep_that_spelling() {
    let (dir, root, cache) = library(4);
    let (_, _, stats) = load::load_library_cached(std::slice::from_ref(&root), Some(&cache));
    assert_eq!(stats.cached, 0);
    let name = root
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let link = dir.path().join("linked");
    std::os::unix::fs::symlink(&root, &link).expect("symlink");
    let spellings = [
        // As a shell completes a folder's name.
        format!("{}/", root.display()),
        format!("{}//", root.display()),
        format!("{}/./", root.display()),
        format!("{}/../{name}", root.display()),
        link.display().to_string(),
    ];
    for spelled in spellings {
        let spelled = std::path::PathBuf::from(spelled);
        let (lib, errors, stats) =
            load::load_library_cached(std::slice::from_ref(&spelled), Some(&cache));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            (stats.cached, lib.guides.len()),
            (4, 4),
            "{} reads the pack",
            spelled.display()
        );
        // Each guide is the guide that spelling parses to: its file is named as typed.
        let (fresh, _) = load::load_library(std::slice::from_ref(&spelled));
        lib.guides.iter().for_each(load::hold);
        assert_eq!(format!("{:?}", lib.guides), format!("{:?}", fresh.guides));
        assert!(lib.guides[0].file.starts_with(&*spelled.to_string_lossy()));
    }
    let packs = std::fs::read_dir(cache.dir())
        .expect("cache folder")
        .count();
    assert_eq!(packs, 1, "one pack for the one library");
}
