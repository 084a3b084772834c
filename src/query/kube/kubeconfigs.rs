//! Kubeconfigs parsed once per session: a fleet kubeconfig of N contexts was parsed again
//! for each probe of each context (N² work in a wave run over N contexts). [`shared`] keeps
//! the parsed form of each path, keyed by what the files look like on disk (size,
//! modification time, inode), so a file that changes is read again at its next use and a
//! context is looked up in the parsed form. A handful of paths are kept, the least recently
//! used dropped first.
//!
//! IO edge (reads file metadata). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use kube::config::Kubeconfig;

use super::error::KubeError;

/// How many kubeconfig paths stay parsed.
const KEPT: usize = 8;

/// What one file of a kubeconfig looked like when it was parsed (`None`: it did not exist).
type Stamp = Vec<Option<(u64, SystemTime, u64)>>;

struct Entry {
    path: PathBuf,
    stamp: Stamp,
    parsed: Arc<Kubeconfig>,
}

static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// Size, modification time and inode of each file of `path` (a `KUBECONFIG`-style list).
fn stamp(path: &Path) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    std::env::split_paths(path.as_os_str())
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| {
            let m = std::fs::metadata(p).ok()?;
            Some((m.len(), m.modified().ok()?, m.ino()))
        })
        .collect()
}

/// The kubeconfig at `path`, parsed at most once while its files stay as they are (see
/// [`super::client::read_kubeconfig`] for how a list is merged).
pub fn shared(path: &Path) -> Result<Arc<Kubeconfig>, KubeError> {
    let now = stamp(path);
    {
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = cache.iter().position(|e| e.path == path) {
            if cache[i].stamp == now {
                let e = cache.remove(i);
                let parsed = e.parsed.clone();
                cache.push(e);
                return Ok(parsed);
            }
            cache.remove(i);
        }
    }
    // Parsed outside the lock: probes of other kubeconfigs need not wait for this one.
    let parsed = Arc::new(super::client::parse_kubeconfig(path)?);
    // A file that changed while it was read is read again next time.
    if stamp(path) == now {
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        cache.retain(|e| e.path != path);
        if cache.len() >= KEPT {
            cache.remove(0);
        }
        cache.push(Entry {
            path: path.to_path_buf(),
            stamp: now,
            parsed: parsed.clone(),
        });
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(contexts: &[&str]) -> String {
        let mut s = String::from("apiVersion: v1\nkind: Config\nclusters:\n");
        for c in contexts {
            s.push_str(&format!(
                "- name: {c}\n  cluster:\n    server: http://127.0.0.1:1/{c}\n"
            ));
        }
        s.push_str("contexts:\n");
        for c in contexts {
            s.push_str(&format!(
                "- name: {c}\n  context:\n    cluster: {c}\n    user: u\n"
            ));
        }
        s.push_str("users:\n- name: u\n  user: {}\n");
        s
    }

    fn names(kc: &Kubeconfig) -> Vec<String> {
        kc.contexts.iter().map(|c| c.name.clone()).collect()
    }

    #[test]
    fn a_kubeconfig_is_parsed_once_and_again_when_it_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("fleet");
        std::fs::write(&path, config(&["mc-a", "mc-b"])).expect("write");
        let first = shared(&path).expect("parsed");
        let again = shared(&path).expect("parsed");
        assert!(Arc::ptr_eq(&first, &again), "the second use parsed again");
        assert_eq!(names(&again), ["mc-a", "mc-b"]);
        // Rewritten under the same name (a new inode, another size): read again.
        let next = dir.path().join("next");
        std::fs::write(&next, config(&["mc-a", "mc-b", "mc-c"])).expect("write");
        std::fs::rename(&next, &path).expect("rename");
        let changed = shared(&path).expect("parsed");
        assert!(!Arc::ptr_eq(&first, &changed));
        assert_eq!(names(&changed), ["mc-a", "mc-b", "mc-c"]);
    }

    #[test]
    fn a_list_of_files_is_keyed_by_every_file_of_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, config(&["mc-a"])).expect("write");
        let list = std::env::join_paths([&a, &b]).expect("list");
        let list = PathBuf::from(list);
        assert_eq!(names(&shared(&list).expect("parsed")), ["mc-a"]);
        // The second file appears: the merged view must hold its context too.
        std::fs::write(&b, config(&["mc-b"])).expect("write");
        assert_eq!(names(&shared(&list).expect("parsed")), ["mc-a", "mc-b"]);
    }

    #[test]
    fn a_file_that_cannot_be_parsed_is_an_error_each_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("bad");
        std::fs::write(&path, "contexts: [").expect("write");
        assert!(shared(&path).is_err());
        assert!(shared(&path).is_err());
        std::fs::write(&path, config(&["mc-a"])).expect("write");
        assert_eq!(names(&shared(&path).expect("parsed")), ["mc-a"]);
    }
}
