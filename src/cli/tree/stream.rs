//! `tree --json PATH...` as one stream over the cores: parse, classify and write JSON per
//! guide on the thread that read it, then the guides in file order on this one, each with its
//! anchor-less targets resolved as `tsg::link_library` resolves them. IO edge of the CLI.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::SETTLED;
use crate::tsg::Guide;

/// One guide's JSON, made on the thread that parsed it; the guide itself is gone by then.
struct GuideJson {
    bytes: Vec<u8>,
    /// Targets without an anchor: they may name another guide, whose first node they become.
    holes: Vec<crate::tsg::json::Hole>,
    path: String,
    first: Option<String>,
}

/// `tree --json` over `paths` as one stream: each guide is read (from the pack, or parsed,
/// classified and its roles refined) and its JSON written on the core that read it, and this thread
/// writes each guide out (in file order) as soon as the guides its targets may name are in: so
/// output starts with the first file, no core waits for a batch, and the library is never held
/// whole. The bytes are those of loading the library, linking it and serialising it. Returns
/// whether a file failed to load (each problem is printed as it is met, in file order).
pub(super) fn stream_json(
    paths: &[PathBuf],
    out: &mut impl std::io::Write,
) -> anyhow::Result<bool> {
    // Each guide parsed is classified and its roles refined first (`SETTLED`; a guide from the
    // pack was when it was parsed).
    let map = |g: Guide| {
        // A guide's JSON is mostly under 1.25 times as long as its markdown (the node
        // bodies, which it leaves out): sized so, it is seldom grown and copied again.
        let markdown: usize = g.nodes.iter().map(|n| n.body.len() + n.title.len()).sum();
        let mut j = GuideJson {
            bytes: Vec::with_capacity(markdown + markdown / 4 + 1024),
            holes: Vec::new(),
            first: g.nodes.first().map(|n| n.id.clone()),
            path: g.path.clone(),
        };
        crate::tsg::json::guide(&g, &mut j.bytes, &mut j.holes);
        j
    };
    let mut w = Stream::new(out);
    // A cache whose folder cannot be made is not used (`Cache::open` decides, while the
    // folders are walked).
    let cache = crate::cli::guide_cache();
    // With a pack to read, the files are handed over only once the walk is over (the pack is
    // opened meanwhile): a guide whose link names no guide waits for the walk's end before it
    // can be written, so guides decoded while the walk goes on are held, and holding their
    // JSON cost more (fresh memory) than decoding during the walk saved. Parsing is slower
    // than the walk, so without a pack the files are parsed as they are found.
    let warm = cache.as_ref().is_some_and(|c| c.has_pack(paths));
    let walk = |found: &mut dyn FnMut(crate::load::Source)| {
        let mut rels = Vec::new();
        let errors = if warm {
            let mut files = Vec::new();
            let errors = crate::load::discover_each_with(paths, true, &mut |s| files.push(s));
            rels = files.iter().map(|s| s.rel.clone()).collect();
            files.into_iter().for_each(found);
            errors
        } else {
            crate::load::discover_each(paths, &mut |s| {
                rels.push(s.rel.clone());
                found(s);
            })
        };
        (errors, rels)
    };
    let packed = cache.as_ref().map(|c| (c, paths));
    let (_, writer) = crate::load::parse_streamed(
        walk,
        packed,
        SETTLED,
        Duration::MAX,
        &map,
        |step| match step {
            crate::load::Streamed::Ready(i, r) => w.guide(i, r),
            crate::load::Streamed::Walked((errors, rels)) => w.walked(errors, rels),
            crate::load::Streamed::Idle => {}
        },
    );
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    w.finish()
}

