//! A warm load leaves the sections' text in the parse cache's pack and reads it back when it is
//! first read: the text is the text parsed, whatever became of the pack since (replaced by a
//! newer one, changed or cut in place), and when neither the pack nor the guide's file can give
//! it as it was, the section says so and how to read the guide again.

use std::path::{Path, PathBuf};

use tsgnav::load::{load_library_cached, Cache};
use tsgnav::tsg::Library;

/// A guide with long sections (left in the pack), a short one (copied at once) and one in
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

/// A library, its cache filled by a first load, the bodies parsed then and a warm load.
fn warm(dir: &Path) -> (PathBuf, Cache, Vec<String>, Library) {
    let root = library(dir);
    let cache = Cache::with_stamp(dir.join("cache"), "later-test".into());
    let cold = load(&root, &cache);
    assert!(cold
        .guides
        .iter()
        .flat_map(|g| &g.nodes)
        .all(|n| n.body.is_held()));
    let parsed = bodies(&cold);
    let lib = load(&root, &cache);
    (root, cache, parsed, lib)
}

#[test]
fn a_warm_load_leaves_long_bodies_in_the_pack_until_they_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, _, parsed, lib) = warm(dir.path());
    let nodes: Vec<_> = lib.guides.iter().flat_map(|g| &g.nodes).collect();
    let left = nodes.iter().filter(|n| !n.body.is_held()).count();
    assert!(left >= 4, "the long sections are left behind: {left}");
    let short = nodes
        .iter()
        .find(|n| n.title == "Step 2: Short")
        .expect("node");
    assert!(short.body.is_held(), "a short one is copied at once");
    // The length is known before the text is read, and is the text's.
    let lens: Vec<usize> = nodes.iter().map(|n| n.body.len()).collect();
    assert_eq!(bodies(&lib), parsed);
    assert!(nodes.iter().all(|n| n.body.is_held()));
    assert_eq!(lens, parsed.iter().map(String::len).collect::<Vec<_>>());
}

#[test]
fn a_pack_replaced_since_the_load_still_gives_the_text_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, cache, parsed, lib) = warm(dir.path());
    // A newer pack renamed over the old one (what a later start does): the open file is the old.
    let pack = cache.pack_path(std::slice::from_ref(&root));
    let other = dir.path().join("other.pack");
    std::fs::write(&other, b"not a pack").expect("write");
    std::fs::rename(&other, &pack).expect("rename");
    assert_eq!(bodies(&lib), parsed);
}

#[test]
fn a_pack_changed_or_cut_in_place_is_not_trusted_the_file_is_read_again() {
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
            // Same length, every byte another: the checksums no longer match.
            let len = f.metadata().expect("stat").len() as usize;
            std::fs::write(&pack, vec![b'x'; len]).expect("overwrite");
        }
        assert_eq!(bodies(&lib), parsed, "cut: {cut}");
    }
}

#[test]
fn when_neither_the_pack_nor_the_file_is_as_loaded_the_section_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, cache, parsed, lib) = warm(dir.path());
    let pack = cache.pack_path(std::slice::from_ref(&root));
    let len = std::fs::metadata(&pack).expect("stat").len() as usize;
    std::fs::write(&pack, vec![0; len]).expect("overwrite");
    let a = root.join("a.md");
    let text = std::fs::read_to_string(&a).expect("read");
    std::fs::write(&a, text.replace("Look at", "Check")).expect("edit");
    let got = bodies(&lib);
    let first = &lib.guides[0];
    assert!(first.path.ends_with("a.md"), "{}", first.path);
    for (n, node) in first.nodes.iter().enumerate() {
        let body = node.body.text().expect("held");
        if body.len() > 48 && body != parsed[n] {
            assert!(
                body.contains(&a.display().to_string())
                    && body.contains("no longer the file that was loaded")
                    && body.contains("start tsgnav again"),
                "{body}"
            );
        } else {
            assert_eq!(body, parsed[n]);
        }
    }
    assert!(got[..first.nodes.len()]
        .iter()
        .any(|b| b.contains("cannot be shown")));
    // The other guide is unchanged: read again from its file.
    assert_eq!(got[first.nodes.len()..], parsed[first.nodes.len()..]);
}

/// When the pack no longer gives a guide's entry, its file is parsed again once for all its
/// sections: the runtime reads a guide's sections in together, and a guide of a thousand
/// sections must not cost a thousand parses. Seen from outside: once the first section has
/// been read from the file, the file can go, and the others still come.
#[test]
fn a_guide_read_again_from_its_file_is_parsed_once_for_all_its_sections() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, cache, parsed, lib) = warm(dir.path());
    let pack = cache.pack_path(std::slice::from_ref(&root));
    let len = std::fs::metadata(&pack).expect("stat").len() as usize;
    std::fs::write(&pack, vec![b'x'; len]).expect("overwrite");
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
