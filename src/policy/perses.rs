//! Perses (`seeds/001`): largest live node first, propose node *replacement* (keep a compatible
//! live descendant `d` of `n`, drop the rest of `n`; smallest `d` first), then deletions from the
//! one active list driven by a persisted inner minimizer. A success clears the `done` set; the run
//! ends when every list is done and nothing replaces.
//!
//! Candidates are generated lazily: a node's descendants are gathered only when the iterator
//! reaches that node, so a pass that succeeds early never pays for the rest.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use super::recall::Recall;
use super::{Deltas, Policy, Unit};
use crate::tree::{Arena, Class, NodeId, View};

/// When Perses forgets which lists are done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClearDone {
    /// On every success (the specification).
    #[default]
    OnSuccess,
    /// Only when a list deletion succeeds: deleting code is what frees other deletions (a
    /// declaration whose last use went). A replacement success keeps the marks, so a large list
    /// whose sweep just failed is not swept again after every small replacement elsewhere.
    /// Sound under the round driver: a round that changes nothing re-checks every list.
    OnDeletion,
    /// Never within a round.
    Never,
}

/// Knobs beyond the specification; the defaults are the spec's behavior.
#[derive(Clone, Copy, Debug, Default)]
pub struct PersesOptions {
    /// Do not re-propose a replacement `(n, d)` that was already rejected on this arena. A round
    /// driver that rebuilds the arena until a round makes no progress still ends at a fixpoint:
    /// the last round tries every pair on the final program.
    pub skip_failed_replacements: bool,
    /// When the `done` marks are cleared. The spec clears them on every success.
    pub clear_done: ClearDone,
    /// Propose the active list's deletions at the list's own place in the largest-first order
    /// (as Perses' priority queue does) instead of after every replacement of the pass. On real
    /// files this deletes whole dead functions before trying to hollow each one out.
    pub lists_in_size_order: bool,
    /// Propose deleting an optional element (`Opt`) as one candidate at its place in the walk
    /// (remembered when it fails, like a replacement) instead of making every `Opt` an active
    /// list in turn: an `Opt` is a list of at most one element, so that is the same candidate
    /// without a pass per optional slot.
    pub opt_deletions_in_walk: bool,
}

impl PersesOptions {
    /// The options the binary runs with (bench/RESULTS.md has the figures of each).
    pub fn tuned() -> PersesOptions {
        PersesOptions {
            skip_failed_replacements: true,
            clear_done: ClearDone::OnDeletion,
            lists_in_size_order: true,
            opt_deletions_in_walk: true,
        }
    }
}

/// Replacements rejected on this arena, shared with the pass iterator: as `(n, d)`, and by
/// their [`Recall`] keys in the order they were rejected (with a recall only).
#[derive(Clone, Default)]
struct Failed {
    pairs: HashSet<(NodeId, NodeId)>,
    keys: Vec<u64>,
}

type FailedSet = Rc<RefCell<Failed>>;

/// One candidate the current pass proposed.
#[derive(Clone, Copy, Debug)]
enum Proposed {
    /// Replacing `n` by `d`, with its [`Recall`] key (0 without a recall).
    Replacement(NodeId, NodeId, u64),
    /// The inner minimizer's candidate with this index (this pass).
    Deletion(usize),
}

/// What the current pass has proposed so far, in order, and which candidate won.
#[derive(Default)]
struct PassLog {
    proposed: Vec<Proposed>,
    won: Option<usize>,
}

pub struct Perses<'t, F, P> {
    arena: &'t Arena,
    new_minimizer: F,
    options: PersesOptions,
    active: Option<NodeId>,
    minimizer: Option<P>,
    active_elems: Vec<NodeId>,
    /// Lists whose minimizer found nothing more to delete; cleared on every success.
    done: HashSet<NodeId>,
    failed: FailedSet,
    /// The replacements that failed in earlier rounds, skipped in this one.
    recall: Option<Rc<Recall<'t>>>,
    log: Rc<RefCell<PassLog>>,
    lists_total: usize,
}

