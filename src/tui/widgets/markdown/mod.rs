//! A node's markdown → styled, wrapped lines for one width: headings, emphasis, lists,
//! tables, callouts styled by kind, code blocks with language and safety badge, and the
//! probe results shown under them. Pure (pulldown-cmark events in, lines out); no IO.

mod tags;

use pulldown_cmark::{Event, Options, Parser};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::wrap::{width, wrap};
use crate::tsg::{Probe, SafetyClass};
use crate::tui::app::ProbeResult;
use crate::tui::theme::Theme;

/// A probe as the node pane shows it.
pub struct ProbeView<'a> {
    pub probe: &'a Probe,
    pub class: SafetyClass,
    pub result: Option<&'a ProbeResult>,
    /// What the probe printed so far while it runs (shown instead of an earlier result).
    pub streaming: Option<&'a crate::tui::state::Streaming>,
    /// "ran 03:12:09 with NODE=aks-1", with "STALE: …" when a value changed since.
    pub stamp: crate::tui::stamp::Stamp,
    /// The session is not isolated: the header of a shell probe says so.
    pub not_isolated: bool,
}

pub use super::code::{badge, badge_style};

struct R<'t, 'p> {
    theme: &'t Theme,
    width: usize,
    out: Vec<Line<'static>>,
    spans: Vec<Span<'static>>,
    styles: Vec<Style>,
    lists: Vec<Option<u64>>,
    item_first: bool,
    quote: Option<Style>,
    quote_pending: bool,
    code: Option<(String, String)>,
    table: Vec<Vec<String>>,
    cell: String,
    in_table: bool,
    probes: &'p [ProbeView<'p>],
    used: Vec<bool>,
    /// (probe index, row) where each probe's drawn result starts.
    outputs: Vec<(usize, usize)>,
}

/// Renders `body` at `width` columns.
pub fn render(
    body: &str,
    width: u16,
    theme: &Theme,
    probes: &[ProbeView<'_>],
) -> Vec<Line<'static>> {
    render_outputs(body, width, theme, probes).0
}

