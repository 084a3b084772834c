//! One line of text read by its structure: `KEY=VALUE` (env files, INI, `export`), `key: value`
//! (YAML, HTTP headers, `describe` output), JSON members, XML attributes and elements, URL
//! query parameters, CLI flags (`--password=…`, `-pPASS`, `curl -u user:pass`, `sshpass -p`,
//! `-passin pass:…`, `-H 'X-Api-Key: …'`), `.netrc` and `.pgpass` lines and connection strings
//! (`…;Password=…;`). Each finding is a byte range of the line and a kind. Pure; must not
//! import `cli`, `tui` or `query`.

use std::sync::OnceLock;

use regex::Regex;

use super::pairs::{key_value, kind_for, Found};
use super::vocab::{is_plain, names_secret, param_is_secret};

/// What a `key: value` line left open for the lines after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opens {
    /// A YAML block scalar (`password: |`): lines indented deeper than this are the secret.
    Block(usize),
    /// A label with nothing after it (`password:`): a lone value on the next line is the secret.
    Label,
    /// `name: DB_PASSWORD` (indent of `name`): the `value:` beside it is the secret.
    PairName(usize),
}

struct Res {
    kv: Regex,
    attr: Regex,
    elem: Regex,
    query: Regex,
    flag: Regex,
    header_arg: Regex,
    short: Regex,
    netrc: Regex,
    pgpass: Regex,
    conn: Regex,
    inline: Regex,
}

