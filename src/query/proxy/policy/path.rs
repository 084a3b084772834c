//! A Kubernetes API path read by its structure, the way the API server reads it:
//! `/api/v1[/watch][/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE…]]` and the same under
//! `/apis/GROUP/VERSION`; `/api/v1/namespaces/NS` is the namespace object itself, and its
//! `status` and `finalize` are its subresources. And whether one request is one of the writes
//! a confirmation named.
//!
//! Pure; imports `crate::safety` only.

use crate::safety::{KubeWrite, Scope, WriteVerb};

/// What a request path names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiPath {
    /// The API group (`""` for `/api/v1`); `None` for a path outside the resource API
    /// (`/version`, `/openapi/v2`, `/healthz`).
    pub group: Option<String>,
    pub namespace: Option<String>,
    /// `""` for discovery (`/api/v1`, `/apis/apps/v1`).
    pub resource: String,
    pub name: Option<String>,
    pub subresource: Option<String>,
    /// Segments after the subresource (the path a `proxy` subresource passes on).
    pub rest: usize,
}

/// Reads `path` (segments already percent-decoded by `decode`).
pub fn parse(path: &str, decode: impl Fn(&str) -> String) -> ApiPath {
    let segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(decode)
        .collect();
    let (group, rest) = match segs.first().map(String::as_str) {
        Some("api") if segs.len() >= 2 => (String::new(), &segs[2..]),
        Some("apis") if segs.len() >= 3 => (segs[1].clone(), &segs[3..]),
        _ => return ApiPath::default(),
    };
    let mut out = ApiPath {
        group: Some(group),
        ..ApiPath::default()
    };
    let mut rest = rest;
    if rest.first().is_some_and(|s| s == "watch") {
        rest = &rest[1..];
    }
    if rest.first().is_some_and(|s| s == "namespaces") && rest.len() >= 2 {
        let own_sub = rest.len() > 2 && matches!(rest[2].as_str(), "status" | "finalize");
        if rest.len() > 2 && !own_sub {
            out.namespace = Some(rest[1].clone());
            rest = &rest[2..];
        }
    }
    out.resource = rest.first().cloned().unwrap_or_default();
    out.name = rest.get(1).cloned();
    out.subresource = rest.get(2).cloned();
    out.rest = rest.len().saturating_sub(3);
    out
}

impl ApiPath {
    /// `pods/web-1/exec in namespace m`, `namespaces/web-1`, `deployments.apps/x/scale`.
    pub fn describe(&self) -> String {
        let mut s = self.resource.clone();
        if let Some(g) = self.group.as_deref().filter(|g| !g.is_empty()) {
            s = format!("{s}.{g}");
        }
        for part in [&self.name, &self.subresource].into_iter().flatten() {
            s = format!("{s}/{part}");
        }
        if let Some(ns) = &self.namespace {
            s = format!("{s} in namespace {ns}");
        }
        if self.name.is_none() && self.resource != "namespaces" {
            s = format!("{s} (the whole collection)");
        }
        s
    }

    /// Whether this is `pods/NAME/SUB` and nothing after it.
    pub fn pod_sub(&self, sub: &str) -> bool {
        self.group.as_deref() == Some("")
            && self.resource == "pods"
            && self.name.is_some()
            && self.subresource.as_deref() == Some(sub)
            && self.rest == 0
    }
}

/// One write as the confirmation names it: `delete pods/web-1 in namespace default`.
pub fn describe_write(w: &KubeWrite) -> String {
    let mut s = match w.resource.as_str() {
        "*" => "objects of a kind named at run time".to_string(),
        r => r.to_string(),
    };
    if let Some(g) = w.group.as_deref().filter(|g| !g.is_empty()) {
        s = format!("{s}.{g}");
    }
    s = match &w.name {
        Some(n) => format!("{s}/{n}"),
        None => format!("{s} (any name)"),
    };
    let at = match &w.scope {
        Scope::Named(ns) => format!(" in namespace {ns}"),
        Scope::NamedOrCluster(ns) => format!(" in namespace {ns} or cluster-scoped"),
        Scope::All => " in any namespace".into(),
        Scope::Default | Scope::DefaultOrCluster => " in the default namespace".into(),
        Scope::Cluster => String::new(),
    };
    format!("{} {s}{at}", w.verb.as_str())
}

/// Whether `method` on `p` (with `body`) is the write `w`.
pub fn is_write(w: &KubeWrite, method: &str, p: &ApiPath, body: &[u8]) -> bool {
    let group = match (&w.group, &p.group) {
        (_, None) => false,
        (Some(g), Some(h)) => g == h,
        (None, Some(_)) => true,
    };
    let resource = match &w.group {
        _ if w.resource == "*" => !p.resource.is_empty(),
        Some(_) => w.resource == p.resource,
        None => [
            w.resource.clone(),
            format!("{}s", w.resource),
            format!("{}es", w.resource),
        ]
        .contains(&p.resource),
    };
    let scope = match &w.scope {
        Scope::Cluster => p.namespace.is_none(),
        Scope::Named(ns) => p.namespace.as_ref() == Some(ns),
        Scope::NamedOrCluster(ns) => p.namespace.is_none() || p.namespace.as_ref() == Some(ns),
        Scope::All => p.namespace.is_some(),
        // Resolved to the run's namespace before it reaches the policy.
        Scope::Default | Scope::DefaultOrCluster => false,
    };
    let name = match (&w.name, &p.name) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(a), Some(b)) => a == b,
    };
    let sub = p.subresource.as_deref();
    let verb = match w.verb {
        WriteVerb::Delete => method == "DELETE" && name && sub.is_none(),
        WriteVerb::Patch => matches!(method, "PATCH" | "PUT") && name && sub.is_none(),
        WriteVerb::Scale => {
            matches!(method, "PATCH" | "PUT") && name && matches!(sub, None | Some("scale"))
        }
        WriteVerb::Evict => method == "POST" && name && sub == Some("eviction"),
        WriteVerb::Exec => {
            matches!(method, "GET" | "POST") && name && matches!(sub, Some("exec" | "attach"))
        }
        WriteVerb::Create => method == "POST" && p.name.is_none() && created(w, body),
    };
    group && resource && scope && verb && p.rest == 0
}

/// Whether a create's body names the object the confirmation named.
fn created(w: &KubeWrite, body: &[u8]) -> bool {
    let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    match &w.name {
        Some(n) => v["metadata"]["name"].as_str() == Some(n),
        None => true,
    }
}
