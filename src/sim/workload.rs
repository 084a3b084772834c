//! Controllers of the simulated cluster, run synchronously after a write: a deployment keeps
//! `spec.replicas` pods (scaling creates or removes pods and updates the status, so
//! `kubectl rollout status` and `kubectl wait --for=delete` see it), the scale subresource, pod
//! logs, and the Maestro agent bug: while `maestro/maestro-agent` has replicas, a removed
//! ManifestWork whose bundle is soft-deleted on the server comes back.
//!
//! No IO; works on `sim::store::Cluster` only.

use chrono::Utc;
use serde_json::{json, Value};

use super::resources::ResourceInfo;
use super::scenario::stamp;
use super::select::{FieldSelector, LabelSelector};
use super::store::{ApiError, Cluster};

const MW_KEY: &str = "manifestworks.work.open-cluster-management.io";
const MW_FINALIZER: &str = "cluster.open-cluster-management.io/manifest-work-cleanup";

/// Sets the status fields of a deployment that has settled at `spec.replicas`; when
/// `overwrite` is false, fields the scenario gave are kept.
pub fn fill_deployment_status(o: &mut Value, overwrite: bool) {
    let n = o["spec"]["replicas"].as_i64().unwrap_or(1);
    let g = o["metadata"]["generation"].clone();
    let st = &mut o["status"];
    for f in [
        "replicas",
        "updatedReplicas",
        "readyReplicas",
        "availableReplicas",
    ] {
        if overwrite || st[f].is_null() {
            st[f] = json!(n);
        }
    }
    if overwrite || st["observedGeneration"].is_null() {
        st["observedGeneration"] = g;
    }
    if overwrite {
        st["conditions"] = json!([{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}]);
    }
}

fn selector_of(dep: &Value) -> LabelSelector {
    let reqs = dep["spec"]["selector"]["matchLabels"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    super::select::LabelReq::Eq(k.clone(), v.as_str().unwrap_or("").to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    LabelSelector(reqs)
}

/// Brings the pods of a deployment to `spec.replicas` and settles its status; with `roll`
/// (the pod template changed, e.g. `kubectl rollout restart`) every pod is replaced.
pub fn reconcile_deployment(
    c: &mut Cluster,
    r: &ResourceInfo,
    ns: &str,
    dep: Value,
    roll: bool,
) -> Value {
    let Some(pods_r) = c.resource("", "pods") else {
        return dep;
    };
    if c.stuck {
        // The knob for failing validations: the new spec is stored, nothing follows it.
        return c.commit(r, ns, dep, "MODIFIED");
    }
    let name = dep["metadata"]["name"].as_str().unwrap_or("").to_string();
    let want = dep["spec"]["replicas"].as_i64().unwrap_or(1).max(0) as usize;
    let sel = selector_of(&dep);
    if sel.0.is_empty() {
        return dep;
    }
    let mut pods = c.list(&pods_r, Some(ns), &sel, &FieldSelector::default());
    pods.retain(|p| p["metadata"]["deletionTimestamp"].is_null());
    pods.sort_by(|a, b| {
        a["metadata"]["creationTimestamp"]
            .as_str()
            .cmp(&b["metadata"]["creationTimestamp"].as_str())
    });
    let node = pods
        .first()
        .map(|p| p["spec"]["nodeName"].clone())
        .unwrap_or(Value::Null);
    let keep = if roll { 0 } else { want };
    while pods.len() > keep {
        if let Some(p) = pods.pop() {
            let mut gone = p;
            gone["metadata"]["deletionTimestamp"] = json!(stamp(Utc::now()));
            if let Some(m) = gone["metadata"].as_object_mut() {
                m.remove("finalizers");
            }
            c.commit(&pods_r, ns, gone, "MODIFIED");
        }
    }
    while pods.len() < want {
        let pod = new_pod(&dep, &name, ns, c.rv(), node.clone());
        let pod = c.commit(&pods_r, ns, pod, "ADDED");
        pods.push(pod);
    }
    let mut dep = dep;
    fill_deployment_status(&mut dep, true);
    c.commit(r, ns, dep, "MODIFIED")
}

fn new_pod(dep: &Value, name: &str, ns: &str, rv: u64, node: Value) -> Value {
    let tpl = &dep["spec"]["template"];
    let pod_name = format!("{name}-7d4f9c{:x}-{:05x}", rv % 16, (rv * 7919) % 0xfffff);
    let mut spec = tpl["spec"].clone();
    if !node.is_null() {
        spec["nodeName"] = node;
    }
    let statuses: Vec<Value> = spec["containers"]
        .as_array()
        .map(|cs| cs.iter().map(|ct| json!({"name": ct["name"], "image": ct["image"], "ready": true, "restartCount": 0, "started": true, "state": {"running": {"startedAt": stamp(Utc::now())}}})).collect())
        .unwrap_or_default();
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": pod_name, "namespace": ns, "labels": tpl["metadata"]["labels"],
            "uid": super::store::uid(&format!("{ns}/{pod_name}/{rv}")), "creationTimestamp": stamp(Utc::now()),
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{name}-7d4f9c"), "controller": true, "uid": super::store::uid(name)}]},
        "spec": spec,
        "status": {"phase": "Running", "podIP": format!("10.128.{}.{}", (rv / 200) % 250, rv % 250 + 2),
            "conditions": [{"type": "Ready", "status": "True"}], "containerStatuses": statuses,
            "startTime": stamp(Utc::now())}})
}

