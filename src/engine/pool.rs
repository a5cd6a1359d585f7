//! N script oracles on N threads, each in its own temp directory, for speculative parallel tests.
//! The main thread submits candidates by ticket and collects outcomes as they finish; a run whose
//! verdict is no longer needed is cancelled (its process group killed).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::engine::prefilter::{Check, Checker};
use crate::engine::throttle::Throttle;
use crate::exec::frame::Frame;
use crate::exec::reaper;
use crate::exec::runner::{Outcome, ScriptConfig, ScriptRunner};
use crate::exec::tempdirs::{self, RunDir};

pub type Ticket = u64;

struct Job {
    ticket: Ticket,
    candidate: Vec<u8>,
    /// The other files of a multi-file run.
    frame: Option<Arc<Frame>>,
    /// Parse first (see [`crate::engine::prefilter`]); the verdict the cache already knows, if any.
    check: Option<(Check, Option<bool>)>,
}

/// How a job ended.
#[derive(Debug)]
pub enum Report {
    /// The test ran (or could not be run).
    Ran(Result<Outcome>),
    /// The prefilter skipped it: it parses worse than its baseline.
    Pruned,
    /// It parses no worse, and its verdict was known from the cache: no run.
    Known(bool),
    /// Cancelled after its check and before its run started: no verdict, no run.
    Dropped,
}

impl Report {
    /// The run's outcome; a job without a check always runs.
    pub fn ran(self) -> Result<Outcome> {
        match self {
            Report::Ran(outcome) => outcome,
            Report::Pruned | Report::Known(_) | Report::Dropped => {
                Err(anyhow::anyhow!("a job without a check was not run"))
            }
        }
    }
}

struct Worker {
    jobs: Option<Sender<Job>>,
    cancel: Arc<AtomicBool>,
    /// The ticket it is running.
    busy: Option<Ticket>,
    handle: Option<JoinHandle<()>>,
}

type Done = (usize, Ticket, Report);

pub struct Pool {
    workers: Vec<Worker>,
    done: Receiver<Done>,
    /// The timeout every worker reads, in nanoseconds: a new one reaches runs in flight too.
    timeout: Arc<AtomicU64>,
    /// The frame every new job is written into (multi-file runs).
    frame: Option<Arc<Frame>>,
    /// With a launcher: the name prefix of every job of this run (cancelled on drop).
    job_prefix: Option<String>,
    /// With local tests above the CPU count: how many may run now (see `throttle.rs`).
    throttle: Option<Throttle>,
    /// The run's locked temp directory holding the workers' directories; removed last.
    _run_dir: RunDir,
}

impl Pool {
    /// Starts `n` workers, each with its own private directory inside one locked run directory
    /// (after sweeping the run directories that killed runs left behind).
    pub fn new(n: usize, cfg: &ScriptConfig) -> Result<Pool> {
        crate::exec::runner::ensure_dev_null()?;
        tempdirs::sweep_stale(cfg.temp_root.as_deref());
        let run_dir = RunDir::create(cfg.temp_root.as_deref())?;
        let mut cfg = cfg.clone();
        cfg.temp_root = Some(run_dir.path().to_path_buf());
        let (done_tx, done) = channel();
        let timeout = Arc::new(AtomicU64::new(crate::exec::runner::nanos(cfg.timeout)));
        let workers = (0..n.max(1))
            .map(|i| spawn_worker(i, cfg.clone(), done_tx.clone(), timeout.clone()))
            .collect::<Result<Vec<_>>>()?;
        Ok(Pool {
            workers,
            done,
            timeout,
            frame: None,
            job_prefix: cfg.launcher.as_ref().map(|l| l.prefix().to_string()),
            throttle: match cfg.launcher {
                None => Throttle::for_local(n.max(1)),
                Some(_) => None,
            },
            _run_dir: run_dir,
        })
    }

    pub fn width(&self) -> usize {
        self.workers.len()
    }

    /// How many tests may run now: the width, or fewer while local tests saturate the CPUs.
    pub fn room(&mut self) -> usize {
        // the throttle was made for this width and never answers more
        let width = self.width();
        self.throttle.as_mut().map_or(width, Throttle::room)
    }

