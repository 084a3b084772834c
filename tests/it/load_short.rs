//! A pack entry writes what its guide repeats only once: the ids of the guide's own sections
//! (as a node's id, its parent's and a link's target) without the guide's path, and a block
//! without prompts once, not as both what runs and what is written. A warm load reads back the
//! same guides as a parse, field for field, links to other guides and transcripts included.

use std::path::{Path, PathBuf};

use tsgnav::load::{load_library_cached, Cache};

/// A guide deep in folders, with nested sections, a link within it and one to another guide,
/// a block without prompts and a console transcript (prompt and output: its text is not its
/// code). Every section is long enough to be left in the file, so the pack holds no body.
fn library(dir: &Path) -> PathBuf {
    let root = dir.join("guides");
    let deep = root.join("networking/gateway/regional");
    std::fs::create_dir_all(&deep).expect("mkdir");
    let pad = "Read this before acting; it says what the numbers mean and where they come from.";
    let guide = format!(
        "# Gateway down\n\n{pad}\n\n## Triage\n\n{pad} Then go to [the check](#check-the-pods).\n\n\
         ### Check the pods\n\n{pad}\n\n```bash\nkubectl get pods -n gateway-system-xyz\n```\n\n\
         ### Check the nodes\n\n{pad}\n\n```console\n$ kubectl get nodes -l role=gw-unique\n\
         NAME     STATUS\nnode-1   Ready\n```\n\n## Mitigation\n\n{pad} See \
         [the routes guide](../../routes.md#routes-missing).\n"
    );
    std::fs::write(deep.join("gateway-down-unique.md"), guide).expect("write");
    std::fs::write(
        root.join("networking/routes.md"),
        format!("# Routes\n\n## Routes missing\n\n{pad}\n"),
    )
    .expect("write");
    root
}

#[test]
fn a_guide_path_and_a_prompt_less_block_are_written_once_and_read_back_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = library(dir.path());
    let cache = Cache::with_stamp(dir.path().join("cache"), "short-test".into());
    let shown = |lib: &tsgnav::tsg::Library| {
        lib.guides.iter().for_each(tsgnav::load::hold);
        format!("{:#?}", lib.guides)
    };
    let (parsed, errors, _) = load_library_cached(std::slice::from_ref(&root), None);
    assert!(errors.is_empty(), "{errors:?}");
    let (cold, _, _) = load_library_cached(std::slice::from_ref(&root), Some(&cache));
    let (warm, _, stats) = load_library_cached(std::slice::from_ref(&root), Some(&cache));
    assert_eq!(stats.cached, 2, "both guides come from the pack");
    let parsed = shown(&parsed);
    assert_eq!(shown(&cold), parsed);
    assert_eq!(shown(&warm), parsed, "a warm load reads back every field");

    // The parse has what the pack must not repeat.
    let g = &warm.guides[0];
    assert!(g.path.ends_with("gateway-down-unique.md"), "{}", g.path);
    assert!(g.nodes.len() >= 5);
    assert!(g.nodes.iter().filter(|n| n.parent.is_some()).count() >= 4);
    let probes: Vec<_> = g.nodes.iter().flat_map(|n| &n.probes).collect();
    assert!(probes.iter().any(|p| p.code == p.source));
    assert!(probes
        .iter()
        .any(|p| p.source.starts_with("$ kubectl get nodes") && p.code != p.source));
    let edges: Vec<_> = g.nodes.iter().flat_map(|n| &n.edges).collect();
    assert!(edges
        .iter()
        .any(|e| e.to.starts_with(&format!("{}#", g.path))));
    assert!(edges
        .iter()
        .any(|e| e.to == "networking/routes.md#routes-missing"));

    let pack = std::fs::read(cache.pack_path(std::slice::from_ref(&root))).expect("pack");
    let count = |s: &str| pack.windows(s.len()).filter(|w| *w == s.as_bytes()).count();
    // The entry's framing (the file and its name in the library) and the guide (its path and
    // file) name it four times; each section's id, parent and link would name it again.
    assert_eq!(count("gateway-down-unique.md"), 4);
    // Another guide's id is whole (the link's destination as written is `../../routes.md#…`).
    assert_eq!(count("networking/routes.md#routes-missing"), 1);
    assert_eq!(count("kubectl get pods -n gateway-system-xyz"), 1);
    // The transcript: its text once, and what runs once more.
    assert_eq!(count("$ kubectl get nodes -l role=gw-unique"), 1);
    assert_eq!(count("kubectl get nodes -l role=gw-unique"), 2);
}
