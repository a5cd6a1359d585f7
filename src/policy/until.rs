//! A size goal around any policy: end the loop as soon as a committed configuration has at most
//! `target` units, so that the driver can run other passes (the bulk deletions by name, which a
//! smaller program often opens up) before a long deletion round goes on. Decided in
//! `on_reduced`, in commit order, so the result is the same for every `-j`.

use super::{Deltas, Policy, Unit};

#[derive(Clone)]
pub struct Until<P> {
    inner: P,
    target: usize,
    reached: bool,
}

impl<P: Policy> Until<P> {
    /// `target: 0` never ends the loop early.
    pub fn new(inner: P, target: usize) -> Self {
        Until {
            inner,
            target,
            reached: false,
        }
    }

    /// The policy inside.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    /// Did the goal end the loop (rather than the inner policy)?
    pub fn reached(&self) -> bool {
        self.reached
    }
}

impl<P: Policy + Clone> Policy for Until<P> {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a> {
        self.inner.propose(config)
    }

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        let go = self.inner.on_reduced(reduced);
        if reduced.is_some_and(|c| c.len() <= self.target) {
            self.reached = true;
            return false;
        }
        go
    }

    fn phase(&self) -> String {
        self.inner.phase()
    }

    fn candidates(&self, config: &[Unit]) -> Option<usize> {
        self.inner.candidates(config)
    }

    fn accepted(&mut self, index: usize) {
        self.inner.accepted(index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FnOracle, reduce};
    use crate::policy::ddmin::Sweep;

    #[test]
    fn stops_at_the_first_commit_at_or_below_the_target() {
        let mut oracle = FnOracle(|c: &[Unit]| c.contains(&3));
        let mut until = Until::new(Sweep::new(), 6);
        let result = reduce((0..16).collect(), &mut oracle, &mut until);
        assert!(until.reached());
        // the whole list fails, then 8..16 goes (8 units left, above the target), then 4..8
        assert_eq!(result, vec![0, 1, 2, 3]);
        let mut oracle = FnOracle(|c: &[Unit]| c.contains(&3));
        let mut until = Until::new(Sweep::new(), 0);
        assert_eq!(reduce((0..16).collect(), &mut oracle, &mut until), vec![3]);
        assert!(!until.reached());
    }
}
