//! Output is data: a probe that prints terminal control sequences (a window title, an OSC 52
//! clipboard write, clear screen, a cursor move, a bare CR, a bidi override) through
//! `tsgnav run` in a real terminal (tmux) leaves the title and the clipboard as they were, and
//! the sequences are shown as visible tokens. The same bytes printed straight to the pane do
//! set the title and the clipboard, so the check can fail.

use super::tui_common::Tmux;

const GUIDE: &str = "# Noisy probe\n\n## Diagnose\n\n```bash\n\
printf '\\033]0;%s\\007\\033]52;c;%s\\007\\033[2J\\033[5;5Hrow\\rover \\342\\200\\256txt\\n' \"$TITLE\" \"$CLIP\"\n\
```\n";

#[test]
fn tsgnav_run_in_a_terminal_shows_escapes_as_tokens_and_changes_nothing() {
    let Some(t) = Tmux::start("run-escapes") else {
        return;
    };
    t.allow_clipboard();
    let n = super::common::nanos();
    let (title, clip) = (format!("TITLE{n}"), format!("CLIP{n}"));
    let clip64 = base64(clip.as_bytes());
    let guide = t.dir.join("noisy.md");
    std::fs::write(&guide, GUIDE).expect("write guide");
    let before = t.flag("pane_title");
    t.send_line(&format!(
        "TITLE={title} CLIP={clip64} {} run '{}#diagnose' --var TITLE={title} --var CLIP={clip64}; echo RUN-DONE",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    ));
    let screen = t.wait_for("the run to end", |s| s.contains("\nRUN-DONE"));
    assert!(
        screen.contains(&format!("⟨ESC⟩]0;{title}⟨BEL⟩")),
        "{screen}"
    );
    assert!(
        screen.contains("⟨ESC⟩[2J⟨ESC⟩[5;5Hrow⟨CR⟩over ⟨U+202E⟩txt"),
        "{screen}"
    );
    assert_eq!(t.flag("pane_title"), before, "the probe set the title");
    assert!(
        !t.clipboard().contains(&clip),
        "the probe wrote the clipboard"
    );
    // The control: the same sequences straight to the terminal do act.
    t.send_line(&format!(
        "printf '\\033]0;%s\\007\\033]52;c;%s\\007' {title} {clip64}; echo"
    ));
    t.wait_for("the title to change", |_| t.flag("pane_title") == title);
    assert!(
        t.clipboard().contains(&clip),
        "OSC 52 does reach tmux's buffer"
    );
}

fn base64(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in b.chunks(3) {
        let n = c.iter().fold(0u32, |n, &x| n << 8 | u32::from(x)) << (8 * (3 - c.len()));
        for i in 0..4 {
            match i <= c.len() {
                true => out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char),
                false => out.push('='),
            }
        }
    }
    out
}

/// `run --json` says which read-only probes only the classifier vouches for (their requests
/// travel inside TLS), and only on those.
#[test]
fn run_json_marks_probes_read_only_by_the_classifier_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let guide = dir.path().join("tls.md");
    std::fs::write(
        &guide,
        "# TLS\n\n## Check\n\n```bash\ncurl -s --max-time 2 https://127.0.0.1:9/health; true\n```\n\n\
         ```bash\necho plain\n```\n",
    )
    .expect("write guide");
    let o = super::common::bin()
        .args(["run", &format!("{}#check", guide.display()), "--json"])
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", dir.path().join("state"))
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&o.stderr));
    });
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "{v}");
    let why = results[0]["read_only_by_classifier_only"]
        .as_str()
        .unwrap_or("");
    assert!(why.contains("https:// URL"), "{v}");
    assert!(
        results[1].get("read_only_by_classifier_only").is_none(),
        "{v}"
    );
}
