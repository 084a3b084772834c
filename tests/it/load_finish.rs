//! The work a caller does on each guide it parses (its `Finish`: the safety classes and the
//! role refinement, for the CLI and the navigator) is kept in the parse cache's pack with the
//! guide: a warm start reads the finished guide back and does not do that work again, and a
//! pack finished with other work is not read as if it were finished this way.

use std::sync::atomic::{AtomicUsize, Ordering};

use tsgnav::load::{self, Cache, Finish, Stats};
use tsgnav::tsg::{Library, Role, SafetyClass};

fn library(n: usize) -> (tempfile::TempDir, std::path::PathBuf, Cache) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("guides");
    std::fs::create_dir_all(&root).expect("mkdir");
    for i in 0..n {
        let text = format!(
            "# Pool {i}\n\n## Procedure\n\n```bash\nkubectl cordon node-{i}\n```\n\n\
             ## Check\n\n```bash\nkubectl get nodes -l pool=p{i}\n```\n"
        );
        std::fs::write(root.join(format!("pool-{i:02}.md")), text).expect("write");
    }
    let cache = Cache::with_stamp(dir.path().join("cache"), "finish-test".into());
    (dir, root, cache)
}

fn load(root: &std::path::Path, cache: &Cache, finish: Finish) -> (Library, Stats) {
    let (lib, errors, stats) = load::load_library_cached_with(
        std::slice::from_ref(&root.to_path_buf()),
        Some(cache),
        finish,
    );
    assert!(errors.is_empty(), "{errors:?}");
    (lib, stats)
}

static MARKED: AtomicUsize = AtomicUsize::new(0);

/// Marks a guide's title, and counts how often it ran.
fn mark(g: &mut tsgnav::tsg::Guide) {
    MARKED.fetch_add(1, Ordering::SeqCst);
    g.title.push_str(" (marked)");
}

const MARK: Finish = Finish {
    name: "mark",
    work: mark,
};

fn titles(lib: &Library) -> Vec<String> {
    lib.guides.iter().map(|g| g.title.clone()).collect()
}

#[test]
fn a_warm_start_reads_the_finished_guide_and_does_not_finish_it_again() {
    let (_dir, root, cache) = library(5);
    let (cold, stats) = load(&root, &cache, MARK);
    assert_eq!(
        stats,
        Stats {
            parsed: 5,
            cached: 0
        }
    );
    assert_eq!(MARKED.load(Ordering::SeqCst), 5, "once per guide parsed");
    assert!(
        titles(&cold).iter().all(|t| t.ends_with(" (marked)")),
        "{:?}",
        titles(&cold)
    );
    let (warm, stats) = load(&root, &cache, MARK);
    assert_eq!(
        stats,
        Stats {
            parsed: 0,
            cached: 5
        }
    );
    assert_eq!(
        MARKED.load(Ordering::SeqCst),
        5,
        "a guide from the pack is finished already"
    );
    assert_eq!(titles(&warm), titles(&cold));
    // A load that finishes nothing does not take the marked guides for its own: it parses
    // them again, and its pack is not read by the marking load either.
    let (plain, stats) = load(&root, &cache, Finish::NONE);
    assert_eq!(
        stats,
        Stats {
            parsed: 5,
            cached: 0
        }
    );
    assert!(
        titles(&plain).iter().all(|t| !t.contains("marked")),
        "{:?}",
        titles(&plain)
    );
    let (_, stats) = load(&root, &cache, MARK);
    assert_eq!(
        stats,
        Stats {
            parsed: 5,
            cached: 0
        }
    );
    assert_eq!(MARKED.load(Ordering::SeqCst), 10);
}

#[test]
fn a_settled_guide_read_back_from_the_pack_keeps_its_classes_and_refined_roles() {
    let (_dir, root, cache) = library(3);
    let settled = tsgnav::cli::SETTLED;
    let (cold, stats) = load(&root, &cache, settled);
    assert_eq!(stats.cached, 0);
    let (warm, stats) = load(&root, &cache, settled);
    assert_eq!(
        stats,
        Stats {
            parsed: 0,
            cached: 3
        }
    );
    for lib in [&cold, &warm] {
        for g in &lib.guides {
            let procedure = &g.nodes[1];
            assert_eq!(procedure.title, "Procedure");
            assert_eq!(
                procedure.role,
                Role::Mitigation,
                "a neutral step that cordons"
            );
            assert_eq!(procedure.probes[0].safety, Some(SafetyClass::Mutating));
            let check = &g.nodes[2];
            assert_eq!(check.probes[0].safety, Some(SafetyClass::ReadOnly));
        }
    }
    // As the same library parsed with no cache at all.
    let (fresh, errors, _) =
        load::load_library_cached_with(std::slice::from_ref(&root), None, settled);
    assert!(errors.is_empty());
    warm.guides.iter().for_each(load::hold);
    assert_eq!(format!("{:?}", fresh.guides), format!("{:?}", warm.guides));
}
