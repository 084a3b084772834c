//! Landlock, the filesystem layer of the jail (`super::jail`) and, where there is no jail, the
//! only sandbox of shell probes: the probe may read and run anything, but write only inside
//! its own scratch folder (plus `/dev/null`). In the jail, TCP connects go only to the doors'
//! loopback ports. Without the jail (not isolated), the tty and the kubectl discovery cache
//! are writable too, and TCP connects go to the allowed ports (the read-only API proxy, the
//! session's port-forwards, `[sandbox] allow_connect_ports`); Landlock filters TCP by port,
//! not by host: an allowed port is open to every host.
//!
//! Which sandbox is active is always said, never assumed: [`Sandbox::describe`] is what the
//! status line and every probe record show ("landlock v7 fs+net", "none: kernel has no
//! Landlock", "none: turned off in the config").
//!
//! IO edge (syscalls, folders). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::path::{Path, PathBuf};

use landlock::{
    Access, AccessFs, AccessNet, NetPort, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr,
    RulesetError, ABI,
};

/// What the config asks for (`[sandbox]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// `[sandbox] enabled` (default true).
    pub enabled: bool,
    /// `[sandbox] allow_connect_ports` (default `[443]`; `[]` is the strictest).
    pub allow_connect_ports: Vec<u16>,
    /// More ports a probe may connect to: the session's port-forwards.
    pub forwarded_ports: Vec<u16>,
    /// Act as if the kernel had this Landlock ABI (`TSGNAV_SANDBOX_ABI=0` checks the
    /// no-Landlock path; it is reported like a real one, never silently).
    pub abi_override: Option<i32>,
    /// `[sandbox] jail` (default true): shell probes run in the jail (`super::jail`);
    /// `false`, or `TSGNAV_JAIL=off` in the environment, makes the session not isolated.
    pub jail: bool,
    /// `[sandbox] read_only`: paths a jailed probe may read (`~/.azure`); everything else of
    /// the homes, `/tmp` and `/run` is hidden.
    pub read_only: Vec<PathBuf>,
    /// `[sandbox] pass_env`: more of tsgnav's environment variables a jailed probe sees
    /// (`"ARM_SUBSCRIPTION_ID"`, `"TSG_*"`); the rest stays outside (`super::jail::env`).
    pub pass_env: Vec<String>,
}

impl SandboxPolicy {
    /// The policy of `[sandbox]` (`enabled`, `allow_connect_ports`) and the
    /// `TSGNAV_SANDBOX_ABI` override from the environment.
    pub fn from_config(enabled: bool, allow_connect_ports: &[u16]) -> Self {
        SandboxPolicy {
            enabled,
            allow_connect_ports: allow_connect_ports.to_vec(),
            forwarded_ports: Vec::new(),
            abi_override: std::env::var("TSGNAV_SANDBOX_ABI")
                .ok()
                .and_then(|v| v.trim().parse().ok()),
            ..SandboxPolicy::default()
        }
    }

    /// With `[sandbox] jail` and `[sandbox] read_only` (`~/` is the operator's home).
    pub fn with_jail(mut self, jail: bool, read_only: &[String]) -> Self {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        self.jail = jail;
        self.read_only = read_only
            .iter()
            .map(|p| match (p.strip_prefix("~/"), &home) {
                (Some(rest), Some(h)) => h.join(rest),
                _ => PathBuf::from(p),
            })
            .collect();
        self
    }

    /// With `[sandbox] pass_env`.
    pub fn with_pass_env(mut self, names: &[String]) -> Self {
        self.pass_env = names.to_vec();
        self
    }
}

/// What the status line says about the session's probes: the jail (or "not isolated" and
/// why), then Landlock (`jail (namespaces + seccomp); landlock v7 fs+net`).
pub fn describe_session(policy: &SandboxPolicy) -> String {
    let jail = super::jail::isolation(policy.jail).describe();
    format!("{jail}; {}", detect(policy).describe())
}

