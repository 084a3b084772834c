//! Variables for probes: a store fed by `--var K=V`, the config file, alert labels and earlier
//! probes, and safe substitution of values into shell, PromQL, KQL and URLs.
//!
//! Pure (no IO). Values never become code: the shell gets them as environment variables
//! (`<node-name>` becomes a quoted `${TSGNAV_VAR_NODE_NAME}` reference), PromQL and KQL get
//! escaped string literals, URLs get percent-encoding. A missing value is an error naming the
//! variable and the flag that sets it, never an empty string.

use std::collections::{BTreeMap, BTreeSet};

use super::{Bindings, ProbeError};
use crate::tsg::shell::quoting::{quoting, QuoteMap, Quoting};
use crate::tsg::{vars as tv, Lang};

/// Where a value came from; a higher source wins over a lower one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// The operator's shell environment (`export NODE_NAME=…` before starting tsgnav).
    Environment,
    Config,
    Alert,
    Probe,
    Flag,
}

/// Known values, keyed by canonical name (`node-name`, `<Node Name>` and `NODE_NAME` are one).
#[derive(Debug, Clone, Default)]
pub struct Vars {
    map: BTreeMap<String, (String, Source)>,
}

/// `node-name`, `CCP ID`, `region` → `NODE_NAME`, `CCP_ID`, `REGION`.
pub fn canonical(name: &str) -> String {
    name.trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The environment variable a placeholder's value travels in.
pub fn env_name(name: &str) -> String {
    format!("TSGNAV_VAR_{}", canonical(name))
}

/// Parses `K=V` (from `--var`).
pub fn parse_assignment(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!(
            "`{text}` is not NAME=VALUE (write e.g. --var NODE_NAME=aks-nodepool1-0)"
        )),
    }
}

impl Vars {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `name`; a value from a lower source never replaces one from a higher source.
    pub fn set(&mut self, name: &str, value: &str, source: Source) -> bool {
        let key = canonical(name);
        if self.map.get(&key).is_some_and(|(_, s)| *s > source) {
            return false;
        }
        self.map.insert(key, (value.to_string(), source));
        true
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(&canonical(name)).map(|(v, _)| v.as_str())
    }

    /// Takes the values a probe captured.
    pub fn absorb(&mut self, captured: &BTreeMap<String, String>) {
        for (k, v) in captured {
            self.set(k, v, Source::Probe);
        }
    }

    /// The bindings a probe needs: every variable it reads except the ones it assigns itself
    /// and the operator's environment (`HOME`, `KUBECONFIG` …). The first missing one is an error.
    pub fn resolve(&self, lang: Lang, code: &str) -> Result<Bindings, ProbeError> {
        let assigns: BTreeSet<String> = match lang {
            Lang::Shell => tv::shell_assigns(code).into_iter().collect(),
            _ => BTreeSet::new(),
        };
        let mut out = Bindings::new();
        for name in needed(lang, code) {
            if assigns.contains(&name) || tv::ENVIRONMENT.contains(&name.as_str()) {
                continue;
            }
            match self.get(&name) {
                Some(v) => {
                    out.insert(name, v.to_string());
                }
                None => {
                    return Err(ProbeError::MissingVar {
                        name: canonical(&name),
                    })
                }
            }
        }
        Ok(out)
    }
}

