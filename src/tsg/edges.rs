//! Edges between nodes: links, branches (if/then bullets, "Next step" columns), plain-text
//! references ("see Strategy 4", "→ Scenario 7", found by `refs`), alert routes and
//! document-order `next`.
//! Pure; imports only sibling `tsg` modules.

use super::model::{Edge, EdgeKind, Node, Role, Route};
use super::raw::RawSection;
use super::refs::{text_refs, RefIndex};
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
    // The first `,` `:` or `;`, then the phrases before it only: none of them holds one of
    // those bytes, so one that starts before it ends before it too.
    let stop = memchr::memchr3(b',', b':', b';', t.as_bytes()).unwrap_or(t.len());
    let head = &t[..stop];
    let cut = [" go to ", " → ", " see ", " continue with "]
        .iter()
        .filter_map(|w| head.find(w))
        .min()
        .unwrap_or(stop);
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
#[path = "edges_tests.rs"]
mod tests;
