//! The generic reduction frame of the specification (`seeds/002`): atomic units, a configuration
//! (the units kept), an oracle with a two-valued verdict, one `reduce` loop and the `Policy` trait.
//!
//! Units are `u32` indices in source order (lines, chars, tree tokens, or tree nodes for an inner
//! minimizer). A configuration is a sorted, duplicate-free `Vec<u32>`; a delta is a sorted,
//! non-empty subset of it. No I/O, clap or progress bars here: everything is testable in-process.

pub mod bytes;
pub mod ddmin;
pub mod giveup;
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

    /// How many candidates may be tested at once. Above 1 the loop speculates: it starts the
    /// next candidates of the pass together and commits the first success *in proposal order*,
    /// so the result does not depend on the width.
    fn width(&self) -> usize {
        1
    }

    /// Starts testing `candidate` under `ticket`; `Some` when the verdict is known at once.
    fn start(&mut self, _ticket: u64, candidate: &[Unit]) -> Option<Verdict> {
        Some(self.test(candidate))
    }

    /// Waits for one started test to finish: its ticket and verdict (`None`: nothing running).
    fn finish_one(&mut self) -> Option<(u64, Verdict)> {
        None
    }

    /// These tickets' verdicts are no longer needed: stop their tests.
    fn cancel(&mut self, _tickets: &[u64]) {}

    /// The candidate of `ticket` is committed: it is the new current configuration.
    fn commit(&mut self, _ticket: u64, _candidate: &[Unit]) {}
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

    /// Before `on_reduced(Some(..))`: the committed candidate was the `index`-th (from 0) this
    /// pass proposed. Candidates proposed after it were not (all) tested. Policies that learn
    /// from which candidate won use this instead of "the last one pulled".
    fn accepted(&mut self, _index: usize) {}
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
    let mut odds = SuccessRate::default();
    loop {
        oracle.on_pass(&policy.phase());
        let reduced = if oracle.width() > 1 && odds.worth_speculating() {
            parallel_pass(&config, oracle, policy)
        } else {
            serial_pass(&config, oracle, policy)
        };
        odds.record(reduced.as_ref().map_or(usize::MAX, |(i, _)| *i));
        if let Some((index, _)) = &reduced {
            policy.accepted(*index);
        }
        let keep_going = policy.on_reduced(reduced.as_ref().map(|(_, c)| c.as_slice()));
        if let Some((_, candidate)) = reduced {
            config = candidate;
        }
        if !keep_going || oracle.stop_requested() {
            return config;
        }
    }
}

/// How often the candidates of recent passes were interesting. With two workers and success
/// rate p, a speculative pass costs about 2/(2-p) times the test runs of a serial pass and takes
/// 1/(2-p) of its time; above p = 1/4 the extra runs (14% and more) are not worth it, so the
/// loop tests one candidate at a time until failures are common again. Results do not change:
/// only when tests run does.
#[derive(Default)]
struct SuccessRate {
    /// Exponentially weighted successes and candidates.
    successes: f64,
    candidates: f64,
}

impl SuccessRate {
    /// `winner`: index of the committed candidate, or `usize::MAX` when the pass failed.
    fn record(&mut self, winner: usize) {
        const DECAY: f64 = 0.9;
        let (s, c) = match winner {
            usize::MAX => (0.0, 8.0), // a failed pass: many failures (count conservatively)
            i => (1.0, (i + 1) as f64),
        };
        self.successes = self.successes * DECAY + s;
        self.candidates = self.candidates * DECAY + c;
    }

    fn worth_speculating(&self) -> bool {
        self.candidates < 4.0 || self.successes / self.candidates < 0.25
    }
}

/// One pass, one candidate at a time: the first interesting candidate and its index.
fn serial_pass(
    config: &[Unit],
    oracle: &mut dyn Oracle,
    policy: &mut dyn Policy,
) -> Option<(usize, Vec<Unit>)> {
    for (index, delta) in policy.propose(config).enumerate() {
        assert!(!delta.is_empty(), "a policy proposed an empty delta");
        if oracle.stop_requested() {
            return None;
        }
        let candidate = subtract(config, &delta);
        if oracle.test(&candidate) == Verdict::Interesting {
            oracle.commit(index as u64, &candidate);
            return Some((index, candidate));
        }
    }
    None
}

/// At most this many proposed candidates wait in the window (most have known verdicts).
const MAX_WINDOW: usize = 256;

struct Slot {
    ticket: u64,
    candidate: Vec<Unit>,
    verdict: Option<Verdict>,
}

/// The tickets of the window still waiting for a verdict.
fn pending(window: &std::collections::VecDeque<Slot>) -> Vec<u64> {
    window
        .iter()
        .filter(|s| s.verdict.is_none())
        .map(|s| s.ticket)
        .collect()
}

/// One pass with up to `oracle.width()` tests in flight. Candidates are proposed in order into
/// a window; the front is committed once its verdict is known and interesting, or dropped once
/// known and not; later runs are cancelled when an earlier candidate wins.
fn parallel_pass(
    config: &[Unit],
    oracle: &mut dyn Oracle,
    policy: &mut dyn Policy,
) -> Option<(usize, Vec<Unit>)> {
    let width = oracle.width();
    let mut deltas = policy.propose(config).fuse();
    let mut window: std::collections::VecDeque<Slot> = Default::default();
    let (mut next_ticket, mut front_index, mut running) = (0u64, 0usize, 0usize);
    let mut success_seen = false;
    loop {
        while let Some(front) = window.front() {
            match front.verdict {
                Some(Verdict::NotInteresting) => {
                    window.pop_front();
                    front_index += 1;
                }
                Some(Verdict::Interesting) => {
                    let won = window.pop_front().expect("front exists");
                    oracle.cancel(&pending(&window));
                    oracle.commit(won.ticket, &won.candidate);
                    return Some((front_index, won.candidate));
                }
                None => break,
            }
        }
        if oracle.stop_requested() {
            oracle.cancel(&pending(&window));
            return None;
        }
        // fill: keep every worker busy, but never pull past a known success
        while running < width && window.len() < MAX_WINDOW && !success_seen {
            let Some(delta) = deltas.next() else { break };
            assert!(!delta.is_empty(), "a policy proposed an empty delta");
            let candidate = subtract(config, &delta);
            let ticket = next_ticket;
            next_ticket += 1;
            let verdict = oracle.start(ticket, &candidate);
            running += verdict.is_none() as usize;
            success_seen |= verdict == Some(Verdict::Interesting);
            window.push_back(Slot {
                ticket,
                candidate,
                verdict,
            });
            if verdict.is_some() && window.len() == 1 {
                break; // the front is decided: handle it before pulling more
            }
        }
        if window.front().is_some_and(|s| s.verdict.is_some()) {
            continue;
        }
        if window.is_empty() {
            return None; // the policy has nothing more
        }
        let Some((ticket, verdict)) = oracle.finish_one() else {
            return None; // nothing running yet nothing decided: the oracle gave up
        };
        running -= 1;
        if let Some(slot) = window.iter_mut().find(|s| s.ticket == ticket) {
            slot.verdict = Some(verdict);
            success_seen |= verdict == Verdict::Interesting;
        }
    }
}

/// Restricts an inner policy to a subset of the units (say, the comment tokens): it sees and
/// deletes only those, whatever else the configuration holds.
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

    /// `config ∩ units`, both sorted: one linear merge.
    fn restrict(&self, config: &[Unit]) -> Vec<Unit> {
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < config.len() && j < self.units.len() {
            match config[i].cmp(&self.units[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    out.push(config[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        out
    }
}

impl<P: Policy> Policy for Only<P> {
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