fn res() -> &'static Res {
    static R: OnceLock<Res> = OnceLock::new();
    R.get_or_init(|| {
        let re = |s: &str| Regex::new(s).unwrap_or_else(|_| Regex::new("$^").expect("empty"));
        Res {
            // [indent][- ][export ]["]key["] (=|:) value
            kv: re(r#"^(\s*)(?:-\s+)?(?:export\s+)?["']?([A-Za-z_@][A-Za-z0-9_.\-@ ]{0,60}?|(?:\\u[0-9a-fA-F]{4}|[A-Za-z0-9_])+)["']?\s*(=|:)\s*(.*)$"#),
            attr: re(r#"([A-Za-z_][A-Za-z0-9_:.\-]*)\s*=\s*"([^"]*)""#),
            elem: re(r"<([A-Za-z_][A-Za-z0-9_:.\-]*)(?:\s[^>]*)?>([^<]+)</([A-Za-z_][A-Za-z0-9_:.\-]*)>"),
            query: re(r#"[?&;]([A-Za-z0-9_.\-]+)=([^&\s"'#<>\\]+)"#),
            flag: re(r#"(?:^|\s)--?([A-Za-z][A-Za-z0-9\-_]*)(?:=|\s+)("[^"]*"|'[^']*'|[^\s"'|;&]+)"#),
            header_arg: re(r#"(?:-H|--header)\s*(?:=\s*)?(["'])\s*([A-Za-z0-9\-_]+)\s*:\s*([^"']*)["']"#),
            short: re(r#"(?:^|[\s;&|('"])(?:(?:mysql|mysqldump|mariadb|mysqladmin)\b[^|;&]*?\s-p(\S+)|sshpass\s+-p\s*(\S+)|(?:curl|wget)\b[^|;&]*?\s(?:-u|--user|--proxy-user)[\s=]+["']?[^:\s"']+:([^\s"']+)|-(?:passin|passout|pass|k)\s+pass:(\S+)|redis-cli\b[^|;&]*?\s-a\s+(\S+))"#),
            netrc: re(r"(?:^|\s)(?:password|account)\s+(\S+)"),
            pgpass: re(r"^\s*[^:\s#][^:\s]*:(?:\d+|\*):[^:\s]+:[^:\s]+:(\S.*?)\s*$"),
            conn: re(r"(?i)(?:^|;|\s)\s*([A-Za-z][A-Za-z0-9 _]*?)\s*=\s*([^;]*)"),
            inline: re(r#"(?:^|\s)([A-Za-z_][A-Za-z0-9_.\-]*)=("[^"]*"|'[^']*'|[^\s"']+)"#),
        }
    })
}

/// The rules that read one line on their own (the `key: value` rule also says what the line
/// opens for the lines after it).
const RULES: &[fn(&Res, &str, &mut Found)] = &[
    attributes,
    app_settings,
    elements,
    url_params,
    flags,
    short_flags,
    netrc,
    pgpass,
    inline_pairs,
    connection_string,
];

/// The secrets of one line (`line` without its newline): byte ranges and kinds, and what the
/// line opens for the lines after it.
pub fn scan(line: &str, out: &mut Found) -> Option<Opens> {
    let r = res();
    let opens = r.kv.captures(line).and_then(|c| key_value(line, &c, out));
    for rule in RULES {
        rule(r, line, out);
    }
    opens
}

/// `password="…"` attributes (XML, HTML).
fn attributes(r: &Res, line: &str, out: &mut Found) {
    for c in r.attr.captures_iter(line) {
        if names_secret(&c[1]) && !is_plain(&c[2]) {
            out.push((c.get(2).map_or(0..0, |m| m.range()), "secret-attribute"));
        }
    }
}

/// `<add key="DbPassword" value="…"/>` (appSettings): the value of a key that names a secret.
fn app_settings(r: &Res, line: &str, out: &mut Found) {
    let named = r
        .attr
        .captures_iter(line)
        .any(|c| matches!(&c[1], "key" | "name") && names_secret(&c[2]));
    if !named {
        return;
    }
    for c in r.attr.captures_iter(line).filter(|c| &c[1] == "value") {
        out.push((c.get(2).map_or(0..0, |m| m.range()), "secret-attribute"));
    }
}

/// `<password>…</password>` elements.
fn elements(r: &Res, line: &str, out: &mut Found) {
    for c in r.elem.captures_iter(line) {
        if c[1] == c[3] && names_secret(&c[1]) && !is_plain(&c[2]) {
            out.push((c.get(2).map_or(0..0, |m| m.range()), "secret-element"));
        }
    }
}

/// URL query parameters (`?sig=…`, `&token=…`).
fn url_params(r: &Res, line: &str, out: &mut Found) {
    if !line.contains("://") && !line.contains('?') {
        return;
    }
    for c in r.query.captures_iter(line) {
        if param_is_secret(&c[1]) && !is_plain(&c[2]) {
            let kind = if c[1].eq_ignore_ascii_case("sig") {
                "sas-sig"
            } else {
                "url-param"
            };
            out.push((c.get(2).map_or(0..0, |m| m.range()), kind));
        }
    }
}

/// `--password=…` / `--token …` flags and `-H 'X-Api-Key: …'` header arguments.
fn flags(r: &Res, line: &str, out: &mut Found) {
    if !line.contains('-') {
        return;
    }
    for c in r.flag.captures_iter(line) {
        let v = c.get(2).map_or(0..0, |m| m.range());
        let raw = &line[v.clone()];
        let inner = raw.trim_matches(['"', '\'']);
        if names_secret(&c[1]) && !is_plain(inner) && !inner.starts_with('-') {
            let q = usize::from(raw.len() != inner.len());
            out.push((v.start + q..v.start + q + inner.len(), "secret-flag"));
        }
    }
    for c in r.header_arg.captures_iter(line) {
        if names_secret(&c[2]) && !is_plain(&c[3]) {
            out.push((c.get(3).map_or(0..0, |m| m.range()), "header"));
        }
    }
}

/// The short forms tools take a password in (`mysql -pPASS`, `sshpass -p`, `curl -u
/// user:pass`, `-passin pass:…`, `redis-cli -a`).
fn short_flags(r: &Res, line: &str, out: &mut Found) {
    for c in r.short.captures_iter(line) {
        if let Some(m) = (1..=5).find_map(|i| c.get(i)) {
            let t = m.as_str().trim_matches(['"', '\'']);
            if !is_plain(t) {
                let q = m.as_str().len() - m.as_str().trim_start_matches(['"', '\'']).len();
                out.push((m.start() + q..m.start() + q + t.len(), "secret-flag"));
            }
        }
    }
}

/// `.netrc` lines (`machine h login u password p`).
fn netrc(r: &Res, line: &str, out: &mut Found) {
    let lead = line.trim_start();
    let starts = ["machine ", "default ", "login ", "password ", "account "];
    if !starts.iter().any(|w| lead.starts_with(w)) {
        return;
    }
    for c in r.netrc.captures_iter(line) {
        if let Some(m) = c.get(1).filter(|m| !is_plain(m.as_str())) {
            out.push((m.range(), "netrc"));
        }
    }
}

/// `.pgpass` lines (`host:port:db:user:password`).
fn pgpass(r: &Res, line: &str, out: &mut Found) {
    if let Some(m) = r.pgpass.captures(line).and_then(|c| c.get(1)) {
        if !line.contains("://") && !is_plain(m.as_str()) {
            out.push((m.range(), "pgpass"));
        }
    }
}

/// `k=v` words in a sentence (an alert's labels as a note gives them).
fn inline_pairs(r: &Res, line: &str, out: &mut Found) {
    if !line.contains('=') {
        return;
    }
    for c in r.inline.captures_iter(line) {
        let m = c.get(2).map_or(0..0, |m| m.range());
        let raw = &line[m.clone()];
        let inner = raw.trim_matches(['"', '\'']);
        if names_secret(&c[1]) && !is_plain(inner) {
            let q = usize::from(raw.len() != inner.len());
            out.push((m.start + q..m.start + q + inner.len(), kind_for(&c[1])));
        }
    }
}

/// Connection strings (`…;Password=…;`, `AccountKey=…`).
fn connection_string(r: &Res, line: &str, out: &mut Found) {
    if !line.contains(';') || !line.contains('=') {
        return;
    }
    for c in r.conn.captures_iter(line) {
        if names_secret(c[1].trim()) && !is_plain(&c[2]) {
            let m = c.get(2).map_or(0..0, |m| m.range());
            let v = &line[m.clone()];
            let t = v.trim_end_matches(['"', '\'', ',']);
            let kind = match c[1].trim().to_ascii_lowercase().as_str() {
                "accountkey" | "sharedaccesskey" | "sharedaccesssignature" => "account-key",
                _ => "connection-string",
            };
            out.push((m.start..m.start + t.len(), kind));
        }
    }
}
