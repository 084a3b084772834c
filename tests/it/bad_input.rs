//! Bad input: files and folders that are not well-formed guides. Whatever the input, the real
//! binary (`tsgnav tree --json`, `tsgnav lint`) must either parse it or say clearly which file
//! is wrong, exit with a documented code, never panic and never hang; and one bad file must not
//! hide the good guides beside it.
//!
//! Inputs are generated in a temp dir. Every run has a hang guard (the child is killed after
//! `HANG_GUARD`); that is a guard against hangs, not a timing assertion. Test code: it may use
//! std::fs and std::process, and imports only `common` from the test crate.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

/// Kill a run that takes longer than this: generous, since tests run a debug build on 2 cores.
const HANG_GUARD: Duration = Duration::from_secs(120);

/// A small guide that must load next to every bad file.
const GOOD: &str =
    "# Good guide\n\n## Triage\n\nCheck the pods.\n\n```bash\nkubectl get pods -n maestro\n```\n";

/// What a finished run of the binary printed.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `cmd` to completion, draining its output, killing it after `HANG_GUARD`.
fn run(mut cmd: Command, what: &str) -> Run {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn tsgnav");
    let mut out = child.stdout.take().expect("stdout is piped");
    let mut err = child.stderr.take().expect("stderr is piped");
    // Drain both pipes on threads so a large output cannot block the child.
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for tsgnav") {
            break status;
        }
        if start.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: tsgnav did not finish within {HANG_GUARD:?} (hang)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = String::from_utf8_lossy(&out_t.join().expect("stdout reader")).into_owned();
    let stderr = String::from_utf8_lossy(&err_t.join().expect("stderr reader")).into_owned();
    assert!(
        !stderr.contains("panicked"),
        "{what}: tsgnav panicked:\n{stderr}"
    );
    let code = status
        .code()
        .unwrap_or_else(|| panic!("{what}: tsgnav was killed by a signal ({status}):\n{stderr}"));
    Run {
        code,
        stdout,
        stderr,
    }
}

/// `tsgnav ARGS...` with the hang guard.
fn tsgnav<I, S>(args: I, what: &str) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = common::bin();
    cmd.args(args);
    run(cmd, what)
}

/// Paths of the guides in a `tree --json` document.
fn guide_paths(json: &Value) -> Vec<String> {
    json["guides"]
        .as_array()
        .map(|gs| {
            gs.iter()
                .filter_map(|g| g["path"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// `tree DIR --json`: must print a JSON library holding `good.md`; returns the run and JSON.
fn tree_json(dir: &Path, what: &str) -> (Run, Value) {
    let r = tsgnav(
        [OsStr::new("tree"), dir.as_os_str(), OsStr::new("--json")],
        &format!("{what}: tree"),
    );
    let json: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: tree --json printed no JSON ({e}); exit {}; stderr:\n{}",
            r.code, r.stderr
        )
    });
    let paths = guide_paths(&json);
    assert!(
        paths.iter().any(|p| p.ends_with("good.md")),
        "{what}: a bad file hid good.md; guides: {paths:?}; stderr:\n{}",
        r.stderr
    );
    (r, json)
}

/// `lint DIR` (text format).
fn lint(dir: &Path, what: &str) -> Run {
    tsgnav(
        [OsStr::new("lint"), dir.as_os_str()],
        &format!("{what}: lint"),
    )
}

/// The guide whose path ends with `name` in a `tree --json` document.
fn guide<'a>(json: &'a Value, name: &str) -> Option<&'a Value> {
    json["guides"]
        .as_array()?
        .iter()
        .find(|g| g["path"].as_str().is_some_and(|p| p.ends_with(name)))
}

/// Titles of a guide's nodes.
fn node_titles(guide: &Value) -> Vec<&str> {
    guide["nodes"]
        .as_array()
        .map(|ns| ns.iter().filter_map(|n| n["title"].as_str()).collect())
        .unwrap_or_default()
}

