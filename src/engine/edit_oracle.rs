//! The oracle of an edit layer: render the configuration (edits not applied) through the
//! [`EditSpace`], skip what cannot win (not smaller than the configuration it would replace, or
//! parsing worse than it), and hand the rest to the [`Tester`] (cache, then the script), in
//! parallel like the tree oracle. A speculative candidate (one that assumes its parent's commit)
//! is compared with its parent's rendering, as the serial run would compare it, so the verdicts
//! never depend on `-j`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{Predicts, Started, Ticket, new_ticket};
use crate::edits::EditSpace;
use crate::engine::prefilter::{Baseline, Check, MakeChecker, Shared};
use crate::engine::tester::{OnTester, Tester};
use crate::policy::{Unit, Verdict};
use crate::tree::ts::Reparse;

/// Where a group's pass began, in the serial chain's order: the tester's counts then.
#[derive(Clone, Debug)]
pub struct Mark {
    pub pass: String,
    pub tests: u64,
    pub interesting: u64,
    /// The best text's length then.
    pub bytes: usize,
    pub at: std::time::Instant,
}

impl Mark {
    /// The tester's counts now, under the name `pass`.
    pub fn of(pass: &str, tester: &Tester) -> Mark {
        Mark {
            pass: pass.to_string(),
            tests: tester.stats.tests,
            interesting: tester.stats.interesting,
            bytes: tester.best.len(),
            at: std::time::Instant::now(),
        }
    }
}

