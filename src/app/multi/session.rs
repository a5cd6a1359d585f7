//! One multi-file run between the check of the original set and the summary: rounds over the
//! files, largest first, each file reduced by the one-file machinery inside its frame.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use xxhash_rust::xxh3::xxh3_128;

use super::set::{FileSet, Shape};
use super::store::StorePlan;
use crate::app::cli::{self, Algo};
use crate::app::config::Config;
use crate::app::reduction::{Job, reduce_best, try_empty};
use crate::app::{default_timeout, is_text, rerun_original};
use crate::engine::pool::Pool;
use crate::engine::tester::{Stop, Tester};
use crate::exec::check::{Check, shell_quote_os};
use crate::exec::frame::{Content, Frame, Member};
use crate::exec::runner::ScriptConfig;
use crate::exit::{FailureKind, fail};
use crate::policy::Verdict;
use crate::report::progress::Progress;
use crate::report::stats::{FileSizes, Record, Sizes, Written, count_lines};
use crate::schedule::PassStats;
use crate::store::sink::Sink;
use crate::tree::front::Front;

/// How one file is reduced: its algorithm and, for tree algorithms, its front end.
struct FilePlan {
    algo: Algo,
    front: Option<Front>,
}

pub struct Session {
    cfg: Config,
    /// The test, checked runnable.
    check: Check,
    set: FileSet,
    /// The members as the run started.
    original: Vec<Member>,
    plans: Vec<Option<FilePlan>>,
    tester: Tester,
    /// Where new bests are stored, once the originals are safe.
    out: Option<PathBuf>,
    /// The backup's description for the summary.
    backup: Option<String>,
    start: Instant,
    rounds: u32,
    completion: String,
    passes: Vec<PassStats>,
    /// Per file, its frame's digest and its own bytes' hash when its last visit ended: a file
    /// whose set has not changed since is at its own fixpoint, and is not visited again.
    settled: Vec<Option<(u128, u128)>>,
}

impl Session {
    pub fn start(cfg: Config, check: Check, set: FileSet, plan: StorePlan) -> Result<Session> {
        let name = set.root.file_name().unwrap_or_default().to_owned();
        let script_cfg = ScriptConfig {
            check: check.clone(),
            file_name: if name.is_empty() {
                "input".into()
            } else {
                name
            },
            timeout: cfg.timeout.unwrap_or(cli::MAX_DEFAULT_TIMEOUT),
            verbose: cfg.verbose,
            temp_root: cfg.temp_dir.clone(),
            launcher: cfg.launcher.clone(),
            derive: false,
            slipped: None,
        };
        let pool = Pool::new(cfg.jobs, &script_cfg).map_err(|e| {
            fail(
                FailureKind::Io,
                format!("cannot set up the test runs: {e:#}"),
            )
        })?;
        let plans = set
            .members
            .iter()
            .map(|m| plan_file(&cfg, m))
            .collect::<Result<Vec<_>>>()?;
        let total = set.members.iter().map(|m| size(&m.content)).sum();
        let members = set.members.len();
        let tester = Tester::new(
            pool,
            Sink::memory(),
            Vec::new(),
            cfg.cache,
            cfg.max_attempts,
            Progress::new(cfg.quiet, total),
            cfg.verbose,
        );
        let mut session = Session {
            original: set.members.clone(),
            cfg,
            check,
            set,
            plans,
            tester,
            out: None,
            backup: None,
            start: Instant::now(),
            rounds: 0,
            completion: String::new(),
            passes: Vec::new(),
            settled: vec![None; members],
        };
        session.check_original()?;
        session.backup = plan.open(&session.set)?;
        session.out = Some(plan.root.clone());
        crate::exec::panic::set_best_location(plan.root.display().to_string());
        Ok(session)
    }

    /// The frame of file `i` in the current set (absent: the set without it).
    fn frame(&self, i: usize, absent: bool) -> Arc<Frame> {
        let mut frame = Frame::new(Arc::new(self.set.members.clone()), i, self.set.arg.clone());
        if absent {
            frame = frame.absent();
        }
        if let Some(out) = &self.out {
            frame = frame.storing_in(out.clone());
        }
        Arc::new(frame)
    }

