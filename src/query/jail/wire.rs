//! The jail's plan as bytes, for the trip from tsgnav to its launcher ([`super::launcher`]):
//! what the child side does ([`Plan`]) and what it then runs ([`Exec`]: the probe's program,
//! arguments and whole environment). Length-prefixed fields, little-endian; a plan that does
//! not read back whole is refused, never half-applied.
//!
//! IO edge (part of the jail). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::ffi::CString;

use super::child::{Bind, Plan, Secret};

/// What the jail's first process runs once the jail is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exec {
    pub program: CString,
    /// `argv`, the program's name first.
    pub args: Vec<CString>,
    /// `NAME=value`, the whole environment (nothing is inherited from the launcher).
    pub env: Vec<CString>,
}

/// A plan that did not read back whole.
#[derive(Debug, thiserror::Error)]
#[error("the jail's plan is damaged at byte {at}: {what}")]
pub struct WireError {
    pub at: usize,
    pub what: &'static str,
}

/// The bytes of `plan` (all but the descriptors and the filter, which the launcher makes) and
/// `exec`.
pub fn encode(plan: &Plan, exec: &Exec) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(4096));
    w.bytes(MAGIC);
    w.bytes(&plan.uid_map);
    w.bytes(&plan.gid_map);
    w.count(plan.binds.len());
    for b in &plan.binds {
        w.bytes(b.src.as_bytes());
        w.bytes(b.dst.as_bytes());
        w.strings(&b.dirs);
        w.count(usize::from(b.file) | usize::from(b.read_only) << 1);
    }
    w.strings(&plan.covers);
    w.strings(&plan.mkdirs);
    w.count(plan.links.len());
    for (t, l) in &plan.links {
        w.bytes(t.as_bytes());
        w.bytes(l.as_bytes());
    }
    w.count(plan.secrets.len());
    for s in &plan.secrets {
        w.bytes(s.path.as_bytes());
        w.strings(&s.dirs);
        w.bytes(&s.bytes);
    }
    w.bytes(plan.cwd.as_bytes());
    w.bytes(plan.fallback_cwd.as_bytes());
    w.count(plan.ports.len());
    for p in &plan.ports {
        w.count(usize::from(*p));
    }
    w.bytes(exec.program.as_bytes());
    w.strings(&exec.args);
    w.strings(&exec.env);
    w.0
}

/// Reads back what [`encode`] wrote; `sock` is where the child reports.
pub fn decode(buf: &[u8], sock: std::os::fd::RawFd) -> Result<(Plan, Exec), WireError> {
    let mut r = Reader { buf, at: 0 };
    if r.bytes()? != MAGIC {
        return Err(r.err("it was written by another version of tsgnav"));
    }
    let uid_map = r.bytes()?.to_vec();
    let gid_map = r.bytes()?.to_vec();
    let mut binds = Vec::new();
    for _ in 0..r.count()? {
        let (src, dst, dirs) = (r.cstring()?, r.cstring()?, r.strings()?);
        let bits = r.count()?;
        binds.push(Bind {
            src,
            dst,
            dirs,
            file: bits & 1 != 0,
            read_only: bits & 2 != 0,
        });
    }
    let covers = r.strings()?;
    let mkdirs = r.strings()?;
    let mut links = Vec::new();
    for _ in 0..r.count()? {
        links.push((r.cstring()?, r.cstring()?));
    }
    let mut secrets = Vec::new();
    for _ in 0..r.count()? {
        let (path, dirs) = (r.cstring()?, r.strings()?);
        let bytes = r.bytes()?.to_vec();
        secrets.push(Secret { path, dirs, bytes });
    }
    let (cwd, fallback_cwd) = (r.cstring()?, r.cstring()?);
    let mut ports = Vec::new();
    for _ in 0..r.count()? {
        ports.push(u16::try_from(r.count()?).map_err(|_| r.err("a port above 65535"))?);
    }
    let exec = Exec {
        program: r.cstring()?,
        args: r.strings()?,
        env: r.strings()?,
    };
    if r.at != buf.len() {
        return Err(r.err("bytes left over after the plan"));
    }
    let plan = Plan {
        uid_map,
        gid_map,
        trees: vec![-1; binds.len()],
        binds,
        covers,
        mkdirs,
        links,
        secrets,
        cwd,
        fallback_cwd,
        ports,
        sock,
        filter: Vec::new(),
    };
    Ok((plan, exec))
}

