//! The TSG model: library → guides → nodes → probes, edges, fields.
//!
//! Plain data only. Must not import IO (std::fs, std::process, tokio, network crates)
//! nor any other tsgnav module but its sibling `body` (a node's text).

use serde::Serialize;

/// Every guide loaded from the given roots.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Library {
    pub guides: Vec<Guide>,
}

/// One markdown file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Guide {
    /// Path relative to the root it was found under, with `/` separators.
    pub path: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub front_matter: Option<FrontMatter>,
    pub nodes: Vec<Node>,
    pub routes: Vec<Route>,
    pub escalations: Vec<Escalation>,
    /// Every link target written in the guide (for broken-link/broken-anchor lint).
    #[serde(skip)]
    pub links: Vec<Link>,
    /// The file as the user named it (for messages); `path` is relative to its root.
    #[serde(skip)]
    pub file: String,
    /// Problems found while reading (bad front matter …): line and message.
    #[serde(skip)]
    pub problems: Vec<(usize, String)>,
}

impl Guide {
    /// A template (`TEMPLATE.md`) shows conventions; it is not a guide to route alerts to.
    pub fn is_template(&self) -> bool {
        self.path
            .rsplit('/')
            .next()
            .is_some_and(|f| f.eq_ignore_ascii_case("TEMPLATE.md"))
    }
}

/// Optional YAML front matter. Sharpens inference; never required. Other keys (Hugo's
/// `weight`, Jekyll's `layout` …) are allowed and ignored.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize, PartialEq)]
#[serde(default)]
pub struct FrontMatter {
    pub title: Option<String>,
    /// Alert name → node slug (e.g. `step-1-establish-blast-radius`).
    pub alerts: std::collections::BTreeMap<String, String>,
    pub owners: Vec<String>,
    /// Variables an operator supplies, with optional defaults.
    pub inputs: std::collections::BTreeMap<String, Option<String>>,
    /// Required sections (overrides the template for this guide).
    pub template: Option<String>,
}

/// One heading section.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Node {
    /// `<relative path>#<GitHub slug>` (the slug alone: [`Node::slug`]).
    pub id: String,
    pub title: String,
    pub level: u8,
    pub role: Role,
    pub parent: Option<String>,
    /// 1-based line of the heading.
    pub line: usize,
    /// 1-based line of the last line of the section (before the next heading).
    #[serde(skip)]
    pub end_line: usize,
    /// Bold-label fields, key lower-cased and dashed (`goal`, `preconditions`, `risk`,
    /// `action`, `expected-result`, `if-then` …).
    pub fields: std::collections::BTreeMap<String, String>,
    pub callouts: Vec<Callout>,
    pub checklist: Vec<ChecklistItem>,
    pub probes: Vec<Probe>,
    pub edges: Vec<Edge>,
    /// The section's markdown source (heading line excluded); when a load left it in the
    /// guide's file, read from there at the edge (see [`super::body`]).
    #[serde(skip)]
    pub body: super::body::Body,
}

impl Node {
    /// The slug alone (the anchor): the id after its last `#`, which no slug holds; empty for
    /// an id without one.
    pub fn slug(&self) -> &str {
        self.id.rsplit_once('#').map_or("", |(_, slug)| slug)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Triage,
    WhenToUse,
    Access,
    Glossary,
    Severity,
    Symptoms,
    Diagnostic,
    BlastRadius,
    Mitigation,
    Rollback,
    Escalation,
    Validation,
    Postmortem,
    Prerequisites,
    Reference,
    #[default]
    Other,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Triage => "triage",
            Role::WhenToUse => "when-to-use",
            Role::Access => "access",
            Role::Glossary => "glossary",
            Role::Severity => "severity",
            Role::Symptoms => "symptoms",
            Role::Diagnostic => "diagnostic",
            Role::BlastRadius => "blast-radius",
            Role::Mitigation => "mitigation",
            Role::Rollback => "rollback",
            Role::Escalation => "escalation",
            Role::Validation => "validation",
            Role::Postmortem => "postmortem",
            Role::Prerequisites => "prerequisites",
            Role::Reference => "reference",
            Role::Other => "other",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CalloutKind {
    Risk,
    Gotcha,
    Warning,
    Caution,
    Important,
    Note,
    Tip,
    Quote,
}

#[derive(Debug, Clone, Serialize)]
pub struct Callout {
    pub kind: CalloutKind,
    pub text: String,
    pub line: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChecklistItem {
    pub text: String,
    /// `Some(true|false)` for a task list item, `None` for a plain bullet of a validation section.
    pub checked: Option<bool>,
    pub line: usize,
}

/// Language of a fenced block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Shell,
    Promql,
    Kql,
    Http,
    /// Shown, never run (yaml, json, mermaid, go, text, …).
    Text,
}

/// Safety class of a probe. Computed by `crate::safety`; `tsg` only names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum SafetyClass {
    ReadOnly,
    LongRunning,
    Interactive,
    Unknown,
    Mutating,
}

impl SafetyClass {
    pub fn as_str(self) -> &'static str {
        match self {
            SafetyClass::ReadOnly => "read-only",
            SafetyClass::LongRunning => "long-running",
            SafetyClass::Interactive => "interactive",
            SafetyClass::Unknown => "unknown",
            SafetyClass::Mutating => "mutating",
        }
    }
    /// Whether running it needs a person's confirmation (mutating and unknown do).
    pub fn needs_confirmation(self) -> bool {
        matches!(self, SafetyClass::Mutating | SafetyClass::Unknown)
    }
}

