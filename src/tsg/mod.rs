//! PURE markdown → model. Must not import IO (std::fs, std::process, tokio, network crates)
//! nor `crate::safety`, `crate::cli` or `crate::load`.
//!
//! `parse_guide` turns one file's text into a `Guide`; `link_library` resolves what spans
//! files (links to another guide without an anchor).

pub mod body;
mod build;
pub mod clauses;
pub mod consoles;
mod edges;
pub mod invocation;
pub mod json;
mod linker;
pub mod lint;
pub mod model;
mod outcome;
mod probe;
mod probe_ref;
mod raw;
mod refs;
pub mod roles;
pub mod routing;
pub mod shell;
mod shells;
pub mod slug;
mod swar;
mod tables;
pub mod text;
pub mod transcript;
pub mod vars;
mod walk;

pub use body::{Body, Fetch};
pub use edges::{is_external, join, resolve_dest};
pub use linker::Linker;
pub use model::*;
pub use outcome::{FailKind, Outcome};
pub use probe::split_info;
pub use probe_ref::{NodeId, ProbeRef};
pub use swar::lines;

/// Parses one guide. `path` is the guide's path relative to its root (`/` separators), used
/// in node ids. Never panics; problems (bad front matter) are kept in `Guide::problems`.
pub fn parse_guide(path: &str, source: &str) -> Guide {
    parse_guide_with(path, source, &roles::Synonyms::default())
}

/// `parse_guide` with a custom role synonym table.
pub fn parse_guide_with(path: &str, source: &str, synonyms: &roles::Synonyms) -> Guide {
    parse_guide_leaving(path, source, synonyms, &|_| None)
}

/// `parse_guide_with`, each section's text made by `leave` from its byte range in `source`
/// when it gives a body (one left where the source lies, for the caller to read again), and
/// copied from `source` when it gives none.
pub fn parse_guide_leaving(
    path: &str,
    source: &str,
    synonyms: &roles::Synonyms,
    leave: &dyn Fn(std::ops::Range<usize>) -> Option<Body>,
) -> Guide {
    let doc = walk::walk(source);
    let mut guide = Guide {
        path: path.to_string(),
        file: path.to_string(),
        ..Guide::default()
    };
    match build::front_matter(&doc) {
        Ok(fm) => guide.front_matter = fm,
        Err((line, msg)) => guide.problems.push((line, msg)),
    }
    guide.nodes = build::nodes(path, source, &doc, synonyms, leave);
    guide.title = build::title(path, guide.front_matter.as_ref(), &guide.nodes);
    let sections: Vec<&raw::RawSection> = doc.sections.iter().filter(|s| s.level > 0).collect();
    guide.routes = edges::link(path, &sections, &mut guide.nodes);
    if let Some(fm) = guide.front_matter.as_ref() {
        for (alert, slug) in &fm.alerts {
            let to = format!("{path}#{}", slug.trim_start_matches('#'));
            if !guide.routes.iter().any(|r| &r.alert == alert && r.to == to) {
                guide.routes.push(Route {
                    alert: alert.clone(),
                    to,
                    by: RouteBy::FrontMatter,
                    line: 1,
                });
            }
        }
    }
    routing::named_routes(&mut guide);
    sentence_routes(&doc, &mut guide);
    for s in &sections {
        guide.escalations.extend(tables::escalations(s));
    }
    drop(sections);
    // The raw links are not needed after this: their targets move into the guide.
    let count = doc.sections.iter().filter(|s| s.level > 0);
    guide.links = Vec::with_capacity(count.map(|s| s.links.len()).sum());
    let headed = doc.sections.into_iter().filter(|s| s.level > 0);
    guide
        .links
        .extend(headed.flat_map(|s| s.links).map(|l| Link {
            dest: l.dest,
            line: l.line,
        }));
    fit(&mut guide);
    guide
}

/// Gives back what the guide's lists hold beyond their length. They grow one push at a time
/// (a first push makes room for four), and a library keeps every guide it reads: at 20,000
/// guides the room nobody used was 66 MB, most of it in sections with one probe.
fn fit(guide: &mut Guide) {
    guide.routes.shrink_to_fit();
    guide.escalations.shrink_to_fit();
    for n in &mut guide.nodes {
        n.probes.shrink_to_fit();
        n.edges.shrink_to_fit();
        n.callouts.shrink_to_fit();
        n.checklist.shrink_to_fit();
        for p in &mut n.probes {
            p.vars.shrink_to_fit();
            p.assigns.shrink_to_fit();
        }
    }
}

/// Whether `text` holds "lert", "fire" or "trigger", in any case: the words a sentence
/// naming an alert has (`routing::sentence_alerts` reads "alert" in any case, so "ALERT"
/// too). Each has an `r` (third, third and second letter), so only the bytes around each
/// `r` or `R` are compared: one pass over the paragraph, eight bytes at a time, instead of
/// three case-blind substring searches.
fn names_a_firing(text: &str) -> bool {
    let b = text.as_bytes();
    // `word` is lower-case letters, and `| 0x20` turns only a letter's two cases into it.
    let at = |from: usize, word: &[u8]| {
        b.get(from..from + word.len())
            .is_some_and(|w| w.iter().zip(word).all(|(c, l)| c | 0x20 == *l))
    };
    swar::any_letter(b, b'r', |i| {
        i.checked_sub(2)
            .is_some_and(|s| at(s, b"lert") || at(s, b"fire"))
            || i.checked_sub(1).is_some_and(|s| at(s, b"trigger"))
    })
}

