//! The byte-level test pipeline every algorithm goes through: verdict cache (xxh3-128 of the
//! candidate's bytes), then the script. A new best is written to disk at once. The unit-level
//! adapters render a configuration to bytes (and, for trees, reparse it as a prefilter) first.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use xxhash_rust::xxh3::{Xxh3, xxh3_128};

use super::{Started, new_ticket};
use crate::engine::pool::{Pool, Report, Ticket};
use crate::engine::prefilter::Check;
use crate::exec::frame::Frame;
use crate::exec::runner::{Outcome, RunStatus};
use crate::policy::Verdict;
use crate::report::progress::Progress;
use crate::report::stats::Stats;
use crate::store::diskcache::DiskCache;
use crate::store::sink::Sink;

/// How many runs `--verbose` reports in full (timeouts are always reported).
const VERBOSE_RUNS: u64 = 5;

/// Why the tester asks the loop to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Interrupted,
    Budget,
    Error,
}

pub struct Tester {
    pool: Pool,
    verdicts: Verdicts,
    budget: Budget,
    /// Cache keys of the runs in flight, by ticket.
    in_flight: HashMap<Ticket, u128>,
    /// Verdicts that arrived while waiting for another ticket.
    ready: VecDeque<(Ticket, Option<bool>)>,
    pub stats: Stats,
    pub best: Arc<[u8]>,
    sink: Sink,
    /// Multi-file runs: the other files around `best`; it keys the cache and stores the best.
    frame: Option<Arc<Frame>>,
    pub progress: Progress,
    pub stop: Option<Stop>,
    /// The first error that stopped the run (cannot write a temp file, cannot spawn).
    pub error: Option<anyhow::Error>,
    /// A re-check made ahead of the end ([`Tester::verdict_rechecking`]): the content key it
    /// ran on, and its outcome.
    rechecked: Option<(u128, Outcome)>,
    /// Runs since the best last got smaller ([`Tester::stalled`]).
    stall: Stall,
}

/// How a test of a candidate began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Begin {
    /// Its verdict is known already (cache).
    Known(bool),
    Running,
    /// Not started: the run is stopping, or the budget is spent.
    Refused,
}

/// A candidate's text as [`Tester::begin`] takes it: a worker needs its own copy when a test
/// starts, and a render buffer given by value goes to it as it is, not copied (a candidate is
/// the size of the input).
pub trait Candidate: AsRef<[u8]> + Into<Vec<u8>> {}

impl<T: AsRef<[u8]> + Into<Vec<u8>>> Candidate for T {}

impl Tester {
    pub fn new(
        pool: Pool,
        sink: Sink,
        original: impl Into<Arc<[u8]>>,
        cache: bool,
        max_attempts: Option<u64>,
        progress: Progress,
        verbose: bool,
    ) -> Tester {
        let mut progress = progress;
        progress.set_verbose(verbose);
        let original = original.into();
        let stall = Stall::new(&original);
        Tester {
            pool,
            verdicts: Verdicts::new(cache),
            budget: Budget::new(max_attempts),
            in_flight: HashMap::new(),
            ready: VecDeque::new(),
            stats: Stats::default(),
            best: original,
            sink,
            frame: None,
            progress,
            stop: None,
            error: None,
            rechecked: None,
            stall,
        }
    }

    /// Uses the persistent verdicts too (only with the in-run cache on).
    pub fn set_disk_cache(&mut self, disk: Option<DiskCache>) {
        self.verdicts.set_disk(disk);
    }

    /// Results of the interrupted run this one resumes: known interesting, so that replaying
    /// its path costs no test runs.
    pub fn preload_interesting(&mut self, keys: &[u128]) {
        for &key in keys {
            self.verdicts.insert(key, true);
        }
    }

    pub fn set_timeout(&mut self, timeout: std::time::Duration) {
        self.pool.set_timeout(timeout);
    }

    /// The timeout of every test run now.
    pub fn timeout(&self) -> std::time::Duration {
        self.pool.timeout()
    }

