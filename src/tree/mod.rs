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
pub mod pieces;
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
#[repr(u8)]
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
    /// By discriminant.
    const ALL: [Class; 6] = [
        Class::Token,
        Class::Sep,
        Class::List,
        Class::Opt,
        Class::Error,
        Class::Regular,
    ];

    /// Nodes whose children are deletable elements.
    pub fn is_listlike(self) -> bool {
        matches!(self, Class::List | Class::Opt | Class::Error)
    }

    pub fn is_leaf(self) -> bool {
        matches!(self, Class::Token | Class::Sep)
    }
}

/// One node, packed in 16 bytes: a large input has millions (a 30 MB log has 6.6 million).
/// What can be derived is not stored: in a pre-order arena a node's children are the nodes
/// from `id + 1` up to its `end`, one subtree after the other, and its last token is the first
/// token of the node after its subtree.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// The class (top [`CLASS_BITS`] bits) and the grammar kind.
    tag: u16,
    /// The type set ([`Node::slot`]); `u16::MAX` for none.
    slot: u16,
    parent: NodeId,
    /// The tokens before this node in pre-order: its first token.
    lo: u32,
    /// Pre-order arenas: the first id after this node's subtree.
    end: u32,
}

const CLASS_BITS: u32 = 3;
/// Kind ids must fit beside the class (tree-sitter's grammars have at most a few hundred).
pub const MAX_KIND: u16 = (1 << (16 - CLASS_BITS)) - 1;
const NO_SLOT: u16 = u16::MAX;

impl Node {
    fn new(class: Class, kind: u16, slot: u32, parent: NodeId) -> Node {
        assert!(kind <= MAX_KIND, "kind id {kind} does not fit a node");
        let slot = match slot {
            NONE => NO_SLOT,
            s => u16::try_from(s)
                .ok()
                .filter(|&s| s != NO_SLOT)
                .expect("too many type sets for a node"),
        };
        Node {
            tag: (class as u16) << (16 - CLASS_BITS) | kind,
            slot,
            parent,
            lo: 0,
            end: 0,
        }
    }

    pub fn class(&self) -> Class {
        Class::ALL[(self.tag >> (16 - CLASS_BITS)) as usize]
    }

    /// Grammar kind id (tree-sitter `kind_id`, or the toy grammar's kind).
    pub fn kind(&self) -> u16 {
        self.tag & MAX_KIND
    }

    /// For a List/Opt: the type set its elements must belong to. For any other node: the type
    /// set of the slot it fills (a list element shares its list's set). `NONE` for the root.
    pub fn slot(&self) -> u32 {
        match self.slot {
            NO_SLOT => NONE,
            s => s as u32,
        }
    }

    /// The parent, or `NONE` for the root.
    pub fn parent(&self) -> NodeId {
        self.parent
    }
}

/// The tree, flattened. Both builders produce this, with ids in pre-order (source order).
#[derive(Clone, Debug, Default)]
pub struct Arena {
    nodes: Vec<Node>,
    pub root: NodeId,
    /// How many tokens (leaves).
    tokens: u32,
    /// Interned type sets: bitsets over kind ids.
    pub type_sets: Vec<Vec<u64>>,
    /// Kind names, for the debug dump.
    pub kind_names: Vec<String>,
    /// A tree built by hand in another order (the toy grammar's, in creation order): its links,
    /// which a pre-order arena derives.
    links: Option<Box<Links>>,
    /// Node ids grouped by depth, each group sorted by id: made for HDD when it asks.
    by_depth: std::sync::OnceLock<Vec<Vec<NodeId>>>,
}

/// The links of an arena whose ids are not in pre-order.
#[derive(Clone, Debug)]
struct Links {
    children: Vec<Vec<NodeId>>,
    /// Token index -> its leaf node.
    tok_leaf: Vec<NodeId>,
    /// The end of each node's token range.
    hi: Vec<u32>,
    preorder: Vec<NodeId>,
}

/// A node's children, in order.
pub enum Children<'a> {
    /// Pre-order: each child's subtree ends where the next child starts.
    Preorder {
        nodes: &'a [Node],
        next: NodeId,
        end: NodeId,
    },
    Listed(std::slice::Iter<'a, NodeId>),
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        match self {
            Children::Preorder { nodes, next, end } => {
                let c = *next;
                (c < *end).then(|| {
                    *next = nodes[c as usize].end;
                    c
                })
            }
            Children::Listed(it) => it.next().copied(),
        }
    }
}

