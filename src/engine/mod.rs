//! The engine: the one loop of the specification (`reduce`, deciding a policy's candidates in
//! order), the oracle interface it asks, and everything that keeps several tests running on the
//! loop's most probable futures (`chain`, `odds`, `throttle`) while it still commits exactly what
//! the serial loop commits; the byte-level test pipeline (`tester`: cache, prefilter, pool).

pub mod chain;
pub mod edit_oracle;
pub mod odds;
pub mod pool;
pub mod prefilter;
pub mod shuffled;
pub mod tester;
pub mod throttle;

use std::rc::Rc;

use crate::policy::{Policy, Unit, Verdict};
pub use crate::tree::hints::Hint;

/// Names one test of one candidate; unique across the whole run (see [`new_ticket`]).
pub type Ticket = u64;

/// A fresh ticket, never handed out before in this process.
pub fn new_ticket() -> Ticket {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// What [`Runs::start`] did with a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Started {
    /// A test is running under the ticket; [`Runs::finish_one`] reports it.
    Running,
    /// The verdict is known at once (cache, prefilter, an in-process oracle).
    Known(Verdict),
    /// No verdict will come (the run is stopping): never learn this as a failure.
    Unknown,
}

/// What the loop asks of its oracle, in three parts: what runs the tests ([`Runs`]), what
/// predicts their outcome from the text ([`Predicts`]), and what hears the loop's progress
/// ([`Observes`]). Anything that has the three is an oracle.
pub trait Oracle: Runs + Predicts + Observes {}

impl<T: Runs + Predicts + Observes + ?Sized> Oracle for T {}

/// Runs the tests of candidate configurations. `test` is required: the rest serves the
/// speculation (above width 1) and the attempt budget, with serial defaults.
/// `stop_requested` lets the oracle end the run early (Ctrl-C, an attempt budget): the loop
/// then returns the best configuration it has, which is always interesting.
pub trait Runs {
    fn test(&mut self, candidate: &[Unit]) -> Verdict;

    fn stop_requested(&self) -> bool {
        false
    }

    /// How many tests may run at once. Above 1 the loop speculates along the serial chain (see
    /// `chain.rs`) and still commits exactly the candidates the serial run commits.
    fn width(&self) -> usize {
        1
    }

    /// How many tests may run now, at most [`Runs::width`]: fewer while the machine is
    /// saturated (`throttle.rs`). It never changes what the loop commits.
    fn room(&mut self) -> usize {
        self.width()
    }

    /// Starts testing `candidate` under `ticket`. `parent` is the ticket of the candidate whose
    /// commit this one assumes (a speculative success), `None` for the current configuration.
    fn start(&mut self, _ticket: Ticket, _parent: Option<Ticket>, candidate: &[Unit]) -> Started {
        Started::Known(self.test(candidate))
    }

    /// Waits for one running test: its ticket and verdict, `None` when the verdict is unknown
    /// (cancelled, interrupted). `None` overall: nothing is running.
    fn finish_one(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        None
    }

    /// Like [`Runs::finish_one`] but without waiting: a test that has already ended, if any.
    fn finished(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        None
    }

    /// These tickets' verdicts are no longer needed: stop their tests. Each still reports
    /// through `finish_one` (with an unknown verdict unless it finished first).
    fn cancel(&mut self, _tickets: &[Ticket]) {}

    /// The serial run reaches `ticket`'s candidate: charge it to the attempt budget (a cache hit
    /// or a pruned candidate is free, as it would have been serially). `false`: the budget is
    /// spent and the run stops without using the verdict, whatever `-j` is.
    fn charge(&mut self, _ticket: Ticket) -> bool {
        true
    }

    /// The candidate of `ticket` is committed: it is the new current configuration.
    fn commit(&mut self, _ticket: Ticket, _candidate: &[Unit]) {}
}

/// Predicts: what the text says about deleting `delta` from `config`, for the speculation's
/// odds (see `tree/hints.rs`); it never changes a verdict. The default knows nothing.
pub trait Predicts {
    fn hint(&mut self, _config: &[Unit], _delta: &[Unit]) -> Hint {
        Hint::default()
    }
}

/// Hears what the loop does, for progress displays.
pub trait Observes {
    /// What the policy is doing, at the start of each pass.
    fn on_pass(&mut self, _phase: &str) {}

    /// Before each candidate is decided: how many candidates the pass has left at most
    /// (`None`: the policy does not know), for an estimate of the pass's remaining time.
    fn on_left(&mut self, _left: Option<usize>) {}
}

/// Wraps a closure as an [`Oracle`]; used by the tests and the spec's vectors.
pub struct FnOracle<F>(pub F);

impl<F: FnMut(&[Unit]) -> bool> Runs for FnOracle<F> {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        Verdict::from_bool((self.0)(candidate))
    }
}

impl<F> Predicts for FnOracle<F> {}
impl<F> Observes for FnOracle<F> {}

/// The one loop of the specification: try the policy's candidates in its order, commit the
/// first interesting one, tell the policy the pass's outcome, repeat while it says so.
///
/// With `oracle.width()` above 1 the verdicts come from a [`chain::Chain`] that keeps that many
/// tests running on the most probable next steps of this very loop; the loop itself still
/// decides candidate after candidate in order, so it commits the same candidates for every width.
///
/// The returned configuration is the last committed one (or `units` itself), so it is interesting
/// whenever `units` was. It stops early, with that configuration, when the oracle asks to.
pub fn reduce(units: Vec<Unit>, oracle: &mut dyn Oracle, policy: &mut dyn Policy) -> Vec<Unit> {
    let mut config: Rc<[Unit]> = units.into();
    let mut chain = chain::Chain::new(oracle.width());
    crate::report::trace::event('B', config.len());
    loop {
        oracle.on_pass(&policy.phase());
        let reduced = pass(&config, oracle, policy, &mut chain);
        if let Some((index, _)) = &reduced {
            policy.accepted(*index);
        }
        let keep_going = policy.on_reduced(reduced.as_ref().map(|(_, c)| &**c));
        if let Some((_, candidate)) = reduced {
            config = candidate;
        }
        if !keep_going || oracle.stop_requested() {
            chain.finish(oracle);
            return config.to_vec();
        }
    }
}

/// One pass: decide the policy's candidates in order; the first interesting one is committed
/// and returned with its index.
fn pass<'p>(
    config: &Rc<[Unit]>,
    oracle: &mut dyn Oracle,
    policy: &mut (dyn Policy + 'p),
    chain: &mut chain::Chain<'p>,
) -> Option<(usize, Rc<[Unit]>)> {
    let total = policy.candidates(config);
    chain.begin_pass(config, policy);
    let mut deltas = policy.propose(config);
    for index in 0.. {
        if oracle.stop_requested() {
            break;
        }
        oracle.on_left(total.map(|t| t.saturating_sub(index)));
        match chain.decide(index, &mut deltas, oracle) {
            Some(Verdict::Interesting) => {
                let (ticket, candidate) = chain.commit(index, oracle);
                oracle.commit(ticket, &candidate);
                return Some((index, candidate));
            }
            Some(Verdict::NotInteresting) => {}
            None => break,
        }
    }
    chain.end_pass(oracle);
    None
}
