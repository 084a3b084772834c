//! Escalation checklists: a team's evidence-to-attach list becomes checklist items, linked to
//! the session's records automatically (by kind of evidence: the same kubectl verb on the same
//! kind however it is written, logs of the named workload, a KQL probe of the named step or
//! table, a metric the probe queried) or
//! explicitly (checklist_tick records). Pure. Must not import IO, `cli`, `tui` or `query`.

use crate::tsg::Escalation;

use super::chain::Entry;
use super::error::EvidenceError;
use super::record::Record;

/// Why a record is linked to an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkHow {
    /// The item names this term (a command or metric) and the probe's command contains it.
    Auto(String),
    /// A checklist_tick record listed the record as evidence.
    Explicit,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemLink {
    pub seq: u64,
    pub how: LinkHow,
}

/// One evidence item of the chosen team, with what the session has for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckItem {
    pub text: String,
    pub links: Vec<ItemLink>,
    /// The last explicit tick (`Some(false)`: unticked by a person, even when linked).
    pub ticked: Option<bool>,
}

impl CheckItem {
    /// Ticked, or linked to evidence and not unticked.
    pub fn done(&self) -> bool {
        self.ticked.unwrap_or(!self.links.is_empty())
    }
}

/// The escalation target named `name` (case-insensitive; a unique part of the name is enough).
/// A wrong name lists the valid teams of `guide`.
pub fn find_team<'a>(
    escalations: &'a [Escalation],
    name: &str,
    guide: &str,
) -> Result<&'a Escalation, EvidenceError> {
    let want = name.trim().to_lowercase();
    if let Some(e) = escalations.iter().find(|e| e.team.to_lowercase() == want) {
        return Ok(e);
    }
    let hits: Vec<&Escalation> = escalations
        .iter()
        .filter(|e| !want.is_empty() && e.team.to_lowercase().contains(&want))
        .collect();
    match hits.as_slice() {
        [one] => Ok(one),
        _ => Err(EvidenceError::UnknownTeam {
            team: name.to_owned(),
            guide: guide.to_owned(),
            valid: escalations
                .iter()
                .map(|e| format!("\"{}\"", e.team))
                .collect(),
        }),
    }
}

/// The checklist of `esc` for the session's records.
pub fn build_checklist(esc: &Escalation, entries: &[Entry]) -> Vec<CheckItem> {
    let mut items: Vec<CheckItem> = esc
        .evidence
        .iter()
        .map(|t| CheckItem {
            text: t.clone(),
            links: Vec::new(),
            ticked: None,
        })
        .collect();
    for item in &mut items {
        let terms = terms(&item.text);
        for e in entries {
            let Record::ProbeRun(p) = &e.record else {
                continue;
            };
            if !p.succeeded() {
                continue;
            }
            let hit = terms
                .iter()
                .find(|t| mentions(&p.command, t) || same_kube_evidence(&p.command, t))
                .cloned()
                .or_else(|| kind_of_evidence(&item.text, p));
            if let Some(t) = hit {
                item.links.push(ItemLink {
                    seq: e.seq,
                    how: LinkHow::Auto(t),
                });
            }
        }
    }
    for e in entries {
        let Record::ChecklistTick(t) = &e.record else {
            continue;
        };
        if !t.team.eq_ignore_ascii_case(&esc.team) {
            continue;
        }
        let Some(i) = match_item(&items, &t.item) else {
            continue;
        };
        let item = &mut items[i];
        item.ticked = Some(t.checked);
        for &seq in &t.evidence {
            if !item.links.iter().any(|l| l.seq == seq) {
                item.links.push(ItemLink {
                    seq,
                    how: LinkHow::Explicit,
                });
            }
        }
    }
    items
}

/// The item a tick names: same text (case-insensitive), else the one item it is a prefix of.
fn match_item(items: &[CheckItem], text: &str) -> Option<usize> {
    let want = text.trim().to_lowercase();
    if let Some(i) = items.iter().position(|it| it.text.to_lowercase() == want) {
        return Some(i);
    }
    let hits: Vec<usize> = (0..items.len())
        .filter(|&i| !want.is_empty() && items[i].text.to_lowercase().starts_with(&want))
        .collect();
    match hits.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The commands and metrics an item names: its `code spans`, and bare snake_case identifiers
/// such as `cx_pending_programming_ips_v2`.
pub fn terms(item: &str) -> Vec<String> {
    let mut out: Vec<String> = item
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    let outside: String = item.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    for w in outside.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')) {
        if w.contains('_')
            && w.starts_with(|c: char| c.is_ascii_lowercase())
            && !out.iter().any(|o| o == w)
        {
            out.push(w.to_owned());
        }
    }
    out
}

