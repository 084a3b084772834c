//! The markdown walk: one pass over pulldown-cmark events that sorts text, labels, links,
//! tables, quotes and fences into per-section raw blocks. Pure; must not import IO.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::raw::{Cell, RawCode, RawDoc, RawItem, RawLink, RawQuote, RawSection, RawTable};
use super::text::LineCounter;

mod buf;
use buf::{hugo_refs, Buf};

#[derive(Default)]
struct Walker {
    doc: RawDoc,
    heading: Option<(Buf, u8, usize, Vec<RawLink>)>,
    para: Option<Buf>,
    items: Vec<(usize, Buf, Option<bool>)>,
    quote_depth: usize,
    quote: Option<(Buf, Option<String>)>,
    table: Option<(RawTable, bool, Vec<Cell>)>,
    cell: Option<Buf>,
    code: Option<RawCode>,
    link: Option<RawLink>,
    meta: Option<(String, usize)>,
}

/// Walks `src` and returns its raw sections. Never panics; nesting depth costs only heap.
pub fn walk(src: &str) -> RawDoc {
    let mut lines = LineCounter::new(src);
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_GFM;
    let mut w = Walker::default();
    w.doc.sections.push(RawSection::default());
    for (ev, range) in Parser::new_ext(src, opts).into_offset_iter() {
        match ev {
            // Only a block's start needs its line (counted from the block before's start,
            // as the starts come in order): an end or a text event would go back.
            Event::Start(tag) => {
                let line = lines.line(range.start);
                // An item's markdown holds its nested lists and code blocks, which go to
                // buffers of their own: its text is sized by its first line (and grows if
                // the item goes on), not by all it holds at every depth.
                let range = match tag {
                    Tag::Item => first_line(src, range),
                    _ => range,
                };
                w.start(tag, line, range)
            }
            Event::End(tag) => w.end(tag, range.end),
            Event::Text(t) => w.text(&t, false),
            Event::Code(t) => w.text(&t, true),
            Event::SoftBreak | Event::HardBreak => w.text(" ", false),
            Event::InlineHtml(h) if h.trim().eq_ignore_ascii_case("<br>") => w.text("\n", false),
            Event::TaskListMarker(done) => {
                if let Some(item) = w.items.last_mut() {
                    item.2 = Some(done);
                }
            }
            _ => {}
        }
    }
    w.doc.lines = lines.line(src.len());
    w.doc
}

/// The part of `range` up to its first line's end.
fn first_line(src: &str, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let within = src.as_bytes().get(range.clone()).unwrap_or_default();
    match memchr::memchr(b'\n', within) {
        Some(n) => range.start..range.start + n,
        None => range,
    }
}

impl Walker {
    fn section(&mut self) -> &mut RawSection {
        if self.doc.sections.is_empty() {
            self.doc.sections.push(RawSection::default());
        }
        let last = self.doc.sections.len() - 1;
        &mut self.doc.sections[last]
    }

    fn target(&mut self) -> Option<&mut Buf> {
        if let Some((b, _, _, _)) = self.heading.as_mut() {
            return Some(b);
        }
        if let Some((b, _)) = self.quote.as_mut() {
            return Some(b);
        }
        if self.quote_depth > 0 {
            return None;
        }
        if let Some(b) = self.cell.as_mut() {
            return Some(b);
        }
        if let Some((_, b, _)) = self.items.last_mut() {
            return Some(b);
        }
        self.para.as_mut()
    }

    fn text(&mut self, t: &str, code: bool) {
        if let Some(c) = self.code.as_mut() {
            c.code.push_str(t);
            return;
        }
        if let Some(m) = self.meta.as_mut() {
            m.0.push_str(t);
            return;
        }
        if let Some(l) = self.link.as_mut() {
            l.text.push_str(t);
        }
        if let Some(b) = self.target() {
            if code {
                b.codes.push(t.to_string());
                b.push("`");
                b.push(t);
                b.push("`");
            } else {
                b.push(t);
            }
        }
    }

