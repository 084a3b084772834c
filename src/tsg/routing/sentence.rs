//! Alert names a sentence names as alerts ("This alert, FooBarDown, fires when …"), found
//! from the words around each "alert", "fires", "fired" or "triggers" in it: the sentence is
//! scanned for those words' letters, eight bytes at a time, and only the words beside one are
//! read. Pure; imports only sibling `tsg` modules.

use super::super::swar;
use super::{alert_like, product_like};

/// Alert names a sentence names as alerts: "This alert, FooBarDown, fires …", "The
/// `FooBarDown` alert …", "the alert FooBarDown", "FooBarDown fires when …". A word is named
/// when the word before or after it is "alert" or "alerts" (in any case), or when the word
/// after it is "fires", "triggers" or "fired" and the one after that "when"; each word is
/// taken without the punctuation around it, and words are split at `char::is_whitespace`.
/// In the order the sentence names them, each once.
pub fn sentence_alerts(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let ci = |from: usize, w: &[u8]| {
        b.get(from..from + w.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(w))
    };
    let exact = |from: usize, w: &[u8]| b.get(from..from + w.len()) == Some(w);
    // The words named, as byte ranges, in the order their anchors are met.
    let mut named: Vec<(usize, usize)> = Vec::new();
    // Where the last word read ends: an `r` inside it is not read again, so a long word
    // full of them costs one read (the scan stays linear).
    let mut read_to = 0;
    // Each anchor has an `r`: fourth letter of "alert", third of "fire", second of "trigger".
    swar::any_letter(b, b'r', |i| {
        let anchor = i >= read_to
            && (i.checked_sub(3).is_some_and(|s| ci(s, b"alert"))
                || i.checked_sub(2).is_some_and(|s| exact(s, b"fire"))
                || i.checked_sub(1).is_some_and(|s| exact(s, b"trigger")));
        if !anchor {
            return false;
        }
        let (start, end) = word_at(text, i);
        read_to = end;
        let w = bare(text.get(start..end).unwrap_or_default());
        if w.eq_ignore_ascii_case("alert") || w.eq_ignore_ascii_case("alerts") {
            named.extend(word_before(text, start));
            named.extend(word_after(text, end));
        } else if matches!(w, "fires" | "triggers" | "fired")
            && word_after(text, end)
                .is_some_and(|(s, e)| bare(text.get(s..e).unwrap_or_default()) == "when")
        {
            named.extend(word_before(text, start));
        }
        false
    });
    named.sort_unstable();
    named.dedup();
    let mut out = Vec::new();
    for (s, e) in named {
        let w = text.get(s..e).unwrap_or_default();
        let name = bare(w);
        // `userJourneySwift*` is a pattern of alert names, not one alert.
        let glob = w
            .trim_end_matches(['`', ',', '.', ':', ';', ')'])
            .ends_with('*')
            && !w.trim_start_matches('`').starts_with('*');
        if !glob && alert_like(name) && !product_like(name) && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// A word without the punctuation around it (all ASCII, so cut at byte boundaries).
pub(super) fn bare(w: &str) -> &str {
    let p = |c: &u8| {
        matches!(
            c,
            b'`' | b'*' | b'"' | b'\'' | b'(' | b')' | b',' | b'.' | b':' | b';'
        )
    };
    let b = w.as_bytes();
    let start = b.iter().take_while(|c| p(c)).count();
    let end = b.len() - b[start..].iter().rev().take_while(|c| p(c)).count();
    w.get(start..end).unwrap_or_default()
}

/// The word around byte `i` of `text` (an ASCII letter): its start and end.
fn word_at(text: &str, i: usize) -> (usize, usize) {
    let head = text.get(..i).unwrap_or_default();
    let start = head.trim_end_matches(|c: char| !c.is_whitespace()).len();
    let tail = text.get(i..).unwrap_or_default();
    let end = tail.find(char::is_whitespace).map_or(text.len(), |k| i + k);
    (start, end)
}

/// The word before the one that starts at `start`, if there is one.
fn word_before(text: &str, start: usize) -> Option<(usize, usize)> {
    let head = text.get(..start).unwrap_or_default().trim_end();
    let from = head.trim_end_matches(|c: char| !c.is_whitespace()).len();
    (!head.is_empty()).then_some((from, head.len()))
}

/// The word after the one that ends at `end`, if there is one.
fn word_after(text: &str, end: usize) -> Option<(usize, usize)> {
    let tail = text.get(end..).unwrap_or_default().trim_start();
    let from = text.len() - tail.len();
    let to = tail
        .find(char::is_whitespace)
        .map_or(text.len(), |k| from + k);
    (!tail.is_empty()).then_some((from, to))
}
