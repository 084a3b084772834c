//! The read-only API proxy for kubectl/oc/helm. So far only its request policy
//! ([`policy::decide`]): which Kubernetes API requests pass in a read-only run and in a
//! confirmed one, and the `Status` 403 that refuses the rest. The loopback server that applies
//! it is not written yet.
//!
//! Part of the IO edge (`query`); the policy itself is pure. Must not import `cli`, `tui`,
//! `nav` or `evidence`.

pub mod policy;
