//! The pure mitigation parts: which read captures prior state before each known mutation,
//! the open mitigations a journal leaves, and the confirmation's refusals (unacknowledged
//! precondition, no target, wrong target).

use std::collections::BTreeMap;

use tsgnav::evidence::open_mitigations;
use tsgnav::evidence::{PriorState, ProbeRun, Record};
use tsgnav::mitigate::{plan, restore_vars, Mutation};
use tsgnav::query::ConfirmError;

use super::mitigate_support::request;

fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn plans_the_read_before_each_known_mutation() {
    let v = vars(&[("D", "maestro-agent"), ("N", "aks-1")]);
    let p = plan(
        "kubectl scale deployment \"${D}\" -n maestro --replicas=0 --context=mc-1",
        &v,
    );
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].mutation, Mutation::Scale);
    assert_eq!(p[0].resource, "deployment/maestro-agent -n maestro");
    assert_eq!(p[0].new_value.as_deref(), Some("0"));
    assert_eq!(
        p[0].read_command(),
        "kubectl get deployment/maestro-agent -n maestro --context=mc-1 -o 'jsonpath={.spec.replicas}'"
    );
    let p = plan(
        "kubectl patch mw/x -n local-cluster --type=merge -p '{}'",
        &v,
    );
    assert_eq!(
        (p[0].field.as_str(), p[0].read.last().map(String::as_str)),
        ("object", Some("json"))
    );
    let p = plan("kubectl delete pod web-1 -n app --wait=false", &v);
    assert_eq!(p[0].resource, "pod/web-1 -n app");
    let p = plan(
        "kubectl cordon $N && kubectl drain ${N} --force -n ignored",
        &v,
    );
    assert_eq!(p.len(), 2);
    assert!(p
        .iter()
        .all(|c| c.resource == "node/aks-1" && c.field == "spec.unschedulable"));
    // A loop over computed names, a selector or a missing value: nothing is guessed.
    assert!(plan(
        "for m in $(kubectl get mw -o name); do kubectl patch \"$m\" -p '{}'; done",
        &v
    )
    .is_empty());
    assert!(plan("kubectl delete pods -l app=x -n a", &v).is_empty());
    assert!(plan("kubectl scale deploy \"${MISSING}\" --replicas=1", &v).is_empty());
    assert!(plan("kubectl get deploy x -o json", &v).is_empty());
    assert_eq!(
        restore_vars(
            "kubectl scale deployment maestro-agent -n maestro --replicas=\"${ORIG_REPLICAS}\"",
            &v
        ),
        vec![(
            "deployment/maestro-agent -n maestro".to_string(),
            "ORIG_REPLICAS".to_string()
        )]
    );
}

fn run(command: &str, started: &str, exit: i32) -> Record {
    Record::ProbeRun(ProbeRun {
        probe: "g.md#s/1".into(),
        command: command.into(),
        started: started.into(),
        exit: Some(exit),
        ..ProbeRun::default()
    })
}

fn prior(value: &str) -> Record {
    Record::PriorState(PriorState {
        probe: Some("g.md#s/1".into()),
        resource: "deployment/maestro-agent -n maestro".into(),
        field: "spec.replicas".into(),
        value: value.into(),
        command: String::new(),
    })
}

#[test]
fn a_scale_down_stays_open_until_the_captured_count_is_restored() {
    let down = "kubectl scale deployment maestro-agent -n maestro --replicas=0";
    let mut j = vec![prior("2"), run(down, "2026-05-14T03:12:09+00:00", 0)];
    let open = open_mitigations(&j);
    assert_eq!(open.len(), 1);
    assert_eq!(
        open[0].to_string(),
        "deployment/maestro-agent -n maestro scaled to 0 at 03:12, was 2 (restore with --replicas=2)"
    );
    assert_eq!(
        tsgnav::evidence::restore_value(&j, &open[0].resource).as_deref(),
        Some("2")
    );
    // A failed restore and a restore to a different number do not close it.
    let up = "kubectl scale deployment maestro-agent -n maestro --replicas=\"${ORIG_REPLICAS}\"\n# env ORIG_REPLICAS='2'";
    j.extend([prior("0"), run(up, "2026-05-14T03:30:00+00:00", 1)]);
    assert_eq!(open_mitigations(&j).len(), 1);
    j.extend([
        prior("0"),
        run(
            "kubectl scale deployment maestro-agent -n maestro --replicas=1",
            "2026-05-14T03:31:00+00:00",
            0,
        ),
    ]);
    assert_eq!(open_mitigations(&j)[0].now, "1");
    j.extend([prior("1"), run(up, "2026-05-14T03:40:00+00:00", 0)]);
    assert!(
        open_mitigations(&j).is_empty(),
        "{:?}",
        open_mitigations(&j)
    );
    // A scale without a captured prior count is not tracked as a mitigation to undo.
    assert!(open_mitigations(&[run(down, "2026-05-14T03:12:09+00:00", 0)]).is_empty());
}

