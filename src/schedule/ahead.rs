//! What the driver runs next, for the chain's prefetch (`tester/ahead.rs`): each call of the
//! loop is told which call follows it, as a function of the text it ends with, and that
//! function lists the next call's first candidates. The chain starts their tests while this
//! call's last tests still run, so the one test latency each call boundary cost goes. A wrong
//! guess only wastes test runs: a prefetched verdict is a cached verdict, which the next call
//! uses only for the very same bytes.

use std::collections::HashSet;
use std::rc::Rc;

use anyhow::Result;

use super::cascade::cascade_policy;
use super::rewrites::{group_end, group_policy, single_policy};
use super::trees::Trees;
use super::{COARSE_MIN_BYTES, Deletion, Schedule, Tables};
use crate::edits::EditSpace;
use crate::edits::layers::{Layers, Plan};
use crate::engine::tester::Next;
use crate::lang::table::RewriteTable;
use crate::passes::cascade::cascade;
use crate::policy::ddmin::Sweep;
use crate::policy::hdd::Hdd;
use crate::policy::perses::{Perses, PersesOptions};
use crate::policy::recall::Recall;
use crate::policy::{Only, Policy, Unit, subtract};
use crate::tree::front::Front;
use crate::tree::ts::Parsed;

/// Which table of passes a cycle runs ([`Tables`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Which {
    Main,
    Late,
}

/// A call the driver makes.
#[derive(Clone, Copy, Debug)]
pub(super) enum After {
    /// A deletion round (its comments first, if any), and the table's pass where the driver
    /// goes on if the rounds change nothing (`None`: not modelled).
    Round(Option<(Which, usize)>),
    /// The bulk passes by name (`cascade.rs`), and where the rounds after them go on.
    Cascade(Option<(Which, usize)>),
    /// The pass at this index of a table, with those that share its call ([`group_end`]);
    /// past the table's end, what the cycle does next.
    Group(Which, usize),
    /// Something the lookahead does not model.
    Unknown,
}

/// The call after the current one: if it leaves the text as it was, or if it changes it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Then {
    pub same: After,
    pub changed: After,
}

impl After {
    /// The table's pass this is, if it is one.
    pub fn tail(self) -> Option<(Which, usize)> {
        match self {
            After::Group(which, index) => Some((which, index)),
            _ => None,
        }
    }

    /// A deletion round that goes on with `self` if it changes nothing.
    pub fn round_then(self) -> After {
        After::Round(self.tail())
    }

    /// The table's pass `tail` names (the inverse of [`After::tail`]); `None`: not modelled.
    pub fn of_tail(tail: Option<(Which, usize)>) -> After {
        tail.map_or(After::Unknown, |(which, index)| After::Group(which, index))
    }
}

impl Then {
    /// Nothing known of the next call.
    pub const UNKNOWN: Then = Then {
        same: After::Unknown,
        changed: After::Unknown,
    };
}

/// What the lookahead needs of the driver, borrowed apart from the tester (which the running
/// call holds).
pub(super) struct Look<'d, 'f> {
    pub trees: &'d mut Trees<'f>,
    pub front: &'f Front,
    pub rewriter: Option<&'static RewriteTable>,
    pub schedule: Schedule,
    /// Perses's failed replacements as the next round will skip them.
    pub failed: Rc<HashSet<u64>>,
    /// The workers (see [`Look::listed`]).
    pub width: usize,
    pub tables: Tables,
    /// The size of the best when the current cycle began.
    pub cycle_start: usize,
}

/// The lookahead lists this many candidates per worker: the chain skips those whose verdict is
/// cached (the late passes of a run are mostly cached), and goes on to the next.
const LISTED_PER_WORKER: usize = 2;

/// A lookahead follows calls that try nothing (a pass with no edits) at most this far.
const MAX_HOPS: usize = 64;

/// Texts above this size are not looked ahead of: the lookahead parses the text on the thread
/// that feeds the workers, and a wrong guess would cost a parse the next call makes again.
const MAX_BYTES: usize = 256 * 1024;

/// The next call's first candidates for a call that starts from `start`: `then.same` if it
/// ends with that text, else `changed(config)` (its end configuration decides: a round that
/// reached its size goal hands over to the bulk passes).
pub(super) fn next_call<'d, 'f: 'd>(
    mut look: Look<'d, 'f>,
    start: Vec<u8>,
    then: Then,
    changed: impl Fn(&[Unit]) -> After + 'd,
) -> Next<'d> {
    Box::new(move |text: &[u8], config: &[Unit]| {
        if text.len() > MAX_BYTES {
            return Vec::new();
        }
        let after = match text == start.as_slice() {
            true => then.same,
            false => changed(config),
        };
        look.first(after, text, 0).unwrap_or_default()
    })
}

