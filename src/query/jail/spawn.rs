//! Starting a probe in its jail, tsgnav's side ([`Entered::spawn`], and [`Entered::run`]
//! for the kernel check): the launcher ([`super::launcher`]) is started with `posix_spawn`
//! (an empty environment, one argument, the socket pair on its stdin, no `pre_exec`, so the
//! kernel does not copy tsgnav's address space), sent the plan ([`super::exchange`]), and
//! heard out until the socket closes: the door listeners, or the step that failed. A
//! launcher that cannot start, ends early or stays silent is an error that names it; the
//! probe's own program is only ever started by the jail's PID 1.
//!
//! IO edge (processes, sockets). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use super::bridge;
use super::exchange::Exchange;
use super::launcher;
use super::process::{Child, Forked};
use super::wire::{self, Exec};
use super::{step_name, Entered, JailError, Serving};

/// How long a launcher may take to build a jail before it is stopped.
pub const SILENCE: Duration = Duration::from_secs(30);

/// The program started as the jail's launcher: tsgnav's own binary unless a test names
/// another.
#[derive(Debug, Clone)]
pub struct Launcher {
    pub path: PathBuf,
}

impl Default for Launcher {
    fn default() -> Self {
        Launcher {
            path: PathBuf::from("/proc/self/exe"),
        }
    }
}

impl Launcher {
    /// How messages name it: the binary `/proc/self/exe` stands for, when it can be read.
    pub fn shown(&self) -> String {
        match self.path == std::path::Path::new("/proc/self/exe") {
            true => match std::env::current_exe() {
                Ok(p) => format!("{} (tsgnav's own binary)", p.display()),
                Err(_) => "/proc/self/exe (tsgnav's own binary)".into(),
            },
            false => self.path.display().to_string(),
        }
    }

    /// Whether this is tsgnav's own binary (then the session's zygote forks each launcher).
    fn is_own(&self) -> bool {
        self.path == std::path::Path::new("/proc/self/exe")
    }

    /// Starts a launcher with `theirs` on its stdin and its output piped: forked by the
    /// session's zygote for tsgnav's own binary, else exec'd (a launcher a test names).
    /// The launcher's end of the socket is closed here, or its end of the talk is never seen.
    fn start(&self, theirs: OwnedFd) -> std::io::Result<Child> {
        if !self.is_own() {
            let mut cmd = tokio::process::Command::from(self.command(theirs));
            cmd.stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true);
            return cmd.spawn().map(Child::from);
        }
        let [out_r, out_w] = pipe()?;
        let [err_r, err_w] = pipe()?;
        let pid = super::zygote::fork(&self.path, [&theirs, &out_w, &err_w])?;
        drop((theirs, out_w, err_w));
        Forked::new(pid, out_r, err_r).map(Child::Forked)
    }

    /// The launcher's command: no environment, no arguments but [`launcher::ARG`], `theirs`
    /// on stdin, its own process group.
    pub(super) fn command(&self, theirs: OwnedFd) -> std::process::Command {
        launcher::keep();
        let mut cmd = std::process::Command::new(&self.path);
        cmd.arg(launcher::ARG)
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::from(theirs));
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd
    }
}

/// What a probe's program is, for the launcher: program, `argv` and the whole environment
/// (the variables set on `cmd`; a jailed probe never inherits tsgnav's, see `super::env`).
pub fn exec_of(cmd: &std::process::Command) -> Result<Exec, JailError> {
    let c = |b: &[u8]| {
        std::ffi::CString::new(b).map_err(|_| {
            JailError::Prepare(format!(
                "the probe's command holds a NUL byte: {}",
                String::from_utf8_lossy(b)
            ))
        })
    };
    let program = c(cmd.get_program().as_bytes())?;
    let mut args = vec![program.clone()];
    for a in cmd.get_args() {
        args.push(c(a.as_bytes())?);
    }
    let mut env = Vec::new();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            env.push(c(&[k.as_bytes(), b"=", v.as_bytes()].concat())?);
        }
    }
    Ok(Exec { program, args, env })
}

/// The plan's bytes for `exec`, as the launcher reads them.
pub(super) fn plan_bytes(plan: &super::child::Plan, exec: &Exec) -> Vec<u8> {
    wire::encode(plan, exec)
}

impl Entered {
    /// The Landlock ruleset the jail's PID 1 applies before seccomp (its descriptor).
    pub fn landlock(&mut self, ruleset: Option<OwnedFd>) {
        self.landlock = ruleset;
    }

