use std::process::ExitCode;

use clap::Parser;
use reduce::cli::Args;

fn main() -> ExitCode {
    match reduce::app::run(Args::parse()) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("reduce: error: {err:#}");
            reduce::exit::code_for(&err)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
