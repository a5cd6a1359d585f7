//! The chain's tree of futures (`chain.rs`): pass nodes, real or hypothetical, with the
//! candidates pulled so far and what follows each candidate's success or the pass's failure.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::super::odds::{Traits, Twins, delta_key};
use super::super::{Hint, Ticket, new_ticket};
use crate::policy::{Policy, Unit, subtract_sorted};

/// A success branch is not built past this index of a pass (replaying further costs too much).
pub(super) const MAX_BRANCH_INDEX: usize = 4096;

/// A path step meaning "the pass after this one ends without a success".
pub(super) const FAILED: usize = usize::MAX;

/// What follows a candidate's success, or a pass's failure.
pub(super) enum Branch<'p> {
    Pass(Box<PassNode<'p>>),
    /// The policy stops: the call of the loop ends there.
    End,
    /// Not predicted (the policy cannot fork, or the pass is too long to replay).
    Unknown,
}

impl<'p> Branch<'p> {
    pub(super) fn node(self) -> Option<Box<PassNode<'p>>> {
        match self {
            Branch::Pass(n) => Some(n),
            _ => None,
        }
    }
}

/// One candidate of a pass node: what it removes from the node's configuration, and its
/// ticket. The configuration it would leave is derived when it is tested or followed: a pass
/// pulls thousands of candidates, and one whole configuration each grew with the input times
/// the pass's length (issue 38).
pub(super) struct Cand {
    pub(super) ticket: Ticket,
    /// What it removes (the policy's delta), packed.
    pub(super) removed: Packed,
    /// How many units of the configuration it removes.
    pub(super) count: usize,
    /// What it removes, as a key: the same deletion in another branch (see [`Twins`]).
    pub(super) delta: u64,
    /// The oracle's hint for the odds ([`Oracle::hint`]), once asked.
    pub(super) hint: Option<Hint>,
}

/// A pass, real (the root) or hypothetical.
pub(super) struct PassNode<'p> {
    /// Shared with the loop while this is the real pass: a configuration is the size of the
    /// input, and the loop and its root pass hold the same one.
    pub(super) config: Rc<[Unit]>,
    /// The policy's state before this pass's `propose`; `None` if the policy cannot fork.
    pub(super) base: Option<Box<dyn Policy + 'p>>,
    /// The ticket whose commit leads here; `None` for the current configuration.
    pub(super) origin: Option<Ticket>,
    /// The kind of pass, for the odds (see [`pass_kind`]); computed when first needed.
    pub(super) kind: Option<u32>,
    pub(super) cands: Vec<Cand>,
    pub(super) exhausted: bool,
    /// The pass after a success at index i, or after the pass fails ([`FAILED`]).
    pub(super) branches: HashMap<usize, Branch<'p>>,
}

impl<'p> PassNode<'p> {
    /// What the odds know of candidate `i` (its hint, once asked; the kind, once named).
    pub(super) fn traits(&self, i: usize, twins: &Twins) -> Traits {
        let cand = &self.cands[i];
        Traits {
            kind: self.kind.unwrap_or_default(),
            index: i,
            removed: cand.count,
            twin: twins.of(cand.ticket, cand.delta),
            hint: cand.hint.unwrap_or_default(),
        }
    }

    pub(super) fn new(
        config: Rc<[Unit]>,
        base: Option<Box<dyn Policy + 'p>>,
        origin: Option<Ticket>,
    ) -> Self {
        PassNode {
            config,
            base,
            origin,
            kind: None,
            cands: Vec::new(),
            exhausted: false,
            branches: HashMap::new(),
        }
    }

    pub(super) fn push(&mut self, delta: Vec<Unit>) {
        assert!(!delta.is_empty(), "a policy proposed an empty delta");
        let count = removed_count(&self.config, &delta);
        let key = delta_key(&delta);
        self.cands.push(Cand {
            ticket: new_ticket(),
            removed: Packed::pack(delta),
            count,
            delta: key,
            hint: None,
        });
    }

    /// The configuration candidate `i` would leave.
    pub(super) fn candidate(&self, i: usize) -> Vec<Unit> {
        let cand = &self.cands[i];
        subtract_sorted(&self.config, cand.count, cand.removed.iter())
    }

    /// Makes candidate `i` available by replaying the pass on a fork (a hypothetical node).
    pub(super) fn pull_replay(&mut self, i: usize) -> bool {
        while self.cands.len() <= i && !self.exhausted {
            let have = self.cands.len();
            let want = (i + 1).max(2 * have).max(8) - have;
            let Some(mut policy) = self.base.as_ref().map(|b| b.fork()) else {
                self.exhausted = true;
                break;
            };
            let fresh: Vec<Vec<Unit>> =
                policy.propose(&self.config).skip(have).take(want).collect();
            self.exhausted = fresh.len() < want;
            for delta in fresh {
                self.push(delta);
            }
        }
        self.cands.len() > i
    }

