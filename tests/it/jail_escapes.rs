//! The jail against probes that try to get out. Each probe runs straight through the shell
//! executor (no classifier in front, as if a hidden form had fooled it), tries one kind of
//! escape, and the test proves it failed *and* that nothing outside changed: listeners the
//! test opens outside saw no connection, a process outside still runs, the simulator
//! counted no write. Python one-liners make the socket calls bash cannot.

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};

use tsgnav::query::jail::{isolation, Isolation};
use tsgnav::query::shell::ShellExecutor;
use tsgnav::query::{Cancel, Executor, OutputSink, ProbeId, ProbeRequest, ProbeResult};

use super::mitigate_support::request;

const PY: &str = "/usr/bin/python3";

/// Whether the jail can be built here; else a SKIP line (a failure with
/// TSGNAV_REQUIRE_SERVERS=1).
pub fn jail_or_skip(test: &str) -> bool {
    match isolation(true) {
        Isolation::Jailed => true,
        Isolation::NotIsolated(why) => {
            assert!(
                std::env::var("TSGNAV_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "{test}: {why}"
            );
            eprintln!("SKIP {test}: {why}");
            false
        }
    }
}

pub async fn run(sh: &ShellExecutor, req: ProbeRequest) -> (ProbeResult, String) {
    let r = sh
        .run(
            req,
            OutputSink::detached(ProbeId("x".into())),
            Cancel::new(),
        )
        .await;
    let out = String::from_utf8_lossy(&r.output.read_all().unwrap_or_default()).into_owned();
    (r, out)
}

/// A probe with `vars` as its values and no kube context.
pub fn probe(code: &str, vars: &[(&str, String)]) -> ProbeRequest {
    let mut req = request(code, "UNUSED", "-", "mc-1", None);
    req.target.kube_context = None;
    for (k, v) in vars {
        req.bindings.insert((*k).to_string(), v.clone());
    }
    req
}

fn tcp() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.set_nonblocking(true).expect("nonblocking");
    let port = l.local_addr().expect("addr").port();
    (l, port)
}

fn nothing_arrived(l: &TcpListener, what: &str) {
    match l.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("{what}: a connection reached the listener outside: {other:?}"),
    }
}

