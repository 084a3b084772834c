//! GitHub-compatible heading slugs. Pure; imports nothing but std.

use std::collections::HashMap;

/// The anchor GitHub gives a heading: lower-case, every character that is not a letter,
/// a digit, `-`, `_` or a space dropped, spaces turned into `-`.
pub fn slug(title: &str) -> String {
    let t = title.trim();
    if t.is_ascii() {
        // Byte by byte through a table (most headings are ASCII): no character is decoded
        // or encoded, and the bytes kept, all ASCII, are checked as UTF-8 once at the end.
        let mut out = Vec::with_capacity(t.len());
        for b in t.bytes() {
            let kept = ASCII_SLUG[usize::from(b)];
            if kept != 0 {
                out.push(kept);
            }
        }
        return String::from_utf8(out).unwrap_or_default();
    }
    slug_chars(t)
}

/// What each ASCII byte of a title becomes in its slug (0: dropped): a letter lower-cased, a
/// digit, `-` or `_` kept, a space turned into `-`.
const ASCII_SLUG: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = match c {
            b'-' | b'_' | b'0'..=b'9' | b'a'..=b'z' => c,
            b'A'..=b'Z' => c.to_ascii_lowercase(),
            b' ' => b'-',
            _ => 0,
        };
        b += 1;
    }
    t
};

/// [`slug`] character by character (any text; `t` already trimmed).
fn slug_chars(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    for c in t.chars() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                out.push(c.to_ascii_lowercase());
            } else if c == ' ' {
                out.push('-');
            }
        } else if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// Hands out unique slugs within one document: the second `foo` becomes `foo-1`, then `foo-2`.
#[derive(Debug, Default)]
pub struct Slugger {
    /// std's keyed hash, not a faster unkeyed one: the headings come from a guide anyone may
    /// propose, and keys chosen to collide under a fixed hash would make this table quadratic
    /// (a 16 MiB guide holds a million headings).
    seen: HashMap<String, usize>,
}

impl Slugger {
    /// A slugger with room for `n` headings (its table is not grown as they come).
    pub fn with_capacity(n: usize) -> Self {
        Slugger {
            seen: HashMap::with_capacity(n),
        }
    }

    pub fn unique(&mut self, title: &str) -> String {
        let mut out = String::new();
        self.push_unique(title, &mut out);
        out
    }

    /// [`Slugger::unique`] written at the end of `out` (a node's id, after its path and `#`).
    pub fn push_unique(&mut self, title: &str, out: &mut String) {
        // Most headings are the first of their slug: one look-up, and the table keeps the
        // only copy of the slug besides `out`.
        let base = match self.seen.entry(slug(title)) {
            std::collections::hash_map::Entry::Vacant(v) => {
                out.push_str(v.key());
                v.insert(0);
                return;
            }
            std::collections::hash_map::Entry::Occupied(o) => o.key().clone(),
        };
        let mut candidate = base.clone();
        while let Some(count) = self.seen.get(&candidate).copied() {
            let n = count + 1;
            self.seen.insert(candidate.clone(), n);
            candidate = format!("{base}-{n}");
        }
        out.push_str(&candidate);
        self.seen.insert(candidate, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_rules() {
        assert_eq!(
            slug("Step 3.5: AKS Kusto (DNC-RC logs)"),
            "step-35-aks-kusto-dnc-rc-logs"
        );
        assert_eq!(
            slug("Step 2: Check HCP-side prerequisites"),
            "step-2-check-hcp-side-prerequisites"
        );
        assert_eq!(
            slug("Appendix: Router Pod and SWIFT NIC Metrics (kube-state-metrics)"),
            "appendix-router-pod-and-swift-nic-metrics-kube-state-metrics"
        );
        assert_eq!(slug("snake_case & More!"), "snake_case--more");
        assert_eq!(slug("Über Straße"), "über-straße");
    }

    #[test]
    fn duplicates_are_numbered() {
        let mut s = Slugger::default();
        assert_eq!(s.unique("Notes"), "notes");
        assert_eq!(s.unique("Notes"), "notes-1");
        assert_eq!(s.unique("Notes"), "notes-2");
        assert_eq!(s.unique("Notes 1"), "notes-1-1");
        // Written at the end of what is there (a node's id), with the same numbering.
        let mut id = String::from("g.md#");
        s.push_unique("Notes", &mut id);
        assert_eq!(id, "g.md#notes-3");
        id.truncate(5);
        s.push_unique("Fresh!", &mut id);
        assert_eq!(id, "g.md#fresh");
    }

    proptest::proptest! {
        #[test]
        fn ascii_headings_slug_as_the_character_reading_does(t in "[\\x00-\\x7F]{0,40}") {
            proptest::prop_assert_eq!(slug(&t), slug_chars(t.trim()));
        }
    }
}
