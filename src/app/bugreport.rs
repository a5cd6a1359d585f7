//! `--report DIR`: what a user attaches to a bug report, written once the run has finished: the
//! reduced input (under the input's file name), `command.txt` (the command, reduced with
//! `--reduce-args`, the file's name in place of `@@`), `repro.sh` (runs the test on the reduced
//! file from DIR, as the test ran it: stdin from `/dev/null`, and its exit status is the one the
//! test saw), `signature.txt` (with `--same-failure`) and `README.md` (sizes before and after,
//! what was kept, time and test runs, the reducer's version).
//!
//! DIR must be new or empty (checked before the run, and again at the end); the report is
//! written into a directory beside it and renamed into place, so DIR never holds half a report.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::app::failure;
use crate::exec::check::{Check, Expect, TestCommand, shell_quote_os};
use crate::exit::{FailureKind, fail};
use crate::report::stats::{Record, count};
use crate::store::paths::parent_of;

/// Refuses a DIR that is not a directory or holds anything (before the run).
pub fn check_dir(dir: &Path) -> Result<()> {
    let shown = dir.display();
    match fs::symlink_metadata(dir) {
        Ok(m) if !m.is_dir() => Err(fail(
            FailureKind::Usage,
            format!(
                "--report {shown} exists and is not a directory; give a new or empty directory"
            ),
        )),
        Ok(_) => match fs::read_dir(dir).map(|mut d| d.next().is_some()) {
            Ok(false) => Ok(()),
            Ok(true) => Err(fail(
                FailureKind::Usage,
                format!("--report {shown} is not empty; give a new or empty directory"),
            )),
            Err(e) => Err(fail(
                FailureKind::Io,
                format!("--report: cannot read {shown}: {e}"),
            )),
        },
        Err(_) => {
            let parent = parent_of(dir);
            match parent.is_dir() {
                true => Ok(()),
                false => Err(fail(
                    FailureKind::Io,
                    format!(
                        "--report {shown}: directory {} does not exist",
                        parent.display()
                    ),
                )),
            }
        }
    }
}

/// What the report holds.
pub struct Report<'a> {
    /// The candidate's file name (the input's).
    pub name: OsString,
    pub reduced: &'a [u8],
    /// The test as it ran (the program resolved, the arguments reduced with `--reduce-args`).
    pub check: &'a Check,
    /// The program as the user named it (a bare name stays a bare name in `repro.sh`).
    pub program: Option<OsString>,
    /// The command before `--reduce-args` reduced it, for a shell.
    pub original_command: Option<String>,
    pub record: &'a Record,
}

