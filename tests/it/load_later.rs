//! A warm load leaves the sections' text in the guides' own files (the pack holds no copy of it)
//! and reads a guide's file when its text is first read: the text is the text parsed, whatever
//! became of the pack since (replaced by a newer one, changed or cut in place), and when the
//! file is no longer the text parsed (edited, even with its size and time kept, or removed), the
//! section says so and how to read the guide again.

use std::path::{Path, PathBuf};

use tsgnav::load::{load_library_cached, Cache};
use tsgnav::tsg::Library;

/// A guide with long sections (left in its file), a short one (copied at once) and one in
/// another script, and a second guide.
fn library(dir: &Path) -> PathBuf {
    let root = dir.join("guides");
    std::fs::create_dir_all(root.join("net")).expect("mkdir");
    let long = "Look at the gateway's health before anything else, then at the routes it \
                programs; the numbers below come from the management cluster.\n";
    let a = format!(
        "# Gateway down\n\n{long}\n## Step 1: Look\n\n{long}\n```bash\nkubectl get pods -n gw\n```\n\n\
         ## Step 2: Short\n\nOk.\n\n## Step 3: Ünïcödé\n\nDie Weiterleitung prüfen, bevor die \
         Gateways neu gestartet werden: ゲートウェイの状態を確認する。\n"
    );
    std::fs::write(root.join("a.md"), a).expect("write");
    std::fs::write(
        root.join("net/b.md"),
        format!("# Routes\n\n## Routes missing\n\n{long}{long}"),
    )
    .expect("write");
    root
}

fn load(root: &Path, cache: &Cache) -> Library {
    let (lib, errors, _) = load_library_cached(&[root.to_path_buf()], Some(cache));
    assert!(errors.is_empty(), "{errors:?}");
    lib
}

/// Every node's body, read in as the navigator's runtime does before it shows a guide (pure
/// code then finds each in memory).
fn bodies(lib: &Library) -> Vec<String> {
    lib.guides.iter().for_each(tsgnav::load::hold);
    lib.guides
        .iter()
        .flat_map(|g| &g.nodes)
        .map(|n| n.body.text().expect("held").to_string())
        .collect()
}

/// Every node's body as a load without a cache parses it (all held from the start).
fn parsed(root: &Path) -> Vec<String> {
    let (lib, errors, _) = load_library_cached(&[root.to_path_buf()], None);
    assert!(errors.is_empty(), "{errors:?}");
    lib.guides
        .iter()
        .flat_map(|g| &g.nodes)
        .map(|n| n.body.text().expect("held").to_string())
        .collect()
}

/// A library, the bodies parsed, the load that filled its cache (cold) and a warm load.
fn cold_and_warm(dir: &Path) -> (PathBuf, Cache, Vec<String>, Library, Library) {
    let root = library(dir);
    let cache = Cache::with_stamp(dir.join("cache"), "later-test".into());
    let cold = load(&root, &cache);
    let lib = load(&root, &cache);
    let parsed = parsed(&root);
    (root, cache, parsed, cold, lib)
}

/// A library, its cache filled by a first load, the bodies parsed and a warm load.
fn warm(dir: &Path) -> (PathBuf, Cache, Vec<String>, Library) {
    let (root, cache, parsed, _, lib) = cold_and_warm(dir);
    (root, cache, parsed, lib)
}

/// The long sections of the first guide, by node, and whether each says it cannot be shown
/// because `file` changed; the short one and the second guide's are the text parsed.
fn says_changed(lib: &Library, parsed: &[String], file: &Path) {
    let got = bodies(lib);
    let first = &lib.guides[0];
    assert!(first.path.ends_with("a.md"), "{}", first.path);
    let n = first.nodes.len();
    for (i, body) in got[..n].iter().enumerate() {
        if parsed[i].len() > 48 {
            assert!(
                body.starts_with("> This section's text cannot be shown")
                    && body.contains(&file.display().to_string())
                    && body.contains("changed after tsgnav read it")
                    && body.contains("start tsgnav again"),
                "node {i}: {body}"
            );
        } else {
            assert_eq!(body, &parsed[i], "a short body is the text parsed");
        }
    }
    assert_eq!(got[n..], parsed[n..], "the other guide is read as it was");
}

/// Both the load that writes the pack (cold) and a warm one leave the long sections in the
/// guides' files, the same ones, and read them as parsed.
#[test]
fn cold_and_warm_loads_leave_long_bodies_in_their_files_until_they_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, cache, parsed, cold, warm) = cold_and_warm(dir.path());
    let left_of = |lib: &Library| -> Vec<bool> {
        lib.guides
            .iter()
            .flat_map(|g| &g.nodes)
            .map(|n| !n.body.is_held())
            .collect()
    };
    let left = left_of(&warm);
    assert_eq!(
        left_of(&cold),
        left,
        "cold and warm leave the same sections"
    );
    assert!(
        left.iter().filter(|l| **l).count() >= 4,
        "the long sections are left behind: {left:?}"
    );
    let nodes: Vec<_> = warm.guides.iter().flat_map(|g| &g.nodes).collect();
    let short = nodes
        .iter()
        .find(|n| n.title == "Step 2: Short")
        .expect("node");
    assert!(short.body.is_held(), "a short one is copied at once");
    // The pack keeps the guides' titles but no copy of a long section's text.
    let pack = std::fs::read(cache.pack_path(std::slice::from_ref(&root))).expect("pack");
    let has = |s: &str| pack.windows(s.len()).any(|w| w == s.as_bytes());
    assert!(has("Gateway down") && has("Routes missing"));
    assert!(!has("the routes it programs") && !has("ゲートウェイ"));
    // The length is known before the text is read, and is the text's.
    let lens: Vec<usize> = nodes.iter().map(|n| n.body.len()).collect();
    assert_eq!(bodies(&warm), parsed);
    assert_eq!(bodies(&cold), parsed);
    assert!(nodes.iter().all(|n| n.body.is_held()));
    assert_eq!(lens, parsed.iter().map(String::len).collect::<Vec<_>>());
}

