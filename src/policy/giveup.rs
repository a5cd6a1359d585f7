//! A give-up rule around any policy: stop after `limit` candidates in a row were rejected.
//! Counted from the loop's own facts (the index of the committed candidate, or every candidate
//! of a failed pass), never from arrival order, so the result is the same for every `-j`.

use std::cell::Cell;
use std::rc::Rc;

use super::{Deltas, Policy, Unit};

pub struct GiveUp<P> {
    inner: P,
    limit: usize,
    /// Rejected candidates since the last success.
    failures: usize,
    /// Candidates proposed this pass (shared with the pass's iterator).
    pulled: Rc<Cell<usize>>,
    won: Option<usize>,
}

impl<P: Policy> GiveUp<P> {
    /// `limit: None` never gives up (`--thorough`).
    pub fn new(inner: P, limit: Option<usize>) -> Self {
        GiveUp {
            inner,
            limit: limit.unwrap_or(usize::MAX),
            failures: 0,
            pulled: Rc::default(),
            won: None,
        }
    }

    /// Did the rule end the run (rather than the inner policy)?
    pub fn gave_up(&self) -> bool {
        self.failures >= self.limit
    }
}

/// A deep copy: the clone counts its own pulled candidates.
impl<P: Clone> Clone for GiveUp<P> {
    fn clone(&self) -> Self {
        GiveUp {
            inner: self.inner.clone(),
            limit: self.limit,
            failures: self.failures,
            pulled: Rc::new(Cell::new(self.pulled.get())),
            won: self.won,
        }
    }
}

impl<P: Policy + Clone> Policy for GiveUp<P> {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a> {
        self.pulled.set(0);
        self.won = None;
        let budget = self.limit.saturating_sub(self.failures);
        let pulled = self.pulled.clone();
        Box::new(self.inner.propose(config).take(budget).inspect(move |_| {
            pulled.set(pulled.get() + 1);
        }))
    }

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        match reduced {
            Some(_) => self.failures = self.won.unwrap_or(0),
            None => self.failures += self.pulled.get(),
        }
        self.inner.on_reduced(reduced) && !self.gave_up()
    }

    fn phase(&self) -> String {
        self.inner.phase()
    }

    fn candidates(&self, config: &[Unit]) -> Option<usize> {
        let budget = self.limit.saturating_sub(self.failures);
        self.inner.candidates(config).map(|n| n.min(budget))
    }

    fn accepted(&mut self, index: usize) {
        self.won = Some(index);
        self.inner.accepted(index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FnOracle, reduce};
    use crate::policy::ddmin::Sweep;

    #[test]
    fn gives_up_after_a_run_of_failures_and_keeps_what_it_found() {
        let mut calls = 0;
        // only units 0 and 1 can go; the rest must stay
        let mut oracle = FnOracle(|c: &[Unit]| {
            calls += 1;
            (2..50).all(|u| c.contains(&u))
        });
        let mut policy = GiveUp::new(Sweep::singles(), Some(10));
        let result = reduce((0..50).collect(), &mut oracle, &mut policy);
        assert_eq!(result, (2..50).collect::<Vec<Unit>>());
        assert!(policy.gave_up());
        assert_eq!(calls, 12);
    }

    #[test]
    fn without_a_limit_it_is_the_inner_policy() {
        let mut oracle = FnOracle(|c: &[Unit]| c.contains(&30));
        let mut policy = GiveUp::new(Sweep::singles(), None);
        assert_eq!(reduce((0..50).collect(), &mut oracle, &mut policy), [30]);
        assert!(!policy.gave_up());
    }
}
