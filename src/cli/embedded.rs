//! The guides bundled into the binary, so `tsgnav` works from any folder.

use crate::tsg::{self, Library};

/// (path, text) of every bundled guide.
pub const GUIDES: &[(&str, &str)] = &[
    ("TEMPLATE.md", include_str!("../../tsg/TEMPLATE.md")),
    (
        "swift-networking.md",
        include_str!("../../tsg/swift-networking.md"),
    ),
    (
        "maestro-stuck-deletion.md",
        include_str!("../../tsg/maestro-stuck-deletion.md"),
    ),
];

/// The bundled template text (the default for `lint --template`).
pub fn template() -> tsg::Guide {
    let mut g = tsg::parse_guide("TEMPLATE.md", GUIDES[0].1);
    g.file = "tsg/TEMPLATE.md (bundled)".into();
    g
}

/// The bundled library, as if read from `tsg/`.
pub fn library() -> Library {
    let mut lib = Library::default();
    for (path, text) in GUIDES {
        let mut g = tsg::parse_guide(path, text);
        g.file = format!("tsg/{path}");
        lib.guides.push(g);
    }
    tsg::link_library(&mut lib);
    lib
}
