//! An in-process stand-in for a pool of workers, for testing the speculation: a closure judges
//! each candidate, tests "run" `width` at a time and finish in a seeded random order, some report
//! an unknown verdict (as a lost or cancelled run would), and every commit is recorded. With
//! `vary_room`, the room for tests changes at random, as under a CPU throttle. With `prefetch`,
//! it takes the chain's prefetches of the next call (a phantom test each, which holds a worker
//! until it ends, as the tester's do) and records what was asked.

use std::collections::HashSet;

use super::{Oracle, Prefetched, Started, Ticket, Unit, Verdict, new_ticket};

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
    /// Start this many prefetched tests per configuration asked about (0: none).
    pub prefetch: usize,
    /// Each prefetch asked: the configuration the call would end with, and the index.
    pub asked: Vec<(Vec<Unit>, usize)>,
    /// Prefetched tests still running (they hold workers, and the room excludes them).
    prefetching: HashSet<Ticket>,
    /// Prefetched tests released by the chain, cancelled when a plan runs out of room.
    released: Vec<Ticket>,
    /// How many released tests still ran when a plan ran out of room (and were cancelled).
    pub released_into_plan: usize,
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
            prefetch: 0,
            asked: Vec::new(),
            prefetching: HashSet::new(),
            released: Vec::new(),
            released_into_plan: 0,
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

impl<F: FnMut(&[Unit]) -> bool> Oracle for ShuffledOracle<F> {
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
        self.room.saturating_sub(self.prefetching.len())
    }

    fn prefetch(&mut self, config: &[Unit], k: usize) -> Prefetched {
        self.asked.push((config.to_vec(), k));
        if k >= self.prefetch {
            return Prefetched::Exhausted;
        }
        if self.random(4) == 0 {
            return Prefetched::Skipped; // as a cached verdict
        }
        assert!(self.running.len() < self.width, "more tests than workers");
        let ticket = new_ticket();
        self.prefetching.insert(ticket);
        self.running.push((ticket, Verdict::NotInteresting));
        self.peak = self.peak.max(self.running.len());
        Prefetched::Started(ticket)
    }

    fn shed(&mut self) -> bool {
        let Some(&t) = self.prefetching.iter().min() else {
            return false;
        };
        self.cancelled.insert(t);
        true
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
        self.prefetching.remove(&ticket);
        let lost = self.width > 1 && self.random(16) == 0;
        if self.cancelled.remove(&ticket) || lost {
            return Some((ticket, None));
        }
        Some((ticket, Some(verdict)))
    }

    fn cancel(&mut self, tickets: &[Ticket]) {
        self.cancelled.extend(tickets);
    }

    fn release(&mut self, tickets: &[Ticket]) {
        for &t in tickets {
            match self.prefetching.contains(&t) {
                true => self.released.push(t),
                false => {
                    self.cancelled.insert(t);
                }
            }
        }
    }

    fn drop_released(&mut self) {
        for t in std::mem::take(&mut self.released) {
            if self.prefetching.contains(&t) {
                self.released_into_plan += 1;
                self.cancelled.insert(t);
            }
        }
    }

    fn commit(&mut self, _ticket: Ticket, candidate: &[Unit]) {
        self.committed.push(candidate.to_vec());
    }
}
