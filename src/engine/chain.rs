//! Speculation along the serial chain: how `reduce` keeps `width` tests running and still
//! commits exactly what the serial run commits.
//!
//! The serial loop is a chain. Candidate k of a pass is decided; if it fails, the next one is
//! candidate k+1 of the same pass; if it succeeds, the next one is the first candidate of the pass
//! the policy proposes after committing k. [`Chain`] holds a tree of those futures: pass nodes,
//! each with the candidates pulled so far and, per candidate, the pass that would follow its
//! success (built on a [`Policy::fork`] replayed up to that candidate). It keeps `width` tests
//! running on the most probable nodes (best first, by the product of the predicted outcomes on
//! the path) and answers the loop's one question, "the verdict of candidate k of the current
//! pass", from them. The loop decides strictly in order, so a misprediction only wastes work.
//! The predicted outcomes come from `odds.rs` (learned rates, and the verdict the same deletion
//! got in another branch); the plan is redone with every verdict already in, not one at a time.
//! At width 1 only the current candidate is ever started: the plain serial loop.
//!

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::rc::Rc;

#[path = "chain_node.rs"]
mod node;

use super::odds::{Learned, Odds, Traits, Twins};
use super::{Oracle, Started, Ticket};
use crate::policy::{Deltas, Policy, Unit, Verdict, subtract};
use node::{Branch, FAILED, PassNode, node_at};

/// A node to consider: candidate `index` of the pass at `path` (success indices from the root).
struct Item {
    prob: f64,
    seq: u64,
    path: Vec<usize>,
    index: usize,
}

impl PartialEq for Item {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Item {
    /// Most probable first; among equals, the earlier pushed (closer to the serial order).
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.prob
            .total_cmp(&other.prob)
            .then(other.seq.cmp(&self.seq))
    }
}

/// The nodes still to consider, most probable first.
#[derive(Default)]
struct Frontier {
    heap: BinaryHeap<Item>,
    seq: u64,
}

impl Frontier {
    fn push(&mut self, prob: f64, path: Vec<usize>, index: usize) {
        self.seq += 1;
        let seq = self.seq;
        self.heap.push(Item {
            prob,
            seq,
            path,
            index,
        });
    }
}

/// The kind of pass a policy state is in: its phase with the numbers left out, interned.
fn pass_kind(policy: Option<&(dyn Policy + '_)>, kinds: &mut HashMap<String, u32>) -> u32 {
    let phase = policy.map(|p| p.phase()).unwrap_or_default();
    let kind: String = phase
        .split(|c: char| c.is_ascii_digit() || c == '#')
        .next()
        .unwrap_or_default()
        .to_string();
    let next = kinds.len() as u32;
    *kinds.entry(kind).or_insert(next)
}

/// What planning found out about the current candidate.
enum Plan {
    Ready,
    /// The pass has no candidate at that index.
    Exhausted,
}

/// The speculation state of one `reduce` call (see the module documentation).
pub struct Chain<'p> {
    width: usize,
    root: Option<Box<PassNode<'p>>>,
    /// How many deltas the real pass's iterator has yielded.
    live_pos: usize,
    verdicts: HashMap<Ticket, Verdict>,
    /// Tests started and not yet reported; `false` once cancelled.
    running: HashMap<Ticket, bool>,
    odds: Odds,
    twins: Twins,
    kinds: HashMap<String, u32>,
}

impl<'p> Chain<'p> {
    pub fn new(width: usize) -> Self {
        let Learned { odds, kinds } = Learned::take();
        Chain {
            width: width.max(1),
            root: None,
            live_pos: 0,
            verdicts: HashMap::new(),
            running: HashMap::new(),
            odds,
            twins: Twins::default(),
            kinds,
        }
    }