/// The first field: names the format, so a launcher of another build refuses the plan.
const MAGIC: &[u8] = b"tsgnav-jail-plan-1";

struct Writer(Vec<u8>);

impl Writer {
    fn count(&mut self, n: usize) {
        self.0.extend_from_slice(&(n as u32).to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.count(b.len());
        self.0.extend_from_slice(b);
    }
    fn strings(&mut self, v: &[CString]) {
        self.count(v.len());
        for s in v {
            self.bytes(s.as_bytes());
        }
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn err(&self, what: &'static str) -> WireError {
        WireError { at: self.at, what }
    }
    fn count(&mut self) -> Result<usize, WireError> {
        let end = self.at + 4;
        let b = self
            .buf
            .get(self.at..end)
            .ok_or(self.err("it ends early"))?;
        self.at = end;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }
    fn bytes(&mut self) -> Result<&'a [u8], WireError> {
        let n = self.count()?;
        let end = self
            .at
            .checked_add(n)
            .ok_or(self.err("a length too large"))?;
        let b = self
            .buf
            .get(self.at..end)
            .ok_or(self.err("it ends early"))?;
        self.at = end;
        Ok(b)
    }
    fn cstring(&mut self) -> Result<CString, WireError> {
        let b = self.bytes()?;
        CString::new(b).map_err(|_| self.err("a string holds a NUL byte"))
    }
    fn strings(&mut self) -> Result<Vec<CString>, WireError> {
        let n = self.count()?;
        if n > self.buf.len() {
            return Err(self.err("a count larger than the plan"));
        }
        (0..n).map(|_| self.cstring()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> CString {
        CString::new(s).expect("no NUL")
    }

    fn sample() -> (Plan, Exec) {
        let plan = Plan {
            uid_map: b"1000 1000 1\n".to_vec(),
            gid_map: b"100 100 1\n".to_vec(),
            binds: vec![Bind {
                src: c("/dev/null"),
                dst: c("/home/op/.kube/config"),
                dirs: vec![c("/home"), c("/home/op")],
                file: true,
                read_only: true,
            }],
            covers: vec![c("/tmp"), c("/home")],
            mkdirs: vec![c("/dev/shm")],
            links: vec![(c("/proc/self/fd"), c("/dev/fd"))],
            secrets: vec![Secret {
                path: c("/tmp/grant/kubeconfig"),
                dirs: vec![c("/tmp/grant")],
                bytes: b"apiVersion: v1\0binary".to_vec(),
            }],
            cwd: c("/srv/guides"),
            fallback_cwd: c("/tmp/scratch"),
            ports: vec![3128, 40123],
            sock: 9,
            filter: Vec::new(),
            trees: vec![-1],
        };
        let exec = Exec {
            program: c("bash"),
            args: vec![c("bash"), c("-c"), c("echo 'a b'")],
            env: vec![c("PATH=/usr/bin"), c("HOME=/tmp/scratch/home")],
        };
        (plan, exec)
    }

    #[test]
    fn a_plan_reads_back_as_written() {
        let (plan, exec) = sample();
        let bytes = encode(&plan, &exec);
        let (back, exec_back) = decode(&bytes, 7).expect("reads back");
        assert_eq!(exec_back, exec);
        assert_eq!(encode(&back, &exec_back), bytes);
        assert_eq!(back.sock, 7);
        assert_eq!(back.trees, vec![-1]);
        assert_eq!(back.binds[0].dst, c("/home/op/.kube/config"));
        assert!(back.binds[0].file && back.binds[0].read_only);
        assert_eq!(back.secrets[0].bytes, b"apiVersion: v1\0binary");
        assert_eq!(back.ports, vec![3128, 40123]);
    }

    #[test]
    fn a_cut_or_padded_or_foreign_plan_is_refused() {
        let (plan, exec) = sample();
        let bytes = encode(&plan, &exec);
        for cut in [0, 3, 10, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], 3).is_err(), "cut at {cut}");
        }
        let mut padded = bytes.clone();
        padded.push(0);
        let e = decode(&padded, 3).err().map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("left over")));
        let mut foreign = bytes;
        foreign[4] = b'X';
        let e = decode(&foreign, 3).err().map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("another version")));
    }
}
