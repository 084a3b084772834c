//! PURE request routing of the simulated API server: which cluster a path addresses
//! (`/clusters/<name>/…`, or the first cluster without the prefix), and which Kubernetes
//! endpoint it is. Also the `Status` error body.
//!
//! No IO; imports only `sim::store::ApiError`.

use serde_json::{json, Value};

use super::store::ApiError;

/// A Kubernetes API endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Version,
    CoreVersions,
    CoreResources,
    Groups,
    Group(String),
    GroupResources(String, String),
    /// A resource path: `(group, version, namespace, plural, name, subresource)`.
    Resource {
        group: String,
        version: String,
        ns: Option<String>,
        plural: String,
        name: Option<String>,
        sub: Option<String>,
    },
    Unknown,
}

/// Splits `/clusters/<name>/rest` into `(Some(name), /rest)`.
pub fn split_cluster(path: &str) -> (Option<&str>, &str) {
    match path.strip_prefix("/clusters/") {
        Some(rest) => match rest.find('/') {
            Some(i) => (Some(&rest[..i]), &rest[i..]),
            None => (Some(rest), "/"),
        },
        None => (None, path),
    }
}

fn resource(group: &str, version: &str, segs: &[&str]) -> Route {
    let (ns, rest) = if segs.first() == Some(&"namespaces") && segs.len() >= 3 {
        (Some(segs[1].to_string()), &segs[2..])
    } else {
        (None, segs)
    };
    let Some(plural) = rest.first() else {
        return Route::Unknown;
    };
    if rest.len() > 3 {
        return Route::Unknown;
    }
    Route::Resource {
        group: group.to_string(),
        version: version.to_string(),
        ns,
        plural: plural.to_string(),
        name: rest.get(1).map(|s| s.to_string()),
        sub: rest.get(2).map(|s| s.to_string()),
    }
}

/// Decodes `%XX` escapes of one path segment.
pub fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).and_then(|c| hex(*c)),
            b.get(i + 2).and_then(|c| hex(*c)),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Classifies a path (without the cluster prefix); segments are percent-decoded.
pub fn route(path: &str) -> Route {
    let owned: Vec<String> = path
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .map(decode)
        .collect();
    let segs: Vec<&str> = owned.iter().map(String::as_str).collect();
    match segs.as_slice() {
        ["version"] => Route::Version,
        ["api"] => Route::CoreVersions,
        ["api", "v1"] => Route::CoreResources,
        ["api", "v1", rest @ ..] => resource("", "v1", rest),
        ["apis"] => Route::Groups,
        ["apis", g] => Route::Group(g.to_string()),
        ["apis", g, v] => Route::GroupResources(g.to_string(), v.to_string()),
        ["apis", g, v, rest @ ..] => resource(g, v, rest),
        _ => Route::Unknown,
    }
}

/// The `Status` object for an error.
pub fn status(e: &ApiError) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": e.message, "reason": e.reason, "code": e.code})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(
            split_cluster("/clusters/mc-1/api/v1"),
            (Some("mc-1"), "/api/v1")
        );
        assert_eq!(split_cluster("/api"), (None, "/api"));
        assert_eq!(
            route("/api/v1/namespaces/kube-system/pods/cns-1/log"),
            Route::Resource {
                group: "".into(),
                version: "v1".into(),
                ns: Some("kube-system".into()),
                plural: "pods".into(),
                name: Some("cns-1".into()),
                sub: Some("log".into())
            }
        );
        assert_eq!(
            route("/api/v1/namespaces/kube-system"),
            Route::Resource {
                group: "".into(),
                version: "v1".into(),
                ns: None,
                plural: "namespaces".into(),
                name: Some("kube-system".into()),
                sub: None
            }
        );
        assert_eq!(
            route("/apis/apps/v1/deployments"),
            Route::Resource {
                group: "apps".into(),
                version: "v1".into(),
                ns: None,
                plural: "deployments".into(),
                name: None,
                sub: None
            }
        );
        assert_eq!(route("/apis/apps"), Route::Group("apps".into()));
        assert_eq!(route("/healthz/x/y"), Route::Unknown);
        assert_eq!(decode("x%27%3B%20y%2F"), "x'; y/");
    }
}