/// The first `k` candidates of `policy` over `units`, rendered, in the order the call tries
/// them while they fail: a pass that runs out hands over to the policy's next pass on the same
/// units (a Perses round's next list, a cascade's next layer), as the loop does.
fn firsts(
    policy: &mut dyn Policy,
    units: &[Unit],
    k: usize,
    render: impl Fn(&[Unit]) -> Vec<u8>,
) -> Vec<Vec<u8>> {
    let mut listed = Vec::new();
    for _ in 0..MAX_HOPS {
        let mut deltas = policy.propose(units);
        for delta in deltas.by_ref() {
            listed.push(render(&subtract(units, &delta)));
            if listed.len() == k {
                return listed;
            }
        }
        drop(deltas);
        if !policy.on_reduced(None) {
            break;
        }
    }
    listed
}

/// The first `k` candidates of a Layers policy over its plan's edits of `src`.
fn layered(plan: &Plan, policy: &mut Layers, src: &[u8], k: usize) -> Vec<Vec<u8>> {
    let mut space = EditSpace::new(src.to_vec());
    space.next_layer(&[], plan.hunks.clone());
    let units = space.all_units();
    firsts(policy, &units, k, |c| space.render(c))
}

/// The first candidates of a round's deletion policy over `units` of `parsed`: `how` is the
/// kind of deletion, the failed replacements it skips, and how many to list.
pub(super) fn deletion_firsts(
    (deletion, failed, k): (Deletion, &HashSet<u64>, usize),
    parsed: &Parsed,
    units: &[Unit],
) -> Vec<Vec<u8>> {
    let render = |c: &[Unit]| parsed.tokens.render(c);
    match deletion {
        Deletion::Hdd => firsts(&mut Hdd::new(&parsed.arena, Sweep::new), units, k, render),
        Deletion::Perses => {
            let recall = Rc::new(Recall::new(&parsed.tokens, HashSet::clone(failed)));
            let mut perses = Perses::new(&parsed.arena, Sweep::new)
                .options(PersesOptions::tuned())
                .recall(recall);
            firsts(&mut perses, units, k, render)
        }
    }
}

impl Look<'_, '_> {
    /// How many of the next call's candidates to list.
    pub fn listed(&self) -> usize {
        LISTED_PER_WORKER * self.width
    }

    /// The first candidates of `after` on `text` (empty: nothing known), `hops` calls that
    /// try nothing after the current one.
    pub fn first(&mut self, after: After, text: &[u8], hops: usize) -> Result<Vec<Vec<u8>>> {
        match after {
            _ if hops > MAX_HOPS => Ok(Vec::new()),
            After::Unknown => Ok(Vec::new()),
            After::Round(then) => self.round(text, then, hops),
            After::Cascade(then) => self.cascade(text, then, hops),
            After::Group(which, index) => self.group(which, index, text, hops),
        }
    }

    fn round(
        &mut self,
        text: &[u8],
        then: Option<(Which, usize)>,
        hops: usize,
    ) -> Result<Vec<Vec<u8>>> {
        let parsed = self.trees.build(text)?;
        let units: Vec<Unit> = (0..parsed.tokens.len() as Unit).collect();
        let comments = self.front.comment_tokens(&parsed);
        if !comments.is_empty() {
            // the comments call tries every comment at once first, and that mostly succeeds:
            // then the deletion call on the same parse, without them (so that its first tests
            // start before the comments call, a call of one test, begins)
            let render = |c: &[Unit]| parsed.tokens.render(c);
            let rest = subtract(&units, &comments);
            let mut listed = firsts(&mut Only::new(comments, Sweep::new()), &units, 1, render);
            let how = (
                self.schedule.deletion,
                &*self.failed,
                self.listed().saturating_sub(1),
            );
            listed.extend(deletion_firsts(how, &parsed, &rest));
            return Ok(listed);
        }
        let how = (self.schedule.deletion, &*self.failed, self.listed());
        let listed = deletion_firsts(how, &parsed, &units);
        drop(parsed);
        // a round that tries them all in vain ends the rounds: the driver goes on to `then`
        self.then_after(listed, After::of_tail(then), text, hops)
    }

    /// `listed`, and if it holds fewer candidates than the lookahead lists (the call ends on
    /// the same text if they all fail), the first candidates of `next` on that text after them.
    fn then_after(
        &mut self,
        mut listed: Vec<Vec<u8>>,
        next: After,
        text: &[u8],
        hops: usize,
    ) -> Result<Vec<Vec<u8>>> {
        let room = self.listed().saturating_sub(listed.len());
        if room > 0 {
            let more = self.first(next, text, hops + 1)?;
            listed.extend(more.into_iter().take(room));
        }
        Ok(listed)
    }

