//! PURE per-kind cells of the server-side table: READY/STATUS/RESTARTS for pods (a waiting
//! reason such as `ContainerCreating` wins over the phase), STATUS/ROLES/VERSION for nodes,
//! the replica counts of deployments and daemonsets, services, PDBs, and the printer columns
//! of custom resources.
//!
//! No IO; imports only `sim::resources` and `sim::table` helpers.

use serde_json::{json, Value};

use super::resources::ResourceInfo;
use super::table::{json_path, text};

fn pod_status(p: &Value) -> String {
    if !p["metadata"]["deletionTimestamp"].is_null() {
        return "Terminating".into();
    }
    let statuses = p["status"]["containerStatuses"].as_array();
    for cs in statuses.into_iter().flatten() {
        if let Some(r) = cs["state"]["waiting"]["reason"].as_str() {
            return r.into();
        }
        if let Some(r) = cs["state"]["terminated"]["reason"].as_str() {
            return r.into();
        }
    }
    text(p.pointer("/status/phase"))
}

fn pod_cells(p: &Value) -> Vec<Value> {
    let cs = p["status"]["containerStatuses"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let total = p["spec"]["containers"]
        .as_array()
        .map_or(cs.len(), Vec::len);
    let ready = cs.iter().filter(|c| c["ready"] == true).count();
    let restarts: i64 = cs.iter().filter_map(|c| c["restartCount"].as_i64()).sum();
    vec![
        json!(format!("{ready}/{total}")),
        json!(pod_status(p)),
        json!(restarts),
    ]
}

fn node_status(n: &Value) -> String {
    let ready = n["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Ready")
        .map(|c| c["status"] == "True");
    let mut s = match ready {
        Some(true) => "Ready".to_string(),
        Some(false) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    };
    if n["spec"]["unschedulable"] == true {
        s.push_str(",SchedulingDisabled");
    }
    s
}

fn node_roles(n: &Value) -> String {
    let roles: Vec<&str> = n["metadata"]["labels"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, _)| k.strip_prefix("node-role.kubernetes.io/"))
        .collect();
    if roles.is_empty() {
        "<none>".into()
    } else {
        roles.join(",")
    }
}

fn node_ip(n: &Value, kind: &str) -> String {
    let a = n["status"]["addresses"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| a["type"] == kind);
    a.and_then(|a| a["address"].as_str())
        .unwrap_or("<none>")
        .to_string()
}

fn ports(s: &Value) -> String {
    let ps: Vec<String> = s["spec"]["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            format!(
                "{}/{}",
                text(p.get("port")),
                p["protocol"].as_str().unwrap_or("TCP")
            )
        })
        .collect();
    if ps.is_empty() {
        "<none>".into()
    } else {
        ps.join(",")
    }
}

type Cols = Vec<(String, u8)>;

fn cols(c: &[(&str, u8)]) -> Cols {
    c.iter().map(|(n, p)| (n.to_string(), *p)).collect()
}

/// The cells of one kind: its columns (name, priority) and the object's values for them.
type Cells = (Cols, Vec<Value>);

/// How one kind's cells are made from an object.
type CellsOf = fn(&Value) -> Cells;

/// The kinds whose columns are printed here; any other kind prints its printer columns.
const KINDS: &[(&str, CellsOf)] = &[
    ("Pod", pod),
    ("Node", node),
    ("Namespace", namespace),
    ("Deployment", deployment),
    ("DaemonSet", daemon_set),
    ("Service", service),
    ("PodDisruptionBudget", disruption_budget),
];

/// Column names (with priority) and the cells of one object, between NAME and AGE unless the
/// kind prints differently (events).
pub fn columns(r: &ResourceInfo, o: &Value) -> Cells {
    match KINDS.iter().find(|(k, _)| *k == r.kind) {
        Some((_, cells)) => cells(o),
        None => printer_columns(r, o),
    }
}

/// The value at a JSONPath of `o` as a cell.
fn at(o: &Value, path: &str) -> Value {
    json!(text(json_path(o, path)))
}

