//! Quitting while the parse cache is still being written: the screen says so, a second `q`
//! quits at once and leaves no pack and no temporary file behind, and a single `q` waits until
//! the pack is in place. `TSGNAV_TEST_SLOW_PACK` holds the finished pack back (a small
//! library's pack is written in a blink, too fast to see on a terminal).

use crate::tui_common::Tmux;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tsgnav")
}

/// A folder of `n` small guides.
fn library(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..n {
        let text = format!(
            "# Quit check {i}\n\n## Look at shard {i}\n\n```bash\nkubectl get pods -n shard-{i}\n```\n"
        );
        std::fs::write(dir.path().join(format!("shard-{i:02}.md")), text).expect("write");
    }
    dir
}

/// The files in the cache folder (none when it does not exist).
fn cached(t: &Tmux) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(t.dir.join("cache")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn prompts(s: &str) -> usize {
    s.lines().filter(|l| l.starts_with("READY$")).count()
}

#[test]
fn a_second_q_quits_without_the_parse_cache_and_one_q_waits_for_it() {
    let Some(t) = Tmux::start("quitpack") else {
        return;
    };
    let lib = library(12);
    // `clear` first but the first time, so the prompt that comes back is the only one.
    let run = |slow_ms: u32, clear: &str| {
        t.send_line(&format!(
            "{clear}TSGNAV_TEST_SLOW_PACK={slow_ms} {} '{}' --no-evidence",
            bin(),
            lib.path().display()
        ));
        t.wait_for("every guide in", |s| {
            s.contains("tsgnav · 12 guides") && !s.contains("loading")
        });
    };

    // The pack is held back for a minute: the quit says why it waits, and q again quits.
    run(60_000, "");
    t.keys(&["q"]);
    let s = t.wait_for("the line about the parse cache", |s| {
        s.contains("writing the parse cache")
    });
    assert!(s.contains("(q again to quit without it)"), "{s}");
    assert_eq!(prompts(&s), 0, "still in the navigator:\n{s}");
    t.keys(&["q"]);
    t.restored();
    assert!(
        cached(&t).is_empty(),
        "an abandoned pack leaves nothing: {:?}",
        cached(&t)
    );

    // Held back for a second: one q waits, the line shows meanwhile, and the pack is in.
    run(1_000, "clear; ");
    t.keys(&["q"]);
    t.wait_for("the line about the parse cache", |s| {
        s.contains("writing the parse cache")
    });
    let s = t.wait_for("the shell prompt", |s| prompts(s) >= 1);
    assert!(!s.contains("tsgnav · "), "the navigator is gone:\n{s}");
    let files = cached(&t);
    assert!(
        files.len() == 1 && files[0].starts_with("library-") && files[0].ends_with(".pack"),
        "one pack and no temporary file: {files:?}"
    );

    // With nothing new to write, q quits at once, without the line.
    run(60_000, "clear; ");
    t.keys(&["q"]);
    let s = t.wait_for("the shell prompt", |s| prompts(s) >= 1);
    assert!(!s.contains("writing the parse cache"), "{s}");
    assert_eq!(cached(&t), files, "the pack is kept as it was");
}
