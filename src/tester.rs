//! The byte-level test pipeline every algorithm goes through: verdict cache (xxh3-128 of the
//! candidate's bytes), then the script. A new best is written to disk at once. The unit-level
//! adapters render a configuration to bytes (and, for trees, reparse it as a prefilter) first.

use std::collections::{HashMap, VecDeque};

use anyhow::{Context, Result};
use xxhash_rust::xxh3::xxh3_128;

use crate::oracle::{Outcome, RunStatus};
use crate::pool::{Pool, Ticket};
use crate::progress::Progress;
use crate::reduce::{Oracle, Unit, Verdict};
use crate::sink::Sink;
use crate::stats::Stats;
use crate::tree::render::{Segments, Tokens};
use crate::tree::ts::Reparse;

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
    cache: Option<HashMap<u128, bool>>,
    pub stats: Stats,
    pub best: Vec<u8>,
    sink: Sink,
    max_attempts: Option<u64>,
    /// Test runs started so far (every one counts toward --max-attempts).
    started: u64,
    pub progress: Progress,
    verbose: bool,
    pub stop: Option<Stop>,
    /// The first error that stopped the run (cannot write a temp file, cannot spawn).
    pub error: Option<anyhow::Error>,
    /// Cache keys of the runs in flight, by ticket.
    in_flight: HashMap<Ticket, u128>,
    /// Verdicts that arrived while waiting for another ticket.
    ready: VecDeque<(Ticket, bool)>,
}

/// The ticket `test` uses for its own one-off runs.
const SERIAL_TICKET: Ticket = u64::MAX;

impl Tester {
    pub fn new(
        pool: Pool,
        sink: Sink,
        original: Vec<u8>,
        cache: bool,
        max_attempts: Option<u64>,
        progress: Progress,
        verbose: bool,
    ) -> Tester {
        Tester {
            pool,
            cache: cache.then(HashMap::new),
            stats: Stats::default(),
            best: original,
            sink,
            max_attempts,
            started: 0,
            progress,
            verbose,
            stop: None,
            error: None,
            in_flight: HashMap::new(),
            ready: VecDeque::new(),
        }
    }

    pub fn set_timeout(&mut self, timeout: std::time::Duration) {
        self.pool.set_timeout(timeout);
    }

    /// Swaps in the real output once the original has been checked.
    pub fn set_sink(&mut self, sink: Sink) {
        self.sink = sink;
    }

    pub fn sink(&self) -> &Sink {
        &self.sink
    }

    pub fn width(&self) -> usize {
        self.pool.width()
    }

    pub fn stopped(&self) -> bool {
        self.stop.is_some() || crate::signal::interrupted()
    }

    /// Whether --max-attempts allows another test run.
    pub fn budget_left(&self) -> bool {
        self.max_attempts.is_none_or(|max| self.started < max)
    }

    /// Runs the script once, uncached, and waits for it.
    pub fn run_script(&mut self, candidate: &[u8]) -> Result<Outcome> {
        self.started += 1;
        self.pool.submit(SERIAL_TICKET, candidate.to_vec());
        loop {
            let (ticket, outcome) = self.pool.next_done().context("the test pool lost a run")?;
            let outcome = outcome?;
            self.count(&outcome);
            if ticket == SERIAL_TICKET {
                return Ok(outcome);
            }
        }
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
        self.report_verbose(outcome);
    }

    /// Remembers a verdict (the original's, checked before the run starts).
    pub fn remember(&mut self, candidate: &[u8], interesting: bool) {
        if let Some(cache) = &mut self.cache {
            cache.insert(xxh3_128(candidate), interesting);
        }
    }

