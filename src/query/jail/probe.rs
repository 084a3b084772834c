//! Putting one shell probe in its jail: its scratch `HOME` and `TMPDIR`, the doors it gets
//! (the API proxy at the proxy's own port, the egress proxy, port-forwards), the paths it
//! may read, what is hidden (the operator's home, the real kubeconfigs), its kubeconfig
//! written only inside, then Landlock and seccomp. Read-only and confirmed probes get the
//! same jail: a confirmed change reaches the cluster only through the proxy, with its grant.
//! The operator's environment stays outside but for the terminal and locale (`super::env`).
//!
//! IO edge. Must not import `cli`, `tui`, `nav` or `evidence`.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use super::{Entered, JailDoors, JailError, Spec};
use crate::query::sandbox::{self, Forwarded, Sandbox, SandboxPolicy};

/// The API proxy's door for one probe.
pub struct KubeDoor {
    /// What serves the door's connections: the proxy, as the probe's own grant.
    pub door: super::Outside,
    /// The port inside (the proxy's own, so the kubeconfig reads the same).
    pub port: u16,
    /// The probe's kubeconfig, written at `query::proxy::probe::GRANT_KUBECONFIG` inside.
    pub kubeconfig: Vec<u8>,
    /// The shared discovery folder of the probe's context, shown read-only (`None`: the probe
    /// discovers for itself in its scratch).
    pub cache: Option<PathBuf>,
}

/// A probe set up to start jailed.
pub struct Jailed {
    pub entered: Entered,
    /// The Landlock layer inside.
    pub landlock: Sandbox,
}

/// Sets `cmd` up to run in a jail: `scratch` is its one writable folder, `hide` lists
/// files and folders to make empty (the real kubeconfigs; the operator's home is always
/// hidden). `cmd` then only describes the probe (program, arguments, environment):
/// [`Entered::spawn`](super::Entered::spawn) starts it.
pub fn jail_probe(
    cmd: &mut tokio::process::Command,
    policy: &SandboxPolicy,
    doors: &JailDoors,
    scratch: &Path,
    kube: Option<KubeDoor>,
    hide: Vec<PathBuf>,
) -> Result<Jailed, JailError> {
    super::env::scrub(cmd, &policy.pass_env);
    let home = super::scratch_home(scratch);
    std::fs::create_dir_all(&home)
        .map_err(|e| JailError::Prepare(format!("cannot create {}: {e}", home.display())))?;
    cmd.env("HOME", &home).env("TMPDIR", scratch);
    for (k, v) in doors.proxy_env() {
        cmd.env(k, v);
    }
    let mut forwarded = policy.forwarded_ports.clone();
    forwarded.extend(Forwarded::ports());
    let api = kube.as_ref().map(|k| (k.door.clone(), k.port));
    let list = doors.for_probe(api, &forwarded);
    let ports: Vec<u16> = list.iter().map(|d| d.inside_port).collect();
    let operator_home = std::env::var_os("HOME").map(PathBuf::from);
    let mut spec = Spec::new(scratch)
        .doors(list)
        .read_only(policy.read_only.clone())
        .hide(hide.into_iter().chain(operator_home));
    if let Some(k) = kube {
        spec = spec
            .secret(
                PathBuf::from(crate::query::proxy::probe::GRANT_KUBECONFIG),
                k.kubeconfig,
            )
            .read_only(k.cache);
    }
    let mut entered = super::enter(spec)?;
    let prepared = sandbox::prepare(sandbox::detect(policy), &[scratch], &ports, false)
        .map_err(|e| JailError::Prepare(e.to_string()))?;
    entered.landlock(prepared.ruleset.and_then(Option::<OwnedFd>::from));
    Ok(Jailed {
        entered,
        landlock: prepared.sandbox,
    })
}

/// The kubeconfig files a probe could name: `KUBECONFIG` of the probe and of tsgnav, the
/// probe's own, and `~/.kube/config` (hidden with the home anyway).
pub fn kubeconfigs(cmd: &tokio::process::Command, own: Option<&Path>) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = Vec::new();
    let probe_env = cmd
        .as_std()
        .get_envs()
        .find(|(k, _)| *k == "KUBECONFIG")
        .and_then(|(_, v)| v.map(|v| v.to_os_string()));
    for list in [probe_env, std::env::var_os("KUBECONFIG")]
        .into_iter()
        .flatten()
    {
        v.extend(std::env::split_paths(&list));
    }
    if let Some(o) = own {
        v.extend(std::env::split_paths(o.as_os_str()));
    }
    v.retain(|p| p.is_absolute());
    v
}
