//! Redaction: replaces secrets with `[REDACTED:<kind>]` before anything reaches disk. Pure
//! (no IO). Must not import `cli`, `tui` or `query`.
//!
//! The rules are tsgnav's own (see `redact_rules::OWN`: authorization headers, JWTs, bearer
//! tokens, SAS `sig=`, account and storage keys, kubeconfig data, URL passwords, PEM private
//! keys (also JSON-escaped), `--token`/`--password`/`--client-secret` arguments, cookies,
//! `x-ms-client-principal`, AWS, GitHub, Slack, docker `auth`, `accessToken`, variables whose
//! names look secret), token shapes the maintained set lacks (`redact_shapes`), the
//! maintained `nosecrets-rules` set, Kubernetes Secret `data:` values (`redact_k8s`), values
//! found by structure (`redact_structure`: JSON, YAML, env, INI, XML, URLs, headers, flags), the values of secret variables (added with [`Redactor::add_secret`]) and
//! `custom` patterns from the configuration. Redaction is idempotent: a value that already
//! reads `[REDACTED:…]` is left alone.

use std::borrow::Cow;
use std::sync::{Arc, RwLock};

use regex::bytes::{Regex, RegexSet};

use super::redact_rules::{builtin, RuleInfo};

/// What every replacement starts with.
const MARKER: &str = "[REDACTED:";

/// A compiled set of redaction patterns.
#[derive(Debug, Clone)]
pub struct Redactor {
    /// (kind, regex, capture group of the secret or `usize::MAX` for "`s`, else 1, else 0").
    patterns: Vec<(String, Regex, usize)>,
    any: RegexSet,
    /// Values of secret variables: redacted wherever they appear (shared by clones).
    literals: Arc<RwLock<Vec<Vec<u8>>>>,
}

/// A configured pattern that does not compile.
#[derive(Debug, thiserror::Error)]
#[error("redaction pattern {index} `{pattern}` is not a valid regex: {reason}; fix or remove it in the configuration")]
pub struct BadPattern {
    pub index: usize,
    pub pattern: String,
    pub reason: String,
}

/// The built-in rules, compiled once per process (a few hundred patterns: tens of
/// milliseconds each time); every [`Redactor::default`] starts from a copy.
static BUILTIN: std::sync::OnceLock<Option<Redactor>> = std::sync::OnceLock::new();

impl Default for Redactor {
    /// The built-in rules with no secret values yet: a copy of the process's compiled rules
    /// (the regexes are shared, the secret values are this redactor's own).
    fn default() -> Self {
        match BUILTIN.get_or_init(|| Redactor::with_patterns(&[]).ok()) {
            Some(r) => Redactor {
                patterns: r.patterns.clone(),
                any: r.any.clone(),
                literals: Arc::default(),
            },
            // The built-ins are constants covered by tests; an empty redactor is never returned
            // in practice, but nothing panics here either.
            None => Redactor {
                patterns: Vec::new(),
                any: RegexSet::empty(),
                literals: Arc::default(),
            },
        }
    }
}

impl Redactor {
    /// The built-in patterns plus `extra` (from the configuration), redacted as `custom`.
    /// In an extra pattern the secret is the named group `s`, else group 1, else the whole match.
    pub fn with_patterns(extra: &[String]) -> Result<Redactor, BadPattern> {
        let mut patterns = Vec::new();
        for RuleInfo {
            kind,
            pattern,
            group,
            ..
        } in builtin()
        {
            // ASCII word boundaries and classes keep the fast DFA on non-ASCII input.
            let re = Regex::new(&format!("(?-u){pattern}"))
                .or_else(|_| Regex::new(&pattern))
                .map_err(|e| BadPattern {
                    index: 0,
                    pattern: pattern.clone(),
                    reason: e.to_string(),
                })?;
            patterns.push((kind, re, group));
        }
        for (i, src) in extra.iter().enumerate() {
            let re = Regex::new(src).map_err(|e| BadPattern {
                index: i + 1,
                pattern: src.clone(),
                reason: e.to_string(),
            })?;
            patterns.push(("custom".to_owned(), re, usize::MAX));
        }
        let any =
            RegexSet::new(patterns.iter().map(|(_, r, _)| r.as_str())).map_err(|e| BadPattern {
                index: 0,
                pattern: "(all patterns)".into(),
                reason: e.to_string(),
            })?;
        Ok(Redactor {
            patterns,
            any,
            literals: Arc::default(),
        })
    }

