//! The doors of a jail, tsgnav's side: the listeners the jail opened on its own loopback (one
//! per door, handed over a socket pair) are served here, each connection relayed to the
//! door's place outside (a unix socket such as the egress proxy's, or a loopback port such as
//! a port-forward's), or served by tsgnav itself (the API proxy: the connection is served as
//! the probe's own grant, with no second socket between the door and the proxy). A probe
//! cannot reach those places any other way: its network namespace has only loopback, and the
//! unix sockets are not in its mount namespace.
//!
//! IO edge (sockets). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::path::PathBuf;
use std::sync::Arc;

/// Where a door leads outside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outside {
    /// A unix socket (the egress proxy).
    Unix(PathBuf),
    /// A port on the host's loopback (a session port-forward).
    Loopback(u16),
    /// Served in tsgnav itself (the API proxy, as the probe's own grant).
    Serve(Handler),
}

/// What serves each connection of an [`Outside::Serve`] door (it takes the connection and
/// spawns what serves it).
#[derive(Clone)]
pub struct Handler(pub Arc<dyn Fn(tokio::net::TcpStream) + Send + Sync>);

impl std::fmt::Debug for Handler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Handler")
    }
}

impl PartialEq for Handler {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Handler {}

/// One door: a loopback port inside the jail and where it leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Door {
    pub inside_port: u16,
    pub outside: Outside,
}

/// What the child sent: the door listeners, or the step that failed and its errno.
#[derive(Default)]
pub struct Received {
    pub listeners: Vec<OwnedFd>,
    pub failed: Option<(usize, i32)>,
    /// The listeners' message came (the jail's network is up).
    pub reported: bool,
    /// The jail's PID 1 had every layer up and went on to exec the probe's program.
    pub ready: bool,
}

impl Received {
    /// Folds one message `[kind, step, errno]` and its descriptors in.
    pub fn add(&mut self, data: [u32; 3], fds: Vec<RawFd>) {
        for fd in fds {
            // SAFETY: each descriptor came with the message and is owned by nobody else.
            self.listeners.push(unsafe { OwnedFd::from_raw_fd(fd) });
        }
        match data[0] {
            1 => self.reported = true,
            3 => self.ready = true,
            2 if self.failed.is_none() => self.failed = Some((data[1] as usize, data[2] as i32)),
            _ => {}
        }
    }
}

/// One `recvmsg` into `buf`: the bytes read (0 at the end) and the descriptors that came with
/// them (close-on-exec). `nonblock`: `WouldBlock` instead of waiting.
pub fn recv_raw(
    sock: RawFd,
    buf: &mut [u8],
    nonblock: bool,
) -> std::io::Result<(usize, Vec<RawFd>)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let mut space = [0u64; 16];
    // SAFETY: a zeroed msghdr is valid; its buffers live through the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&space);
    let flags = match nonblock {
        true => libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
        false => libc::MSG_CMSG_CLOEXEC,
    };
    let n = loop {
        // SAFETY: as above.
        let n = unsafe { libc::recvmsg(sock, &mut msg, flags) };
        let e = std::io::Error::last_os_error();
        match n < 0 && e.kind() == std::io::ErrorKind::Interrupted {
            true => continue,
            false if n < 0 => return Err(e),
            false => break n as usize,
        }
    };
    let mut fds = Vec::new();
    // SAFETY: walking the control messages the kernel wrote into `space`.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let bytes = (*c).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                let p = libc::CMSG_DATA(c).cast::<RawFd>();
                for i in 0..bytes / std::mem::size_of::<RawFd>() {
                    fds.push(p.add(i).read_unaligned());
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok((n, fds))
}

/// One report of the child, without waiting: `None` when the socket has closed.
pub fn recv_report(sock: RawFd) -> std::io::Result<Option<([u32; 3], Vec<RawFd>)>> {
    let mut bytes = [0u8; 12];
    let (n, fds) = recv_raw(sock, &mut bytes, true)?;
    if n == 0 && fds.is_empty() {
        return Ok(None);
    }
    let word = |i: usize| u32::from_ne_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    Ok(Some(([word(0), word(4), word(8)], fds)))
}

/// Serves the doors until dropped.
pub struct Serving(Vec<tokio::task::JoinHandle<()>>);

impl Drop for Serving {
    fn drop(&mut self) {
        for t in &self.0 {
            t.abort();
        }
    }
}

/// Relays each listener's connections to its door (listeners in the order of `doors`).
pub fn serve(listeners: Vec<OwnedFd>, doors: &[Door]) -> std::io::Result<Serving> {
    let mut tasks = Vec::new();
    for (fd, door) in listeners.into_iter().zip(doors) {
        let std_l = std::net::TcpListener::from(fd);
        std_l.set_nonblocking(true)?;
        let l = tokio::net::TcpListener::from_std(std_l)?;
        let outside = door.outside.clone();
        tasks.push(tokio::spawn(async move {
            while let Ok((conn, _)) = l.accept().await {
                match &outside {
                    Outside::Serve(h) => {
                        // As in `relay`: small request/answer writes must not wait on Nagle.
                        let _ = conn.set_nodelay(true);
                        (h.0)(conn);
                    }
                    _ => drop(tokio::spawn(relay(conn, outside.clone()))),
                }
            }
        }));
    }
    Ok(Serving(tasks))
}

async fn relay(mut conn: tokio::net::TcpStream, outside: Outside) {
    // Small request/answer writes: without this, Nagle's algorithm and delayed ACKs stall
    // each answer by tens of milliseconds.
    let _ = conn.set_nodelay(true);
    let _ = match outside {
        Outside::Unix(path) => match tokio::net::UnixStream::connect(&path).await {
            Ok(mut up) => tokio::io::copy_bidirectional(&mut conn, &mut up).await,
            Err(e) => Err(e),
        },
        Outside::Loopback(port) => {
            match tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
                Ok(mut up) => tokio::io::copy_bidirectional(&mut conn, &mut up).await,
                Err(e) => Err(e),
            }
        }
        Outside::Serve(h) => {
            (h.0)(conn);
            Ok((0, 0))
        }
    };
}
