//! PURE resource registry of the simulated API server: the built-in kinds it serves, the
//! custom resources a scenario declares, and the discovery documents (`/api`, `/apis`,
//! `APIResourceList`) and CRD objects derived from them.
//!
//! No IO; imports only `sim::scenario`.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A printer column of `kubectl get` (a CRD's `additionalPrinterColumns`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    /// A simple JSONPath such as `.status.phase`.
    #[serde(rename = "jsonPath")]
    pub json_path: String,
    #[serde(default)]
    pub priority: u8,
}

/// One served resource (a kind in a group/version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceInfo {
    #[serde(default)]
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    #[serde(default)]
    pub singular: String,
    #[serde(default, rename = "shortNames")]
    pub short_names: Vec<String>,
    #[serde(default = "yes")]
    pub namespaced: bool,
    #[serde(default)]
    pub columns: Vec<Column>,
}

fn yes() -> bool {
    true
}

impl ResourceInfo {
    /// `v1` or `group/version`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The key objects of this resource are stored under: `plural.group`.
    pub fn key(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }

    fn singular(&self) -> String {
        if self.singular.is_empty() {
            self.kind.to_lowercase()
        } else {
            self.singular.clone()
        }
    }
}

fn builtin(
    group: &str,
    version: &str,
    kind: &str,
    plural: &str,
    short: &[&str],
    namespaced: bool,
) -> ResourceInfo {
    ResourceInfo {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
        plural: plural.into(),
        singular: kind.to_lowercase(),
        short_names: short.iter().map(|s| s.to_string()).collect(),
        namespaced,
        columns: Vec::new(),
    }
}

/// The built-in kinds every simulated cluster serves.
pub fn builtins() -> Vec<ResourceInfo> {
    vec![
        builtin("", "v1", "Namespace", "namespaces", &["ns"], false),
        builtin("", "v1", "Node", "nodes", &["no"], false),
        builtin("", "v1", "Pod", "pods", &["po"], true),
        builtin("", "v1", "Event", "events", &["ev"], true),
        builtin("", "v1", "Service", "services", &["svc"], true),
        builtin("", "v1", "ConfigMap", "configmaps", &["cm"], true),
        builtin("apps", "v1", "Deployment", "deployments", &["deploy"], true),
        builtin("apps", "v1", "DaemonSet", "daemonsets", &["ds"], true),
        builtin("apps", "v1", "ReplicaSet", "replicasets", &["rs"], true),
        builtin(
            "policy",
            "v1",
            "PodDisruptionBudget",
            "poddisruptionbudgets",
            &["pdb"],
            true,
        ),
        builtin("coordination.k8s.io", "v1", "Lease", "leases", &[], true),
        builtin(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
            &["crd", "crds"],
            false,
        ),
    ]
}

const VERBS: [&str; 8] = [
    "create",
    "delete",
    "get",
    "list",
    "patch",
    "update",
    "watch",
    "deletecollection",
];

/// The `APIResourceList` for one group/version.
pub fn resource_list(all: &[ResourceInfo], group: &str, version: &str) -> Option<Value> {
    let mut resources = Vec::new();
    for r in all
        .iter()
        .filter(|r| r.group == group && r.version == version)
    {
        resources.push(
            json!({"name": r.plural, "singularName": r.singular(), "namespaced": r.namespaced,
            "kind": r.kind, "verbs": VERBS, "shortNames": r.short_names}),
        );
        match r.kind.as_str() {
            "Deployment" | "ReplicaSet" => {
                resources.push(json!({"name": format!("{}/scale", r.plural),
                "singularName": "", "namespaced": true, "group": "autoscaling", "version": "v1",
                "kind": "Scale", "verbs": ["get", "patch", "update"]}))
            }
            "Pod" => resources.push(
                json!({"name": "pods/log", "singularName": "", "namespaced": true,
                "kind": "Pod", "verbs": ["get"]}),
            ),
            _ => {}
        }
    }
    if resources.is_empty() {
        return None;
    }
    let gv = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    Some(
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}),
    )
}

/// `/api`: the core versions.
pub fn core_versions() -> Value {
    json!({"kind": "APIVersions", "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]})
}

/// `/apis`: every non-core group with its (single) version.
pub fn group_list(all: &[ResourceInfo]) -> Value {
    let mut groups: Vec<(String, String)> = Vec::new();
    for r in all.iter().filter(|r| !r.group.is_empty()) {
        if !groups.iter().any(|(g, _)| *g == r.group) {
            groups.push((r.group.clone(), r.version.clone()));
        }
    }
    let groups: Vec<Value> = groups
        .iter()
        .map(|(g, v)| {
            let gv = json!({"groupVersion": format!("{g}/{v}"), "version": v});
            json!({"name": g, "versions": [gv.clone()], "preferredVersion": gv})
        })
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`: one group.
pub fn group(all: &[ResourceInfo], name: &str) -> Option<Value> {
    let list = group_list(all);
    let g = list["groups"]
        .as_array()?
        .iter()
        .find(|g| g["name"] == name)?
        .clone();
    let mut g = g;
    g["kind"] = json!("APIGroup");
    g["apiVersion"] = json!("v1");
    Some(g)
}

/// A `CustomResourceDefinition` object describing a scenario-declared resource.
pub fn crd_object(r: &ResourceInfo) -> Value {
    let columns: Vec<Value> = r
        .columns
        .iter()
        .map(|c| json!({"name": c.name, "type": "string", "jsonPath": c.json_path, "priority": c.priority}))
        .collect();
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{}.{}", r.plural, r.group)},
        "spec": {"group": r.group, "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
            "names": {"kind": r.kind, "plural": r.plural, "singular": r.singular(), "shortNames": r.short_names},
            "versions": [{"name": r.version, "served": true, "storage": true,
                "additionalPrinterColumns": columns,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]},
        "status": {"acceptedNames": {"kind": r.kind, "plural": r.plural}}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_lists_scale_and_short_names() {
        let all = builtins();
        let apps = resource_list(&all, "apps", "v1").unwrap();
        let names: Vec<&str> = apps["resources"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["name"].as_str())
            .collect();
        assert!(names.contains(&"deployments/scale"));
        let core = resource_list(&all, "", "v1").unwrap();
        let pods = core["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "pods")
            .unwrap();
        assert_eq!(pods["shortNames"][0], "po");
        assert!(resource_list(&all, "nope", "v1").is_none());
        assert!(group_list(&all)["groups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["name"] == "policy"));
    }
}
