//! PURE scenario model: what a simulated management cluster holds (custom resource
//! definitions, objects as plain Kubernetes manifests, container logs, Maestro bundles), read
//! from YAML. Time strings `now`, `now-2h`, `now-15m` are resolved against a given instant.
//!
//! No IO (the bundled scenarios are compiled in with `include_str!`); imports only
//! `sim::resources` and `sim::SimError`.

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::resources::ResourceInfo;
use super::SimError;

/// Log text of one container; `pod` names a pod, or `deployment` every pod whose name starts
/// with `<deployment>-` (so pods created by scaling up have logs too).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct LogEntry {
    pub namespace: String,
    #[serde(default)]
    pub pod: Option<String>,
    #[serde(default)]
    pub deployment: Option<String>,
    #[serde(default)]
    pub container: Option<String>,
    #[serde(default)]
    pub previous: bool,
    pub text: String,
}

impl LogEntry {
    /// Whether this entry holds the log of `pod`'s `container`.
    pub fn is_for(&self, ns: &str, pod: &str, container: &str, previous: bool) -> bool {
        let pod_ok = match (&self.pod, &self.deployment) {
            (Some(p), _) => p == pod,
            (None, Some(d)) => pod.starts_with(&format!("{d}-")),
            (None, None) => false,
        };
        self.namespace == ns
            && pod_ok
            && self.previous == previous
            && self.container.as_deref().is_none_or(|c| c == container)
    }
}

/// Maestro server data: consumers and resource bundles (JSON as Maestro returns it).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct MaestroData {
    #[serde(default)]
    pub consumers: Vec<Value>,
    #[serde(default)]
    pub bundles: Vec<Value>,
}

/// A scenario: the same data is served for every cluster name in `clusters`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Scenario {
    pub name: String,
    /// Context / cluster names; the first is the kubeconfig's current context.
    #[serde(default)]
    pub clusters: Vec<String>,
    /// Custom resources (served under their group, with a CRD object each).
    #[serde(default)]
    pub crds: Vec<ResourceInfo>,
    /// Kubernetes objects (`apiVersion`, `kind`, `metadata`, …).
    #[serde(default)]
    pub objects: Vec<Value>,
    #[serde(default)]
    pub logs: Vec<LogEntry>,
    #[serde(default)]
    pub maestro: MaestroData,
    /// Ages are computed at the start time, not the wall clock (so two tools asked a second
    /// apart print the same `8m1s`).
    #[serde(default)]
    pub frozen_clock: bool,
    /// Clusters whose deployments never settle after a scale or restart, so a validation of
    /// the rollout fails there (`tsgnav sim serve --fail-validation GLOB`).
    #[serde(default)]
    pub fail_validation: Vec<String>,
}

const SWIFT: &str = include_str!("../../assets/scenarios/swift.yaml");
const MAESTRO: &str = include_str!("../../assets/scenarios/maestro.yaml");

/// Regions used to name generated clusters (`mc-eastus-1`, `mc-westus3-1`, …).
const REGIONS: [&str; 8] = [
    "eastus",
    "westus3",
    "westeurope",
    "uksouth",
    "eastus2",
    "centralus",
    "swedencentral",
    "australiaeast",
];

impl Scenario {
    /// Reads a scenario; the error carries the YAML line and column.
    pub fn from_yaml(text: &str) -> Result<Self, SimError> {
        let mut s: Scenario =
            yaml_serde::from_str(text).map_err(|e| SimError::Scenario(e.to_string()))?;
        if s.clusters.is_empty() {
            s.clusters.push("mc-eastus-1".into());
        }
        for (i, o) in s.objects.iter().enumerate() {
            for field in ["apiVersion", "kind"] {
                if o.get(field).and_then(Value::as_str).is_none() {
                    return Err(SimError::Scenario(format!(
                        "object {i} has no {field:?}; add it (e.g. apiVersion: v1, kind: Pod)"
                    )));
                }
            }
            if o.pointer("/metadata/name")
                .and_then(Value::as_str)
                .is_none()
            {
                return Err(SimError::Scenario(format!(
                    "object {i} ({}) has no metadata.name",
                    o["kind"]
                )));
            }
        }
        Ok(s)
    }

