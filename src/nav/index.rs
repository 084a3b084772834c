//! Lookups over the library for the navigator: node id → position, the choices leaving a
//! node, its tickable checklist, and the variables a guide's probes use. Pure; imports only
//! `crate::tsg`.

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};

use crate::tsg::{EdgeKind, Guide, Library, Node};

/// Node id → (guide index, node index). The table holds each id's hash and position, not a
/// copy of the id: a lookup compares the id asked for with the node's own, in the library.
/// So the index costs 16 bytes an id (about 225,000 ids at 20,000 guides), and a position
/// that no longer names a node with that id (a library other than the one indexed) is not
/// found rather than wrong. The hash is hashbrown's default (foldhash, seeded at random per
/// process: a guide is written before the seed exists, so it cannot aim its ids at one slot).
#[derive(Clone, Default)]
pub struct Index {
    by_id: HashTable<(u64, u32, u32)>,
    keys: DefaultHashBuilder,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("ids", &self.by_id.len())
            .finish()
    }
}

/// The id of the node at `(g, n)` of `lib`, if there is one.
fn id_at(lib: &Library, g: u32, n: u32) -> Option<&str> {
    let node = lib.guides.get(g as usize)?.nodes.get(n as usize)?;
    Some(&node.id)
}

impl Index {
    pub fn new(lib: &Library) -> Self {
        let mut index = Index::default();
        index.extend(lib, 0);
        index
    }

    /// Adds the guides of `lib` from the `from`th on: those appended since the index was built
    /// (a batch of a library being read), so the index grows with each batch instead of being
    /// built again over the whole library. The same index as [`Index::new`] over all of them:
    /// the first node with an id keeps it.
    pub fn extend(&mut self, lib: &Library, from: usize) {
        let added: usize = lib.guides.iter().skip(from).map(|g| g.nodes.len()).sum();
        self.by_id.reserve(added, |e| e.0);
        for (g, guide) in lib.guides.iter().enumerate().skip(from) {
            let Ok(g) = u32::try_from(g) else { break };
            for (n, node) in guide.nodes.iter().enumerate() {
                let Ok(n) = u32::try_from(n) else { break };
                let hash = self.keys.hash_one(node.id.as_str());
                let same = |e: &(u64, u32, u32)| {
                    e.0 == hash && id_at(lib, e.1, e.2) == Some(node.id.as_str())
                };
                if let Entry::Vacant(v) = self.by_id.entry(hash, same, |e| e.0) {
                    v.insert((hash, g, n));
                }
            }
        }
    }
    /// Makes room at once for a library of `total` guides of which `read` are indexed (the
    /// rest with as many ids a guide as those), so the table is not grown and every id hashed
    /// again at each batch. Nothing while `total` is unknown (0) or reached.
    pub fn expect(&mut self, read: usize, total: usize) {
        if read == 0 || total <= read {
            return;
        }
        self.by_id
            .reserve(self.by_id.len() * (total - read) / read, |e| e.0);
    }
    /// Where node `id` of `lib` is: its guide's index and its own in that guide.
    pub fn position(&self, lib: &Library, id: &str) -> Option<(usize, usize)> {
        let hash = self.keys.hash_one(id);
        let &(_, g, n) = self
            .by_id
            .find(hash, |e| e.0 == hash && id_at(lib, e.1, e.2) == Some(id))?;
        Some((g as usize, n as usize))
    }
    pub fn node<'a>(&self, lib: &'a Library, id: &str) -> Option<&'a Node> {
        let (g, n) = self.position(lib, id)?;
        lib.guides.get(g)?.nodes.get(n)
    }
    pub fn guide<'a>(&self, lib: &'a Library, id: &str) -> Option<&'a Guide> {
        let (g, _) = self.position(lib, id)?;
        lib.guides.get(g)
    }
    /// Resolves what an operator typed: a full id, `dir/file.md#slug` (the guide matched by
    /// path suffix), a slug or slug prefix of `within`'s guide (that guide is searched
    /// first), then a slug anywhere, or a slug prefix anywhere (first match).
    pub fn resolve(&self, lib: &Library, within: Option<&str>, typed: &str) -> Option<String> {
        let typed = typed.trim().trim_start_matches('#');
        if self.position(lib, typed).is_some() {
            return Some(typed.to_string());
        }
        if let Some(g) = within.and_then(|w| self.guide(lib, w)) {
            let id = format!("{}#{typed}", g.path);
            if self.position(lib, &id).is_some() {
                return Some(id);
            }
            if !typed.contains('#') {
                if let Some(n) = g.nodes.iter().find(|n| n.slug().starts_with(typed)) {
                    return Some(n.id.clone());
                }
            }
        }
        // `tsg/guide.md#slug` as typed from the repository root: match the guide by path suffix.
        if let Some((file, slug)) = typed.split_once('#') {
            let hit = lib
                .guides
                .iter()
                .filter(|g| file.ends_with(&g.path) || g.path.ends_with(file));
            return hit
                .flat_map(|g| &g.nodes)
                .find(|n| n.slug() == slug)
                .map(|n| n.id.clone());
        }
        let nodes = || lib.guides.iter().flat_map(|g| &g.nodes);
        nodes()
            .find(|n| n.slug() == typed)
            .or_else(|| nodes().find(|n| n.slug().starts_with(typed)))
            .map(|n| n.id.clone())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChoiceKind {
    Route,
    Branch,
    Ref,
    Link,
    /// The next node in document order.
    Next,
}

/// One way out of a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub kind: ChoiceKind,
    /// Why: the branch condition, the link text, or the target's title for "next step".
    pub label: String,
    /// Target node id, or the raw target when it is not in the library.
    pub to: String,
    /// Whether `to` is a node of the loaded library.
    pub resolved: bool,
}