/// The output of [`stream_json`] as guides arrive in file order: each is written once every
/// guide its anchor-less targets may name is in (the last file of that relative path wins,
/// as in `tsg::link_library`); problems are printed in the order loading them would print.
struct Stream<'a, W: std::io::Write> {
    out: &'a mut W,
    result: std::io::Result<()>,
    wrote: usize,
    /// How many guides (or failures) have arrived.
    arrived: usize,
    /// The first node id of the last guide of each path that has one.
    firsts: HashMap<String, String>,
    waiting: VecDeque<GuideJson>,
    /// The last file index of each relative path, once the walk is over.
    last: Option<HashMap<String, usize>>,
    /// Problems met before the walk's own were printed.
    held: Vec<crate::load::LoadError>,
    failed: bool,
}

impl<'a, W: std::io::Write> Stream<'a, W> {
    fn new(out: &'a mut W) -> Self {
        let result = out.write_all(b"{\"guides\":[");
        Stream {
            out,
            result,
            wrote: 0,
            arrived: 0,
            firsts: HashMap::new(),
            waiting: VecDeque::new(),
            last: None,
            held: Vec::new(),
            failed: false,
        }
    }

    /// The walk is over: its problems, and the relative path of each file in order.
    fn walked(&mut self, errors: Vec<crate::load::LoadError>, rels: Vec<String>) {
        for e in errors.iter().chain(std::mem::take(&mut self.held).iter()) {
            self.failed |= report(e);
        }
        self.last = Some(rels.into_iter().enumerate().map(|(i, r)| (r, i)).collect());
        self.flush(false);
    }

    fn guide(&mut self, i: usize, r: Result<GuideJson, crate::load::LoadError>) {
        match r {
            Ok(j) => {
                if let Some(f) = &j.first {
                    self.firsts.insert(j.path.clone(), f.clone());
                }
                self.waiting.push_back(j);
            }
            Err(e) if self.last.is_none() => self.held.push(e),
            Err(e) => self.failed |= report(&e),
        }
        self.arrived = i + 1;
        self.flush(false);
    }

    /// Writes the guides that can be; with `all`, every one (every guide is in).
    fn flush(&mut self, all: bool) {
        let arrived = self.arrived;
        let known = |last: &Option<HashMap<String, usize>>, to: &str| {
            all || last
                .as_ref()
                .is_some_and(|l| l.get(to).is_none_or(|&k| k < arrived))
        };
        let mut ready = Vec::new();
        while let Some(j) = self.waiting.front() {
            if !j.holes.iter().all(|h| known(&self.last, &h.to)) {
                break;
            }
            ready.extend(self.waiting.pop_front());
        }
        if self.result.is_ok() && !ready.is_empty() {
            self.result = write_guides(self.out, &ready, &self.firsts, self.wrote > 0);
        }
        self.wrote += ready.len();
    }

    fn finish(mut self) -> anyhow::Result<bool> {
        for e in std::mem::take(&mut self.held) {
            self.failed |= report(&e);
        }
        self.flush(true);
        std::mem::replace(&mut self.result, Ok(()))?;
        self.out.write_all(b"]}\n")?;
        Ok(self.failed)
    }
}

/// Prints a load problem; says whether it is an error (not a warning).
fn report(e: &crate::load::LoadError) -> bool {
    let level = if e.is_warning() { "warning" } else { "error" };
    eprintln!("{level}: {e}");
    !e.is_warning()
}

/// Writes guides' JSON, each hole filled with the first node of the guide it names, as one
/// vectored write of their pieces where they lie: a run of guides longer than the writer's
/// buffer goes to the file without being copied into it first (0.6 % fewer instructions at
/// 2,000 guides; no change in time could be told from the noise).
fn write_guides(
    out: &mut impl std::io::Write,
    guides: &[GuideJson],
    firsts: &HashMap<String, String>,
    comma: bool,
) -> std::io::Result<()> {
    use std::io::IoSlice;
    let fills: Vec<Vec<u8>> = guides
        .iter()
        .flat_map(|j| &j.holes)
        .filter_map(|h| firsts.get(&h.to))
        .map(|id| {
            let mut s = Vec::with_capacity(id.len() + 2);
            crate::tsg::json::string(&mut s, id);
            s
        })
        .collect();
    let mut fill = fills.iter();
    let mut pieces = Vec::with_capacity(guides.len() * 2 + fills.len() * 2);
    for (k, j) in guides.iter().enumerate() {
        if comma || k > 0 {
            pieces.push(IoSlice::new(b","));
        }
        let mut at = 0;
        for h in &j.holes {
            if firsts.contains_key(&h.to) {
                pieces.push(IoSlice::new(j.bytes.get(at..h.start).unwrap_or_default()));
                pieces.push(IoSlice::new(fill.next().map_or(&[][..], Vec::as_slice)));
                at = h.end;
            }
        }
        pieces.push(IoSlice::new(j.bytes.get(at..).unwrap_or_default()));
    }
    write_all_vectored(out, &mut pieces)
}

