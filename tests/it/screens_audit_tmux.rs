//! The 3 a.m. screens at 80×24 in a real terminal (tmux), for the parts of the issue the other
//! screen tests reach another way: the pager with no kubeconfig (the last line, which says
//! why the probe had no proxy, is reached with `G` and counted in the footer), `config check`
//! naming a URL that is no URL and a kubeconfig that does not exist, and `:ctx GLOB` running
//! the selected probe once per matching context. Each test waits on the screen's content,
//! never on a fixed sleep. Skips with a SKIP line when tmux is missing, unless
//! TSGNAV_REQUIRE_SERVERS=1.

use crate::tui_common::Tmux;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tsgnav")
}

/// The shell's text with rows cut at the 80th column joined to the next (as printed).
fn unwrapped(s: &str) -> String {
    let mut out = String::new();
    for l in s.lines() {
        out.push_str(l);
        if l.chars().count() < 80 {
            out.push('\n');
        }
    }
    out
}

/// The pager's numbered lines, each with its wrapped rows (`  │…`) joined back.
fn pager_lines(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in s.lines() {
        let Some((gutter, text)) = l.split_once('│') else {
            continue;
        };
        match (gutter.trim().parse::<usize>(), out.last_mut()) {
            (Err(_), Some(last)) if gutter.trim().is_empty() => last.push_str(text),
            _ => out.push(text.to_string()),
        }
    }
    out
}

#[test]
fn with_no_kubeconfig_the_pager_reaches_the_line_that_says_why() {
    let Some(t) = Tmux::start_sized("nokube", 80, 24) else {
        return;
    };
    let guide = t.dir.join("wide.md");
    std::fs::write(
        &guide,
        "# Wide\n\n## Look wide\n\nAction: list every pod, wide.\n\n```bash\nkubectl get pods -A -o wide | cat\n```\n",
    )
    .expect("guide");
    t.send_line(&format!(
        "KUBECONFIG='{}/absent/kube' {} --no-evidence '{}' --node look-wide",
        t.dir.display(),
        bin(),
        guide.display()
    ));
    t.wait_for("the step", |s| s.contains("▶ run probe 1"));
    t.keys(&["Tab", "r"]);
    t.wait_for("the probe's end", |s| {
        s.contains("Probe 1 failed") || s.contains("Probe 1 finished")
    });
    t.keys(&["o"]);
    let s = t.wait_for("the pager", |s| {
        s.contains("Output · probe 1") && s.contains(" wrap on")
    });
    let footer = |s: &str| {
        s.lines()
            .find(|l| l.contains(" wrap o"))
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_string)
            .unwrap_or_default()
    };
    let range = footer(&s);
    let total = range.rsplit('/').next().unwrap_or("").to_string();
    assert!(!total.is_empty(), "{s}");
    t.keys(&["G"]);
    let s = t.wait_for("the last line", |s| {
        footer(s).ends_with(&format!("-{total}/{total}"))
    });
    // A space where a row wraps is not drawn: compare without spaces.
    let bare = |t: &str| t.split_whitespace().collect::<String>();
    let last = bare(&pager_lines(&s).pop().unwrap_or_default());
    assert!(
        last.starts_with(&bare(
            "tsgnav proxy: this probe ran without the read-only API proxy: the kubeconfig"
        )) && last.ends_with(&bare("absent/kube does not exist")),
        "the reason is on screen whole, wrapped, without pressing w: {last:?}\n{s}"
    );
    t.keys(&["q"]);
    t.wait_for("the pager closed", |s| !s.contains("Output · probe 1"));
    t.quit_unexported();
    t.restored();
}

#[test]
fn config_check_names_a_bad_url_and_a_missing_kubeconfig_with_their_lines() {
    let Some(t) = Tmux::start_sized("cfgcheck", 80, 24) else {
        return;
    };
    let cfg = t.dir.join("check.toml");
    std::fs::write(
        &cfg,
        "[query]\nprometheus_url = \"not a url\"\nkubeconfig = \"~/nokube\"\n",
    )
    .expect("config");
    t.send_line(&format!(
        "HOME='{}' {} config check '{}'; echo EXIT=$?",
        t.dir.display(),
        bin(),
        cfg.display()
    ));
    let s = t.wait_for("the report", |s| s.lines().any(|l| l.starts_with("EXIT=")));
    let f = unwrapped(&s);
    assert!(
        f.contains("check.toml:2: `prometheus_url = \"not a url\"` is not an http(s) URL")
            && f.contains("check.toml:3: `kubeconfig = \"~/nokube\"`")
            && f.contains("nokube does not exist; fix the path")
            && s.contains("EXIT=1"),
        "{s}"
    );
}

#[test]
fn ctx_runs_the_selected_probe_in_every_matching_context() {
    let Some(t) = Tmux::start_sized("ctxrun", 80, 24) else {
        return;
    };
    t.send_line(&format!("{} demo --no-evidence", bin()));
    t.wait_for("the landing step", |s| s.contains("▶ run probe 1"));
    // The landing step's five decisions come before its first probe.
    for _ in 0..5 {
        t.keys(&["Tab"]);
    }
    t.keys(&[":"]);
    t.keys(&["-l", "ctx mc-*"]);
    t.keys(&["Enter"]);
    let s = t.wait_for("the fanned-out table", |s| {
        s.contains("Probe 1 finished") && s.contains("⎿ CONTEXT ")
    });
    assert!(
        s.lines().any(|l| l.contains("⎿ mc-eastus-1  aks-")),
        "rows labelled with their context:\n{s}"
    );
    t.quit_unexported();
    t.restored();
}
