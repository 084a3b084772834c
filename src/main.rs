//! tsgnav binary: parse the command line, run, map errors to exit codes. Thin on purpose.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = tsgnav::cli::Cli::parse();
    match cli.run() {
        Ok(code) => code,
        Err(e) => {
            // A closed pipe (`tsgnav tree | head`) is not a failure.
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
