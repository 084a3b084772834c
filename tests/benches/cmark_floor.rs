//! The floor for `tsgnav tree`: bare pulldown-cmark over a folder of markdown files, one
//! thread, with tables (and the other extensions tsgnav turns on) enabled, counting events and
//! doing nothing else with them. `tests/scripts/bench-vs-cmark.sh` times it next to
//! `tsgnav tree --json` over the same library, so the ratio of the two is measured in one run.
//!
//! Usage: `cmark_floor DIR...` prints `FILES files, BYTES bytes, EVENTS events`. Run without a
//! folder (as `cargo bench --bench cmark_floor` does), it reads the bundled `tsg/` guides.
//! Bench code only: it reads files and writes one line to stdout; it uses nothing of the crate.

use std::path::{Path, PathBuf};

use pulldown_cmark::{Options, Parser};

/// The options `tsg::walk` parses with, so the floor does the same parsing work.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_GFM
}

/// Every `.md` file under `dir`, depth first, each folder sorted.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "md") {
            out.push(p);
        }
    }
}

fn main() {
    let mut roots: Vec<PathBuf> = std::env::args_os()
        .skip(1)
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect();
    if roots.is_empty() {
        roots.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tsg"));
    }
    let mut files = Vec::new();
    for r in &roots {
        walk(r, &mut files);
    }
    let (mut bytes, mut events) = (0usize, 0usize);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        bytes += text.len();
        events += Parser::new_ext(&text, options()).into_offset_iter().count();
    }
    println!("{} files, {bytes} bytes, {events} events", files.len());
}
