//! A one-file run's session: from the check of the original through the reduction, the
//! re-check and the optional steps (`--reduce-args`, `--report`), to the summary.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};

use super::cli::{self, Algo, Output};
use super::config::Config;
use super::{args, bugreport, report};
use crate::engine::pool::Pool;
use crate::engine::tester::{Stop, Tester};
use crate::exec::check::{Check, TestCommand};
use crate::exec::runner::ScriptConfig;
use crate::exit::{FailureKind, fail};
use crate::report::progress::Progress;
use crate::report::stats::{
    CommandRecord, FailureRecord, PreprocessRecord, Record, Sizes, Slip, SlippedRecord, Written,
    count_lines,
};
use crate::schedule::PassStats;
use crate::signature::Signature;
use crate::store::diskcache::DiskCache;
use crate::store::sink::{Sink, SinkPlan};
use crate::store::slipped::Slipped;
use crate::tree::early::EarlyParse;
use crate::tree::front::Front;

/// What the no-script flags (`--save-slipped`, `--preprocess`, `--reduce-args`) add to a one-file run.
#[derive(Default)]
pub(super) struct Extras {
    /// `--save-slipped`: the saver every worker offers its slips to.
    pub(super) slipped: Option<std::sync::Arc<Slipped>>,
    /// `--preprocess`: how the input was preprocessed.
    pub(super) preprocessed: Option<PreprocessRecord>,
    /// `--reduce-args`: the command reduced, and the test with it.
    pub(super) command: Option<CommandRecord>,
    pub(super) reduced_check: Option<Check>,
}

/// Everything a run holds between the check of the original and the summary.
pub(super) struct Session {
    pub(super) cfg: Config,
    pub(super) algo: Algo,
    pub(super) front: Option<Front>,
    /// Shared with the first parse and the check's conclusion: a large input is held twice
    /// (this and the best), not once per holder.
    pub(super) original: Arc<[u8]>,
    /// The test, its script or program resolved.
    pub(super) check: Check,
    pub(super) tester: Tester,
    pub(super) start: Instant,
    pub(super) rounds: u32,
    pub(super) completion: String,
    /// Per-pass figures of a tree run.
    pub(super) passes: Vec<PassStats>,
    /// The original's tokens, when the tree run counted them.
    pub(super) original_tokens: Option<usize>,
    /// The tree run's first parse, started before the original's check.
    pub(super) early: Option<EarlyParse>,
    /// What `--save-slipped`, `--preprocess` and `--reduce-args` add.
    pub(super) extras: Extras,
}

impl Session {
    pub(super) fn start(
        cfg: Config,
        check: Check,
        input: Vec<u8>,
        algo: Algo,
        front: Option<Front>,
        (plan, verdicts): (SinkPlan, Option<DiskCache>),
        extras: Extras,
    ) -> Result<Session> {
        let file_name = cfg
            .candidate_name()
            .context("the input path has no file name")?;
        let script_cfg = ScriptConfig {
            check: check.clone(),
            file_name,
            timeout: cfg.timeout.unwrap_or(cli::MAX_DEFAULT_TIMEOUT),
            verbose: cfg.verbose,
            temp_root: cfg.temp_dir.clone(),
            launcher: cfg.launcher.clone(),
            derive: false,
            slipped: extras.slipped.clone(),
        };
        // the bytes reducer tests one candidate at a time: one worker is enough
        let jobs = if algo == Algo::Bytes { 1 } else { cfg.jobs };
        let pool = Pool::new(jobs, &script_cfg).map_err(|e| {
            fail(
                FailureKind::Io,
                format!("cannot set up the test runs: {e:#}"),
            )
        })?;
        let mut progress = Progress::new(cfg.quiet, input.len());
        progress.set_jobs(jobs);
        let start = Instant::now();
        // one copy of the input: the best starts as the original, and shares its bytes
        let original: Arc<[u8]> = input.into();
        let mut session = Session {
            tester: Tester::new(
                pool,
                Sink::memory(),
                original.clone(),
                cfg.cache,
                cfg.max_attempts,
                progress,
                cfg.verbose,
            ),
            cfg,
            algo,
            front,
            original,
            check,
            start,
            rounds: 0,
            completion: String::new(),
            passes: Vec::new(),
            original_tokens: None,
            early: None,
            extras,
        };
        // the tree run's first parse, and its first call's listing, go on while the
        // original's check runs
        if let (Algo::Hdd | Algo::Perses, Some(front)) = (algo, session.front.as_ref()) {
            let rewrites = algo == Algo::Perses && session.cfg.rewrites;
            // the best is the original here: the parse shares the original's bytes
            let best = session.original.clone();
            let listing = crate::schedule::first_listing(front, best.len(), rewrites);
            session.early = Some(EarlyParse::start_listing(front, best, listing));
        }
        session.tester.set_disk_cache(verdicts);
        let plan = session.verify_resume_point(plan)?;
        session.check_original(plan)?;
        Ok(session)
    }