    /// A real pass over `config` starts: keep the predicted node if it is this pass.
    pub fn begin_pass(&mut self, config: &Rc<[Unit]>, policy: &(dyn Policy + 'p)) {
        self.live_pos = 0;
        if self.root.as_ref().is_none_or(|r| r.config != *config) {
            let base = (self.width > 1).then(|| policy.fork());
            self.root = Some(Box::new(PassNode::new(config.clone(), base, None)));
        }
        if let Some(root) = self.root.as_mut() {
            root.kind = Some(pass_kind(Some(policy), &mut self.kinds));
        }
    }

    /// The verdict of candidate `k` of the real pass (`None`: no such candidate, or stopping).
    pub fn decide(
        &mut self,
        k: usize,
        live: &mut Deltas<'_>,
        oracle: &mut dyn Oracle,
    ) -> Option<Verdict> {
        // the real policy must have proposed candidate k before it can hear that k won
        if !self.pull_root(k, live) {
            return None;
        }
        let mut planned = false;
        loop {
            let head = self.root.as_ref()?.cands.get(k).map(|c| c.ticket);
            if let Some(&verdict) = head.and_then(|t| self.verdicts.get(&t)) {
                if !oracle.charge(head?) {
                    return None;
                }
                let root = self.root.as_ref()?;
                let traits = root.traits(k, &self.twins);
                if crate::report::trace::enabled() {
                    let odds = self.odds.success(&traits);
                    let yes = u8::from(verdict == Verdict::Interesting);
                    let Traits {
                        kind,
                        removed,
                        twin,
                        hint,
                        ..
                    } = traits;
                    let (t, twin, names) = (root.cands[k].ticket, twin as u8, hint.names);
                    let [w0, w1, w2, w3] = hint.words;
                    let what = format_args!(
                        "{t} {yes} {odds:.4} {names} {kind} {k} {removed} {twin} \
                         {w0:x} {w1:x} {w2:x} {w3:x}"
                    );
                    crate::report::trace::event('V', what);
                }
                self.odds.record(&traits, verdict);
                return Some(verdict);
            }
            if planned {
                let Some((done, verdict)) = oracle.finish_one() else {
                    // nothing runs and the current candidate could not start: the run is
                    // stopping; charging it tells the oracle why, as the serial run would
                    oracle.charge(head?);
                    return None;
                };
                self.heard(done, verdict);
                // plan with every verdict already in, not just the first one
                while let Some((done, verdict)) = oracle.finished() {
                    self.heard(done, verdict);
                }
                planned = false;
                continue;
            }
            match self.fill(k, live, oracle) {
                Plan::Exhausted => return None,
                Plan::Ready => planned = true,
            }
        }
    }

    fn heard(&mut self, ticket: Ticket, verdict: Option<Verdict>) {
        self.twins.heard(ticket, verdict);
        if self.running.remove(&ticket) == Some(true)
            && let Some(v) = verdict
        {
            self.verdicts.insert(ticket, v);
        }
    }

    /// Candidate `i` of the real pass, pulled from its live iterator. The live iterator is also
    /// pulled through `i`, so the real policy has proposed everything up to it.
    fn pull_root(&mut self, i: usize, live: &mut Deltas<'_>) -> bool {
        let Some(root) = self.root.as_mut() else {
            return false;
        };
        while self.live_pos <= i {
            let Some(delta) = live.next() else {
                root.exhausted = true;
                break;
            };
            if self.live_pos == root.cands.len() {
                root.push(delta);
            } else {
                debug_assert_eq!(
                    subtract(&root.config, &delta),
                    root.candidate(self.live_pos),
                    "the prediction of this pass differs from the real pass"
                );
            }
            self.live_pos += 1;
        }
        root.cands.len() > i
    }

    /// Starts tests on the most probable next candidates until `width` run (or the oracle's
    /// smaller room), the current one (`k` of the real pass) first.
    fn fill(&mut self, k: usize, live: &mut Deltas<'_>, oracle: &mut dyn Oracle) -> Plan {
        if !self.pull_root(k, live) {
            return Plan::Exhausted;
        }
        let mut frontier = Frontier::default();
        frontier.push(1.0, Vec::new(), k);
        let mut budget = plan_budget(self.width);
        let mut visited = Vec::new();
        // how many may run now: the width, or fewer while the machine is saturated
        let room = oracle.room().min(self.width);
        while let Some(item) = frontier.heap.pop() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let current = item.path.is_empty() && item.index == k;
            let in_root = item.path.is_empty() && self.pull_root(item.index, live);
            let full = self.running.len() >= room;
            // a path where the policy stops ends the call: nothing to start there
            let Some(node) = node_at(&mut self.root, &item.path) else {
                continue;
            };
            if !in_root && !node.pull_replay(item.index) {
                // past the end of the pass: what follows if it fails
                if self.width > 1 && item.index == node.cands.len() {
                    frontier.push(item.prob, [&item.path[..], &[FAILED]].concat(), 0);
                }
                continue;
            }
            let cand = &mut node.cands[item.index];
            if cand.hint.is_none() && self.width > 1 {
                // a pass that cannot fork is hinted as it always was: with no delta
                let removed = match node.base.is_some() {
                    true => cand.removed.units(),
                    false => Default::default(),
                };
                cand.hint = Some(oracle.hint(&node.config, &removed));
            }
            let (ticket, origin, delta) = (cand.ticket, node.origin, cand.delta);
            node.kind
                .get_or_insert_with(|| pass_kind(node.base.as_deref(), &mut self.kinds));
            let p = self.odds.success(&node.traits(item.index, &self.twins));
            let state = match ticket_state(&self.verdicts, &self.running, ticket) {
                Err(()) => continue, // cancelled, not yet reported: may start once it has
                Ok(Some(state)) => state,
                Ok(None) if full => {
                    if current {
                        self.make_room(&visited, oracle);
                    }
                    break;
                }
                Ok(None) => {
                    let candidate = node.candidate(item.index);
                    let known = (&mut self.running, &mut self.verdicts, &mut self.twins);
                    match start_test(known, oracle, (ticket, origin, delta), &candidate) {
                        // no verdict will come; if this was the current candidate the loop
                        // waits for the tests still running and asks again, or stops
                        Started::Unknown => return Plan::Ready,
                        started => started,
                    }
                }
            };
            let succ = [&item.path[..], &[item.index]].concat();
            match state {
                Started::Known(Verdict::Interesting) => frontier.push(item.prob, succ, 0),
                Started::Known(Verdict::NotInteresting) => {
                    frontier.push(item.prob, item.path, item.index + 1)
                }
                _ => {
                    visited.push(ticket);
                    frontier.push(item.prob * p, succ, 0);
                    frontier.push(item.prob * (1.0 - p), item.path, item.index + 1);
                }
            }
        }
        Plan::Ready
    }

