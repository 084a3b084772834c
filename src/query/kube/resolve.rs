//! PURE helpers for resolving resources as kubectl does: the [`Resolved`] resource and its
//! URL paths (namespaces and names percent-encoded, so a value is never path syntax), the
//! stable built-in kinds known without a discovery round trip, and the lookup of a name in an
//! `APIResourceList` by plural, singular, kind or short name.
//!
//! No IO; uses only kube's (sans-IO) discovery types.

use kube::discovery::ApiResource;
use serde_json::Value;

/// A resolved resource and whether it is namespaced.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub ar: ApiResource,
    pub namespaced: bool,
}

/// Percent-encodes one path segment (a namespace or a name is data, never path syntax).
pub fn segment(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~:@".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

impl Resolved {
    /// The collection path in `ns` (ignored for cluster-scoped resources).
    pub fn path(&self, ns: Option<&str>) -> String {
        let base = if self.ar.group.is_empty() {
            format!("/api/{}", self.ar.version)
        } else {
            format!("/apis/{}/{}", self.ar.group, self.ar.version)
        };
        match ns {
            Some(n) if self.namespaced => {
                format!("{base}/namespaces/{}/{}", segment(n), self.ar.plural)
            }
            _ => format!("{base}/{}", self.ar.plural),
        }
    }
}

/// The stable built-in kinds, resolved without a discovery round trip (kubectl caches
/// discovery on disk for the same reason).
pub fn well_known(want: &str, group: Option<&str>) -> Option<Resolved> {
    /// (group, version, kind, plural, other names, namespaced)
    type Known = (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static [&'static str],
        bool,
    );
    const KNOWN: [Known; 9] = [
        ("", "v1", "Pod", "pods", &["po", "pod"], true),
        ("", "v1", "Node", "nodes", &["no", "node"], false),
        (
            "",
            "v1",
            "Namespace",
            "namespaces",
            &["ns", "namespace"],
            false,
        ),
        ("", "v1", "Event", "events", &["ev", "event"], true),
        ("", "v1", "Service", "services", &["svc", "service"], true),
        (
            "",
            "v1",
            "ConfigMap",
            "configmaps",
            &["cm", "configmap"],
            true,
        ),
        (
            "apps",
            "v1",
            "Deployment",
            "deployments",
            &["deploy", "deployment"],
            true,
        ),
        (
            "apps",
            "v1",
            "DaemonSet",
            "daemonsets",
            &["ds", "daemonset"],
            true,
        ),
        (
            "apps",
            "v1",
            "ReplicaSet",
            "replicasets",
            &["rs", "replicaset"],
            true,
        ),
    ];
    let (g, v, kind, plural, _, namespaced) = KNOWN.iter().find(|(g, _, _, plural, alt, _)| {
        group.is_none_or(|h| h == *g) && (*plural == want || alt.contains(&want))
    })?;
    let gvk = kube::core::GroupVersionKind::gvk(g, v, kind);
    Some(Resolved {
        ar: ApiResource::from_gvk_with_plural(&gvk, plural),
        namespaced: *namespaced,
    })
}

/// Finds `want` in an `APIResourceList` by plural, singular, short name or kind.
pub fn find(list: &Value, want: &str, group: &str, version: &str) -> Option<Resolved> {
    let r = list["resources"].as_array()?.iter().find(|r| {
        let name = r["name"].as_str().unwrap_or("");
        !name.contains('/')
            && (name == want
                || r["singularName"].as_str() == Some(want)
                || r["kind"].as_str().is_some_and(|k| k.to_lowercase() == want)
                || r["shortNames"]
                    .as_array()
                    .is_some_and(|s| s.iter().any(|x| x == want)))
    })?;
    let gvk = kube::core::GroupVersionKind::gvk(group, version, r["kind"].as_str()?);
    Some(Resolved {
        ar: ApiResource::from_gvk_with_plural(&gvk, r["name"].as_str()?),
        namespaced: r["namespaced"].as_bool().unwrap_or(true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_and_lookup() {
        let pods = well_known("po", None).expect("pods");
        assert_eq!(
            pods.path(Some("a b/c")),
            "/api/v1/namespaces/a%20b%2Fc/pods"
        );
        assert!(well_known("deployments", Some("apps")).is_some());
        assert!(well_known("deployments", Some("extensions")).is_none());
        let list = json!({"resources": [{"name": "multitenantpodnetworkconfigs", "singularName": "multitenantpodnetworkconfig", "kind": "MultitenantPodNetworkConfig", "namespaced": true, "shortNames": ["mtpnc"]},
            {"name": "multitenantpodnetworkconfigs/status", "kind": "MultitenantPodNetworkConfig"}]});
        let r = find(&list, "mtpnc", "multitenancy.acn.azure.com", "v1alpha1").expect("short name");
        assert_eq!(
            r.path(None),
            "/apis/multitenancy.acn.azure.com/v1alpha1/multitenantpodnetworkconfigs"
        );
        assert!(find(&list, "multitenantpodnetworkconfig", "g", "v1").is_some());
        assert!(find(&list, "status", "g", "v1").is_none());
    }
}
