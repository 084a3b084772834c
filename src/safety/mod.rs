//! PURE command classification: is a probe read-only, long-running, interactive, unknown or
//! mutating, and why.
//!
//! Depends only on `crate::tsg` (the model and the shell parser). Must not import IO
//! (std::fs, std::process, tokio, reqwest, kube) nor any other tsgnav module.
//!
//! A shell probe is parsed into simple commands ([`crate::tsg::shell`]), including those inside
//! `$(…)`, loops, `sh -c "…"` and `kubectl exec … -- …`; each gets a [`Hit`] and the script
//! takes the most dangerous class (`ReadOnly < LongRunning < Interactive < Unknown < Mutating`).

mod args;
mod azure;
mod builtins;
mod command;
mod consoles;
mod hidden;
mod https;
mod kube;
mod kube_flags;
mod kube_writes;
mod net;
mod ops;
mod sed;
mod target;
mod tools;
mod unix;
mod writers;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_hidden;
#[cfg(test)]
mod tests_kube;
#[cfg(test)]
mod tests_learning;
#[cfg(test)]
mod tests_lexed;
#[cfg(test)]
mod tests_ops;
#[cfg(test)]
mod tests_tools;
#[cfg(test)]
mod tests_writes;

pub use https::classifier_only;
pub use kube_writes::{kube_writes, KubeWrite, Scope, WriteVerb};
pub use target::{target_escapes, value_names_target, Escape};

use crate::tsg::shell::{self, Problem, SimpleCommand};
use crate::tsg::{Lang, Probe, SafetyClass};

/// Why one command of a script has its class. `reason` is shown to the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// 1-based line in the script.
    pub line: usize,
    /// The command as written (words joined by spaces).
    pub command: String,
    pub class: SafetyClass,
    pub reason: String,
}

/// The class of a whole script and, for each command in it, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub class: SafetyClass,
    /// One hit per simple command (nested ones included), in script order, plus one per
    /// part of the script that could not be read.
    pub hits: Vec<Hit>,
}

impl Verdict {
    /// The hits of the script's class (the ones that explain it), first first.
    pub fn reasons(&self) -> impl Iterator<Item = &Hit> {
        self.hits.iter().filter(move |h| h.class == self.class)
    }

    fn from_hits(hits: Vec<Hit>) -> Self {
        let class = hits
            .iter()
            .map(|h| h.class)
            .max()
            .unwrap_or(SafetyClass::ReadOnly);
        Verdict { class, hits }
    }

    fn single(class: SafetyClass, line: usize, command: &str, reason: String) -> Self {
        let command = command.to_string();
        Verdict {
            class,
            hits: vec![Hit {
                line,
                command,
                class,
                reason,
            }],
        }
    }
}

/// Classify a shell script.
pub fn classify(script: &str) -> Verdict {
    let parsed = shell::parse(script);
    classify_parsed(script, &parsed.commands, &parsed.problems)
}

/// The class alone of a shell script whose parse is `commands` and `problems`: the class
/// [`classify_parsed`] gives, without writing out each command and reason.
fn class_of_parsed(script: &str, commands: &[SimpleCommand], problems: &[Problem]) -> SafetyClass {
    // What cannot be read, and a loop variable that picks a program, are unknown.
    let mut class = if problems.is_empty() && hidden::loop_variables(script).is_empty() {
        SafetyClass::ReadOnly
    } else {
        SafetyClass::Unknown
    };
    for c in commands {
        if class == SafetyClass::Mutating {
            break;
        }
        class = class.max(command::classify_command(c).0);
    }
    class
}

/// [`classify`] of a script already parsed into `commands` and `problems`.
fn classify_parsed(script: &str, commands: &[SimpleCommand], problems: &[Problem]) -> Verdict {
    let mut hits: Vec<Hit> = commands
        .iter()
        .map(|c| {
            let (class, reason) = command::classify_command(c);
            Hit {
                line: c.line,
                command: c.text(),
                class,
                reason,
            }
        })
        .collect();
    for p in problems {
        let reason = match p {
            Problem::Unterminated { what, .. } => format!(
                "a `{what}` is never closed, so tsgnav cannot tell where the command ends"
            ),
            Problem::TooDeep { .. } => format!(
                "substitutions are nested more than {} levels deep, so the inner commands were not checked",
                shell::MAX_DEPTH
            ),
        };
        hits.push(Hit {
            line: p.line(),
            command: String::new(),
            class: SafetyClass::Unknown,
            reason,
        });
    }
    for (line, name) in hidden::loop_variables(script) {
        hits.push(Hit {
            line,
            command: format!("for {name} in …"),
            class: SafetyClass::Unknown,
            reason: format!(
                "the loop variable `{name}` makes later commands run a program or read a file \
                 of the script's choosing"
            ),
        });
    }
    hits.sort_by_key(|h| h.line);
    Verdict::from_hits(hits)
}

/// Fills in the safety class of every probe of `guide` not classified yet, then refines its
/// roles ([`refine_roles`], which reads those classes): what a guide read from a file has done
/// once, while its probes' parses from reading it are still kept.
pub fn settle(guide: &mut crate::tsg::Guide) {
    for p in guide.nodes.iter_mut().flat_map(|n| n.probes.iter_mut()) {
        if p.safety.is_none() {
            p.safety = Some(classify_probe(p));
        }
    }
    refine_roles(guide);
}

