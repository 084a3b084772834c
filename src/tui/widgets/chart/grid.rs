//! The braille canvas of a chart: dots set on a grid of cells two dots wide and four high,
//! the series that set each cell's last dot (which colours it), straight runs between points,
//! and rows back out as spans. Pure; must not import IO.

use ratatui::style::Style;
use ratatui::text::Span;

/// Braille dot bits by (pixel row within the cell, pixel column within the cell).
const DOTS: [[u8; 2]; 4] = [[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]];

/// Braille cells: the dots set and the series that set a dot last (which colours the cell).
pub(super) struct Grid {
    w: usize,
    h: usize,
    bits: Vec<u8>,
    owner: Vec<Option<u8>>,
    digit: Vec<Option<u8>>,
}

impl Grid {
    pub(super) fn new(w: usize, h: usize) -> Grid {
        Grid {
            w,
            h,
            bits: vec![0; w * h],
            owner: vec![None; w * h],
            digit: vec![None; w * h],
        }
    }

    fn dot(&mut self, x: usize, y: usize, s: u8) {
        if x < self.w * 2 && y < self.h * 4 {
            let i = (y / 4) * self.w + x / 2;
            self.bits[i] |= DOTS[y % 4][x % 2];
            self.owner[i] = Some(s);
        }
    }

    /// A straight run of dots from `a` to `b` (Bresenham).
    pub(super) fn line(&mut self, a: (usize, usize), b: (usize, usize), s: u8) {
        let (mut x, mut y) = (a.0 as i64, a.1 as i64);
        let (x1, y1) = (b.0 as i64, b.1 as i64);
        let (dx, dy) = ((x1 - x).abs(), -(y1 - y).abs());
        let (sx, sy) = (if x < x1 { 1 } else { -1 }, if y < y1 { 1 } else { -1 });
        let mut err = dx + dy;
        loop {
            self.dot(x as usize, y as usize, s);
            if x == x1 && y == y1 {
                return;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    pub(super) fn mark(&mut self, cx: usize, cy: usize, s: u8) {
        if cx < self.w && cy < self.h {
            self.digit[cy * self.w + cx] = Some(s);
            self.owner[cy * self.w + cx] = Some(s);
        }
    }

    /// Row `r` as spans, one per run of cells of the same series.
    pub(super) fn row_spans(&self, r: usize, styles: &[Style]) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        let mut run = String::new();
        let mut cur = None;
        for i in r * self.w..(r + 1) * self.w {
            let owner = self.owner[i];
            if owner != cur && !run.is_empty() {
                let style = cur.and_then(|s| styles.get(usize::from(s)).copied());
                spans.push(Span::styled(
                    std::mem::take(&mut run),
                    style.unwrap_or_default(),
                ));
            }
            cur = owner;
            run.push(match (self.digit[i], self.bits[i]) {
                (Some(d), _) => char::from(b'1' + d),
                (None, 0) => ' ',
                (None, b) => char::from_u32(0x2800 + u32::from(b)).unwrap_or(' '),
            });
        }
        let style = cur.and_then(|s| styles.get(usize::from(s)).copied());
        spans.push(Span::styled(run, style.unwrap_or_default()));
        spans
    }
}
