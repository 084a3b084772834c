//! Shorter pack entries, for the mirror (`super::mirror`). Within one guide's entry, a node's
//! id, its parent's id and an edge's target that name a section of that same guide
//! (`PATH#slug`) are written without the guide's path, which the entry holds once; and a
//! probe's block as written (`source`) is written as nothing when it is what would run
//! (`code`), as it is for every block without prompts. Each field is read back as it was.
//!
//! The guide's path and the probe's code are the context: bincode (de)serialises a struct's
//! fields in order, and the mirror puts `path` before the nodes and `code` before `source`, so
//! each is kept on the thread that meets it, then used by the fields after it in the same
//! entry. Imports only std and serde.

use std::cell::RefCell;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

thread_local! {
    /// The path of the guide whose entry this thread is (de)serialising.
    static PATH: RefCell<String> = const { RefCell::new(String::new()) };
    /// The code of the probe whose fields this thread is (de)serialising.
    static CODE: RefCell<String> = const { RefCell::new(String::new()) };
}

fn keep(slot: &'static std::thread::LocalKey<RefCell<String>>, s: &str) {
    slot.with(|k| {
        let mut k = k.borrow_mut();
        k.clear();
        k.push_str(s);
    })
}

/// A section's id as written: the part after `PATH#` when it names the entry's own guide,
/// else the whole id.
#[derive(Serialize, Deserialize)]
enum Id<'a> {
    Own(&'a str),
    Full(&'a str),
}

impl<'a> Id<'a> {
    fn of(id: &'a str, path: &str) -> Id<'a> {
        match id
            .strip_prefix(path)
            .and_then(|rest| rest.strip_prefix('#'))
        {
            Some(slug) => Id::Own(slug),
            None => Id::Full(id),
        }
    }

    fn text(self) -> String {
        match self {
            Id::Own(slug) => PATH.with(|p| {
                let p = p.borrow();
                let mut id = String::with_capacity(p.len() + 1 + slug.len());
                id.push_str(&p);
                id.push('#');
                id.push_str(slug);
                id
            }),
            Id::Full(id) => id.to_string(),
        }
    }
}

/// The guide's path: written as it is, and kept as the context of the fields after it.
pub mod path {
    use super::*;

    pub fn serialize<S: Serializer>(path: &str, s: S) -> Result<S::Ok, S::Error> {
        keep(&PATH, path);
        path.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        let path = String::deserialize(d)?;
        keep(&PATH, &path);
        Ok(path)
    }
}

/// A node's id or an edge's target.
pub mod id {
    use super::*;

    pub fn serialize<S: Serializer>(id: &str, s: S) -> Result<S::Ok, S::Error> {
        PATH.with(|p| Id::of(id, &p.borrow()).serialize(s))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        Ok(Id::deserialize(d)?.text())
    }
}

/// A node's parent.
pub mod parent {
    use super::*;

    pub fn serialize<S: Serializer>(id: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        PATH.with(|p| id.as_deref().map(|id| Id::of(id, &p.borrow())).serialize(s))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        Ok(Option::<Id>::deserialize(d)?.map(Id::text))
    }
}

/// A probe's code: written as it is, and kept as the context of its `source`.
pub mod code {
    use super::*;

    pub fn serialize<S: Serializer>(code: &str, s: S) -> Result<S::Ok, S::Error> {
        keep(&CODE, code);
        code.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        let code = String::deserialize(d)?;
        keep(&CODE, &code);
        Ok(code)
    }
}

/// A probe's block as written: nothing when it is its code.
pub mod source {
    use super::*;

    pub fn serialize<S: Serializer>(source: &str, s: S) -> Result<S::Ok, S::Error> {
        let same = CODE.with(|c| *c.borrow() == source);
        (!same).then_some(source).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        match Option::<&str>::deserialize(d)? {
            Some(source) => Ok(source.to_string()),
            None => Ok(CODE.with(|c| c.borrow().clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Entry {
        #[serde(with = "path")]
        path: String,
        #[serde(with = "id")]
        id: String,
        #[serde(with = "parent")]
        parent: Option<String>,
        #[serde(with = "code")]
        code: String,
        #[serde(with = "source")]
        source: String,
    }

    fn round(e: &Entry) -> (Vec<u8>, Entry) {
        let bytes = bincode::serialize(e).expect("serialises");
        // Another entry in between: each entry's fields use its own context.
        let other = Entry {
            path: "z.md".into(),
            id: "z.md#q".into(),
            parent: None,
            code: "other".into(),
            source: "other".into(),
        };
        bincode::serialize(&other).expect("serialises");
        (
            bytes.clone(),
            bincode::deserialize(&bytes).expect("reads back"),
        )
    }

    #[test]
    fn own_ids_and_a_source_that_is_its_code_are_written_short_and_read_back_whole() {
        let e = Entry {
            path: "dir/guide.md".into(),
            id: "dir/guide.md#mitigate-now".into(),
            parent: Some("dir/guide.md#steps".into()),
            code: "kubectl get pods -n x".into(),
            source: "kubectl get pods -n x".into(),
        };
        let (bytes, back) = round(&e);
        assert_eq!(back, e);
        // The path is written once; the code once.
        let text = String::from_utf8_lossy(&bytes);
        assert_eq!(text.matches("dir/guide.md").count(), 1, "{text}");
        assert_eq!(text.matches("kubectl get pods").count(), 1, "{text}");
    }

    #[test]
    fn other_guides_ids_near_misses_and_a_source_with_prompts_are_written_whole() {
        for (id, parent) in [
            ("other.md#step", None),
            ("dir/guide.mdx#step", Some("dir/guide.md")),
            ("dir/guide.md", Some("dir/guide.md#")),
            ("", Some("#only-a-slug")),
        ] {
            let e = Entry {
                path: "dir/guide.md".into(),
                id: id.into(),
                parent: parent.map(str::to_string),
                code: "ls".into(),
                source: "$ ls".into(),
            };
            let (bytes, back) = round(&e);
            assert_eq!(back, e);
            assert!(String::from_utf8_lossy(&bytes).contains("$ ls"));
        }
    }

    #[test]
    fn an_empty_path_still_reads_back_each_id() {
        let e = Entry {
            path: String::new(),
            id: "#top".into(),
            parent: Some("top".into()),
            code: String::new(),
            source: String::new(),
        };
        assert_eq!(round(&e).1, e);
    }
}
