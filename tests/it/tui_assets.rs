//! The bundled keymap, theme and example config parse; user overrides win; bad files give
//! messages naming the file, the value and the fix; NO_COLOR drops colours; and the TUI's
//! pure parts (`nav`, `tui` minus `runtime`) import no IO.

use ratatui::style::{Color, Modifier};
use tsgnav::tui::command::Command;
use tsgnav::tui::config;
use tsgnav::tui::keymap::{self, parse_key, Keymap};
use tsgnav::tui::theme::Theme;

#[test]
fn bundled_keymap_parses_and_binds_every_screen() {
    let km = Keymap::parse("assets/keymap.toml", keymap::DEFAULT).expect("bundled keymap parses");
    for ctx in keymap::CONTEXTS {
        assert!(!km.rows(ctx).is_empty(), "[[{ctx}]] has rows");
    }
    let key = |s: &str| parse_key(s).expect("key").to_event();
    assert_eq!(km.lookup("guide", &key("j")), Some(Command::ScrollDown));
    assert_eq!(km.lookup("guide", &key("<S-Tab>")), Some(Command::PrevItem));
    assert_eq!(km.lookup("guide", &key("3")), Some(Command::Follow(3)));
    assert_eq!(
        km.lookup("library", &key("?")),
        Some(Command::Help),
        "global rows apply everywhere"
    );
    assert_eq!(
        km.lookup("help", &key("q")),
        Some(Command::Cancel),
        "a screen's row beats a global one"
    );
}

#[test]
fn user_keymap_rows_replace_bundled_rows() {
    let user = Keymap::parse(
        "keymap.toml",
        "[[guide]]\non = [\"<C-n>\"]\nrun = \"next_step\"\ndesc = \"Mine\"\n",
    )
    .expect("parses");
    let km = Keymap::bundled().with_overrides(user);
    let key = |s: &str| parse_key(s).expect("key").to_event();
    assert_eq!(km.lookup("guide", &key("<C-n>")), Some(Command::NextStep));
    assert_eq!(
        km.lookup("guide", &key("n")),
        None,
        "the bundled row for next_step is replaced"
    );
    assert!(km.rows("guide").iter().any(|r| r.desc == "Mine"));
}

#[test]
fn a_bad_keymap_is_rejected_at_load_with_its_file_line_value_and_fix() {
    let bad = |text: &str| {
        Keymap::parse("k.toml", text)
            .expect_err("rejected")
            .to_string()
    };
    let row = |on: &str, run: &str| format!("[[guide]]\non = [{on}]\nrun = \"{run}\"\n");
    let ok = row("\"j\"", "quit");
    // The bad value is on the fourth or fifth line: after one good row.
    let err = bad(&format!("{ok}\n{}", row("\"<Hyper-x>\"", "quit")));
    assert!(
        err.starts_with("k.toml:6: key `<Hyper-x>` is not a key"),
        "{err}"
    );
    assert!(err.contains("write `j`, `<C-d>`"), "names the fix: {err}");
    let err = bad(&format!("{ok}\n{}", row("\"j\"", "explode")));
    assert!(
        err.starts_with("k.toml:7: `run = \"explode\"`: `explode` is not a command"),
        "{err}"
    );
    assert!(
        err.contains("assets/keymap.toml lists the commands"),
        "{err}"
    );
    let err = bad(&format!("{ok}\n{}", row("\"3\"", "follow three")));
    assert!(
        err.starts_with("k.toml:7:") && err.contains("`three` is not a number"),
        "{err}"
    );
    let err = bad(&format!("{ok}\n{}", row("\"3\"", "next_step now")));
    assert!(err.contains("`next_step` takes no argument"), "{err}");
    let err = bad("[[gide]]\non = [\"j\"]\nrun = \"quit\"\n");
    assert!(err.starts_with("k.toml:1: unknown field `gide`"), "{err}");
    assert!(
        err.contains("`global`, `library`, `guide`, `help`"),
        "{err}"
    );
    let err = bad(&format!("{ok}mystery = 1\n"));
    assert!(
        err.starts_with("k.toml:4: unknown field `mystery`"),
        "{err}"
    );
    let err = bad("[[guide]\n");
    assert!(err.starts_with("k.toml:1: "), "{err}");
}

