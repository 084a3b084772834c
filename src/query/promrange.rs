//! PURE: when a PromQL probe is a range query. The fence says so (`{range=1h step=1m}`), or
//! the query is a bare range selector outside any function (`cx_pending_programming_ips_v2[1h]`,
//! which Prometheus only answers as a matrix: tsgnav graphs it over that hour). A range inside
//! a function (`rate(x[5m])`) or a subquery (`x[1h:5m]`) stays an instant query.
//!
//! No IO; imports nothing from tsgnav.

use std::time::Duration;

use serde::Serialize;

/// A range query's window (ending now) and resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct QueryRange {
    pub span: Duration,
    pub step: Duration,
}

impl QueryRange {
    /// `span` with the default step: 60 points, at least one second apart.
    pub fn with_default_step(span: Duration) -> Self {
        QueryRange {
            span,
            step: (span / 60).max(Duration::from_secs(1)),
        }
    }
}

/// A PromQL duration (`90s`, `5m`, `1h30m`, `2d`, `1w`).
pub fn prom_duration(s: &str) -> Option<Duration> {
    let mut total = 0u64;
    let mut num = String::new();
    let mut chars = s.trim().chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let n: u64 = num.parse().ok()?;
        num.clear();
        let unit_ms: u64 = match c {
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                1
            }
            's' => 1_000,
            'm' => 60_000,
            'h' => 3_600_000,
            'd' => 86_400_000,
            'w' => 604_800_000,
            'y' => 31_536_000_000,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(unit_ms)?)?;
        any = true;
    }
    (any && num.is_empty() && total > 0).then(|| Duration::from_millis(total))
}

/// The range a probe asks for: fence attributes first, else a bare range selector. The
/// string is the query to send (a bare selector's `[1h]` removed).
pub fn range_of(
    code: &str,
    range_attr: Option<&str>,
    step_attr: Option<&str>,
) -> Result<Option<(String, QueryRange)>, String> {
    if let Some(r) = range_attr {
        let span =
            prom_duration(r).ok_or(format!("range={r} is not a duration (write e.g. range=1h)"))?;
        let step = match step_attr {
            Some(s) => prom_duration(s)
                .ok_or(format!("step={s} is not a duration (write e.g. step=1m)"))?,
            None => QueryRange::with_default_step(span).step,
        };
        return Ok(Some((code.trim().to_string(), QueryRange { span, step })));
    }
    Ok(bare_range(code).map(|(q, span)| {
        let mut r = QueryRange::with_default_step(span);
        if let Some(s) = step_attr.and_then(prom_duration) {
            r.step = s;
        }
        (q, r)
    }))
}

/// `metric{…}[1h]` at the top level (outside parentheses), as the whole query.
pub fn bare_range(code: &str) -> Option<(String, Duration)> {
    let q = code.trim();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut open = None;
    for (i, c) in q.char_indices() {
        match quote {
            Some(x) if c == x => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' | '`' => quote = Some(c),
                '(' => depth += 1,
                ')' => depth -= 1,
                '[' if depth == 0 => open = Some(i),
                _ => {}
            },
        }
    }
    let open = open?;
    let inner = q[open + 1..].strip_suffix(']')?;
    if inner.contains(':') || q[..open].trim().is_empty() {
        return None;
    }
    let span = prom_duration(inner)?;
    Some((q[..open].trim_end().to_string(), span))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_selectors_are_ranges_functions_are_not() {
        let h = Duration::from_secs(3600);
        assert_eq!(
            bare_range("cx_pending_programming_ips_v2[1h]"),
            Some(("cx_pending_programming_ips_v2".into(), h))
        );
        assert_eq!(
            bare_range(r#"up{job="a[1]"}[30m]"#),
            Some((r#"up{job="a[1]"}"#.into(), h / 2))
        );
        assert_eq!(
            bare_range("max_over_time(cx_pending_programming_ips_v2[1h])"),
            None
        );
        assert_eq!(bare_range("rate(x[5m])"), None);
        assert_eq!(bare_range("x[1h:5m]"), None);
        assert_eq!(bare_range("x"), None);
        assert_eq!(prom_duration("1h30m"), Some(Duration::from_secs(5400)));
        assert_eq!(prom_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(prom_duration("1x"), None);
    }

    #[test]
    fn fence_attributes_win() {
        let (q, r) = range_of("max(x)", Some("6h"), Some("5m")).unwrap().unwrap();
        assert_eq!(q, "max(x)");
        assert_eq!(r.span, Duration::from_secs(6 * 3600));
        assert_eq!(r.step, Duration::from_secs(300));
        let (_, r) = range_of("x[1h]", None, None).unwrap().unwrap();
        assert_eq!(r.step, Duration::from_secs(60));
        assert!(range_of("x", Some("soon"), None).is_err());
        assert_eq!(range_of("x", None, None).unwrap(), None);
    }
}
