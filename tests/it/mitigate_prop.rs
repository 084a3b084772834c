//! Property: no generated probe classified mutating or unknown reaches an executor (process
//! spawn or HTTP write) without a confirmation issued for its exact code, variable values and
//! target. Commands are assembled from verb, flag and value pieces, including values that
//! look like shell injection. The executor here only counts calls: it stands in for the real
//! backends so a generated `rm -rf` or `az group delete` is never actually run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures::future::BoxFuture;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use tsgnav::query::runner::{effective_class, Runner, RunnerConfig};
use tsgnav::query::{
    Backend, Cancel, Executor, OutputSink, ProbeError, ProbeRequest, ProbeResult, Status,
};
use tsgnav::tsg::SafetyClass;

use super::mitigate_support::{confirm, request};

struct Counting(AtomicUsize);

impl Executor for Counting {
    fn backend(&self) -> Backend {
        Backend::Shell
    }
    fn run(&self, req: ProbeRequest, _: OutputSink, _: Cancel) -> BoxFuture<'_, ProbeResult> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            ProbeResult::failed(
                req.id,
                Backend::Shell,
                String::new(),
                req.code,
                ProbeError::Cancelled,
            )
        })
    }
}

const VERBS: &[&str] = &[
    "kubectl scale deployment",
    "kubectl patch manifestwork",
    "kubectl delete pod",
    "kubectl cordon",
    "kubectl drain",
    "kubectl rollout restart deployment",
    "kubectl annotate node",
    "kubectl label node",
    "kubectl run",
    "kubectl apply -f",
    "kubectl exec",
    "curl -s -X POST",
    "curl -X DELETE",
    "curl -d @body.json",
    "az group delete -n",
    "az vm create -n",
    "az aks nodepool scale -n",
    "helm uninstall",
    "rm -rf",
    "sh -c",
    "kubectl get pods",
    "echo",
    "jq .",
    "xargs kubectl delete",
    "some-unknown-tool",
];
const FLAGS: &[&str] = &[
    "",
    "-n maestro",
    "--replicas=0",
    "--force",
    "--context mc-1",
    "-o json",
    "--dry-run=none",
    "--type=merge -p '{\"metadata\":{\"finalizers\":null}}'",
    "| kubectl delete -f -",
    "&& reboot",
];
const VALUES: &[&str] = &[
    "x; kubectl delete ns default",
    "$(reboot)",
    "`id`",
    "a|b",
    "\"quoted\"",
    "' or 1=1 --",
    "${HOME}",
    "\n rm -rf /",
    "maestro-agent",
    "--all",
];

fn command() -> impl Strategy<Value = (String, String)> {
    (
        prop::sample::select(VERBS),
        prop::sample::select(FLAGS),
        prop::sample::select(VALUES),
        "[a-z0-9;|&$`'\" ()-]{0,12}",
    )
        .prop_map(|(verb, flag, inline, value)| {
            (format!("{verb} \"${{V}}\" {flag} {inline}"), value)
        })
}

