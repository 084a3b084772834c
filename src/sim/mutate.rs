//! The write path of a simulated cluster: create, replace (409 on a stale resourceVersion),
//! patch (merge, strategic-merge as merge, JSON patch; 415 for other types; 422 when a patch
//! cannot apply or breaks an immutable field) and delete with finalizer semantics.
//!
//! No IO; works on `sim::store::Cluster`.

use chrono::Utc;
use serde_json::{json, Value};

use super::patch;
use super::resources::ResourceInfo;
use super::scenario::stamp;
use super::store::{meta_str, uid, ApiError, Cluster};

impl Cluster {
    pub fn create(&mut self, r: &ResourceInfo, ns: &str, mut o: Value) -> Result<Value, ApiError> {
        let name = meta_str(&o, "name").to_string();
        if name.is_empty() {
            return Err(ApiError::new(
                422,
                "Invalid",
                format!(
                    "{} is invalid: metadata.name: Required value: name is required",
                    r.kind
                ),
            ));
        }
        if self.get(r, ns, &name).is_ok() {
            return Err(ApiError::new(
                409,
                "AlreadyExists",
                format!("{} \"{name}\" already exists", r.plural),
            ));
        }
        o["apiVersion"] = json!(r.api_version());
        o["kind"] = json!(r.kind);
        if r.namespaced {
            o["metadata"]["namespace"] = json!(ns);
        }
        o["metadata"]["uid"] = json!(uid(&format!(
            "{}/{}/{ns}/{name}/{}",
            self.name,
            r.key(),
            self.rv
        )));
        o["metadata"]["creationTimestamp"] = json!(stamp(Utc::now()));
        o["metadata"]["generation"] = json!(1);
        Ok(self.write(r, ns, None, o, "ADDED"))
    }

    /// Stores a changed object; deployments get their generation and pods reconciled.
    fn write(
        &mut self,
        r: &ResourceInfo,
        ns: &str,
        old: Option<&Value>,
        mut o: Value,
        kind: &'static str,
    ) -> Value {
        if r.kind == "Deployment" {
            let spec_changed = old.is_some_and(|old| old["spec"] != o["spec"]);
            if spec_changed {
                let g = o["metadata"]["generation"].as_i64().unwrap_or(1);
                o["metadata"]["generation"] = json!(g + 1);
            }
            let roll = old.is_some_and(|old| old["spec"]["template"] != o["spec"]["template"]);
            let o = self.commit(r, ns, o, kind);
            return super::workload::reconcile_deployment(self, r, ns, o, roll);
        }
        self.commit(r, ns, o, kind)
    }

    /// PUT: replaces the object; a stale `resourceVersion` is a 409 Conflict.
    pub fn update(
        &mut self,
        r: &ResourceInfo,
        ns: &str,
        name: &str,
        mut o: Value,
    ) -> Result<Value, ApiError> {
        let old = self.get(r, ns, name)?;
        let sent = meta_str(&o, "resourceVersion");
        if !sent.is_empty() && sent != meta_str(&old, "resourceVersion") {
            return Err(ApiError::new(409, "Conflict", format!("Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again", r.plural)));
        }
        self.keep_immutable(&old, &mut o, r, name)?;
        Ok(self.write(r, ns, Some(&old), o, "MODIFIED"))
    }

    fn keep_immutable(
        &self,
        old: &Value,
        o: &mut Value,
        r: &ResourceInfo,
        name: &str,
    ) -> Result<(), ApiError> {
        if meta_str(o, "name") != name {
            return Err(ApiError::new(422, "Invalid", format!("{} \"{name}\" is invalid: metadata.name: Invalid value: {:?}: field is immutable", r.kind, meta_str(o, "name"))));
        }
        for f in ["uid", "creationTimestamp", "namespace", "deletionTimestamp"] {
            o["metadata"][f] = old["metadata"][f].clone();
        }
        if o["metadata"]["deletionTimestamp"].is_null() {
            if let Some(m) = o["metadata"].as_object_mut() {
                m.remove("deletionTimestamp");
            }
        }
        o["apiVersion"] = old["apiVersion"].clone();
        o["kind"] = old["kind"].clone();
        if let Some(n) = o["spec"]["replicas"].as_i64() {
            if n < 0 {
                return Err(ApiError::new(422, "Invalid", format!("{} \"{name}\" is invalid: spec.replicas: Invalid value: {n}: must be greater than or equal to 0", r.kind)));
            }
        }
        Ok(())
    }

    /// PATCH with a merge, strategic-merge or JSON patch (by content type).
    pub fn patch(
        &mut self,
        r: &ResourceInfo,
        ns: &str,
        name: &str,
        content_type: &str,
        body: &Value,
    ) -> Result<Value, ApiError> {
        let old = self.get(r, ns, name)?;
        let mut o = old.clone();
        if content_type.starts_with("application/json-patch+json") {
            patch::json_patch(&mut o, body).map_err(|e| {
                ApiError::new(
                    422,
                    "Invalid",
                    format!(
                        "the JSON patch for {} \"{name}\" could not be applied: {e}",
                        r.plural
                    ),
                )
            })?;
        } else if content_type.starts_with("application/merge-patch+json")
            || content_type.starts_with("application/strategic-merge-patch+json")
        {
            patch::merge(&mut o, body);
        } else {
            return Err(ApiError::new(415, "UnsupportedMediaType", format!("the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got {content_type:?})")));
        }
        o["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
        self.keep_immutable(&old, &mut o, r, name)?;
        Ok(self.write(r, ns, Some(&old), o, "MODIFIED"))
    }

    /// DELETE: an object with finalizers gets `deletionTimestamp` and stays; others go now.
    pub fn delete(&mut self, r: &ResourceInfo, ns: &str, name: &str) -> Result<Value, ApiError> {
        let mut o = self.get(r, ns, name)?;
        if o["metadata"]["deletionTimestamp"].is_null() {
            o["metadata"]["deletionTimestamp"] = json!(stamp(Utc::now()));
            o["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        }
        Ok(self.commit(r, ns, o, "MODIFIED"))
    }
}