/// [`render`], with the row where each probe's result starts (probe index, row), so that the
/// pane can bring a result that just came in into view.
pub fn render_outputs(
    body: &str,
    width: u16,
    theme: &Theme,
    probes: &[ProbeView<'_>],
) -> (Vec<Line<'static>>, Vec<(usize, usize)>) {
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_GFM;
    let mut r = R {
        theme,
        width: usize::from(width.max(10)),
        out: Vec::new(),
        spans: Vec::new(),
        styles: Vec::new(),
        lists: Vec::new(),
        item_first: false,
        quote: None,
        quote_pending: false,
        code: None,
        table: Vec::new(),
        cell: String::new(),
        in_table: false,
        probes,
        used: vec![false; probes.len()],
        outputs: Vec::new(),
    };
    for ev in Parser::new_ext(body, opts) {
        r.event(ev);
    }
    r.flush();
    while r.out.last().is_some_and(|l| l.width() == 0) {
        r.out.pop();
    }
    (r.out, r.outputs)
}

impl R<'_, '_> {
    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(self.quote.unwrap_or_default(), |a, s| a.patch(*s))
    }
    fn blank(&mut self) {
        if self.out.last().is_some_and(|l| l.width() > 0) {
            self.out.push(Line::default());
        }
    }
    fn prefix(&self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut first = Vec::new();
        let mut rest = Vec::new();
        if let Some(q) = self.quote {
            first.push(Span::styled("▌ ", q));
            rest.push(Span::styled("▌ ", q));
        }
        let depth = self.lists.len();
        if depth > 0 {
            let indent = "  ".repeat(depth - 1);
            let bullet = match self.lists.last().copied().flatten() {
                Some(n) => format!("{n}. "),
                None => "• ".to_string(),
            };
            let pad = " ".repeat(width(&bullet));
            if self.item_first {
                first.push(Span::raw(format!("{indent}{bullet}")));
            } else {
                first.push(Span::raw(format!("{indent}{pad}")));
            }
            rest.push(Span::raw(format!("{indent}{pad}")));
        }
        (first, rest)
    }
    fn flush(&mut self) {
        if self.spans.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.spans);
        let (first, rest) = self.prefix();
        self.out.extend(wrap(&spans, self.width, &first, &rest));
        self.item_first = false;
    }
    fn text(&mut self, s: &str, style: Style) {
        if self.in_table {
            self.cell.push_str(s);
        } else if let Some((_, code)) = self.code.as_mut() {
            code.push_str(s);
        } else {
            if self.quote_pending {
                self.quote_pending = false;
                self.quote = Some(self.callout(s));
            }
            let style = self.quote.unwrap_or_default().patch(style);
            self.spans.push(Span::styled(s.to_string(), style));
        }
    }
    fn callout(&self, first: &str) -> Style {
        let w = first.trim().trim_end_matches(':').to_ascii_lowercase();
        let key = match w.as_str() {
            "risk" => "risk",
            "warning" => "warning",
            "caution" => "caution",
            "gotcha" => "gotcha",
            "important" => "important",
            "note" => "note",
            "tip" => "tip",
            _ => "quote",
        };
        self.theme.get(&format!("callout.{key}"))
    }
    fn event(&mut self, ev: Event<'_>) {
        let t = self.theme;
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(s) => self.text(&s, self.style()),
            Event::Code(s) => {
                let st = self.style().patch(t.get("md.code"));
                self.text(&s, st);
            }
            Event::SoftBreak => self.text(" ", self.style()),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.flush();
                self.out.push(Line::styled(
                    "─".repeat(self.width.min(60)),
                    t.get("md.rule"),
                ));
            }
            Event::TaskListMarker(done) => {
                self.text(if done { "[x] " } else { "[ ] " }, self.style())
            }
            Event::Html(s) | Event::InlineHtml(s) => match details_title(&s) {
                // `<details><summary>T</summary>` is a titled block: show the title only.
                Some(title) if title.is_empty() => {}
                Some(title) => {
                    self.flush();
                    let style = t.get("md.strong");
                    self.out.push(Line::styled(format!("▸ {title}"), style));
                }
                None => self.text(&s, t.get("ui.dim")),
            },
            _ => {}
        }
    }

    fn code_block(&mut self, info: &str, code: &str) {
        let idx = self
            .probes
            .iter()
            .enumerate()
            .position(|(i, p)| !self.used[i] && p.probe.source.trim() == code.trim());
        if let Some(i) = idx {
            self.used[i] = true;
        }
        let probe = idx.and_then(|i| self.probes.get(i).map(|p| (i, p)));
        let start = self.out.len();
        super::code::render(info, code, self.width, self.theme, probe, &mut self.out);
        if let Some((i, _)) = probe.filter(|(_, p)| p.result.is_some()) {
            // The result follows the block's closing `└─` row.
            let end = self.out[start..]
                .iter()
                .position(|l| l.spans.first().is_some_and(|s| s.content == "└─"));
            if let Some(e) = end {
                self.outputs.push((i, start + e + 1));
            }
        }
    }
}

/// For HTML made only of `<details>`/`<summary>` tags: the summary text (empty when there is
/// none). `None` for any other HTML, which is shown as written.
fn details_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    if !(lower.contains("details") || lower.contains("summary>")) {
        return None;
    }
    let title = match (lower.find("<summary>"), lower.find("</summary>")) {
        (Some(a), Some(b)) if b > a => html[a + 9..b].trim().to_string(),
        _ => String::new(),
    };
    let mut rest = lower.clone();
    for tag in ["<details open>", "<details>", "</details>", "</summary>"] {
        rest = rest.replace(tag, "");
    }
    if let (Some(a), Some(b)) = (rest.find("<summary>"), rest.find("</summary>")) {
        rest.replace_range(a..b, "");
    }
    let rest = rest.replace("<summary>", "");
    let leftover = rest.replace(&title.to_ascii_lowercase(), "");
    leftover.trim().is_empty().then_some(title)
}

#[cfg(test)]
mod details_tests {
    use super::details_title;

    #[test]
    fn details_and_summary_become_a_title() {
        assert_eq!(
            details_title("<details>\n<summary>Largest folders</summary>\n").as_deref(),
            Some("Largest folders")
        );
        assert_eq!(details_title("</details>\n").as_deref(), Some(""));
        assert_eq!(details_title("<div>x</div>"), None);
    }
}
