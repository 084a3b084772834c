//! PURE evaluator for kubectl's `-o jsonpath=` templates: literal text, `{.a.b}`,
//! `{.items[0].x}`, `{.items[*].x}`, `{.a['k.with.dots']}`, `aro\.openshift\.io/x` escaped
//! dots, `[?(@.type=="Ready")]` equality filters, `{range …}…{end}` and `{"\n"}` literals.
//! Strings print raw, other values as JSON, several results joined by a space, as kubectl does.
//!
//! No IO; imports nothing from tsgnav.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
    All,
    Filter(Vec<Step>, Value),
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Text(String),
    Path(Vec<Step>),
    Range(Vec<Step>, Vec<Node>),
}

fn parse_path(s: &str) -> Result<Vec<Step>, String> {
    let s = s.trim();
    let s = s
        .strip_prefix('$')
        .or_else(|| s.strip_prefix('@'))
        .unwrap_or(s);
    let mut steps = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut name = String::new();
    let flush = |name: &mut String, steps: &mut Vec<Step>| {
        if !name.is_empty() {
            steps.push(Step::Field(std::mem::take(name)));
        }
    };
    while i < chars.len() {
        match chars[i] {
            '\\' if i + 1 < chars.len() => {
                name.push(chars[i + 1]);
                i += 2;
                continue;
            }
            '.' => flush(&mut name, &mut steps),
            '[' => {
                flush(&mut name, &mut steps);
                let end = chars[i..]
                    .iter()
                    .position(|c| *c == ']')
                    .ok_or(format!("unclosed [ in {s:?}"))?
                    + i;
                let inner: String = chars[i + 1..end].iter().collect();
                let inner = inner.trim();
                steps.push(if inner == "*" {
                    Step::All
                } else if let Some(f) = inner.strip_prefix("?(").and_then(|x| x.strip_suffix(')')) {
                    let (lhs, rhs) = f
                        .split_once("==")
                        .ok_or(format!("only == filters are supported: {inner:?}"))?;
                    let rhs = rhs.trim().trim_matches(|c| c == '"' || c == '\'');
                    Step::Filter(parse_path(lhs)?, Value::String(rhs.to_string()))
                } else if let Ok(n) = inner.parse::<i64>() {
                    Step::Index(n)
                } else {
                    Step::Field(inner.trim_matches(|c| c == '\'' || c == '"').to_string())
                });
                i = end;
            }
            c => name.push(c),
        }
        i += 1;
    }
    flush(&mut name, &mut steps);
    Ok(steps)
}

fn eval<'a>(root: &'a Value, steps: &[Step]) -> Vec<&'a Value> {
    let mut cur = vec![root];
    for st in steps {
        let mut next = Vec::new();
        for v in cur {
            match st {
                Step::Field(f) => next.extend(v.get(f.as_str())),
                Step::Index(n) => {
                    if let Some(a) = v.as_array() {
                        let i = if *n < 0 { a.len() as i64 + n } else { *n };
                        next.extend(usize::try_from(i).ok().and_then(|i| a.get(i)));
                    }
                }
                Step::All => match v {
                    Value::Array(a) => next.extend(a.iter()),
                    Value::Object(m) => next.extend(m.values()),
                    _ => {}
                },
                Step::Filter(path, want) => {
                    let items: Vec<&Value> = match v {
                        Value::Array(a) => a.iter().collect(),
                        other => vec![other],
                    };
                    next.extend(
                        items
                            .into_iter()
                            .filter(|it| eval(it, path).first().is_some_and(|x| *x == want)),
                    );
                }
            }
        }
        cur = next;
    }
    cur
}

fn unescape(s: &str) -> String {
    s.replace("\\n", "\n")
        .replace("\\t", "\t")
        .replace("\\\"", "\"")
}