#[test]
fn no_mutating_or_unknown_probe_reaches_an_executor_without_its_confirmation() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let reached_with_right = AtomicUsize::new(0);
    let gated = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config {
        cases: 256,
        ..Config::default()
    });
    let result = runner.run(&command(), |(code, value)| {
        let req = request(&code, "V", &value, "mc-1", None);
        let class = effective_class(&req).0;
        if !class.needs_confirmation() {
            return Ok(());
        }
        gated.fetch_add(1, Ordering::SeqCst);
        let exec = Arc::new(Counting(AtomicUsize::new(0)));
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let run = Runner::new(RunnerConfig::default(), vec![exec.clone()], tx);
        let mut attempts = vec![req.clone()];
        let mut other_value = req.clone();
        other_value.confirmation = Some(confirm(
            &request(&code, "V", &format!("{value}x"), "mc-1", None),
            "mc-1",
        ));
        attempts.push(other_value);
        let mut other_target = req.clone();
        other_target.confirmation =
            Some(confirm(&request(&code, "V", &value, "mc-2", None), "mc-2"));
        attempts.push(other_target);
        let mut other_code = req.clone();
        other_code.confirmation = Some(confirm(
            &request(&format!("{code} "), "V", &value, "mc-1", None),
            "mc-1",
        ));
        attempts.push(other_code);
        for a in attempts {
            let r = rt.block_on(run.run(a, Cancel::new()));
            prop_assert!(
                matches!(r.status, Status::Failed(ProbeError::Refused { .. })),
                "{code:?} ({class:?}) was not refused"
            );
        }
        prop_assert_eq!(
            exec.0.load(Ordering::SeqCst),
            0,
            "{:?} reached the executor",
            code
        );
        let mut right = req.clone();
        right.confirmation = Some(confirm(&req, "mc-1"));
        let escapes = tsgnav::query::runner::target_escape(&right, class).is_some();
        let r = rt.block_on(run.run(right, Cancel::new()));
        if escapes {
            // A change that skips the context pinning (`xargs kubectl …`) stays refused.
            prop_assert!(
                matches!(r.status, Status::Failed(ProbeError::Refused { .. })),
                "{code:?} escapes the target but ran"
            );
            prop_assert_eq!(exec.0.load(Ordering::SeqCst), 0);
        } else if class != SafetyClass::Interactive {
            prop_assert_eq!(
                exec.0.load(Ordering::SeqCst),
                1,
                "{:?} confirmed but not run",
                code
            );
            reached_with_right.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let gated = gated.into_inner();
    assert!(
        gated > 50,
        "only {gated} generated probes needed confirmation"
    );
    assert!(reached_with_right.into_inner() > 0);
}

/// The same property where a confirmed interactive probe gets the terminal
/// (`query::attached`): without its own confirmation it is refused before any process starts.
/// The shell named here does not exist, so a run that got past the gate shows as a spawn
/// failure and nothing generated is ever executed.
#[test]
fn no_unconfirmed_probe_reaches_the_terminal_handover() {
    const NO_SHELL: &str = "tsgnav-test-no-such-shell";
    let mut runner = TestRunner::new(Config {
        cases: 256,
        ..Config::default()
    });
    let gated = AtomicUsize::new(0);
    let result = runner.run(&command(), |(code, value)| {
        let req = request(&code, "V", &value, "mc-1", None);
        let class = effective_class(&req).0;
        if !(class.needs_confirmation() || class == SafetyClass::Interactive) {
            return Ok(());
        }
        gated.fetch_add(1, Ordering::SeqCst);
        let mut wrong = req.clone();
        wrong.confirmation = Some(confirm(
            &request(&code, "V", &format!("{value}x"), "mc-1", None),
            "mc-1",
        ));
        for a in [req.clone(), wrong] {
            let r = tsgnav::query::attached::run_attached(&a, NO_SHELL);
            prop_assert!(
                matches!(r.status, Status::Failed(ProbeError::Refused { .. })),
                "{code:?} ({class:?}) was not refused: {:?}",
                r.status
            );
        }
        let mut right = req.clone();
        right.confirmation = Some(confirm(&req, "mc-1"));
        let r = tsgnav::query::attached::run_attached(&right, NO_SHELL);
        prop_assert!(
            matches!(r.status, Status::Failed(ProbeError::Spawn { .. })),
            "{code:?} with its confirmation should reach the spawn: {:?}",
            r.status
        );
        Ok(())
    });
    result.expect("property holds");
    assert!(
        gated.load(Ordering::SeqCst) > 50,
        "enough gated cases were generated"
    );
}

/// Forms that hide a change from a casual reading: a flag that shifts the verb, `--dry-run`
/// turned off by a later flag or a false boolean, builtins that change later commands,
/// arithmetic that evaluates a variable, writers hiding in readers, curl config files and
/// method overrides, and setters.
const HIDDEN: &[&str] = &[
    "kubectl delete pod x --dry-run=server --dry-run=none",
    "kubectl delete pod x --dry-run=0",
    "kubectl delete pod x --dry-run=False",
    "kubectl --cache-dir get delete pod x",
    "kubectl --tls-server-name get delete pod x",
    "kubectl --brand-new-flag get delete pod x",
    "helm --kube-token get uninstall foo",
    "trap 'kubectl delete pod x' EXIT",
    "alias ls='kubectl delete pod x'; ls",
    "hash -p /usr/bin/kubectl ls; ls delete pod x",
    "echo ZGVsZXRlIHBvZCB4 | base64 -d | xargs kubectl",
    "env -S 'kubectl delete pod x'",
    "true; ((kubectl delete pod x) )",
    "v='a[$(touch f)]'; echo $((v))",
    "curl -K cfg http://127.0.0.1:1/x",
    "curl -H 'X-HTTP-Method-Override: DELETE' http://127.0.0.1:1/x",
    "KUBECTL_EXTERNAL_DIFF=./evil kubectl diff -f x.yaml",
    "kubectl cluster-info dump --output-directory=d",
    "awk 'BEGIN{system(\"touch f\")}'",
    "awk '{print > \"f\"}' in",
    "sed '1e touch f' in",
    "sed -n 'w f' in",
    "tar --checkpoint=1 --checkpoint-action=exec=touch\\ f -tf a.tar",
    "find . -fprint0 f",
    "xxd - f",
    "uniq in out",
    "shuf -o f in",
    "echo x | tee f",
    "ip link set lo down",
    "date -s 2020-01-01",
    "hostname evil",
    "ifconfig lo down",
];
/// Decorations that do not make a command any safer.
const PREFIXES: &[&str] = &["", "command ", "sudo ", "$ ", "nice -n 5 ", "timeout 5 "];
const SUFFIXES: &[&str] = &[
    "",
    " | jq .",
    " 2>/dev/null",
    " && echo done",
    "; kubectl get pods",
    " || true",
];

#[test]
fn hidden_mutations_always_need_confirmation() {
    let strategy = (
        prop::sample::select(HIDDEN),
        prop::sample::select(PREFIXES),
        prop::sample::select(SUFFIXES),
        prop::bool::ANY,
    );
    let mut runner = TestRunner::new(Config {
        cases: 512,
        ..Config::default()
    });
    let result = runner.run(&strategy, |(form, prefix, suffix, wrap)| {
        let code = format!("{prefix}{form}{suffix}");
        let code = if wrap {
            format!("bash -c {}", tsgnav::query::shell::sh_quote(&code))
        } else {
            code
        };
        let req = request(&code, "V", "x", "mc-1", None);
        let class = effective_class(&req).0;
        prop_assert!(
            class.needs_confirmation(),
            "{code:?} is classed {class:?}, so it would run unconfirmed"
        );
        Ok(())
    });
    result.expect("every hidden form needs confirmation");
}
