//! The jail every shell probe runs in, read-only or confirmed: fresh user, mount, network,
//! PID, IPC, UTS and cgroup namespaces; only loopback, with tsgnav's doors bridged onto it;
//! a private `/tmp`, a minimal `/dev`, the homes and `/run` covered by empty tmpfs, the rest
//! of the system read-only; the probe's kubeconfig written only inside its own `/tmp`; no
//! controlling terminal; no capabilities; a seccomp filter ([`seccomp`]); Landlock
//! (`super::sandbox`) on top as the filesystem layer.
//!
//! Why our own namespaces and not bubblewrap: bubblewrap (and nsjail) would add a runtime
//! package and a second process to start per probe, would still need our own seccomp program
//! (it takes a compiled one), and could not hand the door listeners back without a helper in
//! the jail. Built here, the jail costs one exec of tsgnav's own binary as the launcher
//! ([`launcher`], started by [`spawn`] with `posix_spawn`, so tsgnav's address space is never
//! copied), two forks of that small process ([`child`]) and a dozen mount calls; the
//! listeners the jail opens on its own loopback come back over a socket pair and tsgnav
//! serves them ([`bridge`]); the same code runs as root and as an unprivileged user (a user
//! namespace maps the caller's own uid, as bubblewrap does without setuid). The layout
//! follows what bubblewrap, nsjail, Firecracker's jailer and the Linux sandboxes of coding
//! agents do: new namespaces, a tmpfs root for what must be hidden, read-only binds, a
//! network namespace whose only way out is a proxy over a unix socket.
//!
//! Where it cannot be built (not Linux, no user namespaces, `[sandbox] jail = false`,
//! `TSGNAV_JAIL=off`), [`isolation`] says why and the session is **not isolated**: the shell
//! backend falls back to Landlock alone, and the TUI and `run` say so.
//!
//! IO edge. Must not import `cli`, `tui`, `nav` or `evidence`.

pub mod bridge;
mod child;
pub mod env;
mod exchange;
pub mod launcher;
mod lost;
mod mounts;
mod net;
mod plan;
pub mod probe;
pub mod process;
pub mod seccomp;
pub mod spawn;
pub mod wire;
pub mod zygote;

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

pub use bridge::{Door, Outside, Serving};
pub use plan::Spec;
pub use process::Child;
pub use spawn::Launcher;

/// The loopback port inside every jail that leads to the egress proxy, when there is one.
pub const EGRESS_PORT: u16 = 3128;

/// The doors a session offers its probes. The API proxy's door is added per probe (its port
/// inside is the proxy's own port, so the probe's kubeconfig reads the same as outside; each
/// connection is served as that probe's grant).
/// `egress`: where an allow-listing CONNECT proxy is (the probe's own ticket, served in
/// tsgnav); when set, every probe gets `HTTPS_PROXY`, `HTTP_PROXY` and `ALL_PROXY` pointing
/// at [`EGRESS_PORT`] inside.
/// `forwards`: more doors (unix socket or host loopback port → a loopback port inside).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JailDoors {
    pub egress: Option<Outside>,
    pub forwards: Vec<Door>,
}

impl JailDoors {
    /// Every door of one probe: the API proxy's (`kube_api`: where it leads and its port), the
    /// egress door, the configured ones, and each open port-forward at its own port.
    pub fn for_probe(&self, kube_api: Option<(Outside, u16)>, forwarded: &[u16]) -> Vec<Door> {
        let mut v: Vec<Door> = Vec::new();
        let mut add = |inside_port, outside| {
            if !v.iter().any(|d: &Door| d.inside_port == inside_port) {
                v.push(Door {
                    inside_port,
                    outside,
                });
            }
        };
        if let Some((outside, port)) = kube_api {
            add(port, outside);
        }
        if let Some(outside) = &self.egress {
            add(EGRESS_PORT, outside.clone());
        }
        for d in &self.forwards {
            add(d.inside_port, d.outside.clone());
        }
        for p in forwarded {
            add(*p, Outside::Loopback(*p));
        }
        v
    }

    /// The proxy variables a probe gets when the egress door is open.
    pub fn proxy_env(&self) -> Vec<(&'static str, String)> {
        match self.egress {
            None => Vec::new(),
            Some(_) => {
                let url = format!("http://127.0.0.1:{EGRESS_PORT}");
                [
                    "HTTPS_PROXY",
                    "https_proxy",
                    "HTTP_PROXY",
                    "http_proxy",
                    "ALL_PROXY",
                ]
                .into_iter()
                .map(|k| (k, url.clone()))
                .chain([("NO_PROXY", "127.0.0.1,localhost".to_string())])
                .collect()
            }
        }
    }
}