/// Parses a template into nodes.
fn parse(t: &str) -> Result<Vec<Node>, String> {
    let mut stack: Vec<(Vec<Step>, Vec<Node>)> = vec![(Vec::new(), Vec::new())];
    let mut rest = t;
    while !rest.is_empty() {
        let Some(open) = rest.find('{') else {
            stack
                .last_mut()
                .ok_or("bad template")?
                .1
                .push(Node::Text(rest.to_string()));
            break;
        };
        if open > 0 {
            stack
                .last_mut()
                .ok_or("bad template")?
                .1
                .push(Node::Text(rest[..open].to_string()));
        }
        let close = rest[open..]
            .find('}')
            .ok_or(format!("unclosed {{ in jsonpath {t:?}"))?
            + open;
        let expr = rest[open + 1..close].trim();
        if let Some(p) = expr.strip_prefix("range ") {
            stack.push((parse_path(p)?, Vec::new()));
        } else if expr == "end" {
            if stack.len() < 2 {
                return Err(format!("{{end}} without {{range}} in jsonpath {t:?}"));
            }
            let (p, body) = stack.pop().ok_or("bad template")?;
            stack
                .last_mut()
                .ok_or("bad template")?
                .1
                .push(Node::Range(p, body));
        } else if let Some(lit) = expr.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
            stack
                .last_mut()
                .ok_or("bad template")?
                .1
                .push(Node::Text(unescape(lit)));
        } else {
            stack
                .last_mut()
                .ok_or("bad template")?
                .1
                .push(Node::Path(parse_path(expr)?));
        }
        rest = &rest[close + 1..];
    }
    if stack.len() != 1 {
        return Err(format!("{{range}} without {{end}} in jsonpath {t:?}"));
    }
    Ok(stack.pop().map(|s| s.1).unwrap_or_default())
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn render(nodes: &[Node], cur: &Value, out: &mut String) {
    for n in nodes {
        match n {
            Node::Text(t) => out.push_str(t),
            Node::Path(p) => out.push_str(
                &eval(cur, p)
                    .into_iter()
                    .map(show)
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            Node::Range(p, body) => {
                let vals = eval(cur, p);
                let items: Vec<&Value> = match vals.as_slice() {
                    [Value::Array(a)] if !p.contains(&Step::All) => a.iter().collect(),
                    _ => vals,
                };
                for it in items {
                    render(body, it, out);
                }
            }
        }
    }
}

/// Applies a kubectl jsonpath template to `v`; the error names the template.
pub fn apply(template: &str, v: &Value) -> Result<String, String> {
    let nodes = parse(template)?;
    let mut out = String::new();
    render(&nodes, v, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kubectl_templates() {
        let list = json!({"items": [
            {"metadata": {"name": "a", "labels": {"app": "x"}}, "status": {"capacity": {"aro.openshift.io/swift-nic": "7"}, "conditions": [{"type": "Ready", "status": "True"}]}},
            {"metadata": {"name": "b"}, "spec": {"replicas": 3}}]});
        assert_eq!(apply("{.items[0].metadata.name}", &list).unwrap(), "a");
        assert_eq!(apply("{.items[*].metadata.name}", &list).unwrap(), "a b");
        assert_eq!(
            apply("{range .items[*]}{.metadata.name}{\"\\n\"}{end}", &list).unwrap(),
            "a\nb\n"
        );
        assert_eq!(
            apply(
                r"{.items[0].status.capacity.aro\.openshift\.io/swift-nic}",
                &list
            )
            .unwrap(),
            "7"
        );
        assert_eq!(
            apply("{.items[0].metadata.labels}", &list).unwrap(),
            r#"{"app":"x"}"#
        );
        assert_eq!(apply("{.items[1].spec.replicas}", &list).unwrap(), "3");
        assert_eq!(
            apply(
                "{.items[0].status.conditions[?(@.type==\"Ready\")].status}",
                &list
            )
            .unwrap(),
            "True"
        );
        assert_eq!(apply("n={.items[-1].metadata.name}", &list).unwrap(), "n=b");
        assert!(apply("{range .items[*]}{.x}", &list).is_err());
        assert!(apply("{.items[0", &list).is_err());
    }
}