/// `Write::write_all` for a vectored write (std's own is not stable): writes every piece,
/// again after a short write or an interrupted one.
fn write_all_vectored(
    out: &mut impl std::io::Write,
    mut pieces: &mut [std::io::IoSlice<'_>],
) -> std::io::Result<()> {
    std::io::IoSlice::advance_slices(&mut pieces, 0);
    while !pieces.is_empty() {
        match out.write_vectored(pieces) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => std::io::IoSlice::advance_slices(&mut pieces, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that takes at most five bytes a call, across pieces, and is interrupted every
    /// third call: every byte must still arrive, once, in order.
    struct Trickle {
        got: Vec<u8>,
        calls: usize,
    }

    impl std::io::Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.write_vectored(&[std::io::IoSlice::new(buf)])
        }

        fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(3) {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            let mut n = 0;
            for b in bufs {
                let take = b.len().min(5 - n);
                self.got.extend_from_slice(&b[..take]);
                n += take;
                if n == 5 {
                    break;
                }
            }
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn guide(bytes: &str, holes: &[(usize, usize, &str)]) -> GuideJson {
        GuideJson {
            bytes: bytes.as_bytes().to_vec(),
            holes: holes
                .iter()
                .map(|&(start, end, to)| crate::tsg::json::Hole {
                    start,
                    end,
                    to: to.to_string(),
                })
                .collect(),
            path: String::new(),
            first: None,
        }
    }

    #[test]
    fn guides_are_written_whole_with_their_holes_filled_through_short_writes() {
        let firsts: HashMap<String, String> =
            [("b.md".to_string(), "b.md#\"top\"".to_string())].into();
        let guides = [
            guide(r#"{"to":null,"x":1}"#, &[(6, 10, "b.md")]),
            guide(r#"{"to":null}"#, &[(6, 10, "missing.md")]),
            guide("", &[]),
            guide(
                r#"{"a":null,"b":null}"#,
                &[(5, 9, "b.md"), (14, 18, "b.md")],
            ),
        ];
        let mut w = Trickle {
            got: Vec::new(),
            calls: 0,
        };
        write_guides(&mut w, &guides, &firsts, true).expect("written");
        assert_eq!(
            String::from_utf8(w.got).expect("utf-8"),
            concat!(
                r#",{"to":"b.md#\"top\"","x":1}"#,
                r#",{"to":null}"#,
                ",",
                r#",{"a":"b.md#\"top\"","b":"b.md#\"top\""}"#
            )
        );
        assert!(w.calls > 20, "the writer was asked {} times", w.calls);
        // The first guides of the output: a comma only between them.
        let mut w = Trickle {
            got: Vec::new(),
            calls: 0,
        };
        write_guides(&mut w, &guides[1..3], &firsts, false).expect("written");
        assert_eq!(w.got, br#"{"to":null},"#);
    }

    #[test]
    fn a_writer_that_takes_nothing_is_an_error_not_a_loop() {
        struct Full;
        impl std::io::Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Ok(0)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let e = write_guides(&mut Full, &[guide("{}", &[])], &HashMap::new(), false)
            .expect_err("nothing written");
        assert_eq!(e.kind(), std::io::ErrorKind::WriteZero);
    }
}
