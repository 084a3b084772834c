//! PURE canned contents of a simulated pod for `sim::pod_shell`: its files
//! (`/etc/resolv.conf` …), directory listings, and `etcdctl` answers in etcd pods.
//!
//! No IO; imports nothing of the crate outside `sim`.

use super::pod_shell::{fail, ok, Ran};

pub(super) fn file(path: &str, name: &str, ns: &str) -> Option<String> {
    Some(match path {
        "/etc/resolv.conf" => format!(
            "search {ns}.svc.cluster.local svc.cluster.local cluster.local\nnameserver 172.30.0.10\noptions ndots:5\n"
        ),
        "/etc/hostname" => format!("{name}\n"),
        "/etc/os-release" => "NAME=\"Red Hat Enterprise Linux\"\nVERSION_ID=\"9.4\"\nID=\"rhel\"\n".into(),
        _ => return None,
    })
}

pub(super) fn listing(path: &str, etcd: bool) -> Option<Vec<&'static str>> {
    Some(match path.trim_end_matches('/') {
        "" => vec![
            "bin", "dev", "etc", "home", "lib", "proc", "root", "run", "sys", "tmp", "usr", "var",
        ],
        "/etc" => vec!["hostname", "hosts", "os-release", "passwd", "resolv.conf"],
        "/tmp" => vec![],
        "/var/lib/etcd" if etcd => vec!["member"],
        "/var/lib/etcd/member" if etcd => vec!["snap", "wal"],
        _ => return None,
    })
}

pub(super) fn etcdctl(args: &[&str], name: &str, ip: &str) -> Ran {
    let sub: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let table =
        args.windows(2).any(|w| w == ["-w", "table"]) || args.contains(&"--write-out=table");
    let id = name.bytes().fold(0x8e9e05c52164694d_u64, |h, b| {
        h.rotate_left(5) ^ u64::from(b)
    });
    match sub.as_slice() {
        ["endpoint", "health", ..] => ok(format!(
            "https://{ip}:2379 is healthy: successfully committed proposal: took = 9.218ms\n"
        )),
        ["endpoint", "status", ..] if table => ok(format!(
            "+------------------------+------------------+---------+---------+-----------+\n|        ENDPOINT        |        ID        | VERSION | DB SIZE | IS LEADER |\n+------------------------+------------------+---------+---------+-----------+\n| https://{ip}:2379 | {id:016x} |  3.5.14 |  118 MB |      true |\n+------------------------+------------------+---------+---------+-----------+\n"
        )),
        ["endpoint", "status", ..] => ok(format!(
            "https://{ip}:2379, {id:016x}, 3.5.14, 118 MB, true, false, 9, 48213, 48213, \n"
        )),
        ["member", "list", ..] => ok(format!(
            "{id:016x}, started, {name}, https://{ip}:2380, https://{ip}:2379, false\n"
        )),
        _ => fail(
            format!(
                "Error: the simulator's etcdctl answers only `endpoint health`, `endpoint status` and `member list`, not `{}`\n",
                sub.join(" ")
            ),
            1,
        ),
    }
}
