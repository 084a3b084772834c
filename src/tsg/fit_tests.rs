//! A parsed guide keeps no room its lists do not use, and a node's slug is read from its id.

use super::*;

/// Sections with one probe (a first push makes room for four), one or two of each other
/// list, a section with two probes from one block split at a shell it enters, and links.
const GUIDE: &str = "# Runbook

## Check the pods

> [!WARNING]
> Reading only.

- [ ] pods listed
- [x] nodes listed

If the pods are Pending, go to [Scale](#scale). See [the other guide](other.md).

```bash
kubectl get pods -n \"$NS\"
```

## Scale

Run `kubectl scale`; then go back to [Check the pods](#check-the-pods).

```console
$ kubectl exec -it pod-1 -- bash
# ls /var/log
```

## Scale

Notes.
";

#[test]
fn a_parsed_guide_holds_no_room_it_does_not_use() {
    let g = parse_guide("ops/runbook.md", GUIDE);
    let spare = |what: &str, cap: usize, len: usize| {
        assert_eq!(cap, len, "{what}: room for {cap}, {len} used");
    };
    spare("links", g.links.capacity(), g.links.len());
    spare("routes", g.routes.capacity(), g.routes.len());
    spare("escalations", g.escalations.capacity(), g.escalations.len());
    assert_eq!(g.links.len(), 3, "{:#?}", g.links);
    let mut with = [0; 4];
    for n in &g.nodes {
        spare(&n.id, n.probes.capacity(), n.probes.len());
        spare(&n.id, n.edges.capacity(), n.edges.len());
        spare(&n.id, n.callouts.capacity(), n.callouts.len());
        spare(&n.id, n.checklist.capacity(), n.checklist.len());
        for p in &n.probes {
            spare(&p.code, p.vars.capacity(), p.vars.len());
            spare(&p.code, p.assigns.capacity(), p.assigns.len());
        }
        let counts = [
            n.probes.len(),
            n.edges.len(),
            n.callouts.len(),
            n.checklist.len(),
        ];
        for (w, c) in with.iter_mut().zip(counts) {
            *w += usize::from(c > 0);
        }
    }
    // Each list was grown somewhere, so the test would see room left over.
    assert!(with.iter().all(|w| *w > 0), "{with:?} {:#?}", g.nodes);
}

#[test]
fn a_nodes_slug_is_the_end_of_its_id_and_repeats_are_numbered() {
    let g = parse_guide("a#b/runbook.md", GUIDE);
    let slugs: Vec<&str> = g.nodes.iter().map(Node::slug).collect();
    assert_eq!(slugs, ["runbook", "check-the-pods", "scale", "scale-1"]);
    for n in &g.nodes {
        assert_eq!(n.id, format!("a#b/runbook.md#{}", n.slug()));
    }
    // A file with no heading is one node whose slug is empty, as is a node's with no id.
    let bare = parse_guide("notes.md", "Just text.\n");
    assert_eq!(bare.nodes.len(), 1);
    assert_eq!(
        (bare.nodes[0].id.as_str(), bare.nodes[0].slug()),
        ("notes.md#", "")
    );
    assert_eq!(Node::default().slug(), "");
}
