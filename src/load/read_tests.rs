//! Reading a file whole with a size hint from its metadata that may be stale.

use super::read_whole;

fn file_with(bytes: &[u8]) -> (tempfile::TempDir, std::fs::File) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("g.md");
    std::fs::write(&path, bytes).expect("write");
    let f = std::fs::File::open(&path).expect("open");
    (dir, f)
}

#[test]
fn a_file_that_grew_since_its_metadata_is_read_whole() {
    let text: Vec<u8> = (0..20_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    for hint in [0, 1, 100, 4095, 4096, 19_999] {
        let (_d, mut f) = file_with(&text);
        let mut out = Vec::new();
        read_whole(&mut f, hint, &mut out).expect("read");
        assert_eq!(out, text, "hint {hint}");
    }
}

#[test]
fn a_file_that_shrank_leaves_no_zeros_behind() {
    let (_d, mut f) = file_with(b"# Short\n");
    let mut out = Vec::new();
    read_whole(&mut f, 10_000, &mut out).expect("read");
    assert_eq!(out, b"# Short\n");
}

#[test]
fn what_the_buffer_held_before_is_gone() {
    let (_d, mut f) = file_with(b"new");
    let mut out = b"an older and longer guide".to_vec();
    read_whole(&mut f, 3, &mut out).expect("read");
    assert_eq!(out, b"new");
    let (_d2, mut empty) = file_with(b"");
    read_whole(&mut empty, 0, &mut out).expect("read");
    assert!(out.is_empty());
}
