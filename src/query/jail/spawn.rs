//! Starting a probe in its jail, tsgnav's side: the launcher ([`super::launcher`]) is
//! started with `posix_spawn` (an empty environment, one argument, the socket pair on its
//! stdin, no `pre_exec`, so the kernel does not copy tsgnav's address space), sent the plan,
//! and heard out until the socket closes: the door listeners, or the step that failed. A
//! launcher that cannot start, ends early or stays silent is an error that names it; the
//! probe's own program is only ever started by the jail's PID 1.
//!
//! IO edge (processes, sockets). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use super::bridge::{self, Received};
use super::launcher::{self, MAX_PLAN};
use super::wire::{self, Exec};
use super::JailError;

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

/// The exchange with one launcher: the plan out, the reports in.
pub(super) struct Exchange {
    out: Vec<Vec<u8>>,
    landlock: Option<OwnedFd>,
    sent: usize,
    pub got: Received,
}

/// What the exchange waits for next.
pub(super) enum Want {
    Write,
    Read,
    Done,
}

impl Exchange {
    pub fn new(plan: Vec<u8>, landlock: Option<OwnedFd>) -> Result<Self, JailError> {
        if plan.len() > MAX_PLAN {
            return Err(JailError::Prepare(format!(
                "the probe's jail plan is {} bytes, above the {MAX_PLAN} a launcher takes; \
                 shorten the probe's script or its values",
                plan.len()
            )));
        }
        let mut out = vec![(plan.len() as u64).to_le_bytes().to_vec()];
        out.extend(plan.chunks(32 << 10).map(<[u8]>::to_vec));
        Ok(Exchange {
            out,
            landlock,
            sent: 0,
            got: Received::default(),
        })
    }

    /// Sends what it can, then reads what came, without waiting.
    pub fn step(&mut self, sock: RawFd) -> std::io::Result<Want> {
        while self.sent < self.out.len() {
            let fds: Vec<RawFd> = match self.sent {
                0 => self.landlock.iter().map(AsRawFd::as_raw_fd).collect(),
                _ => Vec::new(),
            };
            match send(sock, &self.out[self.sent], &fds) {
                Ok(()) => self.sent += 1,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(Want::Write),
                // The launcher is gone: what it said before, and the end, are still to read.
                Err(_) => self.sent = self.out.len(),
            }
        }
        self.landlock = None;
        loop {
            match bridge::recv_report(sock) {
                Ok(Some((data, fds))) => self.got.add(data, fds),
                Ok(None) => return Ok(Want::Done),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(Want::Read),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Ok(Want::Done),
                Err(e) => return Err(e),
            }
        }
    }

    /// Waits on `sock` with poll(2) until done, for at most `limit`.
    pub fn run_blocking(&mut self, sock: RawFd, limit: Duration) -> std::io::Result<bool> {
        let end = std::time::Instant::now() + limit;
        loop {
            let events = match self.step(sock)? {
                Want::Done => return Ok(true),
                Want::Write => libc::POLLOUT,
                Want::Read => libc::POLLIN,
            };
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let mut p = libc::pollfd {
                fd: sock,
                events,
                revents: 0,
            };
            let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX).max(1);
            // SAFETY: poll on one live descriptor.
            unsafe { libc::poll(&mut p, 1, ms) };
        }
    }

    /// As [`Exchange::run_blocking`], on tokio's reactor.
    pub async fn run_async(&mut self, sock: &OwnedFd, limit: Duration) -> std::io::Result<bool> {
        use std::os::fd::AsFd;
        // SAFETY: `sock` is open and outlives `fd`, which is dropped at the end of this call.
        let fd = unsafe { tokio::io::unix::AsyncFd::register(sock.as_fd()) }?;
        let work = async {
            loop {
                let mut guard = match self.step(sock.as_raw_fd())? {
                    Want::Done => return Ok::<(), std::io::Error>(()),
                    Want::Write => fd.writable().await?,
                    Want::Read => fd.readable().await?,
                };
                guard.clear_ready();
            }
        };
        match tokio::time::timeout(limit, work).await {
            Ok(r) => r.map(|()| true),
            Err(_) => Ok(false),
        }
    }
}

fn send(sock: RawFd, bytes: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    let mut space = [0u64; 4];
    // SAFETY: a zeroed msghdr is valid; the pointers set below outlive the sendmsg call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if let Some(fd) = fds.first() {
        // SAFETY: CMSG_* compute sizes and pointers into `space`, room for one descriptor.
        unsafe {
            msg.msg_control = space.as_mut_ptr().cast();
            msg.msg_controllen = libc::CMSG_SPACE(4) as usize;
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(4) as usize;
            std::ptr::write_unaligned(libc::CMSG_DATA(c).cast::<RawFd>(), *fd);
        }
    }
    let flags = libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT;
    // SAFETY: msg points at live buffers.
    match unsafe { libc::sendmsg(sock, &msg, flags) } {
        n if n >= 0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// The plan's bytes for `exec`, as the launcher reads them.
pub(super) fn plan_bytes(plan: &super::child::Plan, exec: &Exec) -> Vec<u8> {
    wire::encode(plan, exec)
}
