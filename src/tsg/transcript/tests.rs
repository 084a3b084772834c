//! Unit tests of console transcript reading.
use super::*;

#[test]
fn dollar_prompt_and_output() {
    let t = split("console", "$ oc get pods -n x\nNAME  READY\nfoo   1/1\n").expect("t");
    assert_eq!(t.code, "oc get pods -n x");
    assert_eq!(t.output, "NAME  READY\nfoo   1/1");
}

#[test]
fn prompt_forms() {
    for (line, cmd) in [
        ("sh-5.1# chroot /host", "chroot /host"),
        (
            "[root@node-0 ~]# systemctl status kubelet",
            "systemctl status kubelet",
        ),
        ("bash-4.4$ ls /var", "ls /var"),
        ("PS C:\\> Get-Service", "Get-Service"),
        ("core@node-1:~$ uptime", "uptime"),
        ("# journalctl -u crio", "journalctl -u crio"),
    ] {
        let t = split("console", line).unwrap_or_default();
        assert_eq!(t.code, cmd, "{line}");
    }
}

#[test]
fn comments_in_scripts_are_not_prompts() {
    assert!(split("bash", "# list pods\nkubectl get pods").is_none());
    assert!(split("bash", "# kubectl get pods\nkubectl get nodes").is_none());
    let t = split("sh", "# systemctl restart kubelet").expect("root prompt");
    assert_eq!(t.code, "systemctl restart kubelet");
    assert!(split("console", "# Check the pods:").is_none());
}

#[test]
fn continuations_and_heredocs() {
    let t = split(
        "console",
        "$ kubectl get pods \\\n    -A\n$ cat <<'EOF' > f\n> $NOT_VAR\n> EOF\nout\n",
    )
    .expect("t");
    assert_eq!(
        t.code,
        "kubectl get pods \\\n    -A\ncat <<'EOF' > f\n$NOT_VAR\nEOF"
    );
    assert_eq!(t.output, "out");
    let t = split("console", "$ echo 'a\n> b'\na\nb").expect("t");
    assert_eq!(t.code, "echo 'a\nb'");
    assert_eq!(t.output, "a\nb");
}

#[test]
fn bad_input_is_reported_and_kept() {
    let t = split("console", "$ \n$ cat <<EOF\nline").expect("t");
    assert_eq!(t.problems.len(), 2, "{:?}", t.problems);
    assert_eq!(t.code, "cat <<EOF\nline");
    let big: String = (0..10_000).map(|i| format!("$ echo {i}\n{i}\n")).collect();
    let t = split("console", &big).expect("t");
    assert_eq!(t.code.lines().count(), 10_000);
    assert_eq!(t.output.lines().count(), 10_000);
}
