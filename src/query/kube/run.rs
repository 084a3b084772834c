//! Runs one parsed `kubectl get` through kube-rs (`describe` is kubectl's own: see `native_form`): resolve each resource by
//! discovery, ask the server for its table (as kubectl does) or the plain objects, and shape
//! the answer as kubectl would print it, keeping the raw objects.

use std::path::Path;
use std::time::Duration;

use chrono::Utc;
use kube::config::Kubeconfig;
use serde_json::{json, Value};

use super::super::Table;
use super::client::KubeClient;
use super::error::KubeError;
use super::jsonpath;
use super::kubeconfigs::shared as read_kubeconfig;
use super::parse::{Format, KubeCommand, Verb};
use super::render;
use super::resolve::Resolved;
use super::sort;

/// The default timeout of one request.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What one native command produced.
#[derive(Debug, Clone, Default)]
pub struct KubeOutput {
    /// What kubectl would print.
    pub text: String,
    /// The table (for the default and wide formats).
    pub table: Option<Table>,
    /// The objects as the server sent them.
    pub raw: Vec<Value>,
    /// The API server URL of the context.
    pub server: String,
}

/// Runs `cmd` against `context` (or the command's `--context`, or the current context).
pub async fn run_kube(
    cmd: &KubeCommand,
    kubeconfig: &Path,
    context: Option<&str>,
) -> Result<KubeOutput, KubeError> {
    run_kube_with(cmd, kubeconfig, context, None, DEFAULT_TIMEOUT).await
}

/// [`run_kube`] with a default namespace (used when the command has no `-n`) and a timeout.
pub async fn run_kube_with(
    cmd: &KubeCommand,
    kubeconfig: &Path,
    context: Option<&str>,
    namespace: Option<&str>,
    timeout: Duration,
) -> Result<KubeOutput, KubeError> {
    let kc = read_kubeconfig(kubeconfig)?;
    run_kube_in(cmd, &kc, kubeconfig, context, namespace, timeout).await
}

/// [`run_kube_with`] on a kubeconfig already read (`path` names it in messages).
pub async fn run_kube_in(
    cmd: &KubeCommand,
    kc: &Kubeconfig,
    path: &Path,
    context: Option<&str>,
    namespace: Option<&str>,
    timeout: Duration,
) -> Result<KubeOutput, KubeError> {
    let client = KubeClient::new(kc, path, cmd.context.as_deref().or(context), timeout).await?;
    run_on(&client, cmd, namespace).await
}

fn fill_kind(o: &mut Value, r: &Resolved) {
    if o.get("kind").is_none_or(Value::is_null) {
        o["kind"] = json!(r.ar.kind);
        o["apiVersion"] = json!(r.ar.api_version);
    }
}

/// What the requests of one command brought back, before it is printed.
#[derive(Default)]
struct Gathered {
    out: KubeOutput,
    /// One table per run of targets of the same kind and columns (tabular formats).
    tables: Vec<Table>,
    /// The kind and group of each table.
    kinds: Vec<(String, String)>,
    /// `kind.group/name` of each object (the other formats).
    names: Vec<String>,
    /// Whether any target was a namespaced resource.
    namespaced: bool,
}

/// Runs `cmd` with an existing client.
pub async fn run_on(
    client: &KubeClient,
    cmd: &KubeCommand,
    namespace: Option<&str>,
) -> Result<KubeOutput, KubeError> {
    let ns_owned = cmd
        .namespace
        .clone()
        .or(namespace.map(String::from))
        .unwrap_or_else(|| client.default_ns.clone());
    let ns = if cmd.all_namespaces {
        None
    } else {
        Some(ns_owned.as_str())
    };
    let mut g = gather(client, cmd, ns).await?;
    let tabular = matches!(cmd.format, Format::Table | Format::Wide) && cmd.verb == Verb::Get;
    if let (Some(by), false) = (&cmd.sort_by, tabular) {
        let ord = sort::order(&g.out.raw, by).map_err(KubeError::Usage)?;
        g.out.raw = ord.iter().map(|i| g.out.raw[*i].clone()).collect();
        g.names = ord
            .iter()
            .filter_map(|i| g.names.get(*i).cloned())
            .collect();
    }
    print(cmd, g, ns)
}

/// Sends each target's request and folds the answers in.
async fn gather(
    client: &KubeClient,
    cmd: &KubeCommand,
    ns: Option<&str>,
) -> Result<Gathered, KubeError> {
    let now = Utc::now();
    let tabular = matches!(cmd.format, Format::Table | Format::Wide) && cmd.verb == Verb::Get;
    let mut g = Gathered {
        out: KubeOutput {
            server: client.server.clone(),
            ..Default::default()
        },
        ..Default::default()
    };
    for t in &cmd.targets {
        let r = client.resolve(&t.resource).await?;
        g.namespaced |= r.namespaced;
        let v = match &t.name {
            Some(n) => client.get(&r, ns, n, tabular).await?,
            None => {
                let (labels, fields) = (cmd.labels.as_deref(), cmd.fields.as_deref());
                client.list(&r, ns, labels, fields, tabular).await?
            }
        };
        if tabular {
            let ns_col = cmd.all_namespaces && r.namespaced && t.name.is_none();
            add_table(&mut g, cmd, &r, &v, ns_col, now)?;
            continue;
        }
        let mut objs = render::items(&v);
        objs.iter_mut().for_each(|o| fill_kind(o, &r));
        g.names.extend(
            objs.iter()
                .map(|o| render::name_line(&r.ar.kind, &r.ar.group, o)),
        );
        g.out.raw.extend(objs);
    }
    Ok(g)
}