impl<'t, F, P> Perses<'t, F, P>
where
    F: FnMut() -> P,
    P: Policy,
{
    pub fn new(arena: &'t Arena, new_minimizer: F) -> Self {
        Perses {
            arena,
            new_minimizer,
            options: PersesOptions::default(),
            active: None,
            minimizer: None,
            active_elems: Vec::new(),
            done: HashSet::new(),
            failed: Rc::default(),
            recall: None,
            log: Rc::default(),
            lists_total: 0,
        }
    }

    /// Skip the replacements `recall` says failed in earlier rounds, and learn the keys of
    /// those that fail in this one ([`Perses::failed_keys`]).
    pub fn recall(mut self, recall: Rc<Recall<'t>>) -> Self {
        self.recall = Some(recall);
        self
    }

    /// The keys of the replacements this policy saw fail, in order (with a recall only).
    pub fn failed_keys(&self) -> Vec<u64> {
        self.failed.borrow().keys.clone()
    }

    pub fn options(mut self, options: PersesOptions) -> Self {
        self.options = options;
        self
    }

    /// The active list, if any (for tests and progress).
    pub fn active(&self) -> Option<NodeId> {
        self.active
    }

    pub fn done(&self) -> &HashSet<NodeId> {
        &self.done
    }

    fn may_activate(&self, id: NodeId) -> bool {
        let class = self.arena.node(id).class();
        let listlike = match self.options.opt_deletions_in_walk {
            true => matches!(class, Class::List | Class::Error),
            false => class.is_listlike(),
        };
        listlike && !self.done.contains(&id)
    }

    /// Keep the active list while it is live and not done; otherwise pick the largest live list
    /// not done (ties by id). One scan over `nodes`, the live internal nodes.
    fn pick_active(&mut self, nodes: &LargestFirst, view: &View) {
        if let Some(a) = self.active
            && !self.done.contains(&a)
            && view.live(a)
        {
            return;
        }
        let active = nodes
            .keys()
            .filter(|&(_, id)| self.may_activate(id))
            .max_by_key(|&(size, id)| (size, std::cmp::Reverse(id)))
            .map(|(_, id)| id);
        if active != self.active {
            self.active = active;
            self.minimizer = None;
        }
    }
}

/// The live internal nodes, popped largest surviving size first (ties by id). A heap: building
/// it is O(n) and a pass that succeeds early pops only a few, where a sort would cost
/// O(n log n) on every pass.
/// The most replacements one node gets in a pass (its nearest compatible descendants).
const MAX_REPLACEMENTS: usize = 32;

struct LargestFirst {
    heap: std::collections::BinaryHeap<(u32, std::cmp::Reverse<NodeId>)>,
}

impl LargestFirst {
    fn new(view: &View) -> Self {
        let arena = view.arena;
        let keys: Vec<(u32, std::cmp::Reverse<NodeId>)> = (0..arena.len() as NodeId)
            .filter(|&id| !arena.node(id).class().is_leaf() && view.live(id))
            .map(|id| (view.size(id), std::cmp::Reverse(id)))
            .collect();
        LargestFirst { heap: keys.into() }
    }

    fn keys(&self) -> impl Iterator<Item = (u32, NodeId)> + '_ {
        self.heap
            .iter()
            .map(|&(size, std::cmp::Reverse(id))| (size, id))
    }

    fn peek(&self) -> Option<NodeId> {
        self.heap.peek().map(|&(_, std::cmp::Reverse(id))| id)
    }

    fn pop(&mut self) -> Option<NodeId> {
        self.heap.pop().map(|(_, std::cmp::Reverse(id))| id)
    }
}

/// A deep copy: the clone gets its own minimizer, marks, failed set and log.
impl<F: Clone, P: Clone> Clone for Perses<'_, F, P> {
    fn clone(&self) -> Self {
        let log = self.log.borrow();
        Perses {
            arena: self.arena,
            new_minimizer: self.new_minimizer.clone(),
            options: self.options,
            active: self.active,
            minimizer: self.minimizer.clone(),
            active_elems: self.active_elems.clone(),
            done: self.done.clone(),
            failed: Rc::new(RefCell::new(self.failed.borrow().clone())),
            recall: self.recall.clone(),
            log: Rc::new(RefCell::new(PassLog {
                proposed: log.proposed.clone(),
                won: log.won,
            })),
            lists_total: self.lists_total,
        }
    }
}

