//! The unit-level adapters: render a configuration to bytes (lines and chars by concatenation,
//! trees through their tokens, reparsed as a prefilter first) and hand it to the [`Tester`].

use super::{OnTester, Tester};
use crate::engine::pool::Ticket;
use crate::engine::prefilter::{Baseline, Check, MakeChecker, Shared};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::engine::{Hint, Predicts, Started, new_ticket};
use crate::policy::{Unit, Verdict};
use crate::tree::hints::NameHints;
use crate::tree::render::{Copy, Segments, Splice, Tokens, splices};
use crate::tree::reparse::RoundText;
use crate::tree::ts::Reparse;

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

impl OnTester for SegmentsOracle<'_> {
    fn tester(&self) -> &Tester {
        self.tester
    }

    fn tester_mut(&mut self) -> &mut Tester {
        self.tester
    }

    fn start_candidate(
        &mut self,
        ticket: Ticket,
        _: Option<Ticket>,
        candidate: &[Unit],
    ) -> Started {
        self.segments.render_into(candidate, &mut self.buf);
        self.tester.started(ticket, std::mem::take(&mut self.buf))
    }

    fn test_candidate(&mut self, candidate: &[Unit]) -> Verdict {
        self.segments.render_into(candidate, &mut self.buf);
        self.tester.verdict(&self.buf)
    }

    fn commit_candidate(&mut self, _ticket: Ticket, candidate: &[Unit]) {
        self.segments.render_into(candidate, &mut self.buf);
        self.tester.accept(&self.buf);
    }
}

impl Predicts for SegmentsOracle<'_> {}

/// Tree tokens: render, reparse (unless disabled) and skip candidates that parse worse than the
/// configuration they would replace, then test.
pub struct TreeOracle<'a> {
    tokens: &'a Tokens,
    tester: &'a mut Tester,
    prefilter: Option<&'a mut dyn Reparse>,
    /// ERROR + MISSING nodes of the current best.
    best_errors: usize,
    /// ERROR + MISSING nodes of each prefiltered candidate, by ticket: the baseline of the
    /// candidates that assume its commit.
    errors: HashMap<Ticket, usize>,
    /// Tokens at the start of the round, and whether the program has since halved.
    round_tokens: usize,
    shrunk: bool,
    buf: Vec<u8>,
    /// Where the last rendering copied the round's text, and the changes between them.
    copies: Vec<Copy>,
    splices: Vec<Splice>,
    /// The round's text and tree, the base of the checkers' re-parses.
    base: RoundText,
    /// With `-j` above 1: the workers parse the candidates ([`crate::engine::prefilter`]).
    shared: Option<Arc<Shared>>,
    /// Tickets handed to the workers with a check: their counts are published in `shared`.
    sent: HashSet<Ticket>,
    /// Where each name occurs, for the speculation's hints (built when first asked).
    names: Option<NameHints<'a>>,
}

/// Inputs smaller than this (in tokens) never end a round early to re-parse.
const REPARSE_MIN_TOKENS: usize = 20_000;

/// Above this size (bytes, at the start of a round) candidates are not parsed as a prefilter:
/// parsing one would cost more than most tests. Decided from the round's text alone, so that
/// which candidates reach the test never depends on timing (or on `-j`).
pub const PREFILTER_MAX_BYTES: usize = 512 * 1024;

impl<'a> TreeOracle<'a> {
    /// Did the program halve since the round started (so the round should end and re-parse)?
    pub fn shrunk(&self) -> bool {
        self.shrunk
    }

    /// `base`: the tokens' text, and its tree if the caller has one (the checkers then re-parse
    /// against that tree instead of each parsing the text again).
    pub fn new(
        tokens: &'a Tokens,
        base: RoundText,
        tester: &'a mut Tester,
        prefilter: Option<&'a mut dyn Reparse>,
        best_errors: usize,
    ) -> Self {
        debug_assert!(Arc::ptr_eq(&base.text, &tokens.src));
        let mut prefilter = prefilter;
        if let Some(p) = prefilter.as_mut() {
            p.set_base(&base);
        }
        TreeOracle {
            base,
            tokens,
            tester,
            prefilter,
            best_errors,
            errors: HashMap::new(),
            round_tokens: tokens.len(),
            shrunk: false,
            buf: Vec::new(),
            copies: Vec::new(),
            splices: Vec::new(),
            shared: None,
            sent: HashSet::new(),
            names: None,
        }
    }

    /// Lets the test workers parse the candidates (with `-j` above 1 and a prefilter), each
    /// with a parser `make` makes: the feeding thread only renders and hashes.
    pub fn with_workers(mut self, make: MakeChecker) -> Self {
        if self.prefilter.is_some() && self.tester.checks_off_thread() {
            self.shared = Some(Shared::new(make, Some(self.base.clone())));
        }
        self
    }

