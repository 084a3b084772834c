//! Kubernetes Secret values: every value under `data:` / `stringData:` of a document that is
//! a `kind: Secret` (YAML, and JSON as kubectl prints it, pretty or compact) becomes
//! `[REDACTED:k8s-secret]`; keys stay, so the output still shows which keys exist. Pure;
//! must not import `cli`, `tui` or `query`.

use regex::bytes::Regex;
use std::sync::OnceLock;

const MARK: &[u8] = b"[REDACTED:k8s-secret]";

fn res() -> &'static [Regex; 5] {
    static R: OnceLock<[Regex; 5]> = OnceLock::new();
    R.get_or_init(|| {
        let re = |s: &str| Regex::new(s).unwrap_or_else(|_| Regex::new("$^").expect("empty regex"));
        [
            // kind: Secret (YAML or JSON)
            re(r#"(?m)^\s*(?:-\s+)?"?kind"?\s*:\s*"?Secret"?\s*,?\s*$|"kind"\s*:\s*"Secret""#),
            // a YAML data:/stringData: key with nothing after it
            re(r"^(\s*(?:-\s+)?)(?:data|stringData):\s*$"),
            // a YAML `key: value` line
            re(r"^(\s*[^\s:#][^:]*:\s+)(\S.*?)\s*$"),
            // compact JSON "data":{…}
            re(r#""(?:data|stringData)"\s*:\s*\{[^{}]*\}"#),
            // a JSON "key": "value" member
            re(r#"("[^"]*"\s*:\s*)"(?:[^"\\]|\\.)*""#),
        ]
    })
}

/// Redacts Secret values in `input`; `force` treats every document as a Secret (used when a
/// streamed document is too long to wait for its `kind`). Returns `None` when nothing changed.
pub fn redact(input: &[u8], force: bool) -> Option<(Vec<u8>, u64)> {
    let kind = &res()[0];
    if !force && !kind.is_match(input) {
        return None;
    }
    let mut out = Vec::with_capacity(input.len());
    let mut n = 0u64;
    for doc in split_docs(input) {
        if !force && !kind.is_match(doc) {
            out.extend_from_slice(doc);
            continue;
        }
        // Compact JSON first (one line), then line by line for YAML and pretty JSON.
        let doc = compact_json(doc, &mut n);
        let mut open = Open::default();
        for line in doc.split_inclusive(|&b| b == b'\n') {
            if open.line(line, &mut out) {
                n += 1;
            } else {
                out.extend_from_slice(line);
            }
        }
    }
    (n > 0).then_some((out, n))
}

/// Each member of a compact JSON `"data":{…}` object, its value marked; counts into `n`.
fn compact_json<'a>(doc: &'a [u8], n: &mut u64) -> std::borrow::Cow<'a, [u8]> {
    let [_, _, _, json_data, json_member] = res();
    json_data.replace_all(doc, |c: &regex::bytes::Captures| {
        let inner = json_member.replace_all(&c[0][..], |m: &regex::bytes::Captures| {
            let v = &m[0][m[1].len()..];
            if m[1].starts_with(b"\"data\"")
                || m[1].starts_with(b"\"stringData\"")
                || v.starts_with(b"\"[REDACTED")
            {
                return m[0].to_vec();
            }
            *n += 1;
            [&m[1][..], b"\"", MARK, b"\""].concat()
        });
        inner.into_owned()
    })
}

/// What the lines read so far left open: a YAML `data:` block (its key's indent) or a pretty
/// JSON `"data": {` object.
#[derive(Default)]
struct Open {
    block: Option<usize>,
    json_block: bool,
}

