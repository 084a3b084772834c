//! Structural lint rules: template sections, scenario fields, risk statements, anchors,
//! links, variables and escalation evidence. Pure: IO-backed facts (does a file exist, how
//! is a probe classified) arrive through `LintConfig`.

use std::collections::{HashMap, HashSet};

use super::{Finding, LintConfig, Severity};
use crate::tsg::model::{CalloutKind, Guide, Lang, Node, Role, SafetyClass};
use crate::tsg::{edges, slug, vars};

pub(super) fn finding(
    rule: &'static str,
    severity: Severity,
    g: &Guide,
    line: usize,
    message: String,
) -> Finding {
    Finding {
        rule,
        severity,
        path: g.file.clone(),
        line,
        message,
    }
}

/// `front-matter`: YAML that does not parse or has unknown keys.
pub fn front_matter(g: &Guide, out: &mut Vec<Finding>) {
    for (line, msg) in &g.problems {
        let m = format!("front matter is not valid: {msg}; fix the YAML between the `---` lines");
        out.push(finding("front-matter", Severity::Error, g, *line, m));
    }
}

/// `transcript`: what reading a console block found odd (the block is still kept whole).
pub fn transcript(g: &Guide, out: &mut Vec<Finding>) {
    for p in g.nodes.iter().flat_map(|n| &n.probes) {
        for (line, msg) in &p.problems {
            out.push(finding(
                "transcript",
                Severity::Warning,
                g,
                *line,
                msg.clone(),
            ));
        }
    }
}

/// `missing-section`: every H1 section of the template must have a counterpart.
pub fn missing_section(g: &Guide, template: &Guide, out: &mut Vec<Finding>) {
    for t in template.nodes.iter().filter(|n| n.level == 1) {
        let found = g.nodes.iter().any(|n| {
            (t.role != Role::Other && n.role == t.role)
                || slug::slug(&n.title) == slug::slug(&t.title)
        });
        if !found {
            let m = format!(
                "section \"{}\" of the template ({}) is missing; add a \"# {}\" section, or set `template: none` in the front matter if this is not a TSG",
                t.title, template.file, t.title
            );
            out.push(finding("missing-section", Severity::Warning, g, 1, m));
        }
    }
}

/// The node at `i` and every node below it in the outline.
fn subtree(nodes: &[Node], i: usize) -> &[Node] {
    let level = nodes[i].level;
    let end = nodes[i + 1..]
        .iter()
        .position(|n| n.level <= level)
        .map(|p| i + 1 + p)
        .unwrap_or(nodes.len());
    &nodes[i..end]
}

/// `n` and its ancestors, nearest first; `by_id` is built once per guide.
fn ancestors<'a>(by_id: &HashMap<&str, &'a Node>, n: &'a Node) -> Vec<&'a Node> {
    let mut out = vec![n];
    let mut cur = n.parent.as_deref();
    while let Some(p) = cur.and_then(|id| by_id.get(id)) {
        out.push(p);
        cur = p.parent.as_deref();
    }
    out
}

fn is_scenario(n: &Node) -> bool {
    let t = n.title.to_lowercase();
    let t = t.trim_start_matches(|c: char| !c.is_alphabetic());
    matches!(n.role, Role::Mitigation | Role::Rollback)
        && (t.starts_with("scenario") || t.starts_with("strategy"))
}

/// `scenario-missing-goal`, `scenario-missing-preconditions`.
pub fn scenario_fields(g: &Guide, out: &mut Vec<Finding>) {
    for (i, n) in g.nodes.iter().enumerate().filter(|(_, n)| is_scenario(n)) {
        let tree = subtree(&g.nodes, i);
        for (rule, key, what) in [
            (
                "scenario-missing-goal",
                "goal",
                "what this scenario sets out to achieve",
            ),
            (
                "scenario-missing-preconditions",
                "preconditions",
                "what must be true before it is safe to apply",
            ),
        ] {
            if !tree
                .iter()
                .any(|d| d.fields.get(key).is_some_and(|v| !v.trim().is_empty()))
            {
                let label = if key == "goal" {
                    "Goal"
                } else {
                    "Preconditions"
                };
                let m = format!(
                    "\"{}\" has no **{label}:**; add `**{label}:** …` saying {what}",
                    n.title
                );
                out.push(finding(rule, Severity::Error, g, n.line, m));
            }
        }
    }
}

fn states_risk(n: &Node) -> bool {
    n.fields.contains_key("risk")
        || n.callouts.iter().any(|c| {
            matches!(
                c.kind,
                CalloutKind::Risk | CalloutKind::Warning | CalloutKind::Caution
            )
        })
}

/// `mutation-without-risk`: a mutating probe with no Risk callout or field in its node or above.
pub fn mutation_risk(g: &Guide, cfg: &LintConfig, out: &mut Vec<Finding>) {
    let by_id: HashMap<&str, &Node> = g.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    for n in &g.nodes {
        let hit = n
            .probes
            .iter()
            .filter(|p| (cfg.classify)(p) == SafetyClass::Mutating)
            .find_map(|p| super::scratch::first_change(p, cfg.classify).map(|f| (p, f)));
        let Some((p, first)) = hit else {
            continue;
        };
        if ancestors(&by_id, n).iter().any(|a| states_risk(a)) {
            continue;
        }
        let m = format!(
            "\"{}\" runs a command that changes the system (`{first}`) but states no risk; add a `> **Risk:** …` callout saying what can go wrong and how to back out",
            n.title
        );
        out.push(finding(
            "mutation-without-risk",
            Severity::Error,
            g,
            p.line,
            m,
        ));
    }
}