    fn cascade(
        &mut self,
        text: &[u8],
        then: Option<(Which, usize)>,
        hops: usize,
    ) -> Result<Vec<Vec<u8>>> {
        let Some(t) = self.rewriter else {
            return Ok(Vec::new());
        };
        let tree = self.trees.tree(text)?;
        let coarse = text.len() > COARSE_MIN_BYTES;
        let segments = cascade(&tree, text, t);
        drop(tree);
        let (plan, mut policy) = cascade_policy(segments, text, coarse, self.schedule.thorough);
        if plan.hunks.is_empty() {
            // nothing to try: the cascade's loop ends, and a deletion round runs on that text
            return self.first(After::Round(then), text, hops + 1);
        }
        let listed = layered(&plan, &mut policy, text, self.listed());
        // a cascade that changes nothing ends its loop: deletion rounds, then `then`
        self.then_after(listed, After::Round(then), text, hops)
    }

    fn group(
        &mut self,
        which: Which,
        index: usize,
        text: &[u8],
        hops: usize,
    ) -> Result<Vec<Vec<u8>>> {
        let tables = self.tables.clone();
        let passes = tables.get(which);
        let Some(t) = self.rewriter.filter(|_| !passes.is_empty()) else {
            return Ok(Vec::new());
        };
        if index >= passes.len() {
            // the cycle's end: the table again if the cycle changed the text, else the late
            // passes (after those, the driver's last steps are not modelled)
            let next = match which {
                Which::Main if text.len() < self.cycle_start => After::Group(Which::Main, 0),
                Which::Main => After::Group(Which::Late, 0),
                Which::Late => After::Unknown,
            };
            return self.first(next, text, hops + 1);
        }
        let end = group_end(passes, index).max(index + 1);
        let tree = self.trees.tree(text)?;
        let thorough = self.schedule.thorough;
        let (plan, mut policy) = match passes[index].enabling() {
            true => single_policy(passes[index].as_ref(), &tree, text, t, false, thorough),
            false => group_policy(&passes[index..end], &tree, text, t, thorough),
        };
        drop(tree);
        if plan.hunks.is_empty() {
            // the call has nothing to try: the one after it runs on the same text
            return self.first(After::Group(which, end), text, hops + 1);
        }
        let listed = layered(&plan, &mut policy, text, self.listed());
        self.then_after(listed, After::Group(which, end), text, hops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FnOracle, reduce};
    use crate::tree::toy::{ToyTree, example_tree};

    type MakePolicy = fn(&ToyTree) -> Box<dyn Policy + '_>;

    /// What a call of `policy` over `units` tests while every candidate fails.
    fn tried_while_failing(policy: &mut dyn Policy, units: &[Unit]) -> Vec<Vec<Unit>> {
        let mut tried = Vec::new();
        let full = units.len();
        let mut oracle = FnOracle(|c: &[Unit]| {
            if c.len() < full {
                tried.push(c.to_vec());
            }
            c.len() == full
        });
        reduce(units.to_vec(), &mut oracle, policy);
        tried
    }

    /// The lookahead lists the candidates the next call tries first while they fail, in
    /// order, through the policy's later passes on the same units (a sweep's smaller chunks,
    /// Perses's and HDD's later lists and levels): with few candidates per pass, the workers
    /// would otherwise get the first pass's alone.
    #[test]
    fn the_lookahead_lists_what_the_call_tries_first_while_it_fails() {
        let tree = example_tree();
        let units = tree.all_units();
        let render = |c: &[Unit]| tree.render(c).into_bytes();
        let policies: [MakePolicy; 3] = [
            |_| Box::new(Sweep::new()),
            |t| Box::new(Hdd::new(&t.arena, Sweep::new)),
            |t| Box::new(Perses::new(&t.arena, Sweep::new)),
        ];
        for make in policies {
            let serial: Vec<Vec<u8>> = tried_while_failing(make(&tree).as_mut(), &units)
                .iter()
                .map(|c| render(c))
                .collect();
            assert!(serial.len() > 4);
            for k in [1, 4, serial.len(), serial.len() + 5] {
                let listed = firsts(make(&tree).as_mut(), &units, k, render);
                assert_eq!(listed, serial[..k.min(serial.len())], "k {k}");
            }
        }
    }

    /// A lookahead over C for 4 workers, given to `test`.
    fn with_look<T>(cycle_start: usize, test: impl FnOnce(&mut Look) -> T) -> T {
        let front = Front::grammar(&crate::lang::c::SPEC).unwrap();
        let mut trees = Trees::new(&front, None).unwrap();
        let schedule = Schedule {
            deletion: Deletion::Perses,
            rewrites: true,
            thorough: false,
            rename: false,
            prefilter: false,
            format: false,
            compact: false,
        };
        let mut look = Look {
            trees: &mut trees,
            front: &front,
            rewriter: crate::lang::table::for_language("c"),
            schedule,
            failed: Rc::new(HashSet::new()),
            width: 4,
            tables: Tables::new(true),
            cycle_start,
        };
        test(&mut look)
    }

    /// The lookahead of a cascade on `text` and of a deletion round on it.
    fn cascade_and_round(text: &[u8]) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        with_look(text.len(), |look| {
            let cascade = look.first(After::Cascade(None), text, 0).unwrap();
            let round = look.first(After::Round(None), text, 0).unwrap();
            (cascade, round)
        })
    }