/// Both commands refuse `bad`: exit 2 (an IO/input error), a stderr line naming it with every
/// one of `says`, and the good guide beside it still loaded by `tree`.
fn expect_refused(dir: &Path, bad: &str, says: &[&str], what: &str) {
    let (r, json) = tree_json(dir, what);
    assert!(
        guide(&json, bad).is_none(),
        "{what}: tree loaded {bad} as a guide"
    );
    let l = lint(dir, what);
    for (cmd, run) in [("tree", &r), ("lint", &l)] {
        assert_eq!(
            run.code, 2,
            "{what}: {cmd} exit {}; stderr:\n{}",
            run.code, run.stderr
        );
        let line = run
            .stderr
            .lines()
            .find(|l| l.contains(bad))
            .unwrap_or_else(|| panic!("{what}: {cmd} did not name {bad}; stderr:\n{}", run.stderr));
        for s in says {
            assert!(
                line.contains(s),
                "{what}: {cmd} said {line:?}, expected {s:?}"
            );
        }
    }
}

/// Both commands parse `name` as a guide: `tree` exits 0 and lint finds no load error (exit 0
/// or 1, by its findings). Returns the guide's JSON from `tree`.
fn expect_parsed(dir: &Path, name: &str, what: &str) -> Value {
    let (r, json) = tree_json(dir, what);
    assert_eq!(
        r.code, 0,
        "{what}: tree exit {}; stderr:\n{}",
        r.code, r.stderr
    );
    let l = lint(dir, what);
    assert!(
        [0, 1].contains(&l.code),
        "{what}: lint exit {}; stderr:\n{}",
        l.code,
        l.stderr
    );
    guide(&json, name)
        .cloned()
        .unwrap_or_else(|| panic!("{what}: {name} is not among the guides"))
}

/// A temp dir holding `good.md` and, as `name`, the given bytes.
fn dir_with(name: &str, bytes: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("good.md"), GOOD).expect("write good.md");
    std::fs::write(dir.path().join(name), bytes).expect("write the bad file");
    dir
}

#[test]
fn non_utf8_file_is_refused_with_line_and_column() {
    let dir = dir_with(
        "latin1.md",
        b"# Caf\xe9 runbook\n\n## Triage\n\n\xff\xfe not UTF-8\n",
    );
    expect_refused(
        dir.path(),
        "latin1.md",
        &["latin1.md:1:6", "not UTF-8", "save the file as UTF-8"],
        "non-UTF-8 file",
    );
}

#[test]
fn binary_file_with_nul_bytes_is_refused() {
    // A PNG header (with NUL bytes) saved under a .md name.
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0".to_vec();
    png.extend(std::iter::repeat_n(0u8, 4096));
    let dir = dir_with("logo.md", &png);
    expect_refused(
        dir.path(),
        "logo.md",
        &["looks binary", "NUL byte at offset 8"],
        "binary file",
    );
}

#[test]
fn non_markdown_files_are_ignored() {
    let dir = dir_with("diagram.png", b"\x89PNG\r\n\x1a\n\0\0\0\0");
    let (r, json) = tree_json(dir.path(), "a .png beside a guide");
    assert_eq!(r.code, 0, "a .png is not a guide; stderr:\n{}", r.stderr);
    assert_eq!(guide_paths(&json).len(), 1, "only good.md is a guide");
}

#[test]
fn empty_file_is_a_guide_with_no_nodes() {
    let dir = dir_with("empty.md", b"");
    let empty = expect_parsed(dir.path(), "empty.md", "empty file");
    assert_eq!(
        empty["nodes"].as_array().map(Vec::len),
        Some(0),
        "an empty guide has no nodes: {empty}"
    );
}

/// Writes a markdown file of about `size` bytes made of realistic guide sections.
fn write_big_markdown(path: &Path, size: usize) {
    let file = std::fs::File::create(path).expect("create the big file");
    let mut w = std::io::BufWriter::new(file);
    let mut written = 0;
    let mut i = 0;
    while written < size {
        let section = format!(
            "## Step {i}: check the deployment\n\n**Goal:** find out why step {i} fails.\n\n\
             - [ ] look at the pods\n- see [Step {i}](#step-{i}-check-the-deployment)\n\n\
             ```bash\nkubectl get pods -n ns-{i} | grep -F \"${{CLUSTER_ID}}\"\n```\n\n"
        );
        w.write_all(section.as_bytes()).expect("write the big file");
        written += section.len();
        i += 1;
    }
    w.flush().expect("flush the big file");
}

