//! The object store of one simulated cluster: get/list with selectors, commits with
//! resource versions and finalizer semantics, and a watch event log (writes: `sim::mutate`,
//! seeding: `sim::seed`). Controllers that react to
//! writes (deployments, the Maestro agent) live in `sim::workload`.
//!
//! No IO besides the in-process watch channel (tokio broadcast); no network, no files.

use std::collections::{BTreeMap, HashSet, VecDeque};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::sync::broadcast;

use super::resources::ResourceInfo;
use super::scenario::LogEntry;
use super::select::{FieldSelector, LabelSelector};

/// An API error, served as a `Status` object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason,
            message: message.into(),
        }
    }

    pub fn not_found(r: &ResourceInfo, name: &str) -> Self {
        let what = if r.group.is_empty() {
            r.plural.clone()
        } else {
            format!("{}.{}", r.plural, r.group)
        };
        Self::new(404, "NotFound", format!("{what} \"{name}\" not found"))
    }
}

/// One change, as a watch stream reports it.
#[derive(Debug, Clone)]
pub struct WatchEvent {
    pub rv: u64,
    pub key: String,
    pub kind: &'static str,
    pub object: Value,
}

/// How many past events a watch from an old resourceVersion can replay.
const HISTORY: usize = 2000;

type Objects = BTreeMap<(String, String), Value>;

/// One simulated cluster.
pub struct Cluster {
    pub name: String,
    pub resources: Vec<ResourceInfo>,
    pub(super) objects: BTreeMap<String, Objects>,
    pub(super) rv: u64,
    pub(super) logs: Vec<LogEntry>,
    /// Names of soft-deleted Maestro bundles of this consumer (see `workload`).
    pub tombstones: HashSet<String>,
    history: VecDeque<WatchEvent>,
    pub tx: broadcast::Sender<WatchEvent>,
    /// The time ages are computed at, when the scenario freezes it.
    pub clock: Option<chrono::DateTime<chrono::Utc>>,
    /// Deployments here never settle after a scale or restart (the scenario's
    /// `fail_validation`): their pods and status keep the old counts, so a validation that
    /// checks the rollout fails on this cluster.
    pub stuck: bool,
}

/// A stable UUID-shaped id.
pub fn uid(seed: &str) -> String {
    let h = hex::encode(Sha256::digest(seed.as_bytes()));
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

pub(super) fn meta_str<'a>(o: &'a Value, field: &str) -> &'a str {
    o.pointer(&format!("/metadata/{field}"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

impl Cluster {
    /// A copy for a server-side dry run (`?dryRun=All`): the same objects, and a watch channel
    /// nobody listens on, so the write is computed and answered but never stored or seen.
    pub fn dry_run_copy(&self) -> Cluster {
        let (tx, _) = broadcast::channel(16);
        Cluster {
            name: self.name.clone(),
            resources: self.resources.clone(),
            objects: self.objects.clone(),
            rv: self.rv,
            logs: self.logs.clone(),
            tombstones: self.tombstones.clone(),
            history: VecDeque::new(),
            tx,
            clock: self.clock,
            stuck: self.stuck,
        }
    }

    /// An empty cluster serving `resources`, with `logs` for its pods.
    pub(super) fn empty(name: &str, resources: Vec<ResourceInfo>, logs: Vec<LogEntry>) -> Self {
        let (tx, _) = broadcast::channel(1024);
        Cluster {
            name: name.to_string(),
            resources,
            objects: BTreeMap::new(),
            rv: 1000,
            logs,
            tombstones: HashSet::new(),
            history: VecDeque::new(),
            tx,
            clock: None,
            stuck: false,
        }
    }

    /// Finds a served resource by group and plural.
    pub fn resource(&self, group: &str, plural: &str) -> Option<ResourceInfo> {
        self.resources
            .iter()
            .find(|r| r.group == group && r.plural == plural)
            .cloned()
    }

    /// The current resourceVersion.
    pub fn rv(&self) -> u64 {
        self.rv
    }

    /// Objects of `r` in `ns` (all namespaces when `None`) that match both selectors.
    pub fn list(
        &self,
        r: &ResourceInfo,
        ns: Option<&str>,
        ls: &LabelSelector,
        fs: &FieldSelector,
    ) -> Vec<Value> {
        let Some(objs) = self.objects.get(&r.key()) else {
            return Vec::new();
        };
        objs.iter()
            .filter(|((n, _), o)| ns.is_none_or(|want| want == n) && ls.matches(o) && fs.matches(o))
            .map(|(_, o)| o.clone())
            .collect()
    }

    pub fn get(&self, r: &ResourceInfo, ns: &str, name: &str) -> Result<Value, ApiError> {
        self.objects
            .get(&r.key())
            .and_then(|m| m.get(&(ns.to_string(), name.to_string())))
            .cloned()
            .ok_or_else(|| ApiError::not_found(r, name))
    }

    /// Stores `o` (which must carry kind/apiVersion/metadata), bumping the resourceVersion and
    /// notifying watchers; removes it when it is deleting and has no finalizers left.
    pub(super) fn commit(
        &mut self,
        r: &ResourceInfo,
        ns: &str,
        mut o: Value,
        kind: &'static str,
    ) -> Value {
        self.rv += 1;
        o["metadata"]["resourceVersion"] = json!(self.rv.to_string());
        let name = meta_str(&o, "name").to_string();
        let deleting = !o["metadata"]["deletionTimestamp"].is_null();
        let finalizers = o["metadata"]["finalizers"]
            .as_array()
            .is_some_and(|f| !f.is_empty());
        let key = (ns.to_string(), name.clone());
        let kind = if deleting && !finalizers {
            self.objects.entry(r.key()).or_default().remove(&key);
            "DELETED"
        } else {
            self.objects
                .entry(r.key())
                .or_default()
                .insert(key, o.clone());
            kind
        };
        let ev = WatchEvent {
            rv: self.rv,
            key: r.key(),
            kind,
            object: o.clone(),
        };
        if self.history.len() >= HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(ev.clone());
        let _ = self.tx.send(ev);
        if kind == "DELETED" {
            super::workload::after_removal(self, r, ns, &name);
        }
        o
    }

    /// The object of the newest recorded event for `key`/`ns`/`name`.
    pub(super) fn history_object(&self, key: &str, ns: &str, name: &str) -> Option<Value> {
        self.history
            .iter()
            .rev()
            .find(|e| {
                e.key == key
                    && meta_str(&e.object, "name") == name
                    && meta_str(&e.object, "namespace") == ns
            })
            .map(|e| e.object.clone())
    }

    /// Recorded events of `key` newer than `rv`.
    pub fn events_since(&self, key: &str, rv: u64) -> Vec<WatchEvent> {
        self.history
            .iter()
            .filter(|e| e.key == key && e.rv > rv)
            .cloned()
            .collect()
    }
}