    fn reduce(&mut self) -> Result<()> {
        let job = crate::app::reduction::Job {
            cfg: &self.cfg,
            algo: self.algo,
            front: self.front.as_ref(),
            name: &self.cfg.input,
            warn: true,
        };
        let from_original = self.tester.best[..] == self.original[..];
        let early = self.early.take();
        let (done, result) = crate::app::reduction::reduce_best(&mut self.tester, &job, early);
        self.original_tokens = done.start_tokens.filter(|_| from_original);
        self.rounds = done.rounds;
        self.completion = done.completion;
        self.passes = done.passes;
        result
    }

    pub(super) fn finish(mut self) -> Result<ExitCode> {
        let reduced = self.reduce();
        reduced?;
        // a resumed run that stopped before its replay passed the resume point ends with what
        // INPUT holds: the smaller result, known interesting
        let best = self.tester.best.clone();
        if let Some(on_disk) = self.tester.sink_mut().settle(&best) {
            self.tester.best = on_disk.into();
        }
        let rechecked = self.try_empty_and_recheck()?;
        self.tester.progress.finish();
        let error = self.tester.error.take();
        let interrupted =
            self.tester.stop == Some(Stop::Interrupted) || crate::signal::interrupted();
        if interrupted {
            self.completion = "interrupted".into();
        } else if self.tester.stop == Some(Stop::Budget) {
            self.completion = "budget_exhausted".into();
        }
        let confirmed = error.is_some()
            || interrupted
            || match rechecked {
                Some(confirmed) => confirmed,
                None => self.recheck()?,
            };
        let ending = crate::app::reduction::after_recheck(interrupted, confirmed);
        if ending.0 {
            self.completion = "interrupted".into();
        } else if error.is_none() {
            // a later run with another test knows INPUT is this run's result
            let best = self.tester.best.clone();
            self.tester.sink_mut().finished(&best);
        }
        // the result reaches stdout or a device even when the run ended early
        let emitted = self.tester.sink().finish(&self.tester.best);
        let finished = !ending.0 && ending.1 && error.is_none() && emitted.is_ok();
        if finished && self.cfg.reduce_args {
            self.reduce_args()?;
        }
        self.report(finished)?;
        if self.tester.best.is_empty() && !interrupted && !self.cfg.quiet {
            eprintln!("{}", self.empty_warning());
        }
        crate::app::reduction::exit_code(
            error,
            emitted,
            ending,
            "the final result is no longer interesting when tested again: the test is flaky (it was interesting when found; it is kept)",
        )
    }

    /// The empty file's test; with `-j` above 1, the final re-check runs alongside it (the last
    /// two runs do not depend on each other unless the empty file wins). `Some`: the re-check's
    /// verdict on the final best; `None`: it is still to run.
    fn try_empty_and_recheck(&mut self) -> Result<Option<bool>> {
        let t = &mut self.tester;
        let paired = t.width() > 1
            && self.cfg.max_attempts.is_none()
            && !t.best.is_empty()
            && t.best[..] != self.original[..]
            && !t.stopped();
        if !paired {
            crate::app::reduction::try_empty(t);
            return Ok(None);
        }
        let best = t.best.clone();
        let (recheck, empty) = t.recheck_and_empty(&best)?;
        if empty == crate::policy::Verdict::Interesting {
            // the re-check was of the text before: the empty file gets its own
            t.accept(b"");
            return Ok(None);
        }
        Ok(Some(recheck.interesting))
    }

    /// Runs the test once more on the final result, bypassing the cache (skipped when the
    /// --max-attempts budget is used up: every run counts).
    fn recheck(&mut self) -> Result<bool> {
        if self.tester.best[..] == self.original[..] || !self.tester.budget_left() {
            return Ok(true);
        }
        let best = self.tester.best.clone();
        Ok(self.tester.run_script(&best)?.interesting)
    }

