//! Raw sections → a `Guide`: node ids, parents, roles, fields, callouts, checklists, probes.
//! Tables, escalations and edges are added by `tables` and `edges`. Pure; must not import IO.

use std::ops::Range;

use super::body::Body;
use super::model::{Callout, CalloutKind, ChecklistItem, FrontMatter, Node, Role, RunsIn};
use super::raw::{RawCode, RawDoc, RawQuote, RawSection};
use super::roles::Synonyms;
use super::slug::Slugger;
use super::text::field_key;

fn callout_kind(q: &RawQuote) -> CalloutKind {
    let from_word = |w: &str| {
        let w = w.to_lowercase();
        let w = w.trim_start_matches("[!").trim_end_matches(']');
        match () {
            _ if w.starts_with("risk") || w.starts_with("danger") => Some(CalloutKind::Risk),
            _ if w.starts_with("gotcha") => Some(CalloutKind::Gotcha),
            _ if w.starts_with("warning") => Some(CalloutKind::Warning),
            _ if w.starts_with("caution") => Some(CalloutKind::Caution),
            _ if w.starts_with("important") => Some(CalloutKind::Important),
            _ if w.starts_with("note") => Some(CalloutKind::Note),
            _ if w.starts_with("tip") => Some(CalloutKind::Tip),
            _ => None,
        }
    };
    if let Some(k) = q.gfm_kind.as_deref().and_then(from_word) {
        return k;
    }
    // `>[!NOTE]` written without the space, or a parser that did not tag it.
    if let Some(rest) = q.text.trim_start().strip_prefix("[!") {
        if let Some(k) = from_word(rest.split(']').next().unwrap_or("")) {
            return k;
        }
    }
    q.label
        .as_ref()
        .and_then(|l| from_word(&l.text))
        .unwrap_or(CalloutKind::Quote)
}

fn callout_text(q: &RawQuote) -> String {
    let t = q.text.trim();
    match t.strip_prefix("[!") {
        Some(rest) => rest
            .split_once(']')
            .map(|(_, r)| r.trim())
            .unwrap_or(t)
            .to_string(),
        None => t.to_string(),
    }
}

/// Builds the nodes of one guide from its raw sections; each section's text is made by `leave`
/// from its byte range in `src`, or copied when `leave` gives none.
pub fn nodes(
    path: &str,
    src: &str,
    doc: &RawDoc,
    synonyms: &Synonyms,
    leave: &dyn Fn(Range<usize>) -> Option<Body>,
) -> Vec<Node> {
    let body = |r: Range<usize>| match src.get(r.clone()) {
        Some(text) => leave(r).unwrap_or_else(|| text.into()),
        None => Body::default(),
    };
    // The line of the last byte, as `LineIndex` counts: one more than the newlines.
    let total_lines = doc.lines;
    let sections: Vec<&RawSection> = doc.sections.iter().filter(|s| s.level > 0).collect();
    let mut slugger = Slugger::with_capacity(sections.len());
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let mut nodes: Vec<Node> = Vec::with_capacity(sections.len());
    let preamble = doc.sections.first().filter(|s| s.level == 0);
    let mut console: Option<RunsIn> = None;
    for (i, s) in sections.iter().enumerate() {
        while stack.last().is_some_and(|(lvl, _)| *lvl >= s.level) {
            stack.pop();
        }
        let parent = stack.last().map(|(_, idx)| *idx);
        let role = synonyms.infer(&s.title, parent.map(|p| nodes[p].role));
        let end = sections.get(i + 1).map(|n| n.start).unwrap_or(src.len());
        let end_line = sections
            .get(i + 1)
            .map(|n| n.line.saturating_sub(1))
            .unwrap_or(total_lines);
        // The slug is written once, into the id (`Node::slug` reads it back from there).
        let mut id = String::with_capacity(path.len() + 1 + s.title.len());
        id.push_str(path);
        id.push('#');
        slugger.push_unique(&s.title, &mut id);
        let mut node = Node {
            id,
            title: s.title.clone(),
            level: s.level,
            role,
            parent: parent.map(|p| nodes[p].id.clone()),
            line: s.line,
            end_line,
            body: body(s.body_start.min(end)..end),
            ..Node::default()
        };
        fill(&mut node, s, &mut console);
        stack.push((s.level, nodes.len()));
        nodes.push(node);
    }
    if nodes.is_empty() && !src.trim().is_empty() {
        // A file with text but no heading at all is one node named after the file.
        let title = path
            .rsplit('/')
            .next()
            .unwrap_or(path)
            .trim_end_matches(".md")
            .to_string();
        let mut node = Node {
            id: format!("{path}#"),
            title,
            level: 1,
            line: 1,
            end_line: total_lines,
            body: body(0..src.len()),
            ..Node::default()
        };
        if let Some(s) = preamble {
            fill(&mut node, s, &mut None);
        }
        nodes.push(node);
    }
    nodes
}

