//! PURE evaluation of parsed kubectl JSONPath, with client-go's semantics: missing keys give
//! nothing (kubectl allows them), a slice or filter on something that is not a list is an
//! error, filters compare only values of one kind (an int with a string is an error), and
//! results print as kubectl prints them (strings raw, maps and lists as Go's compact JSON,
//! several results of one action joined by a space).
//!
//! No IO; imports only its sibling parser.

use std::cmp::Ordering;

use serde_json::Value;

use super::parse::{Node, Operand, Seg};

/// Everything `segs` selects from `cur`.
pub fn eval<'a>(cur: &'a Value, segs: &[Seg]) -> Result<Vec<&'a Value>, String> {
    let mut vals = vec![cur];
    for seg in segs {
        let mut next = Vec::new();
        if let Seg::Union(parts) = seg {
            // Each part over every value, as client-go evaluates a union.
            for p in parts {
                for v in &vals {
                    next.extend(eval(v, p)?);
                }
            }
        } else {
            for v in vals {
                step(v, seg, &mut next)?;
            }
        }
        vals = next;
    }
    Ok(vals)
}

fn step<'a>(v: &'a Value, seg: &Seg, next: &mut Vec<&'a Value>) -> Result<(), String> {
    match seg {
        Seg::Field(f) => next.extend(v.as_object().and_then(|m| m.get(f))),
        Seg::Recursive => descend(v, next),
        Seg::Wildcard => match v {
            Value::Array(a) => next.extend(a.iter()),
            Value::Object(m) => next.extend(m.values()),
            _ => {}
        },
        Seg::Slice {
            start,
            end,
            derived,
            step,
        } => {
            if v.is_null() {
                return Ok(());
            }
            let a = v
                .as_array()
                .ok_or_else(|| format!("{} is not array or slice", kind(v)))?;
            let len = a.len() as i64;
            let mut s = start.unwrap_or(0);
            if s < 0 {
                s += len;
            }
            let mut e = end.unwrap_or(len);
            if e < 0 || (e == 0 && *derived) {
                e += len;
            }
            if s == e {
                return Ok(());
            }
            if s >= len || s < 0 {
                return Err(format!(
                    "array index out of bounds: index {s}, length {len}"
                ));
            }
            if e > len || e < 0 {
                return Err(format!(
                    "array index out of bounds: index {}, length {len}",
                    e - 1
                ));
            }
            if s > e {
                return Err(format!(
                    "starting index {s} is greater than ending index {e}"
                ));
            }
            let st = step.unwrap_or(1);
            if st <= 0 {
                return Err("step must be > 0".into());
            }
            next.extend(a[s as usize..e as usize].iter().step_by(st as usize));
        }
        Seg::Union(parts) => {
            for p in parts {
                next.extend(eval(v, p)?);
            }
        }
        Seg::Filter { left, op, right } => {
            if v.is_null() {
                return Ok(());
            }
            let a = v.as_array().ok_or_else(|| {
                format!("{} is not array or slice and cannot be filtered", kind(v))
            })?;
            for it in a {
                if filter_passes(it, left, op, right)? {
                    next.push(it);
                }
            }
        }
    }
    Ok(())
}