/// One target's answer as a table (the server's, else one built from the objects), sorted
/// as asked, appended to the last table when kind and columns agree.
fn add_table(
    g: &mut Gathered,
    cmd: &KubeCommand,
    r: &Resolved,
    v: &Value,
    ns_col: bool,
    now: chrono::DateTime<Utc>,
) -> Result<(), KubeError> {
    let wide = cmd.format == Format::Wide;
    let (tab, objs) = render::from_server_table(v, wide, ns_col, &cmd.label_columns)
        .unwrap_or_else(|| {
            let objs = render::items(v);
            let tab = render::fallback_table(&objs, ns_col, &cmd.label_columns, now);
            (tab, objs)
        });
    let (tab, objs) = match &cmd.sort_by {
        Some(by) => {
            let ord = sort::order(&objs, by).map_err(KubeError::Usage)?;
            let rows = ord.iter().map(|i| tab.rows[*i].clone()).collect();
            let objs = ord.iter().map(|i| objs[*i].clone()).collect();
            (Table { rows, ..tab }, objs)
        }
        None => (tab, objs),
    };
    g.out.raw.extend(objs);
    let kind = (r.ar.kind.clone(), r.ar.group.clone());
    match g.tables.last_mut() {
        Some(last) if g.kinds.last() == Some(&kind) && last.columns == tab.columns => {
            last.rows.extend(tab.rows)
        }
        _ => {
            g.tables.push(tab);
            g.kinds.push(kind);
        }
    }
    Ok(())
}

/// The text of the answer in the format asked for.
fn print(cmd: &KubeCommand, g: Gathered, ns: Option<&str>) -> Result<KubeOutput, KubeError> {
    let single = cmd.targets.len() == 1 && cmd.targets[0].name.is_some();
    let empty = || no_resources(ns.filter(|_| g.namespaced));
    let mut out = g.out;
    match (&cmd.verb, &cmd.format) {
        (Verb::Describe, _) => return Err(KubeError::Usage(
            "kubectl describe prints a layout per kind that only kubectl has; run it with kubectl"
                .into(),
        )),
        (_, Format::Table | Format::Wide) => {
            let mut tables = g.tables;
            if g.kinds.len() > 1 {
                name_rows_by_kind(&mut tables, &g.kinds);
            }
            for tab in &tables {
                if !out.text.is_empty() {
                    out.text.push('\n');
                }
                out.text.push_str(&table_text(tab, cmd.no_headers));
            }
            if tables.iter().all(|t| t.rows.is_empty()) {
                out.text = empty();
            }
            out.table = merge(tables);
        }
        (_, Format::Json) => {
            let doc = render::document(&out.raw, single);
            out.text = match &cmd.jq {
                Some(jq) => super::jq::run(jq, &doc).map_err(KubeError::Usage)?,
                None => format!("{doc:#}\n"),
            }
        }
        // `native_form` hands these to kubectl; a caller that skipped it is told, not answered.
        (_, Format::Yaml) => {
            return Err(KubeError::Usage(
                "-o yaml is printed by kubectl itself (its YAML quoting); run it with kubectl"
                    .into(),
            ))
        }
        (_, Format::Name) => out.text = g.names.iter().map(|n| format!("{n}\n")).collect(),
        (_, Format::CustomColumns(cols)) => {
            let t = sort::custom_columns(&out.raw, cols).map_err(KubeError::Usage)?;
            out.text = match out.raw.is_empty() {
                true => empty(),
                false => table_text(&t, cmd.no_headers),
            };
            out.table = Some(t);
        }
        (_, Format::JsonPath(t)) => {
            out.text = jsonpath::apply(t, &render::document(&out.raw, single))
                .map_err(|e| KubeError::Usage(format!("-o jsonpath: {e}")))?
        }
    }
    Ok(out)
}

/// Several kinds: kubectl names each row `kind.group/name`.
fn name_rows_by_kind(tables: &mut [Table], kinds: &[(String, String)]) {
    for (tab, (kind, group)) in tables.iter_mut().zip(kinds) {
        let at = tab.columns.iter().position(|c| c == "NAME");
        for row in &mut tab.rows {
            if let Some(cell) = at.and_then(|i| row.get_mut(i)) {
                let obj = json!({"metadata": {"name": cell.clone()}});
                *cell = render::name_line(kind, group, &obj);
            }
        }
    }
}

/// What kubectl says (on stderr) when a list is empty.
pub fn no_resources(ns: Option<&str>) -> String {
    match ns {
        Some(n) => format!("No resources found in {n} namespace.\n"),
        None => "No resources found\n".to_string(),
    }
}

/// Plain text of a table, with or without its header line.
pub fn table_text(t: &Table, no_headers: bool) -> String {
    let text = t.render();
    if no_headers {
        text.lines().skip(1).map(|l| format!("{l}\n")).collect()
    } else {
        text
    }
}

/// One table from several (rows appended when the columns agree, else the first).
pub fn merge(mut tables: Vec<Table>) -> Option<Table> {
    let mut first = if tables.is_empty() {
        return None;
    } else {
        tables.remove(0)
    };
    for t in tables {
        if t.columns == first.columns {
            first.rows.extend(t.rows);
        }
    }
    Some(first)
}
