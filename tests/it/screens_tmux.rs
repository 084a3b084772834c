//! The 3 a.m. screens at 80×24 in a real terminal (tmux): the output pager counts wrapped rows
//! (its footer and `G` reach the last line), a finished probe's output is brought into view,
//! the confirmation hint matches the focus, the export popup shows the folder, head and key,
//! typos are reported before the screen is taken, library rows keep the part that differs,
//! help wraps and searches, and the k9s/kubectl conventions (`:ctx`, `:ns`, Esc goes back,
//! `TERM=dumb`). Each test waits on the screen's content, never on a fixed sleep. Skips with a
//! SKIP line when tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use crate::tui_common::Tmux;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tsgnav")
}

/// `tsgnav demo` at 80×24, on its landing step.
fn demo(tag: &str) -> Option<Tmux> {
    let t = Tmux::start_sized(tag, 80, 24)?;
    t.send_line(&format!("{} demo", bin()));
    t.wait_for("the landing step", |s| {
        s.contains("Trail:") && s.contains("Recording evidence in ")
    });
    Some(t)
}

/// The pager's footer range (`first-last/total`) and the largest line number on screen.
fn pager_range(s: &str) -> ((usize, usize, usize), usize) {
    let footer = s
        .lines()
        .find(|l| l.contains(" wrap o"))
        .expect("the pager's footer");
    let range = footer.split_whitespace().next().expect("a range");
    let (a, rest) = range.split_once('-').expect("first-last");
    let (b, n) = rest.split_once('/').expect("last/total");
    let num = |x: &str| x.parse::<usize>().expect("a number");
    let shown = s
        .lines()
        .filter_map(|l| l.split_once('│'))
        .filter_map(|(g, _)| g.trim().parse::<usize>().ok())
        .max()
        .unwrap_or(0);
    ((num(a), num(b), num(n)), shown)
}

#[test]
fn pager_counts_wrapped_rows_and_g_reaches_the_last_line() {
    let Some(t) = demo("pagerwrap") else { return };
    t.keys(&["r"]);
    t.wait_for("probe 1's result", |s| s.contains("Probe 1 finished"));
    t.keys(&["o"]);
    let s = t.wait_for("the pager, wrapped", |s| s.contains("wrap on (w)"));
    let ((first, last, total), shown) = pager_range(&s);
    assert_eq!(first, 1, "{s}");
    assert_eq!(last, shown, "the footer counts the rows on screen:\n{s}");
    assert!(
        last < total,
        "the demo's output is longer than a page:\n{s}"
    );
    t.keys(&["G"]);
    let s = t.wait_for("the last line", |s| {
        s.contains(&format!("{total}│")) && s.contains(&format!("-{total}/{total} "))
    });
    assert!(s.contains("router-6f8b7c9d5-c8wjm"), "{s}");
    t.keys(&["g"]);
    t.wait_for("the top again", |s| s.contains(" 1│exit 0"));
    t.keys(&["C-d"]);
    let s = t.wait_for("half a page down", |s| !s.contains(" 1│exit 0"));
    assert!(pager_range(&s).0 .0 > 1, "{s}");
    t.keys(&["q", "q"]);
}

#[test]
fn a_finished_probe_scrolls_its_output_into_view_and_names_o() {
    let Some(t) = demo("reveal") else { return };
    t.keys(&["r"]);
    let s = t.wait_for("probe 1's result", |s| s.contains("Probe 1 finished"));
    assert!(
        s.contains("⎿ NAME ") && s.contains("⎿ aks-userswft-31562873-vmss000001"),
        "the output is on screen when the probe finishes:\n{s}"
    );
    assert!(s.contains("(o reads it all)"), "{s}");
    assert!(
        s.contains("o reads it all: ←→ scroll"),
        "the `-o wide` columns are cut at 80 columns and the step says how to reach them:\n{s}"
    );
    t.keys(&["o"]);
    t.wait_for("the pager", |s| s.contains("Output · probe 1"));
    t.keys(&["w"]);
    t.wait_for("wrap off", |s| s.contains("wrap off (w)"));
    t.keys(&["G"]);
    t.wait_for("the router rows", |s| s.contains("router-6f8b7c9d5-c8wjm"));
    for _ in 0..10 {
        t.keys(&["Right"]);
    }
    t.wait_for("the NODE column, scrolled to", |s| {
        s.contains("aks-userswft-31562873-vmss000001")
    });
}