    /// Points the tester at the whole current set (as file `i`'s frame) and returns that file's
    /// bytes: the candidate that stands for the set.
    fn focus_on_set(&mut self) -> Vec<u8> {
        let i = self.set.files().first().copied().unwrap_or(0);
        let (absent, bytes) = match &self.set.members[i].content {
            Content::File(b) => (false, b.clone()),
            _ => (true, Vec::new()),
        };
        self.tester.set_frame(self.frame(i, absent), bytes.clone());
        bytes
    }

    /// The original set must be interesting; its test time sets the default timeout.
    fn check_original(&mut self) -> Result<()> {
        let bytes = self.focus_on_set();
        let outcome = self.tester.run_script(&bytes)?;
        if crate::signal::interrupted() {
            return Err(fail(
                FailureKind::Interrupted,
                "interrupted while checking the original files; nothing was changed",
            ));
        }
        if !outcome.interesting {
            let timeout = self.cfg.timeout.unwrap_or(cli::MAX_DEFAULT_TIMEOUT);
            let why = match outcome.unmet.is_empty() {
                true => outcome.status.describe(timeout),
                false => outcome.unmet.join("; "),
            };
            let arg = match self.set.arg.as_os_str().is_empty() {
                true => ".".to_string(),
                false => self.set.arg.to_string_lossy().into_owned(),
            };
            return Err(fail(
                FailureKind::NotInteresting,
                format!(
                    "the original files are not interesting: {} {why}; nothing was changed. Check it by hand:\n  d=$(mktemp -d) && {} && (cd \"$d\" && {}; echo \"exit status: $?\")",
                    self.check.describe(),
                    self.copy_recipe(),
                    self.check.recipe(&arg),
                ),
            ));
        }
        self.warn_if_flaky(&bytes, outcome.elapsed)?;
        self.tester.remember(&bytes, true);
        let timeout = self
            .cfg
            .timeout
            .unwrap_or_else(|| default_timeout(outcome.elapsed));
        self.tester.set_timeout(timeout);
        Ok(())
    }

    /// A shell command that copies what the test sees into `"$d"`: the directory, or only the
    /// files of a list, in their layout (never the rest of their common directory).
    fn copy_recipe(&self) -> String {
        let root = shell_quote_os(self.set.root.as_os_str());
        if self.set.shape == Shape::Dir {
            return format!("cp -R {root}/. \"$d\"");
        }
        let files: Vec<String> = self
            .set
            .members
            .iter()
            .filter(|m| matches!(m.content, Content::File(_)))
            .map(|m| shell_quote_os(m.rel.as_os_str()))
            .collect();
        format!(
            "(cd {root} && tar cf - -- {}) | (cd \"$d\" && tar xf -)",
            files.join(" ")
        )
    }

    /// As for one file: a cheap test runs on the original set once more (three times with
    /// `--check-determinism`), and a flip is worth a warning.
    fn warn_if_flaky(&mut self, bytes: &[u8], first: std::time::Duration) -> Result<()> {
        let (flips, runs) = rerun_original(&mut self.tester, &self.cfg, bytes, first)?;
        if flips > 0 {
            self.tester.progress.println(&format!(
                "reduce: warning: the test is flaky: the original files were not interesting in {flips} of {} runs; results may not reproduce",
                runs + 1
            ));
        }
        Ok(())
    }

    /// Rounds over the files, largest first, until a whole round changes nothing; first, each
    /// file without its content, one test each: the files the test does not read go before any
    /// file is reduced, so every reduction sees them gone and the next round has nothing of
    /// theirs to revisit.
    fn reduce(&mut self) -> Result<()> {
        for i in self.visiting_order() {
            if self.tester.stopped() {
                return Ok(());
            }
            self.remove(i);
        }
        loop {
            self.rounds += 1;
            let before = self.footprint();
            for i in self.visiting_order() {
                if self.tester.stopped() {
                    return Ok(());
                }
                self.visit(i)?;
            }
            if self.footprint() == before || self.tester.stopped() {
                return Ok(());
            }
        }
    }

