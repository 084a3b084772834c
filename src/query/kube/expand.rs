//! PURE variable expansion for native kube probes: `${X}`, `$X` and `<x>` in a word are
//! replaced from the bindings, so a value is only ever (part of) one word and never shell.
//! Command substitution and parameter expansion (`${X:-y}`) are not native.
//!
//! No IO; imports only `kube::parse`.

use std::collections::BTreeMap;

use super::parse::Reject;

fn not_native(s: impl Into<String>) -> Reject {
    Reject::NotNative(s.into())
}

/// Replaces `${X}`, `$X` and `<x>` in a word from `bindings`; a name without a value is
/// pushed to `missing` and replaced by `x` (so the form can still be checked).
pub fn expand(
    word: &str,
    bindings: &BTreeMap<String, String>,
    missing: &mut Vec<String>,
) -> Result<String, Reject> {
    if word.contains("$(") || word.contains('`') {
        return Err(not_native("command substitution"));
    }
    let mut out = String::new();
    let mut rest = word;
    while let Some(i) = rest.find(['$', '<']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let (name, len) = if let Some(b) = tail.strip_prefix("${") {
            let e = b.find('}').ok_or_else(|| not_native("unterminated ${"))?;
            (b[..e].to_string(), e + 3)
        } else if let Some(p) = tail.strip_prefix('<') {
            match p.find('>') {
                Some(e) if e > 0 && !p[..e].contains(['<', '/']) => (p[..e].to_string(), e + 2),
                _ => {
                    out.push('<');
                    rest = p;
                    continue;
                }
            }
        } else {
            let n: String = tail[1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if n.is_empty() {
                out.push('$');
                rest = &tail[1..];
                continue;
            }
            let l = n.len() + 1;
            (n, l)
        };
        if name.contains([':', '-', '=', '#', '%']) && tail.starts_with("${") {
            return Err(not_native(format!("parameter expansion ${{{name}}}")));
        }
        let canon: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        match bindings.get(&name).or_else(|| bindings.get(&canon)) {
            Some(v) => out.push_str(v),
            None => {
                if !missing.contains(&canon) {
                    missing.push(canon);
                }
                out.push('x');
            }
        }
        rest = &tail[len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Expands every word; missing names are collected in `missing`.
pub fn expand_all(
    words: &[String],
    bindings: &BTreeMap<String, String>,
    missing: &mut Vec<String>,
) -> Result<Vec<String>, Reject> {
    words.iter().map(|w| expand(w, bindings, missing)).collect()
}