#[test]
fn help_palette_completion_and_keymap_share_the_commands() {
    use tsgnav::tui::command::{completions, PALETTE};
    let km = Keymap::bundled();
    for ctx in keymap::CONTEXTS {
        for row in km.rows(ctx) {
            // A row's command prints as the palette would take it.
            let typed: Command = row.run.to_string().parse().expect("round trip");
            assert_eq!(typed, row.run);
        }
    }
    for (names, usage, _) in PALETTE {
        for n in *names {
            assert!(!completions(&n[..1]).is_empty(), "{usage}");
            assert!(completions(n).contains(n));
        }
    }
}

#[test]
fn bundled_theme_parses_and_no_color_keeps_only_modifiers() {
    let t = Theme::parse("assets/theme.toml", tsgnav::tui::theme::DEFAULT, false)
        .expect("bundled theme parses");
    let m = t.get("badge.mutating");
    assert_eq!(m.bg, Some(Color::Red));
    assert!(m.add_modifier.contains(Modifier::BOLD));
    let plain =
        Theme::parse("assets/theme.toml", tsgnav::tui::theme::DEFAULT, true).expect("parses");
    let m = plain.get("badge.mutating");
    assert_eq!((m.fg, m.bg), (None, None));
    assert!(m.add_modifier.contains(Modifier::BOLD));
    assert!(
        plain
            .get("ui.selected")
            .add_modifier
            .contains(Modifier::REVERSED),
        "selection stays visible without colour"
    );
}

#[test]
fn user_theme_overrides_and_bad_style_message() {
    let user =
        Theme::parse("theme.toml", "[badge]\nmutating = \"#ff8800\"\n", false).expect("parses");
    let t = Theme::bundled(false).with_overrides(user);
    assert_eq!(t.get("badge.mutating").fg, Some(Color::Rgb(0xff, 0x88, 0)));
    let err = Theme::parse(
        "theme.toml",
        "[ui]\ntitle = \"bold chartreuse-ish\"\n",
        false,
    )
    .expect_err("bad colour");
    assert!(
        err.to_string()
            .contains("`ui.title = \"bold chartreuse-ish\"`: `chartreuse-ish`"),
        "{err}"
    );
}

#[test]
fn example_config_parses() {
    let c = config::parse("assets/config.example.toml", config::EXAMPLE)
        .expect("example config parses");
    assert!(!c.guides.is_empty());
    assert!(c.vars.contains_key("OCM_NAMESPACE"));
    let err = config::parse("config.toml", "guide = [\"x\"]\n").expect_err("unknown key");
    assert!(
        err.to_string().starts_with("config.toml: ") && err.to_string().contains("guide"),
        "{err}"
    );
}

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn nav_and_tui_core_import_no_io() {
    const IO: &[&str] = &[
        "std::fs",
        "std::process",
        "std::net",
        "std::env",
        "std::thread",
        "tokio",
        "reqwest",
        "kube::",
        "std::io::stdin",
        "crate::query",
        "crate::evidence",
        "crate::cli",
        "crate::load",
    ];
    let mut files = Vec::new();
    rust_files(&crate::common::root().join("src/nav"), &mut files);
    rust_files(&crate::common::root().join("src/tui"), &mut files);
    let files: Vec<_> = files
        .into_iter()
        .filter(|f| !f.components().any(|c| c.as_os_str() == "runtime"))
        .collect();
    assert!(files.len() > 10);
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for word in IO {
            assert!(
                !code.contains(word),
                "{} uses `{word}`; only tui::runtime may do IO",
                f.display()
            );
        }
        if f.components().any(|c| c.as_os_str() == "nav") {
            assert!(
                !code.contains("crate::tui"),
                "{} (nav) must not depend on the UI",
                f.display()
            );
        }
    }
}

#[test]
fn navigator_flags_without_a_terminal_say_so() {
    let out = crate::common::bin()
        .args(["--alert", "userJourneySwiftLatencyP991h5m"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the navigator needs a terminal, and stdout is not one"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn paths_without_a_terminal_print_their_tree() {
    let out = crate::common::bin()
        .arg(crate::common::root().join("tsg/maestro-stuck-deletion.md"))
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Maestro: HCP cluster deletion stuck"),
        "{text}"
    );
}