/// The Maestro agent: recreates a removed ManifestWork whose bundle is soft-deleted while the
/// agent deployment still has replicas (the bug the maestro guide works around).
pub fn after_removal(c: &mut Cluster, r: &ResourceInfo, ns: &str, name: &str) {
    if r.key() != MW_KEY || !c.tombstones.contains(name) || agent_replicas(c) == 0 {
        return;
    }
    let Some(last) = c.history_object(MW_KEY, ns, name) else {
        return;
    };
    let mut o = last;
    let m = &mut o["metadata"];
    if let Some(map) = m.as_object_mut() {
        map.remove("deletionTimestamp");
        map.remove("deletionGracePeriodSeconds");
    }
    m["finalizers"] = json!([MW_FINALIZER]);
    m["creationTimestamp"] = json!(stamp(Utc::now()));
    m["uid"] = json!(super::store::uid(&format!("{ns}/{name}/{}", c.rv())));
    c.commit(r, ns, o, "ADDED");
}

/// `spec.replicas` of deployment `maestro/maestro-agent` (0 when there is none).
pub fn agent_replicas(c: &Cluster) -> i64 {
    c.resource("apps", "deployments")
        .and_then(|d| c.get(&d, "maestro", "maestro-agent").ok())
        .and_then(|d| d["spec"]["replicas"].as_i64())
        .unwrap_or(0)
}

/// The `autoscaling/v1` Scale of a deployment.
pub fn scale_of(dep: &Value) -> Value {
    let md = &dep["metadata"];
    json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {"name": md["name"], "namespace": md["namespace"], "uid": md["uid"],
            "resourceVersion": md["resourceVersion"], "creationTimestamp": md["creationTimestamp"]},
        "spec": {"replicas": dep["spec"]["replicas"].as_i64().unwrap_or(1)},
        "status": {"replicas": dep["status"]["replicas"].as_i64().unwrap_or(0),
            "selector": selector_string(dep)}})
}

fn selector_string(dep: &Value) -> String {
    dep["spec"]["selector"]["matchLabels"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

/// Sets `spec.replicas` from a Scale body (PUT or already-patched) and returns the new Scale.
pub fn set_scale(
    c: &mut Cluster,
    r: &ResourceInfo,
    ns: &str,
    name: &str,
    scale: &Value,
) -> Result<Value, ApiError> {
    let n = scale["spec"]["replicas"].as_i64().ok_or_else(|| {
        ApiError::new(
            422,
            "Invalid",
            format!("Scale \"{name}\" is invalid: spec.replicas: Required value"),
        )
    })?;
    if n < 0 {
        return Err(ApiError::new(422, "Invalid", format!("Scale \"{name}\" is invalid: spec.replicas: Invalid value: {n}: must be greater than or equal to 0")));
    }
    let dep = c.patch(
        r,
        ns,
        name,
        "application/merge-patch+json",
        &json!({"spec": {"replicas": n}}),
    )?;
    Ok(scale_of(&dep))
}

/// The log of a pod's container (`previous` for the last terminated one), last `tail` lines.
pub fn logs(
    c: &Cluster,
    ns: &str,
    pod: &str,
    container: Option<&str>,
    previous: bool,
    tail: Option<usize>,
) -> Result<String, ApiError> {
    let pods_r = c
        .resource("", "pods")
        .ok_or_else(|| ApiError::new(404, "NotFound", "pods are not served"))?;
    let p = c.get(&pods_r, ns, pod)?;
    let containers: Vec<String> = p["spec"]["containers"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .filter_map(|x| x["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let container = match container {
        Some(ct) if containers.iter().any(|x| x == ct) => ct.to_string(),
        Some(ct) => {
            return Err(ApiError::new(
                400,
                "BadRequest",
                format!("container {ct} is not valid for pod {pod}"),
            ))
        }
        None if containers.len() == 1 => containers[0].clone(),
        None => {
            return Err(ApiError::new(
                400,
                "BadRequest",
                format!(
                    "a container name must be specified for pod {pod}, choose one of: [{}]",
                    containers.join(" ")
                ),
            ))
        }
    };
    let entry = c
        .logs
        .iter()
        .find(|l| l.is_for(ns, pod, &container, previous));
    let text = match entry {
        Some(e) => e.text.clone(),
        None if previous => {
            return Err(ApiError::new(
                400,
                "BadRequest",
                format!("previous terminated container \"{container}\" in pod \"{pod}\" not found"),
            ))
        }
        None => String::new(),
    };
    Ok(match tail {
        Some(n) => {
            let lines: Vec<&str> = text.lines().collect();
            let mut out = lines[lines.len().saturating_sub(n)..].join("\n");
            if !out.is_empty() {
                out.push('\n');
            }
            out
        }
        None => text,
    })
}
