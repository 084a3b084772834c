//! After-state checks: where a guide follows a mutation with a status command (`rollout
//! status`, `wait`, a re-query), that probe is offered next. The rule is the guide's order:
//! the probe right after the mutation in the same step, when it reads only (or waits) and
//! looks at the state (`kubectl get|describe|wait|rollout status`, a PromQL or KQL query).
//! Pure; must not import IO, `cli`, `tui` or `nav`.

use crate::tsg::{shell, Lang, Node, SafetyClass};

/// The probe to offer after probe `probe` of `node` ran, given each probe's class.
pub fn after_check(node: &Node, probe: usize, classes: &[SafetyClass]) -> Option<usize> {
    let next = (probe + 1..node.probes.len()).find(|&j| node.probes[j].lang != Lang::Text)?;
    let class = classes.get(next).copied().unwrap_or(SafetyClass::Unknown);
    if class.needs_confirmation() || class == SafetyClass::Interactive {
        return None;
    }
    let p = &node.probes[next];
    let status = match p.lang {
        Lang::Promql | Lang::Kql => true,
        Lang::Shell => shell::commands(&p.code).iter().any(|c| {
            let verb: Vec<&str> = c.words.iter().skip(1).take(2).map(String::as_str).collect();
            c.name().map(shell::basename) == Some("kubectl")
                && matches!(
                    verb.as_slice(),
                    ["get", ..] | ["describe", ..] | ["wait", ..] | ["rollout", "status"]
                )
        }),
        _ => false,
    };
    status.then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsg::parse_guide;

    fn node(md: &str) -> (Node, Vec<SafetyClass>) {
        let g = parse_guide("t.md", md);
        let n = g.nodes.into_iter().last().expect("a node");
        let c = n.probes.iter().map(crate::safety::classify_probe).collect();
        (n, c)
    }

    #[test]
    fn a_rollout_status_after_a_restart_is_offered() {
        let (n, c) = node(
            "# S\n\n```bash\nkubectl rollout restart deployment a -n b\n```\n\n```bash\n\
             kubectl rollout status deployment a -n b --timeout=5m\n```\n",
        );
        assert_eq!(after_check(&n, 0, &c), Some(1));
    }

    #[test]
    fn nothing_is_offered_when_the_next_probe_writes_or_is_not_a_status_read() {
        let (n, c) = node(
            "# S\n\n```bash\nkubectl cordon n1\n```\n\n```bash\nkubectl drain n1\n```\n\n\
             ```bash\necho done\n```\n",
        );
        assert_eq!(after_check(&n, 0, &c), None, "the next probe writes");
        assert_eq!(after_check(&n, 1, &c), None, "echo is no status read");
        assert_eq!(after_check(&n, 2, &c), None, "no probe after the last");
    }
}
