//! Edges between nodes: links, branches (if/then bullets, "Next step" columns), plain-text
//! references ("see Strategy 4", "→ Scenario 7"), alert routes and document-order `next`.
//! Pure; imports only sibling `tsg` modules.

use super::model::{Edge, EdgeKind, Node, Role, Route};
use super::raw::RawSection;
use super::tables::{self, RawTarget};

/// Whether a link leaves the repository (web, mail).
pub fn is_external(dest: &str) -> bool {
    dest.contains("://") || dest.starts_with("mailto:") || dest.starts_with("tel:")
}

/// Joins a relative link onto the directory of `from` and normalises `.`/`..`.
pub fn join(from: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// A link destination as a node id (`path#slug`, or `path` for a file link); `None` when external.
pub fn resolve_dest(path: &str, dest: &str) -> Option<String> {
    if is_external(dest) || dest.is_empty() {
        return None;
    }
    let dest = dest.split('?').next().unwrap_or(dest);
    Some(match dest.split_once('#') {
        Some(("", anchor)) => format!("{path}#{anchor}"),
        Some((file, anchor)) => format!("{}#{anchor}", join(path, file)),
        None => join(path, dest),
    })
}

const TRIGGERS: &[&str] = &[
    "see ",
    "→",
    "->",
    "go to",
    "proceed to",
    "jump to",
    "skip to",
    "continue",
    "then ",
    "use ",
    "fix",
    "per ",
    "refer",
    "back to",
    "return to",
    "follow",
    "instead",
    "next:",
    "apply",
];
const KINDS: &[&str] = &["step", "strategy", "scenario", "option", "phase"];

/// Whether `text` may hold a reference: a digit after a space after one of `KINDS`, in any
/// ASCII case (one pass over the bytes; most paragraphs have no digit after a space at all).
/// Lower-casing cannot make a kind word out of letters that are not one in ASCII (no
/// non-ASCII letter lower-cases to one of their letters alone), so reading the text as
/// written misses none.
fn may_refer(text: &str) -> bool {
    // Most paragraphs have no digit at all: eight bytes at a time first.
    if !super::swar::has_ascii_digit(text) {
        return false;
    }
    let b = text.as_bytes();
    (2..b.len()).any(|i| {
        b[i].is_ascii_digit()
            && b[i - 1] == b' '
            && KINDS.iter().any(|k| {
                b[..i - 1]
                    .len()
                    .checked_sub(k.len())
                    .is_some_and(|at| b[at..i - 1].eq_ignore_ascii_case(k.as_bytes()))
            })
    })
}

/// Plain-text references `(kind, number)` in `text`; with `bare`, no trigger word is needed.
pub fn text_refs(text: &str, bare: bool) -> Vec<(String, String)> {
    if !may_refer(text) {
        return Vec::new();
    }
    refs_in(text, bare)
}

/// [`text_refs`] without the quick test.
fn refs_in(text: &str, bare: bool) -> Vec<(String, String)> {
    let lower = text.to_lowercase();
    // (start, end, kind, number) of every numbered mention.
    let mut found: Vec<(usize, usize, &str, String)> = Vec::new();
    for kind in KINDS {
        for (at, _) in lower.match_indices(kind) {
            let after = &lower[at + kind.len()..];
            let Some(rest) = after.strip_prefix(' ') else {
                continue;
            };
            let num: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                .collect();
            let num = num.trim_end_matches('.').to_string();
            if num.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                found.push((at, at + kind.len() + 1 + num.len(), kind, num));
            }
        }
    }
    found.sort();
    let mut out = Vec::new();
    let mut prev_end = None;
    for (at, end, kind, num) in found {
        let before = &lower[..at];
        // "Strategy 4, step 0": the step qualifies the strategy; it is not a reference of its own.
        let qualifies = prev_end
            .is_some_and(|p: usize| p <= at && lower[p..at].chars().all(|c| c == ',' || c == ' '));
        prev_end = Some(end);
        let window: String = before
            .chars()
            .rev()
            .take(24)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let boundary = before.chars().last().is_none_or(|c| !c.is_alphanumeric());
        // "(Strategy 2)": a parenthesised mention is a pointer too.
        let parenthesised = before.ends_with('(');
        if !qualifies
            && boundary
            && (bare || parenthesised || TRIGGERS.iter().any(|t| window.contains(t)))
        {
            out.push((kind.to_string(), num));
        }
    }
    out
}

/// Numbered headings ("Strategy 3: …", "Step 3.5 …") by their "kind number" key, so a
/// reference resolves in constant time (a guide may hold thousands of references).
pub struct RefIndex {
    keys: std::collections::HashMap<String, usize>,
}

