//! Every mutating command class of the corpus is refused without a confirmation, refused
//! with a confirmation issued for another variable value or another target, and runs with the
//! right one. The kubectl classes run for real (the real kubectl against `tsgnav::sim`) and
//! the simulated cluster's state is read after each attempt: it changes only on the last.
//! `az` and `curl` writes have no simulated backend here, so for them the gate's verdict is
//! asserted without spawning anything.

use tsgnav::query::runner::{gate, Runner, RunnerConfig};
use tsgnav::query::ConfirmError;
use tsgnav::query::{Cancel, ProbeError, Status};
use tsgnav::tsg::SafetyClass;

use super::mitigate_support::{confirm, executors, kubectl, request, SESSION};
use super::sim_support::{self, STUCK_ID};

const CTX: &str = "mc-eastus-1";
const OTHER_CTX: &str = "mc-westus3-1";

/// (class, code with one variable, variable, right value, other value)
const GATE_ONLY: &[(&str, &str, &str, &str, &str)] = &[
    (
        "curl POST",
        "curl -s -X POST \"http://127.0.0.1:9/api/maestro/v1/resource-bundles/${ID}\"",
        "ID",
        "b-1",
        "b-2",
    ),
    (
        "curl DELETE",
        "curl -s -X DELETE \"http://127.0.0.1:9/api/maestro/v1/resource-bundles/${ID}\"",
        "ID",
        "b-1",
        "b-2",
    ),
    (
        "az delete",
        "az aks delete -g \"${RG}\" -n hcp-1 --yes",
        "RG",
        "rg-1",
        "rg-2",
    ),
    (
        "az create",
        "az group create -n \"${RG}\" -l eastus",
        "RG",
        "rg-1",
        "rg-2",
    ),
    (
        "edit",
        "kubectl edit deployment \"${D}\" -n maestro",
        "D",
        "maestro-agent",
        "other",
    ),
];

#[test]
fn az_and_curl_writes_pass_the_gate_only_with_their_own_confirmation() {
    for (class, code, var, right, other) in GATE_ONLY {
        let req = request(code, var, right, CTX, None);
        let (c, _) = tsgnav::query::runner::effective_class(&req);
        assert!(
            c.needs_confirmation() || c == SafetyClass::Interactive,
            "{class}: {c:?}"
        );
        assert!(
            matches!(gate(&req), Some(ProbeError::Refused { .. })),
            "{class}"
        );
        let mut with = req.clone();
        with.confirmation = Some(confirm(&request(code, var, other, CTX, None), CTX));
        assert!(gate(&with).is_some(), "{class}: other value accepted");
        with.confirmation = Some(confirm(
            &request(code, var, right, OTHER_CTX, None),
            OTHER_CTX,
        ));
        assert!(gate(&with).is_some(), "{class}: other target accepted");
        assert!(matches!(
            tsgnav::query::issue(&req, &[], &[], OTHER_CTX, SESSION),
            Err(ConfirmError::WrongTarget { .. })
        ));
        with.confirmation = Some(confirm(&req, CTX));
        match c {
            // `kubectl edit` needs a terminal: the TUI hands it over, a runner never runs it.
            SafetyClass::Interactive => assert!(gate(&with).is_some(), "{class}"),
            _ => assert!(gate(&with).is_none(), "{class}: right confirmation refused"),
        }
    }
}

/// (class, code, variable, right value, other value, state read)
type SimCase<'a> = (&'a str, &'a str, &'a str, String, &'a str, Vec<String>);

fn maestro_cases() -> Vec<SimCase<'static>> {
    let mw = |n: &str| format!("{STUCK_ID}-{n}");
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        ("scale", "kubectl scale deployment \"${D}\" -n maestro --replicas=0", "D", "maestro-agent".into(), "maestro-server",
         v(&["get", "deployment", "maestro-agent", "-n", "maestro", "-o", "jsonpath={.spec.replicas}"])),
        ("patch", "kubectl patch manifestwork \"${MW}\" -n local-cluster --type=merge -p '{\"metadata\":{\"finalizers\":null}}'", "MW", mw("00-namespaces"), "other",
         v(&["get", "manifestwork", &mw("00-namespaces"), "-n", "local-cluster", "-o", "jsonpath={.metadata.finalizers}"])),
        ("delete", "kubectl delete manifestwork \"${MW}\" -n local-cluster --wait=false", "MW", mw("00-namespaces"), "other",
         v(&["get", "manifestwork", "-n", "local-cluster", "-o", "name"])),
        ("annotate", "kubectl annotate deployment \"${D}\" -n maestro tsgnav/confirmed=yes --overwrite", "D", "maestro-agent".into(), "other",
         v(&["get", "deployment", "maestro-agent", "-n", "maestro", "-o", "jsonpath={.metadata.annotations}"])),
        ("rollout restart", "kubectl rollout restart deployment \"${D}\" -n maestro", "D", "maestro-agent".into(), "other",
         v(&["get", "deployment", "maestro-agent", "-n", "maestro", "-o", "jsonpath={.spec.template.metadata.annotations}"])),
        ("run", "kubectl run \"${POD}\" -n maestro --image=busybox --restart=Never", "POD", "tsgnav-probe".into(), "other",
         v(&["get", "pods", "-n", "maestro", "-o", "name"])),
    ]
}

