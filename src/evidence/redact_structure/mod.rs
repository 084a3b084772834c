//! Redaction by structure: secrets found by where they stand rather than by their shape. The
//! text is read as what outputs usually are — JSON by its tree (see `json`), everything else
//! line by line (see `line`), with the state a line leaves for the next: a YAML block scalar
//! (`password: |`), a label alone on its line (`Password:` and the value below it), and
//! Kubernetes env pairs (`name: DB_PASSWORD` then `value: …`). Values are replaced with
//! `[REDACTED:<kind>]`; keys, attributes and flags stay, so the output still shows what was
//! there. Pure (no IO); must not import `cli`, `tui` or `query`.

mod json;
mod line;
mod pairs;
pub mod vocab;

use std::ops::Range;
use std::sync::OnceLock;

use regex::bytes::Regex;

use line::Opens;

/// Lines longer than this are left to the shape rules (a minified blob is no structure).
const MAX_LINE: usize = 64 * 1024;

/// Text without any of these needs no structural reading (a fast pre-filter).
fn hints() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?i-u)pass|pwd|secret|token|key|cred|auth|sas|sig|private|conn|cookie|code=|dsn|mysql|sshpass|curl|wget|redis|machine|\\u00|^[^:\s]+:(?:\d+|\*):[^:\s]+:[^:\s]+:|value")
            .unwrap_or_else(|_| Regex::new("$^").expect("empty"))
    })
}

/// Redacts secrets found by structure in `input`; `None` when nothing was found.
pub fn redact(input: &[u8]) -> Option<(Vec<u8>, u64)> {
    if !hints().is_match(input) {
        return None;
    }
    let text = std::str::from_utf8(input).ok()?;
    let mut cur: Option<String> = None;
    let mut total = 0;
    let plain = json::strip_ansi(text);
    let docs = json::documents(&plain);
    if !docs.is_empty() {
        let found: Vec<_> = docs.iter().flat_map(json::secrets).collect();
        if !found.is_empty() {
            let (t, n) = json::replace_all(text, &found);
            total += n;
            cur = Some(t);
        }
    }
    let (t, n) = by_lines(cur.as_deref().unwrap_or(text));
    if n > 0 {
        total += n;
        cur = Some(t);
    }
    (total > 0).then(|| (cur.unwrap_or_default().into_bytes(), total))
}

/// Whether a whole value (a variable's, an alert label's) is a secret by itself: a
/// connection string with a password, a `KEY=VALUE` or `key: value` naming one, or a long
/// random token.
pub fn value_is_secret(value: &str) -> bool {
    let v = value.trim();
    if v.contains('\n') || vocab::is_plain(v) {
        return false;
    }
    let mut found = Vec::new();
    line::scan(v, &mut found);
    !found.is_empty() || vocab::looks_random(v)
}

fn by_lines(text: &str) -> (String, u64) {
    let mut out = String::with_capacity(text.len());
    let mut n = 0;
    let mut open: Option<(Opens, usize)> = None;
    for raw in text.split_inclusive('\n') {
        let body = raw.strip_suffix('\n').unwrap_or(raw);
        let body = body.strip_suffix('\r').unwrap_or(body);
        let ending = &raw[body.len()..];
        if body.len() > MAX_LINE || !hints().is_match(body.as_bytes()) && open.is_none() {
            out.push_str(raw);
            continue;
        }
        let stripped = json::strip_ansi(body);
        let line: &str = &stripped;
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        let mut found: Vec<(Range<usize>, &'static str)> = Vec::new();
        let mut next_open = None;
        match open.take() {
            Some((Opens::Block(base), age)) if indent > base || trimmed.is_empty() => {
                if !trimmed.is_empty() && !vocab::is_marker(trimmed) {
                    found.push((indent..line.len(), "secret-block"));
                }
                next_open = Some((Opens::Block(base), age));
            }
            Some((Opens::Label, _)) if is_lone_value(trimmed) => {
                let v = trimmed.trim_matches(['"', '\'', ',']);
                if !vocab::is_plain(v) {
                    let start = line.find(v).unwrap_or(indent);
                    found.push((start..start + v.len(), "secret-value"));
                }
            }
            Some((Opens::PairName(col), age)) => match pair_value(line, col) {
                Some(Some(r)) => found.push((r, "secret-pair")),
                Some(None) => {}
                None if age < 3 && !trimmed.starts_with("- ") && !trimmed.starts_with('{') => {
                    next_open = Some((Opens::PairName(col), age + 1));
                }
                None => {}
            },
            _ => {}
        }
        if found.is_empty() || !matches!(next_open, Some((Opens::Block(_), _))) {
            if let Some(o) = line::scan(line, &mut found) {
                next_open = Some((o, 0));
            }
        }
        open = next_open;
        if found.is_empty() {
            out.push_str(raw);
            continue;
        }
        n += splice(line, found, &mut out);
        out.push_str(ending);
    }
    (out, n)
}

/// A line that is only a value: one token, not a `key: value` or a heading.
fn is_lone_value(t: &str) -> bool {
    !(t.is_empty()
        || t.contains(char::is_whitespace)
        || t.contains(": ")
        || t.ends_with(':')
        || t.starts_with('#')
        || t.starts_with('-'))
}

/// The value range of a `value: …` / `"value": "…"` line beside a `name:` at column `col`
/// (`Some(None)`: such a line, with nothing to redact).
fn pair_value(line: &str, col: usize) -> Option<Option<Range<usize>>> {
    let indent = line.len() - line.trim_start().len();
    let t = line.trim_start().trim_start_matches("- ");
    let rest = t
        .strip_prefix("value:")
        .or_else(|| t.strip_prefix("\"value\":"))?;
    if indent.abs_diff(col) > 2 {
        return None;
    }
    let start = line.len() - rest.len();
    let lead = rest.len() - rest.trim_start().len();
    let v = rest.trim().trim_end_matches(',');
    let (q, v) = match v.strip_prefix('"').or_else(|| v.strip_prefix('\'')) {
        Some(inner) => (1, inner.trim_end_matches(['"', '\''])),
        None => (0, v),
    };
    if vocab::is_plain(v) {
        return Some(None);
    }
    let s = start + lead + q;
    Some(Some(s..s + v.len()))
}

/// Writes `line` with each range replaced by its marker; returns how many were replaced.
fn splice(line: &str, mut found: Vec<(Range<usize>, &'static str)>, out: &mut String) -> u64 {
    found.sort_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)));
    let mut last = 0;
    let mut n = 0;
    for (r, kind) in found {
        if r.start < last || r.is_empty() || r.end > line.len() {
            continue;
        }
        if !line.is_char_boundary(r.start) || !line.is_char_boundary(r.end) {
            continue;
        }
        out.push_str(&line[last..r.start]);
        out.push_str("[REDACTED:");
        out.push_str(kind);
        out.push(']');
        last = r.end;
        n += 1;
    }
    out.push_str(&line[last..]);
    n
}