impl RefIndex {
    pub fn new(nodes: &[Node]) -> Self {
        let mut keys = std::collections::HashMap::new();
        for (i, node) in nodes.iter().enumerate() {
            let t = node.title.to_lowercase();
            let t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
            for kind in KINDS {
                let Some(rest) = t.strip_prefix(kind).and_then(|r| r.strip_prefix(' ')) else {
                    continue;
                };
                let num: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                    .collect();
                let num = num.trim_end_matches('.');
                if num.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                    keys.entry(format!("{kind} {num}")).or_insert(i);
                }
            }
        }
        RefIndex { keys }
    }

    /// The node a numbered reference names, falling back from "Step 2a" to "Step 2".
    pub fn resolve(&self, kind: &str, num: &str) -> Option<usize> {
        let find = |n: &str| self.keys.get(&format!("{kind} {n}")).copied();
        find(num).or_else(|| find(num.trim_end_matches(|c: char| c.is_ascii_alphabetic())))
    }
}

fn push(node: &mut Node, to: String, kind: EdgeKind, label: &str, line: usize) {
    if to == node.id || node.edges.iter().any(|e| e.to == to && e.kind == kind) {
        return;
    }
    // A bare number ("4", "2.") says nothing: no label rather than that.
    let label = if label.chars().any(char::is_alphabetic) {
        label.to_string()
    } else {
        String::new()
    };
    node.edges.push(Edge {
        to,
        kind,
        label,
        line,
    });
}

/// What a decision says: its bold label ("If agents are disconnected"), else its sentence up
/// to where it points on ("If the pods are Pending, go to …" → "If the pods are Pending").
fn condition_label(p: &super::raw::RawPara) -> String {
    if let Some(l) = p.label.as_ref().filter(|l| is_condition(&l.text)) {
        return l.text.trim().trim_end_matches(':').trim().to_string();
    }
    let t = p.text.trim();
    let cut = [",", ":", ";", " go to ", " → ", " see ", " continue with "]
        .iter()
        .filter_map(|w| t.find(w))
        .min()
        .unwrap_or(t.len());
    t[..cut].trim().to_string()
}

fn target_id(path: &str, nodes: &[Node], refs: &RefIndex, t: &RawTarget) -> Option<String> {
    if let Some(id) = t.dest.as_deref().and_then(|d| resolve_dest(path, d)) {
        return Some(id);
    }
    text_refs(&t.text, true)
        .into_iter()
        .find_map(|(k, n)| refs.resolve(&k, &n))
        .map(|i| nodes[i].id.clone())
}

fn is_condition(text: &str) -> bool {
    // Compared in ASCII case: no other letter lower-cases to one of these words' letters
    // (only the Kelvin sign becomes an ASCII `k`), so this is `to_lowercase` without the copy.
    let t = text.trim_start().as_bytes();
    [
        "if ",
        "if/",
        "when ",
        "otherwise",
        "else",
        "unless ",
        "only if",
    ]
    .iter()
    .any(|w| {
        t.get(..w.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(w.as_bytes()))
    })
}

/// Adds edges to every node and returns the guide's alert routes.
pub fn link(path: &str, sections: &[&RawSection], nodes: &mut [Node]) -> Vec<Route> {
    let mut routes = Vec::new();
    let refs = RefIndex::new(nodes);
    for (i, s) in sections.iter().enumerate() {
        if i >= nodes.len() {
            break;
        }
        let mut pending: Vec<(String, EdgeKind, String, usize)> = Vec::new();
        let mut routed_links = Vec::new();
        for (alert, t) in tables::routes(s) {
            if let Some(to) = target_id(path, nodes, &refs, &t) {
                routes.push(Route {
                    alert,
                    to: to.clone(),
                    by: super::model::RouteBy::TriageTable,
                    line: t.line,
                });
                pending.push((to, EdgeKind::Route, t.label.clone(), t.line));
            }
            routed_links.extend(t.dest);
        }
        for t in tables::branches(s) {
            if let Some(to) = target_id(path, nodes, &refs, &t) {
                pending.push((to, EdgeKind::Branch, t.label.clone(), t.line));
            }
            routed_links.extend(t.dest);
        }
        let mut branch_links = Vec::new();
        for p in s.paras.iter().chain(s.items.iter().map(|i| &i.para)) {
            // A bullet that is only a link ("- [When to use](#…)") is a table of contents entry.
            let link_only = p.links.len() == 1
                && s.links
                    .get(p.links[0])
                    .is_some_and(|l| l.text.trim() == p.text.trim());
            let cond = !link_only
                && (p.label.as_ref().is_some_and(|l| is_condition(&l.text))
                    || is_condition(&p.text));
            if cond {
                let said = condition_label(p);
                branch_links.extend(p.links.iter().map(|l| (*l, said.clone())));
            }
            let kind = if cond {
                EdgeKind::Branch
            } else {
                EdgeKind::Ref
            };
            for (k, n) in text_refs(&p.text, false) {
                if let Some(j) = refs.resolve(&k, &n) {
                    let said = if cond {
                        condition_label(p)
                    } else {
                        p.text.clone()
                    };
                    pending.push((nodes[j].id.clone(), kind, said, p.line));
                }
            }
        }
        for q in &s.quotes {
            for (k, n) in text_refs(&q.text, false) {
                if let Some(j) = refs.resolve(&k, &n) {
                    pending.push((nodes[j].id.clone(), EdgeKind::Ref, q.text.clone(), q.line));
                }
            }
        }
        for (idx, l) in s.links.iter().enumerate() {
            if routed_links.contains(&l.dest) {
                continue;
            }
            if let Some(to) = resolve_dest(path, &l.dest) {
                // A decision is labelled by what it says, not by the link's text.
                match branch_links.iter().find(|(i, _)| *i == idx) {
                    Some((_, said)) => pending.push((to, EdgeKind::Branch, said.clone(), l.line)),
                    None => pending.push((to, EdgeKind::Link, l.text.clone(), l.line)),
                }
            }
        }
        // Strongest kind first so a link that is also a branch is kept as the branch.
        pending.sort_by_key(|p| match p.1 {
            EdgeKind::Route => 0,
            EdgeKind::Branch => 1,
            EdgeKind::Ref => 2,
            EdgeKind::Link => 3,
            EdgeKind::Next => 4,
        });
        let node = &mut nodes[i];
        for (to, kind, label, line) in pending {
            if !node.edges.iter().any(|e| e.to == to) {
                push(node, to, kind, &label, line);
            }
        }
    }
    add_next(nodes);
    routes
}

