//! The original's check while the loop already starts (`-j` of 3 and more): the check and its
//! re-run for flakiness hold two workers, and the loop's first candidates take the others, so
//! the first decisions do not wait a whole test for the check. Nothing the user sees changes
//! before the check passes: a commit waits for it ([`Tester::await_check`]), the output is
//! opened only then, and a failed check stops the run with its error and no result.

use std::time::Duration;

use super::{Stop, Tester};
use crate::oracle::{Outcome, RunStatus};
use crate::pool::{Report, Ticket};
use crate::reduce::new_ticket;

/// What the caller makes of the check once its runs are in: the first run's outcome, and the
/// re-run's when it was cheap enough to wait for (see [`Tester::run_script_pair`]). An error
/// stops the run, and [`Tester::check_error`] holds it.
pub type CheckDone = Box<dyn FnOnce(&mut Tester, Outcome, Option<Outcome>) -> anyhow::Result<()>>;

/// A check in flight.
pub(super) struct Gate {
    first: Ticket,
    second: Ticket,
    outcomes: [Option<anyhow::Result<Outcome>>; 2],
    /// Above this, the first run's time cancels the re-run (a slow test is not re-run).
    cheap: Duration,
    done: CheckDone,
}

impl Tester {
    /// Starts the check of `original` (twice: the check and its re-run) without waiting for it;
    /// `done` runs when both have reported. The loop may start candidates meanwhile, on the
    /// workers the check leaves ([`Tester::room`]).
    pub fn start_check(&mut self, original: &[u8], cheap: Duration, done: CheckDone) {
        self.drop_prefetched();
        let (first, second) = (new_ticket(), new_ticket());
        self.submit_run(first, original);
        self.submit_run(second, original);
        self.gate = Some(Gate {
            first,
            second,
            outcomes: [None, None],
            cheap,
            done,
        });
    }

    /// The check's runs still in flight (0 when no check is pending).
    pub(super) fn checking(&self) -> usize {
        self.gate
            .as_ref()
            .map_or(0, |g| g.outcomes.iter().filter(|o| o.is_none()).count())
    }

    /// Waits until the pending check, if any, has concluded; the reports that come in
    /// meanwhile are kept for whoever waits for them. `false`: the check failed (the run
    /// stops; [`Tester::check_error`] says why).
    pub fn await_check(&mut self) -> bool {
        while self.gate.is_some() {
            let Some((ticket, report)) = self.pool.next_done() else {
                // cannot happen: the check's runs are in the pool until they report
                let e = anyhow::anyhow!("the test pool lost the original's check");
                self.fail_check(e);
                break;
            };
            if let Some(other) = self.gate_takes(ticket, report) {
                self.held.push_back(other);
            }
        }
        self.check_error.is_none()
    }

    /// Takes `ticket`'s report if it belongs to the pending check (and concludes the check when
    /// it was the last); gives any other report back.
    pub(super) fn gate_takes(
        &mut self,
        ticket: Ticket,
        report: Report,
    ) -> Option<(Ticket, Report)> {
        let Some(gate) = &self.gate else {
            return Some((ticket, report));
        };
        let slot = match ticket {
            t if t == gate.first => 0,
            t if t == gate.second => 1,
            _ => return Some((ticket, report)),
        };
        let outcome = self.ran(ticket, report);
        let gate = self.gate.as_mut().expect("pending");
        let slow = matches!(&outcome, Ok(o) if o.elapsed >= gate.cheap);
        if slot == 0 && slow && gate.outcomes[1].is_none() {
            self.pool.cancel(gate.second);
        }
        gate.outcomes[slot] = Some(outcome);
        if gate.outcomes.iter().all(Option::is_some) {
            self.conclude_check();
        }
        None
    }

    fn conclude_check(&mut self) {
        let gate = self.gate.take().expect("pending");
        let [Some(first), Some(second)] = gate.outcomes else {
            unreachable!("both runs reported")
        };
        let first = match first {
            Ok(first) => first,
            Err(e) => return self.fail_check(e),
        };
        // a re-run that could not be read, or was cut short, says nothing about flakiness
        let second = second.ok().filter(|s| {
            first.elapsed < gate.cheap
                && matches!(s.status, RunStatus::Exited(_) | RunStatus::Signaled(_))
        });
        if let Err(e) = (gate.done)(self, first, second) {
            self.fail_check(e);
        }
    }

    fn fail_check(&mut self, e: anyhow::Error) {
        self.gate = None;
        self.check_error.get_or_insert(e);
        self.stop = Some(Stop::Error);
    }
}
