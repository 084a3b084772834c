//! Routes found from names, the way runbook collections are wired: a guide whose file is
//! named after an alert (`KubePodCrashLooping.md`) or whose H1 is the alert name, and an
//! alerting rule's `runbook_url` whose path ends with the guide's path (case-insensitive,
//! so lower-cased Hugo URLs such as `…/runbooks/kubernetes/kubepodcrashlooping` match
//! `kubernetes/KubePodCrashLooping.md`). Pure; imports only sibling `tsg` modules.

use super::model::{Guide, Library, Route, RouteBy};

mod sentence;
pub use sentence::sentence_alerts;

/// Whether `name` has the shape of an alert name: one identifier in mixed case
/// (`KubePodCrashLooping`, `etcdMembersDown`), not `README` or `kube-pod-crash`.
pub fn alert_like(name: &str) -> bool {
    name.len() >= 4
        && name.len() <= 120
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        && name.chars().any(|c| c.is_ascii_uppercase())
        && name.chars().any(|c| c.is_ascii_lowercase())
        // Alert names are camel case (`KubePodCrashLooping`, `etcdMembersDown`); a plain
        // capitalised word (`Overview`, `Prometheus`) is a title, not an alert.
        && name
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

/// A product's name (`InfluxDB`, `PostgreSQL`, `MySQL`, `RabbitMQ`): one capitalised word
/// and an acronym, with no condition in it. Such a title names what the guide is about, not
/// an alert.
pub fn product_like(name: &str) -> bool {
    let b = name.as_bytes();
    let word = 1 + b
        .iter()
        .skip(1)
        .take_while(|c| c.is_ascii_lowercase())
        .count();
    b.first().is_some_and(|c| c.is_ascii_uppercase())
        && word >= 2
        && b.len() - word >= 2
        && b[word..].iter().all(|c| c.is_ascii_uppercase())
}

/// A single capitalised word that could be an alert name (`Watchdog`).
fn plain_word(name: &str) -> bool {
    name.len() >= 4
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().skip(1).all(|c| c.is_ascii_lowercase())
}

/// The file stem of a guide path (`kubernetes/KubePodCrashLooping.md` → `KubePodCrashLooping`).
pub fn stem(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.strip_suffix(".md")
        .or_else(|| file.strip_suffix(".markdown"))
        .unwrap_or(file)
}

/// Adds the file-name and title routes of a guide (to its first node) unless the guide
/// already routes that alert.
pub fn named_routes(g: &mut Guide) {
    if g.is_template() {
        return;
    }
    let Some(first) = g.nodes.first().map(|n| n.id.clone()) else {
        return;
    };
    let stem = stem(&g.path).to_string();
    let h1 = g
        .nodes
        .iter()
        .find(|n| n.level == 1)
        .map(|n| n.title.trim().to_string());
    // A plain word (`Watchdog`) counts only when the file name and the H1 both say it.
    let agreed = h1.as_deref() == Some(stem.as_str());
    let mut add = |alert: &str, by: RouteBy, line: usize| {
        let named = alert_like(alert) && !product_like(alert) || (agreed && plain_word(alert));
        if named && !g.routes.iter().any(|r| r.alert.eq_ignore_ascii_case(alert)) {
            g.routes.push(Route {
                alert: alert.to_string(),
                to: first.clone(),
                by,
                line,
            });
        }
    };
    add(&stem, RouteBy::FileName, 1);
    if let Some(h1) = h1 {
        let line = g.nodes.iter().find(|n| n.level == 1).map_or(1, |n| n.line);
        add(&h1, RouteBy::Title, line);
    }
}

/// The path of a URL, lower-cased, without scheme, host, query, fragment, trailing `/` and
/// a `.md` extension.
fn url_path(url: &str) -> String {
    let u = url.trim();
    let u = u.split(['?', '#']).next().unwrap_or(u);
    let u = match u.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, p)| p),
        None => u,
    };
    let u = u.trim_end_matches('/').to_ascii_lowercase();
    u.strip_suffix(".md").map(str::to_string).unwrap_or(u)
}

/// The guide a `runbook_url` points at: the one whose path (without `.md`) the URL's path
/// ends with, at a `/` boundary; the longest such path wins.
pub fn guide_for_url<'a>(lib: &'a Library, url: &str) -> Option<&'a Guide> {
    let want = url_path(url);
    if want.is_empty() {
        return None;
    }
    lib.guides
        .iter()
        .filter(|g| !g.is_template())
        .filter(|g| {
            let p = g.path.to_ascii_lowercase();
            let p = p.strip_suffix(".md").unwrap_or(&p);
            want == p || want.ends_with(&format!("/{p}"))
        })
        .max_by_key(|g| g.path.len())
}

/// The route for alert `name` (and its `runbook_url`, if known): a route a guide declares
/// (triage table, front matter), then the `runbook_url`, then a guide named after the alert
/// (file or H1), then such a name that differs only in case.
pub fn route_for(lib: &Library, name: &str, runbook_url: Option<&str>) -> Option<Route> {
    let routes = || lib.guides.iter().flat_map(|g| &g.routes);
    if let Some(r) = routes().find(|r| r.alert == name && r.by.is_explicit()) {
        return Some(r.clone());
    }
    if let Some(g) = runbook_url.and_then(|u| guide_for_url(lib, u)) {
        if let Some(n) = g.nodes.first() {
            return Some(Route {
                alert: name.to_string(),
                to: n.id.clone(),
                by: RouteBy::RunbookUrl,
                line: 0,
            });
        }
    }
    // A guide named after the alert before one whose sentence merely names it.
    if let Some(r) = routes().find(|r| r.alert == name && r.by != RouteBy::Sentence) {
        return Some(r.clone());
    }
    if let Some(r) = routes().find(|r| r.alert == name) {
        return Some(r.clone());
    }
    routes()
        .find(|r| r.alert.eq_ignore_ascii_case(name))
        .cloned()
}

#[cfg(test)]
#[path = "routing_tests.rs"]
mod tests;
