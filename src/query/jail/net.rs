//! The jail's network namespace, between `fork` and `exec` (see `child`): loopback up, one
//! listener per door on `127.0.0.1`, handed to tsgnav over the socket pair (then closed here,
//! so the probe cannot accept on them).
//!
//! IO edge (raw syscalls). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::io;
use std::os::fd::RawFd;

use super::child::{check, fail, send, Plan};

/// Loopback up, one listener per door port, handed to tsgnav.
pub(super) fn network(p: &Plan) -> io::Result<()> {
    #[repr(C)]
    struct IfReq {
        name: [u8; 16],
        flags: libc::c_short,
        pad: [u8; 22],
    }
    let mut ifr = IfReq {
        name: [0; 16],
        flags: 0,
        pad: [0; 22],
    };
    ifr.name[..2].copy_from_slice(b"lo");
    // SAFETY: a datagram socket for the interface ioctls, closed below.
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        let got = libc::ioctl(s, libc::SIOCGIFFLAGS, &mut ifr);
        ifr.flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        let set = libc::ioctl(s, libc::SIOCSIFFLAGS, &ifr);
        libc::close(s);
        check(p.sock, 8, got.min(set).min(s).into())?;
    }
    let mut fds = [-1 as RawFd; 16];
    for (slot, port) in fds.iter_mut().zip(&p.ports) {
        // SAFETY: a TCP listener on 127.0.0.1:port in the new network namespace.
        unsafe {
            let s = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            let one: libc::c_int = 1;
            libc::setsockopt(
                s,
                libc::SOL_SOCKET,
                libc::SO_REUSEADDR,
                (&one as *const libc::c_int).cast(),
                4,
            );
            let mut a: libc::sockaddr_in = std::mem::zeroed();
            a.sin_family = libc::AF_INET as libc::sa_family_t;
            a.sin_port = port.to_be();
            a.sin_addr.s_addr = u32::from_be_bytes([127, 0, 0, 1]).to_be();
            let b = libc::bind(
                s,
                (&a as *const libc::sockaddr_in).cast(),
                std::mem::size_of_val(&a) as u32,
            );
            let l = libc::listen(s, 128);
            check(p.sock, 9, s.min(b).min(l).into())?;
            *slot = s;
        }
    }
    let n = p.ports.len().min(16);
    if !send(p.sock, 1, 0, 0, &fds[..n]) {
        return Err(fail(p.sock, 10));
    }
    for fd in &fds[..n] {
        // SAFETY: tsgnav holds its own copies now; the probe must not accept on them.
        unsafe { libc::close(*fd) };
    }
    Ok(())
}