/// The choices leaving `id`: route, branch and ref edges first (in the guide's order), then
/// "next step" in document order, then plain links.
pub fn choices(lib: &Library, index: &Index, id: &str) -> Vec<Choice> {
    let Some(node) = index.node(lib, id) else {
        return Vec::new();
    };
    let make = |kind, label: &str, to: &str| Choice {
        kind,
        label: label.trim().to_string(),
        to: to.to_string(),
        resolved: index.position(lib, to).is_some(),
    };
    let mut out: Vec<Choice> = Vec::new();
    let mut push = |c: Choice| {
        if !out.iter().any(|o| o.to == c.to && o.label == c.label) {
            out.push(c);
        }
    };
    for e in &node.edges {
        let kind = match e.kind {
            EdgeKind::Route => ChoiceKind::Route,
            EdgeKind::Branch => ChoiceKind::Branch,
            EdgeKind::Ref => ChoiceKind::Ref,
            _ => continue,
        };
        push(make(kind, &e.label, &e.to));
    }
    if let Some(next) = next_in_document(lib, index, id) {
        push(make(ChoiceKind::Next, &next.title, &next.id));
    }
    for e in node.edges.iter().filter(|e| e.kind == EdgeKind::Link) {
        push(make(ChoiceKind::Link, &e.label, &e.to));
    }
    out
}

/// The node after `id` in its guide, in document order.
pub fn next_in_document<'a>(lib: &'a Library, index: &Index, id: &str) -> Option<&'a Node> {
    let (g, n) = index.position(lib, id)?;
    lib.guides.get(g)?.nodes.get(n + 1)
}

/// The tickable items of a node: its checklist, then its preconditions (one per clause).
pub fn checklist(node: &Node) -> Vec<String> {
    let plain = |s: &str| s.replace(['`', '*'], "");
    let mut items: Vec<String> = node
        .checklist
        .iter()
        .map(|c| plain(c.text.trim()))
        .collect();
    if let Some(pre) = node.fields.get("preconditions") {
        // A lead-in ("every item below is true:") is not an item of its own.
        for c in crate::tsg::clauses::split(pre).items {
            items.push(format!("Precondition: {}", plain(&c)));
        }
    }
    items
}

/// Every variable the guide's probes read and do not assign themselves, first use first.
pub fn guide_vars(guide: &Guide) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in guide.nodes.iter().flat_map(|n| &n.probes) {
        for v in &p.vars {
            if !p.assigns.contains(v) && !out.contains(v) {
                out.push(v.clone());
            }
        }
    }
    if let Some(fm) = &guide.front_matter {
        for k in fm.inputs.keys() {
            if !out.contains(k) {
                out.push(k.clone());
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