/// Every variable name a probe reads, in first-use order.
pub fn needed(lang: Lang, code: &str) -> Vec<String> {
    let mut names = match lang {
        Lang::Shell => tv::shell_uses(code),
        _ => dollar_braced(code),
    };
    for n in tv::placeholders(code)
        .into_iter()
        .chain(tv::brace_placeholders_of(lang, code))
    {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// `${NAME}` forms in a non-shell language.
fn dollar_braced(code: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(e) if is_name(&after[..e]) => {
                let n = after[..e].to_string();
                if !out.contains(&n) {
                    out.push(n);
                }
                rest = &after[e + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

fn is_name(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A script or query with values placed safely, and the environment it needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Substituted {
    pub text: String,
    /// Environment variables to set for a shell run (name, value).
    pub env: Vec<(String, String)>,
}

/// Places `bindings` into `code` the safe way for `lang`.
pub fn substitute(lang: Lang, code: &str, bindings: &Bindings) -> Result<Substituted, ProbeError> {
    let placeholders = tv::placeholders(code);
    let braces = tv::brace_placeholders_of(lang, code);
    let shell = lang == Lang::Shell;
    let mut env = Vec::new();
    if shell {
        for name in tv::shell_uses(code) {
            if let Some(v) = bindings.get(&name) {
                env.push((name, v.clone()));
            }
        }
    }
    let value_of = |name: &str| -> Result<&String, ProbeError> {
        bindings.get(name).ok_or_else(|| ProbeError::MissingVar {
            name: canonical(name),
        })
    };
    // The shell lexer says how each byte is quoted; query languages track their own literals.
    let map = if shell {
        quoting(code)
    } else {
        QuoteMap::default()
    };
    let mut out = String::with_capacity(code.len());
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let Some(c) = rest.chars().next() else { break };
        let token = if c == '<' {
            placeholders
                .iter()
                .find(|p| rest[1..].starts_with(p.as_str()) && rest[1 + p.len()..].starts_with('>'))
                .map(|p| (p.clone(), p.len() + 2))
        } else if c == '{' && !code[..i].ends_with('$') {
            braces
                .iter()
                .find(|p| rest[1..].starts_with(p.as_str()) && rest[1 + p.len()..].starts_with('}'))
                .map(|p| (p.clone(), p.len() + 2))
        } else if c == '$' && !shell && rest.starts_with("${") {
            rest[2..]
                .find('}')
                .filter(|e| is_name(&rest[2..2 + e]))
                .map(|e| (rest[2..2 + e].to_string(), e + 3))
        } else {
            None
        };
        if let Some((name, len)) = token {
            let value = value_of(&name)?;
            if shell {
                let e = env_name(&name);
                out.push_str(&shell_reference(&e, &name, map.at(i))?);
                if !env.iter().any(|(n, _)| *n == e) {
                    env.push((e, value.clone()));
                }
            } else {
                out.push_str(&literal(lang, &name, value, quote)?);
            }
            i += len;
            continue;
        }
        match c {
            '\\' if (shell && map.at(i) == Quoting::Escaped) || (!shell && quote.is_some()) => {
                let n = rest.chars().nth(1).map_or(0, char::len_utf8);
                out.push_str(&rest[..1 + n]);
                i += 1 + n;
                continue;
            }
            '\'' | '"' if !shell => match quote {
                None => quote = Some(c),
                Some(q) if q == c => quote = None,
                _ => {}
            },
            _ => {}
        }
        out.push(c);
        i += c.len_utf8();
    }
    Ok(Substituted { text: out, env })
}

/// The reference to environment variable `e` that keeps its value one inert word where the
/// placeholder stood, by how the shell quotes that spot.
fn shell_reference(e: &str, name: &str, at: Quoting) -> Result<String, ProbeError> {
    Ok(match at {
        Quoting::Single => format!("'\"${{{e}}}\"'"),
        Quoting::Double | Quoting::Heredoc { quoted: false } => format!("${{{e}}}"),
        Quoting::Heredoc { quoted: true } => {
            return Err(ProbeError::Config {
                detail: format!(
                    "<{name}> sits in a heredoc whose delimiter is quoted (<<'EOF'), where the \
                     shell expands nothing, so its value cannot be filled in safely; unquote the \
                     delimiter in the guide (<<EOF)"
                ),
            })
        }
        Quoting::Bare | Quoting::Escaped | Quoting::Comment => format!("\"${{{e}}}\""),
    })
}

/// A value inside a PromQL/KQL string literal (escaped) or outside one (only plain words).
fn literal(lang: Lang, name: &str, value: &str, quote: Option<char>) -> Result<String, ProbeError> {
    if let Some(q) = quote {
        let mut s = String::with_capacity(value.len());
        for c in value.chars() {
            match c {
                '\\' => s.push_str("\\\\"),
                c if c == q => {
                    s.push('\\');
                    s.push(c);
                }
                '\n' => s.push_str("\\n"),
                '\r' => s.push_str("\\r"),
                '\t' => s.push_str("\\t"),
                c => s.push(c),
            }
        }
        return Ok(s);
    }
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
    if plain {
        return Ok(value.to_string());
    }
    let language = if lang == Lang::Kql { "KQL" } else { "PromQL" };
    Err(ProbeError::Config {
        detail: format!(
            "the value of {} ({value:?}) sits outside a string literal in this {language} query, \
             where only letters, digits and `_-.:` are allowed; quote it in the guide or fix the value",
            canonical(name)
        ),
    })
}

/// Percent-encodes a value for a URL path segment or query parameter.
pub fn url_encode(value: &str) -> String {
    let mut s = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}
