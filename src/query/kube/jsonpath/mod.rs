//! PURE kubectl JSONPath: `-o jsonpath=` templates, `--sort-by` and custom-column
//! expressions, evaluated with client-go's semantics (see the Kubernetes "JSONPath support"
//! page): recursive descent, slices with negative ends, unions, filters with
//! `== != < > <= >=`, `range`/`end`, escaped dots and quoted literals. A template this module
//! cannot parse is reported by [`check`] so the caller hands the command to kubectl.
//!
//! No general JSONPath crate underneath: RFC 9535 differs from kubectl on exactly the points
//! that matter here (printing, `range`, bracketed dotted keys, errors on out-of-range
//! indexes), so a crate would need as much code again to undo them.
//!
//! No IO; imports nothing from tsgnav.

mod eval;
mod parse;

use serde_json::Value;

pub use eval::{go_v, print};

/// Whether kubectl's template `t` is one this module evaluates completely.
pub fn check(t: &str) -> Result<(), String> {
    parse::template(t).map(|_| ())
}

/// Applies a kubectl jsonpath template to `v`; the error names the template.
pub fn apply(template: &str, v: &Value) -> Result<String, String> {
    let nodes = parse::template(template)?;
    let mut out = String::new();
    eval::render(&nodes, v, &mut out)?;
    Ok(out)
}

/// kubectl's relaxed form for `--sort-by` and custom columns: `a.b`, `.a.b`, `{a.b}` and
/// `{.a.b}` all mean `{.a.b}`.
pub fn relaxed(expr: &str) -> Result<String, String> {
    if expr.is_empty() {
        return Ok(String::new());
    }
    let inner = match expr.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
        Some(i) => i,
        None => expr,
    };
    let inner = inner.strip_prefix('.').unwrap_or(inner);
    if inner.is_empty() || inner.contains(['{', '}']) {
        return Err(format!(
            "unexpected path string {expr:?}, expected a 'name1.name2' or '.name1.name2' or \
             '{{name1.name2}}' or '{{.name1.name2}}'"
        ));
    }
    Ok(format!("{{.{inner}}}"))
}

/// Every value a relaxed expression selects from `v` (for sorting and custom columns).
pub fn values<'a>(expr: &str, v: &'a Value) -> Result<Vec<&'a Value>, String> {
    let nodes = parse::template(&relaxed(expr)?)?;
    let mut out = Vec::new();
    for n in &nodes {
        if let parse::Node::Path(p) = n {
            out.extend(eval::eval(v, p)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
