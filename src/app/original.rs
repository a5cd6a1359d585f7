//! The original's check: it must be interesting, its test time sets the default timeout, a
//! cheap test is run again to catch flakiness, and the output is opened only once it passed.
//! The loop starts after it. With two workers and more, the re-run runs beside the check
//! ([`Tester::check_pair`]).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;

use super::{CHEAP_TEST, Session, absolute, default_timeout};
use crate::app::cli;
use crate::app::config::Config;
use crate::engine::tester::Tester;
use crate::exec::check::{Check, shell_quote_os};
use crate::exec::runner::{Outcome, RunStatus};
use crate::exit::{FailureKind, fail};
use crate::store::sink::SinkPlan;

impl Session {
    /// When the run would resume (the record says INPUT is a result of this command's earlier
    /// run), INPUT must pass one real run of the test before the record's results are trusted
    /// (they are then known interesting: the replay does not run them again). If it does not,
    /// the run says so and does not resume: without `--force` the refusal of the differing
    /// `INPUT.orig` applies; with it, INPUT is the original, as without a record, and its check
    /// has just failed.
    pub(super) fn verify_resume_point(&mut self, mut plan: SinkPlan) -> Result<SinkPlan> {
        let Some(point) = plan.resume_point().map(<[u8]>::to_vec) else {
            return Ok(plan);
        };
        let outcome = self.tester.run_script(&point)?;
        let input = self.cfg.input.display();
        if outcome.interesting {
            if !self.cfg.quiet {
                eprintln!(
                    "reduce: resuming: {input} is a result of an earlier, interrupted or finished run of this command, and still interesting; replaying it from its original, which stays in {}",
                    crate::store::sink::backup_path(&self.cfg.input).display()
                );
            }
            self.tester.preload_interesting(&plan.known_results());
            return Ok(plan);
        }
        if outcome.status != RunStatus::Interrupted && !crate::signal::interrupted() {
            if !self.cfg.quiet {
                eprintln!(
                    "reduce: warning: not resuming: {input} is a result of an earlier run of this command, but the test finds it not interesting now (did the test, or what it runs, change?), so that run's results are not trusted"
                );
            }
            plan.refuse_resume()?;
        }
        // interrupted, or (with --force) INPUT is the original and not interesting
        let conclusion = Conclusion {
            cfg: self.cfg.clone(),
            check: self.check.clone(),
            original: point.into(),
            plan,
        };
        Err(conclusion
            .judge(&outcome)
            .expect_err("an outcome that is not interesting fails"))
    }

    /// Checks the original; the output opens when it passes.
    pub(super) fn check_original(&mut self, plan: SinkPlan) -> Result<()> {
        let conclusion = Conclusion {
            cfg: self.cfg.clone(),
            check: self.check.clone(),
            original: self.original.clone(),
            plan,
        };
        // with workers to spare, the re-run for flakiness runs beside the check
        let paired = self.tester.width() > 1
            && !self.cfg.check_determinism
            && self.cfg.max_attempts.is_none();
        if paired {
            let (first, rerun) = self.tester.check_pair(&self.original, CHEAP_TEST)?;
            conclusion.judge(&first)?;
            if let Some(rerun) = rerun {
                warn_flaky(&self.tester, u32::from(!rerun.interesting), 1);
            }
            return conclusion.open(&mut self.tester, first.elapsed);
        }
        let outcome = self.tester.run_script(&self.original)?;
        conclusion.judge(&outcome)?;
        self.check_determinism(outcome.elapsed)?;
        conclusion.open(&mut self.tester, outcome.elapsed)
    }

    /// A flaky test makes every verdict suspect: run the original again and warn if it flips.
    fn check_determinism(&mut self, first: Duration) -> Result<()> {
        let (flips, runs) = rerun_original(&mut self.tester, &self.cfg, &self.original, first)?;
        warn_flaky(&self.tester, flips, runs);
        Ok(())
    }
}

/// Runs the original (`bytes`, whose check took `first`) again, serially: 3 times with
/// `--check-determinism`, once by default when a run is cheap. Returns how many of those runs
/// were not interesting, and how many ran.
pub(crate) fn rerun_original(
    t: &mut Tester,
    cfg: &Config,
    bytes: &[u8],
    first: Duration,
) -> Result<(u32, u64)> {
    // an attempt budget counts every run: the automatic re-run is skipped under one
    let runs = if cfg.check_determinism {
        3.min(cfg.max_attempts.map_or(3, |m| m.saturating_sub(1)))
    } else if first < CHEAP_TEST && cfg.max_attempts.is_none() {
        1
    } else {
        0
    };
    let mut flips = 0;
    for _ in 0..runs {
        flips += !t.run_script(bytes)?.interesting as u32;
    }
    Ok((flips, runs))
}