/// A python block printing `NAME-OK` when `body` ran, `NAME-FAILED <errno>` otherwise.
fn py(name: &str, body: &str) -> String {
    format!(
        "{PY} -c 'import socket, sys, os\ntry:\n  {body}\n  print(\"{name}-OK\")\nexcept OSError as e:\n  print(\"{name}-FAILED\", e.errno)\n' \"$PORT\"\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_of_every_kind_reach_nothing_outside() {
    if !jail_or_skip("sockets_of_every_kind_reach_nothing_outside") {
        return;
    }
    let (listener, port) = tcp();
    let udp = UdpSocket::bind("127.0.0.1:0").expect("udp");
    udp.set_nonblocking(true).expect("nonblocking");
    let udp_port = udp.local_addr().expect("addr").port();
    let to = "(\"127.0.0.1\", int(sys.argv[1]))";
    let mut code = String::from("(exec 3<>\"/dev/tcp/127.0.0.1/$PORT\") 2>/dev/null && echo DEVTCP-OK || echo DEVTCP-FAILED\n");
    code += &py("TCP", &format!("socket.create_connection({to}, 2)"));
    code += &py(
        "MPTCP",
        &format!("s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.connect({to})"),
    );
    code += &py(
        "TFO",
        &format!(
            "socket.socket().sendto(b\"DELETE / HTTP/1.1\\r\\n\\r\\n\", socket.MSG_FASTOPEN, {to})"
        ),
    );
    code += &py(
        "TFOOPT",
        "socket.socket().setsockopt(socket.IPPROTO_TCP, 30, 1)",
    );
    code += &py("UDP", &format!("socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"127.0.0.1\", {udp_port})); socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"192.0.2.1\", 53))"));
    code += &py(
        "RAW",
        "socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)",
    );
    code += &py(
        "PACKET",
        "socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)",
    );
    code += &py(
        "PORT443",
        "socket.create_connection((\"127.0.0.1\", 443), 2)",
    );
    code += &py(
        "OUTSIDE",
        "socket.create_connection((\"192.0.2.1\", 443), 2)",
    );
    let (r, out) = run(
        &ShellExecutor::default(),
        probe(&code, &[("PORT", port.to_string())]),
    )
    .await;
    assert!(
        r.sandbox.as_deref().unwrap_or_default().starts_with("jail"),
        "{:?}",
        r.sandbox
    );
    for name in [
        "DEVTCP", "TCP", "MPTCP", "TFO", "TFOOPT", "UDP", "RAW", "PACKET", "PORT443", "OUTSIDE",
    ] {
        assert!(
            out.contains(&format!("{name}-FAILED")),
            "{name} got out: {out}"
        );
    }
    // The seccomp filter refuses these before any network is asked (EPERM = 1).
    for name in ["MPTCP", "TFO", "TFOOPT", "RAW", "PACKET"] {
        assert!(out.contains(&format!("{name}-FAILED 1\n")), "{name}: {out}");
    }
    nothing_arrived(&listener, "tcp");
    let mut buf = [0u8; 8];
    assert_eq!(
        udp.recv(&mut buf).map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock),
        "udp"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unix_sockets_with_a_path_or_an_abstract_name_are_out_of_reach() {
    use std::os::linux::net::SocketAddrExt;
    if !jail_or_skip("unix_sockets_are_out_of_reach") {
        return;
    }
    // One in /tmp (covered inside), one in a folder the jail shows read-only.
    let shown = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let hidden = tempfile::tempdir().expect("tempdir");
    let paths = [shown.path().join("s.sock"), hidden.path().join("s.sock")];
    let listeners: Vec<_> = paths
        .iter()
        .map(|p| {
            let l = std::os::unix::net::UnixListener::bind(p).expect("bind");
            l.set_nonblocking(true).expect("nonblocking");
            l
        })
        .collect();
    let name = format!("tsgnav-jail-test-{}", std::process::id());
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(&name).expect("name");
    let abstract_l = std::os::unix::net::UnixListener::bind_addr(&addr).expect("bind abstract");
    abstract_l.set_nonblocking(true).expect("nonblocking");
    let code =
        format!(
        "curl -s --max-time 2 --unix-socket \"$A\" http://x/ && echo CURL-OK || echo CURL-FAILED\n\
         {}{}{}",
        py("SHOWN", "s = socket.socket(socket.AF_UNIX); s.connect(os.environ[\"A\"])"),
        py("HIDDEN", "s = socket.socket(socket.AF_UNIX); s.connect(os.environ[\"B\"])"),
        py("ABSTRACT", &format!("s = socket.socket(socket.AF_UNIX); s.connect(\"\\0{name}\")")),
    );
    let vars = [
        ("A", paths[0].to_string_lossy().into_owned()),
        ("B", paths[1].to_string_lossy().into_owned()),
        ("PORT", "0".to_string()),
    ];
    let (_, out) = run(&ShellExecutor::default(), probe(&code, &vars)).await;
    for n in ["CURL", "SHOWN", "HIDDEN", "ABSTRACT"] {
        assert!(out.contains(&format!("{n}-FAILED")), "{n}: {out}");
    }
    for l in listeners.iter().chain([&abstract_l]) {
        assert!(
            matches!(l.accept(), Err(e) if e.kind() == ErrorKind::WouldBlock),
            "a unix connection arrived: {out}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signals_and_priorities_cannot_reach_a_process_outside() {
    if !jail_or_skip("signals_cannot_reach_a_process_outside") {
        return;
    }
    let mut outside = std::process::Command::new("sleep")
        .arg("300")
        .spawn()
        .expect("sleep");
    let code = "kill -9 \"$VICTIM\" && echo KILL-OK || echo KILL-FAILED\n\
                kill -9 -1; ionice -c 3 -p \"$VICTIM\" && echo IONICE-OK || echo IONICE-FAILED\n\
                renice -n 19 -p \"$VICTIM\" >/dev/null 2>&1 && echo RENICE-OK || echo RENICE-FAILED\n\
                ls /proc | grep -c '^[0-9]'\n";
    let vars = [("VICTIM", outside.id().to_string())];
    let (_, out) = run(&ShellExecutor::default(), probe(code, &vars)).await;
    for n in ["KILL", "IONICE", "RENICE"] {
        assert!(out.contains(&format!("{n}-FAILED")), "{n}: {out}");
    }
    assert_eq!(
        outside.try_wait().expect("try_wait"),
        None,
        "the process outside still runs"
    );
    outside.kill().expect("kill");
    let _ = outside.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_is_out_of_reach() {
    if !jail_or_skip("the_terminal_is_out_of_reach") {
        return;
    }
    let code = format!(
        "echo hello > /dev/tty 2>/dev/null && echo TTY-OK || echo TTY-FAILED\n\
         printf '\\033]52;c;%s\\a' aGk= > /dev/tty 2>/dev/null && echo OSC-OK || echo OSC-FAILED\n\
         echo ctty=$(cut -d' ' -f7 /proc/self/stat)\n\
         {}{}",
        py("STI", "import fcntl, termios; [fcntl.ioctl(fd, termios.TIOCSTI, b\"W\") for fd in (0, 1, 2)]"),
        py("STITTY", "import fcntl, termios; fcntl.ioctl(os.open(\"/dev/tty\", os.O_RDWR), termios.TIOCSTI, b\"W\")"),
    );
    let (_, out) = run(
        &ShellExecutor::default(),
        probe(&code, &[("PORT", "0".into())]),
    )
    .await;
    for n in ["TTY", "OSC", "STI", "STITTY"] {
        assert!(out.contains(&format!("{n}-FAILED")), "{n}: {out}");
    }
    assert!(
        out.contains("STI-FAILED 1\n"),
        "TIOCSTI is refused by seccomp: {out}"
    );
    assert!(out.contains("ctty=0\n"), "no controlling terminal: {out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_homes_kubeconfigs_and_tmp_of_the_operator_are_hidden() {
    if !jail_or_skip("the_homes_kubeconfigs_and_tmp_are_hidden") {
        return;
    }
    // A kubeconfig in /tmp (covered) and one in a folder the jail shows (replaced by an
    // empty file): the probe is told both paths.
    let tmp = tempfile::tempdir().expect("tempdir");
    let shown = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let secret = "token: hunter2-jail-test";
    for d in [tmp.path(), shown.path()] {
        std::fs::write(d.join("config"), secret).expect("write");
    }
    let code = "cat \"$A\" \"$B\" 2>&1; cat ~/.kube/config 2>&1; echo home=$HOME\n\
                cat /root/.bash_history /root/.ssh/id_* 2>/dev/null | head -c 200; ls -A /root /home /run | grep -v ':$' | grep -c . \n";
    let mut req = probe(
        code,
        &[
            (
                "A",
                tmp.path().join("config").to_string_lossy().into_owned(),
            ),
            (
                "B",
                shown.path().join("config").to_string_lossy().into_owned(),
            ),
        ],
    );
    req.target.kubeconfig = Some(shown.path().join("config"));
    let (_, out) = run(&ShellExecutor::default(), req).await;
    assert!(!out.contains("hunter2"), "a kubeconfig was read: {out}");
    let home = format!(
        "home={}/tsgnav-probe-",
        tsgnav::query::scratch::base().display()
    );
    assert!(out.contains(&home), "{home} in {out}");
    assert!(
        out.lines().any(|l| l.trim() == "0"),
        "the homes and /run look empty: {out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_writes_only_in_its_scratch_folder() {
    if !jail_or_skip("a_probe_writes_only_in_its_scratch_folder") {
        return;
    }
    let shown = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let code = "touch \"$D/x\" 2>/dev/null && echo OUT-OK || echo OUT-FAILED\n\
                echo hi > \"$TMPDIR/y\" && echo SCRATCH-OK\n\
                echo hi > \"$HOME/z\" && echo HOME-OK\n";
    let (_, out) = run(
        &ShellExecutor::default(),
        probe(code, &[("D", shown.path().to_string_lossy().into_owned())]),
    )
    .await;
    assert!(out.contains("OUT-FAILED"), "{out}");
    assert!(
        out.contains("SCRATCH-OK") && out.contains("HOME-OK"),
        "{out}"
    );
    assert!(!shown.path().join("x").exists());
}