impl Arena {
    /// An empty arena for a builder.
    pub fn new(kind_names: Vec<String>, type_sets: Vec<Vec<u64>>) -> Arena {
        Arena {
            kind_names,
            type_sets,
            ..Arena::default()
        }
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// How many nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn children(&self, id: NodeId) -> Children<'_> {
        match &self.links {
            None => Children::Preorder {
                nodes: &self.nodes,
                next: id + 1,
                end: self.node(id).end,
            },
            Some(links) => Children::Listed(links.children[id as usize].iter()),
        }
    }

    /// Does the node have children?
    pub fn has_children(&self, id: NodeId) -> bool {
        self.children(id).next().is_some()
    }

    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        let p = self.node(id).parent;
        (p != NONE).then_some(p)
    }

    /// Token range `[lo, hi)`.
    pub fn toks(&self, id: NodeId) -> (u32, u32) {
        let n = self.node(id);
        let hi = match &self.links {
            None => self
                .nodes
                .get(n.end as usize)
                .map_or(self.tokens, |next| next.lo),
            Some(links) => links.hi[id as usize],
        };
        (n.lo, hi)
    }

    pub fn token_count(&self) -> usize {
        self.tokens as usize
    }

    /// The leaves in token order: token `t`'s is the `t`-th.
    pub fn leaves(&self) -> impl Iterator<Item = NodeId> + '_ {
        let listed = self.links.as_ref().map(|l| l.tok_leaf.as_slice());
        let ids = match listed {
            None => 0..self.nodes.len() as NodeId,
            Some(_) => 0..0,
        };
        ids.filter(|&id| self.node(id).class().is_leaf())
            .chain(listed.unwrap_or_default().iter().copied())
    }

    /// All node ids, parents before children.
    pub fn preorder(&self) -> impl DoubleEndedIterator<Item = NodeId> + '_ {
        let listed = self.links.as_ref().map(|l| l.preorder.as_slice());
        let ids = match listed {
            None => 0..self.nodes.len() as NodeId,
            Some(_) => 0..0,
        };
        ids.chain(listed.unwrap_or_default().iter().copied())
    }

    /// The nodes at `depth`, sorted by id.
    pub fn level(&self, depth: u32) -> Option<&[NodeId]> {
        self.by_depth().get(depth as usize).map(Vec::as_slice)
    }

    pub fn max_depth(&self) -> u32 {
        self.by_depth().len().saturating_sub(1) as u32
    }

    fn by_depth(&self) -> &Vec<Vec<NodeId>> {
        self.by_depth.get_or_init(|| {
            let mut depth = vec![0u32; self.nodes.len()];
            let mut levels: Vec<Vec<NodeId>> = Vec::new();
            for id in self.preorder() {
                let d = self.parent(id).map_or(0, |p| depth[p as usize] + 1);
                depth[id as usize] = d;
                if levels.len() <= d as usize {
                    levels.resize_with(d as usize + 1, Vec::new);
                }
            }
            for (id, &d) in depth.iter().enumerate() {
                levels[d as usize].push(id as NodeId);
            }
            levels
        })
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
        let (lo, hi) = self.toks(id);
        let i = config.partition_point(|&u| u < lo);
        config.get(i).is_some_and(|&u| u < hi)
    }

    /// The present, non-separator children of a list-like node, by id, without a [`View`].
    pub fn elems_in(&self, list: NodeId, config: &[Unit]) -> Vec<NodeId> {
        let mut elems: Vec<NodeId> = self
            .children(list)
            .filter(|&c| self.node(c).class() != Class::Sep && self.present_in(c, config))
            .collect();
        elems.sort_unstable();
        elems
    }

    /// HDD's rule: a node may be deleted only as an element of a List/Opt/Error node.
    pub fn deletable(&self, id: NodeId) -> bool {
        self.node(id).class() != Class::Sep
            && self
                .parent(id)
                .is_some_and(|p| self.node(p).class().is_listlike())
    }

    /// An arena from nodes in any order, each with its children (a hand-built tree): token
    /// ranges by a left-to-right walk from `root`, leaves numbered in source order.
    pub fn from_links(
        mut self,
        root: NodeId,
        nodes: Vec<(Class, u16, u32)>,
        children: Vec<Vec<NodeId>>,
    ) -> Arena {
        let mut parent = vec![NONE; nodes.len()];
        for (id, kids) in children.iter().enumerate() {
            for &c in kids {
                parent[c as usize] = id as NodeId;
            }
        }
        self.nodes = nodes
            .iter()
            .enumerate()
            .map(|(id, &(class, kind, slot))| Node::new(class, kind, slot, parent[id]))
            .collect();
        self.root = root;
        let mut preorder = Vec::with_capacity(nodes.len());
        let mut tok_leaf = Vec::new();
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            preorder.push(id);
            let n = &mut self.nodes[id as usize];
            n.lo = tok_leaf.len() as u32;
            if n.class().is_leaf() {
                tok_leaf.push(id);
            }
            stack.extend(children[id as usize].iter().rev());
        }
        self.tokens = tok_leaf.len() as u32;
        let mut hi = vec![self.tokens; nodes.len()];
        for &id in preorder.iter().rev() {
            let n = self.nodes[id as usize];
            hi[id as usize] = match children[id as usize].last() {
                Some(&last) => hi[last as usize],
                None => n.lo + n.class().is_leaf() as u32,
            };
        }
        self.links = Some(Box::new(Links {
            children,
            tok_leaf,
            hi,
            preorder,
        }));
        self
    }

    /// A readable dump: one node a line, indented by depth, with class, kind, slot and tokens.
    pub fn dump(&self, token_text: &dyn Fn(u32) -> String) -> String {
        let mut out = String::new();
        let mut depth = vec![0usize; self.nodes.len()];
        for id in self.preorder() {
            let n = self.node(id);
            let d = self.parent(id).map_or(0, |p| depth[p as usize] + 1);
            depth[id as usize] = d;
            let indent = "  ".repeat(d);
            let (lo, hi) = self.toks(id);
            let what = match n.class() {
                Class::Token => format!("{:?}", token_text(lo)),
                Class::Sep => format!("sep {:?}", token_text(lo)),
                Class::List => "[List]".into(),
                Class::Opt => "[Opt]".into(),
                Class::Error => "ERROR".into(),
                Class::Regular => self.kind_name(n.kind()).to_string(),
            };
            let slot = if n.slot() == NONE {
                String::new()
            } else {
                format!(" slot#{}", n.slot())
            };
            out.push_str(&format!("{indent}{what} #{id}{slot} toks {lo}..{hi}\n"));
        }
        out
    }
}

