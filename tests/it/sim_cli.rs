//! `tsgnav sim serve` as a user runs it: it prints the kubeconfig path, serves the requested
//! number of clusters (one context each) until Ctrl-C (SIGINT), then exits 0; a bad scenario
//! name is a clear error.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use super::common::bin;
use super::sim_support::client;

#[test]
fn serve_prints_the_kubeconfig_and_stops_on_ctrl_c() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = dir.path().join("kc.yaml");
    let mut child = bin()
        .args([
            "sim",
            "serve",
            "--scenario",
            "maestro",
            "--clusters",
            "3",
            "--kubeconfig",
        ])
        .arg(&kc)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tsgnav");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut printed = Vec::new();
    for line in lines.by_ref() {
        let line = line.expect("line");
        let done = line.starts_with("press Ctrl-C");
        printed.push(line);
        if done {
            break;
        }
    }
    assert!(
        printed
            .iter()
            .any(|l| l == &format!("kubeconfig: {}", kc.display())),
        "{printed:?}"
    );
    assert!(
        printed
            .iter()
            .any(|l| l.contains("3 contexts, current mc-eastus-1")),
        "{printed:?}"
    );

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    let names = rt.block_on(async {
        let c = client(&kc, Some("mc-westeurope-1")).await;
        let deps: kube::Api<k8s_openapi::api::apps::v1::Deployment> =
            kube::Api::namespaced(c, "maestro");
        deps.list(&Default::default())
            .await
            .expect("list")
            .items
            .into_iter()
            .filter_map(|d| d.metadata.name)
            .collect::<Vec<_>>()
    });
    assert_eq!(names, vec!["maestro-agent"]);

    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    assert!(sent.success());
    let mut status = None;
    for _ in 0..100 {
        if let Some(s) = child.try_wait().expect("wait") {
            status = Some(s);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = match status {
        Some(s) => s,
        None => {
            let _ = child.kill();
            panic!("tsgnav sim serve did not stop on SIGINT");
        }
    };
    assert!(status.success(), "{status:?}");
}

#[test]
fn serve_names_a_bad_scenario() {
    let out = bin()
        .args(["sim", "serve", "--scenario", "nope"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no bundled scenario \"nope\"; use swift, maestro or a YAML file"),
        "{err}"
    );
}
