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