    /// Starts the jail through `launcher` instead of tsgnav's own binary.
    pub fn with_launcher(mut self, launcher: Launcher) -> Self {
        self.launcher = launcher;
        self
    }

    /// The exchange for `probe` and the launcher's end of the socket pair.
    fn exchange(
        &mut self,
        probe: &std::process::Command,
    ) -> Result<(Exchange, OwnedFd), JailError> {
        let exec = exec_of(probe)?;
        set_nonblocking(&self.sock).map_err(JailError::Doors)?;
        let theirs = self
            .theirs
            .take()
            .ok_or_else(|| JailError::Prepare("the jail was already started".into()))?;
        let ex = Exchange::new(plan_bytes(&self.plan, &exec), self.landlock.take())?;
        Ok((ex, theirs))
    }

    /// What the launcher said: the door listeners, or why the probe must not run.
    fn conclude(
        &self,
        done: bool,
        got: bridge::Received,
        status: impl FnOnce() -> String,
    ) -> Result<Vec<OwnedFd>, JailError> {
        let launcher = self.launcher.shown();
        match (done, got.failed, got.ready) {
            (false, _, _) => Err(JailError::LauncherSilent {
                launcher,
                secs: SILENCE.as_secs(),
            }),
            (true, Some((s, errno)), _) => Err(JailError::Step {
                step: step_name(s),
                source: std::io::Error::from_raw_os_error(errno),
            }),
            (true, None, false) => Err(JailError::LauncherEnded {
                launcher,
                status: status(),
            }),
            (true, None, true) => Ok(got.listeners),
        }
    }

    /// Starts `probe` (its program, arguments and environment; nothing else of it) in the
    /// jail, stdout and stderr piped, in its own process group, killed on drop (inside a
    /// tokio runtime): the launcher's process, with the jail's doors served.
    pub async fn spawn(
        mut self,
        probe: &tokio::process::Command,
    ) -> Result<(Child, Serving), JailError> {
        let (mut ex, theirs) = self.exchange(probe.as_std())?;
        let mut child = self
            .launcher
            .start(theirs)
            .map_err(|e| JailError::Launcher {
                launcher: self.launcher.shown(),
                source: e,
            })?;
        let done = ex
            .run_async(&self.sock, SILENCE)
            .await
            .map_err(JailError::Doors)?;
        let mut status = String::from("no exit status yet");
        if done && ex.got.failed.is_none() && !ex.got.ready {
            for _ in 0..50 {
                if let Ok(Some(s)) = child.try_wait() {
                    status = describe(s);
                    break;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
        let listeners = self.conclude(done, std::mem::take(&mut ex.got), || status)?;
        let serving = bridge::serve(listeners, &self.doors).map_err(JailError::Doors)?;
        Ok((child, serving))
    }

    /// Runs `probe` in the jail to its end, its output dropped (the kernel check).
    pub fn run(mut self, probe: &std::process::Command) -> Result<ExitStatus, JailError> {
        let (mut ex, theirs) = self.exchange(probe)?;
        let mut cmd = self.launcher.command(theirs);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        let spawned = cmd.spawn();
        drop(cmd);
        let mut child = spawned.map_err(|e| JailError::Launcher {
            launcher: self.launcher.shown(),
            source: e,
        })?;
        let done = ex.run_blocking(self.sock.as_raw_fd(), SILENCE);
        let outcome = done
            .map_err(JailError::Doors)
            .and_then(|done| self.conclude(done, std::mem::take(&mut ex.got), String::new));
        if let Err(e) = outcome {
            let _ = child.kill();
            let status = child.wait().map(describe).unwrap_or_default();
            return Err(match e {
                JailError::LauncherEnded { launcher, .. } => {
                    JailError::LauncherEnded { launcher, status }
                }
                e => e,
            });
        }
        child.wait().map_err(|e| JailError::Step {
            step: "wait for the jail",
            source: e,
        })
    }
}

/// An exit status in words.
fn describe(s: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => s.to_string(),
    }
}

/// A pipe, both ends close-on-exec: `[read, write]`.
fn pipe() -> std::io::Result<[OwnedFd; 2]> {
    let mut fds = [-1; 2];
    // SAFETY: pipe2 writes two new descriptors into `fds`.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both are new and ours.
    Ok(fds.map(|fd| unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) }))
}

fn set_nonblocking(fd: &OwnedFd) -> std::io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    let rc = unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK)
    };
    match rc < 0 {
        true => Err(std::io::Error::last_os_error()),
        false => Ok(()),
    }
}
