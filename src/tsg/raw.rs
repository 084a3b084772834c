//! Raw per-section blocks collected by the markdown walk (`walk.rs`), before any
//! interpretation. Pure data; imports nothing but std.

/// A bold label at the start of a paragraph, list item or quote: `**Goal:** …`.
#[derive(Debug, Clone, Default)]
pub struct Label {
    pub text: String,
    /// The label ends with `:` (inside or right after the bold).
    pub colon: bool,
}

#[derive(Debug, Clone, Default)]
pub struct RawLink {
    pub dest: String,
    pub text: String,
    pub line: usize,
}

#[derive(Debug, Clone, Default)]
pub struct RawPara {
    pub label: Option<Label>,
    /// Text after the label (empty when there is no label: then `text` is all there is).
    pub value: String,
    pub text: String,
    pub line: usize,
    pub links: Vec<usize>,
    /// Inline code spans, in order.
    pub codes: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct RawItem {
    pub para: RawPara,
    pub checked: Option<bool>,
    /// 0 for a top-level bullet.
    pub depth: usize,
    /// Index of the enclosing item, for nested bullets.
    pub parent: Option<usize>,
}

#[derive(Debug, Clone, Default)]
pub struct Cell {
    pub text: String,
    pub codes: Vec<String>,
    pub links: Vec<usize>,
}

#[derive(Debug, Clone, Default)]
pub struct RawTable {
    pub header: Vec<Cell>,
    /// The header cells' text lower-cased (each once: a table's columns are looked up by
    /// their words many times).
    pub lower: Vec<String>,
    pub rows: Vec<(usize, Vec<Cell>)>,
}

#[derive(Debug, Clone, Default)]
pub struct RawQuote {
    /// GitHub alert kind (`NOTE`, `WARNING` …) when written as `> [!KIND]`.
    pub gfm_kind: Option<String>,
    pub label: Option<Label>,
    pub text: String,
    pub line: usize,
}

#[derive(Debug, Clone, Default)]
pub struct RawCode {
    pub info: String,
    pub code: String,
    /// 1-based line of the first code line.
    pub line: usize,
    pub fenced: bool,
}

/// One heading section and what it holds.
#[derive(Debug, Clone, Default)]
pub struct RawSection {
    pub title: String,
    pub level: u8,
    pub line: usize,
    /// Byte offset just after the heading (start of the body).
    pub body_start: usize,
    /// Byte offset where the heading starts.
    pub start: usize,
    pub paras: Vec<RawPara>,
    pub items: Vec<RawItem>,
    pub tables: Vec<RawTable>,
    pub quotes: Vec<RawQuote>,
    pub codes: Vec<RawCode>,
    pub links: Vec<RawLink>,
}

/// What the walk found in one file.
#[derive(Debug, Clone, Default)]
pub struct RawDoc {
    pub front_matter: Option<(String, usize)>,
    /// How many lines the file has, as `LineIndex` counts them (one more than its newlines).
    pub lines: usize,
    pub sections: Vec<RawSection>,
}