    /// Swaps in the real output once the original has been checked.
    pub fn set_sink(&mut self, sink: Sink) {
        self.sink = sink;
    }

    /// Multi-file runs: from now on candidates are the current file of `frame`, whose bytes
    /// are `best`; new bests are stored through the frame.
    pub fn set_frame(&mut self, frame: Arc<Frame>, best: Vec<u8>) {
        self.pool.set_frame(Some(frame.clone()));
        self.frame = Some(frame);
        self.best = best.into();
        self.stall.restart(&self.best, self.budget.charged());
    }

    /// The cache key of a candidate: its bytes, within the frame of a multi-file run.
    fn key(&self, candidate: &[u8]) -> u128 {
        match &self.frame {
            None => xxh3_128(candidate),
            Some(frame) => {
                let mut h = Xxh3::new();
                h.update(&frame.digest().to_le_bytes());
                h.update(candidate);
                h.digest128()
            }
        }
    }

    /// The size progress shows: the best, plus the other files of a multi-file run.
    fn shown_len(&self) -> usize {
        self.best.len() + self.frame.as_ref().map_or(0, |f| f.others_len())
    }

    /// Writes the best where it goes: the sink, or the frame's file.
    fn store_best(&mut self) {
        let stored = match &self.frame {
            Some(frame) => frame.store(&self.best),
            None => self.sink.write(&self.best),
        };
        if let Err(e) = stored {
            self.error = Some(e);
            self.stop = Some(Stop::Error);
        }
    }

    pub fn sink(&self) -> &Sink {
        &self.sink
    }

    pub fn sink_mut(&mut self) -> &mut Sink {
        &mut self.sink
    }

    pub fn width(&self) -> usize {
        self.pool.width()
    }

    /// How many tests the loop may run now (fewer than the width while the machine is
    /// saturated: see `throttle.rs`).
    pub fn room(&mut self) -> usize {
        self.pool.room()
    }

    pub fn stopped(&self) -> bool {
        self.stop.is_some() || crate::signal::interrupted()
    }

    /// Whether the run has stalled: the limit set by [`Tester::set_stall_limit`] reached, in test
    /// runs in a row (as the serial run charges them) without a smaller best, and not paused.
    pub fn stalled(&self) -> bool {
        self.stall.stalled(self.budget.charged())
    }

    /// From now on [`Tester::stalled`] says so after `limit` runs in a row without a smaller
    /// best (`None`: never), counted from here.
    pub fn set_stall_limit(&mut self, limit: Option<StallLimit>) {
        self.stall
            .set_limit(limit, &self.best, self.budget.charged());
    }

    /// [`Tester::stalled`] is false until the best gets smaller (then it counts again).
    pub fn pause_stall(&mut self) {
        self.stall.pause();
    }

    /// Whether --max-attempts allows another test run.
    pub fn budget_left(&self) -> bool {
        self.budget.left()
    }

    /// Waits for the pool's next report (the wait is the feeding thread's idle time).
    fn wait_pool(&mut self) -> Option<(Ticket, Report)> {
        let waiting = std::time::Instant::now();
        let done = self.pool.next_done();
        self.stats.wait_seconds += waiting.elapsed().as_secs_f64();
        done
    }

    fn count(&mut self, outcome: &Outcome) {
        match outcome.status {
            RunStatus::Cancelled => self.stats.cancelled += 1,
            RunStatus::Interrupted => {}
            RunStatus::TimedOut => self.stats.timeouts += 1,
            _ => {}
        }
        if outcome.status != RunStatus::Interrupted {
            self.stats.tests += 1;
            self.stats.test_seconds += outcome.elapsed.as_secs_f64();
        }
        self.stats.interesting += outcome.interesting as u64;
        // a failure, but not the one kept (--same-failure derives every run's signature)
        if !outcome.interesting
            && outcome.signature.is_some()
            && outcome.status != RunStatus::TimedOut
        {
            self.stats.slips += 1;
        }
        self.report_verbose(outcome);
    }