    /// Redacts `value` wherever it appears from now on (a secret variable's value). Values
    /// shorter than 4 bytes are ignored (they would blank out ordinary text).
    pub fn add_secret(&self, value: &str) {
        for v in [value, value.trim()] {
            if v.len() < 4 || v.starts_with(MARKER) {
                continue;
            }
            if let Ok(mut l) = self.literals.write() {
                if !l.iter().any(|x| x == v.as_bytes()) {
                    l.push(v.as_bytes().to_vec());
                    // Longest first, so a value containing another is replaced whole.
                    l.sort_by_key(|x| std::cmp::Reverse(x.len()));
                }
            }
        }
    }

    /// The rules in force: kind and source of each (for `tsgnav` and the tests).
    pub fn kinds(&self) -> Vec<&str> {
        self.patterns.iter().map(|(k, _, _)| k.as_str()).collect()
    }

    /// The streaming form of [`Redactor::redact_bytes`]: `force_secret` treats the text as a
    /// Kubernetes Secret (a document too long to wait for its `kind`).
    pub fn redact_chunk<'a>(&self, input: &'a [u8], force_secret: bool) -> (Cow<'a, [u8]>, u64) {
        let (mut cur, mut total) = self.redact_bytes(input);
        if force_secret {
            if let Some((b, n)) = super::redact_k8s::redact(&cur, true) {
                cur = Cow::Owned(b);
                total += n;
            }
        }
        (cur, total)
    }

    /// Redacts a string; returns the new text and the number of secrets replaced.
    pub fn redact_str(&self, s: &str) -> (String, u64) {
        match self.redact_bytes(s.as_bytes()) {
            (Cow::Borrowed(_), _) => (s.to_owned(), 0),
            (Cow::Owned(b), n) => (String::from_utf8_lossy(&b).into_owned(), n),
        }
    }

    /// Redacts bytes (need not be UTF-8). Matches never span the end of `input`, so stream
    /// callers cut input at line ends (see `blob`).
    pub fn redact_bytes<'a>(&self, input: &'a [u8]) -> (Cow<'a, [u8]>, u64) {
        let mut cur: Option<Vec<u8>> = None;
        let mut total = 0;
        if let Some((b, n)) = super::redact_k8s::redact(input, false) {
            cur = Some(b);
            total += n;
        }
        // Structure first: a shape rule stops at a space or a comma, structure reads the value.
        if let Some((b, n)) = super::redact_structure::redact(cur.as_deref().unwrap_or(input)) {
            cur = Some(b);
            total += n;
        }
        let hits = self.any.matches(cur.as_deref().unwrap_or(input));
        for i in hits.iter() {
            let (kind, re, group) = &self.patterns[i];
            let (next, n) = replace(re, kind, *group, cur.as_deref().unwrap_or(input));
            if n > 0 {
                total += n;
                cur = Some(next);
            }
        }
        if let Ok(lits) = self.literals.read() {
            for lit in lits.iter() {
                let text = cur.as_deref().unwrap_or(input);
                let (next, n) = replace_literal(text, lit);
                if n > 0 {
                    total += n;
                    cur = Some(next);
                }
            }
        }
        match cur {
            Some(b) if total > 0 => (Cow::Owned(b), total),
            _ => (Cow::Borrowed(input), 0),
        }
    }
}

fn replace_literal(input: &[u8], lit: &[u8]) -> (Vec<u8>, u64) {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    let mut n = 0;
    while i < input.len() {
        if input[i..].starts_with(lit) {
            out.extend_from_slice(b"[REDACTED:secret-variable]");
            i += lit.len();
            n += 1;
        } else {
            out.push(input[i]);
            i += 1;
        }
    }
    (out, n)
}

/// Replaces each match's secret (group `s`, else `group`, else group 1, else the whole match).
fn replace(re: &Regex, kind: &str, group: usize, input: &[u8]) -> (Vec<u8>, u64) {
    let mut out = Vec::with_capacity(input.len());
    let mut last = 0;
    let mut n = 0;
    for caps in re.captures_iter(input) {
        let Some(m) = caps
            .name("s")
            .or_else(|| caps.get(group))
            .or_else(|| caps.get(1))
            .or_else(|| caps.get(0))
        else {
            continue;
        };
        if m.is_empty() || m.start() < last || input[m.start()..].starts_with(MARKER.as_bytes()) {
            continue;
        }
        out.extend_from_slice(&input[last..m.start()]);
        out.extend_from_slice(format!("{MARKER}{kind}]").as_bytes());
        last = m.end();
        n += 1;
    }
    out.extend_from_slice(&input[last..]);
    (out, n)
}

#[cfg(test)]
#[path = "redact_tests.rs"]
mod tests;
