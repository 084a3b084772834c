//! The walk's order, the paths below the root it gives, what it skips, and each file once.

use super::*;

fn touch(root: &Path, rel: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, "# T\n").expect("write");
}

fn rels(roots: &[PathBuf]) -> Vec<String> {
    let (files, errors) = discover(roots);
    assert!(errors.iter().all(LoadError::is_warning), "{errors:?}");
    files.into_iter().map(|s| s.rel).collect()
}

#[test]
fn files_come_in_name_order_folder_by_folder_with_their_paths_below_the_root() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("lib");
    for rel in [
        "b.md",
        "B.md",
        "a/z.markdown",
        "a/b/c.MD",
        "a-b.md",
        "notes.txt",
        ".hidden/x.md",
        "target/x.md",
        "node_modules/x.md",
        "a/.draft.md",
    ] {
        touch(&root, rel);
    }
    // Folder by folder: `a/` before `a-b.md`, as the names sort (where comparing the whole
    // paths as text would put `a-b.md` first, since `-` sorts before `/`).
    let want = ["B.md", "a/b/c.MD", "a/z.markdown", "a-b.md", "b.md"];
    assert_eq!(rels(std::slice::from_ref(&root)), want);
    // The root as typed with a trailing slash gives the same paths below it.
    let slashed = PathBuf::from(format!("{}/", root.display()));
    assert_eq!(rels(&[slashed]), want);
    let (files, _) = discover(std::slice::from_ref(&root));
    assert_eq!(files[1].file, root.join("a").join("b").join("c.MD"));
}

#[test]
fn a_file_two_roots_or_a_link_lead_to_comes_once_where_it_was_first_met() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("lib");
    touch(&root, "x/one.md");
    touch(&root, "y/two.md");
    std::os::unix::fs::symlink(root.join("x/one.md"), root.join("y/alias.md")).expect("link");
    std::os::unix::fs::symlink(root.join("x"), root.join("z")).expect("link");
    // `z` leads back to `x`, read already: a warning, and its file is not read twice.
    assert_eq!(rels(std::slice::from_ref(&root)), ["x/one.md", "y/two.md"]);
    let sub = root.join("y");
    assert_eq!(rels(&[sub, root.clone()]), ["alias.md", "two.md"]);
}

/// What the walk saw of each file, when asked to look: what the file system says of the file
/// itself (through a link, of what it leads to), not of the link; an unreadable file is not
/// plain, so the cache sends it to be opened (and fail). Not asked, it looks at nothing.
#[test]
fn a_walk_asked_to_look_sees_each_file_as_the_file_system_does() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("lib");
    touch(&root, "a.md");
    std::fs::write(root.join("long.md"), "# Long\n\nsome text\n").expect("write");
    // A link to a file outside the root (one inside would be that file met twice).
    let outside = dir.path().join("outside.md");
    std::fs::write(&outside, "# Outside, longer\n\nmore text here\n").expect("write");
    std::os::unix::fs::symlink(&outside, root.join("link.md")).expect("link");
    touch(&root, "locked.md");
    let locked = root.join("locked.md");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let mut seen = Vec::new();
    let errors = discover_each_with(std::slice::from_ref(&root), true, &mut |s| seen.push(s));
    assert!(errors.is_empty(), "{errors:?}");
    let by_rel = |rel: &str| {
        let s = seen.iter().find(|s| s.rel == rel).expect(rel);
        s.seen.expect("looked at")
    };
    for rel in ["a.md", "long.md", "link.md", "locked.md"] {
        let meta = std::fs::metadata(root.join(rel)).expect("metadata");
        let want = Seen::of(&meta);
        assert_eq!(by_rel(rel).len, meta.len(), "{rel}");
        assert_eq!(by_rel(rel).mtime_ns, want.mtime_ns, "{rel}");
        assert!(want.mtime_ns.is_some(), "{rel}");
    }
    // Through the link: the size of what it leads to (the link itself is shorter).
    let target = "# Outside, longer\n\nmore text here\n".len() as u64;
    assert_eq!(by_rel("link.md").len, target);
    assert!(by_rel("a.md").plain && by_rel("link.md").plain);
    assert!(!by_rel("locked.md").plain, "no read bit");
    // Not asked: nothing looked at.
    let mut plain_walk = Vec::new();
    discover_each(std::slice::from_ref(&root), &mut |s| plain_walk.push(s));
    assert_eq!(plain_walk.len(), seen.len());
    assert!(plain_walk.iter().all(|s| s.seen.is_none()));
    // A file given as a root is looked at too.
    let mut one = Vec::new();
    discover_each_with(&[root.join("long.md")], true, &mut |s| one.push(s));
    assert_eq!(one[0].seen.map(|s| s.len), Some(18));
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a plain C call with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// A pipe or a device named `.md` in a folder (or a link in a folder to one) is named as not
/// a file and not handed out to be opened, where opening a pipe blocked the whole load; with
/// or without looking. A pipe given by name as a root is still handed out (`<(cat x.md)`).
#[test]
fn a_pipe_or_device_met_in_a_folder_is_refused_by_name_not_opened() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("lib");
    touch(&root, "good.md");
    mkfifo(&root.join("pipe.md"));
    std::os::unix::fs::symlink("/dev/null", root.join("null.md")).expect("link");
    mkfifo(&root.join("notes.txt"));
    for look in [false, true] {
        let mut files = Vec::new();
        let errors = discover_each_with(std::slice::from_ref(&root), look, &mut |s| files.push(s));
        let rels: Vec<_> = files.iter().map(|s| s.rel.as_str()).collect();
        assert_eq!(rels, ["good.md"], "look {look}");
        let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(
            shown[0].contains("null.md: is a character device, not a file"),
            "{shown:?}"
        );
        assert!(
            shown[1].contains("pipe.md: is a named pipe (FIFO), not a file"),
            "{shown:?}"
        );
        assert!(errors.iter().all(|e| !e.is_warning()));
    }
    let by_name = root.join("pipe.md");
    let (files, errors) = discover(std::slice::from_ref(&by_name));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(files.len(), 1);
}