    /// Remembers a verdict (the original's, checked before the run starts).
    pub fn remember(&mut self, candidate: &[u8], interesting: bool) {
        let key = self.key(candidate);
        if self.verdicts.on() {
            self.verdicts.insert(key, interesting);
            self.budget.seen(key);
        }
    }

    /// [`Tester::begin`] in the loop's terms.
    pub fn started(&mut self, ticket: Ticket, candidate: impl Candidate) -> Started {
        match self.begin(ticket, candidate) {
            Begin::Known(v) => Started::Known(Verdict::from_bool(v)),
            Begin::Running => Started::Running,
            Begin::Refused => Started::Unknown,
        }
    }

    /// Whether candidates may be checked by the workers ([`Tester::started_checked`]): not under
    /// `--max-attempts`, whose exact count needs each run decided on the feeding thread.
    pub fn checks_off_thread(&self) -> bool {
        !self.budget.limited() && self.width() > 1
    }

    /// Starts judging a candidate whose prefilter question a worker answers first: the cache's
    /// verdict, if any, goes with it and counts only if the candidate passes the check.
    pub fn started_checked(
        &mut self,
        ticket: Ticket,
        candidate: impl Candidate,
        check: Check,
    ) -> Started {
        debug_assert!(!self.budget.limited());
        if self.stopped() {
            self.stop.get_or_insert(Stop::Interrupted);
            return Started::Unknown;
        }
        let key = self.key(candidate.as_ref());
        self.budget.begun(ticket, key);
        let known = self.verdicts.get(key);
        // A known "no" is the verdict whatever the check says (skipped or not, it is not
        // interesting), so it needs no worker: only a known "yes" must wait for the check.
        if known == Some(false) {
            self.stats.cache_hits += 1;
            self.progress.tick(self.shown_len(), &self.stats);
            return Started::Known(Verdict::NotInteresting);
        }
        if known.is_none() && self.disk_rejects(key) {
            return Started::Known(Verdict::NotInteresting);
        }
        if !self
            .pool
            .submit_checked(ticket, candidate.into(), Some((check, known)))
        {
            self.error = Some(anyhow::anyhow!("no idle test worker (internal error)"));
            self.stop = Some(Stop::Error);
            return Started::Unknown;
        }
        self.in_flight.insert(ticket, key);
        crate::report::trace::event('S', ticket);
        Started::Running
    }

    /// Starts judging a candidate under `ticket`: known at once from the cache, running, or
    /// refused (stopping, or the attempt budget is spent: no run could be used).
    pub fn begin(&mut self, ticket: Ticket, candidate: impl Candidate) -> Begin {
        if self.stopped() {
            self.stop.get_or_insert(Stop::Interrupted);
            return Begin::Refused;
        }
        let key = self.key(candidate.as_ref());
        self.budget.begun(ticket, key);
        if let Some(hit) = self.verdicts.get(key) {
            self.stats.cache_hits += 1;
            self.progress.tick(self.shown_len(), &self.stats);
            return Begin::Known(hit);
        }
        if self.disk_rejects(key) {
            return Begin::Known(false);
        }
        if !self.budget.may_start() {
            return Begin::Refused;
        }
        if !self.pool.submit(ticket, candidate.into()) {
            self.error = Some(anyhow::anyhow!("no idle test worker (internal error)"));
            self.stop = Some(Stop::Error);
            return Begin::Refused;
        }
        self.budget.started();
        self.in_flight.insert(ticket, key);
        crate::report::trace::event('S', ticket);
        Begin::Running
    }

    /// Whether the persistent cache knows `key` is not interesting; a hit is counted and kept in
    /// the run's cache.
    fn disk_rejects(&mut self, key: u128) -> bool {
        if !self.verdicts.rejected_on_disk(key) {
            return false;
        }
        self.stats.cache_hits += 1;
        self.stats.persistent_hits += 1;
        self.progress.tick(self.shown_len(), &self.stats);
        true
    }

