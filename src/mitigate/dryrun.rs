//! Dry runs for the mitigation flow: a shell probe whose every write is a `kubectl` verb that
//! can preview becomes the same script with `--dry-run=server` on each such command (the API
//! server validates and answers, nothing is stored); a `curl` write becomes the request it
//! would send, shown, not sent. Anything else has no dry run, and says why. The rewritten
//! script is classified again and must come out read-only, so a rewrite that missed a write
//! is refused rather than run. Pure; must not import IO, `cli`, `tui` or `nav`.

use crate::safety;
use crate::tsg::{shell, Lang, SafetyClass};

/// What the confirmation screen can offer before the real run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DryRun {
    /// A read-only script to run: the probe with `--dry-run=server` on each write.
    Script(String),
    /// The request a `curl` write would send (method, URL, headers, body), for reading.
    Request(String),
    /// No dry run exists for this probe, and why.
    Unavailable(String),
}

/// `kubectl` verbs that accept `--dry-run=server`.
const PREVIEWABLE: &[&str] = &[
    "scale", "patch", "delete", "drain", "cordon", "uncordon", "annotate", "label", "apply",
    "create", "replace", "set", "taint", "rollout",
];

/// The dry run of a probe of language `lang` with code `code` (before substitution: variables
/// stay environment references, as in the real run).
pub fn dry_run(lang: Lang, code: &str) -> DryRun {
    match lang {
        Lang::Shell => shell_dry_run(code),
        Lang::Http => DryRun::Request(code.trim().to_string()),
        _ => DryRun::Unavailable(format!(
            "{} probes have no dry run",
            format!("{lang:?}").to_lowercase()
        )),
    }
}

/// Logical lines: physical lines joined where one ends in a backslash, as (start, end) line
/// indexes into `lines` (inclusive).
fn logical_lines(lines: &[&str]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, l) in lines.iter().enumerate() {
        if !l.trim_end().ends_with('\\') {
            out.push((start, i));
            start = i + 1;
        }
    }
    if start < lines.len() {
        out.push((start, lines.len() - 1));
    }
    out
}

fn is_write(class: SafetyClass) -> bool {
    class.needs_confirmation() || class == SafetyClass::Interactive
}

fn shell_dry_run(code: &str) -> DryRun {
    if let Some(req) = curl_request(code) {
        return DryRun::Request(req);
    }
    let lines: Vec<&str> = code.lines().collect();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut rewrote = false;
    for (start, end) in logical_lines(&lines) {
        let text = lines[start..=end].join("\n");
        let verdict = safety::classify(&text);
        let Some(hit) = verdict.reasons().find(|h| is_write(h.class)) else {
            continue;
        };
        let cmds = shell::commands(&text);
        let one = match cmds.as_slice() {
            [c] => c,
            _ => {
                return DryRun::Unavailable(format!(
                    "`{}` shares its line with other commands, so tsgnav cannot add \
                     --dry-run=server to it alone",
                    hit.command
                ))
            }
        };
        let verb = one.words.get(1).map(String::as_str).unwrap_or("");
        if one.name().map(shell::basename) != Some("kubectl") || !PREVIEWABLE.contains(&verb) {
            return DryRun::Unavailable(format!("`{}` has no dry run", hit.command));
        }
        out[end] = format!("{} --dry-run=server", out[end].trim_end());
        rewrote = true;
    }
    if !rewrote {
        return DryRun::Unavailable("tsgnav found no write it can preview in this probe".into());
    }
    let script = out.join("\n");
    match safety::classify(&script).class {
        SafetyClass::ReadOnly | SafetyClass::LongRunning => DryRun::Script(script),
        c => DryRun::Unavailable(format!(
            "the dry run would still be {}: tsgnav will not run it",
            c.as_str()
        )),
    }
}

