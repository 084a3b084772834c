//! The navigator's library, read in the background and handed to the screen in batches
//! (through the parse cache, cold and then warm), ends as `tsgnav tree --json` reads the same
//! folder: the same guides in the same order with the same links and routes, every field (the
//! Debug form, bodies included), the same node index and the same search results. And however
//! a library is cut into batches, absorbing them one by one gives what absorbing it whole does.

use std::path::Path;

use tsgnav::load::{self, Cache};
use tsgnav::nav::Index;
use tsgnav::tsg::{Guide, Library};
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::runtime::library::{self, Loader};
use tsgnav::tui::runtime::Msg;
use tsgnav::tui::search::library_hits;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::App;

/// `n` small guides in five team folders. Each links to the guide five on (same folder; it
/// arrives in a later batch, so the link waits for it), some with an anchor into an earlier
/// guide, some route an alert through a triage table, some have probes and a "see Step 2".
fn write_library(dir: &Path, n: usize) {
    for i in 0..n {
        let team = dir.join(format!("team-{}", i % 5));
        std::fs::create_dir_all(&team).expect("mkdir");
        let mut text = format!("# Guide {i:03}: queue {i} backs up\n\n");
        if i % 3 == 0 {
            text.push_str(&format!(
                "| Alert | Go to |\n|---|---|\n| QueueDepth{i} | [Step 2](#step-2-drain-queue-{i}) |\n\n"
            ));
        }
        text.push_str(&format!(
            "## Step 1: Look at queue {i}\n\n```bash\nkubectl -n q{i} get pods -l app=worker\n```\n\nIf it is empty, see [the next guide](g{:03}.md).\n\n",
            i + 5
        ));
        if i >= 5 && i % 2 == 0 {
            text.push_str(&format!(
                "Before that, [the earlier check](g{:03}.md#step-1-look-at-queue-{}).\n\n",
                i - 5,
                i - 5
            ));
        }
        text.push_str(&format!(
            "## Step 2: Drain queue {i}\n\n**Risk:** messages are replayed.\n\n```bash\nkubectl -n q{i} scale deploy/worker --replicas=0\n```\n\nThen see Step 1.\n"
        ));
        if i % 4 == 1 {
            text.push_str("\n```promql\nsum(rate(queue_messages_total[5m]))\n```\n");
        }
        std::fs::write(team.join(format!("g{i:03}.md")), text).expect("write");
    }
}

/// The library as `tree` reads it: every file parsed, classified and its roles refined, links
/// resolved once.
fn whole(dir: &Path) -> Library {
    let roots = [dir.to_path_buf()];
    let (lib, errors, _) = load::load_library_cached_with(&roots, None, tsgnav::cli::SETTLED);
    assert!(errors.is_empty(), "{errors:?}");
    lib
}

fn app() -> App {
    App::new(Default::default(), Keymap::bundled(), Theme::bundled(true))
}

/// Runs the navigator's loader over `dir` through `cache` and folds its batches into an app
/// as the screen does; returns the app and how many batches carried guides.
fn navigator(dir: &Path, cache: &Path) -> (App, usize) {
    let (tx, rx) = std::sync::mpsc::channel::<Msg>();
    let loader = Loader {
        roots: vec![dir.to_path_buf()],
        cache: Some(Cache::with_stamp(cache.to_path_buf(), "same-test".into())),
        finish: tsgnav::cli::SETTLED,
        pending: Vec::new(),
        problems: Default::default(),
    };
    let (_, loading) = library::start(loader, tx);
    let mut app = app();
    let mut batches = 0;
    for msg in rx.iter() {
        let Msg::Guides(b) = msg else { continue };
        batches += usize::from(!b.guides.is_empty());
        let done = b.done.is_some();
        tsgnav::tui::loading::arrive(&mut app, *b);
        if done {
            break;
        }
    }
    assert!(
        loading.wait(library::PACK_GRACE),
        "the cache pack is written"
    );
    (app, batches)
}