    /// Sets every worker's timeout, for the runs in flight too (a run started before the
    /// original's check decided the timeout gets it as well).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout
            .store(crate::exec::runner::nanos(timeout), Ordering::Relaxed);
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_nanos(self.timeout.load(Ordering::Relaxed))
    }

    /// From now on, every candidate is one file of this set (runs in flight keep theirs).
    pub fn set_frame(&mut self, frame: Option<Arc<Frame>>) {
        self.frame = frame;
    }

    pub fn idle(&self) -> usize {
        self.workers.iter().filter(|w| w.busy.is_none()).count()
    }

    pub fn running(&self) -> usize {
        self.workers.len() - self.idle()
    }

    /// Starts a run on an idle worker; false if every worker is busy.
    pub fn submit(&mut self, ticket: Ticket, candidate: Vec<u8>) -> bool {
        self.submit_checked(ticket, candidate, None)
    }

    /// [`Pool::submit`], with the prefilter's check first (and the cached verdict applied only
    /// if the check passes).
    pub fn submit_checked(
        &mut self,
        ticket: Ticket,
        candidate: Vec<u8>,
        check: Option<(Check, Option<bool>)>,
    ) -> bool {
        let Some(w) = self.workers.iter_mut().find(|w| w.busy.is_none()) else {
            return false;
        };
        let job = Job {
            ticket,
            candidate,
            frame: self.frame.clone(),
            check,
        };
        let sent = w.jobs.as_ref().is_some_and(|tx| tx.send(job).is_ok());
        if sent {
            w.busy = Some(ticket);
        }
        sent
    }

    /// Blocks until some run finishes. `None` when nothing is running.
    pub fn next_done(&mut self) -> Option<(Ticket, Report)> {
        if self.running() == 0 {
            return None;
        }
        let done = self.done.recv().ok()?;
        Some(self.free(done))
    }

    /// A run that has already ended, if any, without waiting.
    pub fn done_now(&mut self) -> Option<(Ticket, Report)> {
        let done = self.done.try_recv().ok()?;
        Some(self.free(done))
    }

    /// The worker of a finished run is idle again.
    fn free(&mut self, (worker, ticket, outcome): Done) -> (Ticket, Report) {
        let w = &mut self.workers[worker];
        w.busy = None;
        w.cancel.store(false, Ordering::Relaxed);
        (ticket, outcome)
    }

    /// Kills the run of `ticket` if it is still going; its (cancelled) outcome still arrives.
    pub fn cancel(&mut self, ticket: Ticket) {
        if let Some(w) = self.workers.iter().find(|w| w.busy == Some(ticket)) {
            w.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Cancels every run and waits for all of them to end.
    pub fn drain(&mut self) {
        self.drain_into(|_, _| {});
    }

    /// Cancels every run, waits for all of them to end, and hands each outcome to `seen`.
    pub fn drain_into(&mut self, mut seen: impl FnMut(Ticket, Report)) {
        for w in &self.workers {
            if w.busy.is_some() {
                w.cancel.store(true, Ordering::Relaxed);
            }
        }
        while let Some((ticket, outcome)) = self.next_done() {
            seen(ticket, outcome);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.drain();
        // every channel closes first: the workers end their loops and clean up side by side
        for w in &mut self.workers {
            w.jobs = None;
        }
        for w in &mut self.workers {
            if let Some(h) = w.handle.take() {
                let _ = h.join();
            }
        }
        reaper::kill_all();
        // whatever the launcher left queued or running under this run's names
        if let Some(prefix) = &self.job_prefix {
            crate::exec::launcher::cancel_by_prefix(prefix);
        }
    }
}

fn spawn_worker(
    index: usize,
    cfg: ScriptConfig,
    done: Sender<Done>,
    timeout: Arc<AtomicU64>,
) -> Result<Worker> {
    let mut oracle = ScriptRunner::new(cfg)?;
    oracle.share_timeout(timeout);
    let cancel = oracle.cancel_flag();
    let flag = cancel.clone();
    let (jobs, rx) = channel::<Job>();
    let handle = std::thread::Builder::new()
        .name(format!("reduce-test-{index}"))
        .spawn(move || {
            let mut checker = Checker::default();
            for job in rx {
                let report = match &job.check {
                    Some((check, _)) if check.answer(&mut checker, &job.candidate) => {
                        Report::Pruned
                    }
                    Some((_, Some(known))) => Report::Known(*known),
                    // cancelled while it was parsed: no need to start it
                    Some(_) if flag.load(Ordering::Relaxed) => Report::Dropped,
                    _ => Report::Ran(oracle.run_in(&job.candidate, job.frame.as_deref())),
                };
                if done.send((index, job.ticket, report)).is_err() {
                    break;
                }
            }
        })
        .context("cannot start a test worker thread")?;
    Ok(Worker {
        jobs: Some(jobs),
        cancel,
        busy: None,
        handle: Some(handle),
    })
}
