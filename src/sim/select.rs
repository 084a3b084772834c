//! PURE label and field selectors as the Kubernetes API server reads them
//! (`labelSelector=app=x,tier!=db,env in (a,b),!legacy`, `fieldSelector=status.phase!=Failed`).
//!
//! No IO; imports nothing from tsgnav.

use serde_json::Value;

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelReq {
    Eq(String, String),
    Ne(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

/// A parsed label selector: every requirement must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector(pub Vec<LabelReq>);

/// A parsed field selector: `(path, wanted, equal)`; every term must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector(pub Vec<(String, String, bool)>);

/// Splits on commas that are not inside parentheses.
fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn set_values(rest: &str) -> Result<Vec<String>, String> {
    let rest = rest.trim();
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| format!("expected a parenthesised value list, found {rest:?}"))?;
    Ok(inner
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect())
}

impl LabelSelector {
    /// Parses a selector; the error names the term that could not be read.
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut reqs = Vec::new();
        for term in split_top(s) {
            let req = if let Some(k) = term.strip_prefix('!') {
                LabelReq::NotExists(k.trim().to_string())
            } else if let Some((k, v)) = term.split_once("!=") {
                LabelReq::Ne(k.trim().to_string(), v.trim().to_string())
            } else if let Some((k, v)) = term.split_once("==") {
                LabelReq::Eq(k.trim().to_string(), v.trim().to_string())
            } else if let Some((k, v)) = term.split_once('=') {
                LabelReq::Eq(k.trim().to_string(), v.trim().to_string())
            } else if let Some((k, rest)) = term.split_once(" notin ") {
                LabelReq::NotIn(k.trim().to_string(), set_values(rest)?)
            } else if let Some((k, rest)) = term.split_once(" in ") {
                LabelReq::In(k.trim().to_string(), set_values(rest)?)
            } else if term.contains(' ') || term.contains('(') {
                return Err(format!("unable to parse requirement {term:?}"));
            } else {
                LabelReq::Exists(term)
            };
            reqs.push(req);
        }
        Ok(LabelSelector(reqs))
    }

    /// Whether an object's `metadata.labels` satisfy every requirement.
    pub fn matches(&self, obj: &Value) -> bool {
        let labels = obj.pointer("/metadata/labels");
        let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        self.0.iter().all(|r| match r {
            LabelReq::Eq(k, v) => get(k) == Some(v.as_str()),
            LabelReq::Ne(k, v) => get(k) != Some(v.as_str()),
            LabelReq::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            LabelReq::NotIn(k, vs) => !get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            LabelReq::Exists(k) => get(k).is_some(),
            LabelReq::NotExists(k) => get(k).is_none(),
        })
    }
}

/// The string value of a dotted field path (`spec.nodeName`, `involvedObject.uid`); missing is "".
pub fn field_value(obj: &Value, path: &str) -> String {
    let mut cur = obj;
    for part in path.split('.') {
        match cur.get(part) {
            Some(v) => cur = v,
            None => return String::new(),
        }
    }
    match cur {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl FieldSelector {
    /// Parses `a=b,c!=d`; the error names the term that could not be read.
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut terms = Vec::new();
        for term in split_top(s) {
            let (k, v, eq) = if let Some((k, v)) = term.split_once("!=") {
                (k, v, false)
            } else if let Some((k, v)) = term.split_once("==") {
                (k, v, true)
            } else if let Some((k, v)) = term.split_once('=') {
                (k, v, true)
            } else {
                return Err(format!(
                    "invalid field selector term {term:?}: expected key=value or key!=value"
                ));
            };
            terms.push((k.trim().to_string(), v.trim().to_string(), eq));
        }
        Ok(FieldSelector(terms))
    }

    /// Whether every term holds for the object.
    pub fn matches(&self, obj: &Value) -> bool {
        self.0
            .iter()
            .all(|(k, v, eq)| (field_value(obj, k) == *v) == *eq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod() -> Value {
        json!({"metadata": {"name": "p", "namespace": "ns", "labels": {"app": "web", "tier": "fe"}},
               "spec": {"nodeName": "n1"}, "status": {"phase": "Pending"}})
    }

    #[test]
    fn label_forms() {
        let p = pod();
        let m = |s: &str| LabelSelector::parse(s).unwrap().matches(&p);
        assert!(m("app=web"));
        assert!(m("app==web,tier"));
        assert!(!m("app!=web"));
        assert!(m("app in (web, api)"));
        assert!(!m("app notin (web)"));
        assert!(m("tier notin (db),!legacy"));
        assert!(!m("legacy"));
        assert!(m(""));
        assert!(LabelSelector::parse("app in web").is_err());
    }

    #[test]
    fn field_forms() {
        let p = pod();
        let m = |s: &str| FieldSelector::parse(s).unwrap().matches(&p);
        assert!(m("status.phase=Pending,spec.nodeName=n1"));
        assert!(!m("status.phase!=Pending"));
        assert!(m("metadata.namespace=ns,metadata.name==p"));
        assert!(m("reason!=FailedScheduling"));
        assert!(FieldSelector::parse("status.phase").is_err());
    }
}