#[test]
fn a_confirmation_needs_every_precondition_and_the_exact_target() {
    let req = request("kubectl cordon \"${N}\"", "N", "aks-1", "mc-1", None);
    let pre = vec!["window open".to_string(), "context is the MC".to_string()];
    assert!(matches!(
        tsgnav::query::issue(&req, &pre, &[true, false], "mc-1", "s"),
        Err(ConfirmError::Unacknowledged { number: 2, .. })
    ));
    let e = tsgnav::query::issue(&req, &pre, &[true, true], "mc-2", "s").expect_err("wrong");
    assert_eq!(
        e.to_string(),
        "the target typed back, `mc-2`, is not the target of mitigate-test.md#case/1, `mc-1`: \
         nothing was run; type `mc-1` exactly to confirm"
    );
    let mut none = req.clone();
    none.target.kube_context = None;
    assert!(matches!(
        tsgnav::query::issue(&none, &[], &[], "", "s"),
        Err(ConfirmError::NoTarget { .. })
    ));
    let c = tsgnav::query::issue(&req, &pre, &[true, true], " mc-1 ", "s").expect("issued");
    assert_eq!(c.session(), "s");
    let mut ok = req.clone();
    ok.confirmation = Some(c.clone());
    assert!(tsgnav::query::runner::gate(&ok).is_none());
    // The same confirmation does not carry over to another session's seal or a changed value.
    let mut changed = request("kubectl cordon \"${N}\"", "N", "aks-2", "mc-1", None);
    changed.confirmation = Some(c);
    let refusal = tsgnav::query::runner::gate(&changed)
        .expect("refused")
        .to_string();
    assert!(
        refusal.contains("a variable value or the target changed"),
        "{refusal}"
    );
}

#[test]
fn a_valued_flag_before_the_verb_still_plans_the_capture_and_leaves_the_scale_open() {
    let v = vars(&[]);
    let forms = [
        "kubectl --request-timeout 30s scale deployment/maestro-agent -n maestro --replicas=0",
        "kubectl -n maestro --request-timeout=30s scale --replicas=0 deployment maestro-agent",
        "kubectl --namespace=maestro scale deploy/maestro-agent --replicas 0",
        "kubectl -nmaestro --as=sre scale deployment maestro-agent --replicas=0",
    ];
    for form in forms {
        let p = plan(form, &v);
        assert_eq!(p.len(), 1, "{form}");
        assert_eq!(p[0].mutation, Mutation::Scale, "{form}");
        assert_eq!(p[0].new_value.as_deref(), Some("0"), "{form}");
        let want = if form.contains("deploy/") {
            "deploy/maestro-agent -n maestro"
        } else {
            "deployment/maestro-agent -n maestro"
        };
        assert_eq!(p[0].resource, want, "{form}");
    }
    let first = forms[0];
    let j = vec![prior("1"), run(first, "2026-05-14T03:12:09+00:00", 0)];
    let open = open_mitigations(&j);
    assert_eq!(open.len(), 1, "{first}");
    assert_eq!((open[0].was.as_str(), open[0].now.as_str()), ("1", "0"));
    // An unknown flag before the verb may swallow it: nothing is guessed.
    assert!(plan("kubectl --frob 30s scale deployment/x --replicas=0", &v).is_empty());
    // The restore's variable is found in either spelling of the flag.
    assert_eq!(
        restore_vars(
            "kubectl --request-timeout 30s scale deployment/maestro-agent -n maestro --replicas \"${ORIG}\"",
            &v
        ),
        vec![(
            "deployment/maestro-agent -n maestro".to_string(),
            "ORIG".to_string()
        )]
    );
}
