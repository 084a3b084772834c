//! Cross-guide links resolved as a library grows a batch at a time (the navigator reads its
//! library in the background): after each batch, every anchor-less target (`other.md`) is
//! what [`super::link_library`] over the whole library would make it, the first node of the
//! last guide of that path, but a batch costs only its own guides' links, not the library's.
//! Pure; imports only its parent `tsg`.

use super::Library;

/// Where an anchor-less target was written: (guide, node or none for a route, its edge or
/// route).
type At = (usize, Option<usize>, usize);

/// One anchor-less target: the first node of the last guide of that path (once one with a node
/// is in), the edges and routes that name it, and how many of them hold that node already.
#[derive(Debug, Clone, Default)]
struct Target {
    first: Option<String>,
    at: Vec<At>,
    written: usize,
}

/// The anchor-less targets of a library read so far (see the module), and the guides' paths.
#[derive(Debug, Clone, Default)]
pub struct Linker {
    /// Each target's place in `targets` (hashbrown's map: a hash keyed per process, quicker
    /// than std's SipHash over the 20,000 paths and targets of a big library).
    by_name: hashbrown::HashMap<String, usize>,
    targets: Vec<Target>,
}

impl Linker {
    /// Links the guides of `lib` from the `from`th on (those appended since the last call)
    /// with all of them: a target of a new guide names a guide in already or waits for one,
    /// and a new guide answers the targets that waited for its path (or takes them over from
    /// an earlier guide of the same path: the last one wins).
    pub fn extend(&mut self, lib: &mut Library, from: usize) {
        // The targets with edges to write: new ones naming a guide that is in, or all of
        // them when the guide they name changed. (A target may be listed twice.)
        let mut flush: Vec<usize> = Vec::new();
        let mut wait = |to: &str, at: At| {
            let i = self.target(to);
            let t = &mut self.targets[i];
            t.at.push(at);
            if t.first.is_some() && t.written + 1 == t.at.len() {
                flush.push(i);
            }
        };
        for (gi, g) in lib.guides.iter().enumerate().skip(from) {
            for (ni, n) in g.nodes.iter().enumerate() {
                for (ei, e) in n.edges.iter().enumerate() {
                    if !e.to.contains('#') {
                        wait(&e.to, (gi, Some(ni), ei));
                    }
                }
            }
            for (ri, r) in g.routes.iter().enumerate() {
                if !r.to.contains('#') {
                    wait(&r.to, (gi, None, ri));
                }
            }
        }
        for g in lib.guides.iter().skip(from) {
            let Some(first) = g.nodes.first() else {
                continue;
            };
            let i = self.target(&g.path);
            let t = &mut self.targets[i];
            if t.first.as_deref() != Some(first.id.as_str()) {
                t.first = Some(first.id.clone());
                t.written = 0;
                if !t.at.is_empty() {
                    flush.push(i);
                }
            }
        }
        for i in flush {
            let Some(t) = self.targets.get_mut(i) else {
                continue;
            };
            let Some(first) = t.first.as_deref() else {
                continue;
            };
            for &(gi, ni, k) in t.at.get(t.written..).unwrap_or_default() {
                if let Some(slot) = target_mut(lib, gi, ni, k) {
                    first.clone_into(slot);
                }
            }
            t.written = t.at.len();
        }
    }

    /// The place of target `to`, made on first use.
    fn target(&mut self, to: &str) -> usize {
        if let Some(&i) = self.by_name.get(to) {
            return i;
        }
        self.targets.push(Target::default());
        self.by_name.insert(to.to_string(), self.targets.len() - 1);
        self.targets.len() - 1
    }
}

/// The target of edge `k` of node `ni` of guide `gi`, or of its route `k` when `ni` is none.
pub(super) fn target_mut(
    lib: &mut Library,
    gi: usize,
    ni: Option<usize>,
    k: usize,
) -> Option<&mut String> {
    let g = lib.guides.get_mut(gi)?;
    match ni {
        Some(ni) => g.nodes.get_mut(ni)?.edges.get_mut(k).map(|e| &mut e.to),
        None => g.routes.get_mut(k).map(|r| &mut r.to),
    }
}

#[cfg(test)]
#[path = "linker_tests.rs"]
mod tests;
