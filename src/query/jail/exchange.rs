//! The talk with one jail's launcher, tsgnav's side: the plan out (a header with its length
//! and the Landlock ruleset's descriptor, then chunks of 32 KiB), the child side's reports in
//! (door listeners, the step that failed, "ready"), until the socket closes. One state
//! machine, driven by poll(2) for the kernel check or by tokio's reactor for probes.
//!
//! IO edge (sockets). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::Duration;

use super::bridge::{self, Received};
use super::launcher::MAX_PLAN;
use super::JailError;

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