/// Builds an arena in pre-order: a node is opened before its subtree and closed after it.
/// Leaves take the next token.
pub struct PreorderBuilder {
    arena: Arena,
}

impl PreorderBuilder {
    pub fn new(arena: Arena, nodes: usize) -> Self {
        let mut arena = arena;
        arena.nodes.reserve_exact(nodes);
        PreorderBuilder { arena }
    }

    /// Opens an inner node (a leaf when `class` is one: then it is closed too).
    pub fn open(&mut self, class: Class, kind: u16, slot: u32, parent: NodeId) -> NodeId {
        let id = self.arena.nodes.len() as NodeId;
        let mut node = Node::new(class, kind, slot, parent);
        node.lo = self.arena.tokens;
        if class.is_leaf() {
            node.end = id + 1;
            self.arena.tokens += 1;
        }
        self.arena.nodes.push(node);
        id
    }

    /// Its subtree is complete.
    pub fn close(&mut self, id: NodeId) {
        self.arena.nodes[id as usize].end = self.arena.nodes.len() as NodeId;
    }

    pub fn kind(&self, id: NodeId) -> u16 {
        self.arena.nodes[id as usize].kind()
    }

    pub fn finish(mut self) -> Arena {
        self.arena.nodes.shrink_to_fit();
        self.arena.root = 0;
        self.arena
    }
}

/// The answers one pass needs about one configuration, computed in O(nodes + tokens). Bits,
/// not a word per token: every pass of a speculating run has one, and a large input has
/// millions of tokens.
pub struct View<'t> {
    pub arena: &'t Arena,
    /// The kept tokens.
    kept: Bits,
    /// `rank[w]` = number of kept tokens below token `64 * w`.
    rank: Vec<u32>,
    live: Bits,
}

