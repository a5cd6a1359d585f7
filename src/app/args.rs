//! `--reduce-args`: once the input is reduced, the arguments after `--` are reduced on the
//! result (see [`crate::policy::args`]) with the same conditions (the same failure with
//! `--same-failure`), one run at a time; the smallest failing command is printed with the
//! result's file name in place of `@@`.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::app::config::Config;
use crate::exec::check::{Check, TestCommand, shell_quote_os};
use crate::exec::runner::{ScriptConfig, ScriptRunner};
use crate::exit::{FailureKind, fail};
use crate::policy::args::{ArgsReduced, reduce_args};
use crate::report::stats::CommandRecord;

/// Reduces the arguments of `check` (an `--` test, its program resolved) on `best`. `budget`:
/// the test runs left under `--max-attempts`. Returns the record and the reduced test.
pub fn reduce_command(
    cfg: &Config,
    check: &Check,
    best: &[u8],
    timeout: Duration,
    budget: Option<u64>,
    shown_name: &Path,
) -> Result<(CommandRecord, Check)> {
    let (TestCommand::Argv(words), TestCommand::Argv(given)) = (&check.command, &cfg.check.command)
    else {
        return Err(fail(
            FailureKind::Usage,
            "--reduce-args needs the test as -- PROGRAM ARGS",
        ));
    };
    let mut oracle = runner(cfg, check, timeout)?;
    let program = words[0].clone();
    let mut error = None;
    let mut runs = 0u64;
    let mut test = |args: &[OsString]| -> Option<bool> {
        if crate::signal::interrupted() || budget.is_some_and(|b| runs >= b) || error.is_some() {
            return None;
        }
        runs += 1;
        let mut argv = vec![program.clone()];
        argv.extend_from_slice(args);
        oracle.set_check(Check {
            command: TestCommand::Argv(argv),
            conditions: check.conditions.clone(),
        });
        match oracle.run(best) {
            Ok(outcome) if crate::signal::interrupted() => {
                let _ = outcome;
                None
            }
            Ok(outcome) => Some(outcome.interesting),
            Err(e) => {
                error = Some(e);
                None
            }
        }
    };
    let done = reduce_args(&words[1..], &mut test);
    if let Some(e) = error {
        return Err(e);
    }
    let mut resolved = vec![program];
    resolved.extend(done.args.iter().cloned());
    let record = record(given, &done, shown_name);
    let check = Check {
        command: TestCommand::Argv(resolved),
        conditions: check.conditions.clone(),
    };
    Ok((record, check))
}

/// The runner of the argument lists: the test's own, without deriving signatures for slips.
fn runner(cfg: &Config, check: &Check, timeout: Duration) -> Result<ScriptRunner> {
    ScriptRunner::new(ScriptConfig {
        check: check.clone(),
        file_name: cfg.candidate_name().unwrap_or_else(|| "input".into()),
        timeout,
        verbose: false,
        temp_root: cfg.temp_dir.clone(),
        launcher: cfg.launcher.clone(),
        derive: false,
        slipped: None,
    })
    .map_err(|e| {
        fail(
            FailureKind::Io,
            format!("cannot set up the test runs: {e:#}"),
        )
    })
}

/// What the run says of the command: `given` (as the user wrote it) and the reduced one.
fn record(given: &[OsString], done: &ArgsReduced, shown_name: &Path) -> CommandRecord {
    let mut reduced = vec![given[0].clone()];
    reduced.extend(done.args.iter().cloned());
    let words = |ws: &[OsString]| {
        ws.iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect()
    };
    CommandRecord {
        original: words(given),
        reduced: words(&reduced),
        shell: command_line(&reduced, shown_name),
        tests: done.tests,
        stopped: done.stopped,
    }
}

/// A word for a shell: as it is when it holds only characters no shell treats specially (so
/// `-std=c++17` stays as written), else quoted.
fn quote(word: &std::ffi::OsStr) -> String {
    let plain = |b: &u8| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(b);
    let bytes = word.as_encoded_bytes();
    match !bytes.is_empty() && bytes.iter().all(plain) {
        true => word.to_string_lossy().into_owned(),
        false => shell_quote_os(word),
    }
}

/// The command for a shell: each word quoted, `@@` replaced by `file` (appended when no word
/// has one).
pub fn command_line(words: &[OsString], file: &Path) -> String {
    let file = quote(file.as_os_str());
    let mut parts: Vec<String> = Vec::new();
    let mut any = false;
    for word in words {
        let text = word.to_string_lossy();
        if text.contains("@@") {
            any = true;
            let pieces: Vec<String> = text
                .split("@@")
                .map(|p| match p.is_empty() {
                    true => String::new(),
                    false => quote(std::ffi::OsStr::new(p)),
                })
                .collect();
            parts.push(pieces.join(&file));
        } else {
            parts.push(quote(word));
        }
    }
    if !any {
        parts.push(file);
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_stands_for_every_at_at() {
        let words: Vec<OsString> = ["g++", "-std=c++17", "-c", "@@", "-o", "@@.o"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(
            command_line(&words, Path::new("small.cc")),
            "g++ -std=c++17 -c small.cc -o small.cc.o"
        );
        let words: Vec<OsString> = ["python3"].iter().map(OsString::from).collect();
        assert_eq!(
            command_line(&words, Path::new("a b.py")),
            "python3 'a b.py'"
        );
    }
}
