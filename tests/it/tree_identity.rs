//! `tree --json` is a machine interface: a change to how fast guides are read must not change
//! one byte of it. Each library below (the ARO-HCP corpus, the test fixtures, the bundled
//! guides) is read twice, with an empty parse cache and then through the pack the first run
//! wrote, and the output's sha256 must equal the digest committed in
//! `tests/snapshots/tree-json.sha256`. A change that is meant (a new field, a better reading)
//! updates that file: run the test with `TSGNAV_BLESS=1` and say in the commit what changed.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

const DIGESTS: &str = "tests/snapshots/tree-json.sha256";

/// `tree --json root` with the parse cache in `cache`: its stdout.
fn tree_json(root: &Path, cache: &Path) -> Vec<u8> {
    let out = crate::common::bin()
        .args(["tree", "--json"])
        .arg(root)
        .env("TSGNAV_CACHE_DIR", cache)
        .output()
        .expect("run tsgnav tree --json");
    // Some fixtures are refused on purpose (binary, not UTF-8): exit 2, the rest still printed.
    assert!(
        matches!(out.status.code(), Some(0 | 2)),
        "tree --json {} failed: {}",
        root.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.starts_with(b"{\"guides\":["));
    out.stdout
}

fn libraries() -> Vec<(&'static str, PathBuf)> {
    let root = crate::common::root();
    let mut libs = vec![
        ("fixtures", root.join("tests/fixtures")),
        ("bundled", root.join("tsg")),
    ];
    if let Some(c) = crate::common::corpus() {
        libs.push(("corpus", c));
    }
    libs
}

#[test]
fn tree_json_is_byte_identical_cold_warm_and_to_the_committed_digest() {
    let path = crate::common::root().join(DIGESTS);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let bless = std::env::var("TSGNAV_BLESS").as_deref() == Ok("1");
    let mut lines = Vec::new();
    let mut wrong = Vec::new();
    for (name, dir) in libraries() {
        let cache = tempfile::tempdir().expect("cache dir");
        let cold = tree_json(&dir, cache.path());
        let packs = std::fs::read_dir(cache.path()).expect("cache dir").count();
        assert_eq!(packs, 1, "{name}: the first start writes one pack file");
        let warm = tree_json(&dir, cache.path());
        assert!(
            cold == warm,
            "{name}: tree --json read through the parse cache differs from a fresh parse"
        );
        let digest = hex::encode(Sha256::digest(&cold));
        let line = format!("{digest}  {name}");
        let known = committed
            .lines()
            .find(|l| l.ends_with(&format!("  {name}")));
        if known != Some(line.as_str()) {
            wrong.push(format!(
                "{name} ({}): sha256 {digest}, committed: {}",
                dir.display(),
                known.unwrap_or("none")
            ));
        }
        lines.push(line);
    }
    if bless {
        let mut keep: Vec<String> = committed
            .lines()
            .filter(|l| {
                !lines
                    .iter()
                    .any(|n| n.split("  ").nth(1) == l.split("  ").nth(1))
            })
            .map(str::to_string)
            .collect();
        keep.extend(lines);
        keep.sort_by(|a, b| a.split("  ").nth(1).cmp(&b.split("  ").nth(1)));
        std::fs::write(&path, keep.join("\n") + "\n").expect("write the digests");
        return;
    }
    assert!(
        wrong.is_empty(),
        "tree --json output changed:\n{}\nIf the change is meant, rerun with TSGNAV_BLESS=1 to \
         rewrite {DIGESTS} and say in the commit what changed.",
        wrong.join("\n")
    );
}