    /// Total bytes and files left: a round that changes neither changed nothing.
    fn footprint(&self) -> (usize, usize) {
        let files = self.set.files();
        let bytes = files
            .iter()
            .map(|&i| size(&self.set.members[i].content))
            .sum();
        (bytes, files.len())
    }

    /// The files still present, largest first (ties by path).
    fn visiting_order(&self) -> Vec<usize> {
        let mut order = self.set.files();
        order.sort_by_key(|&i| std::cmp::Reverse(size(&self.set.members[i].content)));
        order
    }

    /// Tries the set without file `i` (with `--delete-files`), else with `i` empty.
    fn remove(&mut self, i: usize) {
        if self.cfg.delete_files && self.try_absent(i) {
            return;
        }
        if let Content::File(bytes) = self.set.members[i].content.clone()
            && !bytes.is_empty()
        {
            self.tester.set_frame(self.frame(i, false), bytes);
            try_empty(&mut self.tester);
            if self.tester.best.is_empty() {
                self.set.members[i].content = Content::File(Vec::new());
            }
        }
    }

    /// Tries the set without file `i`; true if the test took it (the file is gone).
    fn try_absent(&mut self, i: usize) -> bool {
        let Content::File(bytes) = self.set.members[i].content.clone() else {
            return true;
        };
        self.tester.set_frame(self.frame(i, true), bytes);
        if self.tester.verdict(b"") != Verdict::Interesting {
            return false;
        }
        self.tester.replace_best(b"");
        self.set.members[i].content = Content::Gone;
        true
    }

    /// Reduces file `i` in its frame: first (with `--delete-files`) without it at all, then
    /// with its own algorithm, then empty.
    fn visit(&mut self, i: usize) -> Result<()> {
        let Content::File(bytes) = self.set.members[i].content.clone() else {
            return Ok(());
        };
        let frame = self.frame(i, false);
        if self.settled[i] == Some((frame.digest(), xxh3_128(&bytes))) {
            return Ok(());
        }
        if self.cfg.delete_files && self.try_absent(i) {
            return Ok(());
        }
        self.tester.set_frame(frame.clone(), bytes);
        let plan = self.plans[i].as_ref().map(|p| (p.algo, p.front.as_ref()));
        let Some((algo, front)) = plan else {
            return Ok(());
        };
        let name = self.set.root.join(&self.set.members[i].rel);
        let job = Job {
            cfg: &self.cfg,
            algo,
            front,
            name: &name,
            warn: self.rounds == 1,
        };
        let (done, result) = reduce_best(&mut self.tester, &job, None);
        try_empty(&mut self.tester);
        self.set.members[i].content = Content::File(self.tester.best.to_vec());
        merge_passes(&mut self.passes, done.passes);
        // the other files did not change during the visit: the frame is still the set's
        if result.is_ok() && !self.tester.stopped() {
            self.settled[i] = Some((frame.digest(), xxh3_128(&self.tester.best)));
        }
        result
    }

    pub fn finish(mut self) -> Result<ExitCode> {
        let result = self.reduce();
        self.tester.progress.finish();
        let error = self.tester.error.take();
        let interrupted =
            self.tester.stop == Some(Stop::Interrupted) || crate::signal::interrupted();
        self.completion = if interrupted {
            "interrupted"
        } else if self.tester.stop == Some(Stop::Budget) {
            "budget_exhausted"
        } else {
            "fixpoint"
        }
        .into();
        let confirmed = error.is_some() || interrupted || result.is_err() || self.recheck()?;
        let ending = crate::app::reduction::after_recheck(interrupted, confirmed);
        if ending.0 {
            self.completion = "interrupted".into();
        }
        self.report()?;
        let empty = self.set.members.iter().all(|m| match &m.content {
            Content::File(bytes) => bytes.is_empty(),
            _ => true,
        });
        if empty && !interrupted && !self.cfg.quiet {
            eprintln!(
                "reduce: warning: every file of the result is empty: empty files are interesting, so the test may not read them (a fixed path instead of $1, {{}} or @@?)"
            );
        }
        crate::app::reduction::exit_code(
            error,
            result,
            ending,
            "the final files are no longer interesting when tested again: the test is flaky (they were interesting when found; they are kept)",
        )
    }

