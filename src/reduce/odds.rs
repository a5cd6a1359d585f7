//! The speculation's small model (see `chain.rs`): how likely a candidate is to succeed.
//!
//! Two sources. [`Odds`] learns success rates from the chain's decisions per context: the kind
//! of pass, the candidate's place in it and how much it removes. [`Twins`] knows what happened
//! to the same deletion elsewhere in the tree of futures: after a success a list sweep goes on
//! where it was, so the next pass proposes the very deletions the failed branch of this pass
//! tests (the same units removed, from a configuration one step apart), and they mostly get the
//! same verdict. That turns the pass after a success from a guess into a near certainty.

use std::collections::HashMap;

use super::{Ticket, Unit, Verdict};

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

/// Success rates learned from the chain's decisions per context: the kind of pass (the
/// policy's phase without its numbers), the candidate's place in it (first, second, later),
/// its twin's verdict and, finest, how much it removes (by powers of two). Contexts differ a
/// lot: a Perses replacement rarely succeeds, the first candidate of a sweep that just
/// succeeded often does, a deletion that failed one step away usually fails again.
#[derive(Default)]
pub struct Odds {
    /// Smoothed (successes, candidates) per context, coarse (size `u8::MAX`) and fine.
    by_context: HashMap<Context, (f64, f64)>,
    /// The same over all contexts: the prior of a context seen rarely.
    overall: (f64, f64),
}

type Context = (u32, u8, Twin, u8, u8);

/// Forget old decisions with this weight per decision (a context drifts as the program shrinks).
const DECAY: f64 = 0.9;
/// How many decisions the coarser estimate counts as in a fresh context.
const PRIOR: f64 = 4.0;
/// The success rate assumed before any decision (most candidates fail).
const FIRST_GUESS: f64 = 0.1;

impl Odds {
    fn contexts(kind: u32, index: usize, removed: usize, twin: Twin, hint: u8) -> [Context; 2] {
        let place = index.min(2) as u8;
        let size = (usize::BITS - removed.leading_zeros()) as u8;
        [
            (kind, place, twin, hint, u8::MAX),
            (kind, place, twin, hint, size),
        ]
    }

    /// The chain decided a candidate of a pass of `kind`.
    pub fn record(
        &mut self,
        kind: u32,
        index: usize,
        removed: usize,
        twin: Twin,
        hint: u8,
        verdict: Verdict,
    ) {
        let hit = f64::from(u8::from(verdict == Verdict::Interesting));
        let update = |slot: &mut (f64, f64)| *slot = (slot.0 * DECAY + hit, slot.1 * DECAY + 1.0);
        for context in Self::contexts(kind, index, removed, twin, hint) {
            update(self.by_context.entry(context).or_default());
        }
        update(&mut self.overall);
    }

    /// The chance that such a candidate succeeds.
    pub fn success(&self, kind: u32, index: usize, removed: usize, twin: Twin, hint: u8) -> f64 {
        let mut p = (self.overall.0 + FIRST_GUESS) / (self.overall.1 + 1.0);
        for context in Self::contexts(kind, index, removed, twin, hint) {
            let (s, n) = self.by_context.get(&context).copied().unwrap_or_default();
            p = (s + PRIOR * p) / (n + PRIOR);
        }
        p.clamp(0.005, 0.995)
    }
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

    #[test]
    fn odds_learn_per_context() {
        let mut odds = Odds::default();
        let at = |index, twin| (index, 8, twin);
        for _ in 0..30 {
            let (i, r, t) = at(0, Twin::Succeeded);
            odds.record(7, i, r, t, 0, Verdict::Interesting);
            let (i, r, t) = at(5, Twin::Unknown);
            odds.record(7, i, r, t, 0, Verdict::NotInteresting);
            // the hint splits a context: deletions that orphan a name fail
            odds.record(9, 3, 8, Twin::Unknown, 1, Verdict::NotInteresting);
            odds.record(9, 3, 8, Twin::Unknown, 0, Verdict::Interesting);
        }
        let (i, r, t) = at(0, Twin::Succeeded);
        let likely = odds.success(7, i, r, t, 0);
        let (i, r, t) = at(5, Twin::Unknown);
        let unlikely = odds.success(7, i, r, t, 0);
        assert!(likely > 0.9 && unlikely < 0.1, "{likely} {unlikely}");
        // another kind of pass starts from the overall rate, in between
        let fresh = odds.success(8, 1, 8, Twin::Unknown, 0);
        assert!(unlikely < fresh && fresh < likely, "{fresh}");
        let orphans = odds.success(9, 3, 8, Twin::Unknown, 1);
        let plain = odds.success(9, 3, 8, Twin::Unknown, 0);
        assert!(orphans < 0.1 && plain > 0.9, "{orphans} {plain}");
    }
}