    /// Starts judging a candidate: `Some` when the verdict is known at once (cache, budget,
    /// stop), `None` when a run started under `ticket`.
    pub fn begin(&mut self, ticket: Ticket, candidate: &[u8]) -> Option<bool> {
        if self.stopped() {
            self.stop.get_or_insert(Stop::Interrupted);
            return Some(false);
        }
        let key = xxh3_128(candidate);
        if let Some(&hit) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            self.stats.cache_hits += 1;
            self.progress.tick(self.best.len(), &self.stats);
            return Some(hit);
        }
        if !self.budget_left() {
            self.stop = Some(Stop::Budget);
            return Some(false);
        }
        if !self.pool.submit(ticket, candidate.to_vec()) {
            self.error = Some(anyhow::anyhow!("no idle test worker (internal error)"));
            self.stop = Some(Stop::Error);
            return Some(false);
        }
        self.started += 1;
        self.in_flight.insert(ticket, key);
        None
    }

    /// Waits for a started run: its ticket and verdict.
    pub fn next_done(&mut self) -> Option<(Ticket, bool)> {
        if let Some(done) = self.ready.pop_front() {
            return Some(done);
        }
        let (ticket, outcome) = self.pool.next_done()?;
        let key = self.in_flight.remove(&ticket);
        let interesting = match outcome {
            Ok(o) => {
                self.count(&o);
                match o.status {
                    RunStatus::Interrupted => {
                        self.stop = Some(Stop::Interrupted);
                        return Some((ticket, false));
                    }
                    RunStatus::Cancelled => return Some((ticket, false)),
                    _ => o.interesting,
                }
            }
            Err(e) => {
                self.error.get_or_insert(e);
                self.stop = Some(Stop::Error);
                return Some((ticket, false));
            }
        };
        if let (Some(cache), Some(key)) = (&mut self.cache, key) {
            cache.insert(key, interesting);
        }
        self.progress.tick(self.best.len(), &self.stats);
        Some((ticket, interesting))
    }

    /// Stops every run in flight and waits for them to end.
    pub fn cancel_all(&mut self) {
        self.pool.drain_into(|ticket, outcome| {
            self.in_flight.remove(&ticket);
            if let Ok(o) = outcome {
                if o.status == RunStatus::Cancelled {
                    self.stats.cancelled += 1;
                }
                self.stats.tests += 1;
                self.stats.test_seconds += o.elapsed.as_secs_f64();
            }
        });
        self.ready.clear();
    }

    /// The verdict on one candidate, waiting for it; does not make it the best.
    pub fn verdict(&mut self, candidate: &[u8]) -> Verdict {
        if let Some(known) = self.begin(SERIAL_TICKET, candidate) {
            return Verdict::from_bool(known);
        }
        loop {
            match self.next_done() {
                Some((SERIAL_TICKET, v)) => return Verdict::from_bool(v),
                Some(other) => self.ready.push_back(other),
                None => return Verdict::NotInteresting,
            }
        }
    }

    /// Makes `candidate` the best result, on disk at once.
    pub fn accept(&mut self, candidate: &[u8]) {
        if candidate.len() >= self.best.len() {
            return;
        }
        self.best = candidate.to_vec();
        if let Err(e) = self.sink.write(&self.best) {
            self.error = Some(e);
            self.stop = Some(Stop::Error);
        }
        crate::panic::injection_point("after-improvement");
        self.progress.improved(self.best.len(), &self.stats);
    }

    /// Makes `candidate` the best result even if it is not smaller (the final layout, which the
    /// caller has just seen pass the test).
    pub fn replace_best(&mut self, candidate: &[u8]) {
        self.best = candidate.to_vec();
        if let Err(e) = self.sink.write(&self.best) {
            self.error = Some(e);
            self.stop = Some(Stop::Error);
        }
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
        if !self.verbose || (self.stats.tests > VERBOSE_RUNS && !timed_out) {
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
        for (name, out) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            if let Some(s) = out.as_ref().filter(|s| !s.is_empty()) {
                text.push_str(&format!("\n--- {name} ---\n{}", s.trim_end()));
            }
        }
        self.progress.println(&text);
    }
}

/// The parallel half of a unit-level adapter: tickets map straight to the tester's.
macro_rules! parallel_oracle_methods {
    () => {
        fn width(&self) -> usize {
            self.tester.width()
        }

        fn start(&mut self, ticket: u64, candidate: &[Unit]) -> Option<Verdict> {
            self.prepare(candidate)
                .or_else(|| self.tester.begin(ticket, &self.buf).map(Verdict::from_bool))
        }

        fn finish_one(&mut self) -> Option<(u64, Verdict)> {
            self.tester
                .next_done()
                .map(|(t, v)| (t, Verdict::from_bool(v)))
        }

        fn cancel(&mut self, _tickets: &[u64]) {
            self.tester.cancel_all();
        }

        fn on_pass(&mut self, phase: &str) {
            self.tester.progress.set_phase(phase);
        }
    };
}

/// Lines or chars: render the configuration by concatenation.
pub struct SegmentsOracle<'a> {
    pub segments: &'a Segments,
    pub tester: &'a mut Tester,
    buf: Vec<u8>,
}

impl<'a> SegmentsOracle<'a> {
    pub fn new(segments: &'a Segments, tester: &'a mut Tester) -> Self {
        SegmentsOracle {
            segments,
            tester,
            buf: Vec::new(),
        }
    }
}

