//! A wave plan ready to show or run, the same for `tsgnav run --waves` and the navigator's
//! `:waves`: the contexts of the kubeconfig matching the glob, split into waves (the canary
//! first, `[[policy]]` `max_wave` applied), the concurrency, the step's probes that make the
//! change, and the validation probes that gate each wave: the step's fences marked `{gate}`,
//! else the probes of its validation sub-steps. Part of the runtime (it reads the
//! kubeconfig); must not import `cli`.

use crate::mitigate::waves::{self as plan, Policy, WaveError, WaveSpec};
use crate::tsg::{Library, Node, Probe, Role};

/// A wave plan ready to show or run.
#[derive(Debug, Clone)]
pub struct Plan {
    pub glob: String,
    pub waves: Vec<Vec<String>>,
    pub parallel: usize,
    /// The probes of the step that change something (every probe but the gates).
    pub change: Vec<Probe>,
    /// The validation probes run on each context after its change.
    pub gates: Vec<Probe>,
    /// Where the gates come from, for the plan screen.
    pub gates_from: String,
    pub policies: Vec<Policy>,
    /// What the operator types back to confirm (`GLOB · N contexts`, then policy phrases).
    pub phrase: String,
    /// Contexts matching the glob that an earlier run of the step left done (validated or
    /// restored): not in any wave, never changed again by this run.
    pub earlier: Vec<(String, crate::mitigate::waves::State)>,
    /// Contexts of the waves whose wave was under way when the earlier run stopped without
    /// its end journaled (a crash): their change may have been made without its record.
    pub interrupted: Vec<String>,
    /// The prior state an earlier run of the step journaled before its first change of
    /// each of these contexts (the waves' and the done ones): not captured again, and what
    /// a restore brings back.
    pub captured: Vec<(String, Vec<crate::evidence::PriorState>)>,
}

impl Plan {
    pub fn count(&self) -> usize {
        self.waves.iter().map(Vec::len).sum()
    }

    /// What an earlier run captured of `context` before its first change, if anything.
    pub fn captured_before(&self, context: &str) -> Option<&[crate::evidence::PriorState]> {
        (self.captured.iter())
            .find(|(c, _)| c == context)
            .map(|(_, p)| p.as_slice())
    }

    /// `deployment/x -n ns spec.replicas=3` for each context an earlier run captured.
    pub fn captured_lines(&self) -> Vec<(String, String)> {
        (self.captured.iter())
            .map(|(c, p)| {
                let each: Vec<String> = (p.iter())
                    .map(|p| format!("{} {}={}", p.resource, p.field, p.value))
                    .collect();
                (c.clone(), each.join("; "))
            })
            .collect()
    }
}

/// What a plan is built from.
pub struct Ask<'a> {
    pub lib: &'a Library,
    pub node: &'a Node,
    /// How the step is named in messages (`FILE#slug`).
    pub name: &'a str,
    pub glob: &'a str,
    pub spec: &'a WaveSpec,
    pub parallel: usize,
    /// The matching contexts still to run, in order (the first is the canary).
    pub contexts: Vec<String>,
    pub policies: &'a [Policy],
}

/// The gates of `node`: its fences marked `{gate}`, else the probes of its validation
/// sub-steps; with the probes that remain to make the change.
pub fn gates(lib: &Library, node: &Node) -> (Vec<Probe>, Vec<Probe>, String) {
    let runnable = |p: &&Probe| p.lang != crate::tsg::Lang::Text;
    let (marked, change): (Vec<Probe>, Vec<Probe>) = node
        .probes
        .iter()
        .filter(runnable)
        .cloned()
        .partition(|p| p.attrs.contains_key("gate"));
    if !marked.is_empty() {
        return (
            change,
            marked,
            format!("the {{gate}} fences of {}", node.id),
        );
    }
    let subs: Vec<&Node> = lib
        .guides
        .iter()
        .flat_map(|g| &g.nodes)
        .filter(|n| n.parent.as_deref() == Some(node.id.as_str()) && n.role == Role::Validation)
        .collect();
    let from = subs
        .iter()
        .map(|n| n.title.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let gates = subs
        .iter()
        .flat_map(|n| n.probes.iter().filter(runnable).cloned())
        .collect();
    (change, gates, format!("its validation step {from}"))
}

/// The contexts of `kubeconfig` matching `glob`, in the kubeconfig's order.
pub fn contexts(kubeconfig: Option<std::path::PathBuf>, glob: &str) -> Result<Vec<String>, String> {
    let kubeconfig = crate::query::kube::default_kubeconfig(kubeconfig).ok_or_else(|| {
        "no kubeconfig to list contexts from: pass --kubeconfig or set KUBECONFIG".to_string()
    })?;
    let found = crate::query::kube::fanout::matching_contexts(&kubeconfig, glob)
        .map_err(|e| format!("{}: {e}", kubeconfig.display()))?;
    if found.is_empty() {
        return Err(WaveError::NoContexts(glob.to_string()).to_string());
    }
    Ok(found)
}

/// Builds the plan, or says what is missing (a read-only policy, no gate, no change).
pub fn build(ask: Ask<'_>) -> Result<Plan, String> {
    let applied = plan::apply(ask.policies, &ask.contexts, true).map_err(|e| e.to_string())?;
    let (change, gates, gates_from) = gates(ask.lib, ask.node);
    if gates.is_empty() {
        return Err(format!(
            "{} has nothing to gate its waves on: add a `### Validation` sub-step with a \
             read-only probe, or mark a fence of the step `{{gate}}` (see README: Waves)",
            ask.name
        ));
    }
    if change.is_empty() {
        return Err(format!(
            "{} has no probe to run in waves besides its gates",
            ask.name
        ));
    }
    let phrase = plan::phrase(ask.glob, ask.contexts.len(), &applied.phrases);
    Ok(Plan {
        waves: plan::plan(&ask.contexts, ask.spec, applied.max_wave),
        glob: ask.glob.to_string(),
        parallel: ask.parallel.max(1),
        change,
        gates,
        gates_from,
        policies: applied.policies.into_iter().cloned().collect(),
        phrase,
        earlier: Vec::new(),
        interrupted: Vec::new(),
        captured: Vec::new(),
    })
}

/// One gate as the plan shows it: `name: first line · soak 5m, abort if …`.
pub fn gate_line(g: &Probe) -> String {
    let name = g
        .attrs
        .get("name")
        .cloned()
        .unwrap_or_else(|| format!("line {}", g.line));
    let soak = match (g.attrs.get("soak"), g.attrs.get("abort_if")) {
        (Some(d), Some(q)) => format!(" · soak {d}, abort if {q}"),
        (Some(d), None) => format!(" · soak {d}"),
        _ => String::new(),
    };
    format!("{name}: {}{soak}", g.code.lines().next().unwrap_or(""))
}
