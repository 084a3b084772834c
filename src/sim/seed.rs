//! Seeding a simulated cluster from a scenario: every object gets the metadata the API
//! server would give it (namespace, uid, creationTimestamp, generation, resourceVersion),
//! namespaces are created as objects need them, CRD objects are added for the scenario's
//! custom resources, and events are linked to the uid of the object they name.
//!
//! No IO; works on `sim::store::Cluster`.

use std::collections::BTreeMap;

use chrono::Utc;
use serde_json::{json, Value};

use super::resources::{self, ResourceInfo};
use super::scenario::{resolve_times, stamp, Scenario};
use super::store::{meta_str, uid, Cluster};

impl Cluster {
    /// A cluster holding a fresh copy of the scenario's data.
    pub fn new(name: &str, sc: &Scenario) -> Self {
        let now = Utc::now();
        let mut resources = resources::builtins();
        resources.extend(sc.crds.iter().cloned());
        let mut c = Cluster::empty(name, resources, sc.logs.clone());
        c.clock = sc.frozen_clock.then_some(now);
        c.stuck = sc.fail_validation.iter().any(|n| n == name);
        for crd in &sc.crds {
            c.load(resources::crd_object(crd), now);
        }
        for o in &sc.objects {
            let mut o = o.clone();
            resolve_times(&mut o, now);
            c.load(o, now);
        }
        c.link_events();
        c.tombstones = sc
            .maestro
            .bundles
            .iter()
            .filter(|b| b["consumer_name"] == name && !b["deleted_at"].is_null())
            .filter_map(|b| b["name"].as_str().map(String::from))
            .collect();
        c
    }

    fn by_kind(&self, api_version: &str, kind: &str) -> Option<ResourceInfo> {
        self.resources
            .iter()
            .find(|r| r.kind == kind && r.api_version() == api_version)
            .cloned()
    }

    /// Adds a scenario object, filling the metadata the API server would.
    fn load(&mut self, mut o: Value, now: chrono::DateTime<Utc>) {
        let av = o["apiVersion"].as_str().unwrap_or("").to_string();
        let kind = o["kind"].as_str().unwrap_or("").to_string();
        let Some(r) = self.by_kind(&av, &kind) else {
            return;
        };
        let name = meta_str(&o, "name").to_string();
        let ns = if r.namespaced {
            Some(meta_str(&o, "namespace").to_string())
                .filter(|n| !n.is_empty())
                .unwrap_or("default".into())
        } else {
            String::new()
        };
        if !ns.is_empty() {
            self.ensure_namespace(&ns, now);
        }
        let m = &mut o["metadata"];
        if !ns.is_empty() {
            m["namespace"] = json!(ns);
        }
        if m["uid"].is_null() {
            m["uid"] = json!(uid(&format!("{}/{}/{ns}/{name}", self.name, r.key())));
        }
        if m["creationTimestamp"].is_null() {
            m["creationTimestamp"] = json!(stamp(now - chrono::Duration::days(3)));
        }
        if m["generation"].is_null() {
            m["generation"] = json!(1);
        }
        self.rv += 1;
        m["resourceVersion"] = json!(self.rv.to_string());
        if kind == "Deployment" {
            super::workload::fill_deployment_status(&mut o, false);
        }
        self.objects
            .entry(r.key())
            .or_default()
            .insert((ns, name), o);
    }

    fn ensure_namespace(&mut self, ns: &str, now: chrono::DateTime<Utc>) {
        let exists = self
            .objects
            .get("namespaces.")
            .is_some_and(|m| m.contains_key(&(String::new(), ns.to_string())));
        if !exists {
            self.load(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "creationTimestamp": stamp(now - chrono::Duration::days(30))}, "status": {"phase": "Active"}}), now);
        }
    }

    /// Gives each event's `involvedObject` the uid of the object it names.
    fn link_events(&mut self) {
        let mut uids = BTreeMap::new();
        for objs in self.objects.values() {
            for o in objs.values() {
                uids.insert(
                    (
                        o["kind"].as_str().unwrap_or("").to_string(),
                        meta_str(o, "namespace").to_string(),
                        meta_str(o, "name").to_string(),
                    ),
                    o["metadata"]["uid"].clone(),
                );
            }
        }
        if let Some(events) = self.objects.get_mut("events.") {
            for e in events.values_mut() {
                let io = &e["involvedObject"];
                let k = (
                    io["kind"].as_str().unwrap_or("").to_string(),
                    io["namespace"].as_str().unwrap_or("").to_string(),
                    io["name"].as_str().unwrap_or("").to_string(),
                );
                if let Some(u) = uids.get(&k) {
                    e["involvedObject"]["uid"] = u.clone();
                }
            }
        }
    }
}
