//! Role inference from heading text, ancestors and (through a caller's classifier) what a
//! step's commands do. Pure; imports only `super::model`.
//!
//! The synonym table is data (`Synonyms`), so callers can extend it from configuration. A
//! heading is read once for all of the table's words: one Aho-Corasick automaton per table,
//! built the first time it is needed and shared by every copy of that table.

use std::sync::{Arc, LazyLock, OnceLock};

use aho_corasick::AhoCorasick;

use super::model::{Guide, Probe, Role};

/// Heading words that name each role, checked in order; the first match wins.
#[derive(Debug, Clone)]
pub struct Synonyms {
    table: Arc<Vec<(Role, Vec<String>)>>,
    matcher: Arc<OnceLock<Option<Matcher>>>,
}

/// Every word of a table in one automaton; each distinct word knows the rows that hold it.
#[derive(Debug)]
struct Matcher {
    ac: AhoCorasick,
    rows: Vec<Vec<usize>>,
}

impl Matcher {
    fn new(table: &[(Role, Vec<String>)]) -> Option<Matcher> {
        let mut words: Vec<&str> = Vec::new();
        let mut rows: Vec<Vec<usize>> = Vec::new();
        let mut seen = std::collections::HashMap::new();
        for (row, (_, ws)) in table.iter().enumerate() {
            for w in ws {
                let id = *seen.entry(w.as_str()).or_insert_with(|| {
                    words.push(w.as_str());
                    rows.push(Vec::new());
                    words.len() - 1
                });
                if !rows[id].contains(&row) {
                    rows[id].push(row);
                }
            }
        }
        let ac = AhoCorasick::new(&words).ok()?;
        Some(Matcher { ac, rows })
    }

    /// Which rows have a word in `text` (`hit[row]`).
    fn hits(&self, text: &str, rows: usize) -> Vec<bool> {
        let mut hit = vec![false; rows];
        for m in self.ac.find_overlapping_iter(text) {
            for r in &self.rows[m.pattern().as_usize()] {
                hit[*r] = true;
            }
        }
        hit
    }
}

/// The bundled table, built once; `Synonyms::default()` shares it and its automaton.
static STANDARD: LazyLock<Synonyms> = LazyLock::new(|| Synonyms::new(standard_table()));

impl Default for Synonyms {
    fn default() -> Self {
        STANDARD.clone()
    }
}

impl Synonyms {
    /// A table of heading words per role, checked in order.
    pub fn new(table: Vec<(Role, Vec<String>)>) -> Synonyms {
        Synonyms {
            table: Arc::new(table),
            matcher: Arc::new(OnceLock::new()),
        }
    }

    /// The words of each role, in the order they are checked.
    pub fn table(&self) -> &[(Role, Vec<String>)] {
        &self.table
    }

    /// Which rows of the table have a word in `text` (already lower-cased).
    fn rows_in(&self, text: &str) -> Vec<bool> {
        match self.matcher.get_or_init(|| Matcher::new(&self.table)) {
            Some(m) => m.hits(text, self.table.len()),
            // No automaton (a table too large to build one): one search per word.
            None => self
                .table
                .iter()
                .map(|(_, words)| words.iter().any(|w| text.contains(w.as_str())))
                .collect(),
        }
    }
}

