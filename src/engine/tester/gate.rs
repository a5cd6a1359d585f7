//! The original's check while the loop already starts (`-j2` and more): the check holds one
//! worker and the loop's first candidates take the others, so the first decisions do not wait
//! a whole test for the check. Its re-run for flakiness runs beside it from `-j3` on; at `-j2`
//! it follows it (run at once they would leave the loop no worker). Nothing the user sees
//! changes before the check passes: a commit waits for it ([`Tester::await_check`]), the output
//! is opened only then, and a failed check stops the run with its error and no result. A run
//! that must not start before the check (a launcher without `--timeout`) starts both runs and
//! waits ([`Tester::await_check_and_rerun`]).

use std::time::Duration;

use super::{Stop, Tester};
use crate::engine::new_ticket;
use crate::engine::pool::{Report, Ticket};
use crate::exec::runner::{Outcome, RunStatus};

/// Judges the check's outcome: an error stops the run, and [`Tester::await_check_and_rerun`]
/// returns it.
pub type Judge = Box<dyn FnOnce(&mut Tester, Outcome) -> anyhow::Result<()>>;

/// Hears the re-run's outcome.
pub type Hear = Box<dyn FnOnce(&mut Tester, Outcome)>;

/// What the caller makes of the check's runs.
pub struct CheckHooks {
    /// The check's outcome, when it is in.
    pub checked: Judge,
    /// The re-run's outcome, when it ran whole (the check was cheap and passed).
    pub rerun: Hear,
}

/// The re-run's state.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rerun {
    /// To start once the check is in.
    Later,
    Running(Ticket),
    /// Done, cancelled or not wanted.
    Off,
}

/// A check in flight.
pub(super) struct Gate {
    /// The check's run, until it is in.
    first: Option<Ticket>,
    rerun: Rerun,
    /// Above this, the check's time cancels the re-run (a slow test is not re-run).
    cheap: Duration,
    /// Once the check is in: whether it passed and was cheap (then the re-run counts).
    rerun_counts: Option<bool>,
    /// A re-run that ended before the check: told once the check is judged.
    early_rerun: Option<Outcome>,
    checked: Option<Judge>,
    on_rerun: Option<Hear>,
}

impl Tester {
    /// Starts the check of `original` without waiting for it, and its re-run (at once with
    /// `together`, else once the check is in and only if it was cheap). The loop may start
    /// candidates meanwhile, on the workers the check leaves ([`Tester::room`]).
    pub fn start_check(
        &mut self,
        original: &[u8],
        cheap: Duration,
        together: bool,
        hooks: CheckHooks,
    ) {
        self.drop_prefetched();
        let first = new_ticket();
        self.submit_run(first, original);
        let rerun = match together {
            true => {
                let second = new_ticket();
                self.submit_run(second, original);
                Rerun::Running(second)
            }
            false => Rerun::Later,
        };
        self.gate = Some(Gate {
            first: Some(first),
            rerun,
            cheap,
            rerun_counts: None,
            early_rerun: None,
            checked: Some(hooks.checked),
            on_rerun: Some(hooks.rerun),
        });
    }

    /// The check's runs in flight (0 when no check is pending).
    pub(super) fn checking(&self) -> usize {
        self.gate.as_ref().map_or(0, |g| {
            usize::from(g.first.is_some()) + usize::from(matches!(g.rerun, Rerun::Running(_)))
        })
    }

    /// Waits until the check, if one is pending, has been judged; the reports that come in
    /// meanwhile are kept for whoever waits for them. `false`: the check failed (the run
    /// stops; [`Tester::await_check_and_rerun`] returns why).
    pub fn await_check(&mut self) -> bool {
        self.await_gate(|g| g.first.is_none());
        self.check_error.is_none()
    }

    /// [`Tester::await_check`], and the re-run too (at the end of a run); the check's error
    /// if it failed.
    pub fn await_check_and_rerun(&mut self) -> anyhow::Result<()> {
        self.await_gate(|_| false);
        self.check_error.take().map_or(Ok(()), Err)
    }