/// What a passed check leads to, and the message of a failed one.
struct Conclusion {
    cfg: Config,
    check: Check,
    original: Arc<[u8]>,
    plan: SinkPlan,
}

impl Conclusion {
    /// The check's first run must have been interesting, and not cut short.
    fn judge(&self, outcome: &Outcome) -> Result<()> {
        if crate::signal::interrupted() || outcome.status == RunStatus::Interrupted {
            return Err(fail(
                FailureKind::Interrupted,
                "interrupted while checking the original input; nothing was changed",
            ));
        }
        if !outcome.interesting {
            return Err(fail(
                FailureKind::NotInteresting,
                self.not_interesting_message(outcome),
            ));
        }
        Ok(())
    }

    /// The check passed, in `elapsed`: the verdict is cached, the timeout set, and the output
    /// opened (from now on it always holds an interesting file).
    fn open(self, t: &mut Tester, elapsed: Duration) -> Result<()> {
        t.remember(&self.original, true);
        t.set_timeout(self.cfg.timeout.unwrap_or_else(|| default_timeout(elapsed)));
        let sink = self.plan.open(&self.original)?;
        let location = sink.target().map(Path::display);
        crate::exec::panic::set_best_location(
            location.map_or("stdout (not written: the run stopped)".into(), |p| {
                p.to_string()
            }),
        );
        t.set_sink(sink);
        Ok(())
    }

    fn not_interesting_message(&self, outcome: &Outcome) -> String {
        let name = self.cfg.candidate_name().unwrap_or_default();
        let source = match self.cfg.stdin {
            true => "SAVED-STDIN".to_string(),
            false => shell_quote_os(absolute(&self.cfg.input).as_os_str()),
        };
        let timeout = self.cfg.timeout.unwrap_or(cli::MAX_DEFAULT_TIMEOUT);
        let mut why = match outcome.unmet.is_empty() {
            true => outcome.status.describe(timeout),
            false => outcome.unmet.join("; "),
        };
        if outcome.status == RunStatus::Exited(127) {
            why.push_str(
                " (127: command not found? the test runs in a private temporary directory: name programs by absolute path)",
            );
        }
        if self.cfg.stdin && self.cfg.lang.is_none() {
            why.push_str(
                "; stdin has no file name, so the candidate is named `input`, with no extension: if the test needs one (as `gcc -c {}` does), pass --lang (--lang c names it input.c)",
            );
        }
        let conditions = self.check.conditions.flags();
        let note = match (self.cfg.stdin, conditions.as_slice()) {
            (true, _) => "; SAVED-STDIN stands for a file holding what was piped in".to_string(),
            (false, [only]) if only == "--exit-code 0" => String::new(),
            (false, _) => format!("; interesting means: {}", conditions.join(" ")),
        };
        format!(
            "the original input is not interesting: {} {why}; nothing was changed. Check it by hand{note}:\n  d=$(mktemp -d) && cp -- {source} \"$d\"/{} && (cd \"$d\" && {}; echo \"exit status: $?\")",
            self.check.describe(),
            shell_quote_os(&name),
            self.check.recipe(&name),
        )
    }
}

impl Session {
    /// The result is the empty file: most often a test that does not read the candidate (a
    /// fixed path instead of `$1`, `{}` or `@@`, or `-c 'exit 0'`). One line, with the check.
    pub(super) fn empty_warning(&self) -> String {
        let name = self.cfg.candidate_name().unwrap_or_default();
        format!(
            "reduce: warning: the result is empty: the empty file is interesting, so the test may not read the candidate (a fixed path instead of $1, {{}} or @@?); check: d=$(mktemp -d) && : > \"$d\"/{} && (cd \"$d\" && {}; echo \"exit status: $?\")",
            shell_quote_os(&name),
            self.check.recipe(&name)
        )
    }
}

/// Warns when `flips` of the original's `runs` re-runs were not interesting.
fn warn_flaky(t: &Tester, flips: u32, runs: u64) {
    if flips > 0 {
        t.progress.println(&format!(
            "reduce: warning: the test is flaky: the original was not interesting in {flips} of {} runs; results may not reproduce (make the test deterministic, or raise --timeout if it is slow)",
            runs + 1
        ));
    }
}
