//! The byte-level test pipeline every algorithm goes through: verdict cache (xxh3-128 of the
//! candidate's bytes), then the script. A new best is written to disk at once. The unit-level
//! adapters render a configuration to bytes (and, for trees, reparse it as a prefilter) first.

use std::collections::HashMap;

use anyhow::Result;
use tree_sitter::Parser;
use xxhash_rust::xxh3::xxh3_128;

use crate::oracle::{Outcome, RunStatus, ScriptOracle};
use crate::progress::Progress;
use crate::reduce::{Oracle, Unit, Verdict};
use crate::sink::Sink;
use crate::stats::Stats;
use crate::tree::render::{Segments, Tokens};
use crate::tree::ts::{count_errors, parse_tree};

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
    oracle: ScriptOracle,
    cache: Option<HashMap<u128, bool>>,
    pub stats: Stats,
    pub best: Vec<u8>,
    sink: Sink,
    max_attempts: Option<u64>,
    pub progress: Progress,
    verbose: bool,
    pub stop: Option<Stop>,
    /// The first error that stopped the run (cannot write a temp file, cannot spawn).
    pub error: Option<anyhow::Error>,
}

impl Tester {
    pub fn new(
        oracle: ScriptOracle,
        sink: Sink,
        original: Vec<u8>,
        cache: bool,
        max_attempts: Option<u64>,
        progress: Progress,
        verbose: bool,
    ) -> Tester {
        Tester {
            oracle,
            cache: cache.then(HashMap::new),
            stats: Stats::default(),
            best: original,
            sink,
            max_attempts,
            progress,
            verbose,
            stop: None,
            error: None,
        }
    }

    pub fn oracle_mut(&mut self) -> &mut ScriptOracle {
        &mut self.oracle
    }

    /// Swaps in the real output once the original has been checked.
    pub fn set_sink(&mut self, sink: Sink) {
        self.sink = sink;
    }

    pub fn sink(&self) -> &Sink {
        &self.sink
    }

    pub fn stopped(&self) -> bool {
        self.stop.is_some() || crate::signal::interrupted()
    }

    /// Runs the script once, uncached, and counts it.
    pub fn run_script(&mut self, candidate: &[u8]) -> Result<Outcome> {
        let outcome = self.oracle.run(candidate)?;
        self.stats.tests += 1;
        self.stats.test_seconds += outcome.elapsed.as_secs_f64();
        self.stats.interesting += outcome.interesting as u64;
        if outcome.status == RunStatus::TimedOut {
            self.stats.timeouts += 1;
        }
        self.report_verbose(&outcome);
        Ok(outcome)
    }

    /// Remembers a verdict (the original's, checked before the run starts).
    pub fn remember(&mut self, candidate: &[u8], interesting: bool) {
        if let Some(cache) = &mut self.cache {
            cache.insert(xxh3_128(candidate), interesting);
        }
    }

    /// The verdict on a candidate. An interesting one becomes the new best, on disk at once.
    pub fn test(&mut self, candidate: &[u8]) -> Verdict {
        if self.stopped() {
            self.stop.get_or_insert(Stop::Interrupted);
            return Verdict::NotInteresting;
        }
        let key = xxh3_128(candidate);
        if let Some(&hit) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            self.stats.cache_hits += 1;
            return self.conclude(candidate, hit);
        }
        if self.max_attempts.is_some_and(|max| self.stats.tests >= max) {
            self.stop = Some(Stop::Budget);
            return Verdict::NotInteresting;
        }
        let interesting = match self.run_script(candidate) {
            Ok(o) if o.status == RunStatus::Interrupted => {
                self.stop = Some(Stop::Interrupted);
                return Verdict::NotInteresting;
            }
            Ok(o) => o.interesting,
            Err(e) => {
                self.error = Some(e);
                self.stop = Some(Stop::Error);
                return Verdict::NotInteresting;
            }
        };
        if let Some(cache) = &mut self.cache {
            cache.insert(key, interesting);
        }
        self.conclude(candidate, interesting)
    }

    fn conclude(&mut self, candidate: &[u8], interesting: bool) -> Verdict {
        if interesting && candidate.len() < self.best.len() {
            self.best = candidate.to_vec();
            if let Err(e) = self.sink.write(&self.best) {
                self.error = Some(e);
                self.stop = Some(Stop::Error);
            }
            self.progress.improved(self.best.len(), &self.stats);
        } else {
            self.progress.tick(self.best.len(), &self.stats);
        }
        Verdict::from_bool(interesting)
    }

    fn report_verbose(&self, o: &Outcome) {
        let timed_out = o.status == RunStatus::TimedOut;
        if !self.verbose || (self.stats.tests > VERBOSE_RUNS && !timed_out) {
            return;
        }
        let mut text = format!(
            "reduce: test run {}: {:?} in {:.3}s ({})",
            self.stats.tests,
            o.status,
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

impl Oracle for SegmentsOracle<'_> {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        self.segments.render_into(candidate, &mut self.buf);
        self.tester.test(&self.buf)
    }

    fn stop_requested(&self) -> bool {
        self.tester.stopped()
    }

    fn on_pass(&mut self, phase: &str) {
        self.tester.progress.set_phase(phase);
    }
}

/// Tree tokens: render, reparse (unless disabled) and skip candidates that parse worse than the
/// current best, then test.
pub struct TreeOracle<'a> {
    tokens: &'a Tokens,
    tester: &'a mut Tester,
    prefilter: Option<&'a mut Parser>,
    /// ERROR + MISSING nodes of the current best.
    best_errors: usize,
    buf: Vec<u8>,
}

impl<'a> TreeOracle<'a> {
    pub fn new(
        tokens: &'a Tokens,
        tester: &'a mut Tester,
        prefilter: Option<&'a mut Parser>,
        best_errors: usize,
    ) -> Self {
        TreeOracle {
            tokens,
            tester,
            prefilter,
            best_errors,
            buf: Vec::new(),
        }
    }

    fn parse_errors(&mut self) -> Option<usize> {
        let parser = self.prefilter.as_mut()?;
        let tree = parse_tree(parser, &self.buf).ok()?;
        Some(count_errors(&tree).0)
    }
}

impl Oracle for TreeOracle<'_> {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        self.tokens.render_into(candidate, &mut self.buf);
        let errors = self.parse_errors();
        if errors.is_some_and(|e| e > self.best_errors) {
            self.tester.stats.pruned += 1;
            return Verdict::NotInteresting;
        }
        let verdict = self.tester.test(&self.buf);
        if verdict == Verdict::Interesting
            && let Some(e) = errors
        {
            self.best_errors = e;
        }
        verdict
    }

    fn stop_requested(&self) -> bool {
        self.tester.stopped()
    }

    fn on_pass(&mut self, phase: &str) {
        self.tester.progress.set_phase(phase);
    }
}
