//! The reductions of `--each`, `width` at a time, committed in order. The caller asks for the
//! reduction of one file ([`Work::want`]) and names the files it will most likely want next;
//! those start on idle workers meanwhile. A reduction does not depend on what other reductions
//! found (only the caller's bookkeeping does), so a result computed ahead is the one the serial
//! run would have computed, and one the caller never asks for is dropped: the outputs are the
//! same for every width. See issue 41 (`-j` spreads workers across files).

use std::collections::{HashMap, HashSet};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use anyhow::Result;

use super::reduce::{Input, Reduction, reduce_file};
use crate::app::config::Config;

/// One file's reduction, all it needs.
pub struct Task {
    pub input: Input,
    pub check: crate::exec::check::Check,
}

type Done = (usize, Result<Reduction>);

pub struct Work<'a> {
    width: usize,
    tasks: &'a [Option<Task>],
    todo: Option<Sender<usize>>,
    done: Receiver<Done>,
    started: HashSet<usize>,
    results: HashMap<usize, Result<Reduction>>,
    in_flight: usize,
}

/// Runs `body` with `width` workers reducing `tasks` (by index) as it asks.
pub fn with_workers<T>(
    cfg: &Config,
    width: usize,
    tasks: &[Option<Task>],
    body: impl FnOnce(&mut Work) -> T,
) -> T {
    let (todo_tx, todo_rx) = channel::<usize>();
    let (done_tx, done_rx) = channel::<Done>();
    let todo_rx = Arc::new(Mutex::new(todo_rx));
    std::thread::scope(|scope| {
        for _ in 0..width {
            let (todo_rx, done_tx) = (todo_rx.clone(), done_tx.clone());
            scope.spawn(move || {
                loop {
                    let next = todo_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok(i)) = next else { break };
                    let result = match &tasks[i] {
                        Some(task) => reduce_file(cfg, &task.check, &task.input),
                        None => Err(anyhow::anyhow!("no task for file {i}")),
                    };
                    if done_tx.send((i, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let mut work = Work {
            width,
            tasks,
            todo: Some(todo_tx),
            done: done_rx,
            started: HashSet::new(),
            results: HashMap::new(),
            in_flight: 0,
        };
        let out = body(&mut work);
        // no more tasks: the workers end after the reductions they are in
        work.todo = None;
        out
    })
}

impl Work<'_> {
    /// The reduction of file `m`, waiting for it; meanwhile the files of `ahead` (in order,
    /// the likeliest first) start on idle workers.
    pub fn want(&mut self, m: usize, ahead: &[usize]) -> Result<Reduction> {
        loop {
            if let Some(result) = self.results.remove(&m) {
                return result;
            }
            self.start(m);
            for &a in ahead {
                if self.in_flight >= self.width {
                    break;
                }
                self.start(a);
            }
            let Ok((i, result)) = self.done.recv() else {
                return Err(anyhow::anyhow!("the reduction workers stopped"));
            };
            self.in_flight -= 1;
            self.results.insert(i, result);
        }
    }

    /// Queues file `i`'s reduction unless it started already (the queue is in order: the file
    /// wanted now goes before those started ahead only when a worker is free for it).
    fn start(&mut self, i: usize) {
        if self.started.contains(&i) || self.tasks.get(i).is_none_or(Option::is_none) {
            return;
        }
        if let Some(todo) = &self.todo
            && todo.send(i).is_ok()
        {
            self.started.insert(i);
            self.in_flight += 1;
        }
    }
}