#[test]
fn the_confirmation_hint_follows_the_focus_and_list_keys_never_reach_the_field() {
    use crate::tui_small_screen::{layout, line_with, STRATEGY};
    let Some(t) = Tmux::start_sized("confirmfocus", 80, 24) else {
        return;
    };
    t.send_line(&format!("{} demo maestro", bin()));
    t.wait_for("the first step", |s| s.contains("Step 1: Confirm"));
    t.keys(&[":"]);
    t.send_line(&format!("goto {STRATEGY}"));
    t.wait_for("Strategy 2", |s| s.contains("Strategy 2: Scale"));
    let ctx = t.write_mode_on();
    let (tabs, pre) = layout(STRATEGY, 1);
    for _ in 0..tabs {
        t.keys(&["Tab"]);
    }
    t.keys(&["r"]);
    let field = format!("Type the target `{ctx}` to run:");
    t.wait_for("the field", |s| s.contains(&field));
    // To the field before ticking, the target typed, Enter.
    t.keys(&["Tab"]);
    t.keys(&["-l", &ctx]);
    t.keys(&["Enter"]);
    let s = t.wait_for("the refusal", |s| s.contains("is not acknowledged"));
    assert!(
        s.contains("the cursor is on it, Space ticks it")
            && s.contains("› [ ] 1.")
            && s.contains("Space ticks · Tab to the field"),
        "the message and the hint both name the list, where the focus is:\n{s}"
    );
    // Back in the field, keys meant for the list are not typed.
    for key in ["j", "Space", "Down"] {
        t.keys(&["Tab"]);
        t.wait_for("the field focused", |s| line_with(s, &field).contains('▏'));
        t.keys(&[key]);
        let s = t.wait_for("the focus back on the list", |s| {
            s.contains("is not acknowledged") && line_with(s, &field).contains("(Tab to type here)")
        });
        let row = line_with(&s, &field);
        assert!(
            row.contains(&format!(": {ctx} (Tab")),
            "`{key}`, meant for the list, did not reach the field:\n{s}"
        );
    }
    for _ in 0..pre {
        t.keys(&["Space"]);
    }
    t.keys(&["Tab", "Enter"]);
    t.wait_for("the open mitigation", |s| {
        s.contains("OPEN 1") && !s.contains("Mitigation: confirm")
    });
}

/// The shell printed `EXIT=…` (the command's own echo line does not count).
fn exited(s: &str) -> bool {
    s.lines().any(|l| l.starts_with("EXIT="))
}

#[test]
fn typos_are_reported_before_the_screen_is_taken_and_bad_keymap_rows_all_at_once() {
    let Some(t) = Tmux::start_sized("typos", 80, 24) else {
        return;
    };
    t.send_line(&format!("{} sesions list; echo EXIT=$?", bin()));
    let s = t.wait_for("the suggestion", exited);
    assert!(
        s.contains("a similar subcommand exists: `sessions`") && s.contains("EXIT=2"),
        "{s}"
    );
    // Its own marker: the first command's `EXIT=` may still be on screen before `clear`.
    t.send_line(&format!(
        "clear; {} no-such-guides/; echo MISSING=$?",
        bin()
    ));
    let s = t.wait_for("the missing path", |s| {
        s.lines().any(|l| l.starts_with("MISSING="))
    });
    assert!(
        s.contains("no-such-guides/: no such file or folder") && s.contains("MISSING=2"),
        "{s}"
    );
    assert_eq!(t.flag("alternate_on"), "0", "the screen was never taken");
    // Two bad rows and a good one: both bad rows named, the good one and the defaults work.
    let km = "[[global]]\non = [\"<F13>\"]\nrun = \"help\"\n\n[[guide]]\non = [\"j\"]\nrun = \"explode\"\n\n[[library]]\non = [\"<C-j>\"]\nrun = \"next_item\"\n";
    std::fs::write(t.dir.join("keymap.toml"), km).expect("keymap");
    t.send_line(&format!("clear; {} --no-evidence", bin()));
    let s = t.wait_for("the keymap warning", |s| {
        s.contains("keymap row(s) left out")
    });
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("keymap.toml:2:") && flat.contains("keymap.toml:7:"),
        "every bad row with its line:\n{s}"
    );
    t.keys(&["Escape"]);
    t.wait_for("the popup closed", |s| !s.contains("Esc closes"));
    t.keys(&["?"]);
    t.wait_for("help from the default `?`", |s| s.contains("Help — keys"));
}