fn phase(role: Role) -> Option<Role> {
    match role {
        Role::Diagnostic | Role::BlastRadius => Some(Role::Diagnostic),
        Role::Mitigation | Role::Rollback => Some(Role::Mitigation),
        Role::Validation
        | Role::Escalation
        | Role::Postmortem
        | Role::Prerequisites
        | Role::Symptoms => Some(role),
        _ => None,
    }
}

/// `next`: each node to the following node in document order when both are in one phase.
fn add_next(nodes: &mut [Node]) {
    for i in 1..nodes.len() {
        let (a, b) = (phase(nodes[i - 1].role), phase(nodes[i].role));
        if a.is_some() && a == b {
            let to = nodes[i].id.clone();
            let line = nodes[i].line;
            push(&mut nodes[i - 1], to, EdgeKind::Next, "", line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_resolves() {
        assert_eq!(join("docs/drafts/a.md", "../ops/b.md"), "docs/ops/b.md");
        assert_eq!(resolve_dest("a/b.md", "#x").as_deref(), Some("a/b.md#x"));
        assert_eq!(
            resolve_dest("a/b.md", "c.md#y").as_deref(),
            Some("a/c.md#y")
        );
        assert_eq!(resolve_dest("a/b.md", "https://x"), None);
    }

    #[test]
    fn finds_plain_text_refs() {
        assert_eq!(
            text_refs("Fix → Strategy 3", false),
            vec![("strategy".into(), "3".into())]
        );
        assert_eq!(
            text_refs("see Strategy 4, step 0", false),
            vec![("strategy".into(), "4".into())]
        );
        assert_eq!(text_refs("Step 3.5 then Step 4", true).len(), 2);
        assert!(text_refs("The commands in Steps 2f and 4", false).is_empty());
        assert_eq!(
            text_refs("Step 2a", true),
            vec![("step".into(), "2a".into())]
        );
    }

    #[test]
    fn numbered_heading_lookup() {
        let mk = |t: &str| Node {
            title: t.into(),
            id: t.into(),
            ..Node::default()
        };
        let nodes = vec![
            mk("Step 3: Read CNS logs"),
            mk("Step 3.5: AKS Kusto"),
            mk("Step 2: Check"),
        ];
        let refs = RefIndex::new(&nodes);
        assert_eq!(refs.resolve("step", "3"), Some(0));
        assert_eq!(refs.resolve("step", "3.5"), Some(1));
        assert_eq!(refs.resolve("step", "2a"), Some(2));
        assert_eq!(refs.resolve("step", "7"), None);
    }

    #[test]
    fn the_quick_test_lets_every_reference_through() {
        for t in [
            "see Step 3",
            "STRATEGY 12 applies",
            "(Scenario 2)",
            "go to phase 1.5.",
            "option 3, then step 4",
            "steps 3",
            "Kelvin \u{212a} stEp 2",
        ] {
            assert_eq!(text_refs(t, true), refs_in(t, true), "{t:?}");
        }
        assert!(!may_refer("no number here") && !may_refer("step3") && !may_refer("7 steps"));
    }

    proptest::proptest! {
        /// Whatever the full reading finds, the quick test lets through.
        #[test]
        fn the_quick_test_misses_no_reference(
            t in "((step|StEp|strategy|SCENARIO|option|phase|İ|\u{212a}|é|[a-z]| |[0-9]|\\.|,|\\()){0,16}"
        ) {
            if !refs_in(&t, true).is_empty() {
                proptest::prop_assert!(may_refer(&t), "{:?}", t);
            }
        }
    }
}
