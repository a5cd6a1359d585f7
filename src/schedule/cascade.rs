//! The bulk passes by name as one call ([`crate::passes::cascade`]): unreferenced items,
//! definitions to declarations, then the items they free, round after round, listed on one
//! parse and minimized by one policy, so that the chain speculates from one round into the
//! next instead of draining between calls, and the pass table keeps its two rows.

use std::rc::Rc;

use anyhow::Result;

use super::rewrites::{filtered, minimizer};
use super::{Driver, PassStats};
use crate::edits::Pass;
use crate::edits::layers::{Layers, Plan};
use crate::engine::edit_oracle::Mark;
use crate::passes::cascade::{Segment, cascade, plan};
use crate::passes::names::{Declarations, Unreferenced};
use crate::tree::ts;

/// The plan and policy of one cascade call over `src` ([`Layers::chained`]), from its
/// `segments` ([`cascade`]); `coarse`: see [`Driver::cascade`].
pub(super) fn cascade_policy(
    segments: Vec<Segment>,
    src: &[u8],
    coarse: bool,
    thorough: bool,
) -> (Rc<Plan>, Layers) {
    let (plan, names) = plan(segments, src);
    let plan = Rc::new(plan);
    let how = minimizer(false, coarse, thorough);
    let policy = Layers::chained(plan.clone(), vec![how; names.len()], names);
    (plan, policy)
}

impl Driver<'_> {
    /// One call of the cascade (`coarse`: its minimizers stop at chunks of 1/[`COARSE_CHUNKS`]
    /// of a layer); returns whether the best got smaller.
    pub(super) fn cascade(&mut self, coarse: bool) -> Result<bool> {
        let first = Mark::of(Unreferenced.name(), self.tester);
        let src = self.tester.best.clone();
        let Some(t) = self.rewriter else {
            return Ok(false);
        };
        let tree = self.trees.tree(&src)?;
        let errors = ts::count_errors(&tree).0;
        let segments = match self.first_cascade(&src) {
            Some(listed) => listed,
            None => cascade(&tree, &src, t),
        };
        drop(tree);
        let (plan, mut policy) = cascade_policy(segments, &src, coarse, self.schedule.thorough);
        let tokens = self.tokens_before();
        let filter = filtered(
            &self.schedule,
            Unreferenced.prefilter(),
            t.faithful_grammar,
            src.len(),
        );
        let marks = self.run_plan(&src, &plan, &mut policy, (errors, filter, Vec::new()));
        let tokens = self.tokens_settled(tokens, src.len());
        self.cascade_stats(first, &marks, tokens);
        Ok(self.tester.best.len() < src.len())
    }

    /// The pass-table rows of one cascade call: each pass that the serial chain was in gets the
    /// tests, time and bytes from its mark to the next; tokens (counted once, at the end) are
    /// shared out in proportion to the bytes.
    fn cascade_stats(&mut self, first: Mark, marks: &[Mark], tokens: usize) {
        let end = Mark::of("", self.tester);
        let removed_bytes = first.bytes - end.bytes;
        let removed_tokens = match removed_bytes > 0 && tokens > 0 {
            true => tokens.saturating_sub(self.tokens()),
            false => 0,
        };
        for name in [Unreferenced.name(), Declarations.name()] {
            self.add_stats(PassStats {
                name: name.into(),
                runs: 1,
                ..PassStats::default()
            });
        }
        let mut from = &first;
        let rest = marks
            .iter()
            .skip_while(|m| m.pass == first.pass && m.tests == first.tests);
        for to in rest.chain([&end]) {
            let bytes = from.bytes - to.bytes;
            self.add_stats(PassStats {
                name: from.pass.clone(),
                runs: 0,
                tests: to.tests - from.tests,
                successes: to.interesting - from.interesting,
                bytes_removed: bytes as i64,
                tokens_removed: match removed_bytes {
                    0 => 0,
                    all => (removed_tokens * bytes / all) as i64,
                },
                seconds: to.at.duration_since(from.at).as_secs_f64(),
            });
            from = to;
        }
    }
}