#[test]
fn the_export_popup_shows_folder_head_and_key_whole_with_copy_keys() {
    let Some(t) = demo("exportpopup") else { return };
    t.allow_clipboard();
    t.keys(&[":"]);
    t.send_line("export");
    // Waits for the whole popup: a capture can land while the frame is half written.
    t.wait_for("the popup", |s| {
        s.contains("Evidence exported: paste")
            && s.contains("Folder")
            && s.contains("Chain head (record #")
            && s.contains("Key id")
    });
    t.keys(&["c"]);
    t.wait_for("the folder copied", |s| s.contains("Copied the folder"));
    let bundle = crate::tui_common::exported_bundle(&t.only_session());
    assert_eq!(t.clipboard(), bundle.display().to_string());
    t.keys(&["h"]);
    t.wait_for("the head copied", |s| {
        s.contains("Copied the chain head to")
    });
    let head = t.clipboard();
    let flat: String = t.capture().split_whitespace().collect();
    assert!(
        head.len() >= 32 && flat.contains(&head),
        "the whole head is on screen:\n{}",
        t.capture()
    );
    t.keys(&["Escape"]);
    t.wait_for("the popup closed", |s| {
        !s.contains("Evidence exported: paste")
    });
    // `sessions export … -`: the summary on stdout, not "wrote" lines.
    let session = t.only_session();
    let out = crate::common::bin()
        .args(["sessions", "export"])
        .arg(&session)
        .args(["--format", "md", "-"])
        .env("TSGNAV_STATE_DIR", session.parent().expect("state"))
        .output()
        .expect("export");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("# Incident evidence") && !stdout.contains("wrote /"),
        "the markdown itself:\n{stdout}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("summary.md"));
}

