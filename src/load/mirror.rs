//! A full-fidelity serde mirror of the `tsg` model for the parse cache. The JSON interface
//! (`tree --json`) leaves fields out on purpose (bodies, end lines, links, problems); the cache
//! must keep every one, so it uses serde's remote derives here instead. They name every field
//! and variant, so a field added to the model stops the build until it is added below: the
//! cache can never drop data silently. Where a node's body lies in its guide's file is its sibling
//! `later`'s; how ids and a probe's source are written short, its sibling `short`'s. Imports
//! only `tsg` and those siblings.

use serde::{Deserialize, Serialize};

use crate::tsg::{
    BackendHints, Body, Callout, CalloutKind, ChecklistItem, Console, Edge, EdgeKind, Escalation,
    FrontMatter, Guide, Lang, Link, Node, Probe, Role, Route, RouteBy, RunsIn, SafetyClass,
    ShellKind,
};

/// `Vec<T>` (de)serialised through the mirror `$def` of `T`.
macro_rules! vec_via {
    ($m:ident, $t:ty, $def:literal) => {
        mod $m {
            use super::*;
            pub fn serialize<S: serde::Serializer>(v: &[$t], s: S) -> Result<S::Ok, S::Error> {
                #[derive(Serialize)]
                struct W<'a>(#[serde(with = $def)] &'a $t);
                s.collect_seq(v.iter().map(W))
            }
            pub fn deserialize<'de, D: serde::Deserializer<'de>>(
                d: D,
            ) -> Result<Vec<$t>, D::Error> {
                #[derive(Deserialize)]
                struct W(#[serde(with = $def)] $t);
                Ok(Vec::<W>::deserialize(d)?.into_iter().map(|w| w.0).collect())
            }
        }
    };
}

vec_via!(vec_node, Node, "NodeDef");
vec_via!(vec_route, Route, "RouteDef");
vec_via!(vec_escalation, Escalation, "EscalationDef");
vec_via!(vec_link, Link, "LinkDef");
vec_via!(vec_callout, Callout, "CalloutDef");
vec_via!(vec_check, ChecklistItem, "ChecklistItemDef");
vec_via!(vec_probe, Probe, "ProbeDef");
vec_via!(vec_edge, Edge, "EdgeDef");

