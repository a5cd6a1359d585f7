//! `--same-failure` and `--show-signature`: the original runs once, before the reduction, and
//! how it failed becomes a condition of the test (see [`crate::signature`]). An original that
//! does not fail, times out, or fails with nothing recognisable (a bare exit status) is refused
//! with one line that says what was seen and what to give instead (exit 3).

use std::time::Duration;

use anyhow::Result;

use crate::app::cli;
use crate::app::config::Config;
use crate::exec::check::Check;
use crate::exec::runner::{Outcome, RunStatus, ScriptConfig, ScriptRunner};
use crate::exit::{FailureKind, fail};
use crate::signature::{Ending, Signature};

/// How long a line of the original's output may be in a message.
const SEEN_LINE: usize = 120;

/// Runs `check` (its conditions but `--same-failure`) once on `bytes` as the original and
/// returns the run's outcome, its signature derived.
pub fn run_original(cfg: &Config, check: &Check, bytes: &[u8]) -> Result<Outcome> {
    let mut check = check.clone();
    check.conditions.same = None;
    run_once(cfg, check, bytes)
}

/// Runs `check` once on `bytes`, as a candidate runs, deriving the run's signature.
pub fn run_once(cfg: &Config, check: Check, bytes: &[u8]) -> Result<Outcome> {
    let name = cfg
        .candidate_name()
        .ok_or_else(|| fail(FailureKind::BadInput, "the input path has no file name"))?;
    run_named(cfg, check, name, bytes)
}

/// Runs `check` once on `bytes` written as `file_name`, deriving the run's signature and
/// keeping the output's tail (for the messages).
pub fn run_named(
    cfg: &Config,
    check: Check,
    file_name: std::ffi::OsString,
    bytes: &[u8],
) -> Result<Outcome> {
    let mut oracle = ScriptRunner::new(ScriptConfig {
        check,
        file_name,
        timeout: cfg.timeout.unwrap_or(cli::MAX_DEFAULT_TIMEOUT),
        verbose: true,
        temp_root: cfg.temp_dir.clone(),
        launcher: cfg.launcher.clone(),
        derive: true,
        slipped: None,
    })
    .map_err(|e| {
        fail(
            FailureKind::Io,
            format!("cannot set up the test run: {e:#}"),
        )
    })?;
    oracle.run(bytes)
}

/// The signature the original's run (`outcome`, of `check`) shows, if `--same-failure` can keep
/// it; otherwise the one-line refusal. `what`: the original in words ("the original input").
pub fn kept_signature(
    cfg: &Config,
    check: &Check,
    outcome: &Outcome,
    what: &str,
) -> Result<Signature> {
    let timeout = cfg.timeout.unwrap_or(cli::MAX_DEFAULT_TIMEOUT);
    let refuse = |why: String| {
        Err(fail(
            FailureKind::NotInteresting,
            format!("--same-failure: {why}"),
        ))
    };
    let test = check.describe();
    match outcome.status {
        RunStatus::Interrupted | RunStatus::Cancelled => {
            return Err(fail(
                FailureKind::Interrupted,
                format!("interrupted while running {what}; nothing was changed"),
            ));
        }
        RunStatus::TimedOut => {
            return refuse(format!(
                "{what} timed out: {test} ran longer than {} s, and a timeout is never the failure kept; give a longer --timeout",
                secs(timeout)
            ));
        }
        _ => {}
    }
    if !outcome.unmet.is_empty() {
        return refuse(format!(
            "{what} does not meet the other conditions: {test} {}; nothing was changed",
            outcome.unmet.join("; ")
        ));
    }
    let seen = last_line(outcome);
    match &outcome.signature {
        None => refuse(format!(
            "{what} does not fail: {test} exited 0 and printed nothing recognisable{seen}; if that is what to keep, drop --same-failure (exit status 0 is the default test), or say what makes it interesting with --exit-code N or --stderr REGEX"
        )),
        Some(signature) if signature.is_bare() => {
            let code = match signature.ending {
                Ending::Exited(code) => format!("--exit-code {code}"),
                Ending::Signaled(_) => "--signal".to_string(),
                Ending::TimedOut => "--timeout".to_string(),
            };
            refuse(format!(
                "{what} fails with nothing recognisable: {test} {} and its output holds no crash report, sanitizer report, exception or diagnostic{seen}; say what makes it interesting instead, e.g. {code} --stderr REGEX",
                signature.ending
            ))
        }
        Some(signature) => Ok(Signature::clone(signature)),
    }
}

/// `; its last line: `...``, or nothing when the run printed nothing.
fn last_line(outcome: &Outcome) -> String {
    let line = [&outcome.stderr, &outcome.stdout]
        .into_iter()
        .flatten()
        .flat_map(|text| text.lines().rev())
        .map(str::trim)
        .find(|line| !line.is_empty());
    match line {
        Some(line) => {
            let clipped: String = line.chars().take(SEEN_LINE).collect();
            let more = if clipped.len() < line.len() {
                "…"
            } else {
                ""
            };
            format!(" (its last line: `{clipped}{more}`)")
        }
        None => " (no output)".to_string(),
    }
}

fn secs(d: Duration) -> String {
    format!("{}", d.as_secs_f64())
}

/// The signature in lines for people: the one-line description, then (with `detail`) the
/// ending, the kind, each key line, the errors before it, the short name and the hash.
pub fn show(signature: &Signature, detail: bool) -> String {
    let mut text = signature.describe();
    if detail {
        text.push_str(&format!("\n  ending: {}", signature.ending));
        text.push_str(&format!(
            "\n  kind: {}",
            serde_json::to_value(signature.kind)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default()
        ));
        for line in &signature.key {
            text.push_str(&format!("\n  key: {line}"));
        }
        match signature.errors.is_empty() {
            true => text.push_str("\n  errors before it: none (a candidate may have none)"),
            false => text.push_str(&format!(
                "\n  errors before it: {} (a candidate may have these, no others)",
                signature.errors.join("; ")
            )),
        }
        text.push_str(&format!("\n  short name: {}", signature.short_name()));
        text.push_str(&format!("\n  hash: {:016x}", signature.hash()));
    }
    text
}
