//! The parse tree that HDD and Perses reduce: an owned arena built once per round, either from
//! tree-sitter (`ts`) or by hand for the specification's toy grammar (`toy`).
//!
//! Tokens (the atomic units) are the leaves in source order, so every node covers a contiguous
//! token range `[lo, hi)`. Kleene structure is explicit: `List` nodes hold deletable elements (and
//! derived separators), `Opt` nodes hold one deletable element, `Error` nodes hold unparsed junk.
//! A [`View`] answers the per-configuration questions (present, live, sizes) after one O(n) sweep.

pub mod early;
pub mod front;
pub mod grammar;
pub mod hints;
pub mod render;
pub mod reparse;
pub mod text;
pub mod toy;
pub mod ts;

/// One atomic unit of a reduction: an index in source order (a line, a char, a tree token, or a
/// tree node for an inner minimizer).
pub type Unit = u32;

/// An arena index. Not an atomic unit: internal nodes never sit in a configuration.
pub type NodeId = u32;

/// "No node" / "no slot".
pub const NONE: u32 = u32::MAX;

/// How a node takes part in reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A leaf: exactly one atomic unit.
    Token,
    /// A separator leaf of a list (`,`): never deleted on its own, derived from the elements.
    Sep,
    /// A Kleene list: its non-separator children are deletable; live iff its parent is.
    List,
    /// An optional slot: a list of at most one element.
    Opt,
    /// A tree-sitter ERROR region: its children are deletable junk; never a replacement.
    Error,
    /// Any other node: live iff all its fixed (non-List/Opt/Error) children are.
    Regular,
}

impl Class {
    /// Nodes whose children are deletable elements.
    pub fn is_listlike(self) -> bool {
        matches!(self, Class::List | Class::Opt | Class::Error)
    }

    pub fn is_leaf(self) -> bool {
        matches!(self, Class::Token | Class::Sep)
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    pub class: Class,
    /// Grammar kind id (tree-sitter `kind_id`, or the toy grammar's kind).
    pub kind: u16,
    /// For a List/Opt: the type set its elements must belong to. For any other node: the type set
    /// of the slot it fills (a list element shares its list's set). `NONE` for the root.
    pub slot: u32,
    pub parent: NodeId,
    /// Range into [`Arena::child_ids`].
    pub children: (u32, u32),
    /// Token range `[lo, hi)`.
    pub toks: (u32, u32),
    pub depth: u32,
}

/// The tree, flattened. Both builders produce this.
#[derive(Clone, Debug, Default)]
pub struct Arena {
    pub nodes: Vec<Node>,
    pub child_ids: Vec<NodeId>,
    pub root: NodeId,
    /// Token index -> its leaf node.
    pub tok_leaf: Vec<NodeId>,
    /// All nodes in pre-order (parents before children).
    pub preorder: Vec<NodeId>,
    /// Node ids grouped by depth, each group sorted by id.
    pub by_depth: Vec<Vec<NodeId>>,
    /// Interned type sets: bitsets over kind ids.
    pub type_sets: Vec<Vec<u64>>,
    /// Kind names, for the debug dump.
    pub kind_names: Vec<String>,
}

impl Arena {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn children(&self, id: NodeId) -> &[NodeId] {
        let (a, b) = self.node(id).children;
        &self.child_ids[a as usize..b as usize]
    }

    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        let p = self.node(id).parent;
        (p != NONE).then_some(p)
    }

    pub fn token_count(&self) -> usize {
        self.tok_leaf.len()
    }

    pub fn max_depth(&self) -> u32 {
        self.by_depth.len().saturating_sub(1) as u32
    }

    pub fn kind_name(&self, kind: u16) -> &str {
        self.kind_names
            .get(kind as usize)
            .map_or("?", String::as_str)
    }

    fn set_contains(&self, set: u32, kind: u16) -> bool {
        self.type_sets
            .get(set as usize)
            .and_then(|bits| bits.get(kind as usize / 64))
            .is_some_and(|w| w >> (kind % 64) & 1 == 1)
    }

    fn set_subset(&self, a: u32, b: u32) -> bool {
        if a == b {
            return true;
        }
        let (Some(a), Some(b)) = (
            self.type_sets.get(a as usize),
            self.type_sets.get(b as usize),
        ) else {
            return false;
        };
        a.iter()
            .enumerate()
            .all(|(i, w)| w & !b.get(i).copied().unwrap_or(0) == 0)
    }

    /// Does any token under `id` survive in `config` (sorted)? Binary search: no view needed.
    pub fn present_in(&self, id: NodeId, config: &[Unit]) -> bool {
        let (lo, hi) = self.node(id).toks;
        let i = config.partition_point(|&u| u < lo);
        config.get(i).is_some_and(|&u| u < hi)
    }

    /// The present, non-separator children of a list-like node, by id, without a [`View`].
    pub fn elems_in(&self, list: NodeId, config: &[Unit]) -> Vec<NodeId> {
        let mut elems: Vec<NodeId> = self
            .children(list)
            .iter()
            .copied()
            .filter(|&c| self.node(c).class != Class::Sep && self.present_in(c, config))
            .collect();
        elems.sort_unstable();
        elems
    }