/// The value and, depth first, every non-empty container (or string) below it.
fn descend<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    let children: Vec<&Value> = match v {
        Value::Object(m) => m.values().collect(),
        Value::Array(a) => a.iter().collect(),
        _ => Vec::new(),
    };
    let has_children = !children.is_empty() || v.as_str().is_some_and(|s| !s.is_empty());
    if has_children {
        out.push(v);
        for c in children {
            descend(c, out);
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "map[string]interface {}",
        Value::Array(_) => "[]interface {}",
        Value::String(_) => "string",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::Bool(_) => "bool",
        Value::Null => "<nil>",
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Scalar {
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
}

fn scalar(v: &Value) -> Result<Scalar, String> {
    Ok(match v {
        Value::Bool(b) => Scalar::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Scalar::Int(i.into()),
            (_, Some(u)) => Scalar::Int(u.into()),
            _ => Scalar::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Scalar::Str(s.clone()),
        other => return Err(format!("invalid type for comparison: {}", kind(other))),
    })
}

fn side(it: &Value, o: &Operand) -> Result<Option<Scalar>, String> {
    Ok(Some(match o {
        Operand::Path(p) => {
            let vals = eval(it, p)?;
            match vals.as_slice() {
                [] => return Ok(None),
                [one] => scalar(one)?,
                _ => return Err("can only compare one element at a time".into()),
            }
        }
        Operand::Str(s) => Scalar::Str(s.clone()),
        Operand::Int(n) => Scalar::Int((*n).into()),
        Operand::Float(f) => Scalar::Float(*f),
        Operand::Bool(b) => Scalar::Bool(*b),
    }))
}

fn filter_passes(it: &Value, left: &Operand, op: &str, right: &Operand) -> Result<bool, String> {
    if op == "exists" {
        return Ok(match left {
            Operand::Path(p) => !eval(it, p)?.is_empty(),
            _ => true,
        });
    }
    let Some(l) = side(it, left)? else {
        return Ok(false);
    };
    let Some(r) = side(it, right)? else {
        return Ok(false);
    };
    let ord = match (&l, &r) {
        (Scalar::Int(a), Scalar::Int(b)) => a.partial_cmp(b),
        (Scalar::Float(a), Scalar::Float(b)) => a.partial_cmp(b),
        (Scalar::Str(a), Scalar::Str(b)) => a.partial_cmp(b),
        (Scalar::Bool(a), Scalar::Bool(b)) if op == "==" || op == "!=" => a.partial_cmp(b),
        (Scalar::Bool(_), Scalar::Bool(_)) => return Err("invalid type for comparison".into()),
        _ => return Err("incompatible types for comparison".into()),
    };
    Ok(match op {
        "==" => ord == Some(Ordering::Equal),
        "!=" => ord != Some(Ordering::Equal),
        "<" => ord == Some(Ordering::Less),
        ">" => ord == Some(Ordering::Greater),
        "<=" => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
        ">=" => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
        other => return Err(format!("unrecognized filter operator {other}")),
    })
}

/// Renders a template's nodes against `cur` into `out`.
pub fn render(nodes: &[Node], cur: &Value, out: &mut String) -> Result<(), String> {
    for n in nodes {
        match n {
            Node::Text(t) => out.push_str(t),
            Node::Path(p) => {
                let vals = eval(cur, p)?;
                let texts: Vec<String> = vals.into_iter().map(print).collect();
                out.push_str(&texts.join(" "));
            }
            Node::Range(p, body) => {
                for it in eval(cur, p)? {
                    render(body, it, out)?;
                }
            }
        }
    }
    Ok(())
}

/// One result as kubectl prints it.
pub fn print(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(_) | Value::Array(_) => go_json(v),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (_, Some(u)) => u.to_string(),
            _ => go_float_v(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::Bool(b) => b.to_string(),
        Value::Null => "<nil>".into(),
    }
}

/// A value as Go's `fmt` `%v` prints it (custom columns): maps as `map[k:v]`, lists as `[a b]`.
pub fn go_v(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}:{}", go_v(&m[k.as_str()])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(go_v).collect::<Vec<_>>().join(" ")),
        other => print(other),
    }
}

/// `%v` of a float64: shortest digits, exponent form below 1e-4 or from 1e6 (as `fmt.Println`).
fn go_float_v(f: f64) -> String {
    let sci = format!("{f:e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        format!("{f}")
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    }
}

/// Go's `json.Marshal` of an unstructured value: sorted keys, `<>&` escaped, whole floats
/// without a fraction.
pub fn go_json(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", go_str(k), go_json(&m[k.as_str()])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(go_json).collect::<Vec<_>>().join(",")),
        Value::String(s) => go_str(s),
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(0.0);
            if f.fract() == 0.0 && f.abs() < 1e21 {
                format!("{f:.0}")
            } else {
                n.to_string()
            }
        }
        other => other.to_string(),
    }
}

fn go_str(s: &str) -> String {
    serde_json::to_string(s)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}