    /// Every worker is busy and the current candidate waits: cancel the least probable test
    /// (one the plan did not reach, else the last it reached).
    fn make_room(&mut self, visited: &[Ticket], oracle: &mut dyn Oracle) {
        let reached: HashSet<Ticket> = visited.iter().copied().collect();
        let mut wanted: Vec<Ticket> = self
            .running
            .iter()
            .filter(|&(_, &w)| w)
            .map(|(&t, _)| t)
            .collect();
        wanted.sort_unstable();
        let victim = wanted
            .iter()
            .copied()
            .find(|t| !reached.contains(t))
            .or_else(|| visited.iter().rev().copied().find(|t| wanted.contains(t)));
        if let Some(t) = victim {
            self.running.insert(t, false);
            oracle.cancel(&[t]);
        }
    }

    /// Candidate `k` of the real pass is committed: its success branch becomes the prediction
    /// for the next pass; every test off that branch is cancelled.
    pub fn commit(&mut self, k: usize, oracle: &mut dyn Oracle) -> (Ticket, Rc<[Unit]>) {
        let mut root = self.root.take().expect("a pass is running");
        let ticket = root.cands[k].ticket;
        let next = root
            .branches
            .remove(&k)
            .and_then(Branch::node)
            .map(|mut n| {
                n.origin = None;
                n
            });
        let mut keep = HashSet::new();
        if let Some(n) = &next {
            n.collect_tickets(&mut keep);
        }
        self.retain(&keep, oracle);
        // the predicted pass already holds the candidate
        let cand = match &next {
            Some(n) => n.config.clone(),
            None => root.candidate(k).into(),
        };
        self.root = next;
        (ticket, cand)
    }