/// `kubectl VERB KIND …` of a command line: the verb and the kind (`mtpnc/x` → `mtpnc`),
/// skipping flags and their values.
fn kube_verb_kind(line: &str) -> Option<(String, String)> {
    let words: Vec<String> = line
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
        .map(String::from)
        .collect();
    let at = words.iter().position(|w| {
        w.rsplit('/')
            .next()
            .is_some_and(|b| b == "kubectl" || b == "oc")
    })?;
    let inv = crate::tsg::invocation::of_words(&words[at..])?;
    let positional = inv.positionals;
    let verb = positional.first()?.clone();
    let kind = positional
        .get(1)
        .map(|k| k.split('/').next().unwrap_or(k).to_owned());
    Some((verb, kind.unwrap_or_default()))
}

/// One name for a kind however it is written: lower case, no group, no plural `s`, and the
/// short names of the kinds the guides use.
fn canonical_kind(k: &str) -> String {
    let k = k.to_lowercase();
    let k = k.split('.').next().unwrap_or(&k).to_owned();
    let full = match k.as_str() {
        "po" => "pod",
        "no" => "node",
        "deploy" => "deployment",
        "ds" => "daemonset",
        "ns" => "namespace",
        "ev" => "event",
        "mtpnc" => "multitenantpodnetworkconfig",
        "ni" => "nodeinfo",
        "pn" => "podnetwork",
        "pni" => "podnetworkinstance",
        "nnc" => "nodenetworkconfig",
        "mw" => "manifestwork",
        other => other,
    };
    full.strip_suffix('s').unwrap_or(full).to_owned()
}

/// A `kubectl VERB KIND` term against a command that runs the same verb on the same kind,
/// however the kind is written (`mtpnc`, `multitenantpodnetworkconfigs`, `mtpnc/name`).
pub fn same_kube_evidence(command: &str, term: &str) -> bool {
    let Some((verb, kind)) = kube_verb_kind(term) else {
        return false;
    };
    command
        .lines()
        .filter_map(kube_verb_kind)
        .any(|(v, k)| v == verb && (kind.is_empty() || canonical_kind(&k) == canonical_kind(&kind)))
}

