//! Redaction: replaces secrets with `[REDACTED:<kind>]` before anything reaches disk. Pure
//! (no IO). Must not import `cli`, `tui` or `query`.
//!
//! Built-in kinds: `authorization` (header values), `jwt`, `bearer`, `sas-sig`, `account-key`
//! (`AccountKey=` …), `storage-key` (bare 88-character base64 keys), `kubeconfig` (`client-key-data:`,
//! `client-certificate-data:`, `token:` …), `url-password` (`scheme://user:pass@host`),
//! `password` (`password=`, `secret:` … pairs), and `custom` for configured patterns. Redaction
//! is idempotent: a value that already reads `[REDACTED:…]` is left alone.

use std::borrow::Cow;

use regex::bytes::{Regex, RegexSet};

/// What every replacement starts with.
const MARKER: &str = "[REDACTED:";

/// Built-in patterns: (kind, regex). The secret is capture group `s` when present, else the
/// whole match. `[^\[…]` as a value's first character keeps redaction idempotent.
const BUILTIN: &[(&str, &str)] = &[
    (
        "authorization",
        r#"(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?P<s>(?:(?:bearer|basic|digest|negotiate|ntlm|sharedkey|pop|token)\s+)?[^\s"'\[][^\s"']*)"#,
    ),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+",
    ),
    ("bearer", r"(?i)\bbearer\s+(?P<s>[A-Za-z0-9\-._~+/]+=*)"),
    ("sas-sig", r"(?i)\bsig=(?P<s>[^\s&\[\x22'][^\s&\x22']*)"),
    (
        "account-key",
        r#"(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*(?P<s>[^\s;"'\[][^\s;"']*)"#,
    ),
    (
        "storage-key",
        r"(?:^|[^A-Za-z0-9+/=])(?P<s>[A-Za-z0-9+/]{86}==)",
    ),
    (
        "kubeconfig",
        r#"(?i)\b(?:client-key-data|client-certificate-data|token|id-token|refresh-token|access-token)["']?\s*:\s*["']?(?P<s>[^\s"'\[][^\s"']*)"#,
    ),
    (
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:(?P<s>[^/\s@\[][^/\s@]*)@",
    ),
    (
        "password",
        r#"(?i)\b(?:password|passwd|pwd|secret|token|client[_-]?secret|api[_-]?key|access[_-]?key|private[_-]?key)["']?\s*[=:]\s*["']?(?P<s>[^\s"'&;,\[][^\s"'&;,]*)"#,
    ),
];

/// A compiled set of redaction patterns.
#[derive(Debug, Clone)]
pub struct Redactor {
    patterns: Vec<(String, Regex)>,
    any: RegexSet,
}

/// A configured pattern that does not compile.
#[derive(Debug, thiserror::Error)]
#[error("redaction pattern {index} `{pattern}` is not a valid regex: {reason}; fix or remove it in the configuration")]
pub struct BadPattern {
    pub index: usize,
    pub pattern: String,
    pub reason: String,
}

impl Default for Redactor {
    fn default() -> Self {
        match Redactor::with_patterns(&[]) {
            Ok(r) => r,
            // The built-ins are constants covered by tests; an empty redactor is never returned
            // in practice, but nothing panics here either.
            Err(_) => Redactor {
                patterns: Vec::new(),
                any: RegexSet::empty(),
            },
        }
    }
}

impl Redactor {
    /// The built-in patterns plus `extra` (from the configuration), redacted as `custom`.
    /// In an extra pattern the secret is the named group `s`, else group 1, else the whole match.
    pub fn with_patterns(extra: &[String]) -> Result<Redactor, BadPattern> {
        let mut patterns = Vec::new();
        for (kind, src) in BUILTIN {
            // ASCII word boundaries and classes keep the fast DFA on non-ASCII input.
            let src = format!("(?-u){src}");
            let re = Regex::new(&src).map_err(|e| BadPattern {
                index: 0,
                pattern: src.clone(),
                reason: e.to_string(),
            })?;
            patterns.push(((*kind).to_owned(), re));
        }
        for (i, src) in extra.iter().enumerate() {
            let re = Regex::new(src).map_err(|e| BadPattern {
                index: i + 1,
                pattern: src.clone(),
                reason: e.to_string(),
            })?;
            patterns.push(("custom".to_owned(), re));
        }
        let any =
            RegexSet::new(patterns.iter().map(|(_, r)| r.as_str())).map_err(|e| BadPattern {
                index: 0,
                pattern: "(all patterns)".into(),
                reason: e.to_string(),
            })?;
        Ok(Redactor { patterns, any })
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
        let hits = self.any.matches(input);
        if !hits.matched_any() {
            return (Cow::Borrowed(input), 0);
        }
        let mut cur = input.to_vec();
        let mut total = 0;
        for i in hits.iter() {
            let (kind, re) = &self.patterns[i];
            let (next, n) = replace(re, kind, &cur);
            total += n;
            cur = next;
        }
        if total == 0 {
            return (Cow::Borrowed(input), 0);
        }
        (Cow::Owned(cur), total)
    }
}