/// Whether probes of this session run jailed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Isolation {
    Jailed,
    /// Not isolated, and why (named in the status line and on every probe).
    NotIsolated(String),
}

impl Isolation {
    /// The words the status line and each probe record start with.
    pub fn describe(&self) -> String {
        match self {
            Isolation::Jailed => "jail (namespaces + seccomp)".into(),
            Isolation::NotIsolated(why) => format!("not isolated: {why}"),
        }
    }
}

/// Why a probe's jail could not be set up or entered.
#[derive(Debug, thiserror::Error)]
pub enum JailError {
    #[error("cannot prepare the jail: {0}")]
    Prepare(String),
    #[error(
        "the jail could not be built: the step \"{step}\" failed ({source}); the probe was not \
         run. Set [sandbox] jail = false or TSGNAV_JAIL=off to run probes without isolation"
    )]
    Step {
        step: &'static str,
        source: std::io::Error,
    },
    #[error(
        "cannot start the jail's launcher {launcher} ({source}); the probe was not run. \
         tsgnav starts its own binary to build each jail: check that it is still installed \
         and that /proc is mounted"
    )]
    Launcher {
        launcher: String,
        source: std::io::Error,
    },
    #[error(
        "the jail's launcher {launcher} ended before the jail was built ({status}); the \
         probe was not run"
    )]
    LauncherEnded { launcher: String, status: String },
    #[error(
        "the jail's launcher {launcher} did not build the jail within {secs} s; it was \
         stopped and the probe was not run"
    )]
    LauncherSilent { launcher: String, secs: u64 },
    #[error("cannot serve the jail's doors: {0}")]
    Doors(std::io::Error),
}

/// Whether the jail can be built for `enabled` (the config key) on this machine: the
/// environment (`TSGNAV_JAIL=off`) and the kernel are asked; the kernel once per process.
pub fn isolation(enabled: bool) -> Isolation {
    if !enabled {
        return Isolation::NotIsolated(
            "the jail is turned off in the config ([sandbox] jail = false)".into(),
        );
    }
    if std::env::var("TSGNAV_JAIL").is_ok_and(|v| matches!(v.trim(), "off" | "0" | "false")) {
        return Isolation::NotIsolated("the jail is turned off by TSGNAV_JAIL=off".into());
    }
    static KERNEL: std::sync::OnceLock<Isolation> = std::sync::OnceLock::new();
    KERNEL.get_or_init(try_kernel).clone()
}

#[cfg(not(target_os = "linux"))]
fn try_kernel() -> Isolation {
    Isolation::NotIsolated("this system has no Linux namespaces".into())
}

/// Builds one jail around `true`.
#[cfg(target_os = "linux")]
fn try_kernel() -> Isolation {
    let dir = std::env::temp_dir().join(format!("tsgnav-jail-check-{}", std::process::id()));
    let result = (|| {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let cmd = std::process::Command::new("true");
        let status = enter(Spec::new(&dir))
            .and_then(|e| e.run(&cmd))
            .map_err(|e| e.to_string())?;
        match status.success() {
            true => Ok(()),
            false => Err(format!("a jailed `true` ended with {status}")),
        }
    })();
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(()) => Isolation::Jailed,
        Err(why) => Isolation::NotIsolated(format!("this kernel cannot build the jail: {why}")),
    }
}

/// A jail worked out for one probe, before its launcher starts.
pub struct Entered {
    plan: child::Plan,
    sock: OwnedFd,
    /// The launcher's end of the socket pair, until it is handed over.
    theirs: Option<OwnedFd>,
    doors: Vec<Door>,
    landlock: Option<OwnedFd>,
    launcher: Launcher,
}

/// Works out the jail `spec` asks for (nothing starts yet: see [`Entered::spawn`]).
pub fn enter(spec: Spec) -> Result<Entered, JailError> {
    let (plan, [sock, theirs], doors) = spec.build()?;
    Ok(Entered {
        plan,
        sock,
        theirs: Some(theirs),
        doors,
        landlock: None,
        launcher: Launcher::default(),
    })
}

/// The name of step `s` of the child side, for messages.
fn step_name(s: usize) -> &'static str {
    match s {
        launcher::STEP_PLAN => "read the jail's plan from tsgnav",
        launcher::STEP_EXEC => "start the probe's shell",
        launcher::STEP_LANDLOCK => "apply the Landlock rules",
        launcher::STEP_FDS => "close the descriptors tsgnav inherited",
        s => child::STEPS.get(s).copied().unwrap_or("unknown"),
    }
}

/// The scratch `HOME` of a probe inside its scratch folder.
pub fn scratch_home(scratch: &Path) -> PathBuf {
    scratch.join("home")
}
