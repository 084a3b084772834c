//! The differential suite: every kubectl form in `tests/fixtures/kube_diff/*.txt` (taken from
//! the bundled guides, the ARO-HCP guides and kubectl's documentation) runs through tsgnav and
//! through the real `kubectl` against the same simulator. When tsgnav answers natively, its
//! output must be kubectl's (column spacing aside) and it must fail where kubectl fails;
//! otherwise the runner must hand the form to the shell, where the real kubectl answers it.
//! Forms marked `!` must be refused with a message (kubectl's own answer there misleads).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tsgnav::query::kube::KubeExecutor;
use tsgnav::query::runner::{Runner, RunnerConfig};
use tsgnav::query::shell::ShellExecutor;
use tsgnav::query::{Backend, Cancel, Executor, OutputSink, ProbeId, ProbeRequest, Target};
use tsgnav::tsg::{Lang, SafetyClass};

use super::sim_support::{BlockingSim, OCM_NS};

fn bindings() -> BTreeMap<String, String> {
    [
        ("OCM_NAMESPACE", OCM_NS),
        ("ROUTER_POD", "router-6f8b7c9d5-c8wjm"),
        ("NODE_NAME", "aks-userswft-31562873-vmss000001"),
        ("CNS_POD", "azure-cns-9hq4m"),
        ("CLUSTER_ID", "2lq3swift0demo0cluster0id01"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// Lines with their runs of blanks folded to one space (kubectl pads columns to the widest
/// cell, tsgnav to its own), trailing blanks and blank last lines dropped.
pub fn normalize(s: &str) -> String {
    let lines: Vec<String> = s
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    lines.join("\n").trim_end().to_string()
}

/// The forms of one fixture file (comments and blank lines skipped).
pub fn forms(file: &str) -> Vec<String> {
    let path = super::common::root()
        .join("tests/fixtures/kube_diff")
        .join(file);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

fn request(code: &str, kubeconfig: &std::path::Path) -> ProbeRequest {
    ProbeRequest {
        id: ProbeId::new("diff.md#x", 1),
        lang: Lang::Shell,
        code: code.to_string(),
        bindings: bindings(),
        assigns: Vec::new(),
        timeout: Duration::from_secs(20),
        target: Target {
            kubeconfig: Some(kubeconfig.to_path_buf()),
            ..Target::default()
        },
        class: SafetyClass::ReadOnly,
        confirmation: None,
    }
}

/// What kubectl printed (its "No resources found" note counts, tsgnav prints it too), and
/// whether it succeeded.
fn kubectl_answer(s: &BlockingSim, code: &str) -> (String, bool) {
    let dir = s.kubeconfig().parent().expect("dir");
    let out = std::process::Command::new("bash")
        .args(["-c", code])
        .envs(bindings())
        .env("KUBECONFIG", s.kubeconfig())
        .env("HOME", dir)
        .env(
            "PATH",
            format!(
                "{}:{}",
                s.kubectl.parent().expect("bin dir").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .output()
        .expect("bash runs");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.starts_with("No resources found") {
        text.push_str(&err);
    }
    (text, out.status.success())
}

#[test]
fn every_form_matches_kubectl_or_is_handed_over() {
    let Some(s) = BlockingSim::start("swift", "every_form_matches_kubectl_or_is_handed_over")
    else {
        return;
    };
    let native = KubeExecutor::default();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let executors: Vec<Arc<dyn Executor>> =
        vec![Arc::new(native.clone()), Arc::new(ShellExecutor::default())];
    let runner = Runner::new(RunnerConfig::default(), executors, tx);
    let all = forms("swift.txt");
    // `both_failed` counts refusals too: tsgnav said it cannot, with a message.
    let (mut same, mut handed, mut both_failed) = (0, 0, 0);
    let mut wrong = Vec::new();
    for line in &all {
        let (refuse, code) = match line.strip_prefix('!') {
            Some(c) => (true, c.trim()),
            None => (false, line.as_str()),
        };
        let req = request(code, s.kubeconfig());
        let (want, kubectl_ok) = kubectl_answer(&s, code);
        if !native.accepts(&req) {
            let routed = s.rt.block_on(async { runner.route(&req) });
            match routed {
                Ok(e) if e.backend() == Backend::Shell => handed += 1,
                Ok(e) => wrong.push(format!("{code}\n  routed to {} instead", e.backend())),
                Err(e) => wrong.push(format!("{code}\n  not routed: {e}")),
            }
            continue;
        }
        let r = s.rt.block_on(native.run(
            req.clone(),
            OutputSink::detached(req.id.clone()),
            Cancel::new(),
        ));
        let got = r.output.text();
        match (kubectl_ok, r.status.is_ok()) {
            (_, false) if refuse && !r.status.describe().is_empty() => both_failed += 1,
            (true, true) if !refuse && normalize(&got) == normalize(&want) => same += 1,
            (false, false) => both_failed += 1,
            (k, t) => wrong.push(format!(
                "{code}\n  kubectl ok={k}:\n{}\n  tsgnav ok={t} ({}):\n{}",
                want,
                r.status.describe(),
                got
            )),
        }
    }
    eprintln!(
        "kube_diff: {} forms: {same} native and identical, {both_failed} failing in both, \
         {handed} handed to kubectl",
        all.len()
    );
    assert!(all.len() >= 100, "the suite covers {} forms", all.len());
    assert!(same >= 60, "most forms stay native: {same}");
    assert!(
        wrong.is_empty(),
        "{} of {} forms answer differently from kubectl:\n\n{}",
        wrong.len(),
        all.len(),
        wrong.join("\n\n")
    );
}