/// Replaces each match's secret (group `s`, else group 1, else the whole match).
fn replace(re: &Regex, kind: &str, input: &[u8]) -> (Vec<u8>, u64) {
    let mut out = Vec::with_capacity(input.len());
    let mut last = 0;
    let mut n = 0;
    for caps in re.captures_iter(input) {
        let Some(m) = caps
            .name("s")
            .or_else(|| caps.get(1))
            .or_else(|| caps.get(0))
        else {
            continue;
        };
        if m.is_empty() || input[m.start()..].starts_with(MARKER.as_bytes()) {
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
mod tests {
    use super::*;

    fn red(s: &str) -> (String, u64) {
        Redactor::default().redact_str(s)
    }

    #[test]
    fn each_kind_is_redacted_and_the_context_kept() {
        let key = format!("{}==", "A".repeat(43) + &"b9+/".repeat(10) + "xyz");
        let cases = [
            (
                "Authorization: Basic dXNlcjpwYXNz",
                "Authorization: [REDACTED:authorization]",
            ),
            (
                "curl -H 'Bearer abc.def-ghi'",
                "curl -H 'Bearer [REDACTED:bearer]'",
            ),
            ("t=eyJhbGciOi.eyJzdWIiOjE.c2ln end", "t=[REDACTED:jwt] end"),
            (
                "https://a.blob.core.windows.net/c?sv=1&sig=AbC%2Bd%3D&se=2",
                "https://a.blob.core.windows.net/c?sv=1&sig=[REDACTED:sas-sig]&se=2",
            ),
            (
                "AccountName=a;AccountKey=Zm9v/bar+==;EndpointSuffix=x",
                "AccountName=a;AccountKey=[REDACTED:account-key];EndpointSuffix=x",
            ),
            (
                "    client-key-data: LS0tLS1CRUdJTg==",
                "    client-key-data: [REDACTED:kubeconfig]",
            ),
            (
                "postgres://admin:hunter2@db:5432/x",
                "postgres://admin:[REDACTED:url-password]@db:5432/x",
            ),
            (
                "login password=hunter2 ok",
                "login password=[REDACTED:password] ok",
            ),
            (&format!("key {key} end"), "key [REDACTED:storage-key] end"),
        ];
        for (input, want) in cases {
            let (got, n) = red(input);
            assert_eq!(got, want, "input: {input}");
            assert_eq!(n, 1, "input: {input}");
        }
    }

    #[test]
    fn redaction_is_idempotent_and_leaves_plain_text_alone() {
        let (once, n) = red("Authorization: Bearer eyJa.eyJb.c token: abc password=x");
        assert!(n >= 3);
        assert_eq!(red(&once), (once.clone(), 0));
        assert_eq!(
            red("kubectl get pods -n kube-system"),
            ("kubectl get pods -n kube-system".into(), 0)
        );
    }

    #[test]
    fn configured_patterns_apply_and_bad_ones_are_named() {
        let r = Redactor::with_patterns(&["ticket-(\\d+)".into()]).unwrap();
        assert_eq!(
            r.redact_str("see ticket-4711"),
            ("see ticket-[REDACTED:custom]".into(), 1)
        );
        let e = Redactor::with_patterns(&["ok".into(), "(".into()]).unwrap_err();
        assert_eq!(e.index, 2);
        assert!(e.to_string().contains("`(`"));
    }
}
