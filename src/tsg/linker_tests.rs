//! The library linked a batch at a time is the library linked whole, whatever the cuts, with
//! guides of one path read twice (the last wins), targets no guide answers, and routes.

use proptest::prelude::*;

use super::*;
use crate::tsg::{link_library, Edge, EdgeKind, Guide, Node, Route, RouteBy};

const PATHS: [&str; 4] = ["a.md", "b.md", "d/c.md", "gone.md"];

/// Guide `i`: path `PATHS[path]`, first heading `h{first}` (so two guides of one path may or
/// may not share a first node), with one edge or route per entry of `to` (an index into
/// `PATHS`, or an anchored target when past its end).
fn guide(i: usize, path: usize, first: usize, to: &[(usize, bool)], nodes: bool) -> Guide {
    let path = PATHS[path % 3].to_string();
    let mut g = Guide {
        path: path.clone(),
        ..Guide::default()
    };
    if nodes {
        for s in [format!("h{first}"), format!("step-{i}")] {
            g.nodes.push(Node {
                id: format!("{path}#{s}"),
                ..Node::default()
            });
        }
    }
    for (k, &(t, route)) in to.iter().enumerate() {
        let to = PATHS
            .get(t)
            .map_or_else(|| format!("b.md#x{k}"), |p| p.to_string());
        match g.nodes.get_mut(k % 2) {
            Some(n) if !route => n.edges.push(Edge {
                to,
                kind: EdgeKind::Link,
                label: String::new(),
                line: 0,
            }),
            _ => g.routes.push(Route {
                alert: format!("Alert{k}"),
                to,
                by: RouteBy::TriageTable,
                line: 0,
            }),
        }
    }
    g
}

fn targets(lib: &Library) -> Vec<String> {
    let mut out = Vec::new();
    for g in &lib.guides {
        out.extend(g.nodes.iter().flat_map(|n| &n.edges).map(|e| e.to.clone()));
        out.extend(g.routes.iter().map(|r| r.to.clone()));
    }
    out
}

type Spec = Vec<(usize, usize, Vec<(usize, bool)>, bool)>;

fn library(spec: &Spec) -> Library {
    let guides = spec
        .iter()
        .enumerate()
        .map(|(i, (p, f, to, nodes))| guide(i, *p, *f, to, *nodes))
        .collect();
    Library { guides }
}

/// Links `spec` a batch at a time, cut after the guides listed in `cuts`.
fn in_batches(spec: &Spec, cuts: &[usize]) -> Library {
    let all = library(spec);
    let mut lib = Library::default();
    let mut linker = Linker::default();
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (spec.len() + 1)).collect();
    cuts.push(spec.len());
    cuts.sort_unstable();
    for cut in cuts {
        let from = lib.guides.len();
        lib.guides
            .extend(all.guides[from.min(cut)..cut].iter().cloned());
        linker.extend(&mut lib, from);
    }
    lib
}

#[test]
fn a_later_guide_of_the_same_path_takes_the_links_over() {
    // Guide 0 links to b.md; guide 1 is b.md (first node h1); guide 2 is b.md again (h2).
    let spec: Spec = vec![
        (0, 0, vec![(1, false), (1, true), (3, false)], true),
        (1, 1, vec![], true),
        (1, 2, vec![], true),
    ];
    let mut whole = library(&spec);
    link_library(&mut whole);
    assert_eq!(
        targets(&whole),
        vec!["b.md#h2", "gone.md", "b.md#h2"],
        "the last b.md answers; gone.md names no guide"
    );
    for cuts in [vec![1], vec![2], vec![1, 2], vec![0]] {
        assert_eq!(
            targets(&in_batches(&spec, &cuts)),
            targets(&whole),
            "cut at {cuts:?}"
        );
    }
}

#[test]
fn a_guide_without_nodes_answers_no_target() {
    let spec: Spec = vec![(0, 0, vec![(1, false)], true), (1, 0, vec![], false)];
    assert_eq!(targets(&in_batches(&spec, &[1])), vec!["b.md"]);
}

proptest! {
    #[test]
    fn linking_a_batch_at_a_time_is_linking_the_whole(
        spec in prop::collection::vec(
            (
                0..3usize,
                0..3usize,
                prop::collection::vec((0..5usize, any::<bool>()), 0..4),
                prop::bool::weighted(0.9),
            ),
            0..12,
        ),
        cuts in prop::collection::vec(0..13usize, 0..5),
    ) {
        let mut whole = library(&spec);
        link_library(&mut whole);
        prop_assert_eq!(targets(&in_batches(&spec, &cuts)), targets(&whole));
    }
}