/// The bundled heading words of each role, checked in order.
const STANDARD_WORDS: &[(Role, &[&str])] = &[
    (
        Role::Triage,
        &[
            "alert triage",
            "triage",
            "alerts routing",
            "alert routing",
            "meaning",
        ],
    ),
    (
        Role::BlastRadius,
        &["blast radius", "scope of impact", "impact assessment"],
    ),
    (
        Role::WhenToUse,
        &["when to use", "when to apply", "applies when", "scope"],
    ),
    (
        Role::Rollback,
        &["rollback", "roll back", "restore", "revert", "undo"],
    ),
    (Role::Escalation, &["escalat", "who to engage", "contacts"]),
    (
        Role::Validation,
        &[
            "validation",
            "validate",
            "verify",
            "verification",
            "confirmation",
        ],
    ),
    (
        Role::Postmortem,
        &[
            "postmortem",
            "post-mortem",
            "after incident",
            "after the incident",
            "post-incident",
            "retrospective",
        ],
    ),
    (
        Role::Mitigation,
        &[
            "mitigat",
            "scenario",
            "strategy",
            "strategies",
            "remediat",
            "workaround",
            "fix ",
        ],
    ),
    (
        Role::Access,
        &[
            "cluster access",
            "access",
            "breakglass",
            "break-glass",
            "credentials",
            "login",
        ],
    ),
    (
        Role::Glossary,
        &["glossary", "terminology", "definitions", "terms"],
    ),
    (Role::Severity, &["severity", "impact"]),
    (Role::Symptoms, &["symptom"]),
    (
        Role::Prerequisites,
        &[
            "prerequisite",
            "before you begin",
            "requirements",
            "pre-requisite",
        ],
    ),
    (
        Role::Reference,
        &[
            "appendix",
            "reference",
            "table of contents",
            "contents",
            "purpose",
            "background",
            "overview",
            "see also",
            "related",
            "architecture",
            "components",
        ],
    ),
    (
        Role::Diagnostic,
        &[
            "diagnos",
            "identify",
            "investigat",
            "troubleshoot",
            "step",
            "check",
            "dashboards",
            "logging",
            "queries",
            "logs",
            "inspect",
            "find the",
        ],
    ),
];

fn standard_table() -> Vec<(Role, Vec<String>)> {
    STANDARD_WORDS
        .iter()
        .map(|(r, words)| (*r, words.iter().map(|w| w.to_string()).collect()))
        .collect()
}

/// Headings that open with a word of the troubleshooting-article style name their role
/// whatever follows: "Cause", "Solution 2: Reimage the node", "Resolution", "Workaround" and
/// "Fix" sections are mitigation; "Symptoms", "Problem" and "Error message" are triage.
const LEADS: &[(&str, Role)] = &[
    ("cause", Role::Mitigation),
    ("causes", Role::Mitigation),
    ("solution", Role::Mitigation),
    ("solutions", Role::Mitigation),
    ("resolution", Role::Mitigation),
    ("workaround", Role::Mitigation),
    ("workarounds", Role::Mitigation),
    ("fix", Role::Mitigation),
    ("symptom", Role::Triage),
    ("symptoms", Role::Triage),
    ("problem", Role::Triage),
    ("error message", Role::Triage),
    ("error messages", Role::Triage),
];

/// The role of a heading's leading word (`t` lower-cased, numbering stripped), when the word
/// stands alone ("fix for …", not "fixed"): the longest of [`LEADS`] that starts `t` and is
/// followed by no ASCII letter or digit. Each is one word but "error message(s)", so the
/// first word is looked up, and only "error" reads on.
fn lead(t: &str) -> Option<Role> {
    let end = t
        .bytes()
        .position(|c| !c.is_ascii_alphanumeric())
        .unwrap_or(t.len());
    let word = &t[..end];
    if word == "error" {
        let rest = t[end..].strip_prefix(" message")?;
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        return (!rest.starts_with(|c: char| c.is_ascii_alphanumeric())).then_some(Role::Triage);
    }
    LEADS.iter().find(|l| l.0 == word).map(|l| l.1)
}

impl Synonyms {
    /// The role a heading names by itself, if any.
    pub fn own(&self, title: &str) -> Option<Role> {
        // An alert name as a title ("KeyVaultSecretAccessDenied") names no phase: the words
        // inside the identifier are not headings.
        let id = title.trim();
        if id.len() > 1
            && id.chars().all(|c| c.is_ascii_alphanumeric())
            && id.chars().skip(1).any(|c| c.is_ascii_uppercase())
            && id.chars().any(|c| c.is_ascii_lowercase())
        {
            return None;
        }
        // Lower-cased with room for the space after it (an ASCII title byte by byte, which
        // is what `to_lowercase` gives it), so it is not copied again to add the space.
        let mut t = if title.is_ascii() {
            let mut t = String::with_capacity(title.len() + 1);
            t.push_str(title);
            t.make_ascii_lowercase();
            t
        } else {
            title.to_lowercase()
        };
        t.push(' ');
        let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ');
        if let Some(role) = lead(t) {
            return Some(role);
        }
        // "Step N: …" is a diagnostic step unless it names another phase.
        let is_step = t.starts_with("step ");
        let hit = self.rows_in(t);
        self.table
            .iter()
            .zip(hit)
            .find(|((role, _), hit)| {
                *hit && !(is_step
                    && matches!(role, Role::Prerequisites | Role::Access | Role::Reference))
            })
            .map(|((r, _), _)| match r {
                // "Step 5: Classify the scenario" is a step, not a scenario.
                Role::Mitigation if is_step => Role::Diagnostic,
                r => *r,
            })
    }

