//! Alert-source faults in the evidence: each refresh of the Firing section says which sources
//! could not be read; this keeps one episode per source (down, slow, unauthorized, malformed
//! answer …) and turns it into one journal note when it starts, and one when the source
//! answers again, never one per refresh. Only while an evidence session is open: an episode
//! that began before is written at the first refresh after the session opened, with the time
//! it began. Part of the runtime (the conversion into `crate::evidence` records lives here).

use std::collections::BTreeMap;

use crate::evidence::{Note, Record};
use crate::tui::firing::{FaultKind, FiringUpdate};

#[derive(Debug, Clone)]
struct Episode {
    kind: FaultKind,
    message: String,
    /// RFC 3339, when the first failing refresh came back.
    since: String,
    refreshes: u32,
    recorded: bool,
}

/// The open fault episodes, per source.
#[derive(Debug, Default)]
pub struct Episodes {
    open: BTreeMap<String, Episode>,
}

impl Episodes {
    /// Folds a refresh in; returns the records to append now (`session_open`: whether an
    /// evidence session can take them; when it cannot, they wait for a later refresh).
    pub fn fold(&mut self, u: &FiringUpdate, now: &str, session_open: bool) -> Vec<Record> {
        let mut out = Vec::new();
        let failing: BTreeMap<&str, (FaultKind, &str)> = u
            .errors
            .iter()
            .map(|f| (f.source.as_str(), (f.kind, f.message.as_str())))
            .collect();
        // Sources that answered: their episode ends.
        let ended: Vec<String> = self
            .open
            .keys()
            .filter(|s| !failing.contains_key(s.as_str()))
            .cloned()
            .collect();
        for source in ended {
            let Some(e) = self.open.remove(&source) else {
                continue;
            };
            if e.recorded && session_open {
                out.push(note(format!(
                    "alert source `{source}` answers again after {} failed refresh(es); it was {} since {}",
                    e.refreshes,
                    e.kind.as_str(),
                    e.since
                )));
            }
        }
        for (source, (k, message)) in failing {
            let e = self
                .open
                .entry(source.to_owned())
                .and_modify(|e| e.refreshes += 1)
                .or_insert_with(|| Episode {
                    kind: k,
                    message: message.to_owned(),
                    since: now.to_owned(),
                    refreshes: 1,
                    recorded: false,
                });
            if e.kind != k {
                // Another kind of fault: a new episode.
                *e = Episode {
                    kind: k,
                    message: message.to_owned(),
                    since: now.to_owned(),
                    refreshes: 1,
                    recorded: false,
                };
            }
            if !e.recorded && session_open {
                e.recorded = true;
                out.push(note(format!(
                    "alert source `{source}` is {} since {}: {}",
                    e.kind.as_str(),
                    e.since,
                    e.message
                )));
            }
        }
        out
    }
}

fn note(text: String) -> Record {
    Record::Note(Note {
        text,
        topic: Some("alert-source-fault".into()),
        ..Note::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tui::firing::SourceFault;

    fn refresh(errors: &[(&str, (FaultKind, &str))]) -> FiringUpdate {
        FiringUpdate {
            errors: errors
                .iter()
                .map(|(s, (k, m))| SourceFault::new(*s, *k, *m))
                .collect(),
            ..FiringUpdate::default()
        }
    }

    fn texts(r: Vec<Record>) -> Vec<String> {
        r.into_iter()
            .map(|r| match r {
                Record::Note(n) => n.text,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    const DOWN: (FaultKind, &str) = (
        FaultKind::Down,
        "cannot read http://127.0.0.1:1: connection refused; is it running?",
    );
    const SLOW: (FaultKind, &str) = (
        FaultKind::Slow,
        "cannot read http://127.0.0.1:2: timed out after 5s; it is asked again",
    );

    #[test]
    fn one_record_per_episode_not_per_refresh_and_one_when_it_answers_again() {
        let mut e = Episodes::default();
        let first = texts(e.fold(&refresh(&[("east", DOWN)]), "T1", true));
        assert_eq!(first.len(), 1);
        assert!(
            first[0].contains("`east` is down (cannot connect) since T1"),
            "{first:?}"
        );
        for t in ["T2", "T3", "T4"] {
            assert!(e.fold(&refresh(&[("east", DOWN)]), t, true).is_empty());
        }
        // Another kind of fault is another episode.
        let slow = texts(e.fold(&refresh(&[("east", SLOW)]), "T5", true));
        assert!(
            slow[0].contains("slow (no answer in time) since T5"),
            "{slow:?}"
        );
        let back = texts(e.fold(&refresh(&[]), "T6", true));
        assert_eq!(back.len(), 1);
        assert!(
            back[0].contains("answers again after 1 failed refresh"),
            "{back:?}"
        );
        assert!(e.fold(&refresh(&[]), "T7", true).is_empty());
    }

    #[test]
    fn an_episode_before_the_session_is_written_once_it_opens_with_its_start() {
        let mut e = Episodes::default();
        assert!(e.fold(&refresh(&[("west", SLOW)]), "T1", false).is_empty());
        assert!(e.fold(&refresh(&[("west", SLOW)]), "T2", false).is_empty());
        let later = texts(e.fold(&refresh(&[("west", SLOW)]), "T3", true));
        assert_eq!(later.len(), 1);
        assert!(later[0].contains("since T1"), "{later:?}");
        assert!(e.fold(&refresh(&[("west", SLOW)]), "T4", true).is_empty());
    }

    #[test]
    fn the_kind_is_the_one_the_refresher_decided_not_a_word_in_its_line() {
        // A source whose URL says "timeout" and "json" but refuses connections is down; one
        // whose line says "connection refused" in a proxy's body but timed out is slow.
        let mut e = Episodes::default();
        let down = (
            FaultKind::Down,
            "cannot read http://timeout-json.example:9093: connection refused; is it running?",
        );
        let first = texts(e.fold(&refresh(&[("east", down)]), "T1", true));
        assert!(first[0].contains("is down (cannot connect)"), "{first:?}");
        let slow = (
            FaultKind::Slow,
            "cannot read http://connect-proxy.example: HTTP 401 said nothing; timed out",
        );
        let second = texts(e.fold(&refresh(&[("east", slow)]), "T2", true));
        assert!(
            second[0].contains("is slow (no answer in time)"),
            "{second:?}"
        );
        // The same kind with another message is the same episode: nothing new.
        let again = (FaultKind::Slow, "cannot read http://x: something else");
        assert!(e.fold(&refresh(&[("east", again)]), "T3", true).is_empty());
    }

    #[test]
    fn kinds_from_the_clients_typed_errors() {
        use crate::query::ProbeError as E;
        use crate::tui::runtime::firing::fault_kind;
        let url = || "http://timeout.json.example/api/v2/alerts".to_string();
        let http = |status| E::Http {
            status,
            reason: "timed out".into(),
            url: url(),
            body: "connection refused".into(),
        };
        assert_eq!(fault_kind(&http(401)), FaultKind::Unauthorized);
        assert_eq!(fault_kind(&http(403)), FaultKind::Unauthorized);
        assert_eq!(fault_kind(&http(500)), FaultKind::Failing);
        let refused = E::ConnectionRefused { addr: url() };
        assert_eq!(fault_kind(&refused), FaultKind::Down);
        let after = std::time::Duration::from_secs(5);
        assert_eq!(fault_kind(&E::Timeout { after }), FaultKind::Slow);
        let bad = E::BadResponse {
            url: url(),
            detail: "timed out".into(),
        };
        assert_eq!(fault_kind(&bad), FaultKind::Malformed);
    }
}
