//! The kubectl conventions of the 3 a.m. screens at 80×24 in a real terminal (tmux):
//! `-n/--namespace` and `--kubeconfig` on the navigator are shown beside the context (status
//! line, confirmation screen) and are where probes run (the simulated cluster, the real
//! kubectl); a bad value is refused before the screen is taken; `--context` completes the
//! kubeconfig's contexts when Tab is pressed in bash. Each test waits on the screen's
//! content, never on a fixed sleep. Skips with a SKIP line when tmux or kubectl is missing,
//! unless TSGNAV_REQUIRE_SERVERS=1.

use crate::tui_common::{item_index, Tmux};
use tsgnav::tui::app::Item;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tsgnav")
}

/// Two reads that name no namespace (native, then through the shell and the proxy), then a
/// change that names none either.
const GUIDE: &str = "# Lab pods\n\n## Look here\n\nAction: list the pods where the session points.\n\n```bash\nkubectl get pods\n```\n\n```bash\nkubectl get pods -o name | sort\n```\n\n## Stop the agent\n\n**Goal:** the agent stops recreating work.\n\n**Preconditions:** none.\n\n```bash\nkubectl scale deployment maestro-agent --replicas=0\n```\n";

/// How many Tabs from a step's landing selection to its probe `probe`.
fn tabs(step: &str, probe: usize) -> usize {
    let mut lib = tsgnav::tsg::Library::default();
    lib.guides.push(tsgnav::tsg::parse_guide("lab.md", GUIDE));
    tsgnav::tsg::link_library(&mut lib);
    tsgnav::cli::refine_roles(&mut lib);
    let km = tsgnav::tui::keymap::Keymap::bundled();
    let mut a = tsgnav::tui::App::new(lib, km, tsgnav::tui::theme::Theme::bundled(true));
    tsgnav::tui::navigate::nav_cmd(&mut a, tsgnav::nav::Cmd::Goto(format!("lab.md#{step}")));
    item_index(&a, |i| matches!(i, Item::Probe(p) if *p == probe))
}

fn tab(t: &Tmux, n: usize) {
    for _ in 0..n {
        t.keys(&["Tab"]);
    }
}

#[test]
fn namespace_and_kubeconfig_flags_are_shown_and_reach_the_probes_at_80x24() {
    let test = "namespace_and_kubeconfig_flags_are_shown_and_reach_the_probes_at_80x24";
    if crate::sim_support::kubectl(test).is_none() {
        return;
    }
    let Some(t) = Tmux::start_sized("kubeflags", 80, 24) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt.block_on(crate::sim_support::start("maestro", None));
    let lab = t.dir.join("lab.yaml");
    std::fs::copy(&sim.kubeconfig, &lab).expect("kubeconfig");
    let guide = t.dir.join("lab.md");
    std::fs::write(&guide, GUIDE).expect("guide");
    t.send_line(&format!(
        "KUBECONFIG=/nonexistent {} --no-evidence --kubeconfig '{}' --context mc-eastus-1 -n maestro '{}' --node look-here",
        bin(),
        lab.display(),
        guide.display()
    ));
    t.wait_for("the step", |s| s.contains("Look here"));
    t.wait_for(
        "context, namespace and kubeconfig in the status line",
        |s| s.contains(" READ-ONLY mc-eastus-1 · ns maestro · kubeconfig lab.yaml "),
    );
    let (first, second) = (tabs("look-here", 0), tabs("look-here", 1));
    tab(&t, first);
    t.keys(&["r"]);
    let s = t.wait_for("probe 1's output", |s| s.contains("Probe 1 finished"));
    assert!(
        s.contains("maestro-agent-6c9d8b7f5-hx4tq"),
        "`kubectl get pods` lists the pods of -n maestro:\n{s}"
    );
    tab(&t, second - first);
    t.keys(&["r"]);
    let s = t.wait_for("probe 2's output", |s| s.contains("Probe 2 finished"));
    assert!(
        s.contains("pod/maestro-agent-6c9d8b7f5-hx4tq"),
        "the shell's kubectl, through the proxy's kubeconfig, runs in maestro too:\n{s}"
    );
    // The change: the confirmation names the namespace and the kubeconfig with the context.
    t.keys(&["n"]);
    t.wait_for("the mitigation step", |s| s.contains("Stop the agent"));
    t.write_mode_on();
    tab(&t, tabs("stop-the-agent", 0));
    t.keys(&["r"]);
    let s = t.wait_for("the confirmation screen", |s| {
        s.contains("Mitigation: confirm before it runs")
    });
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Target: context mc-eastus-1, namespace maestro, kubeconfig")
            && flat.contains("lab.yaml"),
        "{s}"
    );
    t.keys(&["Escape"]);
    t.wait_for("the confirmation closed", |s| {
        !s.contains("Mitigation: confirm before it runs")
    });
    t.keys(&["q"]);
    t.restored();
    drop(sim);
    drop(rt);
}

/// The shell printed `MARK=…` (the command's own echo line does not count).
fn exited(s: &str, mark: &str) -> bool {
    s.lines().any(|l| l.starts_with(&format!("{mark}=")))
}

