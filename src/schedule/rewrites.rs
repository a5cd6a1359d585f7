//! The rewrite passes' calls of the loop: one pass ([`Driver::rewrite`]), or a group of
//! consecutive passes listed on the same text ([`Driver::rewrite_group`]), and the group's rows
//! of the pass table.

use std::rc::Rc;
use std::time::Instant;

use anyhow::Result;

use super::{COARSE_CHUNKS, Driver, GIVE_UP_AFTER, PREFILTER_MAX_BYTES, PassStats, Schedule};
use crate::edits::layers::{Layers, Minimizer, Plan};
use crate::edits::{ENABLING_SLACK, EditSpace, Pass, layers_of_hunks};
use crate::engine::edit_oracle::{EditOracle, Mark};
use crate::engine::reduce;
use crate::lang::table::RewriteTable;
use crate::policy::Unit;
use crate::tree::ts::{self, Reparse};
use tree_sitter::Tree;

/// The end of the run of passes from `from` that one call can hold (see
/// [`Driver::rewrite_group`]): none enabling (the cycle undoes those).
pub(super) fn group_end(passes: &[Box<dyn Pass>], from: usize) -> usize {
    from + passes[from..].iter().take_while(|p| !p.enabling()).count()
}

/// The plan and policy of a group of passes as one call over `src` ([`Layers::grouped`]).
pub(super) fn group_policy(
    group: &[Box<dyn Pass>],
    tree: &Tree,
    src: &[u8],
    t: &RewriteTable,
    thorough: bool,
) -> (Rc<Plan>, Layers) {
    let layers = group
        .iter()
        .map(|p| layers_of_hunks(p.hunks(tree, src, t), src))
        .collect();
    let plan = Rc::new(Plan::grouped(layers));
    let how = group
        .iter()
        .map(|p| minimizer(p.one_at_a_time(), false, thorough))
        .collect();
    let names = group.iter().map(|p| p.name()).collect();
    (plan.clone(), Layers::grouped(plan, how, names))
}

/// The plan and policy of one pass as one call over `src` ([`Layers::new`]); `coarse`: see
/// [`Driver::rewrite`].
pub(super) fn single_policy(
    pass: &dyn Pass,
    tree: &Tree,
    src: &[u8],
    t: &RewriteTable,
    coarse: bool,
    thorough: bool,
) -> (Rc<Plan>, Layers) {
    let plan = Rc::new(Plan::new(layers_of_hunks(pass.hunks(tree, src, t), src)));
    let how = minimizer(pass.one_at_a_time(), coarse, thorough);
    (plan.clone(), Layers::new(plan, how))
}

/// How a layer is minimized: one edit at a time or all at once then halves; `coarse`: not
/// below chunks of 1/[`COARSE_CHUNKS`] of the layer; `thorough`: no give-up rule.
pub(super) fn minimizer(one_at_a_time: bool, coarse: bool, thorough: bool) -> Minimizer {
    Minimizer {
        one_at_a_time,
        coarse: coarse.then_some(COARSE_CHUNKS),
        limit: (!thorough).then_some(GIVE_UP_AFTER),
    }
}

/// Whether a pass's candidates get the parse prefilter: the run has it on, the pass uses it (or
/// the grammar parses every candidate faithfully) and the text is small enough.
pub(super) fn filtered(schedule: &Schedule, pass: bool, faithful: bool, len: usize) -> bool {
    schedule.prefilter && (pass || faithful) && len <= PREFILTER_MAX_BYTES
}

