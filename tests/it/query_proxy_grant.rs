//! A confirmed run's pass confined to the write its confirmation named, with the real
//! `kubectl` against the simulator: `kubectl delete pod P -n maestro` reaches context A, and
//! every other way to another object or verb (another name, namespace, resource or verb, a
//! namespace instead of a pod, a subresource, a collection delete, a pod named `exec`, a
//! `--raw` POST, a patch instead of the delete) gets the 403 that names the write and what
//! was asked, and changes nothing.

use super::query_proxy::{Fixture, AGENT_POD, DENIED};

const OTHER_POD: &str = "maestro-5d7f8b9c4-k2v7p";

#[test]
fn a_confirmed_pass_lets_exactly_the_confirmed_write_through() {
    let Some(f) = Fixture::start(
        "a_confirmed_pass_lets_exactly_the_confirmed_write_through",
        2,
    ) else {
        return;
    };
    let (a, b) = (f.context(0), f.context(1));
    let confirmed = format!("kubectl delete pod {AGENT_POD} -n maestro");
    let (g, kc) = f.grant(&a, true);
    g.confine(tsgnav::safety::kube_writes(&confirmed, &[]));
    let (_gb, kcb) = f.grant(&b, false);
    let body = f.dir.path().join("body.json");
    std::fs::write(
        &body,
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"planted"}}"#,
    )
    .expect("write body");
    let eviction = f.dir.path().join("eviction.json");
    std::fs::write(
        &eviction,
        format!(r#"{{"apiVersion":"policy/v1","kind":"Eviction","metadata":{{"name":"{AGENT_POD}","namespace":"maestro"}}}}"#),
    )
    .expect("write eviction");
    let (body, eviction) = (body.display().to_string(), eviction.display().to_string());
    let pod_path = format!("/api/v1/namespaces/maestro/pods/{AGENT_POD}");
    let evict_path = format!("{pod_path}/eviction");
    let attempts: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["delete", "pod", OTHER_POD, "-n", "maestro"],
            format!("DELETE pods/{OTHER_POD} in namespace maestro"),
        ),
        (
            vec!["delete", "pod", AGENT_POD, "-n", "default"],
            format!("DELETE pods/{AGENT_POD} in namespace default"),
        ),
        (
            vec!["delete", "namespace", "maestro"],
            "DELETE namespaces/maestro".into(),
        ),
        (
            vec!["delete", "service", "maestro", "-n", "maestro"],
            "DELETE services/maestro in namespace maestro".into(),
        ),
        (
            vec!["label", "pod", AGENT_POD, "-n", "maestro", "x=y"],
            format!("PATCH pods/{AGENT_POD} in namespace maestro"),
        ),
        (
            vec![
                "patch",
                "pod",
                AGENT_POD,
                "-n",
                "maestro",
                "-p",
                r#"{"metadata":{"labels":{"a":"b"}}}"#,
            ],
            format!("PATCH pods/{AGENT_POD} in namespace maestro"),
        ),
        (
            vec!["delete", "pod", "exec", "-n", "maestro"],
            "DELETE pods/exec in namespace maestro".into(),
        ),
        (
            vec![
                "exec", "-n", "maestro", OTHER_POD, "--", "rm", "-rf", "/data",
            ],
            format!("POST pods/{OTHER_POD}/exec in namespace maestro"),
        ),
    ];
    let may = format!(
        "tsgnav: this run may delete pods/{AGENT_POD} in namespace maestro of context {a}; refused"
    );
    for (args, asked) in &attempts {
        let o = f.run(&kc, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} passed: {err}");
        assert!(err.contains(&format!("{may} ")), "{args:?}: {err}");
        // kubectl exec tries a WebSocket GET first, then SPDY's POST.
        let asked_get = asked.replacen("POST", "GET", 1);
        assert!(
            err.contains(asked.as_str()) || err.contains(&asked_get),
            "{args:?} should name `{asked}`: {err}"
        );
    }
    // The same through the pass's URL with curl (what `kubectl --raw` would send, were its
    // absolute path not outside the pass's URL, which gets it a 401 of its own).
    let server = format!("http://127.0.0.1:{}/p/{}", g.port(), g.token());
    let curls: Vec<(&str, &str, Option<&str>, String)> = vec![
        (
            "POST",
            &evict_path,
            Some(eviction.as_str()),
            format!("POST pods/{AGENT_POD}/eviction in namespace maestro"),
        ),
        (
            "DELETE",
            "/api/v1/namespaces/maestro/pods",
            None,
            "DELETE pods in namespace maestro (the whole collection)".into(),
        ),
        (
            "POST",
            "/api/v1/namespaces/maestro/configmaps",
            Some(body.as_str()),
            "POST configmaps in namespace maestro (the whole collection)".into(),
        ),
        (
            "PUT",
            &pod_path,
            Some(body.as_str()),
            format!("PUT pods/{AGENT_POD} in namespace maestro"),
        ),
    ];
    for (method, path, data, asked) in &curls {
        let mut c = std::process::Command::new("curl");
        c.args(["-sS", "-X", method, "-H", "Content-Type: application/json"]);
        if let Some(d) = data {
            c.args(["--data-binary", &format!("@{d}")]);
        }
        let o = c
            .arg(format!("{server}{path}"))
            .output()
            .expect("curl runs");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains(&format!("{may} {asked}")),
            "{method} {path}: {out}"
        );
        assert!(out.contains(r#""code":403"#), "{out}");
    }
    let raw = f.run(&kc, &["delete", "--raw", "/api/v1/namespaces/maestro/pods"]);
    assert!(!raw.status.success());
    // The same write through another context's pass is a read-only run's refusal.
    let o = f.run(&kcb, &["delete", "pod", AGENT_POD, "-n", "maestro"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("{DENIED} {b}")));
    // Nothing changed.
    let pods = |ctx: &str| f.direct(&["--context", ctx, "get", "pods", "-n", "maestro"]);
    assert!(pods(&a).contains(AGENT_POD) && pods(&a).contains(OTHER_POD));
    let cms = f.direct(&["--context", &a, "get", "configmaps", "-n", "maestro"]);
    assert!(!cms.contains("planted"), "{cms}");
    f.direct(&["--context", &a, "get", "namespace", "maestro"]);
    f.direct(&[
        "--context",
        &a,
        "get",
        "service",
        "maestro",
        "-n",
        "maestro",
    ]);
    // The confirmed write passes, once, and reaches A only.
    let o = f.run(&kc, &["delete", "pod", AGENT_POD, "-n", "maestro"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !pods(&a).contains(AGENT_POD),
        "the confirmed write did not reach A"
    );
    assert!(pods(&a).contains(OTHER_POD));
    assert!(pods(&b).contains(AGENT_POD), "the write reached B");
}
