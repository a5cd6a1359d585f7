//! One file of `--each` reduced: the one-file machinery ([`crate::app::reduction::reduce_best`])
//! under a tester of its own, in memory (DIR is never written; the caller writes the output),
//! with the persistent verdict cache of its test, so that a run interrupted inside a group
//! replays that group cheaply when resumed. The result is re-checked once, uncached, and that
//! run's signature says which bug the result is (a reduction without `--same-failure` may slip).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use crate::app::cli::Algo;
use crate::app::config::Config;
use crate::app::reduction::{Job, reduce_best, try_empty};
use crate::app::{choose_algo, default_timeout, front_for};
use crate::engine::pool::Pool;
use crate::engine::tester::{Stop, Tester};
use crate::exec::check::Check;
use crate::exec::runner::ScriptConfig;
use crate::exit::{FailureKind, fail};
use crate::report::progress::Progress;
use crate::signature::Signature;
use crate::store::sink::Sink;

/// A file to reduce.
pub struct Input {
    /// Its path (for the language by extension, and messages).
    pub path: PathBuf,
    /// The candidate's name in the test's directory.
    pub name: OsString,
    pub bytes: Vec<u8>,
    /// Its failure, as its signature run showed it.
    pub signature: Signature,
    /// That run's time (the default timeout is 10 times it).
    pub elapsed: Duration,
    /// Shown before the progress line: where the run stands.
    pub context: String,
    /// No progress line (several reductions run at once: the caller shows where it stands).
    pub quiet: bool,
}

/// What the reduction gave.
pub struct Reduction {
    pub best: Vec<u8>,
    /// The signature of the final re-check's run (the input's own when nothing was removed).
    pub signature: Option<Signature>,
    /// The final re-check passed.
    pub confirmed: bool,
    pub tests: u64,
    pub interrupted: bool,
}

/// Reduces `input` under `check` (with `--same-failure`, `check` keeps the group's failure).
pub fn reduce_file(cfg: &Config, check: &Check, input: &Input) -> Result<Reduction> {
    let mut one = cfg.clone();
    one.input = input.path.clone();
    let front = front_for(&one, &input.bytes)?;
    let algo = choose_algo(&one, &input.bytes, front.as_ref())?;
    let timeout = cfg
        .timeout
        .unwrap_or_else(|| default_timeout(input.elapsed));
    let script_cfg = ScriptConfig {
        check: check.clone(),
        file_name: input.name.clone(),
        timeout,
        verbose: cfg.verbose,
        temp_root: cfg.temp_dir.clone(),
        launcher: cfg.launcher.clone(),
        derive: true,
        slipped: None,
    };
    // the bytes reducer tests one candidate at a time: one worker is enough
    let jobs = if algo == Algo::Bytes { 1 } else { cfg.jobs };
    let pool = Pool::new(jobs, &script_cfg).map_err(|e| {
        fail(
            FailureKind::Io,
            format!("cannot set up the test runs: {e:#}"),
        )
    })?;
    let mut progress = Progress::new(cfg.quiet || input.quiet, input.bytes.len());
    progress.set_jobs(jobs);
    progress.set_context(&input.context);
    let mut tester = Tester::new(
        pool,
        Sink::memory(),
        input.bytes.to_vec(),
        cfg.cache,
        cfg.max_attempts,
        progress,
        cfg.verbose,
    );
    tester.set_disk_cache(verdicts(cfg, check, &input.name));
    // the signature run showed it fails: its verdict is known
    tester.remember(&input.bytes, true);
    tester.set_timeout(timeout);
    let job = Job {
        cfg: &one,
        algo,
        front: front.as_ref(),
        name: &input.path,
        warn: false,
    };
    let (_, result) = reduce_best(&mut tester, &job, None);
    result?;
    try_empty(&mut tester);
    let interrupted = || tester_interrupted(&tester);
    let (mut confirmed, mut signature) = (true, Some(input.signature.clone()));
    if !interrupted() && tester.best[..] != input.bytes[..] {
        let best = tester.best.clone();
        let outcome = tester.run_script(&best)?;
        confirmed = outcome.interesting || crate::signal::interrupted();
        signature = outcome.signature.map(|s| *s);
    }
    tester.progress.finish();
    if let Some(e) = tester.error.take() {
        return Err(e.context(format!("the reduction of {} stopped", input.path.display())));
    }
    Ok(Reduction {
        interrupted: tester_interrupted(&tester),
        best: tester.best.to_vec(),
        signature,
        confirmed,
        tests: tester.stats.tests,
    })
}

fn tester_interrupted(tester: &Tester) -> bool {
    tester.stop == Some(Stop::Interrupted) || crate::signal::interrupted()
}

/// The persistent verdicts of this test on this candidate name (none without the cache).
fn verdicts(
    cfg: &Config,
    check: &Check,
    name: &OsString,
) -> Option<crate::store::diskcache::DiskCache> {
    if !cfg.persistent_cache || !cfg.cache {
        return None;
    }
    let identity = check.identity(&[]);
    let persistent = crate::store::persist::open(&crate::store::persist::Wanted {
        test_identity: &identity,
        name: name.clone(),
        verdicts: true,
        resume_of: None,
        cache_size: cfg.cache_size,
    });
    persistent.verdicts
}
