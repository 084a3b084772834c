//! Reading the Maestro `curl` calls the guides write (`curl -s 'http://…/api/maestro/v1/…' | jq …`)
//! and `GET /path` http fences into a request the http backend runs natively. Pure.

use super::vars::url_encode;
use super::{Bindings, ProbeError};

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

/// Splits at the first `|` outside quotes.
fn split_pipe(text: &str) -> (&str, Option<&str>) {
    let (mut single, mut double) = (false, false);
    for (i, c) in text.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '|' if !single && !double && !text[i + 1..].starts_with('|') => {
                return (&text[..i], Some(&text[i + 1..]))
            }
            _ => {}
        }
    }
    (text, None)
}

/// Words of a simple command, with how each was quoted.
fn words(text: &str) -> Option<Vec<(String, bool)>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut quote, mut expand, mut any) = (None::<char>, true, false);
    for c in text.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                expand &= c == '"';
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    out.push((std::mem::take(&mut cur), expand));
                }
                (expand, any) = (true, false);
            }
            (None, ';' | '&' | '`' | '(' | ')' | '<' | '>') => return None,
            (_, c) => {
                cur.push(c);
                any = true;
            }
        }
    }
    if quote.is_some() {
        return None;
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
    let (head, tail) = split_pipe(text);
    let ws = words(head)?;
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
