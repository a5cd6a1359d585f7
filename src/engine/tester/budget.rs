//! `--max-attempts` counted as the serial run counts: a run is charged when the serial chain
//! reaches its candidate (in chain order), so a budgeted result is the same for every `-j`. A
//! cache hit on a key the chain has charged, or a candidate the prefilter skipped, is free; a
//! run may start only while it could still be charged.

use std::collections::{HashMap, HashSet};

use crate::engine::pool::Ticket;

#[derive(Default)]
pub(super) struct Budget {
    /// `--max-attempts`.
    max: Option<u64>,
    /// Test runs started so far (every one counts toward the budget).
    started: u64,
    /// Test runs charged: the runs the serial run would have made.
    charged: u64,
    /// The content key of every candidate begun and not yet charged, by ticket.
    keys: HashMap<Ticket, u128>,
    /// Candidates the prefilter skipped and not yet charged.
    pruned: HashSet<Ticket>,
    /// Keys the serial chain has charged (or checked first): their cache hits are free.
    seen: HashSet<u128>,
}

impl Budget {
    pub(super) fn new(max: Option<u64>) -> Budget {
        Budget {
            max,
            ..Budget::default()
        }
    }

    /// Whether there is a budget at all.
    pub(super) fn limited(&self) -> bool {
        self.max.is_some()
    }

    /// Whether another test run is allowed.
    pub(super) fn left(&self) -> bool {
        self.max.is_none_or(|max| self.started < max)
    }

    /// Whether a speculative run may start: never more runs than the budget, and (so that the
    /// result is the serial run's whatever -j is) never a run the serial chain could not
    /// charge: while one runs uncharged, nothing else starts.
    pub(super) fn may_start(&self) -> bool {
        self.max
            .is_none_or(|max| self.started < max && self.started <= self.charged)
    }

    /// A run of a candidate started (it is charged when the chain reaches it).
    pub(super) fn started(&mut self) {
        self.started += 1;
    }

    /// A run that waits for itself alone started: charged at once.
    pub(super) fn serial_run(&mut self) {
        self.started += 1;
        self.charged += 1;
    }

    /// `ticket`'s candidate has the content `key`.
    pub(super) fn begun(&mut self, ticket: Ticket, key: u128) {
        self.keys.insert(ticket, key);
    }

    /// `ticket`'s candidate will not be charged (pruned or dropped before the chain).
    pub(super) fn forget(&mut self, ticket: Ticket) {
        self.keys.remove(&ticket);
    }

    /// `ticket`'s verdict was known without a test: free when the chain reaches it.
    pub(super) fn skip(&mut self, ticket: Ticket) {
        self.pruned.insert(ticket);
    }

    /// `key`'s verdict is the chain's already (the original's): its cache hits are free.
    pub(super) fn seen(&mut self, key: u128) {
        self.seen.insert(key);
    }

    /// The serial chain uses `ticket`'s verdict: charge it as the serial run would have
    /// (`cached`: the run keeps a verdict cache, so a repeat of a charged key is free).
    /// `false`: the budget is spent.
    pub(super) fn charge(&mut self, ticket: Ticket, cached: bool) -> bool {
        if self.pruned.remove(&ticket) {
            return true;
        }
        let key = self.keys.remove(&ticket);
        if cached && key.is_some_and(|k| self.seen.contains(&k)) {
            return true;
        }
        if self.max.is_some_and(|max| self.charged >= max) {
            return false;
        }
        self.charged += 1;
        if let (Some(k), true) = (key, cached) {
            self.seen.insert(k);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeat_and_a_skip_are_free_and_the_budget_stops_at_its_bound() {
        let mut b = Budget::new(Some(2));
        b.begun(1, 10);
        b.started();
        assert!(b.charge(1, true));
        b.begun(2, 10);
        assert!(b.charge(2, true), "a repeat of a charged key is free");
        b.skip(3);
        assert!(b.charge(3, true), "a pruned candidate is free");
        b.begun(4, 11);
        b.started();
        assert!(b.charge(4, true));
        assert!(!b.left() && !b.may_start());
        b.begun(5, 12);
        assert!(!b.charge(5, true), "spent");
    }

    #[test]
    fn nothing_starts_while_a_run_is_uncharged() {
        let mut b = Budget::new(Some(10));
        assert!(b.may_start());
        b.started();
        assert!(!b.may_start(), "a run is under way uncharged");
        b.begun(1, 7);
        assert!(b.charge(1, true));
        assert!(b.may_start());
        assert!(Budget::new(None).may_start());
    }
}
