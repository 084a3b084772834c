//! Group commit in a wave: the wave engine (the one `tsgnav run --waves` and `:waves` share)
//! journals together what is ready together, so contexts that finish or capture at the same
//! moment share one write and one sync, and nothing is reported before its write: a change
//! runs only after the write that holds its capture, every context's records stay together
//! and in their order, and a write that fails refuses every change whose capture it held.
//! Instant stand-in executors (no server, no jail) make every context of a wave ready at
//! once; the observer records each write it is asked for.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures::future::BoxFuture;
use tsgnav::evidence::Record;
use tsgnav::mitigate::waves::Choice;
use tsgnav::query::{Backend, Cancel, Executor, OutputSink, ProbeRequest, ProbeResult, Status};
use tsgnav::tui::runtime::waves_engine::{execute, Ended, Engine, Observer};
use tsgnav::tui::runtime::waves_probes::{Aim, Step};

const COUNT: usize = 8;

/// Answers every probe at once: the prior read `3`, the change and the gate exit 0. Counts
/// the changes that reached it.
#[derive(Default)]
struct Instant {
    changes: AtomicUsize,
}

impl Executor for Instant {
    fn backend(&self) -> Backend {
        Backend::Shell
    }

    fn run(&self, req: ProbeRequest, mut out: OutputSink, _: Cancel) -> BoxFuture<'_, ProbeResult> {
        if req.code.contains("kubectl scale") {
            self.changes.fetch_add(1, Ordering::SeqCst);
        }
        let mut r = ProbeResult::new(
            req.id.clone(),
            Backend::Shell,
            String::new(),
            req.code.clone(),
            chrono::Utc::now(),
        );
        out.write_str("3");
        r.output = out.finish();
        r.status = Status::Ok { exit: 0 };
        Box::pin(std::future::ready(r))
    }
}

/// One write as the observer was asked for it: each batch's notes (`wave 1/1 · mc-3 · …`).
type Write = Vec<Vec<String>>;

#[derive(Default)]
struct Journal {
    writes: Vec<Write>,
    /// Refuse every write that carries a prior state.
    full_disk: bool,
}

fn notes(after: &[Record]) -> Vec<String> {
    after
        .iter()
        .filter_map(|r| match r {
            Record::Note(n) => Some(n.text.clone()),
            _ => None,
        })
        .collect()
}

impl Journal {
    fn write(&mut self, batches: &[(Vec<Step>, Vec<Record>)]) -> Result<(), String> {
        let prior =
            |b: &(Vec<Step>, Vec<Record>)| (b.1.iter()).any(|r| matches!(r, Record::PriorState(_)));
        if self.full_disk && batches.iter().any(prior) {
            return Err("No space left on device (os error 28)".into());
        }
        self.writes
            .push(batches.iter().map(|b| notes(&b.1)).collect());
        Ok(())
    }
}

impl Observer for Journal {
    fn journal(
        &mut self,
        steps: &[Step],
        after: Vec<Record>,
    ) -> impl std::future::Future<Output = Result<(), String>> + Send {
        std::future::ready(self.write(&[(steps.to_vec(), after)]))
    }

    fn journal_all(
        &mut self,
        batches: Vec<(Vec<Step>, Vec<Record>)>,
    ) -> impl std::future::Future<Output = Result<(), String>> + Send {
        std::future::ready(self.write(&batches))
    }

    fn line(&mut self, _text: &str) {}

    fn wave_done(&mut self, _wave: usize, _secs: f64, _eta: Option<f64>) {}

    fn pause_asked(&self) -> bool {
        false
    }

    fn decide(&mut self, _wave: usize) -> impl std::future::Future<Output = Choice> + Send {
        std::future::ready(Choice::Stop)
    }
}

/// A kubeconfig naming `COUNT` contexts (no server: the executors never connect).
fn kubeconfig(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::from("apiVersion: v1\nkind: Config\nclusters:\n");
    for i in 0..COUNT {
        text.push_str(&format!(
            "- name: mc-{i}\n  cluster:\n    server: http://127.0.0.1:9/mc-{i}\n"
        ));
    }
    text.push_str("users:\n- name: u\n  user: {}\ncontexts:\n");
    for i in 0..COUNT {
        text.push_str(&format!(
            "- name: mc-{i}\n  context:\n    cluster: mc-{i}\n    user: u\n"
        ));
    }
    text.push_str("current-context: mc-0\n");
    let path = dir.join("kubeconfig");
    std::fs::write(&path, text).expect("kubeconfig");
    path
}