    /// Whether the heading names diagnosis itself ("Diagnosis", "Investigate …"), not merely
    /// a step.
    pub fn strongly_diagnostic(&self, title: &str) -> bool {
        let t = title.to_lowercase();
        ["diagnos", "investigat", "troubleshoot"]
            .iter()
            .any(|w| t.contains(w))
    }

    /// Whether a heading names no role of its own ("Procedure", "Step 3", "Steps"), so what
    /// its commands do may decide.
    pub fn neutral(&self, title: &str) -> bool {
        match self.own(title) {
            None => true,
            Some(Role::Diagnostic) => {
                !self.strongly_diagnostic(title) && {
                    let t = title.to_lowercase();
                    ![
                        "check", "identify", "inspect", "logs", "queries", "find the",
                    ]
                    .iter()
                    .any(|w| t.contains(w))
                }
            }
            Some(_) => false,
        }
    }

    /// The role of a heading given its parent's role: a step under a mitigation stays a
    /// mitigation step; otherwise the heading's own words win, then the parent's role.
    pub fn infer(&self, title: &str, parent: Option<Role>) -> Role {
        let own = self.own(title);
        match (own, parent) {
            // "Step 3: Scale down" under a mitigation is a mitigation step; an explicit
            // "Diagnosis" keeps its own role whatever its parent's title says.
            (
                Some(Role::Diagnostic),
                Some(
                    p @ (Role::Mitigation
                    | Role::Rollback
                    | Role::Validation
                    | Role::Escalation
                    | Role::Triage),
                ),
            ) if !self.strongly_diagnostic(title) => p,
            (Some(Role::Symptoms), Some(Role::Diagnostic)) => Role::Symptoms,
            // "Strategy 1: Roll back the image" is one of the mitigation's strategies.
            (Some(Role::Rollback), Some(Role::Mitigation)) if numbered_option(title) => {
                Role::Mitigation
            }
            (Some(r), _) => r,
            (None, Some(p)) if p != Role::Triage && p != Role::WhenToUse => p,
            _ => Role::Other,
        }
    }
}

/// "Strategy 2: …", "Scenario 3 – …", "Option A: …".
fn numbered_option(title: &str) -> bool {
    let t = title.trim_start().to_lowercase();
    ["strategy ", "scenario ", "option "]
        .iter()
        .any(|k| t.starts_with(k))
}

