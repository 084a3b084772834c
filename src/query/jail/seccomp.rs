//! The jail's seccomp filter: a classic BPF program for what the namespaces do not cover.
//! Refused with `EPERM`: ptrace and `process_vm_*`, bpf, perf_event_open, the key ring, every
//! mount call and `setns`/`unshare` (no way back out, no new namespaces: `clone` with a
//! namespace flag too), io_uring (its operations bypass this filter), kernel modules, kexec,
//! `ioprio_set`, userfaultfd, `open_by_handle_at`; unix, raw and packet sockets, MPTCP
//! (`IPPROTO_MPTCP`), TCP Fast Open (`MSG_FASTOPEN` on sendto/sendmsg/sendmmsg, the
//! `TCP_FASTOPEN*` options) and the `TIOCSTI`/`TIOCLINUX` ioctls. `clone3` gets `ENOSYS`
//! (its flags sit in memory a filter cannot read), so libc falls back to `clone`. A foreign
//! architecture (32-bit calls on x86-64, x32) kills the process.
//!
//! Written by hand rather than with a crate (Firecracker's `seccompiler` was read for the
//! layout): the program is about 80 instructions and needs no allocation in the child.
//!
//! Pure (builds a `Vec` of instructions). Must not import `cli`, `tui`, `nav` or `evidence`.

use libc::sock_filter;

const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JSET_K: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const AND_K: u16 = 0x54; // BPF_ALU | BPF_AND | BPF_K
const RET_K: u16 = 0x06; // BPF_RET | BPF_K

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_KILL: u32 = 0x8000_0000;
const RET_EPERM: u32 = 0x0005_0000 | libc::EPERM as u32;
const RET_ENOSYS: u32 = 0x0005_0000 | libc::ENOSYS as u32;