/// A fixed-size set of bits.
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    fn get(&self, i: u32) -> bool {
        self.0[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    fn set(&mut self, i: u32, on: bool) {
        let (w, b) = ((i / 64) as usize, i % 64);
        self.0[w] = self.0[w] & !(1 << b) | (on as u64) << b;
    }
}

impl<'t> View<'t> {
    pub fn new(arena: &'t Arena, config: &[Unit]) -> Self {
        let mut kept = Bits::new(arena.token_count());
        for &u in config {
            kept.set(u, true);
        }
        let mut rank = Vec::with_capacity(kept.0.len() + 1);
        let mut count = 0;
        rank.push(0);
        for w in &kept.0 {
            count += w.count_ones();
            rank.push(count);
        }
        let live = compute_live(arena, &kept);
        View {
            arena,
            kept,
            rank,
            live,
        }
    }

    /// How many tokens below `t` are kept.
    fn prefix(&self, t: u32) -> u32 {
        let (w, b) = ((t / 64) as usize, t % 64);
        match b {
            0 => self.rank[w],
            _ => self.rank[w] + (self.kept.0[w] & ((1 << b) - 1)).count_ones(),
        }
    }

    /// Surviving tokens under `id`.
    pub fn size(&self, id: NodeId) -> u32 {
        let (lo, hi) = self.arena.toks(id);
        self.prefix(hi) - self.prefix(lo)
    }

    /// Does any token under `id` survive?
    pub fn present(&self, id: NodeId) -> bool {
        self.size(id) > 0
    }

    /// Does the node still fill its grammar slot?
    pub fn live(&self, id: NodeId) -> bool {
        self.live.get(id)
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
        if n == d || matches!(nn.class(), Class::Opt | Class::Error) {
            return false;
        }
        let anchor = self.anchor_of(n);
        let a = arena.node(anchor);
        if a.parent() == NONE {
            return false; // the root fills no slot
        }
        match (a.class(), dn.class()) {
            // a list that fills no typed slot (the bracket tree's) is never replaced
            (Class::List, Class::List) => a.slot() != NONE && arena.set_subset(dn.slot(), a.slot()),
            (_, Class::List | Class::Opt | Class::Error | Class::Sep) => false,
            (Class::List | Class::Opt | Class::Error, _) => false,
            _ => arena.set_contains(a.slot(), dn.kind()),
        }
    }

    /// The surviving tokens under `id`: a sub-slice of the (sorted) configuration.
    pub fn leaves_under<'c>(&self, id: NodeId, config: &'c [Unit]) -> &'c [Unit] {
        let (lo, hi) = self.arena.toks(id);
        &config[self.prefix(lo) as usize..self.prefix(hi) as usize]
    }

    /// The present, non-separator children of a list-like node, by id.
    pub fn elems_of(&self, list: NodeId) -> Vec<NodeId> {
        let mut elems: Vec<NodeId> = self
            .arena
            .children(list)
            .filter(|&c| self.arena.node(c).class() != Class::Sep && self.present(c))
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
            .filter(|&p| self.arena.node(p).class() == Class::List)
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
        if !arena
            .children(list)
            .any(|c| arena.node(c).class() == Class::Sep)
        {
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
        // the separators since the last element, decided by the next element (or the end)
        let mut pending: Vec<NodeId> = Vec::new();
        for c in arena.children(list) {
            if arena.node(c).class() == Class::Sep {
                pending.push(c);
                continue;
            }
            let next_survives = survives(c);
            for s in pending.drain(..) {
                if !(any_before && next_survives) {
                    out.extend_from_slice(self.leaves_under(s, config));
                }
            }
            any_before |= next_survives;
        }
        for s in pending {
            if !any_before {
                out.extend_from_slice(self.leaves_under(s, config));
            }
        }
    }
}

/// Liveness of every node: bottom-up for tokens and regular nodes (all fixed children live),
/// then top-down for list-like nodes (live iff the parent is, or if they are the root).
fn compute_live(arena: &Arena, kept: &Bits) -> Bits {
    let mut live = Bits::new(arena.len());
    for id in arena.preorder().rev() {
        let n = arena.node(id);
        let on = match n.class() {
            Class::Token | Class::Sep => kept.get(n.lo),
            Class::List | Class::Opt | Class::Error => false,
            Class::Regular => arena
                .children(id)
                .filter(|&c| !arena.node(c).class().is_listlike())
                .all(|c| live.get(c)),
        };
        live.set(id, on);
    }
    for id in arena.preorder() {
        let n = arena.node(id);
        if n.class().is_listlike() {
            // a list-like root (an input whose whole parse is an ERROR) fills its place
            let on = n.parent() == NONE || live.get(n.parent());
            live.set(id, on);
        }
    }
    live
}
