//! The node index: positions found by id, the first node of an id keeping it, batches adding
//! up to one index, and a position checked against the library it is asked about.

use super::*;
use crate::tsg::parse_guide;

fn guide(path: &str, headings: &[&str]) -> Guide {
    let md: String = headings
        .iter()
        .map(|h| format!("## {h}\n\ntext\n\n"))
        .collect();
    parse_guide(path, &format!("# {path}\n\n{md}"))
}

fn library(guides: Vec<Guide>) -> Library {
    Library { guides }
}

#[test]
fn every_node_is_found_where_it_is() {
    let lib = library(vec![
        guide("a.md", &["Check", "Mitigate"]),
        guide("dir/b.md", &["Check", "Escalate"]),
    ]);
    let index = Index::new(&lib);
    for (g, guide) in lib.guides.iter().enumerate() {
        for (n, node) in guide.nodes.iter().enumerate() {
            assert_eq!(index.position(&lib, &node.id), Some((g, n)), "{}", node.id);
        }
    }
    assert_eq!(index.position(&lib, "a.md#nothing-here"), None);
    assert_eq!(index.position(&lib, ""), None);
    let node = index
        .node(&lib, "dir/b.md#escalate")
        .map(|n| n.title.as_str());
    assert_eq!(node, Some("Escalate"));
    let owner = index.guide(&lib, "a.md#mitigate").map(|g| g.path.as_str());
    assert_eq!(owner, Some("a.md"));
}

#[test]
fn the_first_node_of_an_id_keeps_it() {
    // The same path twice (two roots holding `a.md`): the first guide's nodes answer.
    let lib = library(vec![
        guide("a.md", &["Check"]),
        guide("a.md", &["Other", "Check"]),
    ]);
    let index = Index::new(&lib);
    assert_eq!(index.position(&lib, "a.md#check"), Some((0, 1)));
    assert_eq!(index.position(&lib, "a.md#other"), Some((1, 1)));
}

#[test]
fn batches_add_up_to_the_index_of_the_whole_library() {
    let guides: Vec<Guide> = (0..300)
        .map(|i| guide(&format!("g{}/t{i}.md", i % 7), &["Check", "Fix", "Check"]))
        .collect();
    let whole = library(guides.clone());
    let at_once = Index::new(&whole);
    let mut grown = library(Vec::new());
    let mut index = Index::default();
    for batch in guides.chunks(37) {
        let from = grown.guides.len();
        grown.guides.extend_from_slice(batch);
        index.expect(from, whole.guides.len());
        index.extend(&grown, from);
    }
    let ids: Vec<&str> = whole
        .guides
        .iter()
        .flat_map(|g| g.nodes.iter().map(|n| n.id.as_str()))
        .collect();
    assert!(ids.len() > 900, "{} ids", ids.len());
    for id in ids {
        assert_eq!(
            index.position(&grown, id),
            at_once.position(&whole, id),
            "{id}"
        );
        assert!(index.position(&grown, id).is_some(), "{id}");
    }
}

#[test]
fn a_position_is_checked_against_the_library_asked() {
    let lib = library(vec![guide("a.md", &["Check"]), guide("b.md", &["Fix"])]);
    let index = Index::new(&lib);
    // Another library, in which the indexed positions hold other nodes: nothing is found,
    // rather than the node that happens to sit where `a.md#check` sat.
    let other = library(vec![guide("b.md", &["Fix"]), guide("a.md", &["Check"])]);
    assert_eq!(index.position(&other, "a.md#check"), None);
    assert!(index.node(&other, "b.md#fix").is_none());
    assert_eq!(index.position(&library(Vec::new()), "a.md#check"), None);
}

#[test]
fn typed_ids_resolve_through_the_index() {
    let lib = library(vec![
        guide("a.md", &["Check pods"]),
        guide("b.md", &["Fix"]),
    ]);
    let index = Index::new(&lib);
    assert_eq!(
        index.resolve(&lib, None, "b.md#fix"),
        Some("b.md#fix".to_string())
    );
    assert_eq!(
        index.resolve(&lib, Some("a.md#check-pods"), "check"),
        Some("a.md#check-pods".to_string())
    );
    // The title node's "next step" is found through the index, and known to be in the library.
    let first = lib.guides[0].nodes[0].id.clone();
    let next: Vec<(String, bool)> = choices(&lib, &index, &first)
        .into_iter()
        .filter(|c| c.kind == ChoiceKind::Next)
        .map(|c| (c.to, c.resolved))
        .collect();
    assert_eq!(next, [("a.md#check-pods".to_string(), true)]);
    assert!(choices(&lib, &index, "a.md#no-such-step").is_empty());
}