    /// A call with fewer candidates than the lookahead lists ends on the same text if they
    /// all fail: the candidates of the driver's next call follow them (the late passes of a
    /// run are short calls, often answered from the cache).
    #[test]
    fn a_short_call_is_followed_by_the_next_calls_candidates() {
        let text: &[u8] = b"int x;\n";
        with_look(text.len(), |look| {
            let listed = look.listed();
            let short = vec![b"short".to_vec()];
            let round = look.first(After::Round(None), text, 0).unwrap();
            assert!(round.len() > 1 && round.len() < listed);
            let then = look
                .then_after(short.clone(), After::Round(None), text, 0)
                .unwrap();
            assert_eq!(then[0], short[0]);
            assert_eq!(then[1..], round[..(listed - 1).min(round.len())]);
            // a full list is left as it is
            let full = vec![b"full".to_vec(); listed];
            let kept = look
                .then_after(full.clone(), After::Round(None), text, 0)
                .unwrap();
            assert_eq!(kept, full);
            // a round followed by the table's first pass lists that pass's candidates after its
            // own, when it has fewer than the lookahead lists
            let group = look.first(After::Group(Which::Main, 0), text, 0).unwrap();
            let chained = look
                .first(After::Round(Some((Which::Main, 0))), text, 0)
                .unwrap();
            assert!(!group.is_empty());
            let mut expected = round.clone();
            expected.extend(group);
            expected.truncate(listed);
            assert_eq!(chained, expected);
        })
    }

    /// A round on a text with comments tries every comment at once in a call of its own, and
    /// that mostly succeeds: the lookahead lists that candidate, then what the deletion call
    /// tries next on the same parse without the comments, so that its tests start before the
    /// one-test comments call begins.
    #[test]
    fn a_round_with_comments_lists_their_deletion_then_the_deletions_after_it() {
        let text = b"/* note */\nint g(int y) { return y * 2; }\nint main(void) { return 0; }\n";
        with_look(text.len(), |look| {
            let round = look.first(After::Round(None), text, 0).unwrap();
            assert_eq!(round.len(), look.listed());
            let all = String::from_utf8_lossy(&round[0]).into_owned();
            assert!(!all.contains("note") && all.contains("int main"), "{all}");
            // then the Perses call on the units left: its candidates, smaller still
            let parsed = look.trees.build(text).unwrap();
            let units: Vec<Unit> = (0..parsed.tokens.len() as Unit).collect();
            let rest = subtract(&units, &look.front.comment_tokens(&parsed));
            let how = (Deletion::Perses, &HashSet::new(), look.listed() - 1);
            assert_eq!(round[1..], deletion_firsts(how, &parsed, &rest));
            assert!(round[1..].iter().all(|c| c.len() < round[0].len()));
        })
    }

    /// With no item to remove (a lone `#include`), the cascade tries nothing and the driver
    /// goes on to a deletion round: the lookahead lists that round's candidates. With an
    /// unreferenced function, the cascade's own candidates (the first removes it).
    #[test]
    fn a_cascade_with_nothing_to_try_looks_ahead_to_the_round_after_it() {
        let used = b"#include <stdio.h>\n";
        let (cascade, round) = cascade_and_round(used);
        assert!(!round.is_empty());
        assert_eq!(cascade, round);

        let unused = b"int g(int y) { return y * 2; }\nint main(void) { return 0; }\n";
        let (cascade, round) = cascade_and_round(unused);
        assert!(!cascade.is_empty());
        assert_ne!(cascade, round);
        assert!(!String::from_utf8_lossy(&cascade[0]).contains("g(int"));
    }
}
