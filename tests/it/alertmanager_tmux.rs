//! End to end against a REAL Alertmanager (Debian's `prometheus-alertmanager`) in a real
//! terminal (tmux): the first screen lists what is firing above the guides; Enter on an alert
//! lands on its routed step with the labels filled in and the alert in the evidence journal;
//! `--auto-run` lands with the step's read-only probes already answered and the mutating one
//! not started. Also measures the first screen with 5,000 firing alerts against the first
//! frame without Alertmanager, in the same run.

use std::time::Instant;

use serde_json::json;

use super::servers;
use super::tui_common::Tmux;

fn bin() -> String {
    env!("CARGO_BIN_EXE_tsgnav").to_string()
}

fn guides() -> String {
    super::common::root()
        .join("tests/fixtures/alerts")
        .display()
        .to_string()
}

fn post_three(am: &str) {
    servers::post_alerts(
        am,
        &[
            (
                json!({"alertname": "IngressGatewayLatencyHigh", "severity": "warning",
                       "cluster": "mc-eastus-1", "namespace": "gw-east"}),
                7,
            ),
            (
                json!({"alertname": "DiskPressureOnEtcd", "severity": "critical", "cluster": "mc-eastus-1"}),
                2,
            ),
            (
                json!({"alertname": "SubscriptionCoreQuotaLow", "severity": "info", "region": "eastus2"}),
                50,
            ),
        ],
    );
    servers::post_silence(am, "alertname", "SubscriptionCoreQuotaLow");
}

fn configure(t: &Tmux, am: &str, extra: &str) {
    std::fs::write(
        t.dir.join("config.toml"),
        format!("[[alertmanager]]\nname = \"eastus\"\nurl = \"{am}\"\n{extra}"),
    )
    .unwrap();
}

#[test]
fn the_first_screen_lists_what_is_firing_and_enter_lands_with_the_labels() {
    let Some(am) = servers::alertmanager("alertmanager_tmux::first_screen") else {
        return;
    };
    let Some(t) = Tmux::start("firing") else {
        return;
    };
    post_three(&am.url);
    configure(&t, &am.url, "");
    t.send_line(&format!("{} {}", bin(), guides()));
    t.wait_for("the firing alerts above the guides", |s| {
        s.contains("Firing · 2 alerts (+1 silenced or inhibited)")
            && s.contains("⚑ DiskPressureOnEtcd ×1")
            && s.contains("⚑ IngressGatewayLatencyHigh ×1 → Step 1: Measure the latency")
            && s.contains("eastus2 · info")
            && s.contains("· silenced")
            && s.contains("▤ Ingress gateway")
            && s.contains("2 FIRING")
    });
    // The critical, unrouted alert is selected first; j moves to the routed one.
    t.keys(&["j", "Enter"]);
    t.wait_for("the routed step", |s| {
        s.contains("Step 1: Measure the latency per gateway · ")
            && s.contains("⚑ alert IngressGatewayLatencyHigh routes here")
    });
    t.keys(&["v"]);
    t.wait_for("the labels as variables", |s| {
        s.contains("NAMESPACE = gw-east  (alert label `namespace`)")
            && s.contains("CLUSTER = mc-eastus-1  (alert label `cluster`)")
    });
    t.quit_unexported();
    t.restored();
    let journal = std::fs::read_to_string(t.only_session().join("journal.jsonl")).expect("journal");
    assert!(
        journal.contains("alert IngressGatewayLatencyHigh alertname=IngressGatewayLatencyHigh cluster=mc-eastus-1 namespace=gw-east"),
        "{journal}"
    );
}

