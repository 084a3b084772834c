//! The navigator's events as journal records (a step entered, a value set, an alert, an
//! auto-run, a status, a checklist tick). Pure conversion; must not import `cli` or do IO.

use crate::evidence::{Note, Record};
use crate::nav::{Event, VarSource};

pub(super) fn to_record(ev: Event) -> Record {
    match ev {
        Event::NodeEntered { node } => Record::NodeEntered { node },
        Event::VarSet {
            name,
            value,
            source,
        } => {
            let source = match source {
                VarSource::Flag => "flag".to_string(),
                VarSource::Config => "config".to_string(),
                VarSource::AlertLabel(l) => format!("alert-label:{l}"),
                VarSource::Probe(n) => format!("probe:{n}"),
                VarSource::Default => "default".to_string(),
                VarSource::Typed => "operator".to_string(),
            };
            Record::VariableSet {
                name,
                value,
                source,
            }
        }
        Event::AlertReceived { name, labels } => {
            let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            note(
                "alert",
                None,
                format!("alert {name} {}", labels.join(" "))
                    .trim_end()
                    .to_string(),
            )
        }
        Event::AutoRun {
            alert,
            node,
            probes,
        } => {
            let list: Vec<String> = probes.iter().map(|p| (p + 1).to_string()).collect();
            note(
                "auto-run",
                Some(node),
                format!(
                    "probes {} started by alert {alert} (auto_run = read-only), not by a key",
                    list.join(", ")
                ),
            )
        }
        Event::StatusSet { node, status } => {
            note("status", Some(node), format!("marked {}", status.as_str()))
        }
        Event::ChecklistToggled {
            node,
            text,
            checked,
            ..
        } => note(
            "checklist",
            Some(node),
            format!("[{}] {text}", if checked { "x" } else { " " }),
        ),
    }
}

pub(super) fn note(topic: &str, node: Option<String>, text: String) -> Record {
    Record::Note(Note {
        text,
        topic: Some(topic.to_string()),
        node,
        ..Note::default()
    })
}
