//! Unit tests of the shell parser: substitutions, nesting, heredocs and hostile input.

use super::*;

fn w(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

#[test]
fn substitutions_are_parsed_inside() {
    let cmds = commands(r#"echo "$(kubectl get pods | wc -l)" `date`"#);
    let names: Vec<_> = cmds
        .iter()
        .map(|c| (c.words[0].as_str(), c.nested_in.as_deref()))
        .collect();
    assert!(names.contains(&("kubectl", Some("$(…)"))));
    assert!(names.contains(&("wc", Some("$(…)"))));
    assert!(names.contains(&("date", Some("`…`"))));
    assert!(cmds
        .iter()
        .any(|c| c.words == w(&["echo", "$(kubectl get pods | wc -l)", "`date`"])));
    assert!(cmds
        .iter()
        .find(|c| c.words[0] == "wc")
        .is_some_and(|c| c.piped));
}

#[test]
fn for_loop_over_a_substitution() {
    let s = "for mw in $(kubectl get manifestwork -o name); do\n  kubectl patch $mw --type merge -p '{}'\ndone";
    let cmds = commands(s);
    let got: Vec<_> = cmds
        .iter()
        .map(|c| (c.words[..2].to_vec(), c.line))
        .collect();
    assert_eq!(
        got,
        [(w(&["kubectl", "get"]), 1), (w(&["kubectl", "patch"]), 2)]
    );
}

#[test]
fn heredoc_body_is_skipped() {
    let s = "kubectl apply -f - <<EOF\napiVersion: v1\nrm -rf /\nEOF\necho after";
    let cmds = commands(s);
    assert_eq!(cmds.len(), 2);
    assert_eq!(
        cmds[0].redirects[0],
        Redirect {
            op: "<<",
            fd: None,
            target: "EOF".into()
        }
    );
    assert_eq!(
        (cmds[1].words.clone(), cmds[1].line),
        (w(&["echo", "after"]), 5)
    );
}

#[test]
fn unquoted_heredoc_runs_its_substitutions() {
    let cmds = commands("cat <<EOF\nname: $(kubectl delete ns x)\nEOF\ncat <<'END'\n$(rm y)\nEND");
    assert!(cmds
        .iter()
        .any(|c| c.words.starts_with(&w(&["kubectl", "delete"])) && c.line == 2));
    assert!(!cmds
        .iter()
        .any(|c| c.words.first().is_some_and(|x| x == "rm")));
}

#[test]
fn sh_c_is_reparsed() {
    let cmds = commands(r#"bash -ec 'curl -X DELETE http://x && echo done'"#);
    let inner: Vec<_> = cmds
        .iter()
        .filter(|c| c.nested_in.as_deref() == Some("bash -c"))
        .collect();
    assert_eq!(inner.len(), 2);
    assert_eq!(inner[0].words, w(&["curl", "-X", "DELETE", "http://x"]));
}

#[test]
fn kubectl_exec_command_is_its_own_command() {
    let s =
        r#"kubectl exec -n maestro deploy/maestro -- sh -c "curl -s -X DELETE localhost:8000/x""#;
    let cmds = commands(s);
    let ctx: Vec<_> = cmds
        .iter()
        .map(|c| (c.words[0].as_str(), c.nested_in.as_deref()))
        .collect();
    assert_eq!(
        ctx,
        [
            ("kubectl", None),
            ("sh", Some("kubectl exec")),
            ("curl", Some("sh -c"))
        ]
    );
    let oc = commands("oc exec -ti pod -- /bin/bash");
    assert_eq!(
        (oc[1].words.clone(), oc[1].nested_in.as_deref()),
        (w(&["/bin/bash"]), Some("oc exec"))
    );
}

#[test]
fn exec_without_dashes_is_not_split() {
    assert_eq!(commands("kubectl exec pod ls").len(), 1);
}

#[test]
fn process_substitution_and_arithmetic() {
    let cmds = commands("diff <(kubectl get a) <(kubectl get b)\n(( n = 1 + 2 ))\necho $((n*2))");
    assert_eq!(
        cmds.iter()
            .filter(|c| c.nested_in.as_deref() == Some("<(…)"))
            .count(),
        2
    );
    assert!(cmds.iter().all(|c| c.redirects.is_empty()));
    assert!(cmds.iter().any(|c| c.words == w(&["echo", "$((n*2))"])));
}

#[test]
fn unterminated_quotes_are_problems_not_panics() {
    for s in [
        "echo 'abc",
        "echo \"abc",
        "echo $(ls",
        "echo `ls",
        "a \\",
        "x <<EOF\nno end",
        "case x in a) b",
    ] {
        let p = parse(s);
        assert!(!p.commands.is_empty(), "{s}");
        if s.contains(['\'', '"', '(', '`']) {
            assert!(
                matches!(p.problems[0], Problem::Unterminated { line: 1, .. }),
                "{s}"
            );
        }
    }
}

#[test]
fn deep_nesting_is_bounded() {
    let s = format!(
        "{}kubectl delete x{}",
        "echo $(".repeat(10_000),
        ")".repeat(10_000)
    );
    let p = parse(&s);
    assert!(p
        .problems
        .iter()
        .any(|p| matches!(p, Problem::TooDeep { .. })));
    assert!(p.commands.len() < MAX_DEPTH + 1);
    let s = format!("{}x", "sh -c \"".repeat(5_000));
    assert!(!parse(&s).commands.is_empty());
    let s = "`".repeat(20_001) + &"(".repeat(20_000) + &"$(".repeat(20_000) + &"\"".repeat(7);
    let _ = parse(&s);
}

#[test]
fn arbitrary_bytes_never_panic() {
    let alphabet = "ab $(){}[]<>|&;'\"`\\\n#=-é*";
    let chars: Vec<char> = alphabet.chars().collect();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..2_000 {
        let mut s = String::new();
        for _ in 0..40 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.push(chars[(seed % chars.len() as u64) as usize]);
        }
        let p = parse(&s);
        assert!(
            p.commands
                .iter()
                .all(|c| c.line >= 1 && c.line <= s.lines().count() + 1),
            "{s:?}"
        );
    }
}

#[test]
fn watch_of_a_quoted_script_is_reparsed() {
    let cmds = commands("watch -n 5 'kubectl get pods | grep Pending'");
    let inner: Vec<_> = cmds
        .iter()
        .filter(|c| c.nested_in.as_deref() == Some("watch"))
        .map(|c| c.words[0].as_str())
        .collect();
    assert_eq!(inner, ["kubectl", "grep"]);
    assert_eq!(commands("watch kubectl get pods").len(), 1);
}