mod opt_safety {
    use super::*;
    pub fn serialize<S: serde::Serializer>(
        v: &Option<SafetyClass>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct W<'a>(#[serde(with = "SafetyClassDef")] &'a SafetyClass);
        v.as_ref().map(W).serialize(s)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Option<SafetyClass>, D::Error> {
        #[derive(Deserialize)]
        struct W(#[serde(with = "SafetyClassDef")] SafetyClass);
        Ok(Option::<W>::deserialize(d)?.map(|w| w.0))
    }
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Guide")]
pub struct GuideDef {
    // First: the ids in the nodes after it are written relative to it (`short`); a reorder
    // fails `load_short`.
    #[serde(with = "super::short::path")]
    path: String,
    title: String,
    front_matter: Option<FrontMatter>,
    #[serde(with = "vec_node")]
    nodes: Vec<Node>,
    #[serde(with = "vec_route")]
    routes: Vec<Route>,
    #[serde(with = "vec_escalation")]
    escalations: Vec<Escalation>,
    #[serde(with = "vec_link")]
    links: Vec<Link>,
    file: String,
    problems: Vec<(usize, String)>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Node")]
struct NodeDef {
    #[serde(with = "super::short::id")]
    id: String,
    title: String,
    level: u8,
    #[serde(with = "RoleDef")]
    role: Role,
    #[serde(with = "super::short::parent")]
    parent: Option<String>,
    line: usize,
    end_line: usize,
    fields: std::collections::BTreeMap<String, String>,
    #[serde(with = "vec_callout")]
    callouts: Vec<Callout>,
    #[serde(with = "vec_check")]
    checklist: Vec<ChecklistItem>,
    #[serde(with = "vec_probe")]
    probes: Vec<Probe>,
    #[serde(with = "vec_edge")]
    edges: Vec<Edge>,
    #[serde(with = "body_via")]
    body: Body,
}

/// A body is written as where it lies in its guide's file when the parse left it there (see
/// `super::later::Leaving`), else as its text; read back as a body left in the file (see
/// `super::later::decoding`), or as the text.
mod body_via {
    use super::*;

    #[derive(Serialize, Deserialize)]
    enum Wire<'a> {
        Text(&'a str),
        At(u64, u64),
    }

    pub fn serialize<S: serde::Serializer>(b: &Body, s: S) -> Result<S::Ok, S::Error> {
        match b.left_at() {
            Some(r) => Wire::At(r.start as u64, r.len() as u64),
            None => Wire::Text(b.fetch()),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Body, D::Error> {
        use serde::de::Error;
        match Wire::deserialize(d)? {
            Wire::Text(t) => Ok(Body::from(t)),
            Wire::At(start, len) => {
                let at = usize::try_from(start).map_err(D::Error::custom)?;
                let len = usize::try_from(len).map_err(D::Error::custom)?;
                let end = at
                    .checked_add(len)
                    .ok_or_else(|| D::Error::custom("a body past the end"))?;
                super::super::later::body_at(at..end)
                    .ok_or_else(|| D::Error::custom("a body in a file, decoded without its record"))
            }
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Role")]
enum RoleDef {
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
    Other,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "CalloutKind")]
enum CalloutKindDef {
    Risk,
    Gotcha,
    Warning,
    Caution,
    Important,
    Note,
    Tip,
    Quote,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Callout")]
struct CalloutDef {
    #[serde(with = "CalloutKindDef")]
    kind: CalloutKind,
    text: String,
    line: usize,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "ChecklistItem")]
struct ChecklistItemDef {
    text: String,
    checked: Option<bool>,
    line: usize,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Lang")]
enum LangDef {
    Shell,
    Promql,
    Kql,
    Http,
    Text,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "SafetyClass")]
enum SafetyClassDef {
    ReadOnly,
    LongRunning,
    Interactive,
    Unknown,
    Mutating,
}

mod opt_runs_in {
    use super::*;
    pub fn serialize<S: serde::Serializer>(v: &Option<RunsIn>, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct W<'a>(#[serde(with = "RunsInDef")] &'a RunsIn);
        v.as_ref().map(W).serialize(s)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<RunsIn>, D::Error> {
        #[derive(Deserialize)]
        struct W(#[serde(with = "RunsInDef")] RunsIn);
        Ok(Option::<W>::deserialize(d)?.map(|w| w.0))
    }
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Probe")]
struct ProbeDef {
    #[serde(with = "LangDef")]
    lang: Lang,
    info: String,
    attrs: std::collections::BTreeMap<String, String>,
    // Just before `source`, which is written as nothing when it is this (`short`).
    #[serde(with = "super::short::code")]
    code: String,
    #[serde(with = "super::short::source")]
    source: String,
    expected_output: String,
    #[serde(with = "opt_runs_in")]
    runs_in: Option<RunsIn>,
    problems: Vec<(usize, String)>,
    line: usize,
    vars: Vec<String>,
    assigns: Vec<String>,
    #[serde(with = "BackendHintsDef")]
    hints: BackendHints,
    #[serde(with = "opt_safety")]
    safety: Option<SafetyClass>,
    /// A parse kept for the classifier only: never cached (a cached probe is lexed again).
    #[serde(skip)]
    lexed: crate::tsg::shell::Kept,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "BackendHints")]
struct BackendHintsDef {
    kube_context: Option<String>,
    namespace: Option<String>,
    kusto_cluster: Option<String>,
    kusto_database: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "EdgeKind")]
enum EdgeKindDef {
    Route,
    Branch,
    Link,
    Ref,
    Next,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Edge")]
struct EdgeDef {
    #[serde(with = "super::short::id")]
    to: String,
    #[serde(with = "EdgeKindDef")]
    kind: EdgeKind,
    label: String,
    line: usize,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Route")]
struct RouteDef {
    alert: String,
    to: String,
    #[serde(with = "RouteByDef")]
    by: RouteBy,
    line: usize,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "RouteBy")]
enum RouteByDef {
    TriageTable,
    FrontMatter,
    RunbookUrl,
    FileName,
    Title,
    Sentence,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "ShellKind")]
enum ShellKindDef {
    Pod,
    Node,
    Host,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "RunsIn")]
struct RunsInDef {
    #[serde(with = "ShellKindDef")]
    kind: ShellKind,
    via: String,
    target: String,
    console: Option<Console>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Escalation")]
struct EscalationDef {
    team: String,
    trigger: String,
    channel: String,
    evidence: Vec<String>,
    line: usize,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Link")]
struct LinkDef {
    dest: String,
    line: usize,
}
