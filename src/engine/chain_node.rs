//! The chain's tree of futures (`chain.rs`): pass nodes, real or hypothetical, with the
//! candidates pulled so far and what follows each candidate's success or the pass's failure.

use std::collections::{HashMap, HashSet};

use super::super::odds::{Traits, Twins, delta_key};
use super::super::{Hint, Ticket, new_ticket};
use crate::policy::{Policy, Unit, subtract};

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

/// One candidate of a pass node: the configuration it would leave, and its ticket.
pub(super) struct Cand {
    pub(super) ticket: Ticket,
    pub(super) candidate: Vec<Unit>,
    /// What it removes, as a key: the same deletion in another branch (see [`Twins`]).
    pub(super) delta: u64,
    /// What it removes, with `-j` above 1 (for the oracle's hint).
    pub(super) removed: Vec<Unit>,
    /// The oracle's hint for the odds ([`Oracle::hint`]), once asked.
    pub(super) hint: Option<Hint>,
}

/// A pass, real (the root) or hypothetical.
pub(super) struct PassNode<'p> {
    pub(super) config: Vec<Unit>,
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
            removed: self.config.len() - cand.candidate.len(),
            twin: twins.of(cand.ticket, cand.delta),
            hint: cand.hint.unwrap_or_default(),
        }
    }

    pub(super) fn new(
        config: Vec<Unit>,
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
        let candidate = subtract(&self.config, &delta);
        let key = delta_key(&delta);
        let removed = match self.base.is_some() {
            true => delta,
            false => Vec::new(),
        };
        self.cands.push(Cand {
            ticket: new_ticket(),
            candidate,
            delta: key,
            removed,
            hint: None,
        });
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
        if !policy.on_reduced(Some(&cand.candidate)) {
            return Branch::End;
        }
        let next = PassNode::new(cand.candidate.clone(), Some(policy), Some(cand.ticket));
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