/// Steps of `guide` under a neutral heading (Procedure, Steps …) whose shell probes mutate
/// become mitigation steps: the model cannot classify commands itself, so the role is
/// refined here, where commands are understood. A probe whose class is filled in already is
/// not classified again.
pub fn refine_roles(guide: &mut crate::tsg::Guide) {
    let synonyms = crate::tsg::roles::Synonyms::default();
    // Scratch work (`mkdir -p /tmp/…`, `az account set`) does not make a step a mitigation.
    let mutates = |p: &Probe| {
        p.lang == crate::tsg::Lang::Shell
            && p.safety.unwrap_or_else(|| classify_probe(p)) == SafetyClass::Mutating
            && crate::tsg::lint::scratch::first_change(p, &classify_probe).is_some()
    };
    crate::tsg::roles::refine(guide, &synonyms, &mutates);
    // The probes' parses were kept for classifying them; a loaded library does not need them.
    for p in guide.nodes.iter_mut().flat_map(|n| n.probes.iter_mut()) {
        p.lexed = shell::Kept(None);
    }
}

/// The class of any probe: [`explain_probe`]'s class, without its reasons. A shell probe's
/// parse from reading the guide is used while its code is unchanged.
pub fn classify_probe(p: &Probe) -> SafetyClass {
    if p.lang == Lang::Shell && p.runs_in.as_ref().and_then(|r| r.console).is_none() {
        return match shell::Lexed::of(p.lexed.0.as_deref(), &p.code) {
            Some(l) => class_of_parsed(&p.code, &l.commands, &l.problems),
            None => {
                let parsed = shell::parse(&p.code);
                class_of_parsed(&p.code, &parsed.commands, &parsed.problems)
            }
        };
    }
    explain_probe(p).class
}

/// The class of any probe, with its reasons.
pub fn explain_probe(p: &Probe) -> Verdict {
    match p.lang {
        Lang::Shell => match p.runs_in.as_ref().and_then(|r| r.console) {
            // Typed into a console: read in the console's language, not as shell.
            Some(c) => {
                let (class, reason) = consoles::classify(c, &p.code);
                let first = crate::tsg::lines(&p.code).next().unwrap_or("");
                Verdict::single(class, 1, first, reason)
            }
            None => match shell::Lexed::of(p.lexed.0.as_deref(), &p.code) {
                Some(l) => classify_parsed(&p.code, &l.commands, &l.problems),
                None => classify(&p.code),
            },
        },
        Lang::Promql => Verdict::single(
            SafetyClass::ReadOnly,
            1,
            "",
            "PromQL queries only read".into(),
        ),
        Lang::Text => Verdict::single(SafetyClass::ReadOnly, 1, "", "shown, never run".into()),
        Lang::Kql => kql(&p.code),
        Lang::Http => http(&p.code),
    }
}

/// KQL is read-only unless it holds a management command (`.drop`, `.set` …); `.show` reads.
fn kql(code: &str) -> Verdict {
    let mut hits = Vec::new();
    for (i, line) in crate::tsg::lines(code).enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('.') else {
            continue;
        };
        let verb: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        let (class, reason) = if verb == "show" {
            (
                SafetyClass::ReadOnly,
                "`.show` management commands only read".to_string(),
            )
        } else {
            (
                SafetyClass::Mutating,
                format!("`.{verb}` is a Kusto management command that changes the database"),
            )
        };
        hits.push(Hit {
            line: i + 1,
            command: t.to_string(),
            class,
            reason,
        });
    }
    if hits.is_empty() {
        return Verdict::single(SafetyClass::ReadOnly, 1, "", "KQL queries only read".into());
    }
    Verdict::from_hits(hits)
}

/// HTTP requests are classed by the method of the first request line.
fn http(code: &str) -> Verdict {
    let first = crate::tsg::lines(code)
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .find(|(_, l)| !l.is_empty() && !l.starts_with('#') && !l.starts_with("//"));
    let Some((line, text)) = first else {
        return Verdict::single(
            SafetyClass::ReadOnly,
            1,
            "",
            "an empty request sends nothing".into(),
        );
    };
    let method = text.split_whitespace().next().unwrap_or("");
    let (class, reason) = match method.to_ascii_uppercase().as_str() {
        "GET" | "HEAD" | "OPTIONS" => (
            SafetyClass::ReadOnly,
            format!("`{method}` requests only read"),
        ),
        "POST" | "PUT" | "PATCH" | "DELETE" => (
            SafetyClass::Mutating,
            format!("`{method}` requests change the server's state"),
        ),
        _ if method.starts_with('/') || method.starts_with("http") => (
            SafetyClass::ReadOnly,
            "a request line without a method is a `GET`".to_string(),
        ),
        _ => (
            SafetyClass::Unknown,
            format!("`{method}` is not an HTTP method tsgnav knows"),
        ),
    };
    Verdict::single(class, line, text, reason)
}
