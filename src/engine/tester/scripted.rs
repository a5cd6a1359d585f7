//! The tester's uncached runs, each waited for: the original's check (with its re-run for
//! flakiness beside it), and the final re-check of the result (with the empty file's test
//! beside it).

use anyhow::{Context, Result};

use super::Tester;
use crate::engine::new_ticket;
use crate::engine::pool::{Report, Ticket};
use crate::exec::runner::{Outcome, RunStatus};
use crate::policy::Verdict;

impl Tester {
    /// Runs the script once, uncached, and waits for it.
    pub fn run_script(&mut self, candidate: &[u8]) -> Result<Outcome> {
        let serial = new_ticket();
        self.submit_run(serial, candidate);
        loop {
            let (ticket, outcome) = self.next_run()?;
            if ticket == serial {
                return Ok(outcome);
            }
        }
    }

    /// The original's check and its re-run for flakiness at once (two workers): the check's
    /// outcome, and the re-run's if the check took less than `cheap` and the re-run ran whole
    /// (a slow test is not re-run: its re-run is cancelled once the check is in). They run in
    /// no particular order, so when one of the two is interesting it is the check's.
    pub fn check_pair(
        &mut self,
        original: &[u8],
        cheap: std::time::Duration,
    ) -> Result<(Outcome, Option<Outcome>)> {
        let (check, rerun) = (new_ticket(), new_ticket());
        self.submit_run(check, original);
        self.submit_run(rerun, original);
        let (mut first, mut second) = (None, None);
        while first.is_none() || second.is_none() {
            let (ticket, outcome) = self.next_run()?;
            if ticket == check {
                if outcome.elapsed >= cheap && second.is_none() {
                    self.pool.cancel(rerun);
                }
                first = Some(outcome);
            } else if ticket == rerun {
                second = Some(outcome);
            }
        }
        let mut first = first.expect("reported");
        let whole = |o: &Outcome| matches!(o.status, RunStatus::Exited(_) | RunStatus::Signaled(_));
        let mut rerun = second.filter(|o| first.elapsed < cheap && whole(o));
        // the two ran at once, in no order: an interesting one is the check, the other its re-run
        if let Some(r) = rerun
            .as_mut()
            .filter(|r| r.interesting && !first.interesting)
        {
            std::mem::swap(r, &mut first);
        }
        Ok((first, rerun))
    }

    /// Starts an uncached run, counted as the serial run would count it.
    pub(super) fn submit_run(&mut self, ticket: Ticket, candidate: &[u8]) {
        self.budget.serial_run();
        self.pool.submit(ticket, candidate.to_vec());
        crate::report::trace::event('S', ticket);
    }

    /// Waits for the next run to end, and counts it.
    fn next_run(&mut self) -> Result<(Ticket, Outcome)> {
        let (ticket, report) = self.wait_pool().context("the test pool lost a run")?;
        Ok((ticket, self.ran(ticket, report)?))
    }

    /// The outcome of an uncached run that ended, counted.
    pub(super) fn ran(&mut self, ticket: Ticket, report: Report) -> Result<Outcome> {
        crate::report::trace::event('D', ticket);
        let outcome = report.ran()?;
        self.count(&outcome);
        Ok(outcome)
    }

    /// The final re-check of `best` (uncached, as [`Tester::run_script`]) and the empty file's
    /// test (as [`Tester::verdict`]: cached, counted) at once, with `-j` above 1: the last two
    /// runs of a run, which do not depend on each other. Returns the re-check's outcome and the
    /// empty file's verdict (the caller accepts it; the re-check was then of the text before).
    pub fn recheck_and_empty(&mut self, best: &[u8]) -> Result<(Outcome, Verdict)> {
        let (recheck, empty) = (new_ticket(), new_ticket());
        let key = self.key(best);
        // made already, alongside the test that found `best` (see `verdict_rechecking`)
        let mut outcome = match self.rechecked.take() {
            Some((k, outcome)) if k == key => Some(Ok(outcome)),
            _ => {
                self.submit_run(recheck, best);
                None
            }
        };
        let mut serial = [(empty, self.start_serial(empty, b""))];
        let whole = self.await_runs(recheck, &mut outcome, &mut serial);
        anyhow::ensure!(whole, "the test pool lost a run");
        crate::report::trace::event('C', empty);
        let verdict = serial[0].1.expect("reported");
        Ok((outcome.expect("reported")?, verdict))
    }

    /// Waits for runs of the serial run that go at once: the uncached run `recheck` until
    /// `outcome` holds what it gave, and each ticket of `serial` (begun as the serial run
    /// begins a candidate) until it holds its verdict. Every other report is kept for whoever
    /// waits for it. `false`: nothing more runs, and something is still missing.
    fn await_runs(
        &mut self,
        recheck: Ticket,
        outcome: &mut Option<Result<Outcome>>,
        serial: &mut [(Ticket, Option<Verdict>)],
    ) -> bool {
        while outcome.is_none() || serial.iter().any(|s| s.1.is_none()) {
            let Some((ticket, report)) = self.wait_pool() else {
                return false;
            };
            if ticket == recheck {
                *outcome = Some(self.ran(ticket, report));
                continue;
            }
            let (t, v) = self.settle(ticket, report);
            match serial.iter_mut().find(|s| s.0 == t) {
                Some(slot) => slot.1 = Some(Verdict::from_bool(v == Some(true))),
                None => self.ready.push_back((t, v)),
            }
        }
        true
    }

    /// [`Tester::verdict`] of the run's last candidate (the final layout), with the end's two
    /// other runs at once when three workers are free: the re-check of that candidate (kept
    /// for [`Tester::recheck_and_empty`], used if the candidate is the final result) and the
    /// empty file's test (cached; not without the cache). They do not depend on its verdict,
    /// so the end waits for one test run instead of two. A candidate the test rejects leaves
    /// its re-check unused.
    pub fn verdict_rechecking(&mut self, candidate: &[u8]) -> Verdict {
        let alone =
            self.pool.idle() < 3 || self.budget.limited() || self.stopped() || candidate.is_empty();
        if alone {
            return self.verdict(candidate);
        }
        let (test, recheck, empty) = (new_ticket(), new_ticket(), new_ticket());
        let known = self.start_serial(test, candidate);
        if let Some(verdict) = known {
            // known already: the end re-checks it as usual
            crate::report::trace::event('C', test);
            return verdict;
        }
        self.submit_run(recheck, candidate);
        let mut outcome = None;
        // the end asks the cache (without one it runs the empty file's test itself: nothing
        // to wait for here)
        let emptied = match self.verdicts.on() {
            true => self.start_serial(empty, b""),
            false => Some(Verdict::NotInteresting),
        };
        let mut serial = [(test, None), (empty, emptied)];
        self.await_runs(recheck, &mut outcome, &mut serial);
        crate::report::trace::event('C', test);
        let verdict = serial[0].1.unwrap_or(Verdict::NotInteresting);
        // an outcome that cannot be read, or a run cut short (Ctrl-C), is no re-check: the
        // end makes its own
        let whole =
            |o: &Outcome| !matches!(o.status, RunStatus::Cancelled | RunStatus::Interrupted);
        if let (Verdict::Interesting, Some(Ok(outcome))) = (verdict, outcome)
            && whole(&outcome)
        {
            self.rechecked = Some((self.key(candidate), outcome));
        }
        verdict
    }
}
