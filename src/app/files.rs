//! The files of a run, checked before anything is written: every entry point (one file, stdin,
//! several files, a directory) lists what it reads and writes as [`Role`]s, adds the ones every
//! run has (the test, `-o`, `--stats-json`, stdin, stdout), and goes through one check. A run
//! that would write a file it reads or keeps is refused (exit 2) before its first test.

use std::path::Path;

use anyhow::Result;

use crate::app::cli::Output;
use crate::app::config::Config;
use crate::exec::check::{Check, TestCommand};
use crate::exit::{FailureKind, fail};
use crate::store::paths::{
    Place, Role, check_distinct, parent_of, probe_writable, resolve_new, stream_of,
};

/// The roles of the run's own inputs and backups (`own`) and those every run has, checked
/// together; then the `--stats-json` location is probed.
pub(crate) fn check_run_files(cfg: &Config, check: &Check, own: Vec<Role>) -> Result<()> {
    let mut roles = own;
    if let Some(script) = check.file() {
        let what = match check.command {
            TestCommand::Script(_) => "the test script",
            _ => "the test program",
        };
        roles.push(Role::new(
            format!("{what} {}", script.display()),
            Place::File(script.to_path_buf()),
            false,
        ));
    }
    if cfg.stdin {
        roles.push(Role::input("the input - (stdin)", Place::Stream(0), false));
    }
    if cfg.output == Output::Stdout {
        roles.push(Role::new("-o - (stdout)", Place::Stream(1), true));
    }
    if let Some(stats) = &cfg.stats_json {
        roles.push(Role::new(
            format!("--stats-json {}", stats.display()),
            Place::File(stats.clone()),
            true,
        ));
    }
    check_distinct(&roles)?;
    if let Some(stats) = &cfg.stats_json {
        check_stats_location(stats)?;
    }
    Ok(())
}

/// The roles of a one-file run: the input, its backup and `-o FILE`.
pub(crate) fn one_file_roles(cfg: &Config, backup: &Path) -> Vec<Role> {
    let mut roles = Vec::new();
    let in_place = cfg.output == Output::InPlace;
    if !cfg.stdin {
        roles.push(Role::input(
            format!("the input {}", cfg.input.display()),
            Place::File(cfg.input.clone()),
            in_place,
        ));
        roles.push(Role::new(
            format!("the backup {}", backup.display()),
            Place::File(backup.to_path_buf()),
            in_place || backup.exists(),
        ));
    }
    if let Output::File(out) = &cfg.output {
        roles.push(Role::new(
            format!("-o {}", out.display()),
            Place::File(out.clone()),
            true,
        ));
    }
    // the directories --save-slipped and --report fill: nothing else of the run may be in them
    for (flag, dir) in [
        ("--save-slipped", &cfg.save_slipped),
        ("--report", &cfg.report),
    ] {
        if let Some(dir) = dir {
            roles.push(Role::new(
                format!("{flag} {}", dir.display()),
                Place::Tree(dir.clone()),
                true,
            ));
        }
    }
    roles
}

/// The `--stats-json` location must be writable: it is written only at the end.
pub(crate) fn check_stats_location(stats: &Path) -> Result<()> {
    if stream_of(stats).is_some() || std::fs::metadata(stats).is_ok_and(|m| !m.is_file()) {
        return Ok(()); // a stream, a device or a pipe: written once at the end
    }
    let dir = parent_of(&resolve_new(stats)).to_path_buf();
    let why = if !dir.exists() {
        "does not exist".to_string()
    } else if !dir.is_dir() {
        "is not a directory".to_string()
    } else {
        match probe_writable(&dir) {
            Ok(()) => return Ok(()),
            Err(e) => e.to_string(),
        }
    };
    Err(fail(
        FailureKind::Io,
        format!(
            "cannot write --stats-json {}: directory {} {why}",
            stats.display(),
            parent_of(stats).display()
        ),
    ))
}
