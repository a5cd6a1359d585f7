//! Deletion in rounds (Perses or HDD over the best text's tree) to a fixpoint, with the bulk
//! passes between rounds when a round reaches its size goal, and Perses's memory of the
//! replacements that failed in earlier rounds ([`Recall`]).

use std::collections::HashSet;
use std::rc::Rc;

use anyhow::Result;

use super::{Deletion, Driver, YIELD_SHARE};
use crate::engine::reduce;
use crate::engine::tester::{self, TreeOracle};
use crate::policy::ddmin::Sweep;
use crate::policy::hdd::Hdd;
use crate::policy::perses::{Perses, PersesOptions};
use crate::policy::recall::Recall;
use crate::policy::until::Until;
use crate::policy::{Only, Unit};
use crate::tree::render::Tokens;
use crate::tree::reparse::RoundText;
use crate::tree::ts::Reparse;

/// Perses's replacements that failed, by [`Recall`] key, over the whole run.
#[derive(Default)]
pub(super) struct Recalled {
    failed: Rc<HashSet<u64>>,
    /// The next rounds skip nothing (the run's last check).
    full: bool,
    /// The last round skipped what failed before: its fixpoint is not yet a full one.
    skipped: bool,
}

impl Recalled {
    /// What a round over `tokens` skips: every key that failed so far, or nothing in the run's
    /// last check.
    fn for_round<'t>(&mut self, tokens: &'t Tokens) -> Rc<Recall<'t>> {
        let failed = match self.full {
            true => HashSet::new(),
            false => HashSet::clone(&self.failed),
        };
        self.skipped = !failed.is_empty();
        Rc::new(Recall::new(tokens, failed))
    }

    /// The keys of the replacements a round saw fail.
    fn learn(&mut self, keys: Vec<u64>) {
        Rc::make_mut(&mut self.failed).extend(keys);
    }
}

impl Driver<'_> {
    /// Deletion rounds; when a round ends early at its size goal (see [`YIELD_SHARE`]), the
    /// bulk passes by name run on the smaller program, then deletion goes on. Once they find
    /// nothing after a goal, the rounds run to their fixpoint.
    pub(super) fn measured_deletion(&mut self) -> Result<bool> {
        let name = match self.schedule.deletion {
            Deletion::Perses => "perses",
            Deletion::Hdd => "hdd",
        };
        let mut goals = self.schedule.rewrites
            && self
                .rewriter
                .as_ref()
                .is_some_and(|r| r.bulk_between_rounds);
        let mut changed = false;
        loop {
            let before = self.tester.best.len();
            let mut reached = false;
            self.measure(name, |d| {
                reached = d.deletion(goals)?;
                Ok(())
            })?;
            // a round the stall cut short goes on after the guard (on its smaller text, or on
            // the same one, whose candidates so far are cached)
            let stalled = self.guard()?;
            changed |= self.tester.best.len() < before;
            if self.tester.stopped() {
                return Ok(changed);
            }
            if stalled {
                continue;
            }
            if !reached {
                return Ok(changed);
            }
            let before = self.tester.best.len();
            changed |= self.cascade(false)?;
            goals = self.tester.best.len() < before;
        }
    }

    /// The run's last check when deletion rounds skipped replacements that failed on earlier
    /// programs: rounds that skip nothing, so that the result is a fixpoint of every
    /// replacement on the final program. Returns whether they changed the best.
    pub(super) fn full_rounds(&mut self) -> Result<bool> {
        if !self.recalled.skipped || self.tester.stopped() {
            return Ok(false);
        }
        self.recalled.full = true;
        let changed = self.measured_deletion();
        self.recalled.full = false;
        changed
    }

    /// Deletion in rounds: parse the best text, reduce to the policy's end, repeat until a
    /// round changes nothing (so the result is a fixpoint of the final program's tree). With
    /// `goals`, a round ends once the program is down to [`YIELD_SHARE`] of the round's tokens:
    /// then it returns true.
    pub(super) fn deletion(&mut self, goals: bool) -> Result<bool> {
        loop {
            self.rounds += 1;
            let parsed = self.trees.build(&self.tester.best)?;
            // the text of the round: the tokens hold it, a second copy would not be freed
            let text = parsed.tokens.src.clone();
            let units: Vec<Unit> = (0..parsed.tokens.len() as Unit).collect();
            let pays = text.len() <= tester::PREFILTER_MAX_BYTES;
            if self.schedule.prefilter && !pays {
                self.tester.stats.prefilter_off = true;
            }
            let prefilter: Option<&mut dyn Reparse> = match self.schedule.prefilter && pays {
                true => Some(self.filter.as_mut()),
                false => None,
            };
            let base = RoundText {
                tree: self.trees.parsed(&text),
                text: text.clone(),
            };
            let mut oracle =
                TreeOracle::new(&parsed.tokens, base, self.tester, prefilter, parsed.errors)
                    .with_workers(self.front.make_checker());
            // comments first, all at once if the test allows (it usually does): one test can
            // spare thousands of one-comment passes later
            let comments = self.front.comment_tokens(&parsed);
            let units = if comments.is_empty() {
                units
            } else {
                reduce(units, &mut oracle, &mut Only::new(comments, Sweep::new()))
            };
            let target = match goals {
                true => units.len() * YIELD_SHARE.0 / YIELD_SHARE.1,
                false => 0,
            };
            let (result, reached) = match self.schedule.deletion {
                Deletion::Hdd => {
                    let mut hdd = Until::new(Hdd::new(&parsed.arena, Sweep::new), target);
                    (reduce(units, &mut oracle, &mut hdd), hdd.reached())
                }
                Deletion::Perses => {
                    let perses = Perses::new(&parsed.arena, Sweep::new)
                        .options(PersesOptions::tuned())
                        .recall(self.recalled.for_round(&parsed.tokens));
                    let mut perses = Until::new(perses, target);
                    let result = reduce(units, &mut oracle, &mut perses);
                    self.recalled.learn(perses.inner().failed_keys());
                    (result, perses.reached())
                }
            };
            if reached {
                return Ok(true);
            }
            let shrunk = oracle.shrunk();
            drop(oracle);
            // a round whose deletions render the same text (an emptied Python block renders
            // `pass` again) would repeat forever on the same parse
            let unchanged = self.tester.best[..] == text[..];
            if self.tester.stopped()
                || self.tester.stalled()
                || unchanged
                || (result.len() == parsed.tokens.len() && !shrunk)
            {
                return Ok(false);
            }
        }
    }
}
