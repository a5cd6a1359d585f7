//! An in-process stand-in for a pool of workers, for testing the speculation: a closure judges
//! each candidate, tests "run" `width` at a time and finish in a seeded random order, some report
//! an unknown verdict (as a lost or cancelled run would), and every commit is recorded. With
//! `vary_room`, the room for tests changes at random, as under a CPU throttle.

use std::collections::HashSet;

use super::{Observes, Predicts, Runs, Started, Ticket};
use crate::policy::{Unit, Verdict};

pub struct ShuffledOracle<F> {
    judge: F,
    width: usize,
    rng: u64,
    running: Vec<(Ticket, Verdict)>,
    cancelled: HashSet<Ticket>,
    /// The committed candidates, in order.
    pub committed: Vec<Vec<Unit>>,
    /// How many times the closure was called.
    pub calls: u64,
    /// The most tests that ran at once.
    pub peak: usize,
    /// Answer [`Oracle::room`] at random between 1 and the width.
    pub vary_room: bool,
    /// Tests started while more than the last room given already ran.
    pub over_room: usize,
    room: usize,
}

impl<F: FnMut(&[Unit]) -> bool> ShuffledOracle<F> {
    pub fn new(judge: F, width: usize, seed: u64) -> Self {
        ShuffledOracle {
            judge,
            width: width.max(1),
            rng: seed | 1,
            running: Vec::new(),
            cancelled: HashSet::new(),
            committed: Vec::new(),
            calls: 0,
            peak: 0,
            vary_room: false,
            over_room: 0,
            room: width.max(1),
        }
    }

    /// xorshift64*: deterministic for a seed.
    fn random(&mut self, below: usize) -> usize {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % below.max(1)
    }
}

impl<F: FnMut(&[Unit]) -> bool> Runs for ShuffledOracle<F> {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        self.calls += 1;
        Verdict::from_bool((self.judge)(candidate))
    }

    fn width(&self) -> usize {
        self.width
    }

    fn room(&mut self) -> usize {
        if self.vary_room {
            self.room = 1 + self.random(self.width);
        }
        self.room
    }

    fn start(&mut self, ticket: Ticket, _parent: Option<Ticket>, candidate: &[Unit]) -> Started {
        assert!(self.running.len() < self.width, "more tests than workers");
        self.over_room += usize::from(self.running.len() >= self.room);
        let verdict = self.test(candidate);
        if self.width > 1 && self.random(8) == 0 {
            return Started::Known(verdict); // as from a cache
        }
        self.running.push((ticket, verdict));
        self.peak = self.peak.max(self.running.len());
        Started::Running
    }

    /// Half the time, one of the running tests has "already ended".
    fn finished(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        match self.random(2) {
            0 => self.finish_one(),
            _ => None,
        }
    }

    fn finish_one(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        if self.running.is_empty() {
            return None;
        }
        let i = self.random(self.running.len());
        let (ticket, verdict) = self.running.swap_remove(i);
        let lost = self.width > 1 && self.random(16) == 0;
        if self.cancelled.remove(&ticket) || lost {
            return Some((ticket, None));
        }
        Some((ticket, Some(verdict)))
    }

    fn cancel(&mut self, tickets: &[Ticket]) {
        self.cancelled.extend(tickets);
    }

    fn commit(&mut self, _ticket: Ticket, candidate: &[Unit]) {
        self.committed.push(candidate.to_vec());
    }
}

impl<F> Predicts for ShuffledOracle<F> {}

impl<F> Observes for ShuffledOracle<F> {}
