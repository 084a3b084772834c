//! JSON by its tree: the output (ANSI colours stripped, as `jq -C` prints it) is parsed, the
//! string values that are secrets are collected by where they stand, and each is replaced in
//! the original text where it appears as a JSON string. Keys are compared decoded, so a
//! `\u`-escaped key is read as what it spells. Pure; must not import `cli`, `tui` or `query`.
//!
//! A value is a secret when its key names one (`password`, `primaryMasterKey` …), when it is
//! the `value` of an object that is a secret (a Key Vault secret: `id` under `/secrets/`; an
//! ARM `SecureString`; a `name`/`key` that names a secret, as Kubernetes env pairs and ACR
//! `passwords[]` have; an object under a secret-naming key), or when it stands under `data`
//! or `stringData` of a Kubernetes Secret.

use serde_json::Value;

use super::vocab::{is_plain, looks_random, names_secret};

/// The secret strings of `v`, each with its kind.
pub fn secrets(v: &Value) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    walk(v, false, &mut out);
    out
}

fn push(out: &mut Vec<(String, &'static str)>, v: &Value, kind: &'static str) {
    match v {
        Value::String(s) if !is_plain(s) => out.push((s.clone(), kind)),
        Value::Number(n) if n.to_string().len() >= 6 => out.push((n.to_string(), kind)),
        _ => {}
    }
}

fn walk(v: &Value, under_secret: bool, out: &mut Vec<(String, &'static str)>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| walk(x, under_secret, out)),
        Value::Object(m) => {
            let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("");
            let k8s_secret = s("kind") == "Secret";
            let secret_obj = under_secret
                || s("id").contains("/secrets/")
                || s("type").eq_ignore_ascii_case("securestring")
                || s("type").eq_ignore_ascii_case("secureobject")
                || names_secret(s("name"))
                || names_secret(s("key"));
            for (k, x) in m {
                let key_secret = names_secret(k);
                match x {
                    Value::String(_) | Value::Number(_) => {
                        if key_secret {
                            push(out, x, "secret-field");
                        } else if secret_obj && (k == "value" || k == "secretValue") {
                            push(out, x, "secret-value");
                        } else if k == "value" && x.as_str().is_some_and(looks_random) {
                            push(out, x, "high-entropy");
                        }
                    }
                    Value::Object(inner) if k8s_secret && (k == "data" || k == "stringData") => {
                        inner.values().for_each(|y| push(out, y, "k8s-secret"));
                    }
                    _ => walk(x, key_secret && x.is_object(), out),
                }
            }
        }
        _ => {}
    }
}

/// Replaces each secret where it appears as a JSON string (`"…"`, encoded as serde writes
/// it) in `text`; returns the count.
pub fn replace_all(text: &str, secrets: &[(String, &'static str)]) -> (String, u64) {
    let mut out = text.to_owned();
    let mut n = 0;
    let mut sorted: Vec<&(String, &str)> = secrets.iter().collect();
    sorted.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
    for (s, kind) in sorted {
        let quoted = serde_json::to_string(s).unwrap_or_default();
        let mark = format!("\"[REDACTED:{kind}]\"");
        for needle in [quoted.clone(), quoted.replace('/', "\\/")] {
            let c = out.matches(&needle).count() as u64;
            if c > 0 {
                out = out.replace(&needle, &mark);
                n += c;
            }
        }
        // A number is written bare.
        if s.bytes().all(|b| b.is_ascii_digit()) {
            for sep in [": ", ":"] {
                let needle = format!("{sep}{s}");
                let c = out.matches(&needle).count() as u64;
                if c > 0 {
                    out = out.replace(&needle, &format!("{sep}{mark}"));
                    n += c;
                }
            }
        }
    }
    (out, n)
}

/// Strips ANSI escape sequences (CSI and OSC) from `text`.
pub fn strip_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match it.peek() {
            Some('[') => {
                it.next();
                for d in it.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&d) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(d) = it.next() {
                    if d == '\u{7}' || (d == '\u{1b}' && it.peek() == Some(&'\\')) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Every JSON document of `text`: each value that starts at the beginning of a line with `{`
/// or `[` (the whole text, JSON lines, or JSON between other output). At most 64 tries that
/// fail, so a long text cut inside a document costs little.
pub fn documents(text: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut misses = 0;
    while pos < text.len() && misses < 64 {
        let rest = &text[pos..];
        if rest.starts_with('{') || rest.starts_with('[') {
            let mut it = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            match it.next() {
                Some(Ok(v)) => {
                    let end = pos + it.byte_offset();
                    if v.is_object() || v.is_array() {
                        out.push(v);
                    }
                    pos = end.max(pos + 1);
                    continue;
                }
                _ => misses += 1,
            }
        }
        match rest.find('\n') {
            Some(nl) => pos += nl + 1,
            None => break,
        }
    }
    out
}
