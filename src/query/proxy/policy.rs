//! Which Kubernetes API requests the read-only proxy forwards: discovery and every GET, LIST
//! and WATCH; `pods/log`; `pods/portforward`; `SelfSubject*Review`s; writes with
//! `dryRun=All`; `pods/exec` only when its `command=` parameters are a command
//! `crate::safety` classes read-only (and not interactive). Every other write is refused with
//! a Kubernetes `Status` 403, unless the run is a confirmed mitigation for this very context.
//!
//! Pure; imports `crate::safety` only.

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
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let deny = |why: &str| Decision::Deny(forbidden(run.context, why));
    // A `..` could climb out of the API server's path (a cluster behind a path prefix) once
    // a server normalises it; the API itself never needs one.
    if path
        .split('/')
        .any(|seg| matches!(decode(seg).as_str(), "." | ".."))
    {
        return deny("a path with `.` or `..` segments is not an API request");
    }
    if last == "exec" && path.contains("/pods/") {
        let flag = |n: &str| params(query, n).iter().any(|v| v == "true" || v == "1");
        let confirmed = run.confirmed == Some(run.context);
        if (flag("stdin") || flag("tty")) && !confirmed {
            return deny("an interactive exec needs a confirmation");
        }
        let script = exec_script(query);
        let verdict = crate::safety::classify(&script);
        return match verdict.class {
            crate::tsg::SafetyClass::ReadOnly => Decision::Forward,
            _ if run.confirmed == Some(run.context) => Decision::Forward,
            c => deny(&format!(
                "the command `{script}` run in the pod is {}",
                c.as_str()
            )),
        };
    }
    if last == "attach" && path.contains("/pods/") {
        return deny("attaching to a pod needs a confirmation");
    }
    if last == "portforward" && path.contains("/pods/") {
        return Decision::Forward;
    }
    if matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS") {
        return if path.split('/').any(|s| s == "proxy") && method != "GET" {
            deny("only GET passes through a proxy subresource")
        } else {
            Decision::Forward
        };
    }
    if method == "POST"
        && matches!(
            last,
            "selfsubjectaccessreviews" | "selfsubjectrulesreviews" | "selfsubjectreviews"
        )
    {
        return Decision::Forward;
    }
    if dry_run(&method, query, body) {
        return Decision::Forward;
    }
    if run.confirmed == Some(run.context) {
        return Decision::Forward;
    }
    deny(&format!("{method} {path} changes the cluster"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RO: Run<'static> = Run {
        context: "mc-1",
        confirmed: None,
    };
    const CONFIRMED: Run<'static> = Run {
        context: "mc-1",
        confirmed: Some("mc-1"),
    };
    const OTHER: Run<'static> = Run {
        context: "mc-2",
        confirmed: Some("mc-1"),
    };

    fn fwd(run: &Run<'_>, m: &str, p: &str, q: &str) -> bool {
        decide(run, m, p, q) == Decision::Forward
    }

    #[test]
    fn reads_pass_writes_are_403_in_a_read_only_run() {
        assert!(fwd(&RO, "GET", "/api/v1/namespaces/m/pods", "watch=true"));
        assert!(fwd(&RO, "GET", "/apis", ""));
        assert!(fwd(
            &RO,
            "GET",
            "/api/v1/namespaces/m/pods/p/log",
            "follow=true"
        ));
        assert!(fwd(
            &RO,
            "POST",
            "/api/v1/namespaces/m/pods/p/portforward",
            ""
        ));
        assert!(fwd(
            &RO,
            "POST",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            ""
        ));
        assert!(fwd(
            &RO,
            "DELETE",
            "/api/v1/namespaces/m/pods/p",
            "dryRun=All"
        ));
        for (m, p) in [
            ("DELETE", "/api/v1/namespaces/m/pods/p"),
            ("PATCH", "/apis/apps/v1/namespaces/m/deployments/d/scale"),
            ("POST", "/api/v1/namespaces"),
            ("PUT", "/api/v1/nodes/n"),
            ("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews"),
            ("POST", "/api/v1/namespaces/m/pods/p/proxy/x"),
        ] {
            match decide(&RO, m, p, "dryRun=None") {
                Decision::Deny(s) => {
                    assert_eq!(s["code"], 403);
                    assert_eq!(s["kind"], "Status");
                    let msg = s["message"].as_str().unwrap_or_default();
                    assert!(
                        msg.starts_with(
                            "tsgnav: read-only run; confirm this mitigation to change mc-1"
                        ),
                        "{msg}"
                    );
                }
                Decision::Forward => panic!("{m} {p} was forwarded"),
            }
        }
    }

    #[test]
    fn a_delete_is_a_dry_run_by_its_body_when_it_has_one() {
        let p = "/api/v1/namespaces/m/pods/p";
        let body = br#"{"kind":"DeleteOptions","dryRun":["All"]}"#;
        let dry = |q: &str, b: &[u8]| decide_with_body(&RO, "DELETE", p, q, b) == Decision::Forward;
        assert!(dry("", body));
        assert!(dry("dryRun=All", b""));
        // The API server ignores the query when the body has options.
        assert!(!dry("dryRun=All", br#"{"kind":"DeleteOptions"}"#));
        assert!(!dry("", br#"{"dryRun":[]}"#));
        assert!(!dry("", br#"{"dryRun":["All","None"]}"#));
        assert!(!dry("", b"not json"));
        assert!(!dry("dryRun=All&dryRun=None", b""));
    }

    #[test]
    fn writes_pass_in_a_confirmed_run_for_that_context_only() {
        assert!(fwd(&CONFIRMED, "DELETE", "/api/v1/namespaces/m/pods/p", ""));
        // Not into another cluster behind the same server's path prefix.
        for p in [
            "/../clusters/b/api/v1/namespaces/m/pods/p",
            "/api/v1/namespaces/m/pods/%2e%2e/p",
            "/api/./v1/pods",
        ] {
            assert!(!fwd(&CONFIRMED, "DELETE", p, ""), "{p}");
            assert!(!fwd(&RO, "GET", p, ""), "{p}");
        }
        assert!(!fwd(&OTHER, "DELETE", "/api/v1/namespaces/m/pods/p", ""));
    }

    #[test]
    fn exec_passes_only_a_read_only_command() {
        let p = "/api/v1/namespaces/m/pods/p/exec";
        assert!(fwd(
            &RO,
            "POST",
            p,
            "command=cat&command=%2Fetc%2Fhostname&stdout=true"
        ));
        assert!(fwd(&RO, "GET", p, "command=ls&command=-l"));
        assert!(!fwd(
            &RO,
            "POST",
            p,
            "command=rm&command=-rf&command=%2Fdata"
        ));
        assert!(!fwd(&RO, "POST", p, "command=sh&command=-c&command=kill+1"));
        assert!(!fwd(&RO, "GET", p, "command=sh&stdin=true&tty=true"));
        assert!(fwd(&CONFIRMED, "POST", p, "command=rm&command=%2Fx"));
        // `kubectl cp` into a pod, in a confirmed change: exec with stdin.
        assert!(fwd(
            &CONFIRMED,
            "POST",
            p,
            "command=tar&command=xf&command=-&stdin=true"
        ));
        assert!(!fwd(
            &OTHER,
            "POST",
            p,
            "command=tar&command=xf&command=-&stdin=true"
        ));
        assert!(!fwd(
            &RO,
            "POST",
            "/api/v1/namespaces/m/pods/p/attach",
            "stdin=true"
        ));
    }
}
