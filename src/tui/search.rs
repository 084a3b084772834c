//! Fuzzy search over the library (guide titles, node titles, alert names) and within one
//! guide (node titles, then body text), scored by `nucleo-matcher` (the matcher of helix);
//! [`positions`] gives the matched characters for highlighting. Each word of the query must
//! match, case-insensitively. Pure; no IO.

use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use crate::tsg::Library;

/// What a search hit points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    Guide(usize),
    Node(usize, usize),
    /// (guide, route index)
    Alert(usize, usize),
}

/// A query compiled once and matched against many texts.
pub struct Query {
    pattern: Pattern,
    matcher: Matcher,
    buf: Vec<char>,
}

impl Query {
    pub fn new(query: &str) -> Query {
        Query {
            pattern: Pattern::new(
                query,
                CaseMatching::Ignore,
                Normalization::Smart,
                AtomKind::Fuzzy,
            ),
            matcher: Matcher::new(Config::DEFAULT),
            buf: Vec::new(),
        }
    }

    /// Whether the query has no words (everything matches).
    pub fn is_empty(&self) -> bool {
        self.pattern.atoms.is_empty()
    }

    /// The score of `hay`, or `None` when a word of the query does not match it.
    pub fn score(&mut self, hay: &str) -> Option<u32> {
        let hay = Utf32Str::new(hay, &mut self.buf);
        self.pattern.score(hay, &mut self.matcher)
    }

    /// The character positions of `hay` the query matched (sorted), empty when it does not.
    pub fn positions(&mut self, hay: &str) -> Vec<usize> {
        let mut at: Vec<u32> = Vec::new();
        let hay = Utf32Str::new(hay, &mut self.buf);
        if self
            .pattern
            .indices(hay, &mut self.matcher, &mut at)
            .is_none()
        {
            return Vec::new();
        }
        at.sort_unstable();
        at.dedup();
        at.into_iter()
            .filter_map(|i| usize::try_from(i).ok())
            .collect()
    }
}

/// The character positions of `hay` that `query` matched, for highlighting.
pub fn positions(query: &str, hay: &str) -> Vec<usize> {
    Query::new(query).positions(hay)
}

/// Library hits for `query`: with an empty query every guide then the alert index; else the
/// matches of guide titles, node titles and alert names, best first (at most `limit`); on
/// equal scores guides come before alerts before steps, then in library order.
pub fn library_hits(lib: &Library, query: &str, limit: usize) -> Vec<Hit> {
    let mut q = Query::new(query);
    if q.is_empty() {
        let guides = (0..lib.guides.len()).map(Hit::Guide);
        let alerts = lib
            .guides
            .iter()
            .enumerate()
            .flat_map(|(g, guide)| (0..guide.routes.len()).map(move |r| Hit::Alert(g, r)));
        return guides.chain(alerts).take(limit).collect();
    }
    // (score, kind rank: guide 0, alert 1, step 2, hit)
    let mut scored: Vec<(u32, u8, Hit)> = Vec::new();
    for (g, guide) in lib.guides.iter().enumerate() {
        if let Some(s) = q.score(&guide.title) {
            scored.push((s, 0, Hit::Guide(g)));
        }
        for (n, node) in guide.nodes.iter().enumerate() {
            if let Some(s) = q.score(&node.title) {
                scored.push((s, 2, Hit::Node(g, n)));
            }
        }
        for (r, route) in guide.routes.iter().enumerate() {
            if let Some(s) = q.score(&route.alert) {
                scored.push((s, 1, Hit::Alert(g, r)));
            }
        }
    }
    // Stable: library order breaks the remaining ties.
    scored.sort_by_key(|(s, kind, _)| (std::cmp::Reverse(*s), *kind));
    scored.into_iter().take(limit).map(|(.., h)| h).collect()
}

/// Nodes of guide `g` matching `query`: fuzzy title matches first, then nodes whose body
/// contains the query (case-insensitive).
pub fn guide_hits(lib: &Library, g: usize, query: &str, limit: usize) -> Vec<Hit> {
    let Some(guide) = lib.guides.get(g) else {
        return Vec::new();
    };
    let mut q = Query::new(query);
    let mut scored: Vec<(u32, usize)> = guide
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(n, node)| q.score(&node.title).map(|s| (s, n)))
        .collect();
    scored.sort_by_key(|a| std::cmp::Reverse(a.0));
    let mut out: Vec<usize> = scored.into_iter().map(|(_, n)| n).collect();
    let text = query.to_lowercase();
    if !text.trim().is_empty() {
        for (n, node) in guide.nodes.iter().enumerate() {
            // The runtime fetches the open guide's text before this runs (a body still in
            // its file would not match).
            let body = node.body.text().unwrap_or_default();
            if !out.contains(&n) && body.to_lowercase().contains(&text) {
                out.push(n);
            }
        }
    }
    out.into_iter()
        .take(limit)
        .map(|n| Hit::Node(g, n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_must_match_and_positions_are_the_matched_characters() {
        let mut q = Query::new("swft lat");
        assert!(q.score("SWIFT latency p99").is_some());
        assert!(q.score("SWIFT errors").is_none(), "`lat` does not match");
        assert_eq!(positions("swft", "SWIFT"), [0, 1, 3, 4]);
        assert_eq!(positions("é", "Café"), [3]);
        assert!(positions("zz", "SWIFT").is_empty());
        assert!(Query::new("  ").is_empty());
    }

    #[test]
    fn a_word_start_beats_a_scattered_match() {
        let mut q = Query::new("drain");
        let start = q.score("Drain the node").expect("match");
        let scattered = q.score("dry run against the cluster in").expect("match");
        assert!(start > scattered, "{start} vs {scattered}");
    }
}