impl<F, P> Policy for Perses<'_, F, P>
where
    F: FnMut() -> P + Clone,
    P: Policy + Clone,
{
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a> {
        let view = Rc::new(View::new(self.arena, config));
        let nodes = LargestFirst::new(&view);
        self.lists_total = nodes
            .keys()
            .filter(|&(_, n)| self.arena.node(n).class().is_listlike())
            .count();
        self.pick_active(&nodes, &view);
        *self.log.borrow_mut() = PassLog::default();
        self.active_elems = self.active.map(|a| view.elems_of(a)).unwrap_or_default();
        if self.minimizer.is_none() {
            self.minimizer = Some((self.new_minimizer)());
        }
        let minimizer = self.minimizer.as_mut().expect("built above");
        let log = self.log.clone();
        let deletion_view = view.clone();
        let deletions = minimizer
            .propose(&self.active_elems)
            .enumerate()
            .map(move |(j, drop)| (j, deletion_view.deletion_delta(config, &drop)))
            .filter(|(_, d)| !d.is_empty())
            .map(move |(j, d)| {
                log.borrow_mut().proposed.push(Proposed::Deletion(j));
                d
            });
        let in_order = self.options.lists_in_size_order;
        Box::new(Replacements {
            view,
            config,
            nodes,
            queue: Vec::new(),
            current: 0,
            failed: self
                .options
                .skip_failed_replacements
                .then(|| self.failed.clone()),
            recall: self.recall.clone(),
            log: self.log.clone(),
            deletions: Some(Box::new(deletions)),
            deletions_at: if in_order { self.active } else { None },
            draining: false,
            opt_deletions: self.options.opt_deletions_in_walk,
        })
    }

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        let log = std::mem::take(&mut *self.log.borrow_mut());
        // everything proposed before the winner (or everything, on failure) was rejected
        let winner = reduced.map(|_| log.won.unwrap_or(log.proposed.len().saturating_sub(1)));
        let rejected =
            &log.proposed[..winner.unwrap_or(log.proposed.len()).min(log.proposed.len())];
        self.learn_failed_replacements(rejected);
        let Some(a) = self.active else {
            return reduced.is_some(); // a replacements-only pass
        };
        let inner_failed = rejected.iter().any(|p| matches!(p, Proposed::Deletion(_)));
        let inner = self.minimizer.as_mut().expect("propose ran first");
        // the inner minimizer hears only the outcome of its own candidates
        let keep = match (reduced, winner.and_then(|w| log.proposed.get(w))) {
            (Some(c), Some(&Proposed::Deletion(j))) => {
                inner.accepted(j);
                let elems = self.arena.elems_in(a, c);
                inner.on_reduced(Some(&elems))
            }
            (Some(_), _) if !inner_failed => true,
            _ => inner.on_reduced(None),
        };
        let by_deletion = matches!(
            winner.and_then(|w| log.proposed.get(w)),
            Some(Proposed::Deletion(_))
        );
        let clear = match self.options.clear_done {
            ClearDone::OnSuccess => true,
            ClearDone::OnDeletion => by_deletion,
            ClearDone::Never => false,
        };
        if reduced.is_some() && clear {
            self.done.clear();
        }
        if !keep {
            self.done.insert(a);
        }
        true
    }

    fn accepted(&mut self, index: usize) {
        self.log.borrow_mut().won = Some(index);
    }

    fn phase(&self) -> String {
        match self.active {
            Some(a) => {
                let arena = self.arena;
                let within = arena
                    .parent(a)
                    .map_or("file", |p| arena.kind_name(arena.node(p).kind()));
                let what = if arena.node(a).class() == Class::Error {
                    "error region"
                } else {
                    "list"
                };
                format!(
                    "perses: {what} in {within} #{a}, {} of {} lists done",
                    self.done.len(),
                    self.lists_total
                )
            }
            None => "perses: replacing".into(),
        }
    }
}

impl<F, P> Perses<'_, F, P> {
    /// Remembers the rejected replacements: as pairs when the option is on, as keys with a
    /// recall.
    fn learn_failed_replacements(&mut self, rejected: &[Proposed]) {
        let pairs = self.options.skip_failed_replacements;
        let keys = self.recall.is_some();
        let mut failed = self.failed.borrow_mut();
        for p in rejected {
            if let Proposed::Replacement(n, d, key) = *p {
                if pairs {
                    failed.pairs.insert((n, d));
                }
                if keys {
                    failed.keys.push(key);
                }
            }
        }
    }
}