fn fill(node: &mut Node, s: &RawSection, console: &mut Option<RunsIn>) {
    let top_items = s
        .items
        .iter()
        .filter(|i| i.depth == 0 || node.role == Role::Escalation);
    for p in s.paras.iter().chain(top_items.map(|i| &i.para)) {
        if let Some(label) = p.label.as_ref().filter(|l| l.colon && l.text.len() <= 40) {
            let key = field_key(&label.text);
            if key.is_empty() {
                continue;
            }
            let slot = node.fields.entry(key).or_default();
            if !slot.is_empty() && !p.value.is_empty() {
                slot.push('\n');
            }
            slot.push_str(&p.value);
        }
    }
    for q in &s.quotes {
        let kind = callout_kind(q);
        node.callouts.push(Callout {
            kind,
            text: callout_text(q),
            line: q.line,
        });
    }
    for item in &s.items {
        let validation = node.role == Role::Validation && item.depth == 0;
        if (item.checked.is_some() || validation) && !item.para.text.is_empty() {
            node.checklist.push(ChecklistItem {
                text: item.para.text.clone(),
                checked: item.checked,
                line: item.para.line,
            });
        }
    }
    // The prose before each block may say where it runs or that it is output.
    let prose: Vec<(usize, &str)> = if s.codes.is_empty() {
        Vec::new()
    } else {
        let mut v: Vec<(usize, &str)> = s
            .paras
            .iter()
            .chain(s.items.iter().map(|i| &i.para))
            .map(|p| (p.line, p.text.as_str()))
            .collect();
        v.sort_by_key(|p| p.0);
        v
    };
    node.probes = super::shells::section_probes(&with_inline_commands(s), &prose, console);
}

/// Command-line tools whose inline code in a bullet (`` `kubectl -n x get pods` ``) is a probe.
const INLINE_CLIS: &[&str] = &[
    "kubectl",
    "oc",
    "az",
    "helm",
    "curl",
    "journalctl",
    "systemctl",
    "etcdctl",
    "crictl",
    "podman",
    "hcpctl",
    "promtool",
];

/// The section's blocks plus one per bullet's inline command, in line order. A command needs
/// a verb and something to act on (`kubectl get pods`): prose that names a bare command
/// ("`oc logs`/`oc exec` break") is not a probe.
/// Most sections have no such bullet: their blocks are borrowed, not copied.
fn with_inline_commands(s: &RawSection) -> std::borrow::Cow<'_, [RawCode]> {
    let inline = |c: &String| {
        let mut words = c.split_whitespace();
        let cli = words.next().unwrap_or("");
        INLINE_CLIS.contains(&cli) && words.count() >= 2
    };
    if !s.items.iter().any(|i| i.para.codes.iter().any(inline)) {
        return std::borrow::Cow::Borrowed(&s.codes);
    }
    let mut codes = s.codes.clone();
    for item in &s.items {
        for c in &item.para.codes {
            let mut words = c.split_whitespace();
            let cli = words.next().unwrap_or("");
            if INLINE_CLIS.contains(&cli) && words.count() >= 2 {
                codes.push(RawCode {
                    info: "sh".into(),
                    code: c.trim().to_string(),
                    line: item.para.line,
                    fenced: true,
                });
            }
        }
    }
    if codes.len() != s.codes.len() {
        codes.sort_by_key(|c| c.line);
    }
    std::borrow::Cow::Owned(codes)
}

/// Keys tsgnav reads from front matter.
const KNOWN_KEYS: &[&str] = &["title", "alerts", "owners", "inputs", "template"];

/// An unknown top-level key one letter away from a known one (`alert:` for `alerts:`) is a
/// typo worth reporting; any other unknown key (Hugo, Jekyll) is fine.
fn near_miss_key(text: &str, first_line: usize) -> Option<(usize, String)> {
    let close = |a: &str, b: &str| {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let (short, long) = if a.len() <= b.len() {
            (&a, &b)
        } else {
            (&b, &a)
        };
        match long.len() - short.len() {
            0 => {
                short
                    .iter()
                    .zip(long.iter())
                    .filter(|(x, y)| x != y)
                    .count()
                    == 1
            }
            1 => (0..long.len()).any(|skip| {
                long.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != skip)
                    .map(|(_, c)| c)
                    .eq(short.iter())
            }),
            _ => false,
        }
    };
    for (i, l) in super::swar::lines(text).enumerate() {
        let Some((key, _)) = l.split_once(':') else {
            continue;
        };
        if key.starts_with([' ', '\t', '#', '-']) || key.contains(' ') {
            continue;
        }
        if KNOWN_KEYS.contains(&key) {
            continue;
        }
        if let Some(known) = KNOWN_KEYS.iter().find(|k| close(key, k)) {
            return Some((
                first_line + i,
                format!("unknown key `{key}`: did you mean `{known}`? (tsgnav reads {}; other keys are ignored)", KNOWN_KEYS.join(", ")),
            ));
        }
    }
    None
}

/// Parses the YAML front matter; an error names the line and the problem.
pub fn front_matter(doc: &RawDoc) -> Result<Option<FrontMatter>, (usize, String)> {
    let Some((text, line)) = doc.front_matter.as_ref() else {
        return Ok(None);
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    if let Some(problem) = near_miss_key(text, *line) {
        return Err(problem);
    }
    yaml_serde::from_str::<FrontMatter>(text)
        .map(Some)
        .map_err(|e| {
            let at = e
                .location()
                .map(|l| line + l.line().saturating_sub(1))
                .unwrap_or(*line);
            (at, e.to_string())
        })
}

/// Title: front matter, else the first H1, else the first heading, else the file name.
pub fn title(path: &str, fm: Option<&FrontMatter>, nodes: &[Node]) -> String {
    fm.and_then(|f| f.title.clone())
        .or_else(|| nodes.iter().find(|n| n.level == 1).map(|n| n.title.clone()))
        .or_else(|| nodes.first().map(|n| n.title.clone()))
        .unwrap_or_else(|| path.to_string())
}
