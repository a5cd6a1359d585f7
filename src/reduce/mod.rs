//! The generic reduction frame of the specification (`seeds/002`): atomic units, a configuration
//! (the units kept), an oracle with a two-valued verdict, one `reduce` loop and the `Policy` trait.
//!
//! Units are `u32` indices in source order (lines, chars, tree tokens, or tree nodes for an inner
//! minimizer). A configuration is a sorted, duplicate-free `Vec<u32>`; a delta is a sorted,
//! non-empty subset of it. No I/O, clap or progress bars here: everything is testable in-process.

pub mod bytes;
pub mod ddmin;
pub mod hdd;
pub mod perses;

/// One atomic unit: an index in source order.
pub type Unit = u32;

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

/// Judges a candidate configuration.
///
/// `test` is required. `on_pass` hears the policy's phase. `stop_requested` lets the oracle end the run early (Ctrl-C, an attempt
/// budget): the loop then returns the best configuration it has, which is always interesting.
pub trait Oracle {
    fn test(&mut self, candidate: &[Unit]) -> Verdict;

    fn stop_requested(&self) -> bool {
        false
    }

    /// Told what the policy is doing at the start of each pass (for progress displays).
    fn on_pass(&mut self, _phase: &str) {}
}

/// Wraps a closure as an [`Oracle`]; used by the tests and the spec's vectors.
pub struct FnOracle<F>(pub F);

impl<F: FnMut(&[Unit]) -> bool> Oracle for FnOracle<F> {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        Verdict::from_bool((self.0)(candidate))
    }
}

/// An iterator of candidate deltas, generated lazily.
pub type Deltas<'a> = Box<dyn Iterator<Item = Vec<Unit>> + 'a>;

/// Everything algorithm-specific: what to propose and when to stop.
///
/// - `propose` (required) yields candidate deltas *lazily*: the loop stops pulling at the first
///   interesting candidate, so a stateful policy only learns from confirmed failures. Every delta
///   must be a non-empty, sorted subset of `config`.
/// - `on_reduced` is told the pass's outcome: `Some(new config)` if a candidate was committed,
///   `None` if no candidate was interesting. It returns `true` to run another pass. The default
///   stops at the fixpoint.
/// - `phase` names what the policy is doing, for progress displays.
pub trait Policy {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a>;

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        reduced.is_some()
    }

    fn phase(&self) -> String {
        String::new()
    }
}

/// `config - delta` for sorted slices (delta a subset of config), in one merge.
pub fn subtract(config: &[Unit], delta: &[Unit]) -> Vec<Unit> {
    let mut out = Vec::with_capacity(config.len().saturating_sub(delta.len()));
    let mut d = delta.iter().peekable();
    for &u in config {
        while d.peek().is_some_and(|&&x| x < u) {
            d.next();
        }
        if d.peek() == Some(&&u) {
            d.next();
        } else {
            out.push(u);
        }
    }
    out
}

/// The one loop of the specification: try the policy's candidates in its order, commit the
/// first interesting one, tell the policy the pass's outcome, repeat while it says so.
///
/// The returned configuration is the last committed one (or `units` itself), so it is interesting
/// whenever `units` was. It stops early, with that configuration, when the oracle asks to.
pub fn reduce(units: Vec<Unit>, oracle: &mut dyn Oracle, policy: &mut dyn Policy) -> Vec<Unit> {
    let mut config = units;
    loop {
        let mut reduced = None;
        oracle.on_pass(&policy.phase());
        for delta in policy.propose(&config) {
            assert!(!delta.is_empty(), "a policy proposed an empty delta");
            if oracle.stop_requested() {
                break;
            }
            let candidate = subtract(&config, &delta);
            if oracle.test(&candidate) == Verdict::Interesting {
                reduced = Some(candidate);
                break;
            }
        }
        let keep_going = policy.on_reduced(reduced.as_deref());
        if let Some(candidate) = reduced {
            config = candidate;
        }
        if !keep_going || oracle.stop_requested() {
            return config;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtract_removes_exactly_the_delta() {
        assert_eq!(subtract(&[1, 2, 3, 5, 8], &[2, 5]), [1, 3, 8]);
        assert_eq!(subtract(&[1, 2, 3], &[1, 2, 3]), Vec::<Unit>::new());
        assert_eq!(subtract(&[4, 9], &[]), [4, 9]);
    }
}