fn pod(o: &Value) -> Cells {
    let mut cells = pod_cells(o);
    cells.extend([
        at(o, ".status.podIP"),
        at(o, ".spec.nodeName"),
        json!("<none>"),
        json!("<none>"),
    ]);
    let names = [
        ("Ready", 0),
        ("Status", 0),
        ("Restarts", 0),
        ("IP", 1),
        ("Node", 1),
        ("Nominated Node", 1),
        ("Readiness Gates", 1),
    ];
    (cols(&names), cells)
}

fn node(o: &Value) -> Cells {
    let cells = vec![
        json!(node_status(o)),
        json!(node_roles(o)),
        at(o, ".status.nodeInfo.kubeletVersion"),
        json!(node_ip(o, "InternalIP")),
        json!(node_ip(o, "ExternalIP")),
        at(o, ".status.nodeInfo.osImage"),
        at(o, ".status.nodeInfo.kernelVersion"),
        at(o, ".status.nodeInfo.containerRuntimeVersion"),
    ];
    let names = [
        ("Status", 0),
        ("Roles", 0),
        ("Version", 0),
        ("Internal-IP", 1),
        ("External-IP", 1),
        ("OS-Image", 1),
        ("Kernel-Version", 1),
        ("Container-Runtime", 1),
    ];
    (cols(&names), cells)
}

fn namespace(o: &Value) -> Cells {
    (cols(&[("Status", 0)]), vec![at(o, ".status.phase")])
}

fn deployment(o: &Value) -> Cells {
    let st = &o["status"];
    let ready = format!(
        "{}/{}",
        st["readyReplicas"].as_i64().unwrap_or(0),
        o["spec"]["replicas"].as_i64().unwrap_or(1)
    );
    let cells = vec![
        json!(ready),
        json!(st["updatedReplicas"].as_i64().unwrap_or(0)),
        json!(st["availableReplicas"].as_i64().unwrap_or(0)),
    ];
    (
        cols(&[("Ready", 0), ("Up-to-date", 0), ("Available", 0)]),
        cells,
    )
}

/// The status counts a daemonset prints, column by column.
const DAEMON_SET_COUNTS: &[(&str, &str)] = &[
    ("Desired", "desiredNumberScheduled"),
    ("Current", "currentNumberScheduled"),
    ("Ready", "numberReady"),
    ("Up-to-date", "updatedNumberScheduled"),
    ("Available", "numberAvailable"),
];

fn daemon_set(o: &Value) -> Cells {
    let st = &o["status"];
    DAEMON_SET_COUNTS
        .iter()
        .map(|(col, field)| {
            (
                (col.to_string(), 0),
                json!(st[*field].as_i64().unwrap_or(0)),
            )
        })
        .unzip()
}

fn service(o: &Value) -> Cells {
    let names = [
        ("Type", 0),
        ("Cluster-IP", 0),
        ("External-IP", 0),
        ("Port(s)", 0),
    ];
    let cells = vec![
        at(o, ".spec.type"),
        at(o, ".spec.clusterIP"),
        json!("<none>"),
        json!(ports(o)),
    ];
    (cols(&names), cells)
}

fn disruption_budget(o: &Value) -> Cells {
    let or_na = |p: &str| json!(text(json_path(o, p)).replace("<none>", "N/A"));
    let names = [
        ("Min Available", 0),
        ("Max Unavailable", 0),
        ("Allowed Disruptions", 0),
    ];
    let cells = vec![
        or_na(".spec.minAvailable"),
        or_na(".spec.maxUnavailable"),
        json!(o["status"]["disruptionsAllowed"].as_i64().unwrap_or(0)),
    ];
    (cols(&names), cells)
}

/// A custom resource: the printer columns its definition declares.
fn printer_columns(r: &ResourceInfo, o: &Value) -> Cells {
    r.columns
        .iter()
        .map(|c| ((c.name.clone(), c.priority), at(o, &c.json_path)))
        .unzip()
}
