//! Many files at once: `reduce --test t.sh a.c b.h` or `reduce --test t.sh DIR/`.
//!
//! Every candidate directory holds the whole set in its relative layout and the test runs
//! there. Each file is first tried empty (the files the test does not read go before anything
//! is reduced); then the files are reduced one at a time, largest first, round-robin until a
//! whole round changes nothing (a file whose set is as its last visit left it is skipped):
//! each file with the same machinery as a one-file run
//! ([`crate::app::reduction::reduce_best`]), through a [`frame::Frame`] that writes the other
//! files unchanged around each candidate. Each new best changes one file, replaced atomically (or
//! removed, with `--delete-files`), so the set on disk is always one the test accepted.
//!
//! `set` reads the input, `store` saves the originals and fills `-o DIR`, `session` runs the
//! rounds and reports.

mod session;
pub mod set;
mod store;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::app::config::Config;
use crate::exit::{FailureKind, fail};
use crate::store::runlock::RunLock;
use set::{FileSet, load_dir, load_files};
use store::StorePlan;

/// Whether the run is a multi-file one: several inputs, or a directory. `--delete-files` on
/// one file is an error.
pub fn wanted(cfg: &Config) -> Result<bool> {
    let multi = !cfg.more_inputs.is_empty() || (!cfg.stdin && cfg.input.is_dir());
    let stdin = cfg.stdin || cfg.more_inputs.iter().any(|p| p.as_os_str() == "-");
    if stdin && multi {
        return Err(fail(
            FailureKind::Usage,
            "- (stdin) cannot be one of several inputs: save it to a file first",
        ));
    }
    if cfg.delete_files && !multi {
        return Err(fail(
            FailureKind::Usage,
            "--delete-files needs several files or a directory: a single input cannot disappear",
        ));
    }
    Ok(multi)
}

/// The multi-file run, as a recipe: read the set, check the outputs, lock, reduce, report.
pub fn run(cfg: Config) -> Result<ExitCode> {
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .context("cannot read the current directory")?;
    let check = cfg.check.clone().ensure_runnable(&cwd)?;
    let set = read_set(&cfg, &cwd, check.file())?;
    let plan = StorePlan::new(&cfg.output, &set, cfg.force)?;
    crate::app::files::check_run_files(&cfg, &check, store::roles(&cfg.output, &set))?;
    let mut locks = Vec::new();
    for path in plan.locked(&set) {
        locks.push(RunLock::acquire(&path)?);
    }
    session::Session::start(cfg, check, set, plan)?.finish()
}

/// The set the command line names. The test script and the temp directory are left out of a
/// directory input (a stats file inside it is refused); a file list may not name the script.
fn read_set(cfg: &Config, cwd: &Path, script: Option<&Path>) -> Result<FileSet> {
    if cfg.more_inputs.is_empty() {
        let skip: Vec<PathBuf> = [script, cfg.temp_dir.as_deref()]
            .into_iter()
            .flatten()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        return load_dir(&cfg.input, &skip);
    }
    let mut paths = vec![cfg.input.clone()];
    paths.extend(cfg.more_inputs.iter().cloned());
    let script_real = script.and_then(|s| std::fs::canonicalize(s).ok());
    if let Some(p) = paths
        .iter()
        .find(|p| script_real.is_some() && std::fs::canonicalize(p).ok() == script_real)
    {
        return Err(fail(
            FailureKind::Usage,
            format!(
                "the input {} is the test script itself: a script cannot be reduced by itself; copy it and reduce the copy",
                p.display()
            ),
        ));
    }
    load_files(&paths, cwd)
}