fn alnum_lower(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The kind of evidence an item asks for, matched against a run: "CNS logs" is `kubectl logs`
/// of a workload named like CNS; "DNC-RC Kusto excerpt" is a KQL probe of the step (probe id)
/// or query that names DNC-RC. Returns what the run ran (`kubectl logs`, `KQL`).
fn kind_of_evidence(item: &str, p: &super::record::ProbeRun) -> Option<String> {
    let words: Vec<&str> = item.split_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let subject = |at: usize| -> Option<String> {
        let s = alnum_lower(&words[..at].join(""));
        (s.len() >= 2).then_some(s)
    };
    if let Some(at) = lower.iter().position(|w| w == "logs" || w == "log") {
        let who = subject(at)?;
        let logs = p
            .command
            .lines()
            .filter_map(kube_verb_kind)
            .any(|(v, _)| v == "logs");
        let named = p
            .command
            .split_whitespace()
            .any(|w| alnum_lower(w).contains(&who));
        return (logs && named).then(|| "kubectl logs".to_owned());
    }
    if let Some(at) = lower.iter().position(|w| w == "kusto") {
        let who = subject(at)?;
        let kql = p.backend == "kusto"
            || p.command.contains("database(")
            || p.command.contains("| where");
        let named = alnum_lower(&p.probe).contains(&who) || alnum_lower(&p.command).contains(&who);
        return (kql && named).then(|| "KQL".to_owned());
    }
    None
}

/// Whether `command` runs `term`: a multi-word term matches when its words appear in order
/// (flags may sit between them: `kubectl -n x describe mtpnc` runs `kubectl describe mtpnc`);
/// a single word matches as a whole identifier (`cx_pending_programming_ips_v2` in a PromQL query).
pub fn mentions(command: &str, term: &str) -> bool {
    let words: Vec<&str> = term.split_whitespace().collect();
    if words.len() > 1 {
        let mut cmd = command.split(|c: char| c.is_whitespace() || c == '|' || c == ';');
        return words.iter().all(|w| cmd.any(|c| c == *w));
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    command.match_indices(term).any(|(i, _)| {
        let before = command[..i].chars().next_back().is_none_or(|c| !ident(c));
        let after = command[i + term.len()..]
            .chars()
            .next()
            .is_none_or(|c| !ident(c));
        before && after
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_code_spans_and_metric_names() {
        assert_eq!(
            terms("`kubectl describe mtpnc` output"),
            vec!["kubectl describe mtpnc"]
        );
        assert_eq!(
            terms("`cx_pending_programming_ips_v2` graph"),
            vec!["cx_pending_programming_ips_v2"]
        );
        assert_eq!(
            terms("graph of cns_nnc_initialized over time"),
            vec!["cns_nnc_initialized"]
        );
        assert!(terms("CNS logs").is_empty());
    }

    #[test]
    fn commands_match_in_order_and_metrics_as_whole_words() {
        assert!(mentions(
            "kubectl describe mtpnc -n kube-system x",
            "kubectl describe mtpnc"
        ));
        assert!(mentions(
            "kubectl -n kube-system describe mtpnc x",
            "kubectl describe mtpnc"
        ));
        assert!(!mentions("kubectl get mtpnc", "kubectl describe mtpnc"));
        assert!(!mentions(
            "kubectl describe mtpncs",
            "kubectl describe mtpnc"
        ));
        assert!(mentions(
            "max_over_time(cx_pending_programming_ips_v2[1h])",
            "cx_pending_programming_ips_v2"
        ));
        assert!(!mentions(
            "cx_pending_programming_ips_v2_total > 0",
            "cx_pending_programming_ips_v2"
        ));
    }

    fn run(probe: &str, backend: &str, command: &str) -> super::super::record::ProbeRun {
        super::super::record::ProbeRun {
            probe: probe.into(),
            backend: backend.into(),
            command: command.into(),
            ..Default::default()
        }
    }

    #[test]
    fn evidence_matches_by_kind_not_text() {
        let describe = "kubectl describe mtpnc/router-6f8b7c9d5-c8wjm -n ocm-x";
        assert!(same_kube_evidence(describe, "kubectl describe mtpnc"));
        assert!(same_kube_evidence(
            "kubectl -n x describe multitenantpodnetworkconfigs r",
            "kubectl describe mtpnc"
        ));
        assert!(same_kube_evidence(
            "kubectl get nodeinfo --no-headers --context=mc-1",
            "kubectl get nodeinfo"
        ));
        assert!(!same_kube_evidence(
            "kubectl get mtpnc -A",
            "kubectl describe mtpnc"
        ));
        assert!(!same_kube_evidence(
            "kubectl describe node x",
            "kubectl describe mtpnc"
        ));

        let logs = run(
            "g.md#step-3/400",
            "shell",
            "kubectl logs -n kube-system \"${CNS_POD}\" --since=2h\n# env CNS_POD='azure-cns-9hq4m'",
        );
        assert_eq!(
            kind_of_evidence("CNS logs", &logs).as_deref(),
            Some("kubectl logs")
        );
        assert_eq!(kind_of_evidence("DNC logs", &logs), None);
        let kql = run(
            "g.md#step-4-query-dnc-rc-logs-in-aks-kusto/469",
            "kusto",
            "let ccpId = \"x\";\nunion ControlPlaneEvents | where category == \"requestcontroller\"",
        );
        assert_eq!(
            kind_of_evidence("DNC-RC Kusto excerpt", &kql).as_deref(),
            Some("KQL")
        );
        assert_eq!(kind_of_evidence("NRP Kusto results", &kql), None);
        assert_eq!(kind_of_evidence("CNS logs", &kql), None);
    }

    #[test]
    fn team_names_match_case_insensitively_and_wrong_ones_list_the_valid_teams() {
        let esc = |t: &str| Escalation {
            team: t.into(),
            ..Escalation::default()
        };
        let all = [
            esc("Cloudnet/NRP"),
            esc("Cloudnet/NRP and AKS RP team"),
            esc("Azure AKS team"),
        ];
        assert_eq!(
            find_team(&all, "cloudnet/nrp", "g.md").unwrap().team,
            "Cloudnet/NRP"
        );
        assert_eq!(
            find_team(&all, "azure aks", "g.md").unwrap().team,
            "Azure AKS team"
        );
        let e = find_team(&all, "nmagent", "g.md").unwrap_err().to_string();
        assert!(
            e.contains("no escalation team `nmagent` in g.md") && e.contains("\"Azure AKS team\""),
            "{e}"
        );
    }
}
