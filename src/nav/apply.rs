//! `apply`: the navigator's transition function. Pure; imports only `crate::tsg` and the
//! types of `crate::nav`.

use std::collections::BTreeMap;

use super::index::{checklist, choices, next_in_document};
use super::{AlertContext, Cmd, Effect, Event, NavState, Status, Var, VarSource};
use crate::tsg::{Library, ProbeRef};

/// Applies `cmd` to `state` and returns what the runtime must do.
pub fn apply(state: &mut NavState, lib: &Library, cmd: Cmd) -> Vec<Effect> {
    match cmd {
        Cmd::Goto(id) => goto(state, lib, &id),
        Cmd::Follow(i) => {
            let Some(cur) = state.current.clone() else {
                return notice("Open a guide first.");
            };
            let list = choices(lib, &state.index, &cur);
            match list.get(i) {
                Some(c) if c.resolved => goto(state, lib, &c.to.clone()),
                Some(c) if crate::tsg::is_external(&c.to) => {
                    notice(&format!("{} is a web page; open it in a browser.", c.to))
                }
                Some(c) => notice(&format!(
                    "`{}` is not a heading of any loaded guide; check the link.",
                    c.to
                )),
                None => notice(&format!(
                    "This step has {} choice(s); there is no choice {}.",
                    list.len(),
                    i + 1
                )),
            }
        }
        Cmd::Next => {
            let Some(cur) = state.current.clone() else {
                return notice("Open a guide first.");
            };
            match next_in_document(lib, &state.index, &cur) {
                Some(n) => goto(state, lib, &n.id.clone()),
                None => notice("This is the last step of the guide."),
            }
        }
        Cmd::Back => match state.trail.pop() {
            Some(prev) => {
                state.current = Some(prev.clone());
                vec![Effect::Record(Event::NodeEntered { node: prev })]
            }
            None => notice("Nothing to go back to: this is where the session started."),
        },
        Cmd::Tick(i) => tick(state, lib, i),
        Cmd::MarkDone => set_status(state, Status::Done),
        Cmd::MarkSkipped => set_status(state, Status::Skipped),
        Cmd::Alert(ctx) => alert(state, lib, ctx),
        Cmd::SetVar {
            name,
            value,
            source,
        } => {
            let ev = Event::VarSet {
                name: name.clone(),
                value: value.clone(),
                source: source.clone(),
            };
            state.vars.insert(name, Var { value, source });
            vec![Effect::Record(ev)]
        }
        Cmd::RunProbe { probe, class } => run_probe(state, lib, probe, class),
        Cmd::Export => vec![Effect::Export],
    }
}

fn notice(s: &str) -> Vec<Effect> {
    vec![Effect::Notice(s.to_string())]
}

fn goto(state: &mut NavState, lib: &Library, id: &str) -> Vec<Effect> {
    if state.index.node(lib, id).is_none() {
        return notice(&format!(
            "No step `{id}` in the loaded guides; `:goto` takes a heading slug or path#slug."
        ));
    }
    if state.current.as_deref() == Some(id) {
        return Vec::new();
    }
    if let Some(cur) = state.current.take() {
        state.trail.push(cur);
    }
    state.current = Some(id.to_string());
    let st = state.status.entry(id.to_string()).or_default();
    if *st == Status::Unvisited {
        *st = Status::Visited;
    }
    vec![Effect::Record(Event::NodeEntered {
        node: id.to_string(),
    })]
}

fn tick(state: &mut NavState, lib: &Library, i: usize) -> Vec<Effect> {
    let Some(cur) = state.current.clone() else {
        return notice("Open a guide first.");
    };
    let Some(node) = state.index.node(lib, &cur) else {
        return Vec::new();
    };
    let items = checklist(node);
    let Some(text) = items.get(i) else {
        return notice("This step has no checklist item there.");
    };
    let key = (cur.clone(), i);
    let checked = !state.ticks.remove(&key);
    if checked {
        state.ticks.insert(key);
    }
    vec![Effect::Record(Event::ChecklistToggled {
        node: cur,
        item: i,
        text: text.clone(),
        checked,
    })]
}

fn set_status(state: &mut NavState, status: Status) -> Vec<Effect> {
    let Some(cur) = state.current.clone() else {
        return notice("Open a guide first.");
    };
    state.status.insert(cur.clone(), status);
    vec![Effect::Record(Event::StatusSet { node: cur, status })]
}

fn alert(state: &mut NavState, lib: &Library, mut ctx: AlertContext) -> Vec<Effect> {
    let mut effects = vec![Effect::Record(Event::AlertReceived {
        name: ctx.name.clone(),
        labels: ctx.labels.clone(),
    })];
    for (label, value) in &ctx.labels {
        for g in &lib.guides {
            for var in super::guide_vars(g) {
                if super::var_for_label(label, &var) && !state.vars.contains_key(&var) {
                    let source = VarSource::AlertLabel(label.clone());
                    effects.extend(apply(
                        state,
                        lib,
                        Cmd::SetVar {
                            name: var,
                            value: value.clone(),
                            source,
                        },
                    ));
                }
            }
        }
    }
    ctx.target =
        super::alert::route_alert(lib, &ctx.name, ctx.runbook_url.as_deref()).map(|r| r.to);
    let target = ctx.target.clone();
    let name = ctx.name.clone();
    state.alert = Some(ctx);
    match target {
        Some(to) => effects.extend(goto(state, lib, &to)),
        None => effects.push(Effect::Notice(format!(
            "No loaded guide routes alert `{name}`; pick a guide from the library or add a triage row for it."
        ))),
    }
    effects
}

fn run_probe(
    state: &mut NavState,
    lib: &Library,
    i: usize,
    class: crate::tsg::SafetyClass,
) -> Vec<Effect> {
    let Some(cur) = state.current.clone() else {
        return notice("Open a guide first.");
    };
    let Some(probe) = state.index.node(lib, &cur).and_then(|n| n.probes.get(i)) else {
        return notice("This step has no probe there.");
    };
    if probe.lang == crate::tsg::Lang::Text {
        return notice("This block is shown, never run.");
    }
    let mut bindings = BTreeMap::new();
    for v in probe.vars.iter().filter(|v| !probe.assigns.contains(v)) {
        match state.vars.get(v) {
            Some(var) => {
                bindings.insert(v.clone(), var.value.clone());
            }
            None => {
                return vec![Effect::NeedVar {
                    probe: ProbeRef::new(cur, i),
                    var: v.clone(),
                }]
            }
        }
    }
    if class != crate::tsg::SafetyClass::ReadOnly {
        return vec![Effect::NeedsMitigationFlow {
            probe: ProbeRef::new(cur, i),
            class,
            bindings,
        }];
    }
    vec![Effect::RunProbe {
        probe: ProbeRef::new(cur, i),
        bindings,
    }]
}
