//! The `key: value` / `KEY=VALUE` rule of the line scanner: which key names a secret, where
//! its value stands (without quotes, a JSON comma or a comment), the kind it is reported as,
//! and what a key with no value yet leaves open for the lines after it (a block scalar, a
//! label, a `name:`/`value:` pair). Pure; must not import `cli`, `tui` or `query`.

use std::ops::Range;

use super::line::Opens;
use super::vocab::{is_plain, names_secret};

/// Where the secrets of a line are collected: byte ranges of the line and their kinds.
pub type Found = Vec<(Range<usize>, &'static str)>;

/// The value part of `raw` (after `=`/`:`): its range inside `raw` without quotes, a JSON
/// comma or a trailing comment.
fn value_range(raw: &str) -> Range<usize> {
    let lead = raw.len() - raw.trim_start().len();
    let t = raw.trim();
    let end = lead + t.len();
    for q in ['"', '\''] {
        if t.starts_with(q) {
            if let Some(close) = t[1..].rfind(q) {
                return lead + 1..lead + 1 + close;
            }
        }
    }
    let t2 = t.trim_end_matches(',');
    let _ = end;
    lead..lead + t2.len()
}

/// `[indent][- ][export ]key (=|:) value`: the value when the key names a secret, a block
/// scalar or an empty label left open, or a `name:`/`value:` pair.
pub fn key_value(line: &str, c: &regex::Captures<'_>, out: &mut Found) -> Option<Opens> {
    let key = decode_key(&c[2]);
    let sep = &c[3];
    let v = c.get(4).map_or(0..0, |m| m.range());
    let raw = &line[v.clone()];
    let indent = c[1].len();
    let spaced = key.contains("  ")
        || (sep == "=" && key.contains(' '))
        || key.split(' ').count() > 3
        || key.split(' ').any(|w| w.starts_with('-'));
    if spaced {
        // `az … --flag=value` is a command, not a `key=value` line: the flag rules read it.
        return None;
    }
    if names_secret(&key) {
        let t = raw.trim();
        if matches!(t, "|" | ">" | "|-" | ">-" | "|+" | ">+") {
            return Some(Opens::Block(indent));
        }
        if t.is_empty() && sep == ":" {
            return Some(Opens::Label);
        }
        if !t.starts_with('{') {
            let vr = value_range(raw);
            if !is_plain(&raw[vr.clone()]) {
                out.push((v.start + vr.start..v.start + vr.end, kind_for(&key)));
            }
        }
    } else if (key == "name" || key == "key")
        && names_secret(raw.trim().trim_matches(['"', '\'', ',']))
    {
        return Some(Opens::PairName(indent));
    } else if key == "value" || key == "data" {
        let vr = value_range(raw);
        if super::vocab::looks_random(&raw[vr.clone()]) {
            out.push((v.start + vr.start..v.start + vr.end, "high-entropy"));
        }
    }
    None
}

/// The kind a `key: value` secret is reported as: the shape rules' names where they mean the
/// same thing (`authorization`, `kubeconfig`, `password`), else `secret-field`.
pub fn kind_for(key: &str) -> &'static str {
    let k = key.to_ascii_lowercase();
    match k.as_str() {
        "authorization" | "proxy-authorization" => "authorization",
        "client-key-data"
        | "client-certificate-data"
        | "certificate-authority-data"
        | "token"
        | "id-token"
        | "refresh-token"
        | "access-token" => "kubeconfig",
        _ if ["password", "passwd", "pwd", "secret"]
            .iter()
            .any(|w| k.contains(w)) =>
        {
            "password"
        }
        _ => "secret-field",
    }
}

/// A key as it reads after `\uXXXX` escapes are decoded.
fn decode_key(k: &str) -> String {
    if !k.contains("\\u") {
        return k.to_owned();
    }
    serde_json::from_str::<String>(&format!("\"{k}\"")).unwrap_or_else(|_| k.to_owned())
}