    /// HDD's rule: a node may be deleted only as an element of a List/Opt/Error node.
    pub fn deletable(&self, id: NodeId) -> bool {
        self.node(id).class != Class::Sep
            && self
                .parent(id)
                .is_some_and(|p| self.node(p).class.is_listlike())
    }

    /// Finishes a builder's work: depths, pre-order, the depth index and token ranges.
    /// Builders fill `class`, `kind`, `slot`, `parent` and `children`, with leaves numbered in
    /// source order by a left-to-right walk.
    pub fn finish(&mut self) {
        self.preorder.clear();
        self.tok_leaf.clear();
        let mut stack = vec![(self.root, 0u32)];
        while let Some((id, depth)) = stack.pop() {
            self.preorder.push(id);
            self.nodes[id as usize].depth = depth;
            if self.node(id).class.is_leaf() {
                let t = self.tok_leaf.len() as u32;
                self.nodes[id as usize].toks = (t, t + 1);
                self.tok_leaf.push(id);
            }
            let (a, b) = self.node(id).children;
            for i in (a..b).rev() {
                stack.push((self.child_ids[i as usize], depth + 1));
            }
        }
        for &id in self.preorder.iter().rev() {
            let kids = self.children(id);
            if let (Some(&f), Some(&l)) = (kids.first(), kids.last()) {
                let range = (self.node(f).toks.0, self.node(l).toks.1);
                self.nodes[id as usize].toks = range;
            } else if !self.node(id).class.is_leaf() {
                let t = self.tok_leaf.len() as u32;
                self.nodes[id as usize].toks = (t, t);
            }
        }
        self.fix_empty_ranges();
        let max = self.nodes.iter().map(|n| n.depth).max().unwrap_or(0);
        self.by_depth = vec![Vec::new(); max as usize + 1];
        for (i, n) in self.nodes.iter().enumerate() {
            self.by_depth[n.depth as usize].push(i as NodeId);
        }
    }

    /// Childless internal nodes got a placeholder range; give them an empty range at their
    /// position so ranges stay nested (pre-order: the next token after what precedes them).
    fn fix_empty_ranges(&mut self) {
        let mut next_tok = 0u32;
        for i in 0..self.preorder.len() {
            let id = self.preorder[i] as usize;
            let n = &mut self.nodes[id];
            if n.class.is_leaf() {
                next_tok = n.toks.1;
            } else if n.children.0 == n.children.1 {
                n.toks = (next_tok, next_tok);
            }
        }
    }

    /// A readable dump: one node a line, indented by depth, with class, kind, slot and tokens.
    pub fn dump(&self, token_text: &dyn Fn(u32) -> String) -> String {
        let mut out = String::new();
        for &id in &self.preorder {
            let n = self.node(id);
            let indent = "  ".repeat(n.depth as usize);
            let what = match n.class {
                Class::Token => format!("{:?}", token_text(n.toks.0)),
                Class::Sep => format!("sep {:?}", token_text(n.toks.0)),
                Class::List => "[List]".into(),
                Class::Opt => "[Opt]".into(),
                Class::Error => "ERROR".into(),
                Class::Regular => self.kind_name(n.kind).to_string(),
            };
            let slot = if n.slot == NONE {
                String::new()
            } else {
                format!(" slot#{}", n.slot)
            };
            out.push_str(&format!(
                "{indent}{what} #{id}{slot} toks {}..{}\n",
                n.toks.0, n.toks.1
            ));
        }
        out
    }
}

/// The answers one pass needs about one configuration, computed in O(nodes + tokens).
pub struct View<'t> {
    pub arena: &'t Arena,
    /// `prefix[t]` = number of kept tokens below `t`.
    prefix: Vec<u32>,
    live: Vec<bool>,
}

impl<'t> View<'t> {
    pub fn new(arena: &'t Arena, config: &[Unit]) -> Self {
        let t = arena.token_count();
        let mut kept = vec![false; t];
        for &u in config {
            kept[u as usize] = true;
        }
        let mut prefix = Vec::with_capacity(t + 1);
        let mut count = 0;
        prefix.push(0);
        for &k in &kept {
            count += k as u32;
            prefix.push(count);
        }
        let live = compute_live(arena, &kept);
        View {
            arena,
            prefix,
            live,
        }
    }

    /// Surviving tokens under `id`.
    pub fn size(&self, id: NodeId) -> u32 {
        let (lo, hi) = self.arena.node(id).toks;
        self.prefix[hi as usize] - self.prefix[lo as usize]
    }

    /// Does any token under `id` survive?
    pub fn present(&self, id: NodeId) -> bool {
        self.size(id) > 0
    }

    /// Does the node still fill its grammar slot?
    pub fn live(&self, id: NodeId) -> bool {
        self.live[id as usize]
    }

