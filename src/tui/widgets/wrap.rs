//! Word wrapping of styled spans to a width, with a prefix for the first and later lines.
//! Pure; no IO.

use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display width of a string.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Splits `spans` into words and spaces and fills lines of at most `max` columns. `first` starts
/// the first line and `rest` every other; a word longer than a line is cut.
pub fn wrap(
    spans: &[Span<'static>],
    max: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut cur: Vec<Span<'static>> = first.to_vec();
    let prefix_w = |p: &[Span<'static>]| p.iter().map(|s| width(&s.content)).sum::<usize>();
    let mut used = prefix_w(first);
    let mut empty = true;
    for span in spans {
        for piece in pieces(&span.content) {
            let w = width(piece);
            let space = piece.starts_with(char::is_whitespace);
            if space {
                if (!empty || lines.is_empty()) && used + w <= max {
                    cur.push(Span::styled(piece.to_string(), span.style));
                    used += w;
                }
                continue;
            }
            if !empty && used + w > max {
                trim_end(&mut cur);
                lines.push(Line::from(std::mem::take(&mut cur)));
                cur = rest.to_vec();
                used = prefix_w(rest);
            }
            if used + w <= max || max <= used {
                cur.push(Span::styled(piece.to_string(), span.style));
                used += w;
            } else {
                // Cut a word wider than a line.
                let mut chunk = String::new();
                for c in piece.chars() {
                    let cw = c.width().unwrap_or(0);
                    if used + cw > max && !chunk.is_empty() {
                        cur.push(Span::styled(std::mem::take(&mut chunk), span.style));
                        lines.push(Line::from(std::mem::take(&mut cur)));
                        cur = rest.to_vec();
                        used = prefix_w(rest);
                    }
                    chunk.push(c);
                    used += cw;
                }
                cur.push(Span::styled(chunk, span.style));
            }
            empty = false;
        }
    }
    trim_end(&mut cur);
    lines.push(Line::from(cur));
    lines
}

fn trim_end(spans: &mut Vec<Span<'static>>) {
    while spans
        .last()
        .is_some_and(|s| s.content.trim().is_empty() && !s.content.is_empty() && spans.len() > 1)
    {
        spans.pop();
    }
}

/// Alternating runs of whitespace and non-whitespace.
fn pieces(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev_space: Option<bool> = None;
    for (i, c) in s.char_indices() {
        let sp = c.is_whitespace();
        if prev_space.is_some_and(|p| p != sp) {
            out.push(&s[start..i]);
            start = i;
        }
        prev_space = Some(sp);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Cuts `s` to at most `max` columns, ending with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if used + cw + 1 > max {
            break;
        }
        out.push(c);
        used += cw;
    }
    out.push('…');
    out
}

/// Cuts `s` to at most `max` columns by taking out its middle (`ACMMetr…Federation`), so
/// that rows which share a beginning still show the end that tells them apart. Returns the
/// text and how many characters of the beginning it kept (all of them when not cut).
pub fn truncate_middle(s: &str, max: usize) -> (String, usize) {
    let chars: Vec<char> = s.chars().collect();
    if width(s) <= max {
        return (s.to_string(), chars.len());
    }
    let room = max.saturating_sub(1);
    let (mut head, mut tail) = (String::new(), Vec::new());
    let (mut hw, mut tw) = (0, 0);
    let (mut i, mut j) = (0, chars.len());
    // The beginning gets three fifths, the end the rest: enough of a name to know it, and
    // the suffix or file name that tells it from its neighbours.
    while i < j {
        let take_tail = tw * 3 < hw * 2;
        let c = if take_tail { chars[j - 1] } else { chars[i] };
        let cw = c.width().unwrap_or(0);
        if hw + tw + cw > room {
            break;
        }
        if take_tail {
            tail.push(c);
            tw += cw;
            j -= 1;
        } else {
            head.push(c);
            hw += cw;
            i += 1;
        }
    }
    let kept = head.chars().count();
    head.push('…');
    head.extend(tail.into_iter().rev());
    (head, kept)
}