/// The request of a `curl` that writes (`-X POST|PUT|PATCH|DELETE`, or `-d` data), as text.
fn curl_request(code: &str) -> Option<String> {
    let cmds = shell::commands(code);
    let c = cmds
        .iter()
        .find(|c| c.name().map(shell::basename) == Some("curl"))?;
    let mut method = None;
    let mut headers = Vec::new();
    let mut body = None;
    let mut url = None;
    let mut words = c.words.iter().skip(1);
    while let Some(w) = words.next() {
        match w.as_str() {
            "-X" | "--request" => method = words.next().cloned(),
            "-H" | "--header" => headers.extend(words.next().cloned()),
            "-d" | "--data" | "--data-raw" | "--data-binary" | "--json" => {
                body = words.next().cloned()
            }
            w if w.starts_with("-X") && w.len() > 2 => method = Some(w[2..].to_string()),
            w if w.starts_with("http://") || w.starts_with("https://") => url = Some(w.to_string()),
            _ => {}
        }
    }
    let method = method
        .or_else(|| body.as_ref().map(|_| "POST".to_string()))
        .filter(|m| !m.eq_ignore_ascii_case("GET"))?;
    let mut text = format!(
        "{} {}",
        method.to_ascii_uppercase(),
        url.unwrap_or_else(|| "(no URL found)".into())
    );
    for h in headers {
        let shown = match h.split_once(':') {
            Some((k, _)) if k.eq_ignore_ascii_case("authorization") => format!("{k}: (hidden)"),
            _ => h,
        };
        text.push_str(&format!("\n{shown}"));
    }
    if let Some(b) = body {
        text.push_str(&format!("\n\n{b}"));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_writes_get_the_flag_and_the_result_is_read_only() {
        let code = "CNS_POD=$(kubectl get pods -n kube-system -o name)\n\
                    kubectl delete pod -n kube-system \"${CNS_POD}\"\n";
        let DryRun::Script(s) = dry_run(Lang::Shell, code) else {
            panic!("expected a script");
        };
        assert!(s.contains("kubectl delete pod -n kube-system \"${CNS_POD}\" --dry-run=server"));
        assert!(s.starts_with("CNS_POD=$(kubectl get pods -n kube-system -o name)\n"));
        assert_eq!(safety::classify(&s).class, SafetyClass::ReadOnly);
    }

    #[test]
    fn continuation_lines_get_the_flag_at_the_end() {
        let code = "kubectl scale deployment maestro-agent \\\n  -n maestro --replicas=0";
        assert_eq!(
            dry_run(Lang::Shell, code),
            DryRun::Script(
                "kubectl scale deployment maestro-agent \\\n  -n maestro --replicas=0 \
                 --dry-run=server"
                    .into()
            )
        );
    }

    #[test]
    fn loops_over_writes_preview_each_write() {
        let code = "for mw in $(kubectl get manifestwork -o name); do\n  kubectl patch \"${mw}\" \
                    --type=merge -p '{\"metadata\":{\"finalizers\":null}}'\n  kubectl delete \
                    \"${mw}\" --wait=false\ndone";
        let DryRun::Script(s) = dry_run(Lang::Shell, code) else {
            panic!("expected a script: {:?}", dry_run(Lang::Shell, code));
        };
        assert_eq!(s.matches("--dry-run=server").count(), 2, "{s}");
    }

    #[test]
    fn writes_without_a_dry_run_say_so() {
        let az =
            "az vmss delete-instances -g rg --name vmss --instance-ids 3\nkubectl delete node n";
        assert!(
            matches!(dry_run(Lang::Shell, az), DryRun::Unavailable(w) if w.contains("az vmss"))
        );
        let piped = "kubectl delete pod x | tee out";
        assert!(
            matches!(dry_run(Lang::Shell, piped), DryRun::Unavailable(w) if w.contains("shares its line"))
        );
        let commented = "kubectl delete pod x # go";
        assert!(matches!(
            dry_run(Lang::Shell, commented),
            DryRun::Unavailable(_)
        ));
    }

    #[test]
    fn a_curl_write_shows_its_request_with_the_token_hidden() {
        let code = "curl -s -X DELETE -H 'Authorization: Bearer abc' \
                    http://localhost:8001/api/maestro/v1/resource-bundles/1";
        let DryRun::Request(r) = dry_run(Lang::Shell, code) else {
            panic!("expected a request");
        };
        assert!(r.starts_with("DELETE http://localhost:8001/api/maestro/v1/resource-bundles/1"));
        assert!(
            r.contains("Authorization: (hidden)") && !r.contains("abc"),
            "{r}"
        );
        let post = "curl -d '{\"a\":1}' https://x/y";
        assert!(
            matches!(dry_run(Lang::Shell, post), DryRun::Request(r) if r.starts_with("POST https://x/y") && r.ends_with("{\"a\":1}"))
        );
    }
}
