//! One run, as a recipe: validate, back up, check the original, reduce, re-check, report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::exec::check::Check;
use crate::exit::{FailureKind, fail};
use crate::report::stats::{Record, summary};
use crate::schedule::pass_table;
use crate::signature::Signature;
use crate::store::runlock::RunLock;
use crate::store::sink::{SinkPlan, backup_path};
use crate::store::slipped::Slipped;
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
mod session;

use session::{Extras, Session};
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

pub(crate) fn default_timeout(original: Duration) -> Duration {
    (original * cli::DEFAULT_TIMEOUT_FACTOR)
        .clamp(cli::MIN_DEFAULT_TIMEOUT, cli::MAX_DEFAULT_TIMEOUT)
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
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
