//! A 100 MB attachment is stored as a blob without holding it in memory: the peak resident set
//! size of `tsgnav sessions attach` (measured by `/usr/bin/time -v`) stays under 64 MiB. This is
//! a memory bound, not a timing.

use std::io::Write;
use std::path::Path;

use tsgnav::evidence::{self, Record, Session, SessionLog};

const SIZE: u64 = 100 * 1024 * 1024;
const LIMIT_KIB: u64 = 64 * 1024;

#[test]
fn a_100_mb_attachment_streams_with_bounded_memory() {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        eprintln!(
            "SKIP: /usr/bin/time is not installed (Debian package `time`); cannot measure peak RSS"
        );
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let file = tmp.path().join("cns-full.log");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&file).expect("create"));
    let mut written = 0u64;
    let mut i = 0u64;
    while written < SIZE {
        let line = if i.is_multiple_of(1000) {
            format!("I0314 09:20:11.{i:06} cns: call with Authorization: Bearer tok{i}secret\n")
        } else {
            format!(
                "I0314 09:20:11.{i:06} cns ipam: request {i} for pod router-{} pending\n",
                i % 97
            )
        };
        w.write_all(line.as_bytes()).expect("write");
        written += line.len() as u64;
        i += 1;
    }
    w.flush().expect("flush");
    drop(w);
    let state = tmp.path().join("state");
    let dir = Session::create(&state, crate::evidence_script::start())
        .expect("create")
        .dir()
        .to_owned();

    let out = std::process::Command::new(time)
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_tsgnav"))
        .args(["sessions", "attach"])
        .arg(&dir)
        .arg(&file)
        .args(["--note", "full CNS log"])
        .output()
        .expect("run /usr/bin/time");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let rss: u64 = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no RSS in /usr/bin/time output: {stderr}"));
    eprintln!("peak RSS of `tsgnav sessions attach` with a {written}-byte file: {rss} KiB");
    assert!(rss < LIMIT_KIB, "peak RSS {rss} KiB, limit {LIMIT_KIB} KiB");

    let log = SessionLog::read(&dir).expect("log");
    let Record::Note(n) = &log.entries[1].record else {
        panic!("note expected")
    };
    assert_eq!(n.blob_redactions, i.div_ceil(1000));
    assert!(
        n.blob_size.abs_diff(written) < 1 << 20,
        "stored {} of {written} bytes",
        n.blob_size
    );
    assert!(evidence::verify(&dir).expect("verify").ok());
}
