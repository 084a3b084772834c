//! tsgnav binary: parse the command line, run, map errors to exit codes. Thin on purpose.

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of the system allocator: reading a library allocates millions of small
/// strings, and glibc's malloc and free were about a sixth of `tree`'s CPU.
#[global_allocator]
static GLOBAL: tsgnav::malloc::Mimalloc = tsgnav::malloc::Mimalloc;

fn main() -> ExitCode {
    tsgnav::malloc::tune();
    // No transparent huge pages: mimalloc asks for them on its arenas (reserved before `main`
    // runs, so its own option comes too late), and on this kind of virtual machine a fresh
    // 2 MiB page is at times zeroed several times slower: measured at 20,000 guides, a warm
    // start spread from 0.4 to 1 s with them (about 0.6 s without) and a cold one took more
    // CPU; `tree` at 2,000 guides held twice the memory. A plain prctl, inherited by every
    // child: the jail's launcher and the Landlock sandbox set it back for probes
    // (`query::jail::launcher::allow_huge_pages`).
    // SAFETY: prctl with constant integer arguments touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    let cli = tsgnav::cli::Cli::parse();
    match cli.run() {
        Ok(code) => code,
        Err(e) => {
            // A closed pipe (`tsgnav tree | head`) is not a failure.
            // JSON written straight to stdout carries the IO error inside serde_json's.
            let broken = |k: Option<std::io::ErrorKind>| k == Some(std::io::ErrorKind::BrokenPipe);
            if e.chain().any(|c| {
                broken(c.downcast_ref::<std::io::Error>().map(std::io::Error::kind))
                    || broken(
                        c.downcast_ref::<serde_json::Error>()
                            .and_then(|j| j.io_error_kind()),
                    )
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