    fn record(&self) -> Record {
        let tokens = |b: &[u8]| -> Option<usize> {
            let front = self.front.as_ref()?;
            Some(front.builder().ok()?.build(b).ok()?.tokens.len())
        };
        let sink = self.tester.sink();
        Record {
            input: self.cfg.input.display().to_string(),
            algo: self.algo.name().into(),
            sizes: Sizes {
                original_bytes: self.original.len(),
                final_bytes: self.tester.best.len(),
                original_lines: count_lines(&self.original),
                final_lines: count_lines(&self.tester.best),
                original_tokens: self.original_tokens.or_else(|| tokens(&self.original)),
                final_tokens: tokens(&self.tester.best),
            },
            rounds: self.rounds,
            completion: self.completion.clone(),
            wall_seconds: self.start.elapsed().as_secs_f64(),
            written: Written {
                output: sink.target().map(|p| p.display().to_string()),
                backup: sink.backup.as_ref().map(|p| p.display().to_string()),
            },
            stats: self.tester.stats.clone(),
            passes: self.passes.clone(),
            files: Vec::new(),
            resumable: sink.resumable(),
            failure: self.failure_record(),
        }
    }

    fn failure_record(&self) -> FailureRecord {
        let same = self.check.conditions.same.as_ref();
        if let Some(saver) = &self.extras.slipped {
            saver.flush();
        }
        let slipped = self.extras.slipped.as_ref().map(|saver| SlippedRecord {
            dir: saver.dir().display().to_string(),
            signatures: saver
                .entries()
                .into_iter()
                .map(|e| Slip {
                    short_name: e.short_name,
                    file: e.file,
                    size: e.size,
                })
                .collect(),
            error: saver.error(),
        });
        FailureRecord {
            kept: same.map(Signature::describe),
            signature: same.cloned(),
            slipped,
            command: self.extras.command.clone(),
            preprocessed: self.extras.preprocessed.clone(),
            report: None,
        }
    }

    /// `--reduce-args`, on the final result.
    fn reduce_args(&mut self) -> Result<()> {
        let budget = self
            .cfg
            .max_attempts
            .map(|max| max.saturating_sub(self.tester.stats.tests));
        let shown = self.result_name();
        let (record, check) = args::reduce_command(
            &self.cfg,
            &self.check,
            &self.tester.best,
            self.tester.timeout(),
            budget,
            &shown,
        )?;
        self.extras.command = Some(record);
        self.extras.reduced_check = Some(check);
        Ok(())
    }

    /// The result's name for the command printed: `-o FILE`, INPUT, or the candidate's name.
    fn result_name(&self) -> PathBuf {
        match &self.cfg.output {
            Output::File(path) => path.clone(),
            Output::InPlace => self.cfg.input.clone(),
            Output::Stdout => PathBuf::from(self.cfg.candidate_name().unwrap_or_default()),
        }
    }

    /// `--report DIR`, once the run has finished.
    fn write_bug_report(&self, dir: &Path, record: &Record) -> Result<()> {
        let check = self.extras.reduced_check.as_ref().unwrap_or(&self.check);
        let given = match &self.cfg.check.command {
            TestCommand::Argv(words) => Some(words.clone()),
            _ => None,
        };
        let original_command = match (&self.extras.command, &given) {
            (Some(_), Some(words)) => Some(args::command_line(
                words,
                Path::new(&self.cfg.candidate_name().unwrap_or_default()),
            )),
            _ => None,
        };
        bugreport::write(
            dir,
            &bugreport::Report {
                name: self.cfg.candidate_name().unwrap_or_default(),
                reduced: &self.tester.best,
                check,
                program: given.and_then(|w| w.first().cloned()),
                original_command,
                record,
            },
        )
    }

    fn report(&self, finished: bool) -> Result<()> {
        let mut r = self.record();
        if let Some(dir) = &self.cfg.report {
            match finished {
                true => {
                    self.write_bug_report(dir, &r)?;
                    r.failure.report = Some(dir.display().to_string());
                }
                false if !self.cfg.quiet => eprintln!(
                    "reduce: warning: no --report written: the run did not finish (the result so far is kept)"
                ),
                false => {}
            }
        }
        report(&self.cfg, &r)
    }
}
