//! The first phase of `--each`: every file runs once, `-j` at a time, and its failure signature
//! is taken ([`crate::signature`]). With `--same-failure` a file fails when the run shows a
//! failure the flag can keep (what a one-file run would refuse is "not failing", with the same
//! words); otherwise when the run meets the test's conditions, and its signature is that ending
//! plus whatever crash or sanitizer report the output holds.

use std::ffi::OsString;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Result;

use crate::app::cli;
use crate::app::config::Config;
use crate::app::failure;
use crate::exec::check::Check;
use crate::exec::runner::{Outcome, RunStatus};
use crate::exit::{FailureKind, fail};
use crate::signature::{Ending, Kind, Signature};

/// A file to run: its candidate name and bytes.
pub struct Job<'a> {
    pub name: OsString,
    pub shown: String,
    pub bytes: &'a [u8],
}

/// What one run said.
#[derive(Clone, Debug)]
pub struct Taken {
    /// The failure, or why the file is not failing.
    pub failure: Result<Signature, String>,
    pub elapsed: Duration,
}

/// Runs every job once, `cfg.jobs` at a time; `seen(done, taken)` is called after each (for the
/// progress line). The results are in the order of `jobs`, whatever the order runs ended in.
pub fn take_all(
    cfg: &Config,
    check: &Check,
    jobs: &[Job],
    seen: &(dyn Fn(usize, &Taken) + Sync),
) -> Result<Vec<Taken>> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Taken>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    let workers = cfg.jobs.clamp(1, jobs.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= jobs.len() || crate::signal::interrupted() {
                        break;
                    }
                    let taken = take_one(cfg, check, &jobs[i]);
                    if let Ok(t) = &taken {
                        seen(done.fetch_add(1, Ordering::Relaxed) + 1, t);
                    }
                    let failed = taken.is_err();
                    results.lock().expect("no worker panics")[i] = Some(taken);
                    if failed {
                        break;
                    }
                }
            });
        }
    });
    if crate::signal::interrupted() {
        return Err(fail(
            FailureKind::Interrupted,
            "interrupted while taking the signatures; nothing was reduced",
        ));
    }
    let results = results.into_inner().expect("no worker panics");
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(anyhow::anyhow!("a signature run was lost"))))
        .collect()
}

/// One file's run and what it says.
fn take_one(cfg: &Config, check: &Check, job: &Job) -> Result<Taken> {
    let mut base = check.clone();
    base.conditions.same = None;
    let outcome = failure::run_named(cfg, base.clone(), job.name.clone(), job.bytes)?;
    if matches!(
        outcome.status,
        RunStatus::Interrupted | RunStatus::Cancelled
    ) {
        return Err(fail(FailureKind::Interrupted, "interrupted"));
    }
    let failure = match cfg.same_failure {
        true => kept(cfg, &base, &outcome, &job.shown)?,
        false => met(cfg, &outcome),
    };
    Ok(Taken {
        failure,
        elapsed: outcome.elapsed,
    })
}

/// `--same-failure`: the signature a one-file run would keep, or its refusal's words.
fn kept(
    cfg: &Config,
    check: &Check,
    outcome: &Outcome,
    shown: &str,
) -> Result<Result<Signature, String>> {
    match crate::app::failure::kept_signature(cfg, check, outcome, shown) {
        Ok(signature) => Ok(Ok(signature)),
        Err(e) => match e.downcast_ref::<crate::exit::Failure>() {
            Some(f) if f.kind == FailureKind::NotInteresting => Ok(Err(f
                .message
                .strip_prefix("--same-failure: ")
                .unwrap_or(&f.message)
                .to_string())),
            _ => Err(e),
        },
    }
}

/// The test's own conditions: the run's signature when they hold (the ending alone when the
/// output says nothing more), or what they missed.
fn met(cfg: &Config, outcome: &Outcome) -> Result<Signature, String> {
    if !outcome.interesting {
        let timeout = cfg.timeout.unwrap_or(cli::MAX_DEFAULT_TIMEOUT);
        return Err(match outcome.unmet.is_empty() {
            true => outcome.status.describe(timeout),
            false => outcome.unmet.join("; "),
        });
    }
    if let Some(signature) = &outcome.signature {
        return Ok(Signature::clone(signature));
    }
    let ending =
        crate::exec::check::conditions::ending_of(outcome.status).unwrap_or(Ending::Exited(0));
    Ok(Signature {
        ending,
        kind: Kind::Exit,
        key: Vec::new(),
        errors: Vec::new(),
        diagnostics: Vec::new(),
    })
}