const NR: u32 = 0;
const ARCH: u32 = 4;
/// The low 32 bits of argument `i` (little-endian).
const fn arg(i: u32) -> u32 {
    16 + 8 * i
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

const IPPROTO_MPTCP: u32 = 262;
const SOCK_PACKET: u32 = 10;
const TCP_FASTOPEN: u32 = 23;
const TCP_FASTOPEN_CONNECT: u32 = 30;
const TIOCLINUX: u32 = 0x541C;
const NS_FLAGS: u32 = (libc::CLONE_NEWUSER
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWCGROUP) as u32;

fn op(code: u16, k: u32) -> sock_filter {
    sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// System calls refused outright.
fn denied() -> Vec<libc::c_long> {
    use libc::*;
    let mut v = vec![
        SYS_ptrace,
        SYS_process_vm_readv,
        SYS_process_vm_writev,
        SYS_bpf,
        SYS_perf_event_open,
        SYS_keyctl,
        SYS_add_key,
        SYS_request_key,
        SYS_mount,
        SYS_umount2,
        SYS_pivot_root,
        SYS_setns,
        SYS_unshare,
        SYS_io_uring_setup,
        SYS_io_uring_enter,
        SYS_io_uring_register,
        SYS_open_tree,
        SYS_move_mount,
        SYS_fsopen,
        SYS_fsconfig,
        SYS_fsmount,
        SYS_fspick,
        SYS_mount_setattr,
        SYS_open_by_handle_at,
        SYS_userfaultfd,
        SYS_kexec_load,
        SYS_init_module,
        SYS_finit_module,
        SYS_delete_module,
        SYS_ioprio_set,
        SYS_acct,
        SYS_swapon,
        SYS_swapoff,
        SYS_reboot,
        SYS_syslog,
        SYS_chroot,
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([SYS_uselib, SYS_ioperm, SYS_iopl]);
    v
}

/// `[JEQ nr][block…]`: the block runs when the call is `nr`; it must end in a return.
fn when(prog: &mut Vec<sock_filter>, nr: libc::c_long, block: Vec<sock_filter>) {
    prog.push(jump(JEQ_K, nr as u32, 0, block.len() as u8));
    prog.extend(block);
}

/// Refuses the call when the low word of `arg(i)` has any of `bits`.
fn flag_block(i: u32, bits: u32) -> Vec<sock_filter> {
    vec![
        op(LD_W_ABS, arg(i)),
        jump(JSET_K, bits, 0, 1),
        op(RET_K, RET_EPERM),
        op(RET_K, RET_ALLOW),
    ]
}

/// The whole program (empty on an architecture without a known audit value).
pub fn program() -> Vec<sock_filter> {
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    return Vec::new();
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let mut p = vec![
            op(LD_W_ABS, ARCH),
            jump(JEQ_K, AUDIT_ARCH, 1, 0),
            op(RET_K, RET_KILL),
            op(LD_W_ABS, NR),
        ];
        #[cfg(target_arch = "x86_64")]
        p.extend([jump(JGE_K, 0x4000_0000, 0, 1), op(RET_K, RET_KILL)]);
        for nr in denied() {
            p.push(jump(JEQ_K, nr as u32, 0, 1));
            p.push(op(RET_K, RET_EPERM));
        }
        when(&mut p, libc::SYS_clone3, vec![op(RET_K, RET_ENOSYS)]);
        // clone(flags, …): x86-64 and arm64 both take the flags first.
        when(&mut p, libc::SYS_clone, flag_block(0, NS_FLAGS));
        when(&mut p, libc::SYS_socket, socket_block());
        when(
            &mut p,
            libc::SYS_sendto,
            flag_block(3, libc::MSG_FASTOPEN as u32),
        );
        when(
            &mut p,
            libc::SYS_sendmsg,
            flag_block(2, libc::MSG_FASTOPEN as u32),
        );
        when(
            &mut p,
            libc::SYS_sendmmsg,
            flag_block(3, libc::MSG_FASTOPEN as u32),
        );
        when(&mut p, libc::SYS_setsockopt, setsockopt_block());
        when(&mut p, libc::SYS_ioctl, ioctl_block());
        p.push(op(RET_K, RET_ALLOW));
        p
    }
}

/// socket(domain, type, protocol): no AF_PACKET, no unix sockets (a path or an abstract
/// name could reach a server outside), no SOCK_RAW/SOCK_PACKET, no MPTCP. (`socketpair`
/// stays: its two ends reach nothing else.)
fn socket_block() -> Vec<sock_filter> {
    vec![
        op(LD_W_ABS, arg(0)),
        jump(JEQ_K, libc::AF_PACKET as u32, 7, 0),
        jump(JEQ_K, libc::AF_UNIX as u32, 6, 0),
        op(LD_W_ABS, arg(1)),
        op(AND_K, 0xf),
        jump(JEQ_K, libc::SOCK_RAW as u32, 3, 0),
        jump(JEQ_K, SOCK_PACKET, 2, 0),
        op(LD_W_ABS, arg(2)),
        jump(JEQ_K, IPPROTO_MPTCP, 0, 1),
        op(RET_K, RET_EPERM),
        op(RET_K, RET_ALLOW),
    ]
}

/// setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN[_CONNECT], …).
fn setsockopt_block() -> Vec<sock_filter> {
    vec![
        op(LD_W_ABS, arg(1)),
        jump(JEQ_K, libc::IPPROTO_TCP as u32, 0, 4),
        op(LD_W_ABS, arg(2)),
        jump(JEQ_K, TCP_FASTOPEN_CONNECT, 1, 0),
        jump(JEQ_K, TCP_FASTOPEN, 0, 1),
        op(RET_K, RET_EPERM),
        op(RET_K, RET_ALLOW),
    ]
}

/// ioctl(fd, TIOCSTI | TIOCLINUX, …).
fn ioctl_block() -> Vec<sock_filter> {
    vec![
        op(LD_W_ABS, arg(1)),
        jump(JEQ_K, libc::TIOCSTI as u32, 1, 0),
        jump(JEQ_K, TIOCLINUX, 0, 1),
        op(RET_K, RET_EPERM),
        op(RET_K, RET_ALLOW),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_jump_lands_inside_the_program_and_it_ends_in_a_return() {
        let p = super::program();
        assert!(p.len() > 40 && p.len() < 256, "{} instructions", p.len());
        for (i, ins) in p.iter().enumerate() {
            if ins.code & 0x07 == 0x05 {
                let far = i + 1 + usize::from(ins.jt.max(ins.jf));
                assert!(far < p.len(), "instruction {i} jumps past the end");
            }
        }
        assert_eq!(p.last().map(|i| i.code), Some(super::RET_K));
    }
}
