//! The markdown → model parser on a fixture holding the shapes real guides use: many H1s,
//! H4 steps, fences inside list items and blockquotes, kql/kusto/`/bin/sh`/untagged fences,
//! placeholders, plain-text references, callouts and front matter.

use tsgnav::tsg::{parse_guide, CalloutKind, EdgeKind, Guide, Lang, Node, Role};

fn guide() -> Guide {
    let text =
        std::fs::read_to_string(crate::common::root().join("tests/fixtures/model/edge-cases.md"))
            .expect("fixture");
    parse_guide("g/edge.md", &text)
}

fn node<'a>(g: &'a Guide, slug: &str) -> &'a Node {
    g.nodes
        .iter()
        .find(|n| n.id == format!("g/edge.md#{slug}"))
        .unwrap_or_else(|| panic!("no node {slug}"))
}

#[test]
fn ids_levels_and_duplicate_slugs() {
    let g = guide();
    let ids: Vec<&str> = g.nodes.iter().map(|n| n.id.as_str()).collect();
    assert!(ids.contains(&"g/edge.md#overview"));
    assert!(
        ids.contains(&"g/edge.md#overview-1"),
        "second H1 with the same title gets -1: {ids:?}"
    );
    assert_eq!(node(&g, "step-1-look-around").level, 4);
    assert_eq!(
        node(&g, "step-1-look-around").parent.as_deref(),
        Some("g/edge.md#diagnosis")
    );
    assert_eq!(g.title, "Edge cases");
}

#[test]
fn roles() {
    let g = guide();
    assert_eq!(node(&g, "alert-triage").role, Role::Triage);
    assert_eq!(node(&g, "step-1-look-around").role, Role::Diagnostic);
    assert_eq!(
        node(&g, "scenario-2-many-namespaces").role,
        Role::Mitigation
    );
    assert_eq!(node(&g, "validation").role, Role::Validation);
}

#[test]
fn fields_probes_and_variables() {
    let g = guide();
    let s1 = node(&g, "step-1-look-around");
    assert_eq!(
        s1.fields.get("goal").map(String::as_str),
        Some("See what is broken.")
    );
    assert!(s1.fields.contains_key("action"));
    // The fence indented in a list item and the one inside a blockquote are both probes.
    assert_eq!(s1.probes.len(), 2);
    let p = &s1.probes[0];
    assert_eq!(p.lang, Lang::Shell);
    assert_eq!(p.vars, vec!["NS"]);
    assert_eq!(p.assigns, vec!["HCP_NAMESPACE"]);
    assert_eq!(p.hints.namespace.as_deref(), Some("${NS}"));
    let s2 = node(&g, "step-2-kusto-and-friends");
    let langs: Vec<Lang> = s2.probes.iter().map(|p| p.lang).collect();
    assert_eq!(
        langs,
        vec![Lang::Kql, Lang::Kql, Lang::Shell, Lang::Shell],
        "yaml is shown, not a probe"
    );
    assert_eq!(
        s2.probes[0].hints.kusto_cluster.as_deref(),
        Some("hcp-prod-{region}")
    );
    assert_eq!(s2.probes[0].vars, vec!["CCP ID", "region"]);
    assert_eq!(s2.probes[3].vars, vec!["cluster-id"]);
    assert_eq!(s2.probes[2].vars, vec!["HCP_NAMESPACE"]);
}

#[test]
fn callouts() {
    let g = guide();
    let kinds: Vec<CalloutKind> = node(&g, "step-1-look-around")
        .callouts
        .iter()
        .map(|c| c.kind)
        .collect();
    assert_eq!(
        kinds,
        vec![
            CalloutKind::Gotcha,
            CalloutKind::Note,
            CalloutKind::Warning,
            CalloutKind::Risk
        ]
    );
    let note = &node(&g, "step-1-look-around").callouts[1];
    assert_eq!(note.text, "No space after the marker.");
}

#[test]
fn checklists() {
    let g = guide();
    let s = node(&g, "scenario-2-many-namespaces");
    let ticks: Vec<Option<bool>> = s.checklist.iter().map(|c| c.checked).collect();
    assert_eq!(ticks, vec![Some(false), Some(true)]);
    let v = node(&g, "validation");
    assert_eq!(
        v.checklist.len(),
        2,
        "plain bullets of a validation section are checklist items"
    );
    assert_eq!(v.checklist[0].checked, None);
}

#[test]
fn edges_routes_and_refs() {
    let g = guide();
    let routes: Vec<(&str, &str)> = g
        .routes
        .iter()
        .map(|r| (r.alert.as_str(), r.to.as_str()))
        .collect();
    assert!(routes.contains(&("AlphaAlert1h5m", "g/edge.md#step-1-look-around")));
    assert!(routes.contains(&("AlphaAlert6h30m", "g/edge.md#step-1-look-around")));
    assert!(
        routes.contains(&("BetaAlert", "g/edge.md#step-2-kusto-and-friends")),
        "plain-text target: {routes:?}"
    );
    assert!(routes.contains(&(
        "FrontMatterAlert",
        "g/edge.md#strategy-3-scale-down-the-agent"
    )));
    let s1 = node(&g, "step-1-look-around");
    let has = |n: &Node, to: &str, kind: EdgeKind| {
        n.edges
            .iter()
            .any(|e| e.to == format!("g/edge.md#{to}") && e.kind == kind)
    };
    assert!(
        has(s1, "scenario-2-many-namespaces", EdgeKind::Branch),
        "{:?}",
        s1.edges
    );
    assert!(
        has(s1, "strategy-3-scale-down-the-agent", EdgeKind::Branch),
        "Fix → Strategy 3 under an If bullet"
    );
    assert!(has(s1, "step-2-kusto-and-friends", EdgeKind::Next));
    let s2 = node(&g, "step-2-kusto-and-friends");
    assert!(
        has(s2, "strategy-4-last-resort", EdgeKind::Ref),
        "see Strategy 4, step 0: {:?}",
        s2.edges
    );
    assert!(has(
        node(&g, "alert-triage"),
        "step-1-look-around",
        EdgeKind::Route
    ));
}

#[test]
fn front_matter_errors_are_kept_not_fatal() {
    // A typo of a key tsgnav reads is reported; other keys (Hugo, Jekyll) are fine.
    let g = parse_guide("x.md", "---\ntitle: x\nalert: 1\n---\n# Heading\n");
    assert_eq!(g.problems.len(), 1);
    assert!(
        g.problems[0].1.contains("did you mean `alerts`"),
        "{:?}",
        g.problems
    );
    assert_eq!(g.nodes.len(), 1);
    let g = parse_guide(
        "x.md",
        "---\ntitle: x\nweight: 3\nlayout: runbook\n---\n# H\n",
    );
    assert!(g.problems.is_empty(), "{:?}", g.problems);
    let g = parse_guide("x.md", "---\ntitle: [unclosed\n---\n# H\n");
    assert_eq!(g.problems.len(), 1, "bad YAML is still a problem");
}

#[test]
fn file_without_headings_is_one_node() {
    let g = parse_guide("notes.md", "just text\n\n```bash\nkubectl get pods\n```\n");
    assert_eq!(g.nodes.len(), 1);
    assert_eq!(g.nodes[0].title, "notes");
    assert_eq!(g.nodes[0].probes.len(), 1);
}
