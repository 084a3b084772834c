//! The read-only API proxy for kubectl/oc/helm. A probe that runs them gets a kubeconfig
//! tsgnav writes ([`Grant::write_kubeconfig`]) whose one server is a loopback proxy
//! ([`Proxy`]) and whose one credential is a token for this probe; the real credentials stay
//! in tsgnav's kube client. The proxy applies [`policy::decide`] to every request (reads pass;
//! writes only as `dryRun=All`, or in a confirmed change aimed at this very context), answers
//! the rest with a Kubernetes `Status` 403, streams watches and logs, splices upgrades
//! (port-forward, exec), and records every decision ([`Grant::decisions`]).
//!
//! Part of the IO edge (`query`); the policy itself is pure. Must not import `cli`, `tui`,
//! `nav` or `evidence`.

mod cache;
pub mod confine;
pub mod discovery;
pub mod forward;
pub mod grant;
pub mod policy;
pub mod probe;
pub mod server;

pub use grant::{Decided, Grant, GrantError};
pub use probe::{ProbeAccess, SessionProxy};
pub use server::Proxy;
