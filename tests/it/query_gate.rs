//! The runner's safety gate and job handling with the real shell backend: mutating, unknown
//! and interactive probes refused (also when mislabelled read-only), gitui-style replacement of
//! a queued request, and background tasks listed and stopped.

use std::time::Duration;

use tsgnav::query::tasks::Tasks;
use tsgnav::query::{Cancel, Event, ProbeError, Status};
use tsgnav::tsg::SafetyClass;

use super::query_shell::{runner, shell_req};

#[tokio::test]
async fn the_runner_refuses_mutating_unknown_and_interactive_probes() {
    let (r, _rx) = runner(2);
    let marker = std::env::temp_dir().join(format!("tsgnav-mutated-{}", std::process::id()));
    for (code, class) in [
        (
            "kubectl scale deployment maestro-agent -n maestro --replicas=0".to_string(),
            SafetyClass::Mutating,
        ),
        (
            format!("./fix.sh; touch {}", marker.display()),
            SafetyClass::Mutating,
        ),
        (
            "kubectl exec -ti pod-0 -- bash".to_string(),
            SafetyClass::Interactive,
        ),
    ] {
        let req = shell_req("g#a/1", &code);
        assert_eq!(req.class, class, "{code}");
        let res = r.run(req, Cancel::new()).await;
        match res.status {
            Status::Failed(ProbeError::Refused { class: c, .. }) => assert_eq!(c, class),
            other => panic!("{code} was not refused: {other:?}"),
        }
        assert!(
            res.status.describe().starts_with("refused: this probe is"),
            "{}",
            res.status.describe()
        );
    }
    assert!(!marker.exists());
}

#[tokio::test]
async fn a_mutation_labelled_read_only_is_still_refused() {
    let (r, _rx) = runner(1);
    let marker = std::env::temp_dir().join(format!("tsgnav-mislabelled-{}", std::process::id()));
    let mut req = shell_req(
        "g#m/1",
        &format!("kubectl delete pod x; touch {}", marker.display()),
    );
    req.class = SafetyClass::ReadOnly;
    let res = r.run(req, Cancel::new()).await;
    let msg = res.status.describe();
    assert!(
        msg.starts_with("refused: this probe is mutating (`kubectl delete pod x`: "),
        "{msg}"
    );
    assert!(!marker.exists());
}

#[tokio::test]
async fn background_tasks_are_listed_and_stopped() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (r, _) = runner(1);
    let tasks = Tasks::new(r, tx);
    let req = shell_req(
        "g#pf/1",
        "kubectl() { echo forwarding; sleep 60; }; kubectl port-forward svc/x 8002:8000",
    );
    assert_eq!(req.class, SafetyClass::LongRunning);
    let id = tasks.start(req).unwrap();
    assert!(tasks.list()[0].result.is_none(), "running");
    loop {
        if let Some(Event::Output { chunk, .. }) = rx.recv().await {
            assert_eq!(chunk, b"forwarding\n");
            break;
        }
    }
    assert!(tasks.stop(id));
    loop {
        if let Some(Event::Finished { result, .. }) = rx.recv().await {
            assert_eq!(result.status, Status::Failed(ProbeError::Cancelled));
            break;
        }
    }
    assert!(tasks.list()[0].result.is_some());
    assert!(!tasks.stop(id + 1));
}

#[tokio::test]
async fn a_new_request_replaces_the_queued_one_and_events_arrive_in_order() {
    let (r, mut rx) = runner(4);
    r.submit(shell_req("g#a/1", "sleep 0.3; echo first"));
    r.submit(shell_req("g#a/1", "echo second"));
    r.submit(shell_req("g#a/1", "echo third"));
    let mut finished = Vec::new();
    let mut started = 0;
    while finished.len() < 2 {
        match tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap()
        {
            Event::Started { .. } => started += 1,
            Event::Output { .. } => {
                assert_eq!(started, finished.len() + 1, "output only after Started")
            }
            Event::Finished { result, .. } => {
                finished.push(result.output.text().trim().to_string())
            }
        }
    }
    assert_eq!(
        finished,
        ["first", "third"],
        "the queued `second` was replaced by `third`"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(rx.try_recv().is_err(), "nothing else ran");
    assert_eq!(r.in_flight(), 0);
}