/// Runs the step over `COUNT` contexts in one wave, all at once.
async fn run(full_disk: bool) -> (Result<Ended, String>, Journal, usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = kubeconfig(dir.path());
    let lib = super::waves::fixture();
    let (node, plan) = super::waves::plan(&lib, &kc, "rest", COUNT);
    let exec = Arc::new(Instant::default());
    let pre = tsgnav::mitigate::preconditions(node);
    let engine = Engine {
        aim: Aim {
            kubeconfig: Some(kc),
            ..Aim::default()
        },
        node: &node.id,
        vars: tsgnav::query::vars::Vars::new(),
        pre: &pre,
        node_shell: None,
        executors: vec![exec.clone()],
        session: format!("commit-test-{}", std::process::id()),
        progress: Arc::new(|_, _, _| {}),
    };
    let mut obs = Journal {
        full_disk,
        ..Journal::default()
    };
    let ended = execute(&engine, &plan, &mut obs).await;
    let changes = exec.changes.load(Ordering::SeqCst);
    (ended, obs, changes)
}

/// The context a wave note names (`wave 1/1 · mc-3 · captured · …`).
fn context(note: &str) -> Option<&str> {
    note.strip_prefix("wave 1/1 · ")?.split(" · ").next()
}

#[tokio::test]
async fn contexts_ready_together_share_one_write_and_nothing_is_reported_before_it() {
    let (ended, obs, changes) = run(false).await;
    assert_eq!(ended, Ok(Ended::Validated));
    assert_eq!(changes, COUNT, "every context changed once");
    let batches: Vec<&Vec<String>> = obs.writes.iter().flatten().collect();
    // The run's opening, the wave's start, a capture and an outcome per context, the end.
    assert_eq!(batches.len(), 3 + 2 * COUNT, "{:#?}", obs.writes);
    assert!(
        obs.writes.len() < batches.len() - 2,
        "contexts ready together were written apart: {:#?}",
        obs.writes
    );
    let captures = |w: &Write| {
        w.iter()
            .flatten()
            .filter(|n| n.contains(" · captured · "))
            .count()
    };
    assert_eq!(
        obs.writes.iter().map(captures).max(),
        Some(COUNT),
        "every capture of the wave was ready at once: {:#?}",
        obs.writes
    );
    // Each context: its capture, then (in a later write) its outcome; nothing twice.
    let order: Vec<(usize, &String)> = (obs.writes.iter().enumerate())
        .flat_map(|(i, w)| w.iter().flatten().map(move |n| (i, n)))
        .collect();
    for i in 0..COUNT {
        let ctx = format!("mc-{i}");
        let mine: Vec<&(usize, &String)> = (order.iter())
            .filter(|(_, n)| context(n) == Some(ctx.as_str()))
            .collect();
        assert_eq!(mine.len(), 2, "{ctx}: {mine:?}");
        assert!(
            mine[0].1.contains(" · captured · ") && mine[0].1.ends_with("spec.replicas=3"),
            "{mine:?}"
        );
        assert!(mine[1].1.ends_with(" · ok"), "{mine:?}");
        assert!(
            mine[0].0 < mine[1].0,
            "{ctx}: the outcome shares the capture's write: {mine:?}"
        );
    }
}

#[tokio::test]
async fn a_group_write_that_fails_refuses_every_change_whose_capture_it_held() {
    let (ended, obs, changes) = run(true).await;
    assert_eq!(changes, 0, "a change ran without its prior state journaled");
    assert_eq!(ended, Ok(Ended::Stopped(0, 0)), "{:#?}", obs.writes);
    let failed = (obs.writes.iter().flatten().flatten())
        .filter(|n| n.contains(" · failed · change failed") && n.contains("could not be journaled"))
        .count();
    assert_eq!(failed, COUNT, "{:#?}", obs.writes);
}