    /// The pass that follows a success of candidate `i`, built once.
    pub(super) fn branch(&mut self, i: usize) -> Option<&mut PassNode<'p>> {
        if !self.branches.contains_key(&i) {
            let made = self.make_branch(i);
            self.branches.insert(i, made);
        }
        match self.branches.get_mut(&i) {
            Some(Branch::Pass(node)) => Some(node),
            _ => None,
        }
    }

    fn make_branch(&self, i: usize) -> Branch<'p> {
        if i == FAILED {
            return self.make_fail_branch();
        }
        if i > MAX_BRANCH_INDEX {
            return Branch::Unknown;
        }
        let Some(cand) = self.cands.get(i) else {
            return Branch::Unknown;
        };
        let Some(mut policy) = self.base.as_ref().map(|b| b.fork()) else {
            return Branch::Unknown;
        };
        if policy.propose(&self.config).nth(i).is_none() {
            return Branch::Unknown;
        }
        policy.accepted(i);
        let candidate = self.candidate(i);
        if !policy.on_reduced(Some(&candidate)) {
            return Branch::End;
        }
        let next = PassNode::new(candidate.into(), Some(policy), Some(cand.ticket));
        Branch::Pass(Box::new(next))
    }

    /// The pass that follows this one if none of its candidates succeeds: a fork that proposed
    /// them all, told the pass failed. Same configuration (and baseline) as this pass.
    fn make_fail_branch(&self) -> Branch<'p> {
        if !self.exhausted {
            return Branch::Unknown;
        }
        let Some(mut policy) = self.base.as_ref().map(|b| b.fork()) else {
            return Branch::Unknown;
        };
        let proposed = policy.propose(&self.config).count();
        debug_assert_eq!(proposed, self.cands.len());
        if !policy.on_reduced(None) {
            return Branch::End;
        }
        let next = PassNode::new(self.config.clone(), Some(policy), self.origin);
        Branch::Pass(Box::new(next))
    }

    pub(super) fn collect_tickets(&self, into: &mut HashSet<Ticket>) {
        into.extend(self.cands.iter().map(|c| c.ticket));
        for branch in self.branches.values() {
            if let Branch::Pass(node) = branch {
                node.collect_tickets(into);
            }
        }
    }
}

/// A delta as it is kept for the whole pass: as runs of consecutive units when that is smaller.
/// A pass holds the delta of every candidate it pulled, and a tree node's units are mostly one
/// run; a list of single units stays a list.
pub(super) enum Packed {
    Units(Box<[Unit]>),
    /// `(first, length)` of each run, in order.
    Runs(Box<[(Unit, Unit)]>),
}

impl Packed {
    pub(super) fn pack(delta: Vec<Unit>) -> Packed {
        let mut runs: Vec<(Unit, Unit)> = Vec::new();
        for &u in &delta {
            if let Some((first, len)) = runs.last_mut()
                && u.checked_sub(*len) == Some(*first)
            {
                *len += 1;
            } else if 2 * (runs.len() + 1) >= delta.len() {
                return Packed::Units(delta.into());
            } else {
                runs.push((u, 1));
            }
        }
        Packed::Runs(runs.into())
    }

    /// The delta's units, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = Unit> + '_ {
        let (units, runs): (&[Unit], &[(Unit, Unit)]) = match self {
            Packed::Units(units) => (units, &[]),
            Packed::Runs(runs) => (&[], runs),
        };
        let spans = runs
            .iter()
            .flat_map(|&(first, len)| first..=first + (len - 1));
        units.iter().copied().chain(spans)
    }

    /// The delta as the policy proposed it.
    pub(super) fn units(&self) -> std::borrow::Cow<'_, [Unit]> {
        match self {
            Packed::Units(units) => std::borrow::Cow::Borrowed(units),
            Packed::Runs(_) => self.iter().collect(),
        }
    }
}

/// How many units of the sorted `config` the sorted `delta` removes (what [`crate::policy::subtract`] drops).
fn removed_count(config: &[Unit], delta: &[Unit]) -> usize {
    let mut count = 0;
    let mut last = None;
    for &u in delta {
        if last != Some(u) && config.binary_search(&u).is_ok() {
            count += 1;
        }
        last = Some(u);
    }
    count
}

/// The pass node at `path` (success indices from the root), building branches on the way.
pub(super) fn node_at<'a, 'p>(
    root: &'a mut Option<Box<PassNode<'p>>>,
    path: &[usize],
) -> Option<&'a mut PassNode<'p>> {
    let mut node = root.as_deref_mut()?;
    for &i in path {
        node = node.branch(i)?;
    }
    Some(node)
}
