//! `--context` completes the kubeconfig's contexts: the scripts `tsgnav completions bash|zsh|fish`
//! print are run in those shells. The kubeconfig is read as the navigator reads it: a
//! `--kubeconfig` typed earlier on the line, else the config file's, else `KUBECONFIG` (a list
//! is merged). Bash and fish complete for real (`COMP_WORDS` and `complete -C`); zsh runs the
//! completer function with `compadd`/`_wanted` stubbed to print, since zsh's completion
//! system needs a terminal. Skips a shell that is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use std::path::{Path, PathBuf};
use std::process::Command;

fn kubeconfig(names: &[&str]) -> String {
    let mut s = String::from("apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: me\n  user: {}\ncontexts:\n");
    for n in names {
        s.push_str(&format!(
            "- name: {n}\n  context: {{cluster: lab, user: me}}\n"
        ));
    }
    s
}

/// Two kubeconfigs (`east.yaml`, `lab.yaml`) and an empty config file.
fn fixtures() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(
        d.join("east.yaml"),
        kubeconfig(&["mc-eastus-1", "mc-westus3-1"]),
    )
    .unwrap();
    std::fs::write(d.join("lab.yaml"), kubeconfig(&["svc-lab-a", "svc-lab-b"])).unwrap();
    std::fs::write(d.join("config.toml"), "").unwrap();
    dir
}

fn shell(name: &str, test: &str) -> Option<PathBuf> {
    crate::servers::find_or_skip(name, &[], test)
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tsgnav")
}