/// What the JSON interface prints: every probe's safety class filled in, as `tree --json`
/// fills it.
fn as_json(guides: &[Guide]) -> serde_json::Value {
    let mut guides = guides.to_vec();
    for p in guides
        .iter_mut()
        .flat_map(|g| &mut g.nodes)
        .flat_map(|n| &mut n.probes)
    {
        p.safety = Some(tsgnav::safety::classify_probe(p));
    }
    serde_json::json!({ "guides": guides })
}

/// Every view of the two libraries agrees: fields, index, search.
fn assert_same(got: &App, want: &Library, what: &str) {
    assert_eq!(got.lib.guides.len(), want.guides.len(), "{what}");
    // A warm load leaves bodies in the guides' files; the runtime reads a guide's in when it shows it.
    got.lib.guides.iter().for_each(tsgnav::load::hold);
    want.guides.iter().for_each(tsgnav::load::hold);
    assert_eq!(
        format!("{:#?}", got.lib.guides),
        format!("{:#?}", want.guides),
        "{what}: every field of every guide"
    );
    let index = Index::new(want);
    for n in want.guides.iter().flat_map(|g| &g.nodes) {
        assert_eq!(
            got.nav.index.position(&got.lib, &n.id),
            index.position(want, &n.id),
            "{what}: {}",
            n.id
        );
    }
    for q in [
        "",
        "queue 7",
        "drain",
        "QueueDepth12",
        "look at",
        "zzz-none",
    ] {
        let (a, b) = (
            library_hits(&got.lib, q, usize::MAX),
            library_hits(want, q, usize::MAX),
        );
        assert_eq!(a, b, "{what}: search {q:?}");
    }
}

#[test]
fn the_navigators_library_is_trees_library_cold_and_warm() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("guides");
    write_library(&dir, 300);
    let want = whole(&dir);
    // A link to a later guide is resolved, and one to a guide that is not there stays as
    // written.
    let g0 = &want.guides[0];
    assert!(g0
        .nodes
        .iter()
        .flat_map(|n| &n.edges)
        .any(|e| e.to == "team-0/g005.md#guide-005-queue-5-backs-up"));
    let tree = tsgnav_tree_json(&dir, &tmp.path().join("tree-cache"));
    assert_eq!(as_json(&want.guides), tree, "the whole library is tree's");
    let cache = tmp.path().join("cache");
    for run in ["cold", "warm"] {
        let (app, batches) = navigator(&dir, &cache);
        assert!(batches >= 1, "{run}");
        assert_same(&app, &want, run);
        assert_eq!(as_json(&app.lib.guides), tree, "{run}: tree --json");
        let packs = std::fs::read_dir(&cache).expect("cache dir").count();
        assert_eq!(packs, 1, "{run}: one pack, no temporary file left");
    }
}

#[test]
fn absorbing_a_library_in_any_batches_gives_the_whole_library() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("guides");
    write_library(&dir, 60);
    let want = whole(&dir);
    let walk = |found: &mut dyn FnMut(load::Source)| {
        load::discover_each(std::slice::from_ref(&dir), found);
    };
    let mut parsed = Vec::new();
    let (settled, idle) = (tsgnav::cli::SETTLED, std::time::Duration::MAX);
    load::parse_streamed(walk, None, settled, idle, &|g| g, |s| {
        if let load::Streamed::Ready(_, r) = s {
            parsed.push(r.expect("parses"))
        }
    });
    let total = parsed.len();
    for cuts in [
        vec![total],
        vec![1; total],
        vec![1, 2, 5, 13, 39],
        vec![7, 0, 53],
    ] {
        let mut app = app();
        let mut rest = parsed.clone().into_iter();
        let mut loaded = 0;
        for n in &cuts {
            let batch: Vec<Guide> = rest.by_ref().take(*n).collect();
            loaded += batch.len();
            tsgnav::tui::loading::absorb(&mut app, batch, loaded, total);
        }
        assert_eq!(loaded, total, "{cuts:?}");
        assert_same(&app, &want, &format!("batches {cuts:?}"));
    }
}

/// `tsgnav tree --json DIR` as a JSON value.
fn tsgnav_tree_json(dir: &Path, cache: &Path) -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args(["tree", "--json"])
        .arg(dir)
        .env("TSGNAV_CACHE_DIR", cache)
        .output()
        .expect("tsgnav tree");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("tree --json is JSON")
}
