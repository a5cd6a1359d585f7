//! The reduction of one text (or binary) under a tester, from its current best: ddmin over lines
//! or chars, the bytes reducer, or the driver's tree schedule. A one-file run (`app`) calls it
//! once; a multi-file run (`multi`) calls it for each file in turn, inside that file's frame.

use std::path::Path;

use anyhow::{Context, Result};

use crate::app::cli::{Algo, UnitKind};
use crate::app::config::Config;
use crate::engine::reduce;
use crate::engine::tester::{SegmentsOracle, Tester};
use crate::exit::{FailureKind, fail};
use crate::policy::bytes::{Completion, Settings, Workspace, reduce_bytes};
use crate::policy::ddmin::{Ddmin, Sweep};
use crate::policy::{Unit, Verdict};
use crate::schedule::{Deletion, Driver, PassStats, Schedule};
use crate::tree::early::EarlyParse;
use crate::tree::front::Front;
use crate::tree::render::Segments;

/// How to reduce one file.
pub struct Job<'a> {
    pub cfg: &'a Config,
    pub algo: Algo,
    /// The tree front end (tree algorithms only).
    pub front: Option<&'a Front>,
    /// The file's name, for warnings.
    pub name: &'a Path,
    /// Warn when the file does not parse (a multi-file run warns on its first visit only).
    pub warn: bool,
}

/// What the reduction of one file did.
#[derive(Default)]
pub struct Reduced {
    pub rounds: u32,
    pub completion: String,
    /// Per-pass figures of a tree run.
    pub passes: Vec<PassStats>,
    /// The tokens of the text a tree run started from (its first tree is built anyway; on a
    /// large input a second build for the summary costs seconds).
    pub start_tokens: Option<usize>,
}

/// Reduces `tester.best` as `job` says. The figures come back even when the run stopped with
/// an error (the error is the second half).
pub fn reduce_best(
    tester: &mut Tester,
    job: &Job,
    early: Option<EarlyParse>,
) -> (Reduced, Result<()>) {
    let mut done = Reduced::default();
    let result = match job.algo {
        Algo::Ddmin => run_ddmin(tester, job.cfg.unit, &mut done),
        Algo::Bytes => run_bytes(tester, &mut done),
        Algo::Hdd | Algo::Perses => run_tree(tester, job, early, &mut done),
    };
    // the default path reduces a file whatever its line structure
    if result.is_ok() && job.cfg.algo.is_none() && job.cfg.unit == UnitKind::Line {
        finer_units(tester, job.front.is_none());
    }
    (done, result)
}

/// A line longer than this in a text result is one the default path could not split (one
/// huge line of minified code or base64 without spaces): it goes on by bytes.
pub const LONG_LINE: usize = 1024;

/// The default path's last step, where lines or words were too coarse: a binary file's lines are
/// an arbitrary cut of its bytes, and a text result may keep a line nothing split. Such a
/// result is swept in chunks halving down to `len / BYTE_SWEEP_MAX` bytes (about
/// `2 * BYTE_SWEEP_MAX` tests at most), then byte by byte once it is at most
/// [`BYTE_SWEEP_MAX`] bytes.
fn finer_units(tester: &mut Tester, binary: bool) {
    let longest = tester.best.split(|&b| b == b'\n').map(<[u8]>::len).max();
    if !binary && longest.unwrap_or(0) <= LONG_LINE {
        return;
    }
    let len = tester.best.len();
    if len > BYTE_SWEEP_MAX && !tester.stopped() {
        let segments = Segments::chars(tester.best.to_vec());
        let units: Vec<Unit> = (0..segments.len() as Unit).collect();
        let mut oracle = SegmentsOracle::new(&segments, tester);
        reduce(
            units,
            &mut oracle,
            &mut Sweep::down_to(len.div_ceil(BYTE_SWEEP_MAX)),
        );
    }
    sweep_bytes(tester);
}

/// Every algorithm ends at the empty file when the test accepts it: ddmin never proposes the
/// empty configuration, and a tree can leave whitespace or a token the grammar keeps.
pub fn try_empty(tester: &mut Tester) {
    if !tester.best.is_empty() && !tester.stopped() {
        tester.test(b"");
    }
}

fn run_ddmin(tester: &mut Tester, unit: UnitKind, done: &mut Reduced) -> Result<()> {
    let segments = match unit {
        UnitKind::Line => Segments::lines(tester.best.to_vec()),
        UnitKind::Char => Segments::chars(tester.best.to_vec()),
    };
    let units: Vec<Unit> = (0..segments.len() as Unit).collect();
    let mut oracle = SegmentsOracle::new(&segments, tester);
    reduce(units, &mut oracle, &mut Ddmin);
    done.rounds = 1;
    done.completion = "fixpoint".into();
    Ok(())
}

