//! The oracle of an edit layer: render the configuration (edits not applied) through the
//! [`EditSpace`], skip what cannot win (not smaller than the configuration it would replace, or
//! parsing worse than it), and hand the rest to the [`Tester`] (cache, then the script), in
//! parallel like the tree oracle. A speculative candidate (one that assumes its parent's commit)
//! is compared with its parent's rendering, as the serial run would compare it, so the verdicts
//! never depend on `-j`.

use std::collections::HashMap;

use super::EditSpace;
use crate::reduce::{Oracle, Started, Ticket, Unit, Verdict, new_ticket};
use crate::tester::{Tester, ticket_methods};
use crate::tree::ts::Reparse;

pub struct EditOracle<'a> {
    /// The pass's name, shown before the minimizer's phase.
    label: &'static str,
    space: &'a EditSpace,
    tester: &'a mut Tester,
    prefilter: Option<&'a mut dyn Reparse>,
    /// ERROR + MISSING nodes of the current best.
    best_errors: usize,
    /// Rendered size and (when parsed) errors of each candidate started, by ticket: the
    /// baseline of the candidates that assume its commit.
    seen: HashMap<Ticket, (usize, Option<usize>)>,
    buf: Vec<u8>,
    /// How many bytes a candidate may grow the text by (an enabling pass; 0 otherwise).
    slack: usize,
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
            seen: HashMap::new(),
            buf: Vec::new(),
            slack: 0,
        }
    }

    /// Lets candidates grow the text by up to `slack` bytes (an enabling pass: the driver undoes
    /// it unless what follows more than pays it back).
    pub fn with_slack(mut self, slack: usize) -> Self {
        self.slack = slack;
        self
    }

    fn parse_errors(&mut self) -> Option<usize> {
        self.prefilter.as_mut()?.errors(&self.buf)
    }

    /// Renders into `buf`; a known "no" when the candidate cannot become the best: the best
    /// only ever gets strictly smaller (so a rewrite never grows the result; an enabling pass's
    /// slack aside, which the driver takes back when it does not pay), and a candidate
    /// that parses worse than it is skipped like the tree oracle's (counted as pruned).
    fn prepare(
        &mut self,
        ticket: Ticket,
        parent: Option<Ticket>,
        candidate: &[Unit],
    ) -> Option<Verdict> {
        self.space.render_into(candidate, &mut self.buf);
        let (size, errors) = parent
            .and_then(|p| self.seen.get(&p).copied())
            .unwrap_or((self.tester.best.len(), Some(self.best_errors)));
        if self.buf.len() >= size + self.slack {
            self.seen.insert(ticket, (self.buf.len(), None));
            return Some(Verdict::NotInteresting);
        }
        let mine = self.parse_errors();
        self.seen.insert(ticket, (self.buf.len(), mine));
        if let (Some(e), Some(base)) = (mine, errors)
            && e > base
        {
            self.tester.stats.pruned += 1;
            return Some(Verdict::NotInteresting);
        }
        None
    }
}

impl Oracle for EditOracle<'_> {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        match self.prepare(new_ticket(), None, candidate) {
            Some(known) => known,
            None => self.tester.verdict(&self.buf),
        }
    }

    fn commit(&mut self, ticket: Ticket, candidate: &[Unit]) {
        self.space.render_into(candidate, &mut self.buf);
        let errors = match self.seen.get(&ticket) {
            Some(&(_, Some(e))) => Some(e),
            _ => self.parse_errors(),
        };
        if let Some(e) = errors {
            self.best_errors = e;
        }
        match self.slack {
            0 => self.tester.accept(&self.buf),
            _ => self.tester.accept_any(&self.buf),
        }
    }

    fn stop_requested(&self) -> bool {
        self.tester.stopped()
    }

    ticket_methods!();

    fn start(&mut self, ticket: Ticket, parent: Option<Ticket>, candidate: &[Unit]) -> Started {
        if let Some(known) = self.prepare(ticket, parent, candidate) {
            self.tester.skip(ticket);
            return Started::Known(known);
        }
        self.tester.started(ticket, &self.buf)
    }

    fn on_pass(&mut self, phase: &str) {
        let phase = format!("{}: {phase}", self.label);
        self.tester.progress.set_phase(&phase);
    }
}