impl SegmentsOracle<'_> {
    /// Renders the candidate into `buf`; no verdict is known from the text alone.
    fn prepare(&mut self, candidate: &[Unit]) -> Option<Verdict> {
        self.segments.render_into(candidate, &mut self.buf);
        None
    }
}

impl Oracle for SegmentsOracle<'_> {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        self.prepare(candidate);
        self.tester.verdict(&self.buf)
    }

    fn commit(&mut self, _ticket: u64, candidate: &[Unit]) {
        self.segments.render_into(candidate, &mut self.buf);
        self.tester.accept(&self.buf);
    }

    fn stop_requested(&self) -> bool {
        self.tester.stopped()
    }

    parallel_oracle_methods!();
}

/// Tree tokens: render, reparse (unless disabled) and skip candidates that parse worse than the
/// current best, then test.
pub struct TreeOracle<'a> {
    tokens: &'a Tokens,
    tester: &'a mut Tester,
    prefilter: Option<&'a mut dyn Reparse>,
    /// ERROR + MISSING nodes of the current best.
    best_errors: usize,
    /// Time spent parsing candidates, and how many.
    parse_seconds: f64,
    parses: u64,
    /// Tokens at the start of the round, and whether the program has since halved.
    round_tokens: usize,
    shrunk: bool,
    buf: Vec<u8>,
}

/// Inputs smaller than this (in tokens) never end a round early to re-parse.
const REPARSE_MIN_TOKENS: usize = 20_000;

impl<'a> TreeOracle<'a> {
    /// Did the program halve since the round started (so the round should end and re-parse)?
    pub fn shrunk(&self) -> bool {
        self.shrunk
    }

    pub fn new(
        tokens: &'a Tokens,
        tester: &'a mut Tester,
        prefilter: Option<&'a mut dyn Reparse>,
        best_errors: usize,
    ) -> Self {
        TreeOracle {
            tokens,
            tester,
            prefilter,
            best_errors,
            parse_seconds: 0.0,
            parses: 0,
            round_tokens: tokens.len(),
            shrunk: false,
            buf: Vec::new(),
        }
    }

    fn parse_errors(&mut self) -> Option<usize> {
        self.check_prefilter_pays();
        let parser = self.prefilter.as_mut()?;
        let start = std::time::Instant::now();
        let errors = parser.errors(&self.buf)?;
        self.parse_seconds += start.elapsed().as_secs_f64();
        self.parses += 1;
        Some(errors)
    }

    /// The prefilter exists to save test runs. When parsing a candidate costs more than running
    /// the test on it (a huge file, a grep-fast test), it turns itself off, and says so once.
    fn check_prefilter_pays(&mut self) {
        let stats = &self.tester.stats;
        if self.prefilter.is_none() || self.parses < 8 || stats.tests < 8 {
            return;
        }
        let parse = self.parse_seconds / self.parses as f64;
        let test = stats.test_seconds / stats.tests as f64;
        if parse > test {
            self.prefilter = None;
            self.tester.stats.prefilter_off = true;
            self.tester.progress.println(&format!(
                "reduce: parsing a candidate ({:.0} ms) costs more than testing it ({:.0} ms): the parse prefilter is off for this round",
                parse * 1e3,
                test * 1e3
            ));
        }
    }

    /// Renders the candidate into `buf` and skips it (a known "no") if it parses worse than the
    /// current best.
    fn prepare(&mut self, candidate: &[Unit]) -> Option<Verdict> {
        self.tokens.render_into(candidate, &mut self.buf);
        if self.parse_errors().is_some_and(|e| e > self.best_errors) {
            self.tester.stats.pruned += 1;
            return Some(Verdict::NotInteresting);
        }
        None
    }
}

impl Oracle for TreeOracle<'_> {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        match self.prepare(candidate) {
            Some(known) => known,
            None => self.tester.verdict(&self.buf),
        }
    }

    fn commit(&mut self, _ticket: u64, candidate: &[Unit]) {
        self.tokens.render_into(candidate, &mut self.buf);
        if let Some(e) = self.parse_errors() {
            self.best_errors = e;
        }
        self.tester.accept(&self.buf);
        // on a large input, a program half the size deserves a fresh, half-size tree: every
        // later pass then costs half as much
        self.shrunk |=
            self.round_tokens >= REPARSE_MIN_TOKENS && candidate.len() * 2 < self.round_tokens;
    }

    fn stop_requested(&self) -> bool {
        self.tester.stopped() || self.shrunk
    }

    parallel_oracle_methods!();
}
