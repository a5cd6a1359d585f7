//! The generic reduction frame of the specification (`seeds/002`): atomic units, a configuration
//! (the units kept), an oracle with a two-valued verdict, one `reduce` loop and the `Policy` trait.
//!
//! Units are `u32` indices in source order (lines, chars, tree tokens, or tree nodes for an inner
//! minimizer). A configuration is a sorted, duplicate-free `Vec<u32>`; a delta is a sorted,
//! non-empty subset of it. No I/O, clap or progress bars here: everything is testable in-process.

pub mod bytes;
pub mod chain;
pub mod closure;
pub mod ddmin;
pub mod giveup;
pub mod hdd;
pub mod odds;
pub mod perses;
pub mod recall;
pub mod shuffled;
pub mod until;

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

/// Names one test of one candidate; unique across the whole run (see [`new_ticket`]).
pub type Ticket = u64;

/// A fresh ticket, never handed out before in this process.
pub fn new_ticket() -> Ticket {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// What [`Oracle::start`] did with a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Started {
    /// A test is running under the ticket; [`Oracle::finish_one`] reports it.
    Running,
    /// The verdict is known at once (cache, prefilter, an in-process oracle).
    Known(Verdict),
    /// No verdict will come (the run is stopping): never learn this as a failure.
    Unknown,
}

/// What [`Oracle::prefetch`] did with a candidate of the loop's next call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefetched {
    /// A test of it runs under this ticket (no candidate of this call will wait for it).
    Started(Ticket),
    /// Nothing to run: its verdict is known or a test of it already runs.
    Skipped,
    /// No such candidate, or no prefetching now.
    Exhausted,
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

    /// Told, before each candidate is decided, how many candidates the pass has left at most
    /// (`None`: the policy does not know), for an estimate of the pass's remaining time.
    fn on_left(&mut self, _left: Option<usize>) {}

    /// How many tests may run at once. Above 1 the loop speculates along the serial chain (see
    /// `chain.rs`) and still commits exactly the candidates the serial run commits.
    fn width(&self) -> usize {
        1
    }

    /// How many tests may run now, at most [`Oracle::width`]: fewer while the machine is
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
    /// (cancelled, interrupted). `None` overall: nothing is running. A ticket the caller never
    /// started (with no verdict) says a worker came free: a run of the original's check ended.
    fn finish_one(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        None
    }

    /// Like [`Oracle::finish_one`] but without waiting: a test that has already ended, if any.
    fn finished(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        None
    }

    /// These tickets' verdicts are no longer needed: stop their tests. Each still reports
    /// through `finish_one` (with an unknown verdict unless it finished first).
    fn cancel(&mut self, _tickets: &[Ticket]) {}

    /// These prefetched tests were made for endings that can no longer happen, but a candidate
    /// of the same bytes may still come (bulk deletions from two endings often agree, and the
    /// call after next may begin with them): they go on, for a later candidate to take over,
    /// until a plan wants their workers ([`Oracle::drop_released`]). The default stops them at
    /// once.
    fn release(&mut self, tickets: &[Ticket]) {
        self.cancel(tickets);
    }

    /// A plan ran out of room: stop the released tests no candidate took over.
    fn drop_released(&mut self) {}

    /// The serial run reaches `ticket`'s candidate: charge it to the attempt budget (a cache hit
    /// or a pruned candidate is free, as it would have been serially). `false`: the budget is
    /// spent and the run stops without using the verdict, whatever `-j` is.
    fn charge(&mut self, _ticket: Ticket) -> bool {
        true
    }

    /// The candidate of `ticket` is committed: it is the new current configuration.
    fn commit(&mut self, _ticket: Ticket, _candidate: &[Unit]) {}

    /// Starts a test of the `k`-th candidate (from 0) that the next call of the loop would try
    /// if this call ended with `config` (see `chain.rs`): its verdict only warms the cache, and
    /// the next call's candidate of the same bytes takes the test over. The default knows no
    /// next call.
    fn prefetch(&mut self, _config: &[Unit], _k: usize) -> Prefetched {
        Prefetched::Exhausted
    }

    /// Every worker is busy and none with this call's tests: cancel one prefetched test that no
    /// candidate took. `false`: there is none.
    fn shed(&mut self) -> bool {
        false
    }

    /// What the text says about deleting `delta` from `config`, for the speculation's odds
    /// (see `tree/hints.rs`); it never changes a verdict. The default when the oracle knows
    /// nothing.
    fn hint(&mut self, _config: &[Unit], _delta: &[Unit]) -> Hint {
        Hint::default()
    }
}

/// What an oracle can tell about a deletion from the text alone, before any test: the odds
/// (`odds.rs`) learn how much each part says, per run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hint {
    /// How the deletion treats the names it holds (`tree/hints.rs`): a small category.
    pub names: u8,
    /// Hashes of four token texts: the first and last deleted tokens, and the present tokens
    /// just before and after the deletion (0: none, or unknown).
    pub words: [u64; 4],
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
///   must be a non-empty, sorted subset of `config`. It must be a function of the policy's state
///   and `config` only: the same state proposes the same deltas.
/// - `on_reduced` is told the pass's outcome: `Some(new config)` if a candidate was committed,
///   `None` if no candidate was interesting. It returns `true` to run another pass. The default
///   stops at the fixpoint.
/// - `phase` names what the policy is doing, for progress displays.
/// - `fork` copies the policy's state (deeply: nothing shared with the original), so that the
///   loop can ask "what would you propose next if this candidate succeeded" without touching
///   the real policy: it replays a pass on the fork up to that candidate, then `accepted` and
///   `on_reduced`. `None` (the default) means the loop only looks ahead within a pass.
pub trait Policy {
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

    /// An independent copy of this policy's state, or `None` if it cannot be copied.
    fn fork<'p>(&self) -> Option<Box<dyn Policy + 'p>>
    where
        Self: 'p,
    {
        None
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
/// With `oracle.width()` above 1 the verdicts come from a [`chain::Chain`] that keeps that many
/// tests running on the most probable next steps of this very loop; the loop itself still
/// decides candidate after candidate in order, so it commits the same candidates for every width.
///
/// The returned configuration is the last committed one (or `units` itself), so it is interesting
/// whenever `units` was. It stops early, with that configuration, when the oracle asks to.
pub fn reduce(units: Vec<Unit>, oracle: &mut dyn Oracle, policy: &mut dyn Policy) -> Vec<Unit> {
    let mut config = units;
    let mut chain = chain::Chain::new(oracle.width());
    crate::trace::event('B', config.len());
    loop {
        oracle.on_pass(&policy.phase());
        let reduced = pass(&config, oracle, policy, &mut chain);
        if let Some((index, _)) = &reduced {
            policy.accepted(*index);
        }
        let keep_going = policy.on_reduced(reduced.as_ref().map(|(_, c)| c.as_slice()));
        if let Some((_, candidate)) = reduced {
            config = candidate;
        }
        if !keep_going || oracle.stop_requested() {
            chain.finish(oracle, &config);
            return config;
        }
    }
}

/// One pass: decide the policy's candidates in order; the first interesting one is committed
/// and returned with its index.
fn pass<'p>(
    config: &[Unit],
    oracle: &mut dyn Oracle,
    policy: &mut (dyn Policy + 'p),
    chain: &mut chain::Chain<'p>,
) -> Option<(usize, Vec<Unit>)> {
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
    fn fork<'p>(&self) -> Option<Box<dyn Policy + 'p>>
    where
        Self: 'p,
    {
        Some(Box::new(self.clone()))
    }

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
