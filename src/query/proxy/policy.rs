//! Which Kubernetes API requests the API proxy forwards, read from the path's structure
//! ([`path::parse`]), never from a suffix: discovery and every GET, LIST and WATCH (`--raw`
//! and `kubectl proxy` send the same requests); `pods/NAME/log`; `pods/NAME/portforward`
//! (GET or POST); `SelfSubject*Review`s; writes with `dryRun=All`; `pods/NAME/exec` only when
//! its `command=` parameters are a command `crate::safety` classes read-only (and not
//! interactive). `exec`, `attach` and `portforward` count only as the subresource right after
//! a pod's name, so `DELETE …/pods/exec` is the deletion of a pod named `exec`. Every other
//! write is refused with a Kubernetes `Status` 403, unless the run is a confirmed mitigation
//! for this very context; and when the confirmation named its writes ([`Run::writes`]), only a
//! request that is one of them (verb, group/resource, namespace, name) passes, and the 403
//! names the mismatch.
//!
//! Pure; imports `crate::safety` only.

pub mod path;

use serde_json::{json, Value};

/// What to do with one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Forward,
    /// Answer with this `Status` object and HTTP 403.
    Deny(Value),
}

/// The run the proxy serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run<'a> {
    /// The kube context the proxy stands for.
    pub context: &'a str,
    /// The context a confirmed mitigation of this run may change, if any.
    pub confirmed: Option<&'a str>,
    /// The writes the confirmation named, namespaces resolved (see
    /// `crate::safety::kube_writes`): when given, a confirmed run may make these and no
    /// other. `None` leaves a confirmed run free to write to its context.
    pub writes: Option<&'a [Write]>,
}

pub use crate::safety::{KubeWrite as Write, Scope, WriteVerb};

/// The `Status` 403 of a confirmed run's request that is not one of its writes.
pub fn mismatch(context: &str, writes: &[Write], method: &str, asked: &str) -> Value {
    let may = match writes {
        [] => format!(
            "this run's confirmation names no write tsgnav can check on context {context} \
             (the command's objects are not in its words, as with `apply -f`)"
        ),
        w => format!(
            "this run may {} of context {context}",
            w.iter()
                .map(path::describe_write)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("tsgnav: {may}; refused {method} {asked}"),
        "reason": "Forbidden", "code": 403,
    })
}

/// The `Status` 403 a refused request gets.
pub fn forbidden(context: &str, why: &str) -> Value {
    json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("tsgnav: read-only run; confirm this mitigation to change {context} ({why})"),
        "reason": "Forbidden", "code": 403,
    })
}

/// `%41` and `+` decoded (query values).
fn decode(s: &str) -> String {
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push(h * 16 + l);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The decoded values of `name` in a query string, in order.
fn params(query: &str, name: &str) -> Vec<String> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('=').or(Some((kv, ""))))
        .filter(|(k, _)| decode(k) == name)
        .map(|(_, v)| decode(v))
        .collect()
}

/// The command of a `pods/exec` request, quoted for the classifier.
fn exec_script(query: &str) -> String {
    params(query, "command")
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a write is a server-side dry run, read as the API server reads it: a DELETE
/// with a body takes its options (`"dryRun": ["All"]`) from the body and ignores the query;
/// every other write (and a DELETE without a body) from `?dryRun=All`.
fn dry_run(method: &str, query: &str, body: &[u8]) -> bool {
    let all = |v: &[String]| !v.is_empty() && v.iter().all(|d| d == "All");
    if method == "DELETE" && !body.iter().all(u8::is_ascii_whitespace) {
        let opts: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let listed: Vec<String> = opts["dryRun"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|d| d.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default();
        return all(&listed);
    }
    all(&params(query, "dryRun"))
}

/// Decides one request without a body (see [`decide_with_body`]).
pub fn decide(run: &Run<'_>, method: &str, path: &str, query: &str) -> Decision {
    decide_with_body(run, method, path, query, &[])
}

/// Decides one request: `method`, the URL `path` (no query), the raw `query` and the body.
pub fn decide_with_body(
    run: &Run<'_>,
    method: &str,
    path: &str,
    query: &str,
    body: &[u8],
) -> Decision {
    let method = method.to_ascii_uppercase();
    let deny = |why: &str| Decision::Deny(forbidden(run.context, why));
    // A `..` could climb out of the API server's path (a cluster behind a path prefix) once
    // a server normalises it; the API itself never needs one.
    if path
        .split('/')
        .any(|seg| matches!(decode(seg).as_str(), "." | ".."))
    {
        return deny("a path with `.` or `..` segments is not an API request");
    }
    let p = path::parse(path, decode);
    let confirmed = run.confirmed == Some(run.context);
    // The confirmed write this request is, if the run may make it.
    let granted = |p: &path::ApiPath| match run.writes {
        None => confirmed,
        Some(ws) => confirmed && ws.iter().any(|w| path::is_write(w, &method, p, body)),
    };
    let refuse = |p: &path::ApiPath, why: &str| match (confirmed, run.writes) {
        (true, Some(ws)) => Decision::Deny(mismatch(run.context, ws, &method, &p.describe())),
        _ => deny(why),
    };
    for sub in ["exec", "attach", "portforward"] {
        if p.pod_sub(sub) && !matches!(method.as_str(), "GET" | "POST") {
            return deny(&format!(
                "{method} is not a way to open pods/…/{sub} (only GET and POST are)"
            ));
        }
    }
    if p.pod_sub("exec") {
        return exec(&p, query, granted(&p), refuse);
    }
    if p.pod_sub("attach") {
        return match granted(&p) {
            true => Decision::Forward,
            false => refuse(&p, "attaching to a pod needs a confirmation"),
        };
    }
    if p.pod_sub("portforward") {
        return Decision::Forward;
    }
    let proxied = p.subresource.as_deref() == Some("proxy") || p.resource == "proxy";
    if matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS") {
        return if proxied && method != "GET" {
            deny("only GET passes through a proxy subresource")
        } else {
            Decision::Forward
        };
    }
    if proxied {
        return deny("only GET passes through a proxy subresource");
    }
    if p.group.is_none() {
        return deny(&format!(
            "{method} {path} is not a request of the resource API"
        ));
    }
    let review = matches!(
        p.group.as_deref(),
        Some("authorization.k8s.io" | "authentication.k8s.io")
    ) && matches!(
        p.resource.as_str(),
        "selfsubjectaccessreviews" | "selfsubjectrulesreviews" | "selfsubjectreviews"
    ) && p.name.is_none();
    if method == "POST" && review {
        return Decision::Forward;
    }
    if dry_run(&method, query, body) {
        return Decision::Forward;
    }
    if granted(&p) {
        return Decision::Forward;
    }
    refuse(&p, &format!("{method} {path} changes the cluster"))
}

/// `pods/NAME/exec`: a read-only command passes; any other only as a confirmed write.
fn exec(
    p: &path::ApiPath,
    query: &str,
    granted: bool,
    refuse: impl Fn(&path::ApiPath, &str) -> Decision,
) -> Decision {
    let flag = |n: &str| params(query, n).iter().any(|v| v == "true" || v == "1");
    if (flag("stdin") || flag("tty")) && !granted {
        return refuse(p, "an interactive exec needs a confirmation");
    }
    let script = exec_script(query);
    match crate::safety::classify(&script).class {
        crate::tsg::SafetyClass::ReadOnly => Decision::Forward,
        _ if granted => Decision::Forward,
        c => refuse(
            p,
            &format!("the command `{script}` run in the pod is {}", c.as_str()),
        ),
    }
}

#[cfg(test)]
mod tests;
