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
    /// The options the binary runs with (measured on the benchmark cases).
    pub fn tuned() -> PersesOptions {
        PersesOptions {
            skip_failed_replacements: true,
            clear_done: ClearDone::OnDeletion,
            lists_in_size_order: true,
            opt_deletions_in_walk: true,
        }
    }
}

/// Replacements `(n, d)` rejected on this arena, shared with the pass iterator.
type FailedSet = Rc<RefCell<HashSet<(NodeId, NodeId)>>>;

/// One candidate the current pass proposed.
#[derive(Clone, Copy, Debug)]
enum Proposed {
    Replacement(NodeId, NodeId),
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
            log: Rc::default(),
            lists_total: 0,
        }
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
        let class = self.arena.node(id).class;
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
        let keys: Vec<(u32, std::cmp::Reverse<NodeId>)> = (0..arena.nodes.len() as NodeId)
            .filter(|&id| !arena.node(id).class.is_leaf() && view.live(id))
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
    fn fork<'p>(&self) -> Option<Box<dyn Policy + 'p>>
    where
        Self: 'p,
    {
        Some(Box::new(self.clone()))
    }

    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a> {
        let view = Rc::new(View::new(self.arena, config));
        let nodes = LargestFirst::new(&view);
        self.lists_total = nodes
            .keys()
            .filter(|&(_, n)| self.arena.node(n).class.is_listlike())
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
                    .map_or("file", |p| arena.kind_name(arena.node(p).kind));
                let what = if arena.node(a).class == Class::Error {
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
    /// Remembers the rejected replacements (when the option is on).
    fn learn_failed_replacements(&mut self, rejected: &[Proposed]) {
        if !self.options.skip_failed_replacements {
            return;
        }
        let mut failed = self.failed.borrow_mut();
        for p in rejected {
            if let Proposed::Replacement(n, d) = *p {
                failed.insert((n, d));
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
        if self.opt_deletions && arena.node(n).class == Class::Opt {
            // deleting the optional element: one candidate, remembered like a replacement
            let elem = arena
                .children(n)
                .first()
                .copied()
                .filter(|&e| view.present(e));
            return elem
                .filter(|&e| !failed.as_ref().is_some_and(|f| f.contains(&(n, e))))
                .into_iter()
                .collect();
        }
        if matches!(arena.node(n).class, Class::Opt | Class::Error) || arena.parent(n).is_none() {
            return Vec::new();
        }
        // the nearest first (breadth first), at most MAX_REPLACEMENTS of them: a node holding a
        // whole program (a JavaScript bundle's wrapper) has thousands, which all fail
        let mut ds = Vec::new();
        let mut queue: std::collections::VecDeque<NodeId> =
            arena.children(n).iter().copied().collect();
        while let Some(d) = queue.pop_front() {
            if ds.len() == MAX_REPLACEMENTS {
                break;
            }
            if !view.present(d) {
                continue;
            }
            let skip = failed.as_ref().is_some_and(|f| f.contains(&(n, d)));
            if !skip && view.live(d) && view.can_replace(n, d) {
                ds.push(d);
            }
            queue.extend(arena.children(d).iter().copied());
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
            if self.opt_deletions && self.view.arena.node(n).class == Class::Opt {
                self.log
                    .borrow_mut()
                    .proposed
                    .push(Proposed::Replacement(n, d));
                return Some(self.view.deletion_delta(self.config, &[d]));
            }
            let outer = self.view.leaves_under(n, self.config);
            let inner = self.view.leaves_under(d, self.config);
            if outer.len() == inner.len() {
                continue;
            }
            self.log
                .borrow_mut()
                .proposed
                .push(Proposed::Replacement(n, d));
            return Some(super::subtract(outer, inner));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::ddmin::Ddmin;
    use crate::reduce::{FnOracle, Verdict, reduce};
    use crate::tree::toy::{Kind, example_tree, parses, promotion_tree};

    #[test]
    fn perses_collapses_the_if_nest_in_exactly_3_oracle_calls() {
        let tree = example_tree();
        let crash = tree.token("crash");
        let mut calls = 0;
        let mut oracle = FnOracle(|c: &[Unit]| {
            calls += 1;
            c.contains(&crash) && parses(&tree.render(c))
        });
        let mut perses = Perses::new(&tree.arena, || Ddmin);
        let result = reduce(tree.all_units(), &mut oracle, &mut perses);
        assert_eq!(tree.render(&result), "int main ( ) { crash ( ) ; }");
        assert_eq!(calls, 3);
    }

    /// The spec's pass-by-pass table: which list is active, what is accepted, what `done` holds.
    #[test]
    fn perses_follows_the_specs_pass_table() {
        let tree = example_tree();
        let arena = &tree.arena;
        let crash = tree.token("crash");
        let lists: Vec<NodeId> = (0..arena.nodes.len() as NodeId)
            .filter(|&n| arena.node(n).kind == Kind::List as u16)
            .collect();
        let (innermost, outermost) = (lists[0], lists[3]);
        let mut perses = Perses::new(arena, || Ddmin);
        let mut config = tree.all_units();
        let mut rows = Vec::new();
        for _ in 0..4 {
            let mut accepted = None;
            for delta in perses.propose(&config) {
                let candidate = crate::reduce::subtract(&config, &delta);
                let ok = candidate.contains(&crash) && parses(&tree.render(&candidate));
                if Verdict::from_bool(ok) == Verdict::Interesting {
                    accepted = Some(candidate);
                    break;
                }
            }
            let active = perses.active();
            let go = perses.on_reduced(accepted.as_deref());
            let text = accepted.as_ref().map(|c| tree.render(c));
            let mut done: Vec<NodeId> = perses.done().iter().copied().collect();
            done.sort();
            rows.push((active, text, done));
            if let Some(c) = accepted {
                config = c;
            }
            if !go {
                break;
            }
        }
        let main_crash_noise = "int main ( ) { crash ( ) ; noise ( ) ; }".to_string();
        let main_crash = "int main ( ) { crash ( ) ; }".to_string();
        assert_eq!(
            rows,
            vec![
                (Some(outermost), Some(main_crash_noise), vec![]),
                (Some(innermost), Some(main_crash), vec![]),
                (Some(innermost), None, vec![innermost]),
                (None, None, vec![innermost]),
            ]
        );
    }

    /// 40 nested `if`s: more compatible descendants than one node may try at once, so the
    /// innermost `crash ( ) ;` is reached in steps, and still reached.
    #[test]
    fn a_deep_nest_still_collapses_through_the_nearest_replacements() {
        let mut b = crate::tree::toy::Builder::default();
        let crash = b.call("crash");
        let mut stmt = crash;
        for _ in 0..40 {
            let list = b.list(vec![stmt]);
            let block = b.block(list);
            stmt = b.if_stmt("c", block);
        }
        let list = b.list(vec![stmt]);
        let body = b.block(list);
        let root = b.func(body);
        let tree = b.finish(root);
        let crash = tree.token("crash");
        let mut oracle = FnOracle(|c: &[Unit]| c.contains(&crash) && parses(&tree.render(c)));
        let mut perses = Perses::new(&tree.arena, || Ddmin);
        let result = reduce(tree.all_units(), &mut oracle, &mut perses);
        assert_eq!(tree.render(&result), "int main ( ) { crash ( ) ; }");
    }

    #[test]
    fn liveness_and_anchor_match_the_specs_promotion_picture() {
        let tree = promotion_tree();
        let arena = &tree.arena;
        // keep `int main ( )` and the inner block `{ crash ( ) ; }`
        let keep: Vec<Unit> = vec![0, 1, 2, 3, 9, 10, 11, 12, 13, 14];
        assert_eq!(tree.render(&keep), "int main ( ) { crash ( ) ; }");
        let view = View::new(arena, &keep);
        let of_kind = |k: Kind| -> Vec<NodeId> {
            (0..arena.nodes.len() as NodeId)
                .filter(|&n| arena.node(n).kind == k as u16)
                .collect()
        };
        let blocks = of_kind(Kind::Block); // [inner, outer] in creation order
        let (inner, outer) = (blocks[0], blocks[1]);
        let if_stmt = of_kind(Kind::IfStmt)[0];
        let expr = of_kind(Kind::Expr)[0];
        let lists = of_kind(Kind::List);
        let outer_list = lists[1];
        // the `?` nodes: present but not live
        for n in [outer, outer_list, if_stmt, expr] {
            assert_eq!(
                (view.present(n), view.live(n)),
                (n != expr, false),
                "node {n}"
            );
        }
        assert!(view.live(inner));
        // by the spec's `live` the root is dead too (its body block is); `anchor_of` stops at it anyway
        assert!(!view.live(arena.root));
        assert_eq!(view.anchor_of(inner), outer);
        assert!(!view.can_replace(inner, if_stmt));
    }
}
