//! The model as the JSON of `tsgnav tree --json`, written straight into a byte buffer from the
//! model's borrowed text: the bytes `serde_json::to_writer` gives for the same `Guide` (the
//! derive stays the reference; a test compares the two over many guides), without serde's
//! per-value plumbing, and with a fast path for the strings that need no escaping (most).
//! Edge and route targets that name no anchor are recorded as [`Hole`]s, so a caller that
//! learns later what they resolve to (the first node of another guide) can put that in instead.
//! Pure; must not import IO nor any other tsgnav module.

use std::collections::BTreeMap;

use super::model::{
    BackendHints, Callout, CalloutKind, ChecklistItem, Edge, EdgeKind, Escalation, FrontMatter,
    Guide, Lang, Node, Probe, Route, RunsIn,
};

/// Where a target without an anchor (`other.md`) was written: `out[start..end]` is the whole
/// JSON string, quotes included; `to` is the target as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hole {
    pub start: usize,
    pub end: usize,
    pub to: String,
}

/// Appends `g` as one JSON object to `out`, and the targets that may still resolve to `holes`.
pub fn guide(g: &Guide, out: &mut Vec<u8>, holes: &mut Vec<Hole>) {
    out.extend_from_slice(b"{\"path\":");
    string(out, &g.path);
    out.extend_from_slice(b",\"title\":");
    string(out, &g.title);
    if let Some(fm) = &g.front_matter {
        out.extend_from_slice(b",\"front_matter\":");
        front_matter(out, fm);
    }
    out.extend_from_slice(b",\"nodes\":");
    list(out, &g.nodes, |out, n| node(out, n, holes));
    out.extend_from_slice(b",\"routes\":");
    list(out, &g.routes, |out, r| route(out, r, holes));
    out.extend_from_slice(b",\"escalations\":");
    list(out, &g.escalations, escalation);
    out.push(b'}');
}

fn front_matter(out: &mut Vec<u8>, fm: &FrontMatter) {
    out.extend_from_slice(b"{\"title\":");
    opt_string(out, fm.title.as_deref());
    out.extend_from_slice(b",\"alerts\":");
    map(out, &fm.alerts, |out, v| string(out, v));
    out.extend_from_slice(b",\"owners\":");
    list(out, &fm.owners, |out, s| string(out, s));
    out.extend_from_slice(b",\"inputs\":");
    map(out, &fm.inputs, |out, v| opt_string(out, v.as_deref()));
    out.extend_from_slice(b",\"template\":");
    opt_string(out, fm.template.as_deref());
    out.push(b'}');
}

fn node(out: &mut Vec<u8>, n: &Node, holes: &mut Vec<Hole>) {
    out.extend_from_slice(b"{\"id\":");
    string(out, &n.id);
    out.extend_from_slice(b",\"title\":");
    string(out, &n.title);
    out.extend_from_slice(b",\"level\":");
    number(out, usize::from(n.level));
    out.extend_from_slice(b",\"role\":");
    word(out, n.role.as_str());
    out.extend_from_slice(b",\"parent\":");
    opt_string(out, n.parent.as_deref());
    out.extend_from_slice(b",\"line\":");
    number(out, n.line);
    out.extend_from_slice(b",\"fields\":");
    map(out, &n.fields, |out, v| string(out, v));
    out.extend_from_slice(b",\"callouts\":");
    list(out, &n.callouts, callout);
    out.extend_from_slice(b",\"checklist\":");
    list(out, &n.checklist, checklist_item);
    out.extend_from_slice(b",\"probes\":");
    list(out, &n.probes, probe);
    out.extend_from_slice(b",\"edges\":");
    list(out, &n.edges, |out, e| edge(out, e, holes));
    out.push(b'}');
}

fn callout(out: &mut Vec<u8>, c: &Callout) {
    out.extend_from_slice(b"{\"kind\":");
    word(out, callout_kind(c.kind));
    out.extend_from_slice(b",\"text\":");
    string(out, &c.text);
    out.extend_from_slice(b",\"line\":");
    number(out, c.line);
    out.push(b'}');
}

fn checklist_item(out: &mut Vec<u8>, c: &ChecklistItem) {
    out.extend_from_slice(b"{\"text\":");
    string(out, &c.text);
    out.extend_from_slice(match c.checked {
        None => b",\"checked\":null".as_slice(),
        Some(true) => b",\"checked\":true",
        Some(false) => b",\"checked\":false",
    });
    out.extend_from_slice(b",\"line\":");
    number(out, c.line);
    out.push(b'}');
}

fn probe(out: &mut Vec<u8>, p: &Probe) {
    out.extend_from_slice(b"{\"lang\":");
    word(out, lang(p.lang));
    if !p.attrs.is_empty() {
        out.extend_from_slice(b",\"attrs\":");
        map(out, &p.attrs, |out, v| string(out, v));
    }
    out.extend_from_slice(b",\"code\":");
    string(out, &p.code);
    out.extend_from_slice(b",\"source\":");
    string(out, &p.source);
    out.extend_from_slice(b",\"expected_output\":");
    string(out, &p.expected_output);
    out.extend_from_slice(b",\"runs_in\":");
    match &p.runs_in {
        Some(r) => runs_in(out, r),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"line\":");
    number(out, p.line);
    out.extend_from_slice(b",\"vars\":");
    list(out, &p.vars, |out, s| string(out, s));
    out.extend_from_slice(b",\"assigns\":");
    list(out, &p.assigns, |out, s| string(out, s));
    out.extend_from_slice(b",\"hints\":");
    hints(out, &p.hints);
    if let Some(s) = p.safety {
        out.extend_from_slice(b",\"safety\":");
        word(out, s.as_str());
    }
    out.push(b'}');
}

