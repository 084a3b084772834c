//! The text of one block as the walk gathers it (a paragraph, an item, a heading, a cell or a
//! quote), with its bold label, links and code spans, and the Hugo shortcode links found in
//! it. Pure; must not import IO.

use super::super::raw::{Label, RawPara};
use super::super::text::is_blank;

/// Text being gathered for one block, with bold-label tracking.
#[derive(Debug, Default)]
pub(super) struct Buf {
    pub(super) text: String,
    label: LabelState,
    pub(super) links: Vec<usize>,
    pub(super) codes: Vec<String>,
    pub(super) line: usize,
}

#[derive(Debug, Default)]
enum LabelState {
    #[default]
    Fresh,
    InStrong(String),
    Labeled(Label, usize, bool),
    Plain,
}

impl Buf {
    /// A buffer for a block whose markdown is `len` bytes: its text is at most that long.
    pub(super) fn sized(line: usize, len: usize) -> Self {
        Buf {
            text: String::with_capacity(len),
            line,
            ..Buf::default()
        }
    }

    pub(super) fn push(&mut self, t: &str) {
        match &mut self.label {
            LabelState::Fresh if !is_blank(t) => self.label = LabelState::Plain,
            LabelState::InStrong(s) => s.push_str(t),
            LabelState::Labeled(l, _, pending) if *pending && !is_blank(t) => {
                l.colon = t.trim_start().starts_with(':');
                *pending = false;
            }
            _ => {}
        }
        self.text.push_str(t);
    }

    pub(super) fn strong(&mut self, start: bool) {
        match std::mem::take(&mut self.label) {
            LabelState::Fresh if start => self.label = LabelState::InStrong(String::new()),
            LabelState::InStrong(s) if !start => {
                let colon = s.trim_end().ends_with(':');
                let label = Label {
                    text: s.trim().trim_end_matches(':').trim().to_string(),
                    colon,
                };
                self.label = LabelState::Labeled(label, self.text.len(), !colon);
            }
            other => self.label = other,
        }
    }

    pub(super) fn into_para(self) -> RawPara {
        // Most paragraphs are squashed as they come (pulldown-cmark joins lines with a soft
        // break, which is a space here): then a label's value, a suffix of that text, is
        // squashed too but for one leading space, and is not read again byte by byte.
        let squashed = super::super::text::is_squashed(&self.text);
        let (label, value) = match self.label {
            LabelState::Labeled(l, end, _) => {
                let rest = self.text.get(end..).unwrap_or("");
                let rest = rest.trim_start().trim_start_matches(':');
                let value = if squashed {
                    rest.trim_start().to_string()
                } else {
                    super::super::text::squash(rest)
                };
                (Some(l), value)
            }
            _ => (None, String::new()),
        };
        let text = if squashed {
            self.text
        } else {
            super::super::text::squash(&self.text)
        };
        RawPara {
            label,
            value,
            text,
            line: self.line,
            links: self.links,
            codes: self.codes,
        }
    }
}

/// The targets of Hugo `ref`/`relref` shortcodes in `text`.
pub(super) fn hugo_refs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        rest = &rest[i + 2..];
        let inner = rest.trim_start_matches(['<', '%', ' ']);
        let Some(after) = inner
            .strip_prefix("relref")
            .or_else(|| inner.strip_prefix("ref"))
        else {
            continue;
        };
        let after = after.trim_start();
        let Some(q) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        if let Some(end) = after[1..].find(q) {
            let dest = after[1..1 + end].trim();
            if !dest.is_empty() {
                out.push(dest.to_string());
            }
        }
    }
    out
}
