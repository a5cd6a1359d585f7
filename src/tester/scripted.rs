//! The tester's uncached runs, each waited for: the original's check and its re-run for
//! flakiness, and the final re-check of the result (with the empty file's test beside it).

use anyhow::{Context, Result};

use super::Tester;
use crate::oracle::{Outcome, RunStatus};
use crate::pool::{Report, Ticket};
use crate::reduce::{Verdict, new_ticket};

impl Tester {
    /// Runs the script once, uncached, and waits for it.
    pub fn run_script(&mut self, candidate: &[u8]) -> Result<Outcome> {
        self.drop_prefetched();
        let serial = new_ticket();
        self.submit_run(serial, candidate);
        loop {
            let (ticket, outcome) = self.next_run()?;
            if ticket == serial {
                return Ok(outcome);
            }
        }
    }

    /// Starts an uncached run, counted as the serial run would count it.
    fn submit_run(&mut self, ticket: Ticket, candidate: &[u8]) {
        self.started += 1;
        self.charged += 1;
        self.pool.submit(ticket, candidate.to_vec());
        crate::trace::event('S', ticket);
    }

    /// Waits for the next run to end, and counts it.
    fn next_run(&mut self) -> Result<(Ticket, Outcome)> {
        let (ticket, report) = self.wait_pool().context("the test pool lost a run")?;
        Ok((ticket, self.ran(ticket, report)?))
    }

    /// The outcome of an uncached run that ended, counted.
    fn ran(&mut self, ticket: Ticket, report: Report) -> Result<Outcome> {
        crate::trace::event('D', ticket);
        let outcome = report.ran()?;
        self.count(&outcome);
        Ok(outcome)
    }

    /// Runs the script on `candidate` twice at once (the original's check and its re-run for
    /// flakiness, with `-j` above 1): the first run's outcome, and the second's if the first
    /// took under `cheap` (else the second is cancelled: a slow test is not re-run).
    pub fn run_script_pair(
        &mut self,
        candidate: &[u8],
        cheap: std::time::Duration,
    ) -> Result<(Outcome, Option<Outcome>)> {
        self.drop_prefetched();
        let (first, second) = (new_ticket(), new_ticket());
        self.submit_run(first, candidate);
        self.submit_run(second, candidate);
        let mut outcomes: [Option<Outcome>; 2] = [None, None];
        while outcomes.iter().any(Option::is_none) {
            let (ticket, outcome) = self.next_run()?;
            if ticket == first && outcome.elapsed >= cheap && outcomes[1].is_none() {
                self.cancel(&[second]);
            }
            outcomes[usize::from(ticket == second)] = Some(outcome);
        }
        let [Some(first), Some(second)] = outcomes else {
            unreachable!("both runs reported")
        };
        let usable = matches!(second.status, RunStatus::Exited(_) | RunStatus::Signaled(_));
        let second = (first.elapsed < cheap && usable).then_some(second);
        Ok((first, second))
    }

    /// The final re-check of `best` (uncached, as [`Tester::run_script`]) and the empty file's
    /// test (as [`Tester::verdict`]: cached, counted) at once, with `-j` above 1: the last two
    /// runs of a run, which do not depend on each other. Returns the re-check's outcome and the
    /// empty file's verdict (the caller accepts it; the re-check was then of the text before).
    pub fn recheck_and_empty(&mut self, best: &[u8]) -> Result<(Outcome, Verdict)> {
        self.drop_prefetched();
        let (recheck, empty) = (new_ticket(), new_ticket());
        let key = self.key(best);
        // made already, alongside the test that found `best` (see `verdict_rechecking`)
        let mut outcome = match self.rechecked.take() {
            Some((k, outcome)) if k == key => Some(outcome),
            _ => {
                self.submit_run(recheck, best);
                None
            }
        };
        let mut verdict = self.start_serial(empty, b"");
        while outcome.is_none() || verdict.is_none() {
            let (ticket, report) = self.wait_pool().context("the test pool lost a run")?;
            if ticket == recheck {
                outcome = Some(self.ran(ticket, report)?);
                continue;
            }
            match self.settle(ticket, report) {
                (t, v) if t == empty => verdict = Some(Verdict::from_bool(v == Some(true))),
                other => self.ready.push_back(other),
            }
        }
        crate::trace::event('C', empty);
        Ok((outcome.expect("reported"), verdict.expect("reported")))
    }

    /// [`Tester::verdict`] of the run's last candidate (the final layout), with the end's two
    /// other runs at once when three workers are free: the re-check of that candidate (kept
    /// for [`Tester::recheck_and_empty`], used if the candidate is the final result) and the
    /// empty file's test (cached; not without the cache). They do not depend on its verdict,
    /// so the end waits for one test run instead of two. A candidate the test rejects leaves
    /// its re-check unused.
    pub fn verdict_rechecking(&mut self, candidate: &[u8]) -> Verdict {
        self.drop_prefetched();
        let alone = self.pool.idle() < 3
            || self.max_attempts.is_some()
            || self.stopped()
            || candidate.is_empty();
        if alone {
            return self.verdict(candidate);
        }
        let (test, recheck, empty) = (new_ticket(), new_ticket(), new_ticket());
        let mut verdict = self.start_serial(test, candidate);
        if verdict.is_some() {
            // known already: the end re-checks it as usual
            crate::trace::event('C', test);
            return verdict.unwrap_or(Verdict::NotInteresting);
        }
        self.submit_run(recheck, candidate);
        let mut outcome = None;
        // the end asks the cache (without one it runs the empty file's test itself)
        let mut emptied = match self.cache.is_some() {
            true => self.start_serial(empty, b"").map(|_| ()),
            false => Some(()),
        };
        while verdict.is_none() || outcome.is_none() || emptied.is_none() {
            let Some((ticket, report)) = self.wait_pool() else {
                break;
            };
            if ticket == recheck {
                // an outcome that cannot be read is no re-check: the end makes its own
                outcome = Some(self.ran(ticket, report).ok());
                continue;
            }
            match self.settle(ticket, report) {
                (t, v) if t == test => verdict = Some(Verdict::from_bool(v == Some(true))),
                (t, _) if t == empty => emptied = Some(()),
                other => self.ready.push_back(other),
            }
        }
        crate::trace::event('C', test);
        let verdict = verdict.unwrap_or(Verdict::NotInteresting);
        // a run cut short (Ctrl-C) is no re-check either
        let whole =
            |o: &Outcome| !matches!(o.status, RunStatus::Cancelled | RunStatus::Interrupted);
        if let (Verdict::Interesting, Some(Some(outcome))) = (verdict, outcome)
            && whole(&outcome)
        {
            self.rechecked = Some((self.key(candidate), outcome));
        }
        verdict
    }
}