/// The screen's text inside the help box, rows joined by spaces (wrapped words read on).
fn help_text(s: &str) -> String {
    s.lines()
        .filter_map(|l| l.strip_prefix('│'))
        .map(|l| l.trim_end_matches('│').trim())
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn help_wraps_at_the_pane_edge_finds_with_slash_and_moves_with_g() {
    let Some(t) = demo("help") else { return };
    let km = tsgnav::tui::keymap::Keymap::bundled();
    let run = km
        .rows("guide")
        .into_iter()
        .find(|r| r.keys() == ["r"])
        .map(|r| r.desc.clone())
        .expect("the r row");
    assert!(run.len() > 50, "a long description: {run}");
    t.keys(&["?"]);
    // Waits for the row itself: a capture can land while the popup is half written.
    let s = t.wait_for("the help with the r row", |s| {
        s.contains("Help — keys") && help_text(s).contains(&run)
    });
    assert!(
        help_text(&s).contains(&run),
        "`{run}` is whole, wrapped:\n{s}"
    );
    t.keys(&["G"]);
    t.wait_for("the end of the help", |s| {
        s.contains("Outline: ○ unvisited")
    });
    t.keys(&["g"]);
    t.wait_for("the top of the help", |s| s.contains("│Guide view"));
    t.keys(&["/"]);
    t.keys(&["-l", "palette"]);
    t.wait_for("the query typed", |s| s.contains("/palette▏"));
    t.keys(&["Enter"]);
    let s = t.wait_for("the first match", |s| s.contains("`palette`: match 1 of"));
    let first = s.lines().nth(1).unwrap_or("").to_lowercase();
    assert!(first.contains("palette"), "scrolled to the match:\n{s}");
    t.keys(&["n"]);
    t.wait_for("the next match", |s| s.contains("`palette`: match 2 of"));
    t.keys(&["Escape"]);
    t.wait_for("the help closed", |s| !s.contains("Help — keys"));
}

/// Whether the styled capture sets a foreground or background colour.
fn coloured(styled: &str) -> bool {
    styled.split('\x1b').any(|esc| {
        let Some(params) = esc.strip_prefix('[').and_then(|e| e.split('m').next()) else {
            return false;
        };
        params.split(';').any(|p| {
            matches!(
                p.parse::<u16>(),
                Ok(30..=37 | 40..=47 | 90..=97 | 100..=107)
            )
        }) || params.starts_with("38;")
            || params.starts_with("48;")
    })
}

#[test]
fn k9s_conventions_ctx_ns_esc_back_and_term_dumb() {
    let Some(t) = demo("k9s") else { return };
    assert!(coloured(&t.capture_styled()), "colours by default");
    t.keys(&[":"]);
    t.send_line("ns kube-system");
    t.wait_for("the namespace set", |s| {
        s.contains("NAMESPACE") && s.contains("kube-system")
    });
    t.keys(&[":"]);
    t.keys(&["-l", "ctx"]);
    t.wait_for("`ctx` completes as a palette command", |s| {
        s.contains(":ctx")
    });
    t.keys(&["Escape"]);
    t.wait_for("the palette closed", |s| !s.contains(":ctx"));
    // Follow choice 1, then Esc (nothing running): back along the trail.
    t.keys(&["1"]);
    t.wait_for("Step 2a", |s| s.contains("› Step 2a: CNS"));
    t.keys(&["Escape"]);
    t.keys(&["Escape"]);
    t.wait_for("back on Step 1", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.trim_end() == "Trail: Step 1: Establish the blast radius")
    });
    t.quit_unexported();
    t.send_line(&format!("clear; TERM=dumb {} demo", bin()));
    t.wait_for("the demo again", |s| {
        s.contains("Trail:") && s.contains("DEMO DATA")
    });
    assert!(
        !coloured(&t.capture_styled()),
        "TERM=dumb draws without colours:\n{:?}",
        t.capture_styled()
    );
}

#[test]
fn library_rows_at_80_columns_keep_the_part_that_differs() {
    let Some(t) = Tmux::start_sized("midcut", 80, 24) else {
        return;
    };
    let root = t.dir.join("runbooks");
    let dir = root.join("observability/advanced-cluster-management-operator");
    std::fs::create_dir_all(&dir).expect("dirs");
    let ends = [
        "Federation",
        "Forwarding",
        "RemoteWriteFailing",
        "ScrapeErrorsHigh",
    ];
    for end in ends {
        let name = format!("ACMMetricsCollector{end}");
        std::fs::write(
            dir.join(format!("{name}.md")),
            format!("# {name}\n\n## Diagnosis\n\nLook at the collector.\n"),
        )
        .expect("guide");
    }
    t.send_line(&format!("{} --no-evidence '{}'", bin(), root.display()));
    let s = t.wait_for("the library", |s| s.contains("ACMMetric"));
    let rows: Vec<&str> = s.lines().filter(|l| l.starts_with("▤ ACM")).collect();
    assert_eq!(rows.len(), ends.len(), "{s}");
    for end in ends {
        let hits: Vec<&&str> = rows
            .iter()
            .filter(|r| r.contains(&end[end.len() - 6..]))
            .collect();
        assert!(!hits.is_empty(), "`{end}` tells its row apart:\n{s}");
    }
    let mut unique = rows.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), rows.len(), "no two rows read the same:\n{s}");
}