    /// Renders the candidate and hands it to a worker that parses it before the test.
    fn start_checked(
        &mut self,
        shared: Arc<Shared>,
        ticket: Ticket,
        parent: Option<Ticket>,
        candidate: &[Unit],
    ) -> Started {
        self.tokens
            .render_recording(candidate, &mut self.buf, &mut self.copies);
        splices(
            &self.copies,
            self.tokens.src.len(),
            self.buf.len(),
            &mut self.splices,
        );
        let baseline = match parent {
            Some(p) if self.sent.contains(&p) => Baseline::Parent {
                ticket: p,
                on_none: Some(self.best_errors),
            },
            Some(p) => Baseline::Value(Some(
                self.errors.get(&p).copied().unwrap_or(self.best_errors),
            )),
            None => Baseline::Value(Some(self.best_errors)),
        };
        let check = Check {
            shared,
            ticket,
            splices: Some(self.splices.clone()),
            baseline,
        };
        let started = self
            .tester
            .started_checked(ticket, std::mem::take(&mut self.buf), check);
        if started == Started::Running {
            self.sent.insert(ticket);
        }
        started
    }

    /// The errors of the candidate in `buf`, rendered by [`Tokens::render_recording`].
    fn parse_errors(&mut self) -> Option<usize> {
        let parser = self.prefilter.as_mut()?;
        splices(
            &self.copies,
            self.tokens.src.len(),
            self.buf.len(),
            &mut self.splices,
        );
        parser.errors_edited(&self.buf, &self.splices)
    }

    /// Renders the candidate into `buf` and skips it (a known "no") if it parses worse than the
    /// configuration it would replace (`parent`'s candidate, or the current best).
    fn prepare(
        &mut self,
        ticket: Ticket,
        parent: Option<Ticket>,
        candidate: &[Unit],
    ) -> Option<Verdict> {
        self.tokens
            .render_recording(candidate, &mut self.buf, &mut self.copies);
        let errors = self.parse_errors()?;
        self.errors.insert(ticket, errors);
        let baseline = parent
            .and_then(|p| self.errors.get(&p).copied())
            .unwrap_or(self.best_errors);
        (errors > baseline).then_some(Verdict::NotInteresting)
    }
}

impl Predicts for TreeOracle<'_> {
    fn hint(&mut self, config: &[Unit], delta: &[Unit]) -> Hint {
        let tokens = self.tokens;
        let names = self.names.get_or_insert_with(|| NameHints::new(tokens));
        names.hint(config, delta)
    }
}

impl OnTester for TreeOracle<'_> {
    fn tester(&self) -> &Tester {
        self.tester
    }

    fn tester_mut(&mut self) -> &mut Tester {
        self.tester
    }

    /// With workers that parse, the candidate goes to them with its check; else it is parsed
    /// here, and skipped if it parses worse than what it would replace.
    fn start_candidate(
        &mut self,
        ticket: Ticket,
        parent: Option<Ticket>,
        candidate: &[Unit],
    ) -> Started {
        if let Some(shared) = self.shared.clone() {
            return self.start_checked(shared, ticket, parent, candidate);
        }
        if let Some(known) = self.prepare(ticket, parent, candidate) {
            self.tester.prune(ticket);
            return Started::Known(known);
        }
        self.tester.started(ticket, std::mem::take(&mut self.buf))
    }

    fn test_candidate(&mut self, candidate: &[Unit]) -> Verdict {
        let ticket = new_ticket();
        match self.prepare(ticket, None, candidate) {
            Some(known) => {
                self.tester.stats.pruned += 1;
                known
            }
            None => self.tester.verdict(&self.buf),
        }
    }

    fn commit_candidate(&mut self, ticket: Ticket, candidate: &[Unit]) {
        self.tokens
            .render_recording(candidate, &mut self.buf, &mut self.copies);
        let published = self.shared.as_ref().and_then(|s| s.get(ticket));
        let errors = match (self.errors.get(&ticket), published) {
            (Some(&e), _) => Some(e),
            (None, Some(e)) => e,
            (None, None) => self.parse_errors(),
        };
        if let Some(e) = errors {
            self.best_errors = e;
        }
        self.tester.accept(&self.buf);
        // on a large input, a program half the size deserves a fresh, half-size tree: every
        // later pass then costs half as much
        self.shrunk |=
            self.round_tokens >= REPARSE_MIN_TOKENS && candidate.len() * 2 < self.round_tokens;
    }

    /// Also when the run has stalled: the schedule's guard takes over (see
    /// [`Tester::stalled`]).
    fn stopping(&self) -> bool {
        self.tester.stopped() || self.shrunk || self.tester.stalled()
    }
}
