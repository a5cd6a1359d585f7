//! The tester's side of prefetching (`reduce/chain.rs`, `driver/ahead.rs`): runs started for
//! a call of the loop that does not exist yet, taken over by the first candidate of the same
//! bytes, and out of the way of the serial checks.

use super::Tester;
use crate::engine::pool::Ticket;
use crate::engine::{Prefetched, new_ticket};

impl Tester {
    /// Starts a run of `candidate` for a call of the loop that does not exist yet (the chain
    /// predicts it, see `chain.rs`). Nothing waits for it: its verdict goes to the cache, and
    /// the first candidate of the same bytes takes the run over ([`Tester::begin`]). Only with
    /// the cache on, several workers and no attempt budget (whose count is the serial run's).
    pub fn prefetch(&mut self, candidate: &[u8]) -> Prefetched {
        if self.stopped() || self.cache.is_none() || self.max_attempts.is_some() {
            return Prefetched::Exhausted;
        }
        if self.pool.idle() == 0 {
            return Prefetched::Exhausted;
        }
        let key = self.key(candidate);
        let known = self.cache.as_ref().is_some_and(|c| c.contains_key(&key))
            || self.in_flight.values().any(|&k| k == key)
            || self.disk.as_ref().is_some_and(|d| d.rejected(key));
        if known {
            return Prefetched::Skipped;
        }
        let ticket = new_ticket();
        if !self.pool.submit(ticket, candidate.to_vec()) {
            return Prefetched::Exhausted;
        }
        self.started += 1;
        self.in_flight.insert(ticket, key);
        self.prefetched.insert(key, ticket);
        crate::report::trace::event('S', ticket);
        Prefetched::Started(ticket)
    }

    /// Whether `run` is a prefetched run that no candidate has taken over and that has not
    /// ended.
    pub(super) fn untaken(&self, run: Ticket) -> bool {
        self.prefetched.values().any(|&r| r == run)
    }

    /// Whether a prefetched run of `key` runs that a candidate may take over (one that is
    /// being cancelled would only report its cancellation).
    pub(super) fn adoptable(&self, key: u128) -> bool {
        self.prefetched
            .get(&key)
            .is_some_and(|run| !self.dying.contains(run))
    }

    /// The prefetched run of `key`, if any, becomes `ticket`'s.
    pub(super) fn adopt(&mut self, key: u128, ticket: Ticket) -> bool {
        if !self.adoptable(key) {
            return false;
        }
        let Some(run) = self.prefetched.remove(&key) else {
            return false;
        };
        crate::report::trace::event('A', format_args!("{run} {ticket}"));
        self.adopted.insert(run, ticket);
        self.adopter_run.insert(ticket, run);
        true
    }

    /// Cancels one prefetched run that no candidate took over; `false`: there is none.
    pub fn shed(&mut self) -> bool {
        let live = self.prefetched.values().filter(|r| !self.dying.contains(r));
        let Some(&run) = live.min() else {
            return false;
        };
        self.stop_prefetched(run);
        true
    }

    /// The loop no longer needs these prefetched runs (their endings cannot happen), but a
    /// later candidate may still take one over: they run on until a plan wants their workers
    /// ([`Tester::drop_released`]). A ticket that is no untaken prefetched run is cancelled now.
    pub fn release(&mut self, runs: &[Ticket]) {
        let still = std::mem::take(&mut self.released);
        self.released = still.into_iter().filter(|&r| self.untaken(r)).collect();
        for &run in runs {
            if self.untaken(run) {
                self.released.push(run);
            } else {
                self.cancel(&[run]);
            }
        }
    }

    /// The loop's plan wanted more workers: the released runs no candidate took over stop.
    pub fn drop_released(&mut self) {
        for run in std::mem::take(&mut self.released) {
            if self.untaken(run) && !self.dying.contains(&run) {
                self.stop_prefetched(run);
            }
        }
    }

    fn stop_prefetched(&mut self, run: Ticket) {
        crate::report::trace::event('X', run);
        self.dying.insert(run);
        self.pool.cancel(run);
    }

    /// Before a run that waits for itself alone (a serial check): the prefetched runs nobody
    /// took over end first, cancelled (a verdict that came in first is cached).
    pub(super) fn drop_prefetched(&mut self) {
        if self.prefetched.is_empty() {
            return;
        }
        self.released.clear();
        let runs: Vec<Ticket> = self.prefetched.values().copied().collect();
        for run in runs {
            if !self.dying.contains(&run) {
                self.stop_prefetched(run);
            }
        }
        while !self.prefetched.is_empty() {
            let Some((run, report)) = self.wait_pool() else {
                self.prefetched.clear();
                break;
            };
            let orphan = self.prefetched.values().any(|&r| r == run);
            let done = self.settle(run, report);
            if !orphan {
                self.ready.push_back(done);
            }
        }
    }
}
