//! The jail against a probe that goes for other processes' memory through `/proc` files, not
//! through the system calls seccomp refuses (`ptrace`, `process_vm_*`): reading and writing
//! `/proc/PID/mem` of the jail's PID 1 and of every other process it can see, and the
//! descriptors of those processes. Tried for real: the jail's PID 1 is the probe's own shell
//! (its memory readable, as a process reads its parent's), holding only `/dev/null` and
//! pipes, and no process of tsgnav's (this test's own, outside) can be opened; outside the
//! jail the same script opens it. Runs straight through the shell executor (no classifier
//! in front).

use tsgnav::query::shell::ShellExecutor;

use super::jail_escapes::{jail_or_skip, probe, run};

const PY: &str = "/usr/bin/python3";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_processes_memory_is_out_of_reach_through_proc() {
    if !jail_or_skip("other_processes_memory_is_out_of_reach_through_proc") {
        return;
    }
    let script = r#"
import os
me = os.getpid()
for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit()):
    if pid == me:
        continue
    try:
        line = open(f"/proc/{pid}/maps").readline()
        start = int(line.split("-")[0], 16)
    except Exception as e:
        print(f"MAPS-REFUSED {pid} {type(e).__name__}")
        start = None
    try:
        with open(f"/proc/{pid}/mem", "rb") as f:
            if start is not None:
                f.seek(start)
                f.read(4)
            print(f"MEM-READ {pid}")
    except Exception as e:
        print(f"MEM-READ-REFUSED {pid} {type(e).__name__}")
    try:
        with open(f"/proc/{pid}/mem", "r+b"):
            print(f"MEM-WRITE {pid}")
    except Exception as e:
        print(f"MEM-WRITE-REFUSED {pid} {type(e).__name__}")
    for what in ("cwd", "root"):
        try:
            os.listdir(f"/proc/{pid}/{what}")
            print(f"{what.upper()}-LISTED {pid}")
        except Exception as e:
            print(f"{what.upper()}-REFUSED {pid} {type(e).__name__}")
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
    except Exception as e:
        exe = type(e).__name__
    print(f"EXE {pid} {exe}")
    try:
        print(f"FDS {pid} " + " ".join(sorted(os.readlink(f"/proc/{pid}/fd/{d}") for d in os.listdir(f"/proc/{pid}/fd"))))
    except Exception as e:
        print(f"FDS-REFUSED {pid} {type(e).__name__}")
outside = os.environ.get("OUTSIDE", "")
try:
    with open(f"/proc/{outside}/mem", "rb"):
        print("OUTSIDE-MEM-OPENED")
except Exception as e:
    print(f"OUTSIDE-MEM-REFUSED {type(e).__name__}")
print("DONE")
"#;
    // The script goes in as a variable's value (never pasted into the shell text).
    let code = format!("OUTSIDE=\"$OUTSIDE\" {PY} -c \"$SCRIPT\" 2>&1\n");
    // This test's own process, outside the jail (tsgnav's library code runs in it).
    let vars = [
        ("SCRIPT", script.to_string()),
        ("OUTSIDE", std::process::id().to_string()),
    ];
    let (_, out) = run(&ShellExecutor::default(), probe(&code, &vars)).await;
    assert!(out.contains("DONE"), "{out}");
    // What the probe sees of other processes is its own: its shell, with no socket or file
    // of tsgnav's among its descriptors (reading its memory is reading the probe itself).
    let exes: Vec<&str> = out.lines().filter(|l| l.starts_with("EXE ")).collect();
    assert!(!exes.is_empty(), "the probe saw no other process: {out}");
    for l in &exes {
        let exe = l.rsplit(' ').next().unwrap_or("");
        assert!(
            exe.ends_with("/bash") || exe.ends_with("/python3") || exe.ends_with("/sh"),
            "a process of tsgnav's is in reach: {l}\n{out}"
        );
    }
    for l in out.lines().filter(|l| l.starts_with("FDS ")) {
        for fd in l.split(' ').skip(2) {
            assert!(
                fd == "/dev/null" || fd.starts_with("pipe:"),
                "a descriptor in reach that is not the probe's own: {fd}\n{out}"
            );
        }
    }
    // The process that runs tsgnav's code outside is not there to read.
    assert!(out.contains("OUTSIDE-MEM-REFUSED"), "{out}");
}