    /// Runs the test once more on the final set, bypassing the cache (skipped when the
    /// --max-attempts budget is used up: every run counts).
    fn recheck(&mut self) -> Result<bool> {
        let unchanged = self
            .set
            .members
            .iter()
            .zip(&self.original)
            .all(|(a, b)| a.content == b.content);
        if unchanged || !self.tester.budget_left() {
            return Ok(true);
        }
        let bytes = self.focus_on_set();
        Ok(self.tester.run_script(&bytes)?.interesting)
    }

    fn record(&self) -> Record {
        let files: Vec<FileSizes> = self
            .original
            .iter()
            .zip(&self.set.members)
            .zip(&self.plans)
            .filter(|((o, _), _)| matches!(o.content, Content::File(_)))
            .map(|((o, now), plan)| FileSizes {
                path: o.rel.display().to_string(),
                algo: plan.as_ref().map_or("none", |p| p.algo.name()).into(),
                original_bytes: size(&o.content),
                final_bytes: size(&now.content),
                deleted: now.content == Content::Gone,
            })
            .collect();
        let lines = |members: &[Member]| -> usize {
            members
                .iter()
                .map(|m| match &m.content {
                    Content::File(b) => count_lines(b),
                    _ => 0,
                })
                .sum()
        };
        let mut algos: Vec<String> = files.iter().map(|f| f.algo.clone()).collect();
        algos.sort();
        algos.dedup();
        Record {
            input: format!(
                "{} ({})",
                self.cfg.input.display(),
                crate::report::stats::count(files.len() as u64, "file", "files")
            ),
            algo: algos.join("+"),
            sizes: Sizes {
                original_bytes: files.iter().map(|f| f.original_bytes).sum(),
                final_bytes: files.iter().map(|f| f.final_bytes).sum(),
                original_lines: lines(&self.original),
                final_lines: lines(&self.set.members),
                original_tokens: None,
                final_tokens: None,
            },
            rounds: self.rounds,
            completion: self.completion.clone(),
            wall_seconds: self.start.elapsed().as_secs_f64(),
            written: Written {
                output: self.out.as_ref().map(|p| self.shown_output(p)),
                backup: self.backup.clone(),
            },
            stats: self.tester.stats.clone(),
            passes: self.passes.clone(),
            files,
            // no resume record for many files (yet)
            resumable: false,
            failure: Default::default(),
        }
    }

    /// The result's location in the summary: the directory, or the files in place.
    fn shown_output(&self, out: &Path) -> String {
        if self.set.shape == Shape::Dir || self.cfg.output != cli::Output::InPlace {
            return out.display().to_string();
        }
        self.original
            .iter()
            .filter(|m| matches!(m.content, Content::File(_)))
            .map(|m| out.join(&m.rel).display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn report(&self) -> Result<()> {
        crate::app::report(&self.cfg, &self.record())
    }
}

/// The algorithm and front end of one file: by its extension (or `--lang`) for text, the tree
/// algorithms falling back to ddmin on a binary file. `None` for what is not a file.
fn plan_file(cfg: &Config, member: &Member) -> Result<Option<FilePlan>> {
    let Content::File(bytes) = &member.content else {
        return Ok(None);
    };
    if !is_text(bytes) {
        let algo = match cfg.algo {
            Some(Algo::Bytes) => Algo::Bytes,
            _ => Algo::Ddmin,
        };
        return Ok(Some(FilePlan { algo, front: None }));
    }
    let algo = cfg.algo.unwrap_or(Algo::Perses);
    let front = match (algo.needs_tree(), cfg.lang.as_deref()) {
        (false, _) => None,
        (true, Some(name)) => Some(Front::by_name(name)?),
        (true, None) => Some(match crate::lang::for_path(&member.rel) {
            Some(spec) => Front::grammar(spec)?,
            None => Front::Text,
        }),
    };
    Ok(Some(FilePlan { algo, front }))
}

fn size(content: &Content) -> usize {
    match content {
        Content::File(b) => b.len(),
        _ => 0,
    }
}

/// Adds one file's pass figures to the run's, pass by pass.
fn merge_passes(into: &mut Vec<PassStats>, from: Vec<PassStats>) {
    for p in from {
        PassStats::merge(into, p);
    }
}
