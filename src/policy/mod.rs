//! The reduction algorithms of the specification (`seeds/002`): what to propose and when to stop,
//! as [`Policy`] values (ddmin, sweeps, HDD, Perses, keep-closure, ...); the loop that asks the
//! oracle about their candidates is `crate::engine::reduce`. A configuration is the units kept.
//!
//! Units are `u32` indices in source order (lines, chars, tree tokens, or tree nodes for an inner
//! minimizer). A configuration is a sorted, duplicate-free `Vec<u32>`; a delta is a sorted,
//! non-empty subset of it. No I/O, clap or progress bars here: everything is testable in-process.

pub mod args;
pub mod bytes;
pub mod closure;
pub mod ddmin;
pub mod giveup;
pub mod hdd;
pub mod perses;
pub mod recall;
pub mod until;

pub use crate::tree::Unit;

/// The oracle's two-valued answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Still triggers the bug: the loop may commit this candidate.
    Interesting,
    /// Does not trigger the bug, is invalid, timed out or was skipped.
    NotInteresting,
}

impl Verdict {
    pub fn from_bool(interesting: bool) -> Verdict {
        if interesting {
            Verdict::Interesting
        } else {
            Verdict::NotInteresting
        }
    }
}

/// An iterator of candidate deltas, generated lazily.
pub type Deltas<'a> = Box<dyn Iterator<Item = Vec<Unit>> + 'a>;

/// Everything algorithm-specific: what to propose and when to stop.
///
/// - `propose` (required) yields candidate deltas *lazily*: the loop stops pulling at the first
///   interesting candidate, so a stateful policy only learns from confirmed failures. Every delta
///   must be a non-empty, sorted subset of `config`. It must be a function of the policy's state
///   and `config` only: the same state proposes the same deltas.
/// - `on_reduced` is told the pass's outcome: `Some(new config)` if a candidate was committed,
///   `None` if no candidate was interesting. It returns `true` to run another pass. The default
///   stops at the fixpoint.
/// - `phase` names what the policy is doing, for progress displays.
/// - [`Fork`] (every `Clone` policy has it) copies the policy's state for the speculation: it
///   replays a pass on the fork up to a candidate, then `accepted` and `on_reduced`.
pub trait Policy: Fork {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a>;

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        reduced.is_some()
    }

    fn phase(&self) -> String {
        String::new()
    }

    /// How many candidates `propose(config)` would yield at most, if the policy knows without
    /// generating them (for progress displays only).
    fn candidates(&self, _config: &[Unit]) -> Option<usize> {
        None
    }

    /// Before `on_reduced(Some(..))`: the committed candidate was the `index`-th (from 0) this
    /// pass proposed. Candidates proposed after it were not (all) tested. Policies that learn
    /// from which candidate won use this instead of "the last one pulled".
    fn accepted(&mut self, _index: usize) {}
}

/// An independent copy of a policy's state (deeply: nothing shared with the original), so that
/// the speculation can ask "what would you propose next if this candidate succeeded" without
/// touching the real policy (`engine/chain.rs`). Every `Clone` policy has it.
pub trait Fork {
    fn fork<'p>(&self) -> Box<dyn Policy + 'p>
    where
        Self: 'p;
}

impl<T: Policy + Clone> Fork for T {
    fn fork<'p>(&self) -> Box<dyn Policy + 'p>
    where
        Self: 'p,
    {
        Box::new(self.clone())
    }
}

/// `a ∩ b` for sorted slices, in one merge.
pub fn intersect(a: &[Unit], b: &[Unit]) -> Vec<Unit> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// `config - delta` for sorted slices (delta a subset of config), in one merge.
pub fn subtract(config: &[Unit], delta: &[Unit]) -> Vec<Unit> {
    subtract_sorted(config, delta.len(), delta.iter().copied())
}

/// [`subtract`] with the delta as a sorted iterator of its `len` units.
pub fn subtract_sorted(
    config: &[Unit],
    len: usize,
    delta: impl Iterator<Item = Unit>,
) -> Vec<Unit> {
    let mut out = Vec::with_capacity(config.len().saturating_sub(len));
    let mut d = delta.peekable();
    for &u in config {
        while d.peek().is_some_and(|&x| x < u) {
            d.next();
        }
        if d.peek() == Some(&u) {
            d.next();
        } else {
            out.push(u);
        }
    }
    out
}

/// Restricts an inner policy to a subset of the units (say, the comment tokens): it sees and
/// deletes only those, whatever else the configuration holds.
#[derive(Clone)]
pub struct Only<P> {
    units: Vec<Unit>,
    inner: P,
    view: Vec<Unit>,
}

impl<P: Policy> Only<P> {
    /// `units` must be sorted.
    pub fn new(units: Vec<Unit>, inner: P) -> Self {
        Only {
            units,
            inner,
            view: Vec::new(),
        }
    }

    /// `config ∩ units`, both sorted.
    fn restrict(&self, config: &[Unit]) -> Vec<Unit> {
        intersect(config, &self.units)
    }
}

impl<P: Policy + Clone> Policy for Only<P> {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a> {
        self.view = self.restrict(config);
        self.inner.propose(&self.view)
    }

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        let view = reduced.map(|c| self.restrict(c));
        self.inner.on_reduced(view.as_deref())
    }

    fn phase(&self) -> String {
        self.inner.phase()
    }

    fn candidates(&self, config: &[Unit]) -> Option<usize> {
        self.inner.candidates(&self.restrict(config))
    }

    fn accepted(&mut self, index: usize) {
        self.inner.accepted(index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FnOracle, reduce};

    #[test]
    fn only_deletes_within_its_subset() {
        let odd: Vec<Unit> = (0..20).filter(|u| u % 2 == 1).collect();
        let mut oracle = FnOracle(|c: &[Unit]| c.contains(&7));
        let result = reduce(
            (0..20).collect(),
            &mut oracle,
            &mut Only::new(odd, ddmin::Sweep::new()),
        );
        let expected: Vec<Unit> = (0..20).filter(|u| u % 2 == 0 || *u == 7).collect();
        assert_eq!(result, expected);
    }

    #[test]
    fn subtract_removes_exactly_the_delta() {
        assert_eq!(subtract(&[1, 2, 3, 5, 8], &[2, 5]), [1, 3, 8]);
        assert_eq!(subtract(&[1, 2, 3], &[1, 2, 3]), Vec::<Unit>::new());
        assert_eq!(subtract(&[4, 9], &[]), [4, 9]);
    }
}
