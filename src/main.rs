use std::process::ExitCode;

use clap::Parser;
use reduce::app::cli::Args;

fn main() -> ExitCode {
    reduce::exec::panic::install_hook();
    reduce::memory::give_back_large_blocks();
    let result = reduce::app::run(Args::parse());
    reduce::report::trace::flush();
    match result {
        Ok(code) => code,
        // `reduce --generate-completions bash | head`: a closed pipe is not an error there (a
        // result that cannot be written carries its own I/O failure and exit code)
        Err(err) if is_broken_pipe(&err) && !has_failure(&err) => ExitCode::SUCCESS,
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

fn has_failure(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|e| e.downcast_ref::<reduce::exit::Failure>().is_some())
}
