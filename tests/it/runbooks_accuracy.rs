//! Accuracy over the runbook fixtures: what `tree --json` infers (roles, which lines are
//! commands and which are output, safety classes, variables, where commands run, routes)
//! against the answers written by hand in `tests/fixtures/runbooks/expected.json`. Prints
//! the scores and fails when one drops below its floor.

use serde_json::Value;

use crate::runbooks_transcripts::{probes, tree};

/// One category's score: how many checks hit, of how many, and what missed (the reading
/// fixtures score theirs the same way).
pub struct Score {
    pub name: &'static str,
    pub hit: usize,
    pub total: usize,
    pub misses: Vec<String>,
}

impl Score {
    pub fn new(name: &'static str) -> Self {
        Score {
            name,
            hit: 0,
            total: 0,
            misses: Vec::new(),
        }
    }
    pub fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.total += 1;
        if ok {
            self.hit += 1;
        } else {
            self.misses.push(what());
        }
    }
    pub fn ratio(&self) -> f64 {
        self.hit as f64 / self.total.max(1) as f64
    }
}

#[test]
fn accuracy_on_the_runbook_fixtures() {
    let path = crate::common::root().join("tests/fixtures/runbooks/expected.json");
    let want: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("expected.json")).expect("json");
    let t = tree();
    let mut roles = Score::new("roles");
    let nodes: Vec<&Value> = t["guides"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["nodes"].as_array().into_iter().flatten())
        .collect();
    for (id, role) in want["roles"].as_object().expect("roles") {
        let got = nodes
            .iter()
            .find(|n| &n["id"] == id)
            .map(|n| n["role"].clone());
        roles.check(got.as_ref() == Some(role), || {
            format!("{id}: {got:?}, want {role}")
        });
    }
    let mut split = Score::new("probes vs output");
    let (mut safety, mut vars, mut runs_in) = (
        Score::new("safety"),
        Score::new("variables"),
        Score::new("runs_in"),
    );
    for (node, list) in want["probes"].as_object().expect("probes") {
        let got = probes(&t, node);
        for w in list.as_array().expect("list") {
            let code = w["code"].as_str().unwrap_or("");
            let p = got
                .iter()
                .find(|p| p["code"].as_str().map(str::trim) == Some(code));
            let output = p.map(|p| !p["expected_output"].as_str().unwrap_or("").is_empty());
            split.check(output == w["output"].as_bool(), || {
                format!("{node}: `{code}`: {output:?}")
            });
            let Some(p) = p else { continue };
            safety.check(p["safety"] == w["safety"], || {
                format!("{node}: `{code}`: {}, want {}", p["safety"], w["safety"])
            });
            vars.check(p["vars"] == w["vars"], || {
                format!("{node}: `{code}`: {}, want {}", p["vars"], w["vars"])
            });
            let kind = p["runs_in"]["kind"].clone();
            runs_in.check(kind == w["runs_in"], || {
                format!("{node}: `{code}`: {kind}, want {}", w["runs_in"])
            });
        }
    }
    let mut routes = Score::new("routes");
    let all: Vec<&Value> = t["guides"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["routes"].as_array().into_iter().flatten())
        .collect();
    for (alert, to) in want["routes"].as_object().expect("routes") {
        let ok = all.iter().any(|r| &r["alert"] == alert && &r["to"] == to);
        routes.check(ok, || format!("{alert} → {to}"));
    }
    let floors = [
        (&roles, 0.95),
        (&split, 0.95),
        (&safety, 0.9),
        (&vars, 0.95),
        (&runs_in, 0.95),
        (&routes, 1.0),
    ];
    for (s, _) in &floors {
        eprintln!(
            "accuracy {}: {}/{} = {:.1}% misses: {:?}",
            s.name,
            s.hit,
            s.total,
            100.0 * s.ratio(),
            s.misses
        );
    }
    for (s, floor) in &floors {
        assert!(
            s.ratio() >= *floor,
            "{} below {floor}: {:?}",
            s.name,
            s.misses
        );
    }
}