#[test]
fn fifty_megabyte_file_is_refused_with_its_size_in_bounded_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("good.md"), GOOD).expect("write good.md");
    write_big_markdown(&dir.path().join("huge.md"), 50 * 1024 * 1024);

    // Cap the address space at 1 GiB (20× the input): a reader that slurps or parses without
    // bound fails the run instead of taking the machine's memory. A bound, not a measurement.
    for sub in ["tree", "lint"] {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg("ulimit -v 1048576 && exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_tsgnav"))
            .arg(sub)
            .arg(dir.path());
        if sub == "tree" {
            cmd.arg("--json");
        }
        let what = format!("50 MB file: {sub}");
        let r = run(cmd, &what);
        assert_eq!(r.code, 2, "{what}: exit {}; stderr:\n{}", r.code, r.stderr);
        let line = r
            .stderr
            .lines()
            .find(|l| l.contains("huge.md"))
            .unwrap_or_else(|| panic!("{what}: did not name huge.md; stderr:\n{}", r.stderr));
        assert!(
            line.contains("is 50.0 MiB") && line.contains("up to 16 MiB"),
            "{what}: said {line:?}, expected its size and the 16 MiB limit"
        );
        if sub == "tree" {
            let json: Value = serde_json::from_str(&r.stdout).expect("tree --json prints JSON");
            assert!(guide(&json, "good.md").is_some(), "{what}: good.md missing");
            assert!(guide(&json, "huge.md").is_none(), "{what}: huge.md loaded");
        }
    }
}

#[test]
fn ten_thousand_nested_blockquotes_parse_and_the_rest_of_the_guide_too() {
    let mut md = String::from("# Deep quotes\n\n## Triage\n\n");
    md.push_str(&"> ".repeat(10_000));
    md.push_str("**Risk:** deep\n\n## After the quotes\n\nStill here.\n");
    let dir = dir_with("quotes.md", md.as_bytes());
    let g = expect_parsed(dir.path(), "quotes.md", "10,000 nested blockquotes");
    assert_eq!(
        node_titles(&g),
        ["Deep quotes", "Triage", "After the quotes"],
        "the heading after the quotes is lost: {g}"
    );
}

#[test]
fn ten_thousand_nested_list_levels_parse_and_the_rest_of_the_guide_too() {
    // `- - - … item`: each marker opens a list inside the previous item.
    let mut md = String::from("# Deep lists\n\n## Validation\n\n");
    md.push_str(&"- ".repeat(10_000));
    md.push_str("[ ] pods are running\n\n## After the lists\n\nStill here.\n");
    let dir = dir_with("lists.md", md.as_bytes());
    let g = expect_parsed(dir.path(), "lists.md", "10,000 nested list levels");
    assert_eq!(
        node_titles(&g),
        ["Deep lists", "Validation", "After the lists"],
        "the heading after the lists is lost: {g}"
    );
}

#[cfg(unix)]
#[test]
fn symlink_loop_in_a_folder_is_a_warning_and_read_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("good.md"), GOOD).expect("write good.md");
    // Two loops: a walker that follows links without remembering where it has been reads
    // 2^depth copies, not just "a few too many".
    std::os::unix::fs::symlink(".", dir.path().join("a")).expect("make the a -> . loop");
    std::os::unix::fs::symlink(".", dir.path().join("b")).expect("make the b -> . loop");
    let (r, json) = tree_json(dir.path(), "symlink loops a -> ., b -> .");
    let l = lint(dir.path(), "symlink loops a -> ., b -> .");
    let copies = guide_paths(&json)
        .iter()
        .filter(|p| p.ends_with("good.md"))
        .count();
    assert_eq!(copies, 1, "good.md loaded again through a/:\n{}", r.stderr);
    for (cmd, run) in [("tree", &r), ("lint", &l)] {
        // A loop is reported, but the folder was read once: not a failure.
        assert_eq!(run.code, 0, "{cmd} exit {}:\n{}", run.code, run.stderr);
        assert!(
            run.stderr
                .lines()
                .any(|l| l.starts_with("warning:") && l.contains("symlink loop")),
            "{cmd} did not warn about the loop:\n{}",
            run.stderr
        );
    }
}