pub struct EditOracle<'a> {
    /// The pass's name, shown before the minimizer's phase (`None`: a group, whose policy's
    /// phase names the pass).
    label: Option<&'static str>,
    /// A group's passes as the serial chain reached them (see [`EditOracle::grouped`]).
    marks: Vec<Mark>,
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
    /// With `-j` above 1: the workers parse the candidates ([`crate::engine::prefilter`]).
    shared: Option<Arc<Shared>>,
    /// Tickets handed to the workers with a check: their counts are published in `shared`.
    sent: HashSet<Ticket>,
    /// A group whose passes differ in their prefilter setting: from which unit on each pass's
    /// units start, and whether its candidates are parsed (see [`EditOracle::unfiltered`]).
    filtered: Vec<(Unit, bool)>,
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
            label: Some(label),
            marks: Vec::new(),
            space,
            tester,
            prefilter,
            best_errors,
            seen: HashMap::new(),
            buf: Vec::new(),
            slack: 0,
            shared: None,
            sent: HashSet::new(),
            filtered: Vec::new(),
        }
    }

    /// For a group whose passes do not all use the prefilter: `passes` lists, in order, the
    /// first unit of each pass and whether its candidates are parsed. A candidate belongs to
    /// the pass of its first missing unit: in a group no pass before the one proposing it has
    /// committed anything (see `layers.rs`), so what it lacks is that pass's.
    pub fn filtered_per_pass(mut self, passes: Vec<(Unit, bool)>) -> Self {
        self.filtered = passes;
        self
    }

    /// Whether `candidate` skips the prefilter (its pass does not use it).
    fn unfiltered(&self, candidate: &[Unit]) -> bool {
        if self.filtered.is_empty() {
            return false;
        }
        let first = first_missing(candidate);
        let pass = self.filtered.partition_point(|&(from, _)| from <= first);
        pass > 0 && !self.filtered[pass - 1].1
    }

    /// For a group of passes in one call: the phase names the pass, and each pass's start is
    /// marked with the tester's counts (see [`EditOracle::marks`]).
    pub fn grouped(mut self) -> Self {
        self.label = None;
        self
    }

    /// Where each pass of a group began: tests are counted to the pass the serial chain was
    /// in when they ended (exact at `-j1`).
    pub fn marks(&self) -> &[Mark] {
        &self.marks
    }

    /// Lets the test workers parse the candidates (with `-j` above 1 and a prefilter), each
    /// with a parser `make` makes: the feeding thread only renders and hashes.
    pub fn with_workers(mut self, make: MakeChecker) -> Self {
        if self.prefilter.is_some() && self.tester.checks_off_thread() {
            self.shared = Some(Shared::new(make, None));
        }
        self
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
        let errors = match self.render_and_size(ticket, parent, candidate) {
            Ok(errors) => errors,
            Err(known) => return Some(known),
        };
        let mine = match self.unfiltered(candidate) {
            true => None,
            false => self.parse_errors(),
        };
        self.seen.insert(ticket, (self.buf.len(), mine));
        if let (Some(e), Some(base)) = (mine, errors)
            && e > base
        {
            self.tester.stats.pruned += 1;
            return Some(Verdict::NotInteresting);
        }
        None
    }

    /// Renders into `buf` and compares its size with the configuration it would replace: a
    /// known "no" if it is not smaller, else that configuration's errors (its baseline).
    fn render_and_size(
        &mut self,
        ticket: Ticket,
        parent: Option<Ticket>,
        candidate: &[Unit],
    ) -> Result<Option<usize>, Verdict> {
        self.space.render_into(candidate, &mut self.buf);
        let (size, errors) = parent
            .and_then(|p| self.seen.get(&p).copied())
            .unwrap_or((self.tester.best.len(), Some(self.best_errors)));
        if self.buf.len() >= size + self.slack {
            self.seen.insert(ticket, (self.buf.len(), None));
            return Err(Verdict::NotInteresting);
        }
        Ok(errors)
    }

    /// [`EditOracle::prepare`]'s size check here, its parse in the worker that tests it.
    fn start_checked(
        &mut self,
        shared: Arc<Shared>,
        ticket: Ticket,
        parent: Option<Ticket>,
        candidate: &[Unit],
    ) -> Started {
        let errors = match self.render_and_size(ticket, parent, candidate) {
            Ok(errors) => errors,
            Err(known) => {
                self.tester.skip(ticket);
                return Started::Known(known);
            }
        };
        let baseline = match parent {
            Some(p) if self.sent.contains(&p) => Baseline::Parent {
                ticket: p,
                on_none: None,
            },
            _ => Baseline::Value(errors),
        };
        self.seen.insert(ticket, (self.buf.len(), None));
        let check = Check {
            shared,
            ticket,
            splices: None,
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
}

/// The smallest unit a configuration lacks (its length if it lacks none of `0..len`): units
/// `0..k` are all kept and `k` is not, as a configuration is sorted and without repeats.
fn first_missing(config: &[Unit]) -> Unit {
    let (mut lo, mut hi) = (0, config.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        match config[mid] as usize == mid {
            true => lo = mid + 1,
            false => hi = mid,
        }
    }
    lo as Unit
}

impl Predicts for EditOracle<'_> {}

impl OnTester for EditOracle<'_> {
    fn tester(&self) -> &Tester {
        self.tester
    }

    fn tester_mut(&mut self) -> &mut Tester {
        self.tester
    }

    fn test_candidate(&mut self, candidate: &[Unit]) -> Verdict {
        match self.prepare(new_ticket(), None, candidate) {
            Some(known) => known,
            None => self.tester.verdict(&self.buf),
        }
    }

    fn commit_candidate(&mut self, ticket: Ticket, candidate: &[Unit]) {
        self.space.render_into(candidate, &mut self.buf);
        let published = self.shared.as_ref().and_then(|s| s.get(ticket));
        let errors = match (self.seen.get(&ticket), published) {
            (Some(&(_, Some(e))), _) => Some(e),
            (_, Some(Some(e))) => Some(e),
            _ if self.unfiltered(candidate) => None,
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

    fn start_candidate(
        &mut self,
        ticket: Ticket,
        parent: Option<Ticket>,
        candidate: &[Unit],
    ) -> Started {
        if let Some(shared) = self.shared.clone()
            && !self.unfiltered(candidate)
        {
            return self.start_checked(shared, ticket, parent, candidate);
        }
        if let Some(known) = self.prepare(ticket, parent, candidate) {
            self.tester.skip(ticket);
            return Started::Known(known);
        }
        self.tester.started(ticket, std::mem::take(&mut self.buf))
    }

    fn show_phase(&mut self, phase: &str) {
        let Some(label) = self.label else {
            let pass = phase.split(": ").next().unwrap_or_default();
            if self.marks.last().is_none_or(|m| m.pass != pass) {
                self.marks.push(Mark::of(pass, self.tester));
            }
            self.tester.progress.set_phase(phase);
            return;
        };
        self.tester
            .progress
            .set_phase(&crate::report::progress::phase_text(label, phase));
    }
}

#[cfg(test)]
mod tests {
    use super::first_missing;

    #[test]
    fn the_first_missing_unit_tells_a_candidates_pass() {
        assert_eq!(first_missing(&[0, 1, 2, 3]), 4);
        assert_eq!(first_missing(&[0, 1, 3, 4, 9]), 2);
        assert_eq!(first_missing(&[1, 2]), 0);
        assert_eq!(first_missing(&[]), 0);
        let most: Vec<u32> = (0..1000).filter(|&u| u != 731).collect();
        assert_eq!(first_missing(&most), 731);
    }
}
