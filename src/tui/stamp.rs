//! When each probe output ran and with which values ("ran 03:12:09 with NODE=aks-1"), so
//! that an output whose values changed since is marked stale. Pure: part of `update()`;
//! must not import IO.

use super::app::App;
use crate::tsg::ProbeRef;

/// When a probe's output was asked for, and the values it ran with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ran {
    /// Local time, HH:MM:SS.
    pub at: String,
    pub vars: Vec<(String, String)>,
}

impl Ran {
    /// "ran 03:12:09 with NODE=aks-1 NS=ocm-x".
    pub fn describe(&self) -> String {
        let mut s = format!("ran {}", self.at);
        if !self.vars.is_empty() {
            let list: Vec<String> = self.vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!(" with {}", list.join(" ")));
        }
        s
    }
}

/// What an output's header says about when it ran, and whether a value it ran with has
/// changed since (then it is painted as an error). Whether it is stale is this field, never
/// a word of the text: a value may well be named `STALE-x`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stamp {
    pub text: String,
    pub stale: bool,
}

impl Stamp {
    /// No stamp: the output's run is not known.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

/// "ran 03:12:09 with NODE=aks-1", "STALE: NODE is now aks-2 · ran …", or empty when unknown.
pub fn stamp(app: &App, probe: &ProbeRef) -> Stamp {
    let Some(ran) = app.reading.ran.get(probe) else {
        return Stamp::default();
    };
    let changed = stale(app, ran);
    if changed.is_empty() {
        Stamp {
            text: ran.describe(),
            stale: false,
        }
    } else {
        Stamp {
            text: format!("STALE: {} · {}", changed.join(", "), ran.describe()),
            stale: true,
        }
    }
}

/// "NODE is now aks-2" for each value used that has changed since.
pub fn stale(app: &App, ran: &Ran) -> Vec<String> {
    ran.vars
        .iter()
        .filter_map(|(k, was)| {
            let now = app.nav.vars.get(k).map(|v| v.value.as_str());
            match now {
                Some(now) if now != was => Some(format!("{k} is now {now}")),
                _ => None,
            }
        })
        .collect()
}

/// A probe was submitted with these values: remember when and with what.
pub fn started(app: &mut App, probe: ProbeRef, vars: Vec<(String, String)>) {
    let at = app.reading.now.clone();
    app.reading.ran.insert(probe, Ran { at, vars });
}