/// A result the default path sweeps byte by byte is at most this size: at most about two tests
/// a byte when nothing more can go (a fuzz finding is usually far smaller).
pub const BYTE_SWEEP_MAX: usize = 16 * 1024;

/// Deletion sweeps over single bytes (chunks halving from the whole length, 1-minimal at the
/// end), in parallel like any other pass; nothing above [`BYTE_SWEEP_MAX`] bytes.
fn sweep_bytes(tester: &mut Tester) {
    let len = tester.best.len();
    if len <= 1 || len > BYTE_SWEEP_MAX || tester.stopped() {
        return;
    }
    let segments = Segments::chars(tester.best.to_vec());
    let units: Vec<Unit> = (0..segments.len() as Unit).collect();
    let mut oracle = SegmentsOracle::new(&segments, tester);
    reduce(units, &mut oracle, &mut Sweep::new());
}

fn run_bytes(tester: &mut Tester, done: &mut Reduced) -> Result<()> {
    let original = tester.best.clone();
    let mut ws =
        Workspace::new(original.len()).map_err(|e| fail(FailureKind::BadInput, e.to_string()))?;
    // the starting point was checked before: its verdict costs no second run (the cache would
    // answer too, but not with --no-cache)
    let mut oracle = |c: &[u8]| {
        if c == &original[..] {
            return Some(Verdict::Interesting);
        }
        (!tester.stopped()).then(|| tester.test(c))
    };
    let outcome = reduce_bytes(&mut ws, &original, &mut oracle, Settings::default())
        .map_err(|e| fail(FailureKind::NotInteresting, e.to_string()))?;
    done.completion = match outcome.completion {
        Completion::OneMinimal => "one_minimal",
        Completion::BudgetExhausted => "budget_exhausted",
        Completion::Stopped => "stopped",
    }
    .into();
    done.rounds = 1;
    Ok(())
}

/// HDD or Perses, with the rewrite passes around them: the schedule is the driver's. `early`:
/// the first parse, if one was started (it is used if it is of the best).
fn run_tree(
    tester: &mut Tester,
    job: &Job,
    early: Option<EarlyParse>,
    done: &mut Reduced,
) -> Result<()> {
    let cfg = job.cfg;
    let front = job.front.context("a tree algorithm without a front end")?;
    let mut early = match early {
        Some(early) if early.text() == &tester.best[..] => early,
        _ => EarlyParse::start(front, tester.best.clone()),
    };
    let first = early.first()?;
    if first.errors > 0 && job.warn && !cfg.quiet {
        let what = match front {
            Front::Text => "unmatched bracket(s)",
            Front::Grammar(_) => "parse error(s)",
        };
        tester.progress.println(&format!(
            "reduce: warning: {} has {} {what} (first at byte {}); ERROR regions are reduced token by token",
            job.name.display(),
            first.errors,
            first.first_error.unwrap_or(0)
        ));
    }
    let schedule = Schedule {
        deletion: match job.algo {
            Algo::Hdd => Deletion::Hdd,
            _ => Deletion::Perses,
        },
        rewrites: job.algo == Algo::Perses && cfg.rewrites,
        thorough: cfg.thorough,
        rename: job.algo == Algo::Perses && cfg.rename,
        prefilter: cfg.prefilter,
        format: job.algo == Algo::Perses && cfg.rewrites && cfg.format,
        compact: cfg.compact,
    };
    let mut driver = Driver::new(tester, front, schedule, Some(early))?;
    let result = driver.run();
    done.start_tokens = driver.early_tokens();
    done.rounds = driver.rounds;
    done.passes = std::mem::take(&mut driver.passes);
    result?;
    done.completion = "fixpoint".into();
    Ok(())
}

/// A final re-check that an interrupt cut short gives no verdict: the run then ends as
/// interrupted, not as a flaky test. Returns `(interrupted, confirmed)`.
pub fn after_recheck(interrupted: bool, confirmed: bool) -> (bool, bool) {
    match !confirmed && crate::signal::interrupted() {
        true => (true, true),
        false => (interrupted, confirmed),
    }
}

/// How a run ends once its summary is out: the error that stopped it, then `done` (the
/// result's last write), then an unconfirmed result (a flaky test: `flaky` says what is
/// kept), else the exit code of an interrupted or finished run.
pub fn exit_code(
    error: Option<anyhow::Error>,
    done: Result<()>,
    (interrupted, confirmed): (bool, bool),
    flaky: &str,
) -> Result<std::process::ExitCode> {
    if let Some(e) = error {
        return Err(e.context("the run stopped; the best result so far is kept"));
    }
    done?;
    if !confirmed {
        return Err(fail(FailureKind::Flaky, flaky.to_string()));
    }
    Ok(std::process::ExitCode::from(match interrupted {
        true => 128 + crate::signal::signal_number().unwrap_or(2) as u8,
        false => crate::exit::SUCCESS,
    }))
}
