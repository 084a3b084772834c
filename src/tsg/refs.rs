//! Plain-text references between nodes ("see Strategy 4", "→ Scenario 7", "Step 3.5"): found
//! in a paragraph's words and resolved against the guide's numbered headings. Pure; imports
//! only sibling `tsg` modules.

use super::model::Node;

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
pub(super) fn may_refer(text: &str) -> bool {
    // Most paragraphs have no digit at all, and most digits no kind before them: only the
    // digits (found eight bytes at a time) are looked at closer.
    let b = text.as_bytes();
    super::swar::any_digit(b, |i| {
        i >= 2
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
pub(super) fn refs_in(text: &str, bare: bool) -> Vec<(String, String)> {
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
        let lead = |t: &str| t.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
        for (i, node) in nodes.iter().enumerate() {
            let title = node.title.as_str();
            // An ASCII title lower-cases byte by byte: only one that starts with a kind is
            // copied to lower case (most headings are not numbered).
            let lower = if title.is_ascii() {
                let from = title.len() - lead(title);
                let head = title.as_bytes().get(from..).unwrap_or_default();
                if !KINDS.iter().any(|k| {
                    head.get(..k.len())
                        .is_some_and(|h| h.eq_ignore_ascii_case(k.as_bytes()))
                }) {
                    continue;
                }
                title.to_ascii_lowercase()
            } else {
                title.to_lowercase()
            };
            let t = lower.get(lower.len() - lead(&lower)..).unwrap_or_default();
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
