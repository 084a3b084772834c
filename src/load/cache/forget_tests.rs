//! What a load still waits to read from a pack: every entry of this build at first, less the
//! entries of files the walk did not find once it is over, less each entry as it is read.

use std::path::{Path, PathBuf};

use super::{key, Cache};

fn guides(dir: &Path, names: &[&str]) {
    std::fs::create_dir_all(dir).expect("mkdir");
    for n in names {
        let text = format!("# {n}\n\n## Step 1: Look\n\n```bash\nkubectl get pods -n {n}\n```\n");
        std::fs::write(dir.join(format!("{n}.md")), text).expect("write");
    }
}

fn keys(root: &Path, names: &[&str]) -> Vec<String> {
    let file = |n: &&str| root.join(format!("{n}.md")).display().to_string();
    names
        .iter()
        .map(|n| key(&file(n), &format!("{n}.md")))
        .collect()
}

#[test]
fn entries_of_files_not_found_are_let_go_when_the_walk_is_over() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("lib");
    guides(&root, &["alpha", "beta", "gamma"]);
    let roots: Vec<PathBuf> = vec![root.clone()];
    let cache = Cache::with_stamp(dir.path().join("cache"), "forget-test".into());
    let (_, errors, _) = crate::load::load_library_cached(&roots, Some(&cache));
    assert!(errors.is_empty(), "{errors:?}");

    let opened = cache.open(&roots, "").expect("the cache folder");
    let payload = |k: &String| opened.index.get(k).map(|&at| opened.slots[at].3.len());
    let all = keys(&root, &["alpha", "beta", "gamma"]);
    let sizes: Vec<usize> = all.iter().map(|k| payload(k).expect("an entry")).collect();
    assert_eq!(opened.pending.left(), vec![sizes.iter().sum::<usize>()]);

    // gamma.md is gone: the walk found only the first two.
    opened.forget_unfound(&all[..2]);
    assert_eq!(opened.pending.left(), vec![sizes[0] + sizes[1]]);

    let meta = std::fs::metadata(root.join("alpha.md")).expect("stat");
    let file = root.join("alpha.md").display().to_string();
    let at = opened.find(&file, "alpha.md").expect("an entry");
    let source = crate::load::Source {
        file: root.join("alpha.md"),
        rel: "alpha.md".into(),
        keyed: file.clone(),
        seen: None,
    };
    let seen = crate::load::Seen::of(&meta);
    assert!(opened.get(at, &seen, &source).is_some());
    assert_eq!(opened.pending.left(), vec![sizes[1]]);
}

#[test]
fn another_builds_pack_waits_for_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("lib");
    guides(&root, &["alpha"]);
    let roots: Vec<PathBuf> = vec![root.clone()];
    let old = Cache::with_stamp(dir.path().join("cache"), "old-build".into());
    crate::load::load_library_cached(&roots, Some(&old));
    let new = Cache::with_stamp(dir.path().join("cache"), "new-build".into());
    let opened = new.open(&roots, "").expect("the cache folder");
    assert!(opened.slots.is_empty());
    assert!(opened.pending.left().iter().all(|l| *l == 0));
}
