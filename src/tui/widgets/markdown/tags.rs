//! Block and inline tags of the markdown renderer: what starts and ends a heading, quote,
//! callout, list, table or code block. Pure; no IO.

use pulldown_cmark::{BlockQuoteKind, CodeBlockKind, HeadingLevel, Tag, TagEnd};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::R;

impl R<'_, '_> {
    pub(super) fn start(&mut self, tag: Tag<'_>) {
        let t = self.theme;
        match tag {
            Tag::Heading { level, .. } => {
                self.flush();
                self.blank();
                let key = match level {
                    HeadingLevel::H1 => "md.h1",
                    HeadingLevel::H2 => "md.h2",
                    _ => "md.h3",
                };
                self.styles.push(t.get(key));
            }
            Tag::Paragraph => self.flush(),
            Tag::Emphasis => self.styles.push(t.get("md.emphasis")),
            Tag::Strong => self.styles.push(t.get("md.strong")),
            Tag::Strikethrough => self
                .styles
                .push(Style::default().add_modifier(ratatui::style::Modifier::CROSSED_OUT)),
            Tag::Link { .. } => self.styles.push(t.get("md.link")),
            Tag::BlockQuote(kind) => {
                self.flush();
                self.blank();
                match kind {
                    Some(k) => {
                        let (key, label) = match k {
                            BlockQuoteKind::Warning => ("warning", "⚠ WARNING"),
                            BlockQuoteKind::Caution => ("caution", "⚠ CAUTION"),
                            BlockQuoteKind::Important => ("important", "! IMPORTANT"),
                            BlockQuoteKind::Note => ("note", "ℹ NOTE"),
                            BlockQuoteKind::Tip => ("tip", "✱ TIP"),
                        };
                        let s = t.get(&format!("callout.{key}"));
                        self.quote = Some(s);
                        self.out.push(Line::from(vec![
                            Span::styled("▌ ", s),
                            Span::styled(label, s),
                        ]));
                    }
                    None => {
                        self.quote = Some(t.get("callout.quote"));
                        self.quote_pending = true;
                    }
                }
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let info = match kind {
                    CodeBlockKind::Fenced(i) => i.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((info, String::new()));
            }
            Tag::List(start) => {
                self.flush();
                if self.lists.is_empty() {
                    self.blank();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                self.item_first = true;
            }
            Tag::Table(_) => {
                self.flush();
                self.blank();
                self.in_table = true;
                self.table.clear();
            }
            Tag::TableHead | Tag::TableRow => self.table.push(Vec::new()),
            Tag::TableCell => self.cell.clear(),
            _ => {}
        }
    }

    pub(super) fn end(&mut self, tag: TagEnd) {
        let t = self.theme;
        match tag {
            TagEnd::Heading(_) => {
                self.flush();
                self.styles.pop();
            }
            TagEnd::Paragraph => {
                self.flush();
                if self.lists.is_empty() {
                    self.out.push(Line::default());
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link => {
                self.styles.pop();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote = None;
                self.quote_pending = false;
                self.blank();
            }
            TagEnd::CodeBlock => {
                if let Some((info, code)) = self.code.take() {
                    self.code_block(&info, &code);
                }
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Item => {
                self.flush();
                if let Some(Some(n)) = self.lists.last_mut() {
                    *n += 1;
                }
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.cell);
                if let Some(row) = self.table.last_mut() {
                    row.push(cell.trim().to_string());
                }
            }
            TagEnd::Table => {
                self.in_table = false;
                let rows = std::mem::take(&mut self.table);
                super::super::table::render(&rows, self.width, t, &mut self.out);
                self.blank();
            }
            _ => {}
        }
    }
}
