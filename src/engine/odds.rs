//! The speculation's small model (see `chain.rs`): how likely a candidate is to succeed.
//!
//! Two sources. [`Odds`] learns success rates from the chain's decisions per context: the kind
//! of pass, the candidate's place in it, how much it removes and the oracle's [`Hint`], and
//! corrects them by the texts at the deletion's edges. [`Twins`] knows what happened
//! to the same deletion elsewhere in the tree of futures: after a success a list sweep goes on
//! where it was, so the next pass proposes the very deletions the failed branch of this pass
//! tests (the same units removed, from a configuration one step apart), and they mostly get the
//! same verdict. That turns the pass after a success from a guess into a near certainty.

use std::collections::HashMap;

use super::{Hint, Ticket, Unit, Verdict};

/// What the same deletion got elsewhere: nothing known, failed, succeeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Twin {
    Unknown,
    Failed,
    Succeeded,
}

/// A key for what a candidate removes (its delta).
pub fn delta_key(delta: &[Unit]) -> u64 {
    delta.iter().fold(0xcbf2_9ce4_8422_2325, |h: u64, &u| {
        (h ^ u64::from(u)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Verdicts by delta key, with the ticket each came from (a candidate is no twin of itself).
#[derive(Default)]
pub struct Twins {
    by_delta: HashMap<u64, Vec<(Ticket, Verdict)>>,
    /// The delta key of each ticket started and not yet heard.
    pending: HashMap<Ticket, u64>,
}

/// Forget every twin beyond this many deltas (a bound on memory; only odds suffer).
const MAX_TWINS: usize = 1 << 16;

impl Twins {
    pub fn started(&mut self, ticket: Ticket, delta: u64) {
        self.pending.insert(ticket, delta);
    }

    /// A test ended: remember its verdict under its delta (`None`: unknown, forgotten).
    pub fn heard(&mut self, ticket: Ticket, verdict: Option<Verdict>) {
        let Some(delta) = self.pending.remove(&ticket) else {
            return;
        };
        let Some(verdict) = verdict else {
            return;
        };
        if self.by_delta.len() >= MAX_TWINS {
            self.by_delta.clear();
        }
        let seen = self.by_delta.entry(delta).or_default();
        seen.retain(|&(t, _)| t != ticket);
        seen.push((ticket, verdict));
    }

    /// What the latest other test of the same delta got.
    pub fn of(&self, ticket: Ticket, delta: u64) -> Twin {
        let latest = self.by_delta.get(&delta).and_then(|seen| {
            seen.iter()
                .rev()
                .find(|&&(t, _)| t != ticket)
                .map(|&(_, v)| v)
        });
        match latest {
            None => Twin::Unknown,
            Some(Verdict::Interesting) => Twin::Succeeded,
            Some(Verdict::NotInteresting) => Twin::Failed,
        }
    }
}

/// What the odds know of a candidate before its test.
#[derive(Clone, Copy, Debug)]
pub struct Traits {
    /// The kind of pass (its phase without numbers, interned).
    pub kind: u32,
    /// The candidate's place in its pass.
    pub index: usize,
    /// How many units it removes.
    pub removed: usize,
    pub twin: Twin,
    pub hint: Hint,
}

/// Success rates learned from the chain's decisions per context: the kind of pass, the
/// candidate's place in it (first, second, later), its twin's verdict, the hint's names and,
/// finest, how much it removes (by powers of two). Contexts differ a lot: a Perses replacement
/// rarely succeeds, the first candidate of a sweep that just succeeded often does, a deletion
/// that failed one step away usually fails again.
///
/// A context's rate is then corrected by the texts at the deletion's edges ([`Hint::words`]),
/// an online logistic regression on the rate's log-odds: one weight per edge and text, and per
/// edge, text and the hint's names, shared by every kind of pass. Deleting `typedef ... ;` or
/// `struct` mostly fails and deleting `*` or `( ... )` mostly succeeds, whatever the pass; so
/// across passes, a text says what the contexts alone cannot.
#[derive(Default)]
pub struct Odds {
    /// Smoothed (successes, candidates) per context, coarse (size `u8::MAX`) and fine.
    by_context: HashMap<Context, (f64, f64)>,
    /// The same over all contexts with the same twin: the prior of a context seen rarely.
    /// Per twin, because a twin says more than any context: a deletion that succeeded elsewhere
    /// almost always succeeds again, and there are too few of them per context to learn that
    /// there.
    overall: [(f64, f64); 3],
    /// The correction's weight per (edge, text hash), and of the contexts' log-odds (over 1).
    by_edge: HashMap<(u8, u64), f64>,
    scale: f64,
}

type Context = (u32, u8, Twin, u8, u8);

/// Forget old decisions with this weight per decision (a context drifts as the program shrinks).
const DECAY: f64 = 0.9;
/// How many decisions the coarser estimate counts as in a fresh context.
const PRIOR: f64 = 4.0;
/// The success rate assumed before any decision, and the pseudo-decision that keeps the
/// recent rate of all contexts (the prior of a new one) from the extremes. Most candidates
/// fail, but a new kind of pass is not the last one. A little above an even guess: the run's
/// first candidate, a bulk deletion with nothing learned yet, mostly succeeds, so at `-j2` the
/// second worker takes its success branch (bench/RESULTS.md has the replayed figures).
const FIRST_GUESS: f64 = 0.6;
/// The first guess per twin (unknown, failed, succeeded): a deletion's verdict elsewhere mostly
/// holds again.
const TWIN_GUESS: [f64; 3] = [FIRST_GUESS, 0.2, 0.9];
/// The correction's learning rates: of an edge's weight, of the contexts' scale.
const EDGE_RATE: f64 = 0.2;
const SCALE_RATE: f64 = 0.02;
/// Forget the edges' weights beyond this many (a bound on memory; only odds suffer).
const MAX_EDGES: usize = 1 << 16;
/// Odds never reach certainty: a surprise must not cost without bound.
const LOW: f64 = 0.005;
const HIGH: f64 = 0.995;

impl Odds {
    fn contexts(t: &Traits) -> [Context; 2] {
        let place = t.index.min(2) as u8;
        let size = (usize::BITS - t.removed.leading_zeros()) as u8;
        let names = t.hint.names;
        [
            (t.kind, place, t.twin, names, u8::MAX),
            (t.kind, place, t.twin, names, size),
        ]
    }

    /// The contexts' smoothed rate.
    fn rate(&self, t: &Traits) -> f64 {
        let twin = twin_index(t.twin);
        let (s, n) = self.overall[twin];
        let mut p = (s + TWIN_GUESS[twin]) / (n + 1.0);
        for context in Self::contexts(t) {
            let (s, n) = self.by_context.get(&context).copied().unwrap_or_default();
            p = (s + PRIOR * p) / (n + PRIOR);
        }
        p.clamp(LOW, HIGH)
    }

    /// The correction's features: each edge's text, alone and with the hint's names (a `*`
    /// that orphans a name is not a `*` that does not).
    fn edges(hint: &Hint) -> impl Iterator<Item = (u8, u64)> {
        let names = 4 + 4 * hint.names.min(15);
        (0u8..)
            .zip(hint.words)
            .filter(|&(_, w)| w != 0)
            .flat_map(move |(edge, w)| [(edge, w), (names + edge, w)])
    }

    /// The log-odds of success, corrected by the edges, from the contexts' rate `p`.
    fn corrected(&self, p: f64, hint: &Hint) -> f64 {
        let weights =
            Self::edges(hint).map(|key| self.by_edge.get(&key).copied().unwrap_or_default());
        (1.0 + self.scale) * logit(p) + weights.sum::<f64>()
    }

    /// The chain decided a candidate.
    pub fn record(&mut self, t: &Traits, verdict: Verdict) {
        let hit = f64::from(u8::from(verdict == Verdict::Interesting));
        let p = self.rate(t);
        let error = hit - sigmoid(self.corrected(p, &t.hint));
        if self.by_edge.len() >= MAX_EDGES {
            self.by_edge.clear();
        }
        for key in Self::edges(&t.hint) {
            *self.by_edge.entry(key).or_default() += EDGE_RATE * error;
        }
        self.scale += SCALE_RATE * error * logit(p);
        let update = |slot: &mut (f64, f64)| *slot = (slot.0 * DECAY + hit, slot.1 * DECAY + 1.0);
        for context in Self::contexts(t) {
            update(self.by_context.entry(context).or_default());
        }
        update(&mut self.overall[twin_index(t.twin)]);
    }

    /// The chance that such a candidate succeeds.
    pub fn success(&self, t: &Traits) -> f64 {
        sigmoid(self.corrected(self.rate(t), &t.hint)).clamp(LOW, HIGH)
    }
}

fn twin_index(twin: Twin) -> usize {
    match twin {
        Twin::Unknown => 0,
        Twin::Failed => 1,
        Twin::Succeeded => 2,
    }
}

fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// What one `reduce` call learned, for the next one on the same thread: a run makes many calls
/// (rounds, passes, layers), and each would otherwise start from nothing, guessing widely.
#[derive(Default)]
pub struct Learned {
    pub odds: Odds,
    /// The pass kinds the odds are keyed by, interned.
    pub kinds: HashMap<String, u32>,
}

thread_local! {
    static LEARNED: std::cell::RefCell<Learned> = std::cell::RefCell::default();
}

impl Learned {
    /// What the last call on this thread left (it only steers speculation, never a result).
    pub fn take() -> Learned {
        LEARNED.with(|l| std::mem::take(&mut *l.borrow_mut()))
    }

    pub fn keep(self) {
        LEARNED.with(|l| *l.borrow_mut() = self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_is_not_its_own_twin_and_the_latest_twin_counts() {
        let mut twins = Twins::default();
        let delta = delta_key(&[3, 4]);
        twins.started(1, delta);
        twins.heard(1, Some(Verdict::NotInteresting));
        assert_eq!(twins.of(1, delta), Twin::Unknown);
        assert_eq!(twins.of(2, delta), Twin::Failed);
        twins.started(2, delta);
        twins.heard(2, Some(Verdict::Interesting));
        assert_eq!(twins.of(3, delta), Twin::Succeeded);
        assert_eq!(twins.of(2, delta), Twin::Failed);
        // an unknown verdict (cancelled run) teaches nothing
        twins.started(4, delta_key(&[9]));
        twins.heard(4, None);
        assert_eq!(twins.of(5, delta_key(&[9])), Twin::Unknown);
    }

    fn traits(kind: u32, index: usize, twin: Twin, names: u8) -> Traits {
        let hint = Hint {
            names,
            words: [0; 4],
        };
        Traits {
            kind,
            index,
            removed: 8,
            twin,
            hint,
        }
    }

    #[test]
    fn odds_learn_per_context() {
        let mut odds = Odds::default();
        for _ in 0..30 {
            odds.record(&traits(7, 0, Twin::Succeeded, 0), Verdict::Interesting);
            odds.record(&traits(7, 5, Twin::Unknown, 0), Verdict::NotInteresting);
            // the hint splits a context: deletions that orphan a name fail
            odds.record(&traits(9, 3, Twin::Unknown, 1), Verdict::NotInteresting);
            odds.record(&traits(9, 3, Twin::Unknown, 0), Verdict::Interesting);
        }
        let likely = odds.success(&traits(7, 0, Twin::Succeeded, 0));
        let unlikely = odds.success(&traits(7, 5, Twin::Unknown, 0));
        assert!(likely > 0.9 && unlikely < 0.1, "{likely} {unlikely}");
        // another kind of pass starts from the overall rate, in between
        let fresh = odds.success(&traits(8, 1, Twin::Unknown, 0));
        assert!(unlikely < fresh && fresh < likely, "{fresh}");
        let orphans = odds.success(&traits(9, 3, Twin::Unknown, 1));
        let plain = odds.success(&traits(9, 3, Twin::Unknown, 0));
        assert!(orphans < 0.1 && plain > 0.9, "{orphans} {plain}");
    }

    /// A twin's verdict is the prior of every context it appears in: where a kind of pass has
    /// never met a twin, one that succeeded still says "likely", one that failed "unlikely".
    #[test]
    fn a_twin_speaks_in_a_context_never_seen() {
        let mut odds = Odds::default();
        for _ in 0..20 {
            // mostly failures without twins; twins elsewhere repeat their verdicts
            odds.record(&traits(1, 4, Twin::Unknown, 0), Verdict::NotInteresting);
            odds.record(&traits(2, 4, Twin::Succeeded, 0), Verdict::Interesting);
            odds.record(&traits(2, 4, Twin::Failed, 0), Verdict::NotInteresting);
        }
        let succeeded = odds.success(&traits(3, 0, Twin::Succeeded, 0));
        let unknown = odds.success(&traits(3, 0, Twin::Unknown, 0));
        let failed = odds.success(&traits(3, 0, Twin::Failed, 0));
        assert!(succeeded > 0.8, "{succeeded}");
        assert!(unknown < 0.2 && failed < 0.2, "{unknown} {failed}");
        // before any decision: the first guesses
        let fresh = Odds::default();
        let (s, u, f) = (
            fresh.success(&traits(3, 0, Twin::Succeeded, 0)),
            fresh.success(&traits(3, 0, Twin::Unknown, 0)),
            fresh.success(&traits(3, 0, Twin::Failed, 0)),
        );
        assert!(s > u && u > f, "{s} {u} {f}");
    }

    #[test]
    fn the_texts_at_the_edges_correct_the_odds_across_kinds_of_pass() {
        let mut odds = Odds::default();
        let with = |kind, first: u64| {
            let mut t = traits(kind, 3, Twin::Unknown, 0);
            t.hint.words = [first, 0, 0, 0];
            t
        };
        let (star, typedef) = (11, 13);
        // in one kind of pass, deleting `*` succeeds and deleting `typedef` fails, in turn:
        // the context alone cannot tell them apart
        for _ in 0..40 {
            odds.record(&with(1, star), Verdict::Interesting);
            odds.record(&with(1, typedef), Verdict::NotInteresting);
        }
        let (s, t) = (
            odds.success(&with(1, star)),
            odds.success(&with(1, typedef)),
        );
        assert!(s > 0.8 && t < 0.2, "{s} {t}");
        // another kind of pass, never seen: the texts still say which is likely
        let (s, t) = (
            odds.success(&with(2, star)),
            odds.success(&with(2, typedef)),
        );
        assert!(s > 0.6 && t < 0.4 && s > t + 0.4, "{s} {t}");
        // no text, no correction: the context's rate alone (in between)
        let plain = odds.success(&traits(2, 3, Twin::Unknown, 0));
        assert!(t < plain && plain < s, "{plain}");
        assert!((odds.success(&traits(1, 3, Twin::Unknown, 0)) - 0.5).abs() < 0.2);
    }
}
