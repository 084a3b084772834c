//! PURE `--sort-by` as kubectl does it: each object's first value at the relaxed JSONPath,
//! numbers by value, strings as Kubernetes quantities when both parse (`100Mi` < `1Gi`) and
//! otherwise in natural order (`pod-9` < `pod-10`); objects without the field come first.
//! Also the custom-columns table.
//!
//! No IO; imports only `query::Table` and `kube::jsonpath`.

use std::cmp::Ordering;

use serde_json::Value;

use super::super::Table;
use super::jsonpath;

/// The order of `objs` sorted by `expr` (stable), or kubectl's error.
pub fn order(objs: &[Value], expr: &str) -> Result<Vec<usize>, String> {
    let keys: Vec<Option<Value>> = objs
        .iter()
        .map(|o| jsonpath::values(expr, o).map(|v| v.first().map(|x| (*x).clone())))
        .collect::<Result<_, _>>()?;
    if !objs.is_empty() && keys.iter().all(Option::is_none) {
        let t = jsonpath::relaxed(expr)?;
        return Err(format!(
            "couldn't find any field with path {t:?} in the list of objects"
        ));
    }
    let mut idx: Vec<usize> = (0..objs.len()).collect();
    let mut err = None;
    idx.sort_by(|a, b| match (&keys[*a], &keys[*b]) {
        (None, None) => Ordering::Equal,
        (None, _) => Ordering::Less,
        (_, None) => Ordering::Greater,
        (Some(x), Some(y)) => compare(x, y).unwrap_or_else(|e| {
            err.get_or_insert(e);
            Ordering::Equal
        }),
    });
    match err {
        Some(e) => Err(e),
        None => Ok(idx),
    }
}

fn compare(a: &Value, b: &Value) -> Result<Ordering, String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => Ok(i.cmp(&j)),
            _ => Ok(x
                .as_f64()
                .partial_cmp(&y.as_f64())
                .unwrap_or(Ordering::Equal)),
        },
        (Value::String(x), Value::String(y)) => Ok(match (quantity(x), quantity(y)) {
            (Some(p), Some(q)) => p.partial_cmp(&q).unwrap_or(Ordering::Equal),
            _ => natural(x, y),
        }),
        (Value::Bool(_), _) | (Value::Object(_), _) | (Value::Array(_), _) => {
            Err(format!("field is an unsortable type: {a}"))
        }
        _ => Err(format!("cannot sort {a} against {b}")),
    }
}

/// A Kubernetes quantity's value (`250m`, `1Gi`, `1.5`, `2e3`), or `None`.
pub fn quantity(s: &str) -> Option<f64> {
    let num_end = s
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_digit() || *c == '.' || (*i == 0 && "+-".contains(*c))))
        .map_or(s.len(), |(i, _)| i);
    let (num, suffix) = s.split_at(num_end);
    if num.is_empty() || num == "+" || num == "-" {
        return None;
    }
    let n: f64 = num.parse().ok()?;
    let mult = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        e if e.starts_with(['e', 'E']) => 10f64.powi(e[1..].parse::<i32>().ok()?),
        _ => return None,
    };
    Some(n * mult)
}

/// Natural order: runs of digits compare by value, digits before other bytes.
pub fn natural(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        let (dx, dy) = (x[i].is_ascii_digit(), y[j].is_ascii_digit());
        if dx != dy {
            return if dx {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        if !dx {
            if x[i] != y[j] {
                return x[i].cmp(&y[j]);
            }
            i += 1;
            j += 1;
            continue;
        }
        while i < x.len() && x[i] == b'0' {
            i += 1;
        }
        while j < y.len() && y[j] == b'0' {
            j += 1;
        }
        let (nz_i, nz_j) = (i, j);
        while i < x.len() && x[i].is_ascii_digit() {
            i += 1;
        }
        while j < y.len() && y[j].is_ascii_digit() {
            j += 1;
        }
        let (li, lj) = (i - nz_i, j - nz_j);
        if li != lj {
            return li.cmp(&lj);
        }
        if x[nz_i..i] != y[nz_j..j] {
            return x[nz_i..i].cmp(&y[nz_j..j]);
        }
        if nz_i != nz_j {
            return nz_i.cmp(&nz_j);
        }
    }
    x.len().cmp(&y.len())
}

/// The `-o custom-columns` table: one row per object, several values joined by `,`,
/// `<none>` when the expression finds nothing, values printed as Go's `%v`.
pub fn custom_columns(objs: &[Value], cols: &[(String, String)]) -> Result<Table, String> {
    let mut rows = Vec::new();
    for o in objs {
        let mut row = Vec::new();
        for (_, expr) in cols {
            let vals = jsonpath::values(expr, o)?;
            row.push(if vals.is_empty() {
                "<none>".to_string()
            } else {
                vals.iter()
                    .map(|v| jsonpath::go_v(v))
                    .collect::<Vec<_>>()
                    .join(",")
            });
        }
        rows.push(row);
    }
    Ok(Table {
        columns: cols.iter().map(|(h, _)| h.clone()).collect(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn natural_and_quantity_order() {
        assert_eq!(natural("pod-9", "pod-10"), Ordering::Less);
        assert_eq!(natural("a", "b"), Ordering::Less);
        assert_eq!(natural("1a", "a"), Ordering::Less);
        assert_eq!(natural("x01", "x1"), Ordering::Greater);
        assert_eq!(quantity("250m"), Some(0.25));
        assert_eq!(quantity("1Gi"), Some(1073741824.0));
        assert_eq!(quantity("abc"), None);
        let objs = vec![
            json!({"m": {"n": "b-10", "q": "1Gi"}}),
            json!({"m": {"n": "b-9", "q": "100Mi"}}),
            json!({"m": {}}),
        ];
        assert_eq!(order(&objs, ".m.n").unwrap(), vec![2, 1, 0]);
        assert_eq!(order(&objs, "{.m.q}").unwrap(), vec![2, 1, 0]);
        assert!(order(&objs, ".m.zz").unwrap_err().contains("couldn't find"));
    }

    #[test]
    fn custom_columns_print_like_kubectl() {
        let objs = vec![json!({"metadata": {"name": "a", "labels": {"x": "1"}},
            "spec": {"containers": [{"name": "c1"}, {"name": "c2"}]}})];
        let cols = vec![
            ("NAME".to_string(), ".metadata.name".to_string()),
            ("C".to_string(), ".spec.containers[*].name".to_string()),
            ("L".to_string(), ".metadata.labels".to_string()),
            ("NODE".to_string(), ".spec.nodeName".to_string()),
        ];
        let t = custom_columns(&objs, &cols).unwrap();
        assert_eq!(t.columns, vec!["NAME", "C", "L", "NODE"]);
        assert_eq!(t.rows[0], vec!["a", "c1,c2", "map[x:1]", "<none>"]);
    }
}
