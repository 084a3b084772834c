//! The journal's record types: what a session can say happened. Plain data (serde), one JSON
//! object per journal line, tagged by `"type"`. Must not import IO, `cli`, `tui` or `query`.

use serde::{Deserialize, Serialize};

/// One event of a troubleshooting session. Serialized with `"type": "<snake_case variant>"`
/// beside the envelope fields (`seq`, `ts`, `prev`, `hash`, `redactions`) the journal adds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// Always the first record of a session.
    SessionStart(SessionStart),
    /// The operator opened a node (`FILE#slug`).
    NodeEntered { node: String },
    /// A variable got a value. `source`: `operator`, `probe:<probe id>`, `default`, `front-matter` …
    VariableSet {
        name: String,
        value: String,
        source: String,
    },
    /// A probe ran (or failed to start). Build one with [`ProbeRun`] and
    /// [`crate::evidence::Session::store_output`].
    ProbeRun(ProbeRun),
    /// A person confirmed a mutating or unknown command after seeing it and typing the target back.
    Confirmation(Confirmation),
    /// State captured before a known mutation, so the restore uses the captured value.
    PriorState(PriorState),
    /// Free text. `topic` groups notes in the export (`impact`, `finding`, `attachment` …);
    /// `blob` names an attached file stored under `blobs/`.
    Note(Note),
    /// A checklist item of an escalation team was ticked (or unticked), with explicit links to the
    /// records (`seq`) that are its evidence.
    ChecklistTick(ChecklistTick),
    /// The team the incident is escalated to, from the guide's escalation targets.
    EscalationChosen { team: String, reason: String },
    /// An export was written; `manifest_sha256` is the digest of its `manifest.json`.
    Export(ExportRecord),
}

impl Record {
    /// The `"type"` tag as written in the journal.
    pub fn kind(&self) -> &'static str {
        match self {
            Record::SessionStart(_) => "session_start",
            Record::NodeEntered { .. } => "node_entered",
            Record::VariableSet { .. } => "variable_set",
            Record::ProbeRun(_) => "probe_run",
            Record::Confirmation(_) => "confirmation",
            Record::PriorState(_) => "prior_state",
            Record::Note(_) => "note",
            Record::ChecklistTick(_) => "checklist_tick",
            Record::EscalationChosen { .. } => "escalation_chosen",
            Record::Export(_) => "export",
        }
    }

    /// The blob this record refers to, if any.
    pub fn blob(&self) -> Option<&str> {
        match self {
            Record::ProbeRun(p) => p.blob.as_deref(),
            Record::Note(n) => n.blob.as_deref(),
            _ => None,
        }
    }
}

/// What a session starts from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionStart {
    /// tsgnav's version (`CARGO_PKG_VERSION`).
    pub tool_version: String,
    /// The guide as the operator named it (a path, or `bundled:<name>` for a bundled guide).
    pub guide: String,
    /// sha256 (hex) of the guide's bytes when the session started.
    pub guide_sha256: String,
    pub operator: String,
    pub host: String,
    /// The alert that fired, when the session was started from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert: Option<String>,
    /// The guide's absolute path when it was read from a file (exports find it from any folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guide_path: Option<String>,
    /// The guide is one of the guides built into tsgnav.
    #[serde(default, skip_serializing_if = "is_false")]
    pub bundled: bool,
    /// The session runs against simulated systems (`tsgnav demo`): nothing in it is real.
    #[serde(default, skip_serializing_if = "is_false")]
    pub simulated: bool,
    /// Id of the operator key that signs the journal (see `journal.sig`): the first 16 hex
    /// digits of its fingerprint (older sessions hold minisign's key number here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// The signing key's fingerprint: sha256 of its Ed25519 public key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_fingerprint: Option<String>,
    /// Why the journal is not signed, when it is not (the key could not be read or created).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsigned: Option<String>,
}

/// One probe execution.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbeRun {
    /// `FILE#node/line`, e.g. `swift-networking.md#step-3-check-cns/412`.
    pub probe: String,
    /// The exact command (or query) as run, after substitution.
    pub command: String,
    /// What actually answered, when not the command as written (the native Kubernetes API
    /// request and its context, a fan-out over contexts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran: Option<String>,
    /// `shell`, `kube`, `prometheus`, `kusto`, `http`, `replay` …
    pub backend: String,
    /// Kube context, Prometheus URL, Kusto cluster … (empty when local).
    pub target: String,
    /// RFC 3339.
    pub started: String,
    /// RFC 3339.
    pub ended: String,
    /// Exit status (shell) or HTTP status; `None` when the probe did not finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    /// Why it did not finish (timeout, 401, spawn failure …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// sha256 (hex) of the stored (redacted) output.
    pub output_sha256: String,
    /// Bytes of stored output.
    pub output_size: u64,
    /// The output itself when it is UTF-8 and at most [`crate::evidence::INLINE_MAX`] bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Digest of the blob holding the output when it is not inline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// Redactions made in the output before it was stored.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output_redactions: u64,
    /// True when the output came from a recorded session, not a live system.
    #[serde(default, skip_serializing_if = "is_false")]
    pub replayed: bool,
    /// A dry run of a mutation (shown on its confirmation screen): it changed nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
    /// The background task number the probe was started as. A record with a task and no end
    /// says it started; the record of how it ended follows when it stops (at the latest at quit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<u64>,
    /// The sandbox a shell probe ran in (`landlock v7 fs+net`, `none: kernel has no
    /// Landlock` …); absent for backends that start no process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// The Kubernetes API requests tsgnav's read-only proxy decided for the probe, in order
    /// (`forwarded GET /api/v1/…`, `refused DELETE /api/v1/…: why`); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub api: Vec<String>,
    /// How the run ended (`{"exited":0}`, `"cancelled"`, `"timed_out"` …); absent in records
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<crate::tsg::Outcome>,
}

impl ProbeRun {
    /// Finished without an error: exit 0 (shell) or a 2xx status (HTTP), or no status at all
    /// from a backend that has none (a query that returned).
    pub fn succeeded(&self) -> bool {
        if let Some(o) = &self.outcome {
            return o.succeeded();
        }
        self.error.is_none() && self.exit.is_none_or(|c| c == 0 || (200..300).contains(&c))
    }

    /// The record of a background task's start (it has not ended yet).
    pub fn is_task_start(&self) -> bool {
        self.task.is_some() && self.ended.is_empty() && self.exit.is_none() && self.error.is_none()
    }

    /// A dry run: flagged, or (sessions recorded before the flag) a probe id ending `/dry-run`.
    pub fn is_dry_run(&self) -> bool {
        self.dry_run || self.probe.ends_with("/dry-run")
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Confirmation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<String>,
    /// The command exactly as previewed.
    pub command: String,
    /// The target (kube context / cluster) the operator typed back.
    pub target: String,
    /// `mutating` or `unknown`.
    pub safety: String,
    /// The preconditions acknowledged, as shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preconditions: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PriorState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<String>,
    /// What was captured, e.g. `deployment/cns -n kube-system`.
    pub resource: String,
    /// e.g. `spec.replicas`.
    pub field: String,
    pub value: String,
    /// The command that read it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub command: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// The attached file's name, without its folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub blob_size: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub blob_redactions: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChecklistTick {
    pub team: String,
    /// The item's text (matched case-insensitively; a unique prefix is enough).
    pub item: String,
    pub checked: bool,
    /// `seq` of the records that are evidence for the item.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExportRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// `md`, `json`, `tar.gz` or `handoff`.
    pub format: String,
    pub manifest_sha256: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}