    fn await_gate(&mut self, enough: impl Fn(&Gate) -> bool) {
        while self.gate.as_ref().is_some_and(|g| !enough(g)) {
            let Some((ticket, report)) = self.pool.next_done() else {
                // cannot happen: the check's runs are in the pool until they report
                self.gate = None;
                let e = anyhow::anyhow!("the test pool lost the original's check");
                self.fail_check(e);
                break;
            };
            if let Some(other) = self.gate_takes(ticket, report) {
                self.held.push_back(other);
            }
        }
    }

    /// Takes `ticket`'s report if it is one of the check's runs; gives any other back.
    pub(super) fn gate_takes(
        &mut self,
        ticket: Ticket,
        report: Report,
    ) -> Option<(Ticket, Report)> {
        let Some(gate) = &self.gate else {
            return Some((ticket, report));
        };
        if gate.first == Some(ticket) {
            let outcome = self.ran(ticket, report);
            self.checked(outcome);
        } else if gate.rerun == Rerun::Running(ticket) {
            let outcome = self.ran(ticket, report);
            self.reran(outcome);
        } else {
            return Some((ticket, report));
        }
        if self.checking() == 0 && self.gate.as_ref().is_some_and(|g| g.rerun != Rerun::Later) {
            self.gate = None;
        }
        None
    }

    /// The check is in: judged by the caller's hook; then the re-run starts if it was to
    /// follow, or is cancelled if it no longer counts.
    fn checked(&mut self, outcome: anyhow::Result<Outcome>) {
        let gate = self.gate.as_mut().expect("pending");
        gate.first = None;
        let (hook, limit) = (gate.checked.take().expect("judged once"), gate.cheap);
        let judged = outcome.and_then(|first| {
            let cheap = first.elapsed < limit;
            hook(self, first).map(|()| cheap)
        });
        let counts = matches!(judged, Ok(true));
        if let Err(e) = judged {
            self.fail_check(e);
        }
        let gate = self.gate.as_mut().expect("pending");
        gate.rerun_counts = Some(counts);
        match (counts, gate.rerun) {
            (true, Rerun::Later) => {
                let ticket = new_ticket();
                gate.rerun = Rerun::Running(ticket);
                // the best is still the original: a commit waits for the check
                let original = std::mem::take(&mut self.best);
                self.submit_run(ticket, &original);
                self.best = original;
            }
            (false, Rerun::Later) => gate.rerun = Rerun::Off,
            // it still reports (cancelled); nothing waits for it
            (false, Rerun::Running(ticket)) => self.pool.cancel(ticket),
            (true, _) => {
                if let Some(outcome) = gate.early_rerun.take() {
                    self.tell_rerun(outcome);
                }
            }
            (false, Rerun::Off) => {}
        }
    }

    /// The re-run is in: told to the caller if it ran whole and the check passed cheaply
    /// (at once, or once the check is judged).
    fn reran(&mut self, outcome: anyhow::Result<Outcome>) {
        let gate = self.gate.as_mut().expect("pending");
        gate.rerun = Rerun::Off;
        let Ok(outcome) = outcome else { return };
        if !matches!(
            outcome.status,
            RunStatus::Exited(_) | RunStatus::Signaled(_)
        ) {
            return;
        }
        match gate.rerun_counts {
            None => gate.early_rerun = Some(outcome),
            Some(true) => self.tell_rerun(outcome),
            Some(false) => {}
        }
    }

    fn tell_rerun(&mut self, outcome: Outcome) {
        let hook = self.gate.as_mut().and_then(|g| g.on_rerun.take());
        if let Some(hook) = hook {
            hook(self, outcome);
        }
    }

    fn fail_check(&mut self, e: anyhow::Error) {
        self.check_error.get_or_insert(e);
        self.stop = Some(Stop::Error);
    }
}