/// The lazy stream of replacement deltas of one pass.
struct Replacements<'a, 't> {
    view: Rc<View<'t>>,
    config: &'a [Unit],
    nodes: LargestFirst,
    /// The compatible descendants of `current`, smallest last (popped first).
    queue: Vec<NodeId>,
    current: NodeId,
    failed: Option<FailedSet>,
    recall: Option<Rc<Recall<'t>>>,
    log: Rc<RefCell<PassLog>>,
    /// The active list's deletions, proposed when the walk reaches `deletions_at` (or last).
    deletions: Option<Deltas<'a>>,
    deletions_at: Option<NodeId>,
    draining: bool,
    opt_deletions: bool,
}

impl Replacements<'_, '_> {
    /// Fill `queue` with the next node's compatible live descendants; false when out of nodes
    /// or when the walk reached the active list (then `draining` is set).
    fn refill(&mut self) -> bool {
        while self.queue.is_empty() {
            let Some(n) = self.nodes.peek() else {
                return false;
            };
            if Some(n) == self.deletions_at {
                self.deletions_at = None;
                self.draining = true;
                return false;
            }
            self.nodes.pop();
            self.current = n;
            self.queue = self.candidates_for(n);
        }
        true
    }

    fn candidates_for(&self, n: NodeId) -> Vec<NodeId> {
        let view = &self.view;
        let arena = view.arena;
        let failed = self.failed.as_ref().map(|f| f.borrow());
        if self.opt_deletions && arena.node(n).class() == Class::Opt {
            // deleting the optional element: one candidate, remembered like a replacement
            let elem = arena.children(n).next().filter(|&e| view.present(e));
            return elem
                .filter(|&e| !failed.as_ref().is_some_and(|f| f.pairs.contains(&(n, e))))
                .into_iter()
                .collect();
        }
        if matches!(arena.node(n).class(), Class::Opt | Class::Error) || arena.parent(n).is_none() {
            return Vec::new();
        }
        // the nearest first (breadth first), at most MAX_REPLACEMENTS of them: a node holding a
        // whole program (a JavaScript bundle's wrapper) has thousands, which all fail
        let mut ds = Vec::new();
        let mut queue: std::collections::VecDeque<NodeId> = arena.children(n).collect();
        while let Some(d) = queue.pop_front() {
            if ds.len() == MAX_REPLACEMENTS {
                break;
            }
            if !view.present(d) {
                continue;
            }
            let skip = failed.as_ref().is_some_and(|f| f.pairs.contains(&(n, d)));
            if !skip && view.live(d) && view.can_replace(n, d) {
                ds.push(d);
            }
            queue.extend(arena.children(d));
        }
        // popped from the back: largest first in the vector means smallest first out
        ds.sort_by_key(|&d| (std::cmp::Reverse(view.size(d)), std::cmp::Reverse(d)));
        ds
    }
}

impl Iterator for Replacements<'_, '_> {
    type Item = Vec<Unit>;

    fn next(&mut self) -> Option<Vec<Unit>> {
        loop {
            if self.draining {
                if let Some(d) = self.deletions.as_mut().and_then(Iterator::next) {
                    return Some(d);
                }
                self.draining = false;
                self.deletions = None;
            }
            if let Some(r) = self.next_replacement() {
                return Some(r);
            }
            self.deletions.as_ref()?;
            self.draining = true;
        }
    }
}

impl Replacements<'_, '_> {
    fn next_replacement(&mut self) -> Option<Vec<Unit>> {
        while self.refill() {
            let d = self.queue.pop().expect("refilled");
            let n = self.current;
            let outer = self.view.leaves_under(n, self.config);
            let opt = self.opt_deletions && self.view.arena.node(n).class() == Class::Opt;
            let inner = match opt {
                true => &[],
                false => self.view.leaves_under(d, self.config),
            };
            if !opt && outer.len() == inner.len() {
                continue;
            }
            let mut key = 0;
            if let Some(recall) = &self.recall {
                key = recall.key(self.config, outer, inner);
                if recall.failed_before(key) {
                    continue;
                }
            }
            self.log
                .borrow_mut()
                .proposed
                .push(Proposed::Replacement(n, d, key));
            return Some(match opt {
                true => self.view.deletion_delta(self.config, &[d]),
                false => super::subtract(outer, inner),
            });
        }
        None
    }
}

#[cfg(test)]
#[path = "perses_tests.rs"]
mod tests;
