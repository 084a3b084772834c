//! Reading the Maestro `curl` calls the guides write (`curl -s 'http://…/api/maestro/v1/…' | jq …`)
//! and `GET /path` http fences into a request the http backend runs natively. Pure.

use super::vars::url_encode;
use super::{Bindings, ProbeError};
use crate::tsg::shell::quoting::{QuoteMap, Quoting};

/// A GET the http backend can run, and the shell pipeline its body feeds (`| jq …`).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The URL as written, with `$VAR` forms still in it when it was double-quoted.
    pub url: String,
    /// Whether `$VAR` forms in `url` are expanded (double-quoted or bare, not single-quoted).
    pub expand: bool,
    pub tail: Option<String>,
}

/// Flags of `curl` that do not change what is fetched.
const HARMLESS: &[&str] = &[
    "-s",
    "-S",
    "-sS",
    "-Ss",
    "--silent",
    "--show-error",
    "-f",
    "--fail",
    "-sf",
    "-fsS",
    "-sSf",
    "-L",
    "--location",
    "-k",
    "--insecure",
];

/// Splits at the first pipe `|` the shell sees (not `||`, not inside quotes), as the shell
/// lexer marks it.
fn split_pipe<'a>(text: &'a str, map: &QuoteMap) -> (&'a str, Option<&'a str>) {
    let b = text.as_bytes();
    for (i, _) in text.match_indices('|') {
        let lone = b.get(i + 1) != Some(&b'|') && (i == 0 || b[i - 1] != b'|');
        if lone && map.at(i) == Quoting::Bare {
            return (&text[..i], Some(&text[i + 1..]));
        }
    }
    (text, None)
}

/// Words of a simple command after quote removal, each with whether its `$VAR` forms expand
/// (no single-quoted part), from the shell lexer's quoting map. `None` for anything but one
/// plain command (an operator, a redirection, a substitution).
fn words(text: &str, map: &QuoteMap) -> Option<Vec<(String, bool)>> {
    if text.contains("$(") || text.contains('`') {
        return None;
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut expand, mut any) = (true, false);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match (map.at(i), c) {
            (Quoting::Single, '\'') => (expand, any) = (false, true),
            (Quoting::Single, c) => {
                expand = false;
                cur.push(c);
            }
            (Quoting::Double, '"') => any = true,
            (Quoting::Escaped, '\\') => {
                if let Some((_, next)) = chars.next() {
                    cur.push(next);
                    any = true;
                }
            }
            (Quoting::Bare, c) if c.is_whitespace() => {
                if any {
                    out.push((std::mem::take(&mut cur), expand));
                }
                (expand, any) = (true, false);
            }
            (Quoting::Bare, ';' | '&' | '(' | ')' | '<' | '>' | '|') => return None,
            (Quoting::Comment | Quoting::Heredoc { .. }, _) => return None,
            (_, c) => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push((cur, expand));
    }
    Some(out)
}

/// The Maestro call in a shell probe, or `None` when it is anything else.
pub fn parse_curl(code: &str) -> Option<Call> {
    let joined = code.replace("\\\n", " ");
    let text = joined.trim();
    if text.lines().count() != 1 || !text.starts_with("curl ") {
        return None;
    }
    let parsed = crate::tsg::shell::parse(text);
    if !parsed.problems.is_empty() {
        return None;
    }
    let map = parsed.quoting;
    let (head, tail) = split_pipe(text, &map);
    let ws = words(head, &map)?;
    let mut url = None;
    for (w, expand) in ws.iter().skip(1) {
        if w.starts_with('-') {
            if !HARMLESS.contains(&w.as_str()) {
                return None;
            }
        } else if url.replace((w.clone(), *expand)).is_some() {
            return None;
        }
    }
    let (url, expand) = url?;
    url.contains("/api/maestro/").then(|| Call {
        url,
        expand,
        tail: tail.map(|t| t.trim().to_string()),
    })
}

/// `GET /api/maestro/v1/…` (an http fence).
pub fn parse_http(code: &str) -> Option<Call> {
    let first = code
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))?;
    let rest = first.strip_prefix("GET ")?.trim();
    let url = rest.split_whitespace().next()?.to_string();
    Some(Call {
        url,
        expand: true,
        tail: None,
    })
}

/// Expands `$NAME` / `${NAME}` with URL-encoded values, and moves the URL onto `base`
/// (scheme, host and port) when one is given.
pub fn resolve_url(
    call: &Call,
    bindings: &Bindings,
    base: Option<&str>,
) -> Result<String, ProbeError> {
    let mut out = String::new();
    let mut rest = call.url.as_str();
    while let Some(i) = rest.find('$').filter(|_| call.expand) {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, used) = match after.strip_prefix('{') {
            Some(b) => match b.find('}') {
                Some(e) => (&b[..e], e + 2),
                None => ("", 0),
            },
            None => {
                let e = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..e], e)
            }
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        let v = bindings.get(name).ok_or_else(|| ProbeError::MissingVar {
            name: name.to_string(),
        })?;
        out.push_str(&url_encode(v));
        rest = &after[used..];
    }
    out.push_str(rest);
    let path_start = match out.find("://") {
        Some(s) => out[s + 3..]
            .find('/')
            .map(|p| s + 3 + p)
            .unwrap_or(out.len()),
        None => 0,
    };
    Ok(match base {
        Some(b) => format!("{}{}", b.trim_end_matches('/'), &out[path_start..]),
        None => out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_guides_curl_calls() {
        let code = "curl -s \"http://localhost:8002/api/maestro/v1/resource-bundles?size=3000&search=consumer_name='${MAESTRO_CONSUMER}'\" \\\n  | jq --arg id \"${CLUSTER_ID}\" '.items'";
        let c = parse_curl(code).unwrap();
        assert_eq!(
            c.tail.as_deref(),
            Some("jq --arg id \"${CLUSTER_ID}\" '.items'")
        );
        let b: Bindings = [("MAESTRO_CONSUMER".to_string(), "mc 1'&x".to_string())]
            .into_iter()
            .collect();
        assert_eq!(
            resolve_url(&c, &b, Some("http://127.0.0.1:5/")).unwrap(),
            "http://127.0.0.1:5/api/maestro/v1/resource-bundles?size=3000&search=consumer_name='mc%201%27%26x'"
        );
        assert!(
            parse_curl("curl -X DELETE 'http://h/api/maestro/v1/resource-bundles/1'").is_none()
        );
        assert!(parse_curl("curl -s 'http://h/api/maestro/v1/x'; rm -rf /").is_none());
        // Quoting as the shell lexer reads it: an escaped quote, a `|` inside quotes, `||`.
        let c = parse_curl("curl -s \"http://h/api/maestro/v1/a\\\"b|c\" | jq .").unwrap();
        assert_eq!(
            (c.url.as_str(), c.tail.as_deref()),
            ("http://h/api/maestro/v1/a\"b|c", Some("jq ."))
        );
        assert!(parse_curl("curl -s 'http://h/api/maestro/v1/x' || true").is_none());
        assert!(parse_curl("curl -s 'http://h/api/maestro/v1/x").is_none());
        assert!(parse_curl("curl -s http://h/other").is_none());
        let single = parse_curl("curl -s 'http://h/api/maestro/v1/x?q=$HOME'").unwrap();
        assert_eq!(
            resolve_url(&single, &Bindings::new(), None).unwrap(),
            "http://h/api/maestro/v1/x?q=$HOME"
        );
        assert_eq!(
            parse_http("GET /api/maestro/v1/consumers\n").unwrap().url,
            "/api/maestro/v1/consumers"
        );
    }
}
