//! The unit-level adapters all run their candidates through the [`Tester`]: they differ in how
//! they render a candidate (and what they know of it before a test), not in how tickets reach
//! the tester. An adapter says how it starts, tests and commits a candidate ([`OnTester`]);
//! the rest of the oracle is the tester's, once, here.

use super::Tester;
use crate::engine::pool::Ticket;
use crate::engine::{Observes, Runs, Started};
use crate::policy::{Unit, Verdict};

/// An adapter over the tester: what differs from one to the other.
pub trait OnTester {
    fn tester(&self) -> &Tester;

    fn tester_mut(&mut self) -> &mut Tester;

    /// The candidate's test begins (or its verdict is known at once: the prefilter, the cache).
    fn start_candidate(
        &mut self,
        ticket: Ticket,
        parent: Option<Ticket>,
        candidate: &[Unit],
    ) -> Started;

    /// The candidate's verdict, serially.
    fn test_candidate(&mut self, candidate: &[Unit]) -> Verdict;

    /// The candidate is committed: it becomes the best.
    fn commit_candidate(&mut self, ticket: Ticket, candidate: &[Unit]);

    /// Whether the loop should stop (beyond the tester's own reasons).
    fn stopping(&self) -> bool {
        self.tester().stopped()
    }

    /// The phase shown for a pass.
    fn show_phase(&mut self, phase: &str) {
        self.tester_mut().progress.set_phase(phase);
    }
}

impl<A: OnTester> Runs for A {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        self.test_candidate(candidate)
    }

    fn stop_requested(&self) -> bool {
        self.stopping()
    }

    fn width(&self) -> usize {
        self.tester().width()
    }

    fn room(&mut self) -> usize {
        self.tester_mut().room()
    }

    fn start(&mut self, ticket: Ticket, parent: Option<Ticket>, candidate: &[Unit]) -> Started {
        self.start_candidate(ticket, parent, candidate)
    }

    fn finish_one(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        self.tester_mut()
            .next_done()
            .map(|(t, v)| (t, v.map(Verdict::from_bool)))
    }

    fn finished(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        self.tester_mut()
            .done_now()
            .map(|(t, v)| (t, v.map(Verdict::from_bool)))
    }

    fn cancel(&mut self, tickets: &[Ticket]) {
        self.tester_mut().cancel(tickets);
    }

    fn charge(&mut self, ticket: Ticket) -> bool {
        self.tester_mut().charge(ticket)
    }

    fn commit(&mut self, ticket: Ticket, candidate: &[Unit]) {
        self.commit_candidate(ticket, candidate);
    }
}

impl<A: OnTester> Observes for A {
    fn on_pass(&mut self, phase: &str) {
        self.show_phase(phase);
    }

    fn on_left(&mut self, left: Option<usize>) {
        self.tester_mut().progress.set_left(left);
    }
}