    /// The node whose slot `n` effectively fills: the top of the dead chain above it.
    pub fn anchor_of(&self, n: NodeId) -> NodeId {
        let arena = self.arena;
        let mut anchor = n;
        while let Some(p) = arena.parent(anchor) {
            if p == arena.root || self.live(p) {
                break;
            }
            anchor = p;
        }
        anchor
    }

    /// Can `d` replace `n`? Its kind must fit the slot `n` effectively fills.
    pub fn can_replace(&self, n: NodeId, d: NodeId) -> bool {
        let arena = self.arena;
        let (nn, dn) = (arena.node(n), arena.node(d));
        if n == d || matches!(nn.class, Class::Opt | Class::Error) {
            return false;
        }
        let anchor = self.anchor_of(n);
        let a = arena.node(anchor);
        if a.parent == NONE {
            return false; // the root fills no slot
        }
        match (a.class, dn.class) {
            // a list that fills no typed slot (the bracket tree's) is never replaced
            (Class::List, Class::List) => a.slot != NONE && arena.set_subset(dn.slot, a.slot),
            (_, Class::List | Class::Opt | Class::Error | Class::Sep) => false,
            (Class::List | Class::Opt | Class::Error, _) => false,
            _ => arena.set_contains(a.slot, dn.kind),
        }
    }

    /// The surviving tokens under `id`: a sub-slice of the (sorted) configuration.
    pub fn leaves_under<'c>(&self, id: NodeId, config: &'c [Unit]) -> &'c [Unit] {
        let (lo, hi) = self.arena.node(id).toks;
        let a = self.prefix[lo as usize] as usize;
        let b = self.prefix[hi as usize] as usize;
        &config[a..b]
    }

    /// The present, non-separator children of a list-like node, by id.
    pub fn elems_of(&self, list: NodeId) -> Vec<NodeId> {
        let mut elems: Vec<NodeId> = self
            .arena
            .children(list)
            .iter()
            .copied()
            .filter(|&c| self.arena.node(c).class != Class::Sep && self.present(c))
            .collect();
        elems.sort_unstable();
        elems
    }

    /// The delta that deletes the nodes `drop` (disjoint subtrees): their surviving tokens, plus
    /// every kept separator that the remaining elements of its list no longer justify.
    pub fn deletion_delta(&self, config: &[Unit], drop: &[NodeId]) -> Vec<Unit> {
        let mut delta: Vec<Unit> = Vec::new();
        for &d in drop {
            delta.extend_from_slice(self.leaves_under(d, config));
        }
        let mut lists: Vec<NodeId> = drop
            .iter()
            .filter_map(|&d| self.arena.parent(d))
            .filter(|&p| self.arena.node(p).class == Class::List)
            .collect();
        lists.sort_unstable();
        lists.dedup();
        for list in lists {
            self.dropped_separators(list, drop, config, &mut delta);
        }
        delta.sort_unstable();
        delta.dedup();
        delta
    }

    /// A separator survives iff the element after it survives and some element before it does;
    /// a trailing separator survives iff some element before it does.
    fn dropped_separators(
        &self,
        list: NodeId,
        drop: &[NodeId],
        config: &[Unit],
        out: &mut Vec<Unit>,
    ) {
        let arena = self.arena;
        let kids = arena.children(list);
        if !kids.iter().any(|&c| arena.node(c).class == Class::Sep) {
            return;
        }
        // the minimizers' drops are sorted: a binary search keeps a long comma list (a big
        // initializer) O(k log k) per candidate instead of O(k^2)
        let sorted = drop.is_sorted();
        let dropped = |c: NodeId| match sorted {
            true => drop.binary_search(&c).is_ok(),
            false => drop.contains(&c),
        };
        let survives = |c: NodeId| self.present(c) && !dropped(c);
        let mut any_before = false;
        for (i, &c) in kids.iter().enumerate() {
            if arena.node(c).class != Class::Sep {
                any_before |= survives(c);
                continue;
            }
            let next = kids[i + 1..]
                .iter()
                .copied()
                .find(|&k| arena.node(k).class != Class::Sep);
            let keep = any_before && next.is_none_or(survives);
            if !keep {
                out.extend_from_slice(self.leaves_under(c, config));
            }
        }
    }
}

/// Liveness of every node: bottom-up for tokens and regular nodes (all fixed children live),
/// then top-down for list-like nodes (live iff the parent is, or if they are the root).
fn compute_live(arena: &Arena, kept: &[bool]) -> Vec<bool> {
    let mut live = vec![false; arena.nodes.len()];
    for &id in arena.preorder.iter().rev() {
        let n = arena.node(id);
        live[id as usize] = match n.class {
            Class::Token | Class::Sep => kept[n.toks.0 as usize],
            Class::List | Class::Opt | Class::Error => false,
            Class::Regular => arena
                .children(id)
                .iter()
                .filter(|&&c| !arena.node(c).class.is_listlike())
                .all(|&c| live[c as usize]),
        };
    }
    for &id in &arena.preorder {
        let n = arena.node(id);
        if n.class.is_listlike() {
            // a list-like root (an input whose whole parse is an ERROR) fills its place
            live[id as usize] = n.parent == NONE || live[n.parent as usize];
        }
    }
    live
}
