//! The oracle of an edit layer: render the configuration (edits not applied) through the
//! [`EditSpace`], skip what cannot win (not smaller than the best, or parsing worse than it), and
//! hand the rest to the [`Tester`] (cache, then the script), in parallel like the tree oracle.

use super::EditSpace;
use crate::reduce::{Oracle, Unit, Verdict};
use crate::tester::Tester;
use crate::tree::ts::Reparse;

pub struct EditOracle<'a> {
    /// The pass's name, shown before the minimizer's phase.
    label: &'static str,
    space: &'a EditSpace,
    tester: &'a mut Tester,
    prefilter: Option<&'a mut dyn Reparse>,
    /// ERROR + MISSING nodes of the current best.
    best_errors: usize,
    buf: Vec<u8>,
}

impl<'a> EditOracle<'a> {
    pub fn new(
        label: &'static str,
        space: &'a EditSpace,
        tester: &'a mut Tester,
        prefilter: Option<&'a mut dyn Reparse>,
        best_errors: usize,
    ) -> Self {
        EditOracle {
            label,
            space,
            tester,
            prefilter,
            best_errors,
            buf: Vec::new(),
        }
    }

    fn parse_errors(&mut self) -> Option<usize> {
        self.prefilter.as_mut()?.errors(&self.buf)
    }

    /// Renders into `buf`; a known "no" when the candidate cannot become the best: the best
    /// only ever gets strictly smaller (so a rewrite never grows the result), and a candidate
    /// that parses worse than it is skipped like the tree oracle's.
    fn prepare(&mut self, candidate: &[Unit]) -> Option<Verdict> {
        self.space.render_into(candidate, &mut self.buf);
        if self.buf.len() >= self.tester.best.len() {
            return Some(Verdict::NotInteresting);
        }
        if self.parse_errors().is_some_and(|e| e > self.best_errors) {
            self.tester.stats.pruned += 1;
            return Some(Verdict::NotInteresting);
        }
        None
    }
}

impl Oracle for EditOracle<'_> {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        match self.prepare(candidate) {
            Some(known) => known,
            None => self.tester.verdict(&self.buf),
        }
    }

    fn commit(&mut self, _ticket: u64, candidate: &[Unit]) {
        self.space.render_into(candidate, &mut self.buf);
        if let Some(e) = self.parse_errors() {
            self.best_errors = e;
        }
        self.tester.accept(&self.buf);
    }

    fn stop_requested(&self) -> bool {
        self.tester.stopped()
    }

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
        let phase = format!("{}: {phase}", self.label);
        self.tester.progress.set_phase(&phase);
    }
}
