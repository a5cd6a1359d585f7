//! `--preprocess`: a compile command in, one self-contained file out. When the program after
//! `--` is a C or C++ compiler (see [`crate::exec::compiler`]) and the input includes local
//! headers, the original runs once with its headers found (`-iquote` its directory, relative
//! include paths read from there), its failure is taken (the signature with `--same-failure`,
//! else the conditions must hold), the compiler preprocesses it (`-E -P` with the flags that
//! matter, from the input's directory), and the preprocessed file must fail the same way where
//! every candidate runs: then it is what the run reduces, and the result (`-o`) is the
//! preprocessed file, reduced.

use std::ffi::{OsStr, OsString};

use anyhow::Result;

use crate::app::config::Config;
use crate::app::failure;
use crate::exec::check::{Check, TestCommand, quote_words};
use crate::exec::compiler;
use crate::exit::{FailureKind, fail};
use crate::report::stats::PreprocessRecord;
use crate::signature::Signature;

/// The preprocessed input and what to say of it.
pub struct Preprocessed {
    pub bytes: Vec<u8>,
    pub record: PreprocessRecord,
}

/// Preprocesses the input (`input`, the original's bytes) for `check` (whose program was
/// resolved), setting the failure to keep (`--same-failure`) on `check`. `None`: nothing to do
/// (no local header), the run goes on with the input as it is.
pub fn preprocess(cfg: &Config, check: &mut Check, input: &[u8]) -> Result<Option<Preprocessed>> {
    let (words, compiler) = compile_command(cfg, check)?;
    if !compiler::includes_local_header(input) {
        if !cfg.quiet {
            eprintln!(
                "reduce: --preprocess: {} includes no local header (#include \"...\"): it is reduced as it is",
                cfg.input.display()
            );
        }
        return Ok(None);
    }
    let path = std::path::absolute(&cfg.input).map_err(|e| {
        fail(
            FailureKind::BadInput,
            format!("cannot resolve {}: {e}", cfg.input.display()),
        )
    })?;
    let dir = crate::store::paths::parent_of(&path).to_path_buf();
    let same = original_failure(cfg, check, &words, &dir, input)?;
    let (bytes, shown) = run_preprocessor(cfg, &compiler, &words, &path, &dir)?;
    // the preprocessed file must fail the same way where candidates run
    check.conditions.same = same;
    check_preprocessed(cfg, check, &bytes, &shown)?;
    let record = PreprocessRecord {
        command: shown,
        original_bytes: input.len(),
        preprocessed_bytes: bytes.len(),
    };
    if !cfg.quiet {
        eprintln!(
            "reduce: preprocessed with `{}`: {} -> {} bytes, and it fails the same way: reducing that (the result is the preprocessed file)",
            record.command, record.original_bytes, record.preprocessed_bytes
        );
    }
    Ok(Some(Preprocessed { bytes, record }))
}

/// The test's words (its program resolved) and the compiler as the user named it; refused
/// unless the test is `-- COMPILER FLAGS @@`.
fn compile_command(cfg: &Config, check: &Check) -> Result<(Vec<OsString>, OsString)> {
    let usage = |m: String| fail(FailureKind::Usage, m);
    let (TestCommand::Argv(words), TestCommand::Argv(given)) = (&check.command, &cfg.check.command)
    else {
        return Err(usage(
            "--preprocess needs the test as -- COMPILER FLAGS @@".into(),
        ));
    };
    if !compiler::is_compiler(&given[0]) {
        return Err(usage(format!(
            "--preprocess: the program after -- ({}) is not a C or C++ compiler (gcc, g++, clang, clang++, cc, c++, or one with a version such as gcc-12)",
            std::path::Path::new(&given[0]).display()
        )));
    }
    Ok((words.clone(), given[0].clone()))
}

/// Runs the original with its headers found (from `dir`, the input's directory): its signature
/// with `--same-failure`, else it must be interesting.
fn original_failure(
    cfg: &Config,
    check: &Check,
    words: &[OsString],
    dir: &std::path::Path,
    input: &[u8],
) -> Result<Option<Signature>> {
    let mut with_headers = check.clone();
    with_headers.command = TestCommand::Argv(compiler::with_headers_from(words, dir));
    let what = "the original input (with its headers)";
    let outcome = failure::run_original(cfg, &with_headers, input)?;
    if cfg.same_failure {
        return failure::kept_signature(cfg, &with_headers, &outcome, what).map(Some);
    }
    if crate::signal::interrupted() {
        return Err(fail(
            FailureKind::Interrupted,
            "interrupted while running the original; nothing was changed",
        ));
    }
    if !outcome.interesting {
        return Err(fail(
            FailureKind::NotInteresting,
            format!(
                "--preprocess: {what} is not interesting: {} {}; nothing was changed",
                with_headers.describe(),
                outcome.unmet.join("; ")
            ),
        ));
    }
    Ok(None)
}

/// The preprocessed input (`-E -P` with the flags that matter, run from `dir`) and the command
/// that made it, as shown (without its temporary `-o`).
fn run_preprocessor(
    cfg: &Config,
    compiler: &OsStr,
    words: &[OsString],
    path: &std::path::Path,
    dir: &std::path::Path,
) -> Result<(Vec<u8>, String)> {
    let scratch = tempfile::Builder::new()
        .prefix("reduce-preprocess-")
        .tempdir_in(cfg.temp_dir.clone().unwrap_or_else(std::env::temp_dir))
        .map_err(|e| {
            fail(
                FailureKind::Io,
                format!("cannot create a temporary directory: {e}"),
            )
        })?;
    let out = scratch.path().join("preprocessed");
    let argv = compiler::preprocess_command(compiler, &words[1..], path, &out);
    let shown = quote_words(&argv[..argv.len() - 2]);
    let bytes = compiler::run_preprocessor(&argv, dir, &out).map_err(|why| {
        fail(
            FailureKind::BadInput,
            format!("--preprocess: the preprocessor failed: `{shown}` {why}; nothing was changed"),
        )
    })?;
    if bytes.is_empty() {
        return Err(fail(
            FailureKind::BadInput,
            format!("--preprocess: `{shown}` wrote an empty file; nothing was changed"),
        ));
    }
    Ok((bytes, shown))
}

/// Refuses a preprocessed input that does not fail as the original did, where candidates run.
fn check_preprocessed(cfg: &Config, check: &Check, bytes: &[u8], shown: &str) -> Result<()> {
    let outcome = failure::run_once(cfg, check.clone(), bytes)?;
    if crate::signal::interrupted() {
        return Err(fail(
            FailureKind::Interrupted,
            "interrupted while checking the preprocessed input; nothing was changed",
        ));
    }
    if !outcome.interesting {
        let way = match cfg.same_failure {
            true => "the same way",
            false => "the test's way",
        };
        return Err(fail(
            FailureKind::NotInteresting,
            format!(
                "--preprocess: the preprocessed input ({} bytes, from `{shown}`) does not fail {way}: {}; reduce the original without --preprocess (with -I flags that name absolute directories), or check the flags the preprocessor is given",
                bytes.len(),
                outcome.unmet.join("; ")
            ),
        ));
    }
    Ok(())
}
