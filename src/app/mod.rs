//! One run, as a recipe: validate, back up, check the original, reduce, re-check, report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::engine::pool::Pool;
use crate::engine::tester::{Stop, Tester};
use crate::exec::check::{Check, TestCommand};
use crate::exec::runner::ScriptConfig;
use crate::exit::{FailureKind, fail};
use crate::report::progress::Progress;
use crate::report::stats::{
    CommandRecord, FailureRecord, PreprocessRecord, Record, Sizes, Slip, SlippedRecord, Written,
    count_lines, summary,
};
use crate::schedule::{PassStats, pass_table};
use crate::signature::Signature;
use crate::store::diskcache::DiskCache;
use crate::store::runlock::RunLock;
use crate::store::sink::{Sink, SinkPlan, backup_path};
use crate::store::slipped::Slipped;
use crate::tree::early::EarlyParse;
use crate::tree::front::Front;
use cli::{Algo, Args, Output};
use config::Config;

mod args;
mod bugreport;
pub mod cli;
pub mod config;
mod each;
mod failure;
pub(crate) mod files;
pub mod multi;
mod original;
mod preprocess;
pub mod reduction;
pub mod stdin;
pub(crate) use original::rerun_original;

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(done) = what_needs_no_input(&args)? {
        return Ok(done);
    }
    let cfg = args.into_config()?;
    crate::signal::install().context("cannot install the signal handlers")?;
    crate::exec::reaper::become_subreaper();
    if cfg.each.is_some() {
        return each::run(cfg);
    } else if crate::app::multi::wanted(&cfg)? {
        return crate::app::multi::run(cfg);
    }
    let mut input = match cfg.stdin {
        true => crate::app::stdin::read_stdin(cfg.max_stdin)?,
        false => read_input(&cfg.input)?,
    };
    let front = front_for(&cfg, &input)?;
    let mut algo = choose_algo(&cfg, &input, front.as_ref())?;
    if cfg.dump_tree {
        return dump_tree(front.as_ref(), &input);
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let mut check = cfg.check.clone().ensure_runnable(&cwd)?;
    check_files(&cfg, &check)?;
    let mut extras = Extras::default();
    if cfg.preprocess
        && let Some(done) = preprocess::preprocess(&cfg, &mut check, &input)?
    {
        input = done.bytes;
        algo = choose_algo(&cfg, &input, front.as_ref())?;
        extras.preprocessed = Some(done.record);
    }
    // --same-failure: the original's failure, from INPUT.orig when the run may resume it
    let mut from_backup = false;
    if cfg.same_failure && check.conditions.same.is_none() {
        let (signature, backup) = original_signature(&cfg, &check, &input)?;
        check.conditions.same = Some(signature);
        from_backup = backup;
    }
    if cfg.show_signature
        && let Some(signature) = &check.conditions.same
    {
        println!("{}", failure::show(signature, cfg.verbose));
        return Ok(ExitCode::SUCCESS);
    }
    let mut plan = SinkPlan::new(&cfg.output, &cfg.input, cfg.force)?;
    let _lock = match plan.locked_file() {
        Some(file) => RunLock::acquire(file)?,
        None => None,
    };
    let inputs: Vec<&Path> = (!cfg.stdin)
        .then_some(cfg.input.as_path())
        .into_iter()
        .collect();
    let mut persistent = open_persistent(&cfg, &check, &inputs);
    if let Some(warning) = persistent.warning.as_ref().filter(|_| !cfg.quiet) {
        eprintln!("{warning}");
    }
    plan.set_resume(persistent.resume.take());
    let input = resume_input(&cfg, &mut plan, input)?;
    if from_backup && plan.resume_point().is_none() {
        // INPUT.orig is not the original of a run to resume: INPUT is the original
        let outcome = failure::run_original(&cfg, &check, &input)?;
        let what = "the original input";
        check.conditions.same = Some(failure::kept_signature(&cfg, &check, &outcome, what)?);
        persistent = open_persistent(&cfg, &check, &inputs);
        plan.set_resume(persistent.resume.take());
    }
    if let Some(signature) = &check.conditions.same
        && !cfg.quiet
    {
        eprintln!("reduce: keeping: {}", failure::show(signature, cfg.verbose));
    }
    if let Some(dir) = &cfg.save_slipped {
        let name = cfg.candidate_name().unwrap_or_default();
        extras.slipped = Some(std::sync::Arc::new(Slipped::open(dir, &name)?));
    }
    let stored = (plan, persistent.verdicts);
    Session::start(cfg, check, input, algo, front, stored, extras)?.finish()
}