/// Writes the report into a new directory beside `dir`, then renames it to `dir`.
pub fn write(dir: &Path, report: &Report) -> Result<()> {
    check_dir(dir)?;
    let parent = parent_of(dir);
    let staged = tempfile::Builder::new()
        .prefix(".reduce-report-")
        .tempdir_in(parent)
        .with_context(|| {
            format!(
                "--report: cannot create a directory in {}",
                parent.display()
            )
        })?;
    let put = |name: &str, bytes: &[u8]| -> Result<PathBuf> {
        let path = staged.path().join(name);
        fs::write(&path, bytes).with_context(|| format!("--report: cannot write {name}"))?;
        Ok(path)
    };
    let name = report.name.to_string_lossy().into_owned();
    let shown_check = shown_check(report);
    put(&name, report.reduced)?;
    let command = command_text(&shown_check, &report.name);
    put("command.txt", format!("{command}\n").as_bytes())?;
    let repro = put("repro.sh", repro_script(report, &shown_check).as_bytes())?;
    fs::set_permissions(&repro, fs::Permissions::from_mode(0o755))
        .context("--report: cannot make repro.sh executable")?;
    if let Some(signature) = &report.check.conditions.same {
        put(
            "signature.txt",
            format!("{}\n", failure::show(signature, true)).as_bytes(),
        )?;
    }
    put("README.md", readme(report, &command).as_bytes())?;
    fs::set_permissions(staged.path(), fs::Permissions::from_mode(0o755))
        .context("--report: cannot set the directory's permissions")?;
    let staged = staged.keep();
    // an empty DIR is replaced; one that filled up meanwhile is not
    if let Err(e) = fs::rename(&staged, dir) {
        let _ = fs::remove_dir_all(&staged);
        return Err(fail(
            FailureKind::Io,
            format!(
                "--report: cannot move the report into {}: {e}",
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// The test with the program as the user named it when that was a bare name.
fn shown_check(report: &Report) -> Check {
    let mut check = report.check.clone();
    if let (TestCommand::Argv(words), Some(program)) = (&mut check.command, &report.program)
        && !program.to_string_lossy().contains('/')
        && let Some(first) = words.first_mut()
    {
        *first = program.clone();
    }
    check
}

/// The command in words, the file's name in place of `@@` (or `$1`).
fn command_text(check: &Check, name: &OsString) -> String {
    match &check.command {
        TestCommand::Argv(words) => crate::app::args::command_line(words, Path::new(name)),
        TestCommand::Shell(command) => format!(
            "sh -c {} reduce-test {}",
            shell_quote_os(std::ffi::OsStr::new(command)),
            shell_quote_os(name)
        ),
        TestCommand::Script(script) => format!(
            "{} {}",
            shell_quote_os(script.as_os_str()),
            shell_quote_os(name)
        ),
    }
}

fn repro_script(report: &Report, check: &Check) -> String {
    let mut text = String::from("#!/bin/sh\n");
    text.push_str("# Made by reduce --report: runs the test on the reduced file in this directory, as reduce\n");
    text.push_str("# ran it (stdin from /dev/null); its exit status is the one the test saw.\n");
    if let Some(signature) = &report.check.conditions.same {
        text.push_str(&format!(
            "# Expected: {}\n",
            one_line(&signature.describe())
        ));
    } else {
        let flags = report.check.conditions.flags();
        if !flags.is_empty() {
            text.push_str(&format!("# Interesting when: {}\n", flags.join(" ")));
        }
    }
    text.push_str("d=$(cd -- \"$(dirname -- \"$0\")\" && pwd -P) || exit 125\n");
    text.push_str("cd \"$d\" || exit 125\n");
    if matches!(report.check.conditions.expect, Expect::Signal(_))
        && std::env::var_os("ASAN_OPTIONS").is_none()
    {
        text.push_str("ASAN_OPTIONS=abort_on_error=1\nexport ASAN_OPTIONS\n");
    }
    text.push_str(&format!("exec {} </dev/null\n", check.recipe(&report.name)));
    text
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

fn readme(report: &Report, command: &str) -> String {
    let r = report.record;
    let name = report.name.to_string_lossy();
    let mut text = String::new();
    let title = match &report.check.conditions.same {
        Some(signature) => signature.short_name(),
        None => "a failure".to_string(),
    };
    text.push_str(&format!("# Bug report: {title}\n\n"));
    text.push_str(&format!(
        "Reduced by `reduce` {} from `{}`.\n\n",
        env!("CARGO_PKG_VERSION"),
        r.input
    ));
    text.push_str("| | original | reduced |\n| --- | ---: | ---: |\n");
    text.push_str(&format!(
        "| bytes | {} | {} |\n| lines | {} | {} |\n",
        r.original_bytes, r.final_bytes, r.original_lines, r.final_lines
    ));
    if let (Some(a), Some(b)) = (r.original_tokens, r.final_tokens) {
        text.push_str(&format!("| tokens | {a} | {b} |\n"));
    }
    if let Some(p) = &r.failure.preprocessed {
        text.push_str(&format!(
            "\nThe input was preprocessed first ({} bytes before, `{}`): `{name}` is self-contained.\n",
            p.original_bytes, p.command
        ));
    }
    text.push_str("\n## What was kept\n\n");
    match &report.check.conditions.same {
        Some(signature) => {
            text.push_str(&format!(
                "The original's failure (`--same-failure`), in `signature.txt`:\n\n    {}\n",
                one_line(&signature.describe())
            ));
            if !signature.errors.is_empty() {
                text.push_str(&format!(
                    "\nThe original reported these errors before it, and a candidate could too: {}.\n",
                    signature.errors.join("; ")
                ));
            }
        }
        None => {
            let flags = report.check.conditions.flags();
            text.push_str(&format!(
                "What the test accepts ({}): {}.\n",
                report.check.describe(),
                match flags.is_empty() {
                    true => "exit status 0".to_string(),
                    false => flags.join(" "),
                }
            ));
        }
    }
    text.push_str("\n## Reproduce\n\n");
    text.push_str(&format!("    {command}\n\nor `sh repro.sh` here"));
    if let Some(signature) = &report.check.conditions.same {
        text.push_str(&format!(" (it {})", signature.ending));
    }
    text.push_str(".\n");
    if let (Some(original), Some(c)) = (&report.original_command, &r.failure.command) {
        text.push_str(&format!(
            "\nThe command was reduced too (`--reduce-args`, {}), from:\n\n    {original}\n",
            count(c.tests, "test run", "test runs")
        ));
    }
    text.push_str(&format!(
        "\n## The reduction\n\n{} ({} interesting, {} from the cache) in {:.1} s; {} ({}).\n",
        count(r.stats.tests, "test run", "test runs"),
        r.stats.interesting,
        r.stats.cache_hits,
        r.wall_seconds,
        r.algo,
        r.completion.replace('_', "-")
    ));
    text.push_str(&format!(
        "\nFiles: `{name}` (the reduced input), `command.txt`, `repro.sh`{}, `README.md`.\n",
        match report.check.conditions.same {
            Some(_) => ", `signature.txt`",
            None => "",
        }
    ));
    text
}
