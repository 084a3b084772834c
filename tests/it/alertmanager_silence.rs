//! `S` against a REAL Alertmanager (Debian's `prometheus-alertmanager`) in a real terminal
//! (tmux): refused in read-only mode with how to turn write mode on; with write mode, the
//! mitigation confirmation screen opens, a wrong name silences nothing, the right one creates
//! the silence (matchers, comment with the evidence session, its id recorded); `q` offers to
//! expire it and `x` expires it in Alertmanager, recorded too.

use serde_json::{json, Value};

use super::servers;
use super::tui_common::Tmux;

fn silences(am: &str) -> Vec<Value> {
    let (_, list) = servers::http_json("GET", am, "/api/v2/silences", "");
    serde_json::from_str::<Value>(&list)
        .expect("silences JSON")
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn ours(am: &str) -> Option<Value> {
    silences(am).into_iter().find(|s| {
        s["comment"]
            .as_str()
            .unwrap_or("")
            .contains("IngressGatewayLatencyHigh")
    })
}

#[test]
fn s_needs_write_mode_confirms_on_the_mitigation_screen_and_q_offers_to_expire() {
    let Some(am) = servers::alertmanager("alertmanager_silence::s") else {
        return;
    };
    let Some(t) = Tmux::start("amsilence") else {
        return;
    };
    servers::post_alerts(
        &am.url,
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
        ],
    );
    std::fs::write(
        t.dir.join("config.toml"),
        format!(
            "[[alertmanager]]\nname = \"eastus\"\nurl = \"{}\"\n\n[query]\ncontext = \"mc-eastus-1-admin\"\n",
            am.url
        ),
    )
    .expect("config");
    let guides = super::common::root().join("tests/fixtures/alerts");
    t.send_line(&format!(
        "{} {}",
        env!("CARGO_BIN_EXE_tsgnav"),
        guides.display()
    ));
    t.wait_for("the firing alerts", |s| s.contains("2 FIRING"));
    // Land on the routed step (the evidence session opens), then back to the library.
    t.keys(&["j", "Enter"]);
    t.wait_for("the routed step", |s| {
        s.contains("⚑ alert IngressGatewayLatencyHigh routes here")
    });
    t.keys(&["L"]);
    t.wait_for("the library", |s| s.contains("▤ Ingress"));
    t.keys(&["S"]);
    t.wait_for("the read-only refusal", |s| {
        s.contains("this session is read-only") && s.contains("Press W")
    });
    assert!(
        ours(&am.url).is_none(),
        "nothing silenced in read-only mode"
    );
    t.write_mode_on();
    t.keys(&["S"]);
    t.wait_for("the confirmation screen", |s| {
        s.contains("Mitigation: confirm before it runs")
            && s.contains("Silence `IngressGatewayLatencyHigh` on eastus")
            && s.contains("namespace=\"gw-east\"")
            && s.contains("Type the target `eastus` to run")
    });
    t.keys(&["-l", "westus"]);
    t.keys(&["Enter"]);
    t.wait_for("the refusal", |s| {
        s.contains("`westus` is not `eastus`: nothing was silenced")
    });
    assert!(ours(&am.url).is_none(), "a wrong name silences nothing");
    t.keys(&["-l", "eastus"]);
    t.keys(&["Enter"]);
    t.wait_for("the silence created", |s| {
        s.contains("Silenced `IngressGatewayLatencyHigh`") && s.contains("1 FIRING")
    });
    let silence = ours(&am.url).expect("the silence exists in Alertmanager");
    assert_eq!(silence["status"]["state"], "active");
    let matchers = silence["matchers"].to_string();
    assert!(
        matchers.contains("\"gw-east\"") && matchers.contains("\"mc-eastus-1\""),
        "{matchers}"
    );
    let id = silence["id"].as_str().expect("id").to_string();

    // q offers to expire it; x expires it in Alertmanager.
    t.keys(&["q"]);
    t.wait_for("the expiry offer", |s| {
        s.contains("Press x to expire the 1 silence(s) this session created")
    });
    t.keys(&["x"]);
    t.wait_for("the expiry", |s| {
        s.contains(&format!("Expired silence {id}"))
    });
    let silence = ours(&am.url).expect("still listed");
    assert_eq!(silence["status"]["state"], "expired", "{silence}");
    t.quit_unexported();
    t.restored();

    let session = t.only_session();
    let session_id = session
        .file_name()
        .expect("id")
        .to_string_lossy()
        .to_string();
    assert!(
        silence["comment"]
            .as_str()
            .unwrap_or("")
            .contains(&session_id),
        "{silence} / {session_id}"
    );
    let journal = std::fs::read_to_string(session.join("journal.jsonl")).expect("journal");
    assert!(
        journal.contains(&format!("silence {id} created on Alertmanager eastus")),
        "{journal}"
    );
    assert!(
        journal.contains(&format!("silence {id} expired on Alertmanager eastus")),
        "{journal}"
    );
    crate::tui_common::assert_verifies(&session);
}