/// Steps under a neutral heading ("Procedure", "Step 3") whose commands change a system are
/// mitigation steps. `mutates` says whether a probe changes a system (from `crate::safety`,
/// which `tsg` may not import).
pub fn refine(guide: &mut Guide, synonyms: &Synonyms, mutates: &dyn Fn(&Probe) -> bool) {
    // Only an open step (diagnostic or other) with a command that changes a system can
    // change; most guides have none, and then no heading is read again.
    let open: Vec<usize> = guide
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(n.role, Role::Diagnostic | Role::Other))
        .filter(|(_, n)| n.probes.iter().any(mutates))
        .map(|(i, _)| i)
        .collect();
    if open.is_empty() {
        return;
    }
    // A step under a heading that names its phase ("Diagnostics") keeps that phase's role.
    // A parent is found by its id (the last node of that id).
    let by_id: std::collections::HashMap<&str, usize> = guide
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let change: Vec<usize> = open
        .into_iter()
        .filter(|&i| {
            let n = &guide.nodes[i];
            synonyms.neutral(&n.title)
                && n.parent
                    .as_deref()
                    .and_then(|p| by_id.get(p))
                    .is_none_or(|&p| synonyms.neutral(&guide.nodes[p].title))
        })
        .collect();
    for i in change {
        guide.nodes[i].role = Role::Mitigation;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `lead` was: one anchored, leftmost-longest automaton over the leading words.
    fn lead_by_automaton(t: &str) -> Option<Role> {
        let ac = AhoCorasick::builder()
            .start_kind(aho_corasick::StartKind::Anchored)
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .build(LEADS.iter().map(|l| l.0))
            .expect("automaton");
        let m = ac.find(aho_corasick::Input::new(t).anchored(aho_corasick::Anchored::Yes))?;
        let next = t[m.end()..].chars().next();
        next.is_none_or(|c| !c.is_ascii_alphanumeric())
            .then(|| LEADS[m.pattern().as_usize()].1)
    }

    #[test]
    fn a_leading_word_stands_alone() {
        for (t, want) in [
            ("fix ", Some(Role::Mitigation)),
            ("fix-it ", Some(Role::Mitigation)),
            ("fixed ", None),
            ("fixé ", Some(Role::Mitigation)),
            ("causes: x ", Some(Role::Mitigation)),
            ("error messages ", Some(Role::Triage)),
            ("error message2 ", None),
            ("error  message ", None),
            ("error ", None),
            ("", None),
        ] {
            assert_eq!(lead(t), want, "{t:?}");
            assert_eq!(lead_by_automaton(t), want, "{t:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn lead_finds_what_the_automaton_found(
            t in "(cause|causes|solution|fix|symptom|problem|error| message|s|e|x|2|é| |-|:){0,5}"
        ) {
            proptest::prop_assert_eq!(lead(&t), lead_by_automaton(&t));
        }
    }

    #[test]
    fn infers_roles_from_real_headings() {
        let s = Synonyms::default();
        assert_eq!(s.infer("Alert Triage", None), Role::Triage);
        assert_eq!(s.infer("KeyVaultSecretAccessDenied", None), Role::Other);
        assert_eq!(s.infer("ClusterOperatorDown", None), Role::Other);
        assert_eq!(s.infer("Mitigation", None), Role::Mitigation);
        assert_eq!(s.infer("When to Use This TSG", None), Role::WhenToUse);
        assert_eq!(
            s.infer("Step 1: Establish blast radius", Some(Role::Diagnostic)),
            Role::BlastRadius
        );
        assert_eq!(
            s.infer(
                "Step 2: Check HCP-side prerequisites",
                Some(Role::Diagnostic)
            ),
            Role::Diagnostic
        );
        assert_eq!(
            s.infer("Scenario: Stuck MTPNC deletion", Some(Role::Mitigation)),
            Role::Mitigation
        );
        assert_eq!(
            s.infer("Option A", Some(Role::Mitigation)),
            Role::Mitigation
        );
        assert_eq!(
            s.infer("Step 3: Scale down", Some(Role::Mitigation)),
            Role::Mitigation
        );
        assert_eq!(
            s.infer("Validation and Confirmation", None),
            Role::Validation
        );
        assert_eq!(s.infer("After Incident", None), Role::Postmortem);
        assert_eq!(
            s.infer("Appendix: CNS Prometheus Metrics Reference", None),
            Role::Reference
        );
        assert_eq!(s.infer("Customer-Visible Symptoms", None), Role::Symptoms);
        assert_eq!(s.infer("4. Escalation", None), Role::Escalation);
        assert_eq!(
            s.infer("Restore the agent", Some(Role::Mitigation)),
            Role::Rollback
        );
        assert_eq!(s.infer("Random heading", None), Role::Other);
        assert_eq!(s.infer("Meaning", Some(Role::Mitigation)), Role::Triage);
        assert_eq!(s.infer("Impact", None), Role::Severity);
        assert_eq!(
            s.infer("Diagnosis", Some(Role::Mitigation)),
            Role::Diagnostic
        );
        assert_eq!(s.infer("Diagnosis", Some(Role::Rollback)), Role::Diagnostic);
        assert!(s.neutral("Step 3") && s.neutral("Procedure") && !s.neutral("Diagnosis"));
        assert_eq!(
            s.infer("Step 5: Classify the scenario", Some(Role::Diagnostic)),
            Role::Diagnostic
        );
    }
}
