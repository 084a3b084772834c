//! Reading a file whole with a size hint from its metadata that may be stale, into a buffer
//! kept from one file to the next.

use super::{read_open_into, read_whole};

fn file_with(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf, std::fs::File) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("g.md");
    std::fs::write(&path, bytes).expect("write");
    let f = std::fs::File::open(&path).expect("open");
    (dir, path, f)
}

#[test]
fn a_file_that_grew_since_its_metadata_is_read_whole() {
    let text: Vec<u8> = (0..20_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    for hint in [0, 1, 100, 4095, 4096, 19_999] {
        let (_d, _p, mut f) = file_with(&text);
        let mut out = Vec::new();
        let n = read_whole(&mut f, hint, 1 << 20, &mut out).expect("read");
        assert_eq!(&out[..n], &text[..], "hint {hint}");
    }
}

#[test]
fn a_file_that_shrank_is_read_to_its_end_only() {
    let (_d, _p, mut f) = file_with(b"# Short\n");
    let mut out = Vec::new();
    let n = read_whole(&mut f, 10_000, 1 << 20, &mut out).expect("read");
    assert_eq!(&out[..n], b"# Short\n");
}

#[test]
fn a_shorter_file_after_a_longer_one_is_its_own_text_only() {
    let mut buf = Vec::new();
    let (_d, p, f) = file_with(b"# An older and longer guide\n\nWith a paragraph.\n");
    let meta = f.metadata().expect("meta");
    let first = read_open_into(&p, f, &meta, &mut buf)
        .expect("read")
        .to_string();
    assert_eq!(first, "# An older and longer guide\n\nWith a paragraph.\n");
    let (_d2, p2, f2) = file_with(b"# New\n");
    let meta2 = f2.metadata().expect("meta");
    assert_eq!(
        read_open_into(&p2, f2, &meta2, &mut buf).expect("read"),
        "# New\n"
    );
    let (_d3, p3, f3) = file_with(b"");
    let meta3 = f3.metadata().expect("meta");
    assert_eq!(read_open_into(&p3, f3, &meta3, &mut buf).expect("read"), "");
}

#[test]
fn a_binary_file_after_a_text_file_is_still_refused() {
    let mut buf = Vec::new();
    let (_d, p, f) = file_with(b"# Text\n");
    let meta = f.metadata().expect("meta");
    read_open_into(&p, f, &meta, &mut buf).expect("read");
    let (_d2, p2, f2) = file_with(b"PK\x03\x04\x00\x00binary");
    let meta2 = f2.metadata().expect("meta");
    let err = read_open_into(&p2, f2, &meta2, &mut buf).expect_err("binary");
    assert!(
        matches!(err, super::LoadError::Binary { offset: 4, .. }),
        "{err:?}"
    );
    // Zeros left past a shorter text by a longer earlier file are not the file's.
    let (_d3, p3, f3) = file_with(b"# T\n");
    let meta3 = f3.metadata().expect("meta");
    assert_eq!(
        read_open_into(&p3, f3, &meta3, &mut buf).expect("read"),
        "# T\n"
    );
}

#[test]
fn a_device_that_never_ends_is_read_only_past_the_limit() {
    let mut zero = std::fs::File::open("/dev/zero").expect("/dev/zero");
    let mut out = Vec::new();
    let n = read_whole(&mut zero, 0, 100_000, &mut out).expect("read");
    assert!(n > 100_000, "{n}");
    assert!(out.len() <= 100_001, "the buffer grew to {}", out.len());
}

#[test]
fn a_guide_name_on_a_device_is_refused_with_its_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = dir.path().join("zero.md");
    std::os::unix::fs::symlink("/dev/zero", &link).expect("symlink");
    let f = std::fs::File::open(&link).expect("open");
    let meta = f.metadata().expect("meta");
    let mut buf = Vec::new();
    let err = read_open_into(&link, f, &meta, &mut buf).expect_err("endless");
    let shown = err.to_string();
    assert!(matches!(err, super::LoadError::Endless { .. }), "{shown}");
    assert!(
        shown.contains("zero.md") && shown.contains("16 MiB"),
        "{shown}"
    );
    assert!(buf.len() <= 16 * 1024 * 1024 + 1, "{}", buf.len());
}