fn closest<'a>(want: &str, have: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    have.map(|h| (distance(want, h), h))
        .filter(|(d, h)| *d <= want.len().max(h.len()) / 3)
        .min()
        .map(|(_, h)| h)
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push(
                (prev[j] + usize::from(ca != *cb))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1),
            );
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `broken-anchor` and `broken-link`; `by_path` maps each guide's path in the library to it.
pub fn links(g: &Guide, by_path: &HashMap<&str, &Guide>, cfg: &LintConfig, out: &mut Vec<Finding>) {
    for l in &g.links {
        let Some(id) = edges::resolve_dest(&g.path, &l.dest) else {
            continue;
        };
        let (file, anchor) = id
            .split_once('#')
            .map(|(f, a)| (f, Some(a)))
            .unwrap_or((id.as_str(), None));
        let target = by_path.get(file);
        if target.is_none() && !(cfg.file_exists)(g, &l.dest) && folder_present(g, &l.dest, cfg) {
            let m = format!("link to `{}` points at a file that does not exist; fix the path (it is relative to this guide's folder)", l.dest);
            out.push(finding("broken-link", Severity::Error, g, l.line, m));
            continue;
        }
        let (Some(t), Some(anchor)) = (target, anchor) else {
            continue;
        };
        if anchor.is_empty()
            || t.nodes.iter().any(|n| n.slug() == anchor)
            || html_anchor(t, anchor, cfg)
        {
            continue;
        }
        let hint = closest(anchor, t.nodes.iter().map(|n| n.slug()))
            .map(|s| format!("; did you mean `#{s}`?"))
            .unwrap_or_else(|| "; anchors are GitHub slugs of headings (lower-case, punctuation dropped, spaces → `-`)".into());
        let m = format!("link `{}` names no heading in {}{hint}", l.dest, t.file);
        out.push(finding("broken-anchor", Severity::Error, g, l.line, m));
    }
}

/// Whether the folder a relative link points into is part of this checkout. A link into a
/// folder that is absent altogether (`../../tooling/x/README.md` in a checkout of the docs
/// alone) cannot be told from a partial checkout, so it is not reported.
fn folder_present(g: &Guide, dest: &str, cfg: &LintConfig) -> bool {
    let path = dest
        .split(['#', '?'])
        .next()
        .unwrap_or(dest)
        .trim_end_matches('/');
    match path.rsplit_once('/') {
        Some((folder, _)) if !folder.is_empty() => (cfg.file_exists)(g, folder),
        _ => true,
    }
}

/// Whether `anchor` is a target other than a heading: a tab of a tabbed page
/// (`#tab/azure-cli`) or an HTML anchor in the guide (`<a id="error1"></a>`, `name="…"`).
fn html_anchor(g: &Guide, anchor: &str, cfg: &LintConfig) -> bool {
    if anchor.starts_with("tab/") {
        return true;
    }
    let forms = [
        format!("id=\"{anchor}\""),
        format!("id='{anchor}'"),
        format!("name=\"{anchor}\""),
        format!("name='{anchor}'"),
    ];
    g.nodes.iter().any(|n| {
        let body = (cfg.text)(n);
        body.contains(anchor) && forms.iter().any(|f| body.contains(f.as_str()))
    })
}

/// `undefined-variable`: a shell `$VAR` used before any probe assigns it and not declared
/// under `inputs:` in the front matter. `<placeholders>` are inputs by nature and not reported.
pub fn undefined_vars(g: &Guide, out: &mut Vec<Finding>) {
    let mut known: HashSet<String> = vars::ENVIRONMENT.iter().map(|s| s.to_string()).collect();
    if let Some(fm) = &g.front_matter {
        known.extend(fm.inputs.keys().cloned());
    }
    let mut reported = HashSet::new();
    for p in g
        .nodes
        .iter()
        .flat_map(|n| &n.probes)
        .filter(|p| p.lang == Lang::Shell)
    {
        for v in vars::shell_uses(&p.code) {
            if known.contains(&v) || p.assigns.contains(&v) || !reported.insert(v.clone()) {
                continue;
            }
            let line = p
                .code
                .lines()
                .position(|l| l.contains(&format!("${v}")) || l.contains(&format!("${{{v}")))
                .unwrap_or(0);
            let m = format!("`${v}` is used but no earlier step sets it and the front matter does not declare it; add `{v}: null` under `inputs:` or set it in an earlier block (`export {v}=…`)");
            out.push(finding(
                "undefined-variable",
                Severity::Warning,
                g,
                p.line + line,
                m,
            ));
        }
        known.extend(p.assigns.iter().cloned());
    }
}

/// `escalation-missing-evidence`.
pub fn escalation_evidence(g: &Guide, out: &mut Vec<Finding>) {
    for e in g.escalations.iter().filter(|e| e.evidence.is_empty()) {
        let m = format!("escalation to \"{}\" lists no evidence to attach; add what the team needs to act (logs, query results, graphs)", e.team);
        out.push(finding(
            "escalation-missing-evidence",
            Severity::Warning,
            g,
            e.line,
            m,
        ));
    }
}