#[test]
fn a_bad_kubeconfig_or_namespace_is_refused_before_the_screen_is_taken() {
    let Some(t) = Tmux::start_sized("kuberefuse", 80, 24) else {
        return;
    };
    t.send_line(&format!(
        "{} --kubeconfig ./kube/prod.yaml; echo A=$?",
        bin()
    ));
    let s = t.wait_for("the refusal", |s| exited(s, "A"));
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("--kubeconfig ./kube/prod.yaml: no such file")
            && flat.contains("drop the flag")
            && s.contains("A=2"),
        "{s}"
    );
    t.send_line(&format!("clear; {} -n Prod_NS; echo B=$?", bin()));
    let s = t.wait_for("the refusal", |s| exited(s, "B"));
    assert!(
        s.contains("--namespace \"Prod_NS\": not a namespace name") && s.contains("B=2"),
        "{s}"
    );
    assert_eq!(t.flag("alternate_on"), "0", "the screen was never taken");
}

#[test]
fn tab_completes_context_names_from_the_kubeconfig_in_bash() {
    let Some(t) = Tmux::start_sized("ctxcomplete", 80, 24) else {
        return;
    };
    let kc = |names: &[&str]| {
        let mut s = String::from("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {}\ncontexts:\n");
        for n in names {
            s.push_str(&format!(
                "- name: {n}\n  context: {{cluster: c, user: u}}\n"
            ));
        }
        s
    };
    std::fs::write(
        t.dir.join("east.yaml"),
        kc(&["mc-eastus-1", "mc-westus3-1"]),
    )
    .unwrap();
    std::fs::write(t.dir.join("lab.yaml"), kc(&["svc-lab-a", "svc-lab-b"])).unwrap();
    // Typed as `tsgnav` from the PATH: the binary's own path may be long enough (a clone in
    // a temporary folder) to wrap the 80-column line and split the name the test looks for.
    let dir = std::path::Path::new(bin())
        .parent()
        .expect("the binary's folder")
        .display()
        .to_string();
    t.send_line(&format!(
        "cd '{}'; export KUBECONFIG=east.yaml PATH='{dir}':\"$PATH\"; source <(tsgnav completions bash); clear",
        t.dir.display(),
    ));
    t.wait_for("the prompt", |s| s.trim_start().starts_with("READY$"));
    t.keys(&["-l", "tsgnav --context mc-w"]);
    t.keys(&["Tab"]);
    t.wait_for("the one match completed", |s| {
        s.contains("--context mc-westus3-1")
    });
    t.keys(&["C-u"]);
    t.keys(&["-l", "tsgnav --kubeconfig lab.yaml --context "]);
    t.keys(&["Tab"]);
    t.wait_for("the common part completed", |s| {
        s.contains("--context svc-lab-")
    });
    // Readline lists on the second Tab that inserts nothing.
    t.keys(&["Tab"]);
    t.keys(&["Tab"]);
    let s = t.wait_for("both contexts of lab.yaml listed", |s| {
        s.contains("svc-lab-a") && s.contains("svc-lab-b")
    });
    assert!(
        !s.contains("east.yaml") && !s.contains("mc-eastus-1"),
        "contexts of the kubeconfig on the line, no file names:\n{s}"
    );
    t.keys(&["C-u"]);
}

#[test]
fn the_config_files_namespace_is_shown_and_a_flag_wins_over_it() {
    let Some(t) = Tmux::start_sized("cfgns", 80, 24) else {
        return;
    };
    let kc = "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: mc-eastus-1\n  context: {cluster: c, user: u}\n";
    std::fs::write(t.dir.join("east.yaml"), kc).expect("kubeconfig");
    let config = format!(
        "[query]\nkubeconfig = \"{}/east.yaml\"\ncontext = \"mc-eastus-1\"\nnamespace = \"maestro\"\n",
        t.dir.display()
    );
    std::fs::write(t.dir.join("config.toml"), config).expect("config");
    let guide = t.dir.join("lab.md");
    std::fs::write(&guide, GUIDE).expect("guide");
    let open = |extra: &str| {
        t.send_line(&format!(
            "{} --no-evidence {extra} '{}' --node look-here",
            bin(),
            guide.display()
        ));
    };
    open("");
    t.wait_for("the config's namespace in the status line", |s| {
        s.contains(" READ-ONLY mc-eastus-1 · ns maestro · kubeconfig east.yaml ")
    });
    t.quit_unexported();
    open("-n kube-system");
    t.wait_for("the flag's namespace in the status line", |s| {
        s.contains(" READ-ONLY mc-eastus-1 · ns kube-system · kubeconfig east.yaml ")
    });
    t.quit_unexported();
    // A bad one in the file is refused at start, as `config check` names it.
    std::fs::write(
        t.dir.join("config.toml"),
        "[query]\nnamespace = \"Lab_NS\"\n",
    )
    .expect("config");
    t.send_line(&format!("clear; {} --no-evidence; echo C=$?", bin()));
    let s = t.wait_for("the refusal", |s| s.lines().any(|l| l.starts_with("C=")));
    assert!(
        s.contains("[query] namespace = \"Lab_NS\": not a namespace name") && s.contains("C=2"),
        "{s}"
    );
}