impl Driver<'_> {
    /// One rewrite pass: list its edits on a fresh parse of the best, then minimize each layer
    /// (all of a layer at once first, then halves, unless the pass is one-at-a-time; `coarse`:
    /// not below chunks of 1/[`COARSE_CHUNKS`] of the layer), committed edits carried into the
    /// next layer; the layers are one policy ([`Layers`]), so the pass is one `reduce` call.
    pub(super) fn rewrite(&mut self, pass: &dyn Pass, coarse: bool) -> Result<()> {
        let src = self.tester.best.clone();
        let Some(t) = self.rewriter else {
            return Ok(());
        };
        let tree = self.trees.tree(&src)?;
        let errors = ts::count_errors(&tree).0;
        let thorough = self.schedule.thorough;
        let (plan, mut policy) = single_policy(pass, &tree, &src, t, coarse, thorough);
        drop(tree);
        if plan.hunks.is_empty() {
            return Ok(());
        }
        let mut space = EditSpace::new(src.to_vec());
        space.next_layer(&[], plan.hunks.clone());
        let wanted = filtered(
            &self.schedule,
            pass.prefilter(),
            t.faithful_grammar,
            src.len(),
        );
        let prefilter: Option<&mut dyn Reparse> = match wanted {
            true => Some(self.filter.as_mut()),
            false => None,
        };
        let slack = if pass.enabling() { ENABLING_SLACK } else { 0 };
        let mut oracle = EditOracle::new(pass.name(), &space, self.tester, prefilter, errors)
            .with_slack(slack)
            .with_workers(self.front.make_checker());
        reduce(space.all_units(), &mut oracle, &mut policy);
        Ok(())
    }

    /// Consecutive passes listed on the same text as one `reduce` call ([`Layers::grouped`]):
    /// the call stops after the first pass that commits, and returns its index in `group`; the
    /// passes before it changed nothing, so each saw the text it would have seen run alone,
    /// and the chain speculates from one into the next instead of draining between them. Each
    /// pass gets its row of the table: tests are counted to the pass the serial chain was in.
    pub(super) fn rewrite_group(&mut self, group: &[Box<dyn Pass>]) -> Result<Option<usize>> {
        let start = Instant::now();
        let (bytes, tokens) = (self.tester.best.len(), self.tokens());
        let (tests, hits) = (self.tester.stats.tests, self.tester.stats.interesting);
        let src = self.tester.best.clone();
        let Some(t) = self.rewriter else {
            return Ok(None);
        };
        let tree = self.trees.tree(&src)?;
        let errors = ts::count_errors(&tree).0;
        let (plan, mut policy) = group_policy(group, &tree, &src, t, self.schedule.thorough);
        drop(tree);
        // each pass's own prefilter setting: the oracle tells a candidate's pass by its units
        let faithful = t.faithful_grammar;
        let wanted: Vec<bool> = group
            .iter()
            .map(|p| filtered(&self.schedule, p.prefilter(), faithful, src.len()))
            .collect();
        let per_pass = match wanted.iter().all(|&w| w == wanted[0]) {
            true => Vec::new(),
            false => (0..group.len())
                .map(|s| (plan.pass_start(s) as Unit, wanted[s]))
                .collect(),
        };
        let filter = wanted.contains(&true);
        let marks = self.run_plan(&src, &plan, &mut policy, (errors, filter, per_pass));
        let changed = (self.tester.best.len() < bytes).then_some(policy.pass());
        let ran = match changed {
            Some(k) => k + 1,
            // every pass ran without a change, unless the run is stopping
            None if self.tester.stopped() => policy.pass().min(group.len()),
            None => group.len(),
        };
        let first = Mark {
            pass: String::new(),
            tests,
            interesting: hits,
            bytes,
            at: start,
        };
        self.group_stats(&group[..ran], changed, &first, &marks, (bytes, tokens));
        Ok(changed)
    }

    /// A group's or a cascade's `plan` over `src` as one `reduce` call of `policy` (nothing if
    /// the plan has no hunk), the candidates parsed if `filter` (only those of the passes
    /// `per_pass` says, if it is not empty; `errors`: the best's); returns where each pass
    /// began.
    pub(super) fn run_plan(
        &mut self,
        src: &[u8],
        plan: &Plan,
        policy: &mut Layers,
        (errors, filter, per_pass): (usize, bool, Vec<(Unit, bool)>),
    ) -> Vec<Mark> {
        if plan.hunks.is_empty() {
            return Vec::new();
        }
        let prefilter: Option<&mut dyn Reparse> = match filter {
            true => Some(self.filter.as_mut()),
            false => None,
        };
        let mut space = EditSpace::new(src.to_vec());
        space.next_layer(&[], plan.hunks.clone());
        let mut oracle = EditOracle::new("", &space, self.tester, prefilter, errors)
            .grouped()
            .filtered_per_pass(per_pass)
            .with_workers(self.front.make_checker());
        reduce(space.all_units(), &mut oracle, policy);
        oracle.marks().to_vec()
    }

    /// Each pass of a group that ran gets its row: tests from the marks (the listing's time
    /// with the first pass, as when each pass listed its own), bytes and tokens removed to the
    /// pass that `changed` the text.
    fn group_stats(
        &mut self,
        ran: &[Box<dyn Pass>],
        changed: Option<usize>,
        first: &Mark,
        marks: &[Mark],
        (bytes, tokens): (usize, usize),
    ) {
        let tokens_after = match changed {
            Some(_) => self.tokens(),
            None => tokens,
        };
        let end = Mark::of("", self.tester);
        // each mark with the index of its pass (marks come in pass order)
        let marked: Vec<(usize, &Mark)> = marks
            .iter()
            .filter_map(|m| Some((ran.iter().position(|p| p.name() == m.pass)?, m)))
            .collect();
        for (k, pass) in ran.iter().enumerate() {
            let name = pass.name();
            let from = match k {
                0 => Some(first),
                _ => marked.iter().find(|(i, _)| *i == k).map(|(_, m)| *m),
            };
            let to = marked
                .iter()
                .find(|(i, _)| *i > k)
                .map_or(&end, |(_, m)| *m);
            let (tests, successes, seconds) = match from {
                Some(f) => (
                    to.tests - f.tests,
                    to.interesting - f.interesting,
                    to.at.duration_since(f.at).as_secs_f64(),
                ),
                None => (0, 0, 0.0),
            };
            let changed_here = changed == Some(k);
            self.add_stats(PassStats {
                name: name.into(),
                runs: 1,
                tests,
                successes,
                bytes_removed: if changed_here {
                    bytes as i64 - self.tester.best.len() as i64
                } else {
                    0
                },
                tokens_removed: if changed_here && tokens > 0 {
                    tokens as i64 - tokens_after as i64
                } else {
                    0
                },
                seconds,
            });
        }
    }
}
