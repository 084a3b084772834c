//! Fuzzy search over the library (guide titles, node titles, alert names) and within one
//! guide (node titles, then body text). A small subsequence scorer: every query character
//! must appear in order; consecutive runs and word starts score higher. Pure; no IO.

use crate::tsg::Library;

/// What a search hit points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    Guide(usize),
    Node(usize, usize),
    /// (guide, route index)
    Alert(usize, usize),
}

/// Score of `needle` in `hay`, or `None` when it is not a subsequence (case-insensitive).
pub fn score(needle: &str, hay: &str) -> Option<i64> {
    let n: Vec<char> = needle
        .chars()
        .flat_map(char::to_lowercase)
        .filter(|c| !c.is_whitespace())
        .collect();
    if n.is_empty() {
        return Some(0);
    }
    let h: Vec<char> = hay.chars().flat_map(char::to_lowercase).collect();
    let (mut i, mut total, mut run, mut prev) = (0usize, 0i64, 0i64, None::<usize>);
    for (j, c) in h.iter().enumerate() {
        if i < n.len() && *c == n[i] {
            let start = j == 0 || !h[j - 1].is_alphanumeric();
            run = if prev == Some(j.wrapping_sub(1)) {
                run + 1
            } else {
                0
            };
            total += 10 + run * 8 + if start { 12 } else { 0 };
            if let Some(p) = prev {
                total -= ((j - p - 1) as i64).min(6);
            }
            prev = Some(j);
            i += 1;
        }
    }
    (i == n.len()).then(|| total - (h.len() as i64 / 16))
}

/// Library hits for `query`: with an empty query every guide then the alert index; else the
/// best matches of guide titles, node titles and alert names, best first (at most `limit`).
pub fn library_hits(lib: &Library, query: &str, limit: usize) -> Vec<Hit> {
    if query.trim().is_empty() {
        let guides = (0..lib.guides.len()).map(Hit::Guide);
        let alerts = lib
            .guides
            .iter()
            .enumerate()
            .flat_map(|(g, guide)| (0..guide.routes.len()).map(move |r| Hit::Alert(g, r)));
        return guides.chain(alerts).take(limit).collect();
    }
    let mut scored: Vec<(i64, Hit)> = Vec::new();
    for (g, guide) in lib.guides.iter().enumerate() {
        if let Some(s) = score(query, &guide.title) {
            scored.push((s + 5, Hit::Guide(g)));
        }
        for (n, node) in guide.nodes.iter().enumerate() {
            if let Some(s) = score(query, &node.title) {
                scored.push((s, Hit::Node(g, n)));
            }
        }
        for (r, route) in guide.routes.iter().enumerate() {
            if let Some(s) = score(query, &route.alert) {
                scored.push((s + 3, Hit::Alert(g, r)));
            }
        }
    }
    scored.sort_by_key(|a| std::cmp::Reverse(a.0));
    scored.into_iter().take(limit).map(|(_, h)| h).collect()
}

/// Nodes of guide `g` matching `query`: fuzzy title matches first, then nodes whose body
/// contains the query (case-insensitive).
pub fn guide_hits(lib: &Library, g: usize, query: &str, limit: usize) -> Vec<Hit> {
    let Some(guide) = lib.guides.get(g) else {
        return Vec::new();
    };
    let mut scored: Vec<(i64, usize)> = guide
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(n, node)| score(query, &node.title).map(|s| (s, n)))
        .collect();
    scored.sort_by_key(|a| std::cmp::Reverse(a.0));
    let mut out: Vec<usize> = scored.into_iter().map(|(_, n)| n).collect();
    let q = query.to_lowercase();
    if !q.trim().is_empty() {
        for (n, node) in guide.nodes.iter().enumerate() {
            if !out.contains(&n) && node.body.to_lowercase().contains(&q) {
                out.push(n);
            }
        }
    }
    out.into_iter()
        .take(limit)
        .map(|n| Hit::Node(g, n))
        .collect()
}
