//! PURE patch application: JSON merge patch (RFC 7386, also used for strategic merge patch)
//! and JSON patch (RFC 6902).
//!
//! No IO; imports nothing from tsgnav.

use serde_json::Value;

/// Applies a JSON merge patch in place (`null` removes a key).
pub fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Default::default());
    }
    if let Value::Object(t) = target {
        for (k, v) in p {
            if v.is_null() {
                t.remove(k);
            } else {
                merge(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

fn unescape(tok: &str) -> String {
    tok.replace("~1", "/").replace("~0", "~")
}

/// Splits a JSON pointer into its parent pointer and last token.
fn split_ptr(path: &str) -> Result<(String, String), String> {
    if !path.starts_with('/') {
        return Err(format!("path {path:?} must start with '/'"));
    }
    let idx = path.rfind('/').unwrap_or(0);
    Ok((path[..idx].to_string(), unescape(&path[idx + 1..])))
}

fn parent_mut<'a>(doc: &'a mut Value, parent: &str) -> Result<&'a mut Value, String> {
    doc.pointer_mut(parent)
        .ok_or_else(|| format!("path {parent:?} does not exist"))
}

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), String> {
    if path.is_empty() {
        *doc = value;
        return Ok(());
    }
    let (parent, last) = split_ptr(path)?;
    match parent_mut(doc, &parent)? {
        Value::Object(m) => {
            m.insert(last, value);
            Ok(())
        }
        Value::Array(a) => {
            if last == "-" {
                a.push(value);
                return Ok(());
            }
            let i: usize = last
                .parse()
                .map_err(|_| format!("array index {last:?} in {path:?} is not a number"))?;
            if i > a.len() {
                return Err(format!("array index {i} in {path:?} is out of bounds"));
            }
            a.insert(i, value);
            Ok(())
        }
        _ => Err(format!(
            "parent of {path:?} is neither an object nor an array"
        )),
    }
}

fn remove(doc: &mut Value, path: &str) -> Result<Value, String> {
    let (parent, last) = split_ptr(path)?;
    match parent_mut(doc, &parent)? {
        Value::Object(m) => m
            .remove(&last)
            .ok_or_else(|| format!("path {path:?} does not exist")),
        Value::Array(a) => {
            let i: usize = last
                .parse()
                .map_err(|_| format!("array index {last:?} in {path:?} is not a number"))?;
            if i >= a.len() {
                return Err(format!("array index {i} in {path:?} is out of bounds"));
            }
            Ok(a.remove(i))
        }
        _ => Err(format!("path {path:?} does not exist")),
    }
}

/// Applies a JSON patch (a list of operations); on error the document is left unchanged.
pub fn json_patch(doc: &mut Value, ops: &Value) -> Result<(), String> {
    let ops = ops
        .as_array()
        .ok_or("a JSON patch must be an array of operations")?;
    let mut work = doc.clone();
    for (n, op) in ops.iter().enumerate() {
        let kind = op
            .get("op")
            .and_then(Value::as_str)
            .ok_or(format!("operation {n} has no \"op\""))?;
        let path = op
            .get("path")
            .and_then(Value::as_str)
            .ok_or(format!("operation {n} has no \"path\""))?;
        let value = || {
            op.get("value")
                .cloned()
                .ok_or(format!("operation {n} ({kind}) has no \"value\""))
        };
        let from = || {
            op.get("from")
                .and_then(Value::as_str)
                .ok_or(format!("operation {n} ({kind}) has no \"from\""))
        };
        match kind {
            "add" => add(&mut work, path, value()?)?,
            "remove" => {
                remove(&mut work, path)?;
            }
            "replace" => {
                remove(&mut work, path)?;
                add(&mut work, path, value()?)?;
            }
            "move" => {
                let v = remove(&mut work, from()?)?;
                add(&mut work, path, v)?;
            }
            "copy" => {
                let v = work
                    .pointer(from()?)
                    .cloned()
                    .ok_or(format!("operation {n}: \"from\" does not exist"))?;
                add(&mut work, path, v)?;
            }
            "test" => {
                if work.pointer(path) != Some(&value()?) {
                    return Err(format!(
                        "test operation {n} failed: {path:?} does not hold the given value"
                    ));
                }
            }
            other => return Err(format!("operation {n} has unknown op {other:?}")),
        }
    }
    *doc = work;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_removes_nulls_and_merges_objects() {
        let mut d = json!({"metadata": {"finalizers": ["a"], "labels": {"x": "1"}}, "spec": {"replicas": 2}});
        merge(
            &mut d,
            &json!({"metadata": {"finalizers": null, "labels": {"y": "2"}}, "spec": {"replicas": 0}}),
        );
        assert_eq!(
            d,
            json!({"metadata": {"labels": {"x": "1", "y": "2"}}, "spec": {"replicas": 0}})
        );
    }

    #[test]
    fn json_patch_ops() {
        let mut d = json!({"metadata": {"finalizers": ["a", "b"]}, "spec": {}});
        json_patch(
            &mut d,
            &json!([{"op": "remove", "path": "/metadata/finalizers/0"},
            {"op": "add", "path": "/spec/replicas", "value": 3},
            {"op": "test", "path": "/spec/replicas", "value": 3},
            {"op": "replace", "path": "/metadata/finalizers", "value": []}]),
        )
        .unwrap();
        assert_eq!(
            d,
            json!({"metadata": {"finalizers": []}, "spec": {"replicas": 3}})
        );
        let before = d.clone();
        let err = json_patch(
            &mut d,
            &json!([{"op": "add", "path": "/spec/x", "value": 1},
            {"op": "remove", "path": "/nope"}]),
        );
        assert!(err.unwrap_err().contains("/nope"));
        assert_eq!(d, before, "a failed patch leaves the object unchanged");
    }
}