#[test]
fn missing_path_is_a_usage_error_naming_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("no-such-guides");
    for args in [vec!["tree", "--json"], vec!["lint"]] {
        let mut cmd = common::bin();
        cmd.arg(args[0]).arg(&missing).args(&args[1..]);
        let r = run(cmd, &format!("missing path: {}", args[0]));
        assert_eq!(r.code, 2, "{}: exit {}:\n{}", args[0], r.code, r.stderr);
        assert!(
            r.stderr
                .lines()
                .any(|l| l.contains("no-such-guides") && l.contains("no such file or folder")),
            "{}: stderr does not name the path:\n{}",
            args[0],
            r.stderr
        );
    }
}

/// `alerts --rules DIR` with a symlink loop inside DIR reads each folder once and says so.
#[cfg(unix)]
#[test]
fn alerts_rules_folder_with_a_symlink_loop() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("rules.yaml"),
        "groups:\n- name: g\n  rules:\n  - alert: OnlyAlert\n    expr: up == 0\n",
    )
    .expect("write");
    std::os::unix::fs::symlink(".", dir.path().join("loop")).expect("symlink");
    let out = crate::common::bin()
        .args(["alerts", "tsg/", "--json", "--rules"])
        .arg(dir.path())
        .current_dir(crate::common::root())
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("symlink loop"));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let unrouted: Vec<&str> = v["unrouted"]
        .as_array()
        .expect("unrouted")
        .iter()
        .filter_map(|u| u["alert"].as_str())
        .collect();
    assert_eq!(unrouted, vec!["OnlyAlert"], "the rule file is read once");
}

#[test]
fn a_guide_name_on_a_device_is_refused_not_read_forever() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("good.md"), GOOD).expect("write good.md");
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.md")).expect("symlink");
    // Run under a 3 GB address-space limit, with the binary's usual environment: reading
    // /dev/zero to its end (what tsgnav once did) then aborts at once (and this test fails on
    // the signal) rather than filling the machine's memory.
    let bin = common::bin();
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "ulimit -v 3000000; exec \"$0\" tree --json \"$1\""])
        .arg(bin.get_program())
        .arg(dir.path());
    for (k, v) in bin.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let r = run(cmd, "a .md name on /dev/zero");
    assert_eq!(r.code, 2, "stderr:\n{}", r.stderr);
    let line = r
        .stderr
        .lines()
        .find(|l| l.contains("zero.md"))
        .unwrap_or_else(|| panic!("zero.md not named; stderr:\n{}", r.stderr));
    // Met in a folder, the link's target is seen to be a device and not opened at all.
    assert!(line.contains("is a character device, not a file"), "{line}");
    let json: Value = serde_json::from_str(&r.stdout).expect("tree --json printed JSON");
    let paths = guide_paths(&json);
    assert!(paths.iter().any(|p| p.ends_with("good.md")), "{paths:?}");
    assert!(!paths.iter().any(|p| p.ends_with("zero.md")), "{paths:?}");
}

/// A named pipe called `.md` in a guide folder, with nothing writing to it: opening it would
/// wait for a writer, and the load with it (`tree` waited for ever; the navigator stayed on
/// "loading"). It is named as a pipe and skipped, cold and warm; the other guides load.
#[test]
fn a_named_pipe_in_a_guide_folder_is_named_and_skipped_not_waited_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lib = dir.path().join("lib");
    std::fs::create_dir(&lib).expect("mkdir");
    std::fs::write(lib.join("good.md"), GOOD).expect("write good.md");
    let fifo = std::ffi::CString::new(lib.join("pipe.md").into_os_string().into_encoded_bytes())
        .expect("path");
    // SAFETY: a plain C call with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
    let cache = dir.path().join("cache");
    // Twice: the second start has a pack to check the files against.
    for start in ["cold", "warm"] {
        let mut cmd = common::bin();
        cmd.env("TSGNAV_CACHE_DIR", &cache)
            .args(["tree", "--json"])
            .arg(&lib);
        let r = run(cmd, "a FIFO named pipe.md");
        assert_eq!(r.code, 2, "{start}: stderr:\n{}", r.stderr);
        assert!(
            r.stderr
                .contains("pipe.md: is a named pipe (FIFO), not a file"),
            "{start}: {}",
            r.stderr
        );
        let json: Value = serde_json::from_str(&r.stdout).expect("tree --json printed JSON");
        let paths = guide_paths(&json);
        assert_eq!(paths.len(), 1, "{start}: {paths:?}");
        assert!(paths[0].ends_with("good.md"), "{start}: {paths:?}");
    }
}