fn runs_in(out: &mut Vec<u8>, r: &RunsIn) {
    out.extend_from_slice(b"{\"kind\":");
    word(out, r.kind.as_str());
    out.extend_from_slice(b",\"via\":");
    string(out, &r.via);
    out.extend_from_slice(b",\"target\":");
    string(out, &r.target);
    if let Some(c) = r.console {
        out.extend_from_slice(b",\"console\":");
        word(out, c.as_str());
    }
    out.push(b'}');
}

fn hints(out: &mut Vec<u8>, h: &BackendHints) {
    out.push(b'{');
    let mut first = true;
    let fields = [
        ("kube_context", &h.kube_context),
        ("namespace", &h.namespace),
        ("kusto_cluster", &h.kusto_cluster),
        ("kusto_database", &h.kusto_database),
    ];
    for (key, value) in fields {
        if let Some(v) = value {
            if !first {
                out.push(b',');
            }
            first = false;
            word(out, key);
            out.push(b':');
            string(out, v);
        }
    }
    out.push(b'}');
}

fn edge(out: &mut Vec<u8>, e: &Edge, holes: &mut Vec<Hole>) {
    out.extend_from_slice(b"{\"to\":");
    target(out, &e.to, holes);
    out.extend_from_slice(b",\"kind\":");
    word(out, edge_kind(e.kind));
    if !e.label.is_empty() {
        out.extend_from_slice(b",\"label\":");
        string(out, &e.label);
    }
    out.push(b'}');
}

fn route(out: &mut Vec<u8>, r: &Route, holes: &mut Vec<Hole>) {
    out.extend_from_slice(b"{\"alert\":");
    string(out, &r.alert);
    out.extend_from_slice(b",\"to\":");
    target(out, &r.to, holes);
    out.extend_from_slice(b",\"by\":");
    word(out, r.by.as_str());
    out.push(b'}');
}

fn escalation(out: &mut Vec<u8>, e: &Escalation) {
    out.extend_from_slice(b"{\"team\":");
    string(out, &e.team);
    if !e.trigger.is_empty() {
        out.extend_from_slice(b",\"trigger\":");
        string(out, &e.trigger);
    }
    if !e.channel.is_empty() {
        out.extend_from_slice(b",\"channel\":");
        string(out, &e.channel);
    }
    out.extend_from_slice(b",\"evidence\":");
    list(out, &e.evidence, |out, s| string(out, s));
    out.push(b'}');
}

/// The names serde gives these enums (`rename_all` on each).
fn callout_kind(k: CalloutKind) -> &'static str {
    match k {
        CalloutKind::Risk => "risk",
        CalloutKind::Gotcha => "gotcha",
        CalloutKind::Warning => "warning",
        CalloutKind::Caution => "caution",
        CalloutKind::Important => "important",
        CalloutKind::Note => "note",
        CalloutKind::Tip => "tip",
        CalloutKind::Quote => "quote",
    }
}

fn lang(l: Lang) -> &'static str {
    match l {
        Lang::Shell => "shell",
        Lang::Promql => "promql",
        Lang::Kql => "kql",
        Lang::Http => "http",
        Lang::Text => "text",
    }
}

fn edge_kind(k: EdgeKind) -> &'static str {
    match k {
        EdgeKind::Route => "route",
        EdgeKind::Branch => "branch",
        EdgeKind::Link => "link",
        EdgeKind::Ref => "ref",
        EdgeKind::Next => "next",
    }
}

/// A node target: a hole when it names no anchor (it may name another guide).
fn target(out: &mut Vec<u8>, to: &str, holes: &mut Vec<Hole>) {
    let start = out.len();
    string(out, to);
    if !to.contains('#') {
        holes.push(Hole {
            start,
            end: out.len(),
            to: to.to_string(),
        });
    }
}

fn list<T>(out: &mut Vec<u8>, items: &[T], mut each: impl FnMut(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        each(out, item);
    }
    out.push(b']');
}

fn map<V>(out: &mut Vec<u8>, m: &BTreeMap<String, V>, mut value: impl FnMut(&mut Vec<u8>, &V)) {
    out.push(b'{');
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, k);
        out.push(b':');
        value(out, v);
    }
    out.push(b'}');
}

fn opt_string(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => string(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// A string known to need no escaping (a key or an enum's name).
fn word(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
}

fn number(out: &mut Vec<u8>, n: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        // `n % 10` is below 10, so the cast keeps it whole.
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// `s` as a JSON string, escaped exactly as serde_json escapes (the short forms for `\b \t \n
/// \f \r`, `\u00xx` with lower-case hex for the other control characters, `\"` and `\\`).
pub fn string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // Runs of clean bytes are copied whole, found eight bytes at a time after every escape
    // (code blocks have a newline every few dozen bytes).
    let (mut from, mut i) = (0, 0);
    while i < bytes.len() {
        i = super::swar::next_json_escape(bytes, i);
        let Some(&b) = bytes.get(i) else {
            break;
        };
        i += 1;
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\t' => b"\\t",
            b'\r' => b"\\r",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[from..i - 1]);
        from = i;
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(short);
        }
    }
    out.extend_from_slice(&bytes[from..]);
    out.push(b'"');
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