/// Runs `script` in `sh` with the fixtures' environment; stdout.
fn run(sh: &Path, args: &[&str], script: &str, d: &Path, config: &str) -> String {
    std::fs::write(d.join("config.toml"), config).unwrap();
    let path = format!(
        "{}:{}",
        Path::new(bin()).parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new(sh)
        .args(args)
        .arg(script)
        .current_dir(d)
        .env("PATH", path)
        .env("HOME", d)
        .env("TSGNAV_CONFIG", d.join("config.toml"))
        .env(
            "KUBECONFIG",
            std::env::join_paths([d.join("east.yaml"), d.join("lab.yaml")]).unwrap(),
        )
        .output()
        .expect("the shell runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{script}\n{err}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// One bash completion: the words so far (the last is the one being completed).
fn bash_case(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let n = words.len() - 1;
    format!(
        "COMP_WORDS=({}); COMP_CWORD={n}; COMPREPLY=(); _tsgnav_kube_contexts tsgnav '{}' '{}'; echo \"[${{COMPREPLY[*]}}]\"",
        quoted.join(" "),
        words[n],
        words[n - 1]
    )
}

#[test]
fn bash_completes_context_values_from_the_kubeconfig() {
    let Some(bash) = shell("bash", "bash_completes_context_values_from_the_kubeconfig") else {
        return;
    };
    let fx = fixtures();
    let d = fx.path();
    let cases = [
        bash_case(&["tsgnav", "--context", ""]),
        bash_case(&["tsgnav", "--kubeconfig", "lab.yaml", "--context", "svc"]),
        bash_case(&["tsgnav", "run", "g.md#s", "--confirm-target", "=", "mc-w"]),
        bash_case(&["tsgnav", "-n", "kube-system", "--context", "="]),
        bash_case(&["tsgnav", "--al"]),
        "complete -p tsgnav".to_string(),
    ];
    let script = format!("source <(tsgnav completions bash)\n{}", cases.join("\n"));
    let out = run(&bash, &["--norc", "--noprofile", "-c"], &script, d, "");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0], "[mc-eastus-1 mc-westus3-1 svc-lab-a svc-lab-b]",
        "KUBECONFIG's two files, merged:\n{out}"
    );
    assert_eq!(
        lines[1], "[svc-lab-a svc-lab-b]",
        "--kubeconfig typed earlier:\n{out}"
    );
    assert_eq!(
        lines[2], "[mc-westus3-1]",
        "run --confirm-target=, a prefix:\n{out}"
    );
    assert_eq!(
        lines[3], "[mc-eastus-1 mc-westus3-1 svc-lab-a svc-lab-b]",
        "--context= with nothing typed yet:\n{out}"
    );
    assert!(
        lines[4].contains("--alert") && lines[4].contains("--alert-payload"),
        "other words complete as clap's script does:\n{out}"
    );
    assert!(lines[5].contains("-F _tsgnav_kube_contexts"), "{out}");
    // The config file's kubeconfig comes before KUBECONFIG, as for the navigator.
    let script = format!(
        "source <(tsgnav completions bash)\n{}",
        bash_case(&["tsgnav", "--context", ""])
    );
    let config = "[query]\nkubeconfig = \"~/lab.yaml\"\n";
    let out = run(&bash, &["--norc", "--noprofile", "-c"], &script, d, config);
    assert_eq!(out.trim(), "[svc-lab-a svc-lab-b]", "{out}");
}

#[test]
fn fish_completes_context_values_from_the_kubeconfig() {
    let Some(fish) = shell("fish", "fish_completes_context_values_from_the_kubeconfig") else {
        return;
    };
    let fx = fixtures();
    let script = "tsgnav completions fish | source\n\
                  complete -C 'tsgnav --context '\necho ---\n\
                  complete -C 'tsgnav --kubeconfig lab.yaml --context svc-lab-'\necho ---\n\
                  complete -C 'tsgnav run g.md#s --context mc-e'";
    let out = run(&fish, &["--no-config", "-c"], script, fx.path(), "");
    let parts: Vec<Vec<&str>> = out
        .split("---\n")
        .map(|p| {
            p.lines()
                .map(|l| l.split('\t').next().unwrap_or(l))
                .collect()
        })
        .collect();
    assert_eq!(
        parts[0],
        ["mc-eastus-1", "mc-westus3-1", "svc-lab-a", "svc-lab-b"],
        "only contexts, no file names:\n{out}"
    );
    assert_eq!(parts[1], ["svc-lab-a", "svc-lab-b"], "{out}");
    assert_eq!(parts[2], ["mc-eastus-1"], "{out}");
}

#[test]
fn zsh_context_specs_call_the_completer_and_it_lists_the_contexts() {
    let Some(zsh) = shell(
        "zsh",
        "zsh_context_specs_call_the_completer_and_it_lists_the_contexts",
    ) else {
        return;
    };
    let fx = fixtures();
    let d = fx.path();
    let o = Command::new(bin())
        .args(["completions", "zsh"])
        .output()
        .expect("completions");
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let specs: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("'--context=[") || l.starts_with("'--confirm-target=["))
        .collect();
    assert_eq!(
        specs.len(),
        3,
        "the navigator's and run's --context, run's --confirm-target"
    );
    assert!(
        specs
            .iter()
            .all(|l| l.ends_with(":_tsgnav_kube_contexts' \\")),
        "{specs:?}"
    );
    std::fs::write(d.join("_tsgnav"), &text).unwrap();
    // Stubs for what needs zsh's completion system (a terminal): they print what is offered.
    let script = "compdef() { :; }\n_wanted() { shift 3; \"$@\"; }\n\
                  compadd() { [[ $1 == -a ]] && print -l -- ${(P)2}; }\n\
                  source ./_tsgnav\n\
                  words=(tsgnav --context ''); CURRENT=3; _tsgnav_kube_contexts; echo SPLIT\n\
                  words=(tsgnav --kubeconfig ~/lab.yaml --context ''); CURRENT=5; _tsgnav_kube_contexts";
    let out = run(&zsh, &["-f", "-c"], script, d, "");
    let (all, lab) = out.split_once("SPLIT\n").expect("two answers");
    assert_eq!(
        all.lines().collect::<Vec<_>>(),
        ["mc-eastus-1", "mc-westus3-1", "svc-lab-a", "svc-lab-b"],
        "{out}"
    );
    assert_eq!(
        lab.lines().collect::<Vec<_>>(),
        ["svc-lab-a", "svc-lab-b"],
        "{out}"
    );
}