    /// The real pass ended. If it ran out of candidates, the predicted pass after a failure
    /// becomes the prediction for the next pass; otherwise (stopping) nothing is of use.
    pub fn end_pass(&mut self, oracle: &mut dyn Oracle) {
        let Some(mut root) = self.root.take() else {
            return;
        };
        let next = match root.exhausted && root.cands.len() <= self.live_pos {
            true => root.branches.remove(&FAILED).and_then(Branch::node),
            false => None,
        };
        let mut keep = HashSet::new();
        if let Some(n) = &next {
            n.collect_tickets(&mut keep);
        }
        self.retain(&keep, oracle);
        self.root = next;
    }

    /// Nothing predicted is of use any more.
    pub fn abandon(&mut self, oracle: &mut dyn Oracle) {
        self.root = None;
        self.retain(&HashSet::new(), oracle);
    }

    fn retain(&mut self, keep: &HashSet<Ticket>, oracle: &mut dyn Oracle) {
        self.verdicts.retain(|t, _| keep.contains(t));
        let mut drop: Vec<Ticket> = Vec::new();
        for (t, wanted) in self.running.iter_mut() {
            if *wanted && !keep.contains(t) {
                *wanted = false;
                drop.push(*t);
            }
        }
        if !drop.is_empty() {
            drop.sort_unstable();
            oracle.cancel(&drop);
        }
    }

    /// The loop returns: cancel what still runs and wait for it to end.
    pub fn finish(&mut self, oracle: &mut dyn Oracle) {
        self.abandon(oracle);
        while !self.running.is_empty() {
            let Some((t, _)) = oracle.finish_one() else {
                break;
            };
            self.running.remove(&t);
        }
        self.running.clear();
        Learned {
            odds: std::mem::take(&mut self.odds),
            kinds: std::mem::take(&mut self.kinds),
        }
        .keep();
    }
}

/// Starts the test of `candidate` (its ticket, the ticket it assumes committed, its delta key)
/// and records what the oracle says: running, or a verdict known at once.
fn start_test(
    (running, verdicts, twins): (
        &mut HashMap<Ticket, bool>,
        &mut HashMap<Ticket, Verdict>,
        &mut Twins,
    ),
    oracle: &mut dyn Oracle,
    (ticket, origin, delta): (Ticket, Option<Ticket>, u64),
    candidate: &[Unit],
) -> Started {
    let started = oracle.start(ticket, origin, candidate);
    twins.started(ticket, delta);
    match started {
        Started::Running => {
            running.insert(ticket, true);
        }
        Started::Known(v) => {
            twins.heard(ticket, Some(v));
            verdicts.insert(ticket, v);
        }
        Started::Unknown => {}
    }
    started
}

/// What is known of `ticket`: a verdict, running, or nothing (`None`). `Err`: cancelled and
/// not yet reported.
fn ticket_state(
    verdicts: &HashMap<Ticket, Verdict>,
    running: &HashMap<Ticket, bool>,
    ticket: Ticket,
) -> Result<Option<Started>, ()> {
    if let Some(&v) = verdicts.get(&ticket) {
        return Ok(Some(Started::Known(v)));
    }
    match running.get(&ticket) {
        Some(true) => Ok(Some(Started::Running)),
        Some(false) => Err(()),
        None => Ok(None),
    }
}

/// How many nodes one planning visits: at -j1 only the current candidate (nothing runs ahead);
/// wider, enough to find `width` runs past the ones already known or running.
fn plan_budget(width: usize) -> usize {
    if width == 1 { 1 } else { 4 * width + 16 }
}

#[cfg(test)]
#[path = "chain_tests.rs"]
mod tests;