    /// The prefilter skipped `ticket`'s candidate (a known "no", no run).
    pub fn prune(&mut self, ticket: Ticket) {
        self.stats.pruned += 1;
        self.skip(ticket);
    }

    /// `ticket`'s verdict was known without a test (its adapter counts why): it costs no
    /// attempt when the serial chain reaches it.
    pub fn skip(&mut self, ticket: Ticket) {
        self.budget.skip(ticket);
    }

    /// The serial chain uses `ticket`'s verdict: charge `--max-attempts` as the serial run
    /// would have (a pruned candidate or a repeat of a charged one is free). `false`: spent.
    pub fn charge(&mut self, ticket: Ticket) -> bool {
        crate::report::trace::event('C', ticket);
        self.charge_quietly(ticket)
    }

    /// [`Tester::charge`] without the trace's decision (made when the verdict is in).
    fn charge_quietly(&mut self, ticket: Ticket) -> bool {
        let charged = self.budget.charge(ticket, self.verdicts.on());
        if !charged {
            self.stop = Some(Stop::Budget);
        }
        charged
    }

    /// Waits for a started run: its ticket and verdict (`None`: cancelled or interrupted).
    pub fn next_done(&mut self) -> Option<(Ticket, Option<bool>)> {
        if let Some(done) = self.ready.pop_front() {
            return Some(done);
        }
        let (ticket, report) = self.wait_pool()?;
        Some(self.settle(ticket, report))
    }

    /// Like [`Tester::next_done`], without waiting: a run that has already ended, if any.
    pub fn done_now(&mut self) -> Option<(Ticket, Option<bool>)> {
        if let Some(done) = self.ready.pop_front() {
            return Some(done);
        }
        let (ticket, report) = self.pool.done_now()?;
        Some(self.settle(ticket, report))
    }

    /// Counts a finished job, caches its verdict and says what it was (`None`: unknown).
    fn settle(&mut self, run: Ticket, report: Report) -> (Ticket, Option<bool>) {
        crate::report::trace::event('D', run);
        let ticket = run;
        let outcome = match report {
            Report::Ran(outcome) => outcome,
            Report::Pruned => {
                self.in_flight.remove(&ticket);
                self.budget.forget(ticket);
                self.prune(ticket);
                return (ticket, Some(false));
            }
            Report::Known(v) => {
                self.in_flight.remove(&ticket);
                self.stats.cache_hits += 1;
                self.progress.tick(self.shown_len(), &self.stats);
                return (ticket, Some(v));
            }
            Report::Dropped => {
                self.in_flight.remove(&ticket);
                return (ticket, None);
            }
        };
        let key = self.in_flight.remove(&run);
        let interesting = match outcome {
            Ok(o) => {
                self.count(&o);
                match o.status {
                    RunStatus::Interrupted => {
                        self.stop = Some(Stop::Interrupted);
                        return (ticket, None);
                    }
                    RunStatus::Cancelled => return (ticket, None),
                    RunStatus::Exited(_) | RunStatus::Signaled(_) if !o.interesting => {
                        self.persist_rejection(key);
                        false
                    }
                    _ => o.interesting,
                }
            }
            Err(e) => {
                self.error.get_or_insert(e);
                self.stop = Some(Stop::Error);
                return (ticket, None);
            }
        };
        if let Some(key) = key {
            self.verdicts.insert(key, interesting);
        }
        self.progress.tick(self.shown_len(), &self.stats);
        (ticket, Some(interesting))
    }

    /// Keeps a "not interesting" verdict on disk; a write error drops the persistent cache with
    /// one warning (the run goes on without it).
    fn persist_rejection(&mut self, key: Option<u128>) {
        if let Some(warning) = key.and_then(|k| self.verdicts.persist_rejection(k)) {
            self.progress.println(&warning);
        }
    }

    /// Stops the runs of these tickets; each still reports through `next_done`.
    pub fn cancel(&mut self, tickets: &[Ticket]) {
        for &t in tickets {
            crate::report::trace::event('X', t);
            self.pool.cancel(t);
        }
    }