/// What the flags that need no input do (completions, the man page, clearing the cache):
/// `Some` when one was given and done.
fn what_needs_no_input(args: &Args) -> Result<Option<ExitCode>> {
    if let Some(shell) = args.generate_completions {
        print_completions(shell);
        return Ok(Some(ExitCode::SUCCESS));
    }
    if args.generate_man {
        let mut page = Vec::new();
        clap_mangen::Man::new(Args::command())
            .render(&mut page)
            .context("cannot render the man page")?;
        use std::io::Write;
        std::io::stdout()
            .write_all(&page)
            .context("cannot write the man page")?;
        return Ok(Some(ExitCode::SUCCESS));
    }
    if args.clear_cache {
        let said =
            crate::store::persist::clear().map_err(|e| fail(FailureKind::Io, format!("{e:#}")))?;
        eprintln!("{said}");
        return Ok(Some(ExitCode::SUCCESS));
    }
    Ok(None)
}

/// The text the run starts from: `input`, or the original of an interrupted run of this
/// command, which the run replays (see resume.rs) once INPUT passed a real run
/// (`Session::verify_resume_point`).
fn resume_input(cfg: &Config, plan: &mut SinkPlan, input: Vec<u8>) -> Result<Vec<u8>> {
    Ok(match plan.resume_from(&input) {
        // every run counts: one leaves none for the resume point's
        Some(_) if cfg.max_attempts == Some(1) => {
            if !cfg.quiet {
                eprintln!(
                    "reduce: warning: not resuming: {} may be a result of an earlier run of this command, but --max-attempts 1 leaves no test run to check it with before trusting that run's record",
                    cfg.input.display()
                );
            }
            plan.refuse_resume()?;
            input
        }
        Some(original) => original,
        None => input,
    })
}

/// What the flags of issue 40 add to a one-file run.
#[derive(Default)]
struct Extras {
    /// `--save-slipped`: the saver every worker offers its slips to.
    slipped: Option<std::sync::Arc<Slipped>>,
    /// `--preprocess`: how the input was preprocessed.
    preprocessed: Option<PreprocessRecord>,
    /// `--reduce-args`: the command reduced, and the test with it.
    command: Option<CommandRecord>,
    reduced_check: Option<Check>,
}

/// The persistent cache of the test `check` (its identity holds the failure kept).
fn open_persistent(
    cfg: &Config,
    check: &Check,
    inputs: &[&Path],
) -> crate::store::persist::Persistent {
    if !cfg.persistent_cache {
        return Default::default();
    }
    let identity = check.identity(inputs);
    crate::store::persist::open(&crate::store::persist::Wanted {
        test_identity: &identity,
        name: cfg.candidate_name().unwrap_or_default(),
        verdicts: cfg.cache,
        resume_of: (cfg.output == Output::InPlace).then_some(cfg.input.as_path()),
        cache_size: cfg.cache_size,
    })
}