#[test]
fn auto_run_lands_with_the_read_only_probes_answered_and_no_mutation() {
    let Some(am) = servers::alertmanager("alertmanager_tmux::auto_run") else {
        return;
    };
    let Some(t) = Tmux::start("autorun") else {
        return;
    };
    post_three(&am.url);
    configure(&t, &am.url, "auto_run = \"read-only\"\n");
    t.send_line(&format!("{} {}", bin(), guides()));
    // Routed: the guides are in (an Enter before that says they are still loading).
    t.wait_for("the firing alerts, routed", |s| {
        s.contains("2 FIRING") && s.contains("⚑ IngressGatewayLatencyHigh ×1 → Step 1")
    });
    t.keys(&["j", "Enter"]);
    // The echo probe ran with the alert's labels, without a key.
    let s = t.wait_for("the read-only probe's answer", |s| {
        s.contains("gateways of gw-east on mc-eastus-1")
    });
    // The mutating probe shows its code and nothing under it: it did not start.
    let after = s
        .split("MUTATING")
        .nth(1)
        .expect("the mutating probe is on screen");
    assert!(
        after.contains("kubectl rollout restart") && !after.contains('⎿'),
        "{s}"
    );
    t.quit_unexported();
    t.restored();
    let journal = std::fs::read_to_string(t.only_session().join("journal.jsonl")).expect("journal");
    assert!(
        journal.contains("gateways of gw-east on mc-eastus-1"),
        "{journal}"
    );
    assert!(
        journal.contains(
            "probes 1, 2 started by alert IngressGatewayLatencyHigh (auto_run = read-only)"
        ),
        "{journal}"
    );
    assert!(
        !journal.contains("rollout restart deployment/ingress-gateway -n gw-east"),
        "the mutating probe ran or was recorded as run:\n{journal}"
    );
}

#[test]
fn measure_the_first_screen_with_5000_firing_alerts() {
    let Some(am) = servers::alertmanager("alertmanager_tmux::measure") else {
        return;
    };
    let Some(t) = Tmux::start("measure") else {
        return;
    };
    let many: Vec<(serde_json::Value, i64)> = (0..5000)
        .map(|i| {
            let severity = ["critical", "warning", "info"][i % 3];
            (
                json!({"alertname": format!("Synthetic{}", i % 50),
                       "severity": severity,
                       "cluster": format!("mc-{i}")}),
                (i % 600) as i64,
            )
        })
        .collect();
    servers::post_alerts(&am.url, &many);
    // Without Alertmanager: the first frame of the library.
    let start = Instant::now();
    t.send_line(&format!("{} --no-evidence {}", bin(), guides()));
    t.wait_for("the library", |s| s.contains("tsgnav · 2 guides"));
    let plain = start.elapsed();
    t.keys(&["q"]);
    t.wait_for("the prompt", |s| {
        s.lines().filter(|l| l.starts_with("READY$")).count() >= 2
    });
    t.send_line("clear");
    t.wait_for("a clear screen", |s| !s.contains("tsgnav"));
    configure(&t, &am.url, "");
    let start = Instant::now();
    t.send_line(&format!("{} --no-evidence {}", bin(), guides()));
    t.wait_for("the library with the Firing section", |s| {
        s.contains("tsgnav · 2 guides") && s.contains("Firing")
    });
    let first = start.elapsed();
    t.wait_for("5,000 firing alerts listed", |s| {
        s.contains("Firing · 5000 alerts") && s.contains("5000 FIRING")
    });
    let firing = start.elapsed();
    eprintln!(
        "MEASURED: first frame without Alertmanager {plain:?}; with it, first frame {first:?} and first screen listing 5,000 firing alerts {firing:?} (tmux polled every 50 ms)"
    );
    t.keys(&["q"]);
    t.restored();
}

#[test]
fn a_hanging_alertmanager_never_blocks_a_key() {
    // A real Alertmanager cannot be made to hang on demand: this one is a raw TCP server that
    // accepts and never answers (servers::faulty).
    let rt = tokio::runtime::Runtime::new().unwrap();
    let hang = rt.block_on(servers::faulty(servers::Fault::Hang));
    let Some(t) = Tmux::start("hang") else {
        return;
    };
    configure(&t, &hang, "");
    let start = Instant::now();
    t.send_line(&format!("{} --no-evidence {}", bin(), guides()));
    // The guides load in the background after the first frame: Enter needs one listed.
    t.wait_for("the library with its guides, still asking", |s| {
        s.contains("asking the Alertmanager")
            && s.contains("FIRING …")
            && s.contains("▤ Ingress gateway")
    });
    // Keys work while the request hangs: the guide opens while the status line still says
    // the first answer is awaited.
    t.keys(&["Enter"]);
    t.wait_for("the guide, opened while still asking", |s| {
        s.contains("Trail: Ingress gateway") && s.contains("FIRING …")
    });
    t.keys(&["L"]);
    let s = t.wait_for("the timeout line", |s| {
        s.contains("✗ eastus: cannot read") && s.contains("timed out after 5")
    });
    assert!(s.contains("ALERTMANAGER UNREACHABLE"), "{s}");
    eprintln!(
        "MEASURED: a hanging Alertmanager reported after {:?}",
        start.elapsed()
    );
    t.keys(&["q"]);
    t.restored();
}
