//! The oracle methods every adapter over the [`Tester`](super::Tester) shares, as macros: the
//! adapters differ in how they render a candidate, not in how tickets reach the tester.

/// The parallel methods every adapter over the [`Tester`](super::Tester) shares: tickets map straight to the
/// tester's.
macro_rules! ticket_methods {
    () => {
        fn width(&self) -> usize {
            self.tester.width()
        }

        fn room(&mut self) -> usize {
            self.tester.room()
        }

        fn finish_one(&mut self) -> Option<(Ticket, Option<Verdict>)> {
            self.tester
                .next_done()
                .map(|(t, v)| (t, v.map(Verdict::from_bool)))
        }

        fn finished(&mut self) -> Option<(Ticket, Option<Verdict>)> {
            self.tester
                .done_now()
                .map(|(t, v)| (t, v.map(Verdict::from_bool)))
        }

        fn cancel(&mut self, tickets: &[Ticket]) {
            self.tester.cancel(tickets);
        }

        fn charge(&mut self, ticket: Ticket) -> bool {
            self.tester.charge(ticket)
        }

        fn on_left(&mut self, left: Option<usize>) {
            self.tester.progress.set_left(left);
        }
    };
}
pub(crate) use ticket_methods;

/// The parallel half of a unit-level adapter: [`ticket_methods`], and a start that skips what
/// `prepare` already knows (counted as pruned). An adapter with another way to start a
/// candidate first names it: `|this, ticket, parent, candidate| EXPR`, where `EXPR` is
/// `Some(started)` when that way took the candidate.
macro_rules! parallel_oracle_methods {
    () => {
        parallel_oracle_methods!(|_this, _ticket, _parent, _candidate| None);
    };
    (|$this:ident, $ticket:ident, $parent:ident, $candidate:ident| $first:expr) => {
        ticket_methods!();

        fn start(&mut self, ticket: Ticket, parent: Option<Ticket>, candidate: &[Unit]) -> Started {
            let ($this, $ticket, $parent, $candidate) = (&mut *self, ticket, parent, candidate);
            if let Some(started) = $first {
                return started;
            }
            if let Some(known) = self.prepare(ticket, parent, candidate) {
                self.tester.prune(ticket);
                return Started::Known(known);
            }
            self.tester.started(ticket, &self.buf)
        }

        fn on_pass(&mut self, phase: &str) {
            self.tester.progress.set_phase(phase);
        }
    };
}