/// The failure `--same-failure` keeps: the original's. An in-place run whose `INPUT.orig`
/// differs from INPUT may resume an earlier run (INPUT is then one of its results): the failure
/// is `INPUT.orig`'s if it has one (`true`; the caller takes INPUT's if the run does not resume
/// after all).
fn original_signature(cfg: &Config, check: &Check, input: &[u8]) -> Result<(Signature, bool)> {
    if cfg.output == Output::InPlace
        && !cfg.stdin
        && !cfg.show_signature
        && let Ok(backup) = std::fs::read(backup_path(&cfg.input))
        && backup != input
    {
        let outcome = failure::run_original(cfg, check, &backup)?;
        let what = "the original input";
        match failure::kept_signature(cfg, check, &outcome, what) {
            Ok(signature) => return Ok((signature, true)),
            Err(e)
                if e.downcast_ref::<crate::exit::Failure>()
                    .is_none_or(|f| f.kind != FailureKind::NotInteresting) =>
            {
                return Err(e);
            }
            Err(_) => {}
        }
    }
    let outcome = failure::run_original(cfg, check, input)?;
    let signature = failure::kept_signature(cfg, check, &outcome, "the original input")?;
    Ok((signature, false))
}

/// Before anything runs: no file the run writes may be another file of the run, and the
/// --stats-json location must be writable (it is written only at the end).
fn check_files(cfg: &Config, check: &Check) -> Result<()> {
    if !cfg.stdin
        && check
            .file()
            .is_some_and(|script| same_file(&cfg.input, script))
    {
        return Err(fail(
            FailureKind::Usage,
            format!(
                "the input {} is the test script itself: a script cannot be reduced by itself; copy it and reduce the copy",
                cfg.input.display()
            ),
        ));
    }
    let roles = files::one_file_roles(cfg, &backup_path(&cfg.input));
    files::check_run_files(cfg, check, roles)?;
    if let Some(dir) = &cfg.report {
        bugreport::check_dir(dir)?;
    }
    if let Some(dir) = &cfg.save_slipped {
        Slipped::check(dir)?;
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

fn print_completions(shell: clap_complete::Shell) {
    let mut cmd = Args::command();
    clap_complete::generate(shell, &mut cmd, "reduce", &mut std::io::stdout());
}

/// Reads the input, with a clear error for each way it can be unusable.
fn read_input(path: &Path) -> Result<Vec<u8>> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "does not exist".to_string(),
            std::io::ErrorKind::PermissionDenied => {
                "cannot be read (permission denied)".to_string()
            }
            _ => format!("cannot be read ({e})"),
        };
        fail(FailureKind::BadInput, format!("input {shown} {why}"))
    })?;
    if meta.is_dir() {
        return Err(fail(
            FailureKind::BadInput,
            format!("input {shown} is a directory; reduce takes one file"),
        ));
    }
    if !meta.is_file() {
        return Err(fail(
            FailureKind::BadInput,
            format!(
                "input {shown} is not a regular file (a FIFO, device or socket); save it to a file first"
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        fail(
            FailureKind::BadInput,
            format!("input {shown} cannot be read ({e})"),
        )
    })?;
    if bytes.is_empty() {
        return Err(fail(
            FailureKind::BadInput,
            format!("input {shown} is empty: there is nothing to reduce"),
        ));
    }
    Ok(bytes)
}

pub(crate) fn is_text(bytes: &[u8]) -> bool {
    !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

/// The tree front end for the input: the language `--lang` names or the extension claims,
/// else the bracket tree for any other text. `None` for binary input unless a tree algorithm
/// was asked for (then [`choose_algo`] explains why it cannot run).
fn front_for(cfg: &Config, input: &[u8]) -> Result<Option<Front>> {
    if !is_text(input) && !cfg.algo.is_some_and(Algo::needs_tree) {
        return Ok(None);
    }
    let front = match cfg.lang.as_deref() {
        Some(name) => Front::by_name(name)?,
        None => match crate::lang::for_path(&cfg.input) {
            Some(spec) => Front::grammar(spec)?,
            None => Front::Text,
        },
    };
    Ok(Some(front))
}

/// The algorithm asked for, or perses on text and ddmin on binary files.
fn choose_algo(cfg: &Config, input: &[u8], front: Option<&Front>) -> Result<Algo> {
    let algo = cfg.algo.unwrap_or(if front.is_some() {
        Algo::Perses
    } else {
        Algo::Ddmin
    });
    if !algo.needs_tree() {
        return Ok(algo);
    }
    if front.is_none() || !is_text(input) {
        return Err(fail(
            FailureKind::BadInput,
            format!(
                "{} is not UTF-8 text (binary or NUL bytes), which --algo {} needs; use --algo bytes or --algo ddmin",
                cfg.input_label(),
                algo.name()
            ),
        ));
    }
    Ok(algo)
}

fn dump_tree(front: Option<&Front>, input: &[u8]) -> Result<ExitCode> {
    let front = front.context("--dump-tree needs a text input")?;
    let parsed = front.builder()?.build(input)?;
    let text = |t: u32| String::from_utf8_lossy(parsed.tokens.text(t)).into_owned();
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let head = format!("# {}: {} parse error(s)\n", front.name(), parsed.errors);
    out.write_all(head.as_bytes())
        .and_then(|_| out.write_all(parsed.arena.dump(&text).as_bytes()))
        .and_then(|_| out.flush())
        .context("cannot write the tree to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// Everything a run holds between the check of the original and the summary.
struct Session {
    cfg: Config,
    algo: Algo,
    front: Option<Front>,
    /// Shared with the first parse and the check's conclusion: a large input is held twice
    /// (this and the best), not once per holder.
    original: Arc<[u8]>,
    /// The test, its script or program resolved.
    check: Check,
    tester: Tester,
    start: Instant,
    rounds: u32,
    completion: String,
    /// Per-pass figures of a tree run.
    passes: Vec<PassStats>,
    /// The original's tokens, when the tree run counted them.
    original_tokens: Option<usize>,
    /// The tree run's first parse, started before the original's check.
    early: Option<EarlyParse>,
    /// What `--save-slipped`, `--preprocess` and `--reduce-args` add.
    extras: Extras,
}

impl Session {
    fn start(
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
        let original: Arc<[u8]> = input.as_slice().into();
        let mut session = Session {
            tester: Tester::new(
                pool,
                Sink::memory(),
                input,
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

    fn finish(mut self) -> Result<ExitCode> {
        let reduced = self.reduce();
        reduced?;
        // a resumed run that stopped before its replay passed the resume point ends with what
        // INPUT holds: the smaller result, known interesting
        let best = self.tester.best.clone();
        if let Some(on_disk) = self.tester.sink_mut().settle(&best) {
            self.tester.best = on_disk;
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

/// The end of every run: the record to `--stats-json`, the summary (with the files of a
/// multi-file run, and with `--verbose` the table of passes) to stderr.
pub(crate) fn report(cfg: &Config, r: &Record) -> Result<()> {
    if let Some(path) = &cfg.stats_json {
        let json = serde_json::to_string_pretty(r)?;
        crate::store::sink::write_output(path, json.as_bytes()).map_err(|e| {
            fail(
                FailureKind::Io,
                format!("cannot write --stats-json {}: {e:#}", path.display()),
            )
        })?;
    }
    if !cfg.quiet {
        eprintln!("{}", summary(r));
        if !r.files.is_empty() {
            eprintln!("{}", crate::report::stats::file_table(&r.files));
        }
        if cfg.verbose && !r.passes.is_empty() {
            eprintln!("{}", pass_table(&r.passes));
        }
    }
    Ok(())
}

/// Below this, the original's test is run a second time to catch flaky tests.
pub(crate) const CHEAP_TEST: Duration = Duration::from_millis(500);

pub(crate) fn default_timeout(original: Duration) -> Duration {
    (original * cli::DEFAULT_TIMEOUT_FACTOR)
        .clamp(cli::MIN_DEFAULT_TIMEOUT, cli::MAX_DEFAULT_TIMEOUT)
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
