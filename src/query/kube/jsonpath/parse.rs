//! PURE parser for kubectl's JSONPath templates, following client-go's `jsonpath` parser:
//! literal text outside braces; inside them fields (`\.` escapes, any other byte up to a
//! terminator), `..field` recursive descent, `[*]`, `[n]`, slices `[a:b:c]` (negative ends
//! count from the back), `['key']`, unions `[0,2]`, filters `[?(@.x OP y)]` with
//! `== != < > <= >=` or existence, `range`/`end` and quoted literals (`{"\n"}`).
//!
//! Anything this parser does not read is an error, so the caller hands the template to the
//! real kubectl rather than guessing. No IO; imports nothing from tsgnav.

/// A literal in a filter, or a path from the element being filtered.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Path(Vec<Seg>),
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
pub enum Seg {
    Field(String),
    /// `..`: the value and every container below it, depth first.
    Recursive,
    Wildcard,
    /// `[start:end:step]`; `derived` marks `[n]` (end = n + 1).
    Slice {
        start: Option<i64>,
        end: Option<i64>,
        derived: bool,
        step: Option<i64>,
    },
    Union(Vec<Vec<Seg>>),
    Filter {
        left: Operand,
        op: String,
        right: Operand,
    },
}

/// One part of a template.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Text(String),
    Path(Vec<Seg>),
    Range(Vec<Seg>, Vec<Node>),
}

fn is_terminator(c: char) -> bool {
    c.is_whitespace() || ".,[]$@{}".contains(c)
}

/// Parses a whole template (`{range .items[*]}{.metadata.name}{"\n"}{end}`).
pub fn template(t: &str) -> Result<Vec<Node>, String> {
    let mut stack: Vec<(Vec<Seg>, Vec<Node>)> = vec![(Vec::new(), Vec::new())];
    let mut rest = t;
    let push = |stack: &mut Vec<(Vec<Seg>, Vec<Node>)>, n: Node| {
        if let Some(top) = stack.last_mut() {
            top.1.push(n);
        }
    };
    while !rest.is_empty() {
        let Some(open) = rest.find('{') else {
            push(&mut stack, Node::Text(rest.to_string()));
            break;
        };
        if open > 0 {
            push(&mut stack, Node::Text(rest[..open].to_string()));
        }
        let close = action_end(&rest[open..]).ok_or(format!("unclosed action in {t:?}"))? + open;
        let expr = rest[open + 1..close].trim();
        if let Some(p) = expr.strip_prefix("range ") {
            stack.push((path(p)?, Vec::new()));
        } else if expr == "end" {
            if stack.len() < 2 {
                return Err(format!("{{end}} without {{range}} in {t:?}"));
            }
            let (p, body) = stack.pop().ok_or("bad template")?;
            push(&mut stack, Node::Range(p, body));
        } else if expr.starts_with('"') {
            push(&mut stack, Node::Text(quoted(expr)?));
        } else {
            push(&mut stack, Node::Path(path(expr)?));
        }
        rest = &rest[close + 1..];
    }
    if stack.len() != 1 {
        return Err(format!("{{range}} without {{end}} in {t:?}"));
    }
    Ok(stack.pop().map(|s| s.1).unwrap_or_default())
}

/// The index of the `}` closing the action that starts at `s[0] == '{'` (quotes respected).
fn action_end(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for (i, c) in s.char_indices().skip(1) {
        match quote {
            Some(q) if c == q && prev != '\\' => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '}' => return Some(i),
            None if c == '{' => return None,
            None => {}
        }
        prev = if prev == '\\' && c == '\\' { ' ' } else { c };
    }
    None
}

/// A double-quoted literal with Go escapes (`\n`, `\t`, `\"`, `\\`).
fn quoted(s: &str) -> Result<String, String> {
    let inner = s
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .ok_or(format!("literal {s:?} is not one quoted string"))?;
    let mut out = String::new();
    let mut it = inner.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match it.next() {
            Some('n') => '\n',
            Some('t') => '\t',
            Some('r') => '\r',
            Some('"') => '"',
            Some('\\') => '\\',
            other => {
                return Err(format!(
                    "escape \\{} in {s:?} is not handled",
                    other.unwrap_or(' ')
                ))
            }
        });
    }
    Ok(out)
}

/// Parses a path (`.items[0].metadata.name`, `@.type`, `$..name`).
pub fn path(s: &str) -> Result<Vec<Seg>, String> {
    let chars: Vec<char> = s.trim().chars().collect();
    let mut segs = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '$' | '@' if segs.is_empty() => i += 1,
            c if c.is_whitespace() => i += 1,
            '.' if chars.get(i + 1) == Some(&'.') => {
                segs.push(Seg::Recursive);
                i += 2;
                match chars.get(i) {
                    Some(c) if !is_terminator(*c) => {}
                    _ => return Err(format!("`..` must be followed by a field name in {s:?}")),
                }
                i = field(&chars, i, &mut segs);
            }
            '.' => {
                i += 1;
                if chars.get(i).is_none_or(|c| is_terminator(*c)) {
                    // A lone `.` (or `{.}`) is the current value.
                    continue;
                }
                i = field(&chars, i, &mut segs);
            }
            '[' => {
                let (seg, next) = bracket(&chars, i, s)?;
                segs.push(seg);
                i = next;
            }
            c => return Err(format!("unexpected {c:?} in {s:?}")),
        }
    }
    Ok(segs)
}

