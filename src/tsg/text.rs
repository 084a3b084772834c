//! Small text helpers shared by the parser: byte offset → line, inline-text cleanup.
//! Pure; imports nothing but std.

/// Maps byte offsets to 1-based line numbers.
#[derive(Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(src: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 1-based line holding byte `offset`.
    pub fn line(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// Byte offset where 1-based `line` starts (or the end for lines past the end).
    pub fn start(&self, line: usize) -> Option<usize> {
        self.starts.get(line.saturating_sub(1)).copied()
    }
}

/// Collapses runs of whitespace into one space and trims.
pub fn squash(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Lower-cases and turns a bold label into a field key: `If/then outcome` → `if-then`,
/// `Expected result` → `expected-result`.
pub fn field_key(label: &str) -> String {
    let mut key = String::new();
    for c in label.trim().trim_end_matches(':').chars() {
        if c.is_alphanumeric() {
            key.extend(c.to_lowercase());
        } else if !key.ends_with('-') && !key.is_empty() {
            key.push('-');
        }
    }
    let key = key.trim_end_matches('-').to_string();
    match key.as_str() {
        "if-then-outcome" | "if-then-outcomes" | "if-then" => "if-then".into(),
        "precondition" | "pre-conditions" => "preconditions".into(),
        "risks" => "risk".into(),
        "goals" => "goal".into(),
        "actions" => "action".into(),
        "expected-results" | "expected-outcome" | "expected" => "expected-result".into(),
        _ => key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let idx = LineIndex::new("a\nbb\n\nc");
        assert_eq!(idx.line(0), 1);
        assert_eq!(idx.line(2), 2);
        assert_eq!(idx.line(5), 3);
        assert_eq!(idx.line(6), 4);
        assert_eq!(idx.start(2), Some(2));
    }

    #[test]
    fn keys() {
        assert_eq!(field_key("If/then outcome:"), "if-then");
        assert_eq!(field_key("Expected result"), "expected-result");
        assert_eq!(field_key("Goal:"), "goal");
        assert_eq!(field_key("Systems involved:"), "systems-involved");
        assert_eq!(squash("  a \n b  "), "a b");
    }
}