impl Default for SandboxPolicy {
    fn default() -> Self {
        SandboxPolicy {
            enabled: true,
            allow_connect_ports: vec![443],
            forwarded_ports: Vec::new(),
            abi_override: None,
            jail: true,
            read_only: Vec::new(),
            pass_env: Vec::new(),
        }
    }
}

/// Local ports of the session's open port-forwards (native ones register here), which
/// read-only probes may connect to.
static FORWARDED: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());

/// The registration of a port-forward's local ports; dropping it removes them.
pub struct Forwarded(Vec<u16>);

impl Forwarded {
    pub fn open(ports: impl IntoIterator<Item = u16>) -> Self {
        let ports: Vec<u16> = ports.into_iter().collect();
        let mut all = FORWARDED.lock().unwrap_or_else(|p| p.into_inner());
        all.extend(&ports);
        Forwarded(ports)
    }

    /// Every registered port.
    pub fn ports() -> Vec<u16> {
        FORWARDED.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for Forwarded {
    fn drop(&mut self) {
        let mut all = FORWARDED.lock().unwrap_or_else(|p| p.into_inner());
        for p in &self.0 {
            if let Some(i) = all.iter().position(|x| x == p) {
                all.remove(i);
            }
        }
    }
}

/// The sandbox this machine gives read-only probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sandbox {
    /// Landlock with this ABI; `net` when TCP rules are enforced (ABI 4 and later).
    Landlock { abi: i32, net: bool },
    /// No Landlock in the kernel (ABI 0).
    NoKernelSupport,
    /// Turned off by `[sandbox] enabled = false`.
    Off,
}

impl Sandbox {
    /// What the status line and each probe record say.
    pub fn describe(&self) -> String {
        match self {
            Sandbox::Landlock { abi, net: true } => format!("landlock v{abi} fs+net"),
            Sandbox::Landlock { abi, net: false } => {
                format!("landlock v{abi} fs (no TCP rules: the kernel needs Landlock ABI 4)")
            }
            Sandbox::NoKernelSupport => "none: kernel has no Landlock".into(),
            Sandbox::Off => "none: turned off in the config ([sandbox] enabled = false)".into(),
        }
    }
}

/// The kernel's Landlock ABI (0 when it has none).
pub fn kernel_abi() -> i32 {
    // SAFETY: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) only returns
    // the ABI version (or -1 with ENOSYS/EOPNOTSUPP); it touches no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32,
        )
    };
    i32::try_from(v).unwrap_or(0).max(0)
}

/// The sandbox `policy` gets on this kernel.
pub fn detect(policy: &SandboxPolicy) -> Sandbox {
    if !policy.enabled {
        return Sandbox::Off;
    }
    match policy.abi_override.unwrap_or_else(kernel_abi).max(0) {
        0 => Sandbox::NoKernelSupport,
        abi => Sandbox::Landlock { abi, net: abi >= 4 },
    }
}

