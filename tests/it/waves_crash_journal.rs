//! A wave context whose prior state cannot be journaled is not changed: the wave engine
//! (the one `tsgnav run --waves` and `:waves` share) with the real simulator, the real
//! kubectl and the real jail, and an observer whose journal refuses the capture. The
//! journal is a stand-in here because the tests run as root, where no folder can be made
//! unwritable; what it stands in for is the observer's `journal` answering an error, which
//! is what the CLI's and the navigator's journals answer when a write or a sync fails.

use std::sync::{Arc, Mutex};

use tsgnav::evidence::Record;
use tsgnav::mitigate::waves::Choice;
use tsgnav::tui::runtime::waves_engine::{execute, Ended, Engine, Observer};
use tsgnav::tui::runtime::waves_probes::{Aim, Step};

use crate::sim_support;

/// Refuses every batch that carries a prior state; keeps what it was asked to write.
#[derive(Default)]
struct FullDisk {
    written: Vec<String>,
    refused: usize,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Observer for FullDisk {
    fn journal(
        &mut self,
        steps: &[Step],
        after: Vec<Record>,
    ) -> impl std::future::Future<Output = Result<(), String>> + Send {
        let prior = |r: &Record| matches!(r, Record::PriorState(_));
        let capture = after.iter().any(prior);
        let answer = if capture {
            self.refused += 1;
            Err("No space left on device (os error 28)".to_string())
        } else {
            let runs = steps.iter().map(|(r, _, _)| r.id.to_string());
            self.written.extend(runs);
            Ok(())
        };
        std::future::ready(answer)
    }

    fn line(&mut self, text: &str) {
        self.lines.lock().expect("lines").push(text.to_string());
    }

    fn wave_done(&mut self, _wave: usize, _secs: f64, _eta: Option<f64>) {}

    fn pause_asked(&self) -> bool {
        false
    }

    fn decide(&mut self, _wave: usize) -> impl std::future::Future<Output = Choice> + Send {
        std::future::ready(Choice::Stop)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capture_the_journal_cannot_write_stops_the_change_before_it_runs() {
    let test = "a_capture_the_journal_cannot_write_stops_the_change_before_it_runs";
    if sim_support::kubectl(test).is_none() {
        return;
    }
    let sim = sim_support::start("maestro", Some(3)).await;
    let names = sim.handle.clusters.clone();
    let lib = super::super::waves::fixture();
    let (node, plan) = super::super::waves::plan(&lib, &sim.kubeconfig, "1,rest", 4);
    let settings = tsgnav::query::setup::Settings {
        kubeconfig: Some(sim.kubeconfig.clone()),
        ..Default::default()
    };
    let pre = tsgnav::mitigate::preconditions(node);
    let engine = Engine {
        aim: Aim {
            kubeconfig: Some(sim.kubeconfig.clone()),
            ..Aim::default()
        },
        node: &node.id,
        vars: tsgnav::query::vars::Vars::new(),
        pre: &pre,
        node_shell: None,
        executors: tsgnav::query::setup::executors(&settings),
        session: format!("journal-test-{}", std::process::id()),
        progress: Arc::new(|_, _, _| {}),
    };
    let mut obs = FullDisk::default();
    let ended = execute(&engine, &plan, &mut obs)
        .await
        .expect("the run ends");
    let lines = obs.lines.lock().expect("lines").join("\n");
    assert_eq!(ended, Ended::Stopped(0, 2), "{lines}");
    assert_eq!(obs.refused, 1, "one capture was sent: the canary's");
    assert_eq!(
        sim.handle.writes(),
        0,
        "a change ran without its prior state:\n{lines}"
    );
    assert!(
        lines.contains(&format!("{} · failed: change failed", names[0])),
        "{lines}"
    );
    assert!(
        lines.contains("the prior state could not be journaled (No space left on device"),
        "{lines}"
    );
    // The capture's read ran (it is read-only), the change did not reach the runner.
    assert!(
        obs.written.iter().any(|id| id.contains("/prior-1")),
        "{:?}",
        obs.written
    );
}