    /// A block starts; `range` is its markdown (so its text fits in that many bytes).
    fn start(&mut self, tag: Tag, line: usize, range: std::ops::Range<usize>) {
        let (offset, len) = (range.start, range.len());
        match tag {
            Tag::Heading { level, .. } => {
                self.heading = Some((Buf::sized(line, len), level as u8, offset, Vec::new()))
            }
            Tag::Paragraph if self.quote_depth == 0 && self.items.is_empty() => {
                self.para = Some(Buf::sized(line, len))
            }
            Tag::Item => {
                let idx = self.section().items.len();
                self.section().items.push(RawItem::default());
                self.items.push((idx, Buf::sized(line, len), None));
            }
            Tag::BlockQuote(kind) => {
                self.quote_depth += 1;
                if self.quote_depth == 1 {
                    let gfm = kind.map(|k| format!("{k:?}").to_ascii_uppercase());
                    self.quote = Some((Buf::sized(line, len), gfm));
                }
            }
            Tag::Table(_) => self.table = Some((RawTable::default(), false, Vec::new())),
            Tag::TableHead => {
                if let Some(t) = self.table.as_mut() {
                    t.1 = true;
                }
            }
            Tag::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    t.0.rows.push((line, Vec::new()));
                }
            }
            Tag::TableCell => self.cell = Some(Buf::sized(line, len)),
            Tag::Strong => {
                if let Some(b) = self.target() {
                    b.strong(true);
                }
            }
            Tag::CodeBlock(kind) => {
                let (info, fenced) = match kind {
                    CodeBlockKind::Fenced(info) => (String::from(&*info), true),
                    CodeBlockKind::Indented => (String::new(), false),
                };
                let first = if fenced { line + 1 } else { line };
                self.code = Some(RawCode {
                    info,
                    code: String::with_capacity(len),
                    line: first,
                    fenced,
                });
            }
            Tag::Link { dest_url, .. } => {
                // `[text](dest)`: the text fits in what the markdown holds besides the dest.
                let room = len.saturating_sub(dest_url.len() + 4).max(8);
                self.link = Some(RawLink {
                    // Copied as a `str`: `CowStr`'s `to_string` goes through `Display`.
                    dest: String::from(&*dest_url),
                    text: String::with_capacity(room),
                    line,
                })
            }
            Tag::MetadataBlock(_) => self.meta = Some((String::new(), line + 1)),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd, offset: usize) {
        match tag {
            TagEnd::Heading(_) => self.end_heading(offset),
            TagEnd::Paragraph => {
                if let Some(mut b) = self.para.take() {
                    self.hugo_links(&mut b);
                    let p = b.into_para();
                    self.section().paras.push(p);
                }
            }
            TagEnd::Item => {
                if let Some((idx, mut b, checked)) = self.items.pop() {
                    self.hugo_links(&mut b);
                    let parent = self.items.last().map(|i| i.0);
                    let depth = self.items.len();
                    if let Some(slot) = self.section().items.get_mut(idx) {
                        *slot = RawItem {
                            para: b.into_para(),
                            checked,
                            depth,
                            parent,
                        };
                    }
                }
            }
            TagEnd::BlockQuote(_) => {
                self.quote_depth = self.quote_depth.saturating_sub(1);
                if self.quote_depth == 0 {
                    if let Some((b, gfm_kind)) = self.quote.take() {
                        let p = b.into_para();
                        let q = RawQuote {
                            gfm_kind,
                            label: p.label,
                            text: p.text,
                            line: p.line,
                        };
                        self.section().quotes.push(q);
                    }
                }
            }
            TagEnd::TableCell => {
                if let (Some(b), Some(t)) = (self.cell.take(), self.table.as_mut()) {
                    let cell = Cell {
                        text: super::text::squash_owned(b.text),
                        codes: b.codes,
                        links: b.links,
                    };
                    match (t.1, t.0.rows.last_mut()) {
                        (true, _) => t.2.push(cell),
                        (false, Some(row)) => row.1.push(cell),
                        (false, None) => {}
                    }
                }
            }
            TagEnd::TableHead => {
                if let Some(t) = self.table.as_mut() {
                    t.1 = false;
                    t.0.header = std::mem::take(&mut t.2);
                    t.0.lower = t.0.header.iter().map(|c| c.text.to_lowercase()).collect();
                }
            }
            TagEnd::Table => {
                if let Some((t, _, _)) = self.table.take() {
                    self.section().tables.push(t);
                }
            }
            TagEnd::Strong => {
                if let Some(b) = self.target() {
                    b.strong(false);
                }
            }
            TagEnd::CodeBlock => {
                if let Some(c) = self.code.take() {
                    self.section().codes.push(c);
                }
            }
            TagEnd::Link => {
                if let Some(l) = self.link.take() {
                    if let Some(h) = self.heading.as_mut() {
                        h.3.push(l);
                        return;
                    }
                    let idx = self.section().links.len();
                    self.section().links.push(l);
                    if let Some(b) = self.target() {
                        b.links.push(idx);
                    }
                }
            }
            TagEnd::MetadataBlock(_) => self.doc.front_matter = self.meta.take(),
            _ => {}
        }
    }

    /// Hugo shortcode links in the text (`{{< ref "x.md" >}}`, `{{< relref "x.md#a" >}}`,
    /// `{{% ref "…" %}}`) become links of the section, like `[x](x.md)`.
    fn hugo_links(&mut self, b: &mut Buf) {
        // A byte search for `{`, then its neighbour: most paragraphs have no brace at all,
        // and a substring search costs its set-up at every call.
        let t = b.text.as_bytes();
        if !memchr::memchr_iter(b'{', t).any(|i| t.get(i + 1) == Some(&b'{')) {
            return;
        }
        for dest in hugo_refs(&b.text) {
            let idx = self.section().links.len();
            self.section().links.push(RawLink {
                dest: dest.clone(),
                text: dest,
                line: b.line,
            });
            b.links.push(idx);
        }
    }

    fn end_heading(&mut self, offset: usize) {
        if let Some((b, level, start, links)) = self.heading.take() {
            let p = b.into_para();
            let section = RawSection {
                title: p.text,
                level,
                line: p.line,
                body_start: offset,
                start,
                links,
                ..RawSection::default()
            };
            self.doc.sections.push(section);
        }
    }
}
