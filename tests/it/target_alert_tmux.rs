//! The firing alert's cluster is where its probes run (tmux, a REAL Alertmanager, the
//! simulated clusters): the kubeconfig's current context is mc-eastus-1, Alertmanager reports
//! the alert with `region=westus3`, and `[alerts]` maps that label to mc-westus3-1. Enter on
//! the alert: the status line names mc-westus3-1 (read-only, then in write mode's prompt),
//! `r` runs the probe there and its header says so, and the journal records that target.

use serde_json::json;

use super::servers;
use super::tui_common::{item_index, Tmux};
use tsgnav::tui::app::Item;

fn guides() -> std::path::PathBuf {
    super::common::root().join("tests/fixtures/alerts")
}

/// Tabs from the step's first item to its second probe (`kubectl get pods …`).
fn tabs_to_second_probe() -> usize {
    let (lib, errors) = tsgnav::load::load_library(&[guides()]);
    assert!(errors.is_empty(), "{errors:?}");
    let mut a = tsgnav::tui::App::new(
        lib,
        tsgnav::tui::keymap::Keymap::bundled(),
        tsgnav::tui::theme::Theme::bundled(true),
    );
    tsgnav::tui::navigate::nav_cmd(
        &mut a,
        tsgnav::nav::Cmd::Goto("ingress-latency.md#step-1-measure-the-latency-per-gateway".into()),
    );
    item_index(&a, |i| matches!(i, Item::Probe(1)))
}

#[test]
fn a_firing_alert_runs_its_probes_on_the_context_its_label_maps_to() {
    let test = "target_alert_tmux::firing_context";
    let Some(am) = servers::alertmanager(test) else {
        return;
    };
    let Some(t) = Tmux::start_sized("aim", 160, 45) else {
        return;
    };
    let (rt, sim) = crate::sim_support::on_own_runtime("swift", Some(2));
    servers::post_alerts(
        &am.url,
        &[(
            json!({"alertname": "IngressGatewayLatencyHigh", "severity": "warning",
                   "region": "westus3", "namespace": "kube-system"}),
            3,
        )],
    );
    std::fs::write(
        t.dir.join("config.toml"),
        format!(
            "[query]\nkubeconfig = \"{}\"\n\n[alerts]\ncontext_label = \"region\"\n\n\
             [alerts.contexts]\nwestus3 = \"mc-westus3-1\"\n\n\
             [[alertmanager]]\nname = \"westus3\"\nurl = \"{}\"\n",
            sim.kubeconfig.display(),
            am.url
        ),
    )
    .expect("config");
    t.send_line(&format!(
        "{} {}",
        env!("CARGO_BIN_EXE_tsgnav"),
        guides().display()
    ));
    t.wait_for(
        "the firing alert, on the kubeconfig's current context",
        |s| {
            s.contains("1 FIRING")
                && s.contains(" READ-ONLY mc-eastus-1 ")
                && s.contains("→ Step 1: Measure the latency per gateway")
        },
    );
    t.keys(&["Enter"]);
    t.wait_for("the routed step, on the alert's context", |s| {
        s.contains("⚑ alert IngressGatewayLatencyHigh routes here")
            && s.contains(" READ-ONLY mc-westus3-1 ")
    });
    for _ in 0..tabs_to_second_probe() {
        t.keys(&["Tab"]);
    }
    t.keys(&["r"]);
    let s = t.wait_for("the probe's header names the alert's context", |s| {
        s.contains("[kube · context mc-westus3-1, namespace kube-system · local]")
    });
    assert!(!s.contains("[kube · local]"), "{s}");
    assert_eq!(
        t.write_mode_on(),
        "mc-westus3-1",
        "write mode asks for it too"
    );
    t.quit_unexported();
    t.restored();
    let journal = std::fs::read_to_string(t.only_session().join("journal.jsonl")).expect("journal");
    let run = journal
        .lines()
        .find(|l| l.contains("kubectl get pods -n kube-system -l app=ingress-gateway"))
        .unwrap_or_else(|| panic!("the run is journaled:\n{journal}"));
    assert!(
        run.contains(r#""target":"context mc-westus3-1, namespace kube-system · local""#),
        "{run}"
    );
    drop(rt);
}
