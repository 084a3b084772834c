//! A confirmed probe's pass confined to the writes its confirmation named: the kubectl/oc
//! objects of the command as previewed (after substitution, with the values passed through
//! the environment), each with its verb, group/resource, namespace (the context's default
//! where the command gives none) and name (`crate::safety::kube_writes`). The proxy then
//! lets exactly those writes through ([`super::policy::Run::writes`]) and answers any other
//! with a 403 that names the mismatch.
//!
//! IO edge (the pass it changes lives in the proxy); the reading is pure. Must not import
//! `cli`, `tui`, `nav` or `evidence`.

use super::policy::{Scope, Write};
use super::Grant;
use crate::query::ProbeRequest;

/// The writes `req`'s command names, namespaces not given resolved to `default_ns`.
pub fn writes_of(req: &ProbeRequest, default_ns: &str) -> Vec<Write> {
    let (text, env) = match crate::query::vars::substitute(req.lang, &req.code, &req.bindings) {
        Ok(s) => (s.text, s.env),
        Err(_) => (req.code.clone(), Vec::new()),
    };
    resolve(crate::safety::kube_writes(&text, &env), default_ns)
}

/// `writes` with the default namespace made `default_ns`.
pub fn resolve(writes: Vec<Write>, default_ns: &str) -> Vec<Write> {
    writes
        .into_iter()
        .map(|mut w| {
            w.scope = match w.scope {
                Scope::Default => Scope::Named(default_ns.to_string()),
                Scope::DefaultOrCluster => Scope::NamedOrCluster(default_ns.to_string()),
                s => s,
            };
            w
        })
        .collect()
}

impl Grant {
    /// Confines this pass to `writes` (a namespace not given is the context's default): a
    /// confirmed run may then make these and no other write. The first call counts; later
    /// ones are ignored, so a pass is never widened.
    pub fn confine(&self, writes: Vec<Write>) {
        let _ = self.pass.writes.set(resolve(writes, &self.namespace));
    }

    /// Confines this pass to the writes `req`'s command names.
    pub fn confine_to(&self, req: &ProbeRequest) {
        self.confine(writes_of(req, &self.namespace));
    }

    /// The writes this pass is confined to, if it is.
    pub fn writes(&self) -> Option<&[Write]> {
        self.pass.writes.get().map(Vec::as_slice)
    }
}