    /// A scenario bundled with tsgnav: `swift` or `maestro`.
    pub fn builtin(name: &str) -> Result<Self, SimError> {
        match name {
            "swift" => Self::from_yaml(SWIFT),
            "maestro" => Self::from_yaml(MAESTRO),
            other => Err(SimError::Scenario(format!(
                "no bundled scenario {other:?}; use swift, maestro or a YAML file"
            ))),
        }
    }

    /// Freezes the clock that ages are computed with at the start time.
    pub fn with_frozen_clock(mut self) -> Self {
        self.frozen_clock = true;
        self
    }

    /// Replaces the cluster list with `n` generated names (`mc-eastus-1`, `mc-westus3-1`, …).
    pub fn with_clusters(mut self, n: usize) -> Self {
        self.clusters = (0..n)
            .map(|i| {
                format!(
                    "mc-{}-{}",
                    REGIONS[i % REGIONS.len()],
                    i / REGIONS.len() + 1
                )
            })
            .collect();
        self
    }
}

/// Parses `now`, `now-2h`, `now+30s`, `now-3d` relative to `now`.
fn relative(s: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let rest = s.strip_prefix("now")?;
    if rest.is_empty() {
        return Some(now);
    }
    let (sign, amount) = match rest.as_bytes().first()? {
        b'-' => (-1, &rest[1..]),
        b'+' => (1, &rest[1..]),
        _ => return None,
    };
    let (num, unit) = amount.split_at(amount.len().checked_sub(1)?);
    let n: i64 = num.parse().ok()?;
    let d = match unit {
        "s" => Duration::seconds(n),
        "m" => Duration::minutes(n),
        "h" => Duration::hours(n),
        "d" => Duration::days(n),
        _ => return None,
    };
    Some(now + d * sign)
}

/// An RFC 3339 timestamp with second precision, as the API server writes them.
pub fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Replaces every string of the form `now…` in `v` with an RFC 3339 timestamp.
pub fn resolve_times(v: &mut Value, now: DateTime<Utc>) {
    match v {
        Value::String(s) => {
            if let Some(t) = relative(s, now) {
                *s = stamp(t);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| resolve_times(x, now)),
        Value::Object(m) => m.values_mut().for_each(|x| resolve_times(x, now)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bundled_scenarios_load() {
        for name in ["swift", "maestro"] {
            let s = Scenario::builtin(name).unwrap();
            assert!(!s.objects.is_empty(), "{name} has objects");
            assert_eq!(s.clusters[0], "mc-eastus-1");
        }
        assert!(Scenario::builtin("nope")
            .unwrap_err()
            .to_string()
            .contains("swift, maestro"));
    }

    #[test]
    fn bad_scenarios_are_named() {
        let e = Scenario::from_yaml("name: x\nobjects:\n- kind: Pod\n  metadata: {name: p}\n")
            .unwrap_err();
        assert!(
            e.to_string().contains("object 0 has no \"apiVersion\""),
            "{e}"
        );
        let e = Scenario::from_yaml("name: [x").unwrap_err();
        assert!(e.to_string().contains("line"), "{e}");
    }

    #[test]
    fn times_and_cluster_names() {
        let now = DateTime::parse_from_rfc3339("2026-01-02T03:04:05Z")
            .unwrap()
            .with_timezone(&Utc);
        let mut v = json!({"a": "now-2h", "b": ["now+30s", "nowhere"], "c": "now"});
        resolve_times(&mut v, now);
        assert_eq!(
            v,
            json!({"a": "2026-01-02T01:04:05Z", "b": ["2026-01-02T03:04:35Z", "nowhere"], "c": "2026-01-02T03:04:05Z"})
        );
        let s = Scenario::from_yaml("name: x").unwrap().with_clusters(10);
        assert_eq!(s.clusters[1], "mc-westus3-1");
        assert_eq!(s.clusters[8], "mc-eastus-2");
    }
}