fn swift_cases(node: &str, node2: &str) -> Vec<SimCase<'static>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        ("cordon", "kubectl cordon \"${NODE}\"", "NODE", node.to_string(), "aks-none",
         v(&["get", "node", node, "-o", "jsonpath={.spec.unschedulable}"])),
        ("drain", "kubectl drain \"${NODE}\" --ignore-daemonsets --delete-emptydir-data --force --timeout=20s", "NODE", node2.to_string(), "aks-none",
         v(&["get", "pods", "-A", "-o", "wide"])),
    ]
}

async fn exercise(
    scenario: &str,
    test: &str,
    cases: impl FnOnce(&[String]) -> Vec<SimCase<'static>>,
) {
    let Some(kc_bin) = sim_support::kubectl(test) else {
        return;
    };
    let sim = sim_support::start(scenario, Some(2)).await;
    let kc = sim.kubeconfig.clone();
    let ctx = sim.handle.clusters[0].clone();
    let other_ctx = sim.handle.clusters[1].clone();
    let nodes: Vec<String> = kubectl(
        &kc_bin,
        &kc,
        &["get", "nodes", "-o", "name", "--context", &ctx],
    )
    .lines()
    .filter_map(|l| l.strip_prefix("node/").map(String::from))
    .collect();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let runner = Runner::new(RunnerConfig::default(), executors(&kc), tx);
    for (class, code, var, right, other, read) in cases(&nodes) {
        let read: Vec<&str> = read
            .iter()
            .map(String::as_str)
            .chain(["--context", ctx.as_str()])
            .collect();
        let before = kubectl(&kc_bin, &kc, &read);
        let req = request(code, var, &right, &ctx, Some(&kc));
        assert!(
            tsgnav::query::runner::effective_class(&req)
                .0
                .needs_confirmation(),
            "{class}"
        );
        let mut attempts = vec![("no confirmation", req.clone())];
        let mut r = req.clone();
        r.confirmation = Some(confirm(&request(code, var, other, &ctx, Some(&kc)), &ctx));
        attempts.push(("another value", r.clone()));
        r.confirmation = Some(confirm(
            &request(code, var, &right, &other_ctx, Some(&kc)),
            &other_ctx,
        ));
        attempts.push(("another target", r));
        for (what, attempt) in attempts {
            let res = runner.run(attempt, Cancel::new()).await;
            assert!(
                matches!(res.status, Status::Failed(ProbeError::Refused { .. })),
                "{class} with {what}: {}",
                res.status.describe()
            );
            assert_eq!(
                kubectl(&kc_bin, &kc, &read),
                before,
                "{class}: state changed with {what}"
            );
        }
        let mut ok = req.clone();
        ok.confirmation = Some(confirm(&req, &ctx));
        let res = runner.run(ok, Cancel::new()).await;
        assert!(
            res.status.is_ok(),
            "{class}: {} {}",
            res.status.describe(),
            res.output.text()
        );
        assert_ne!(
            kubectl(&kc_bin, &kc, &read),
            before,
            "{class}: state did not change"
        );
    }
    sim.handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_writes_run_on_the_sim_only_with_their_own_confirmation() {
    exercise(
        "maestro",
        "kubectl_writes_run_on_the_sim_only_with_their_own_confirmation",
        |_| maestro_cases(),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cordon_and_drain_run_on_the_sim_only_with_their_own_confirmation() {
    exercise(
        "swift",
        "cordon_and_drain_run_on_the_sim_only_with_their_own_confirmation",
        |nodes| swift_cases(&nodes[0], &nodes[nodes.len() - 1]),
    )
    .await;
}
