//! tsgnav binary: parse the command line, run, map errors to exit codes. Thin on purpose.

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of the system allocator: reading a library allocates millions of small
/// strings, and glibc's malloc and free were about a sixth of `tree`'s CPU.
#[global_allocator]
static GLOBAL: tsgnav::malloc::Mimalloc = tsgnav::malloc::Mimalloc;

fn main() -> ExitCode {
    tsgnav::malloc::tune();
    let cli = tsgnav::cli::Cli::parse();
    if streams_guides(&cli) {
        small_pages();
    }
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

/// Whether the command reads a library guide by guide and keeps none of it (`tree`, `lint`,
/// `alerts`): such a run reuses the same few megabytes, and starts no probe.
fn streams_guides(cli: &tsgnav::cli::Cli) -> bool {
    use tsgnav::cli::Command;
    matches!(
        cli.command,
        Some(Command::Tree(_) | Command::Lint(_) | Command::Alerts(_))
    )
}

/// No transparent huge pages for this process. mimalloc asks for them on its arenas; the
/// navigator keeps a library's guides for its life and gains from them (a 512th of the page
/// faults), but a command that streams guides would zero and hold 2 MiB at each first touch
/// for what is mostly small strings (peak RSS at 2,000 guides 23 → 47 MiB, no time saved).
/// The kernel reads the flag at each fault, so it applies to memory mimalloc already holds.
/// Inherited by children, so only commands that start no probe set it.
fn small_pages() {
    // SAFETY: prctl with constant integer arguments touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