    /// The verdict on one candidate, waiting for it; does not make it the best. Serial: it is
    /// charged to the budget first.
    pub fn verdict(&mut self, candidate: &[u8]) -> Verdict {
        let ticket = new_ticket();
        let verdict = match self.start_serial(ticket, candidate) {
            Some(known) => known,
            None => loop {
                match self.next_done() {
                    Some((t, v)) if t == ticket => break Verdict::from_bool(v == Some(true)),
                    Some(other) => self.ready.push_back(other),
                    None => break Verdict::NotInteresting,
                }
            },
        };
        crate::report::trace::event('C', ticket);
        verdict
    }

    /// Charges `candidate` to the budget and starts judging it, as the serial run does: its
    /// verdict if it is known at once (a cache hit, no budget left, stopping), `None` if it runs.
    fn start_serial(&mut self, ticket: Ticket, candidate: &[u8]) -> Option<Verdict> {
        self.budget.begun(ticket, self.key(candidate));
        if !self.charge_quietly(ticket) {
            return Some(Verdict::NotInteresting);
        }
        match self.begin(ticket, candidate) {
            Begin::Known(v) => Some(Verdict::from_bool(v)),
            Begin::Refused => Some(Verdict::NotInteresting),
            Begin::Running => None,
        }
    }

    /// Makes `candidate` the best result, on disk at once.
    pub fn accept(&mut self, candidate: &[u8]) {
        if candidate.len() >= self.best.len() {
            return;
        }
        self.accept_any(candidate);
    }

    /// Makes an interesting `candidate` the best even if it is not smaller (an enabling rewrite,
    /// which the driver undoes unless the reductions it enables pay for it).
    pub fn accept_any(&mut self, candidate: &[u8]) {
        self.set_best(candidate);
        crate::exec::panic::injection_point("after-improvement");
        self.progress.improved(self.shown_len(), &self.stats);
    }

    /// Makes `candidate` the best result even if it is not smaller (the final layout, which the
    /// caller has just seen pass the test).
    pub fn replace_best(&mut self, candidate: &[u8]) {
        self.set_best(candidate);
    }

    /// The new best, on disk at once; a best smaller than any before ends a stall.
    fn set_best(&mut self, candidate: &[u8]) {
        self.best = candidate.into();
        self.stall.best(&self.best, self.budget.charged());
        self.store_best();
    }

    /// The verdict, and an interesting candidate becomes the best at once (serial algorithms).
    pub fn test(&mut self, candidate: &[u8]) -> Verdict {
        let verdict = self.verdict(candidate);
        if verdict == Verdict::Interesting {
            self.accept(candidate);
        }
        verdict
    }

    fn report_verbose(&self, o: &Outcome) {
        let timed_out = o.status == RunStatus::TimedOut;
        if !self.progress.verbose() || (self.stats.tests > VERBOSE_RUNS && !timed_out) {
            return;
        }
        let mut text = format!(
            "reduce: test run {}: {} in {:.3}s ({})",
            self.stats.tests,
            o.status.describe(self.pool.timeout()),
            o.elapsed.as_secs_f64(),
            if o.interesting {
                "interesting"
            } else {
                "not interesting"
            }
        );
        if let Some(command) = &o.command {
            text.push_str(&format!("\n  $ {command}"));
        }
        if !o.interesting && !o.unmet.is_empty() {
            text.push_str(&format!("\n  unmet: {}", o.unmet.join("; ")));
        }
        for (name, out) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            if let Some(s) = out.as_ref().filter(|s| !s.is_empty()) {
                text.push_str(&format!("\n--- {name} ---\n{}", s.trim_end()));
            }
        }
        self.progress.println(&text);
    }
}

mod adapters;
mod budget;
mod on_tester;
mod scripted;
mod stall;
mod verdicts;
pub use adapters::{PREFILTER_MAX_BYTES, SegmentsOracle, TreeOracle};
use budget::Budget;
pub use on_tester::OnTester;
pub use stall::Limit as StallLimit;
use stall::Stall;
use verdicts::Verdicts;