/// Reads a field name from `i` up to a terminator; `\x` keeps `x`.
fn field(chars: &[char], mut i: usize, segs: &mut Vec<Seg>) -> usize {
    let mut name = String::new();
    while let Some(&c) = chars.get(i) {
        if c == '\\' {
            if let Some(&n) = chars.get(i + 1) {
                name.push(n);
            }
            i += 2;
            continue;
        }
        if is_terminator(c) {
            break;
        }
        name.push(c);
        i += 1;
    }
    segs.push(if name == "*" {
        Seg::Wildcard
    } else {
        Seg::Field(name)
    });
    i
}

/// The `[...]` at `chars[i]`, and the index after it.
fn bracket(chars: &[char], i: usize, s: &str) -> Result<(Seg, usize), String> {
    if chars.get(i + 1) == Some(&'?') {
        return filter(chars, i, s);
    }
    let close = chars[i..]
        .iter()
        .position(|c| *c == ']')
        .ok_or(format!("unclosed [ in {s:?}"))?
        + i;
    let text: String = chars[i + 1..close].iter().collect();
    let text = text.trim();
    let seg = if text == "*" {
        Seg::Wildcard
    } else if text.contains(',') {
        let parts = text
            .split(',')
            .map(|p| match bracket_inner(p.trim())? {
                Seg::Field(f) => path(&format!(".{f}")),
                seg => Ok(vec![seg]),
            })
            .collect::<Result<Vec<_>, String>>()?;
        Seg::Union(parts)
    } else {
        match bracket_inner(text)? {
            // `['a.b']` is read like `.a.b`, as kubectl does.
            Seg::Field(f) => {
                let mut p = path(&format!(".{f}"))?;
                if p.len() != 1 {
                    return Err(format!("[{text}] names a nested key; write .a.b instead"));
                }
                p.remove(0)
            }
            seg => seg,
        }
    };
    Ok((seg, close + 1))
}

/// `'key'` or a slice (`2`, `-1:`, `0:2`, `::2`).
fn bracket_inner(text: &str) -> Result<Seg, String> {
    if let Some(k) = text.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
        if k.contains('\'') {
            return Err(format!("invalid key [{text}]"));
        }
        return Ok(Seg::Field(k.to_string()));
    }
    let parts: Vec<&str> = text.split(':').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("invalid array index [{text}]"));
    }
    let num = |p: &str| -> Result<Option<i64>, String> {
        let p = p.trim();
        if p.is_empty() {
            return Ok(None);
        }
        p.parse::<i64>()
            .map(Some)
            .map_err(|_| format!("invalid array index [{text}]"))
    };
    let start = num(parts[0])?;
    if parts.len() == 1 {
        let n = start.ok_or(format!("invalid array index [{text}]"))?;
        return Ok(Seg::Slice {
            start: Some(n),
            end: Some(n + 1),
            derived: true,
            step: None,
        });
    }
    Ok(Seg::Slice {
        start,
        end: num(parts[1])?,
        derived: false,
        step: match parts.get(2) {
            Some(p) => num(p)?,
            None => None,
        },
    })
}

/// `[?(left OP right)]` or `[?(@.x)]` at `chars[i]`.
fn filter(chars: &[char], i: usize, s: &str) -> Result<(Seg, usize), String> {
    if chars.get(i + 2) != Some(&'(') {
        return Err(format!("a filter starts with [?( in {s:?}"));
    }
    let mut j = i + 3;
    let mut quote: Option<char> = None;
    let mut depth = 0;
    loop {
        let c = *chars
            .get(j)
            .ok_or(format!("unterminated filter in {s:?}"))?;
        match quote {
            Some(q) if c == q && chars[j - 1] != '\\' => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '(' => depth += 1,
            None if c == ')' && depth == 0 => break,
            None if c == ')' => depth -= 1,
            None => {}
        }
        j += 1;
    }
    if chars.get(j + 1) != Some(&']') {
        return Err(format!("unclosed filter in {s:?}"));
    }
    let text: String = chars[i + 3..j].iter().collect();
    let ops = ["==", "!=", ">=", "<=", ">", "<"];
    let found = text
        .char_indices()
        .filter(|(_, c)| "!<>=".contains(*c))
        .map(|(k, _)| k)
        .next();
    let seg = match found {
        None => Seg::Filter {
            left: Operand::Path(path(&text)?),
            op: "exists".into(),
            right: Operand::Bool(true),
        },
        Some(k) => {
            let op = ops
                .iter()
                .find(|o| text[k..].starts_with(*o))
                .ok_or(format!("unknown operator in filter {text:?}"))?;
            Seg::Filter {
                left: operand(&text[..k])?,
                op: op.to_string(),
                right: operand(&text[k + op.len()..])?,
            }
        }
    };
    Ok((seg, j + 2))
}

fn operand(s: &str) -> Result<Operand, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty side of a filter".into());
    }
    if s.starts_with('"') {
        return Ok(Operand::Str(quoted(s)?));
    }
    if let Some(v) = s.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
        return Ok(Operand::Str(v.to_string()));
    }
    if s == "true" || s == "false" {
        return Ok(Operand::Bool(s == "true"));
    }
    if s.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') {
        if let Ok(n) = s.parse::<i64>() {
            return Ok(Operand::Int(n));
        }
        return s
            .parse::<f64>()
            .map(Operand::Float)
            .map_err(|_| format!("{s:?} is not a number"));
    }
    if s.starts_with(['@', '$', '.', '[']) {
        return Ok(Operand::Path(path(s)?));
    }
    Err(format!("{s:?} in a filter is not handled"))
}