impl Open {
    /// One line (with its newline): written to `out` redacted (`true`), or left for the
    /// caller to write as it is (`false`).
    fn line(&mut self, line: &[u8], out: &mut Vec<u8>) -> bool {
        let [_, data_key, _, _, json_member] = res();
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let indent = body.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let trimmed = &body[indent..];
        if self.json_block {
            if trimmed.starts_with(b"}") {
                self.json_block = false;
            } else if let Some(c) = json_member.captures(body) {
                if !body[c[1].len()..].starts_with(b"\"[REDACTED")
                    && c.get(0).is_some_and(|m| m.start() == indent)
                {
                    out.extend_from_slice(&body[..indent + c[1].len()]);
                    out.extend_from_slice(b"\"");
                    out.extend_from_slice(MARK);
                    out.extend_from_slice(b"\"");
                    out.extend_from_slice(&body[c.get(0).map_or(body.len(), |m| m.end())..]);
                    out.extend_from_slice(&line[body.len()..]);
                    return true;
                }
            }
        }
        if trimmed.starts_with(b"\"data\"") || trimmed.starts_with(b"\"stringData\"") {
            self.json_block = trimmed.ends_with(b"{");
        }
        if let Some(base) = self.block {
            if indent > base && !trimmed.is_empty() {
                yaml_value(body, indent, out);
                out.extend_from_slice(&line[body.len()..]);
                return true;
            }
            if !trimmed.is_empty() {
                self.block = None;
            }
        }
        if let Some(c) = data_key.captures(body) {
            self.block = Some(c[1].len());
        }
        false
    }
}

/// A line inside a YAML `data:` block: its value marked (a block scalar's lines whole).
fn yaml_value(body: &[u8], indent: usize, out: &mut Vec<u8>) {
    let kv = &res()[2];
    match kv.captures(body) {
        Some(c) if !c[2].starts_with(b"[REDACTED") && &c[2] != b"|" && &c[2] != b">" => {
            out.extend_from_slice(&c[1]);
            out.extend_from_slice(MARK);
        }
        Some(_) => out.extend_from_slice(body),
        None => {
            out.extend_from_slice(&body[..indent]);
            out.extend_from_slice(MARK);
        }
    }
}

/// YAML documents (split after each `---` line); JSON text is one document.
fn split_docs(input: &[u8]) -> Vec<&[u8]> {
    let mut docs = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    for line in input.split_inclusive(|&b| b == b'\n') {
        pos += line.len();
        if line.strip_suffix(b"\n").unwrap_or(line).trim_ascii_end() == b"---" {
            docs.push(&input[start..pos]);
            start = pos;
        }
    }
    docs.push(&input[start..]);
    docs
}

/// Where a stream may be cut without splitting something only whole text can redact: the
/// start of an unterminated PEM private key block, or of the current document when it opens a
/// `data:`/`stringData:` block. `None`: anywhere.
pub fn hold_from(text: &[u8]) -> Option<usize> {
    let pem = pem_header(text).map(|(begin, _)| line_start(text, begin));
    let doc = {
        let start = text
            .windows(5)
            .rposition(|w| w == b"\n---\n")
            .map_or(0, |i| i + 5);
        data_block().is_match(&text[start..]).then_some(start)
    };
    match (pem, doc) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Whether `text` ends inside a PEM private key block: its last BEGIN … PRIVATE KEY line
/// has no END after it.
pub fn open_pem(text: &[u8]) -> bool {
    pem_header(text).is_some()
}

/// The first PEM private key BEGIN line of `text` that has no END after it: (where
/// `-----BEGIN` starts, where the line's `PRIVATE KEY-----` ends).
pub fn pem_header(text: &[u8]) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(b) = text[from..]
        .windows(10)
        .position(|w| w == b"-----BEGIN")
        .map(|i| from + i)
    {
        let rest = &text[b..text.len().min(b + 80)];
        if let Some(k) = rest.windows(16).position(|w| w == b"PRIVATE KEY-----") {
            let header_end = b + k + 16;
            if last(&text[header_end..], b"-----END").is_none() {
                return Some((b, header_end));
            }
        }
        from = b + 10;
    }
    None
}

fn data_block() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r#"(?m)^\s*(?:-\s+)?(?:data|stringData):\s*$|"(?:data|stringData)"\s*:\s*\{"#)
            .unwrap_or_else(|_| Regex::new("$^").expect("empty regex"))
    })
}

fn last(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).rposition(|w| w == n)
}

fn line_start(text: &[u8], i: usize) -> usize {
    text[..i]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1)
}