#[test]
fn a_pack_replaced_since_the_load_still_gives_the_text_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, cache, parsed, lib) = warm(dir.path());
    // A newer pack renamed over the old one (what a later start does).
    let pack = cache.pack_path(std::slice::from_ref(&root));
    let other = dir.path().join("other.pack");
    std::fs::write(&other, b"not a pack").expect("write");
    std::fs::rename(&other, &pack).expect("rename");
    assert_eq!(bodies(&lib), parsed);
}

#[test]
fn a_pack_changed_or_cut_in_place_after_the_load_does_not_change_the_text() {
    for cut in [false, true] {
        let dir = tempfile::tempdir().expect("tempdir");
        let (root, cache, parsed, lib) = warm(dir.path());
        let pack = cache.pack_path(std::slice::from_ref(&root));
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&pack)
            .expect("open");
        if cut {
            f.set_len(0).expect("truncate");
        } else {
            let len = f.metadata().expect("stat").len() as usize;
            std::fs::write(&pack, vec![b'x'; len]).expect("overwrite");
        }
        assert_eq!(bodies(&lib), parsed, "cut: {cut}");
    }
}

#[test]
fn a_guide_edited_or_removed_after_the_load_says_so_in_each_long_section() {
    for (removed, cold) in [(false, false), (true, false), (false, true), (true, true)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let (root, _, parsed, cold_lib, warm_lib) = cold_and_warm(dir.path());
        let a = root.join("a.md");
        if removed {
            std::fs::remove_file(&a).expect("remove");
        } else {
            let text = std::fs::read_to_string(&a).expect("read");
            std::fs::write(&a, text.replace("Look at", "Check")).expect("edit");
        }
        says_changed(if cold { &cold_lib } else { &warm_lib }, &parsed, &a);
    }
}

/// An edit that keeps the file's size and modification time (a tool that restores times) is
/// caught by the checksum of the text parsed: after the load, or before a warm load that
/// then trusts the entry (its titles and probes are unchanged) but not the file's new text.
#[test]
fn an_edit_that_keeps_size_and_time_is_caught_by_the_checksum() {
    for before_load in [false, true] {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = library(dir.path());
        let cache = Cache::with_stamp(dir.path().join("cache"), "later-test".into());
        let parsed = parsed(&root);
        let cold = load(&root, &cache);
        let lib = (!before_load).then(|| load(&root, &cache));
        let a = root.join("a.md");
        let when = std::fs::metadata(&a)
            .expect("stat")
            .modified()
            .expect("mtime");
        let text = std::fs::read_to_string(&a).expect("read");
        let edited = text.replace("Look at", "Seek at");
        assert_eq!((edited.len(), edited != text), (text.len(), true));
        std::fs::write(&a, edited).expect("edit");
        let f = std::fs::File::options().write(true).open(&a).expect("open");
        f.set_modified(when).expect("keep the time");
        drop(f);
        let lib = lib.unwrap_or_else(|| load(&root, &cache));
        assert!(
            lib.guides[0].nodes.iter().any(|n| !n.body.is_held()),
            "the entry was trusted, its bodies left in the file"
        );
        says_changed(&lib, &parsed, &a);
        says_changed(&cold, &parsed, &a);
    }
}

/// A guide's file is read once for all its sections: the runtime reads a guide's sections in
/// together, and a guide of a thousand sections must not cost a thousand reads. Seen from
/// outside: once the first section has been read, the file can go, and the others still come.
#[test]
fn a_guide_file_is_read_once_for_all_its_sections() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, _, parsed, lib) = warm(dir.path());
    let first = &lib.guides[0];
    let left: Vec<usize> = (0..first.nodes.len())
        .filter(|&n| !first.nodes[n].body.is_held())
        .collect();
    assert!(left.len() >= 2, "two sections at least are left behind");
    assert_eq!(first.nodes[left[0]].body.fetch(), parsed[left[0]]);
    std::fs::remove_file(root.join("a.md")).expect("remove");
    tsgnav::load::hold(first);
    for &n in &left {
        assert_eq!(
            first.nodes[n].body.text(),
            Some(parsed[n].as_str()),
            "node {n}"
        );
    }
}

/// A guide given as a pipe gives its text once: a load that writes the pack keeps its sections
/// in memory, never to be read from the pipe again (the navigator's runtime would wait on it).
#[test]
fn a_guide_read_from_a_pipe_keeps_its_sections_in_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("piped.md");
    let ok = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(ok.success());
    let long = "A section long enough to be left in a regular file, kept here all the same.\n";
    let text = format!("# Piped\n\n{long}\n## Step 1: Look\n\n{long}{long}");
    let writer = {
        let (fifo, text) = (fifo.clone(), text.clone());
        std::thread::spawn(move || std::fs::write(fifo, text).expect("write the pipe"))
    };
    let cache = Cache::with_stamp(dir.path().join("cache"), "later-test".into());
    let lib = load(&fifo, &cache);
    writer.join().expect("writer");
    let nodes: Vec<_> = lib.guides.iter().flat_map(|g| &g.nodes).collect();
    assert_eq!(nodes.len(), 2);
    for n in nodes {
        assert!(n.body.is_held(), "{}", n.title);
        assert!(
            n.body.text().is_some_and(|t| t.contains(long)),
            "{}",
            n.title
        );
    }
}