/// A fenced block.
#[derive(Debug, Clone, Serialize)]
pub struct Probe {
    pub lang: Lang,
    /// The info string as written (`bash {name=x timeout=30s}`).
    #[serde(skip)]
    pub info: String,
    /// Fence attributes (`name`, `timeout`, …) from `{…}` in the info string.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub attrs: std::collections::BTreeMap<String, String>,
    /// What would run: prompts stripped and output lines removed for a console transcript,
    /// the commands typed inside a shell for a probe that `runs_in` one.
    pub code: String,
    /// The block as written.
    pub source: String,
    /// The output lines of a console transcript (a sample: never run, never a variable).
    pub expected_output: String,
    /// Where the commands run when not on the operator's machine (inside a pod or node shell).
    pub runs_in: Option<RunsIn>,
    /// Problems found reading the block (1-based line, message), for `lint`.
    #[serde(skip)]
    pub problems: Vec<(usize, String)>,
    /// 1-based line of the first line of code (the line after the opening fence).
    pub line: usize,
    /// Variables the probe reads (placeholders included), in first-use order.
    pub vars: Vec<String>,
    /// Variables the probe assigns itself (`export X=`, `X=$(…)`, `for X in`).
    pub assigns: Vec<String>,
    pub hints: BackendHints,
    /// The safety class, when a caller that may classify (not `tsg`, which must not import
    /// `safety`) has filled it in — `tsgnav tree --json` does before printing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub safety: Option<SafetyClass>,
    /// The shell parse of `code` made while reading the guide, for the classifier (valid only
    /// while `code` is unchanged; see `shell::Lexed::of`). Dropped once the guide's probes
    /// are classified, so a loaded library does not keep it.
    #[serde(skip)]
    pub lexed: super::shell::Kept,
}

/// The kind of shell a guide enters before typing commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ShellKind {
    /// A container's shell (`oc rsh`, `kubectl exec -it … -- bash`).
    Pod,
    /// A cluster node (`oc debug node/X`, `chroot /host`).
    Node,
    /// Another machine or a privileged shell (`ssh HOST`, `sudo -i`, `toolbox`).
    Host,
}

impl ShellKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ShellKind::Pod => "pod",
            ShellKind::Node => "node",
            ShellKind::Host => "host",
        }
    }
}

/// Where a probe's commands run: entered by `via`, on `target` (a pod or node expression).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunsIn {
    pub kind: ShellKind,
    pub via: String,
    pub target: String,
    /// The console the commands are typed into (`psql`, `redis-cli`, a rails console), when
    /// they are not shell commands: they are read and classified in that language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub console: Option<Console>,
}

/// The language of a console a guide types commands into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Console {
    /// psql, mysql, sqlite3, sqlcmd: SQL statements and meta-commands.
    Sql,
    /// redis-cli: redis commands.
    Redis,
    /// A rails console, irb or pry: Ruby (ActiveRecord).
    Ruby,
    /// A python shell.
    Python,
    /// mongo or mongosh: JavaScript.
    Mongo,
}

impl Console {
    pub fn as_str(self) -> &'static str {
        match self {
            Console::Sql => "sql",
            Console::Redis => "redis",
            Console::Ruby => "ruby",
            Console::Python => "python",
            Console::Mongo => "mongo",
        }
    }
}

impl Probe {
    /// A bare probe of `code` (no info string, no variables, line 1), e.g. to classify a
    /// request's code again.
    pub fn from_code(lang: Lang, code: &str) -> Self {
        Probe {
            lang,
            info: String::new(),
            attrs: Default::default(),
            code: code.to_string(),
            source: code.to_string(),
            expected_output: String::new(),
            runs_in: None,
            problems: Vec::new(),
            line: 1,
            vars: Vec::new(),
            assigns: Vec::new(),
            hints: Default::default(),
            safety: None,
            lexed: Default::default(),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct BackendHints {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kube_context: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kusto_cluster: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kusto_database: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    Route,
    Branch,
    Link,
    Ref,
    Next,
}

#[derive(Debug, Clone, Serialize)]
pub struct Edge {
    /// Target node id (`path#slug`), or the raw target when unresolved.
    pub to: String,
    pub kind: EdgeKind,
    /// Why (the condition text of a branch, the link text…).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    #[serde(skip)]
    pub line: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Route {
    pub alert: String,
    pub to: String,
    /// How the route was found.
    pub by: RouteBy,
    #[serde(skip)]
    pub line: usize,
}

/// How an alert was routed to a guide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RouteBy {
    /// A row of an alert triage table.
    #[default]
    TriageTable,
    /// The `alerts:` map of the front matter.
    FrontMatter,
    /// The alerting rule's `runbook_url` annotation points at the guide.
    RunbookUrl,
    /// The guide's file is named after the alert.
    FileName,
    /// The guide's H1 is the alert name.
    Title,
    /// A sentence of the guide names the alert ("This alert, FooBarDown, fires when …").
    Sentence,
}

impl RouteBy {
    pub fn as_str(self) -> &'static str {
        match self {
            RouteBy::TriageTable => "triage-table",
            RouteBy::FrontMatter => "front-matter",
            RouteBy::RunbookUrl => "runbook-url",
            RouteBy::FileName => "file-name",
            RouteBy::Title => "title",
            RouteBy::Sentence => "sentence",
        }
    }
    /// Whether the guide itself says so (a table or front matter), not inferred from names.
    pub fn is_explicit(self) -> bool {
        matches!(self, RouteBy::TriageTable | RouteBy::FrontMatter)
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Escalation {
    pub team: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub trigger: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub channel: String,
    pub evidence: Vec<String>,
    #[serde(skip)]
    pub line: usize,
}

/// A link as written in the guide, for `lint` (its target and line; what it says is read
/// where the link is, into the section's edges, and not kept twice).
#[derive(Debug, Clone)]
pub struct Link {
    pub dest: String,
    pub line: usize,
}