/// Why a sandbox could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot create the probe's scratch folder {path}: {source}")]
    Scratch {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot build the Landlock rules: {0}")]
    Rules(#[from] RulesetError),
}

/// The rules for one probe, built in the parent; [`restrict`] applies them in the child.
pub struct Prepared {
    pub ruleset: Option<RulesetCreated>,
    pub sandbox: Sandbox,
}

/// Builds the rules: read and execute everywhere; write beneath `writable` (the scratch
/// folder, the kube cache) and to `/dev/null` (and `/dev/tty` when `tty`); TCP connect to
/// `ports`.
pub fn prepare(
    sandbox: Sandbox,
    writable: &[&Path],
    ports: &[u16],
    tty: bool,
) -> Result<Prepared, SandboxError> {
    let Sandbox::Landlock { abi, net } = sandbox else {
        return Ok(Prepared {
            ruleset: None,
            sandbox,
        });
    };
    let abi = ABI::from(abi.min(7));
    let mut rs = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
    if net {
        rs = rs.handle_access(AccessNet::ConnectTcp)?;
    }
    let mut created = rs.create()?;
    created = created.add_rules(landlock::path_beneath_rules(
        ["/"],
        AccessFs::from_read(abi),
    ))?;
    let mut rw: Vec<&Path> = writable.to_vec();
    for dev in ["/dev/null", "/dev/tty"] {
        if Path::new(dev).exists() && (tty || dev == "/dev/null") {
            rw.push(Path::new(dev));
        }
    }
    created = created.add_rules(landlock::path_beneath_rules(rw, AccessFs::from_all(abi)))?;
    if net {
        let mut ports = ports.to_vec();
        ports.sort_unstable();
        ports.dedup();
        for p in ports {
            created = created.add_rule(NetPort::new(p, AccessNet::ConnectTcp))?;
        }
    }
    Ok(Prepared {
        ruleset: Some(created),
        sandbox,
    })
}

/// Applies the rules to the calling process (the probe's child, between fork and exec).
/// Returns the OS error when the kernel refused.
pub fn restrict(ruleset: RulesetCreated) -> std::io::Result<()> {
    ruleset
        .restrict_self()
        .map(|_| ())
        .map_err(|e| std::io::Error::other(e.to_string()))
}

/// Sets `cmd` up to run confined by `policy` without the jail (a session that is not
/// isolated; read-only probes): the rules are built here and applied in the child before
/// `exec`. TCP may reach the read-only API proxy (`proxy_port`), the session's
/// port-forwards and `[sandbox] allow_connect_ports`; never the API servers themselves.
/// Returns the sandbox to record.
pub fn confine(
    cmd: &mut tokio::process::Command,
    policy: &SandboxPolicy,
    scratch: &Path,
    proxy_port: Option<u16>,
) -> Result<Sandbox, SandboxError> {
    let env_of = |name: &str| {
        cmd.as_std()
            .get_envs()
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| v.map(PathBuf::from))
            .or_else(|| std::env::var_os(name).map(PathBuf::from))
    };
    let home = std::env::var_os("HOME").map(PathBuf::from);
    // kubectl keeps its discovery cache there; a probe may refresh it.
    let cache = env_of("KUBECACHEDIR").or_else(|| home.as_ref().map(|h| h.join(".kube/cache")));
    let mut writable = vec![scratch.to_path_buf()];
    if let Some(c) = cache {
        if std::fs::create_dir_all(&c).is_ok() {
            writable.push(c);
        }
    }
    let mut ports = policy.allow_connect_ports.clone();
    ports.extend(&policy.forwarded_ports);
    ports.extend(Forwarded::ports());
    ports.extend(proxy_port);
    confine_to(cmd, policy, &writable, &ports, true)
}

/// Sets `cmd` up to write only beneath `writable` (and `/dev/null`, and the tty when `tty`)
/// and to connect only to `ports`; the jail's Landlock layer calls it with the scratch
/// folder and the doors' ports.
pub fn confine_to(
    cmd: &mut tokio::process::Command,
    policy: &SandboxPolicy,
    writable: &[PathBuf],
    ports: &[u16],
    tty: bool,
) -> Result<Sandbox, SandboxError> {
    let sandbox = detect(policy);
    if !matches!(sandbox, Sandbox::Landlock { .. }) {
        return Ok(sandbox);
    }
    let refs: Vec<&Path> = writable.iter().map(PathBuf::as_path).collect();
    let prepared = prepare(sandbox, &refs, ports, tty)?;
    let mut slot = prepared.ruleset;
    // SAFETY: the closure runs in the child between fork and exec; it only makes the
    // prctl, close_range and landlock syscalls (on descriptors opened before the fork).
    unsafe {
        cmd.pre_exec(move || {
            super::jail::launcher::allow_huge_pages();
            // Descriptors tsgnav inherited close at exec (stdin, stdout and stderr stay).
            if libc::close_range(3, u32::MAX, libc::CLOSE_RANGE_CLOEXEC as libc::c_int) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            match slot.take() {
                Some(r) => restrict(r),
                None => Ok(()),
            }
        });
    }
    Ok(prepared.sandbox)
}