/// Routes for alerts a sentence names ("This alert, FooBarDown, fires when …"), to the
/// section the sentence is in (the first node for text before any heading).
fn sentence_routes(doc: &raw::RawDoc, guide: &mut Guide) {
    if guide.is_template() || guide.nodes.is_empty() {
        return;
    }
    for (k, s) in doc.sections.iter().enumerate() {
        let node = if s.level == 0 { 0 } else { k.saturating_sub(1) };
        if node >= guide.nodes.len() {
            continue;
        }
        for p in s.paras.iter().chain(s.items.iter().map(|i| &i.para)) {
            if !names_a_firing(&p.text) {
                continue;
            }
            for alert in routing::sentence_alerts(&p.text) {
                if !guide.routes.iter().any(|r| r.alert == alert) {
                    // The section's id is copied only for a route (most sections have none).
                    let to = guide.nodes[node].id.clone();
                    guide.routes.push(Route {
                        alert: alert.to_string(),
                        to,
                        by: RouteBy::Sentence,
                        line: p.line,
                    });
                }
            }
        }
    }
}

/// Resolves links across guides: a link or route to `other.md` (no anchor) points at that
/// guide's first node (of the last guide of that path). The navigator calls it at every batch
/// of a library being read, so the guides' paths are borrowed, not copied, and only the
/// targets that change are written.
pub fn link_library(lib: &mut Library) {
    // (guide, node or none for a route, edge or route, the new target)
    let mut fixes: Vec<(usize, Option<usize>, usize, String)> = Vec::new();
    {
        let first: std::collections::HashMap<&str, &str> = lib
            .guides
            .iter()
            .filter_map(|g| g.nodes.first().map(|n| (g.path.as_str(), n.id.as_str())))
            .collect();
        let target = |to: &str| {
            (!to.contains('#'))
                .then(|| first.get(to).map(|id| id.to_string()))
                .flatten()
        };
        for (gi, g) in lib.guides.iter().enumerate() {
            for (ni, n) in g.nodes.iter().enumerate() {
                for (ei, e) in n.edges.iter().enumerate() {
                    fixes.extend(target(&e.to).map(|id| (gi, Some(ni), ei, id)));
                }
            }
            for (ri, r) in g.routes.iter().enumerate() {
                fixes.extend(target(&r.to).map(|id| (gi, None, ri, id)));
            }
        }
    }
    for (gi, ni, k, id) in fixes {
        if let Some(to) = linker::target_mut(lib, gi, ni, k) {
            *to = id;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::names_a_firing;

    fn by_contains(t: &str) -> bool {
        let t = t.to_ascii_lowercase();
        ["lert", "fire", "trigger"].iter().any(|w| t.contains(w))
    }

    #[test]
    fn a_firing_is_named_where_contains_finds_one() {
        for t in [
            "",
            "r",
            "alert",
            "The alert fires",
            "triggers",
            "rtrigge",
            "fir",
            "lertr",
            "ALERT",
            "The FooDown ALERT means",
            "Alert",
            "FIRES",
            "TRIGGER",
            "LER T",
        ] {
            assert_eq!(names_a_firing(t), by_contains(t), "{t:?}");
        }
    }

    #[test]
    fn an_alert_named_in_capitals_is_routed() {
        // No "fire" or "trigger" in the sentence: only the capital "ALERT" names it.
        for (sentence, alert) in [
            (
                "The `EtcdQuorumLost` ALERT means two members are down.",
                "EtcdQuorumLost",
            ),
            (
                "ALERT: `NodeDiskFull` pages the storage rota.",
                "NodeDiskFull",
            ),
            (
                "- The ALERT `ApiLatencyHigh` pages when p99 passes 1s.",
                "ApiLatencyHigh",
            ),
        ] {
            let g = super::parse_guide("etcd.md", &format!("# Etcd\n\n## Quorum\n\n{sentence}\n"));
            let routes: Vec<_> = g
                .routes
                .iter()
                .map(|r| (r.alert.as_str(), r.to.as_str()))
                .collect();
            assert_eq!(routes, [(alert, "etcd.md#quorum")], "{sentence}");
        }
    }

    proptest::proptest! {
        #[test]
        fn names_a_firing_is_three_contains(t in "(lert|LERT|Lert|fire|FiRe|trigger|TRIGGER|[a-zA-Z]|r|R|é| ){0,12}") {
            proptest::prop_assert_eq!(names_a_firing(&t), by_contains(&t));
        }
    }
}

#[cfg(test)]
#[path = "fit_tests.rs"]
mod fit_tests;
