//! The jail and the API proxy's grants, with the real kubectl and the simulator: a read-only
//! probe cannot rewrite the discovery cache, cannot read another probe's kubeconfig (its
//! grant) nor list the passes of the probes running beside it, and hidden code (`BASH_ENV` set by `printf -v`, `read`, a nameref, `set -k`)
//! cannot send a DELETE by any road: kubectl gets the proxy's 403, `/dev/tcp`, curl and
//! python cannot connect to the simulator's real port. `kubectl get --raw` reads through the
//! probe's own door (it drops the token in the URL's path); raw writes and another token's
//! prefix are refused there. The simulator counts no write.

use std::time::Duration;

use tsgnav::query::shell::ShellExecutor;

use super::jail_escapes::{jail_or_skip, run};
use super::mitigate_support::request;

const POD: &str = "maestro-agent-6c9d8b7f5-hx4tq";

fn port_of(url: &str) -> String {
    url.rsplit(':').next().unwrap_or_default().to_string()
}

/// Every file under `dir` with its bytes, sorted.
fn snapshot(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut v = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            // tsgnav links each new probe's folder to the shared one: only files count.
            if p.is_symlink() {
                continue;
            }
            match p.is_dir() {
                true => stack.push(p),
                false => v.push((p.clone(), std::fs::read(&p).unwrap_or_default())),
            }
        }
    }
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_discovery_cache_cannot_be_poisoned() {
    if !jail_or_skip("the_discovery_cache_cannot_be_poisoned") {
        return;
    }
    poison_attempt(ShellExecutor::default(), true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_discovery_cache_cannot_be_poisoned_with_landlock_alone() {
    // The degraded mode: no namespaces, Landlock only. The shared folder is outside what the
    // probe may write, whatever its own cache folder links to.
    if !jail_or_skip("the_discovery_cache_cannot_be_poisoned_with_landlock_alone") {
        return;
    }
    let mut sh = ShellExecutor::default();
    sh.sandbox.jail = false;
    poison_attempt(sh, false).await;
}

async fn poison_attempt(sh: ShellExecutor, filled: bool) {
    let Some(_) = super::sim_support::kubectl("the_discovery_cache_cannot_be_poisoned") else {
        return;
    };
    let sim = super::sim_support::start("maestro", None).await;
    let read = request(
        "kubectl get pods -n maestro --no-headers",
        "V",
        "v",
        "mc-eastus-1",
        Some(&sim.kubeconfig),
    );
    let (r, out) = run(&sh, read.clone()).await;
    assert!(
        r.status.is_ok() && out.contains(POD),
        "{:?}: {out}",
        r.status
    );
    let cache = sh.proxy.cache_dir();
    let before = snapshot(&cache);
    // In a jail tsgnav fills the shared folder first; with Landlock alone nobody may write it,
    // so it stays empty and each probe discovers for itself.
    assert_eq!(
        before.iter().any(|(p, _)| p.ends_with("servergroups.json")),
        filled,
        "tsgnav filled the discovery cache: {before:?}"
    );
    // In a jail the probe's KUBECACHEDIR is the shared folder itself, shown read-only (its
    // server is its door, the same URL for every probe); with Landlock alone it is its own
    // (in its scratch) and its discovery folder links to the shared one. Every later probe
    // of the context reads the shared one: it must not change.
    let poison = "# kubectl is named so the probe gets its door\n\
                  find -L \"$KUBECACHEDIR\" -name '*.json' | while read -r f; do echo '{}' > \"$f\" 2>/dev/null && echo POISONED; done\n\
                  shared=$(ls -d \"$KUBECACHEDIR\"/discovery/*/p/* 2>/dev/null || ls -d \"$KUBECACHEDIR\"/discovery/*)\n\
                  test -L \"$shared\" && echo SHARED-LINK\n\
                  test -f \"$shared/servergroups.json\" && echo SHARED-FILLED\n\
                  mkdir -p \"$shared/x\" 2>/dev/null && echo CACHE-WRITTEN || echo CACHE-READ-ONLY\n\
                  ln -sf /tmp \"$shared/evil\" 2>/dev/null && echo LINKED || echo LINK-REFUSED\n\
                  rm -f \"$shared/servergroups.json\" 2>/dev/null; mkdir -p \"$KUBECACHEDIR/discovery/x\" 2>/dev/null && echo ROOT-WRITTEN\n";
    let (_, out) = run(
        &sh,
        request(poison, "V", "v", "mc-eastus-1", Some(&sim.kubeconfig)),
    )
    .await;
    assert!(
        !out.contains("POISONED") && !out.contains("CACHE-WRITTEN"),
        "{out}"
    );
    assert!(
        out.contains("CACHE-READ-ONLY") && out.contains("LINK-REFUSED"),
        "{out}"
    );
    // With Landlock alone the probe's own folder links to the shared one; in a jail it reads
    // what tsgnav filled there, and cannot write beside it either.
    assert_eq!(out.contains("SHARED-LINK"), !filled, "{out}");
    assert_eq!(out.contains("SHARED-FILLED"), filled, "{out}");
    assert!(!filled || !out.contains("ROOT-WRITTEN"), "{out}");
    assert_eq!(snapshot(&cache), before, "the cache is unchanged");
    let (r, out) = run(&sh, read).await;
    assert!(
        r.status.is_ok() && out.contains(POD),
        "kubectl still reads: {out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_cannot_read_another_probes_grant() {
    if !jail_or_skip("a_probe_cannot_read_another_probes_grant") {
        return;
    }
    let Some(_) = super::sim_support::kubectl("a_probe_cannot_read_another_probes_grant") else {
        return;
    };
    let sim = super::sim_support::start("maestro", None).await;
    let sh = ShellExecutor::default();
    // The victim holds its grant for a while; the thief looks everywhere a kubeconfig was.
    // The victim's names its door, not a token: the door itself says whose connection it is.
    let victim = request(
        "kubectl get pods -n maestro >/dev/null; grep -c tsgnav-read-only-proxy \"$KUBECONFIG\"; grep -c '/p/' \"$KUBECONFIG\"; sleep 2",
        "V",
        "v",
        "mc-eastus-1",
        Some(&sim.kubeconfig),
    );
    let thief = "sleep 0.7\n\
                 cat /tmp/tsgnav-probe-*/kubeconfig /dev/shm/tsgnav-probe-*/kubeconfig \"$(dirname \"$TMPDIR\")\"/tsgnav-probe-*/kubeconfig /tmp/tsgnav-grant/kubeconfig /tmp/*/tsgnav-grant/kubeconfig 2>/dev/null | grep -e '/p/' -e tsgnav-read-only-proxy && echo STOLEN\n\
                 grep -rl -e '/p/' -e tsgnav-read-only-proxy /tmp /dev/shm \"$(dirname \"$TMPDIR\")\" /proc/*/root/tmp 2>/dev/null | head -3\n\
                 ls \"$(dirname \"$TMPDIR\")\" | wc -l\n";
    let (a, b) = tokio::join!(run(&sh, victim), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        run(&sh, super::jail_escapes::probe(thief, &[])).await
    });
    assert!(
        a.1.starts_with("1\n0\n"),
        "the victim had its own kubeconfig, naming its door and no token: {}",
        a.1
    );
    assert!(
        !b.1.contains("STOLEN") && !b.1.contains("/p/") && !b.1.contains("tsgnav-read-only"),
        "{}",
        b.1
    );
    assert!(
        b.1.contains("\n1\n") || b.1.starts_with("1\n"),
        "the thief sees only its own scratch folder where the scratch folders are: {}",
        b.1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hidden_code_cannot_send_a_delete_by_any_road() {
    if !jail_or_skip("hidden_code_cannot_send_a_delete_by_any_road") {
        return;
    }
    let Some(_) = super::sim_support::kubectl("hidden_code_cannot_send_a_delete") else {
        return;
    };
    let sim = super::sim_support::start("maestro", None).await;
    let api = format!("{}/api/v1/namespaces/maestro/pods/{POD}", sim.handle.url);
    // The payload: every way out at once, each reporting how far it got.
    let payload = format!(
        "kubectl delete pod {POD} -n maestro >/dev/null 2>&1 && echo KUBECTL-DELETED || echo KUBECTL-REFUSED\n\
         curl -s --max-time 2 -X DELETE '{api}' >/dev/null && echo CURL-DELETED || echo CURL-FAILED\n\
         (exec 3<>/dev/tcp/127.0.0.1/{port}; printf 'DELETE /api/v1/namespaces/maestro/pods/{POD} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n' >&3) 2>/dev/null && echo DEVTCP-SENT || echo DEVTCP-FAILED\n\
         /usr/bin/python3 -c 'import urllib.request as u; u.urlopen(u.Request(\"{api}\", method=\"DELETE\"), timeout=2)' 2>/dev/null && echo PY-DELETED || echo PY-FAILED\n",
        port = port_of(&sim.handle.url)
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("payload");
    std::fs::write(&file, &payload).expect("write");
    let forms = [
        "printf -v BASH_ENV '%s' \"$F\"; export BASH_ENV; bash -c :",
        "read -r BASH_ENV <<< \"$F\"; export BASH_ENV; bash -c :",
        "declare -n ref=BASH_ENV; ref=\"$F\"; export BASH_ENV; bash -c :",
        "set -k; bash -c : BASH_ENV=\"$F\"",
    ];
    let writes = sim.handle.writes();
    let sh = ShellExecutor::default();
    for form in forms {
        // The payload is outside the jail's view (in /tmp): it is copied into the scratch.
        let code =
            format!("# kubectl\nF=\"$TMPDIR/p\"; printf '%s' \"$PAYLOAD\" > \"$F\"\n{form}\n");
        let mut req = request(
            &code,
            "PAYLOAD",
            &payload,
            "mc-eastus-1",
            Some(&sim.kubeconfig),
        );
        req.bindings
            .insert("UNUSED".into(), file.to_string_lossy().into_owned());
        let (_, out) = run(&sh, req).await;
        for n in [
            "KUBECTL-REFUSED",
            "CURL-FAILED",
            "DEVTCP-FAILED",
            "PY-FAILED",
        ] {
            assert!(out.contains(n), "{form}: {n} missing: {out}");
        }
        assert!(
            out.contains(&format!(
                "tsgnav proxy: refused DELETE /api/v1/namespaces/maestro/pods/{POD}"
            )),
            "{form}: {out}"
        );
    }
    assert_eq!(
        sim.handle.writes(),
        writes,
        "no write reached the simulator"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_reads_pass_the_probes_own_door_and_raw_writes_and_other_tokens_do_not() {
    if !jail_or_skip("raw_reads_pass_the_probes_own_door") {
        return;
    }
    let Some(_) = super::sim_support::kubectl("raw_reads_pass_the_probes_own_door") else {
        return;
    };
    let sim = super::sim_support::start("maestro", None).await;
    let sh = ShellExecutor::default();
    // `--raw` drops the server URL's path (the token): the door itself says whose it is.
    let code = format!(
        "kubectl get --raw /api/v1/namespaces/maestro/pods | grep -c {POD}\n\
         kubectl delete --raw /api/v1/namespaces/maestro/pods/{POD} 2>&1 | head -c 300; echo\n\
         echo '{{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{{\"name\":\"x\"}}}}' | kubectl create --raw /api/v1/namespaces -f - 2>&1 | head -c 300; echo\n\
         port=$(grep -o '127.0.0.1:[0-9]*' \"$KUBECONFIG\" | head -1)\n\
         curl -s --noproxy '*' -o /dev/null -w 'other-token=%{{http_code}}\\n' http://$port/p/{}/api/v1/namespaces\n\
         curl -s --noproxy '*' -o /dev/null -w 'own-door=%{{http_code}}\\n' http://$port/api/v1/namespaces\n",
        "ab".repeat(32)
    );
    let (r, out) = run(
        &sh,
        request(&code, "V", "v", "mc-eastus-1", Some(&sim.kubeconfig)),
    )
    .await;
    assert!(r.status.is_ok(), "{out}");
    assert!(out.starts_with("1\n"), "the raw read came back: {out}");
    for refused in [
        format!("refused DELETE /api/v1/namespaces/maestro/pods/{POD}"),
        "refused POST /api/v1/namespaces".to_string(),
    ] {
        assert!(out.contains(&refused), "the proxy {refused}: {out}");
    }
    assert!(out.contains("other-token=401"), "{out}");
    assert!(out.contains("own-door=200"), "{out}");
    assert_eq!(
        sim.handle.writes(),
        0,
        "no write reached the cluster: {out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_cannot_list_the_passes_of_the_probes_running_beside_it() {
    // kubectl names its discovery folder after the server URL, which holds the probe's token.
    // Those folders must be the probe's own: were they in the session's shared cache (which
    // every jail sees), a probe could list the tokens of the probes running beside it, a
    // confirmed change among them. (Its door refuses another token, but a pass stays secret.)
    if !jail_or_skip("a_probe_cannot_list_the_passes_of_the_probes_running_beside_it") {
        return;
    }
    let Some(_) = super::sim_support::kubectl("a_probe_cannot_list_the_passes") else {
        return;
    };
    let sim = super::sim_support::start("maestro", None).await;
    let sh = ShellExecutor::default();
    let kc = Some(sim.kubeconfig.as_path());
    let long = "# kubectl is named so the probe gets its pass\nsleep 6; echo LONG-DONE";
    let look = "# kubectl is named so the probe gets its pass\nsleep 2\n\
                ls -d \"$KUBECACHEDIR\"/discovery/*/p/* 2>/dev/null | sed 's#.*/#TOKEN #'\n\
                ls -d \"$(dirname \"$KUBECACHEDIR\")\"/*/discovery/*/p/* 2>/dev/null | sed 's#.*/#NEAR #'\n\
                echo LOOK-DONE";
    let (a, b) = tokio::join!(
        run(&sh, request(long, "V", "v", "mc-eastus-1", kc)),
        run(&sh, request(look, "V", "v", "mc-eastus-1", kc)),
    );
    assert!(a.1.contains("LONG-DONE"), "{:?}: {}", a.0.status, a.1);
    assert!(b.1.contains("LOOK-DONE"), "{:?}: {}", b.0.status, b.1);
    let tokens = b.1.lines().filter(|l| l.starts_with("TOKEN ")).count();
    assert!(
        tokens <= 1,
        "the probe saw more passes than its own:\n{}",
        b.1
    );
    assert!(
        !b.1.contains("NEAR "),
        "the probe saw a neighbour's folder:\n{}",
        b.1
    );
    sim.handle.shutdown().await;
}
