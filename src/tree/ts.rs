//! The tree-sitter bridge: parse once, copy into an owned [`Arena`] with synthetic List/Opt nodes
//! (derived from the grammar's slot tables), then drop the tree-sitter tree. Iterative throughout:
//! C trees get deep (else-if chains, long `a+b+c` chains).

use anyhow::{Context, Result};
use tree_sitter::{Parser, Tree};

use super::grammar::{Grammar, SlotInfo};
use super::render::{TokenRules, Tokens};
pub use super::reparse::{Reparse, count_errors, parse_tree};
use super::{Arena, Class, NONE, NodeId, PreorderBuilder};

/// A parsed input: the arena, the tokens' byte spans, and how many ERROR/MISSING nodes it had.
pub struct Parsed {
    pub arena: Arena,
    pub tokens: Tokens,
    pub errors: usize,
    /// Byte offset of the first error, if any.
    pub first_error: Option<usize>,
}

/// The one place a tree-sitter parser is made.
pub fn new_parser(grammar: &Grammar) -> Result<Parser> {
    let mut parser = Parser::new();
    parser.set_language(&grammar.language).with_context(|| {
        format!(
            "the {} grammar does not load into this tree-sitter (ABI version mismatch?)",
            grammar.name
        )
    })?;
    Ok(parser)
}

/// Parses `src` and builds its arena.
pub fn build(grammar: &Grammar, parser: &mut Parser, src: &[u8]) -> Result<Parsed> {
    Ok(build_tree(grammar, &parse_tree(parser, src)?, src))
}

/// Builds the arena of `src` from its tree-sitter `tree`.
pub fn build_tree(grammar: &Grammar, tree: &Tree, src: &[u8]) -> Parsed {
    let (errors, first_error) = count_errors(tree);
    let raw = RawTree::copy(tree, grammar);
    let seps = derive_separators(grammar, &raw);
    let (arena, spans) = Builder::new(grammar, &raw, &seps).run();
    let rules = token_rules(grammar, &raw, &arena, &spans);
    Parsed {
        arena,
        tokens: Tokens::new(src.to_vec(), spans).with_rules(rules),
        errors,
        first_error,
    }
}

/// The tokens [`build_tree`] would make of `tree`, counted without building anything: the
/// leaves the copy keeps (atomic kinds are leaves) less those the builder skips, and a
/// separator inside a list run is one token even when it has parts (Python's `not in`).
pub fn count_tokens(g: &Grammar, tree: &Tree) -> usize {
    let seps = separators_of(g, tree);
    let counter = Rules { g, seps: &seps };
    let mut cursor = tree.walk();
    let mut levels: Vec<Level> = Vec::new();
    let mut count = 0;
    loop {
        let n = raw_of(g, &cursor, levels.last().map(|l| l.kind));
        let inner = !g.is_atomic(cursor.node().kind_id()) && cursor.node().child_count() > 0;
        let visit = match levels.last_mut() {
            None => Some(inner),
            Some(level) => counter.visit(level, n, inner),
        };
        match visit {
            Some(true) => {
                levels.push(Level {
                    kind: n.kind,
                    error: n.error(),
                    run: None,
                });
                cursor.goto_first_child();
                continue;
            }
            Some(false) => count += 1,
            None => {}
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if levels.pop().is_none() || !cursor.goto_parent() {
                return count;
            }
        }
    }
}

/// An inner node whose children [`count_tokens`] is walking, and the field of the list run
/// they are in, if any.
struct Level {
    kind: u16,
    error: bool,
    run: Option<u16>,
}

/// The node under `cursor` as the copy would make it (its field known for a parent of kind
/// `parent`).
fn raw_of(g: &Grammar, cursor: &tree_sitter::TreeCursor, parent: Option<u16>) -> Raw {
    let node = cursor.node();
    let flags = [
        (node.is_named(), Raw::NAMED),
        (node.is_extra(), Raw::EXTRA),
        (node.is_error(), Raw::ERROR),
        (node.is_missing(), Raw::MISSING),
    ]
    .iter()
    .fold(0, |f, &(on, bit)| if on { f | bit } else { f });
    let field = match (parent, cursor.field_id()) {
        (Some(kind), Some(f)) if g.slot(kind, f.get()).is_some() => f.get(),
        _ => 0,
    };
    Raw {
        kind: if node.is_error() {
            g.kind_error
        } else {
            node.kind_id()
        },
        flags,
        field,
        start: node.start_byte() as u32,
        end: node.end_byte() as u32,
        sub_end: 0,
    }
}

/// [`derive_separators`] from the tree itself, for [`count_tokens`].
fn separators_of(g: &Grammar, tree: &Tree) -> Vec<bool> {
    let mut seps = vec![false; g.kind_names.len()];
    let mut kids: Vec<Raw> = Vec::new();
    let mut walk = tree.walk();
    let mut inner = tree.walk();
    loop {
        let node = walk.node();
        if !g.is_atomic(node.kind_id()) && node.child_count() > 0 {
            let parent = raw_of(g, &walk, None);
            kids.clear();
            inner.reset(node);
            inner.goto_first_child();
            loop {
                kids.push(raw_of(g, &inner, Some(parent.kind)));
                if !inner.goto_next_sibling() {
                    break;
                }
            }
            separators_in(g, parent, &kids, &mut seps);
            walk.goto_first_child();
            continue;
        }
        loop {
            if walk.goto_next_sibling() {
                break;
            }
            if !walk.goto_parent() {
                return seps;
            }
        }
    }
}

/// The anonymous token kinds that separate list elements in this tree: a token that sits alone
/// between two elements of the same `multiple` slot (`,` in `f(a, b)`, `;` between Python
/// statements, a newline between Go statements). Derived, so no language lists them.
fn derive_separators(g: &Grammar, raw: &RawTree) -> Vec<bool> {
    let mut seps = vec![false; g.kind_names.len()];
    let mut kids: Vec<Raw> = Vec::new();
    for p in 0..raw.nodes.len() as u32 {
        if raw.is_leaf(p) {
            continue;
        }
        kids.clear();
        kids.extend(raw.kids(p).map(|k| raw.nodes[k as usize]));
        separators_in(g, raw.nodes[p as usize], &kids, &mut seps);
    }
    seps
}

/// The separator kinds among the children `kids` of `parent`.
fn separators_in(g: &Grammar, parent: Raw, kids: &[Raw], seps: &mut [bool]) {
    if parent.error() || g.is_not_list(parent.kind) {
        return;
    }
    let elem = |n: &Raw, field: u16| n.named() && !n.extra() && !n.error() && n.field == field;
    let kids: Vec<&Raw> = kids.iter().filter(|n| !n.extra() && !n.missing()).collect();
    for w in kids.windows(3) {
        let (a, t, b) = (w[0], w[1], w[2]);
        let leaf_token = !t.named() && !t.error() && t.start < t.end;
        if !leaf_token
            || !elem(a, a.field)
            || !elem(b, a.field)
            || t.field == a.field && t.field != 0
        {
            continue;
        }
        let multiple = g.slot(parent.kind, a.field).is_some_and(|s| s.multiple);
        let name = g.kind_names.get(t.kind as usize).map_or("", String::as_str);
        let attached = a.field == 0 && g.overrides.attach_to_previous.contains(&name);
        if multiple && !attached {
            seps[t.kind as usize] = true;
        }
    }
}

/// The renderer's per-language rules, with the tokens that open an indented block (the
/// language's `empty_block` kind) and the comment tokens flagged.
fn token_rules(g: &Grammar, raw: &RawTree, arena: &Arena, spans: &[(u32, u32)]) -> TokenRules {
    let render = g.spec.render;
    let mut rules = TokenRules {
        word_chars: render.word_chars,
        ..TokenRules::default()
    };
    let Some(block) = render.empty_block else {
        return rules;
    };
    let block = g.language.id_for_node_kind(block.kind, true);
    let mut flags: Vec<u8> = arena
        .leaves()
        .map(|leaf| match g.is_comment(arena.node(leaf).kind()) {
            true => TokenRules::COMMENT,
            false => 0,
        })
        .collect();
    let mut headers = Vec::new();
    for p in 0..raw.nodes.len() as u32 {
        for n in raw.kids(p).map(|k| &raw.nodes[k as usize]) {
            if n.kind != block || n.error() {
                continue;
            }
            let mut t = spans.partition_point(|s| s.1 <= n.start);
            while t > 0 && flags[t - 1] & TokenRules::COMMENT != 0 {
                t -= 1;
            }
            if t > 0 {
                flags[t - 1] |= TokenRules::OPENER;
                // the statement's start; an error region's may be far above: the `:`'s line
                if !raw.nodes[p as usize].error() {
                    headers.push(((t - 1) as u32, raw.nodes[p as usize].start));
                }
            }
        }
    }
    headers.sort_unstable();
    headers.dedup_by_key(|h| h.0);
    rules.flags = flags;
    rules.headers = headers;
    rules.filler = render.empty_block.map_or(b"", |b| b.filler.as_bytes());
    rules.indent_sensitive = true;
    rules
}

/// A plain copy of the tree-sitter tree (atomic kinds cut off at the top), in pre-order: a
/// node's children are the nodes after it, one subtree after the other, up to its `sub_end`.
struct RawTree {
    nodes: Vec<Raw>,
}

#[derive(Clone, Copy)]
struct Raw {
    kind: u16,
    field: u16,
    flags: u8,
    start: u32,
    end: u32,
    /// The first node after this one's subtree.
    sub_end: u32,
}

impl Raw {
    const NAMED: u8 = 1;
    const EXTRA: u8 = 2;
    const ERROR: u8 = 4;
    const MISSING: u8 = 8;

    fn named(&self) -> bool {
        self.flags & Self::NAMED != 0
    }

    fn extra(&self) -> bool {
        self.flags & Self::EXTRA != 0
    }

    fn error(&self) -> bool {
        self.flags & Self::ERROR != 0
    }

    fn missing(&self) -> bool {
        self.flags & Self::MISSING != 0
    }
}

impl RawTree {
    fn copy(tree: &Tree, g: &Grammar) -> RawTree {
        let mut raw = RawTree { nodes: Vec::new() };
        let mut cursor = tree.walk();
        let mut stack: Vec<u32> = Vec::new();
        loop {
            let node = cursor.node();
            let id = raw.nodes.len() as u32;
            let parent = stack.last().map(|&p| raw.nodes[p as usize].kind);
            raw.nodes.push(Raw {
                sub_end: id + 1,
                ..raw_of(g, &cursor, parent)
            });
            if !g.is_atomic(node.kind_id()) && cursor.goto_first_child() {
                stack.push(id);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                let Some(parent) = stack.pop() else {
                    raw.nodes.shrink_to_fit();
                    return raw;
                };
                raw.nodes[parent as usize].sub_end = raw.nodes.len() as u32;
                cursor.goto_parent();
            }
        }
    }

    fn is_leaf(&self, id: u32) -> bool {
        self.nodes[id as usize].sub_end == id + 1
    }

    /// The children of `id`, in order.
    fn kids(&self, id: u32) -> impl Iterator<Item = u32> + '_ {
        let end = self.nodes[id as usize].sub_end;
        let mut next = id + 1;
        std::iter::from_fn(move || {
            (next < end).then(|| {
                let k = next;
                next = self.nodes[k as usize].sub_end;
                k
            })
        })
    }

    /// The sibling after `id` under `parent`, or `NONE`.
    fn next_sibling(&self, id: u32, parent: u32) -> u32 {
        let next = self.nodes[id as usize].sub_end;
        match next < self.nodes[parent as usize].sub_end {
            true => next,
            false => NONE,
        }
    }
}

/// The builder's rules for list runs, which the token count follows too.
struct Rules<'g> {
    g: &'g Grammar,
    /// Derived separator kinds (by kind id).
    seps: &'g [bool],
}

impl Rules<'_> {
    fn is_sep(&self, n: Raw) -> bool {
        !n.named() && self.seps.get(n.kind as usize).copied().unwrap_or(false)
    }

    /// `;` after an unnamed-children element (`struct S;` in a block) belongs to that element.
    fn attaches(&self, n: Raw, field: u16) -> bool {
        field == 0
            && !n.named()
            && self
                .g
                .overrides
                .attach_to_previous
                .contains(&self.name(n.kind))
    }

    fn name(&self, kind: u16) -> &str {
        self.g
            .kind_names
            .get(kind as usize)
            .map_or("", String::as_str)
    }

    /// Does child `n` of a `parent` (not an ERROR region) start a list run?
    fn starts_run(&self, parent: u16, n: Raw) -> Option<SlotInfo> {
        let slot = self.g.slot(parent, n.field)?;
        let starts = !n.extra() && !n.error() && n.named() && slot.multiple;
        (starts && !self.g.is_not_list(parent)).then_some(slot)
    }

    /// Does child `n` go on a list run of `field`: another element, or what sits between?
    fn continues_run(&self, n: Raw, field: u16) -> bool {
        let element = n.named() && !n.extra() && !n.error() && n.field == field;
        element || n.extra() || n.error() || self.is_sep(n) || self.attaches(n, field)
    }

    /// How [`count_tokens`] takes child `n` (`inner`: it has children of its own) of the node
    /// of `level`: skipped (`None`), one token (`Some(false)`) or walked into (`Some(true)`).
    fn visit(&self, level: &mut Level, n: Raw, inner: bool) -> Option<bool> {
        if n.missing() || (n.start == n.end && !inner) {
            return None;
        }
        if level.run.is_some_and(|field| !self.continues_run(n, field)) {
            level.run = None;
        }
        if level.run.is_none() && !level.error && self.starts_run(level.kind, n).is_some() {
            level.run = Some(n.field);
        }
        Some(inner && !(level.run.is_some() && self.is_sep(n)))
    }
}

/// What is left to build, last in first out: the builder makes nodes in pre-order, so a node's
/// subtree is complete before its next sibling starts.
enum Task {
    /// The node for raw node `r`, in a slot admitting `slot`.
    Convert { r: u32, slot: u32, parent: NodeId },
    /// Raw node `r`'s children from `next` on, into arena node `a`.
    Expand { r: u32, a: NodeId, next: u32 },
    /// A list's run of raw children of `r`, from `next` up to `stop`, into list `l`.
    List {
        r: u32,
        l: NodeId,
        next: u32,
        stop: u32,
        slot: u32,
        unnamed: bool,
    },
    /// The node's subtree is complete.
    Close(NodeId),
}

/// Builds the arena top-down from the raw copy, in pre-order.
struct Builder<'g> {
    g: &'g Grammar,
    raw: &'g RawTree,
    rules: Rules<'g>,
    tree: PreorderBuilder,
    /// Byte span of each token.
    spans: Vec<(u32, u32)>,
    tasks: Vec<Task>,
}

impl<'g> Builder<'g> {
    fn new(g: &'g Grammar, raw: &'g RawTree, seps: &'g [bool]) -> Self {
        let arena = Arena::new(g.kind_names.clone(), g.type_sets.clone());
        Builder {
            g,
            raw,
            rules: Rules { g, seps },
            tree: PreorderBuilder::new(arena, raw.nodes.len()),
            spans: Vec::new(),
            tasks: Vec::new(),
        }
    }

    fn run(mut self) -> (Arena, Vec<(u32, u32)>) {
        self.tasks.push(Task::Convert {
            r: 0,
            slot: NONE,
            parent: NONE,
        });
        while let Some(task) = self.tasks.pop() {
            match task {
                Task::Convert { r, slot, parent } => self.convert(r, slot, parent),
                Task::Expand { r, a, next } => self.expand(r, a, next),
                Task::List {
                    r,
                    l,
                    next,
                    stop,
                    slot,
                    unnamed,
                } => self.list(r, l, next, stop, slot, unnamed),
                Task::Close(id) => self.tree.close(id),
            }
        }
        self.spans.shrink_to_fit();
        (self.tree.finish(), self.spans)
    }

    fn leaf(&mut self, class: Class, r: u32, slot: u32, parent: NodeId) -> NodeId {
        let n = self.raw.nodes[r as usize];
        self.spans.push((n.start, n.end));
        self.tree.open(class, n.kind, slot, parent)
    }

    /// Makes the arena node for raw node `r` in a slot admitting `slot`; queues its children.
    fn convert(&mut self, r: u32, slot: u32, parent: NodeId) {
        if self.raw.is_leaf(r) {
            self.leaf(Class::Token, r, slot, parent);
            return;
        }
        let n = self.raw.nodes[r as usize];
        let class = if n.error() {
            Class::Error
        } else {
            Class::Regular
        };
        let a = self.tree.open(class, n.kind, slot, parent);
        self.tasks.push(Task::Close(a));
        let next = self.first_kid(r);
        self.tasks.push(Task::Expand { r, a, next });
    }

    /// Skipped entirely: MISSING leaves and other zero-width leaves have no bytes.
    fn skip(&self, r: u32) -> bool {
        let n = &self.raw.nodes[r as usize];
        n.missing() || (n.start == n.end && self.raw.is_leaf(r))
    }

    /// The first child of `r` not skipped, or `NONE`.
    fn first_kid(&self, r: u32) -> u32 {
        match self.raw.is_leaf(r) {
            true => NONE,
            false => self.unskipped(r + 1, r),
        }
    }

    /// `k` or the first sibling after it (under `parent`) not skipped, or `NONE`.
    fn unskipped(&self, mut k: u32, parent: u32) -> u32 {
        while k != NONE && self.skip(k) {
            k = self.raw.next_sibling(k, parent);
        }
        k
    }

    /// The next child of `parent` after `k` not skipped, or `NONE`.
    fn after(&self, k: u32, parent: u32) -> u32 {
        self.unskipped(self.raw.next_sibling(k, parent), parent)
    }

    /// The arena children of raw node `r` (whose arena node is `a`), from its child `k` on:
    /// the next one now, the rest queued after its subtree.
    fn expand(&mut self, r: u32, a: NodeId, k: u32) {
        if k == NONE {
            return;
        }
        let parent = self.raw.nodes[r as usize];
        let n = self.raw.nodes[k as usize];
        let slot = self.g.slot(parent.kind, n.field);
        let next = self.after(k, r);
        if let Some(s) = self
            .rules
            .starts_run(parent.kind, n)
            .filter(|_| !parent.error())
        {
            let stop = self.run_end(r, k);
            let l = self.tree.open(Class::List, self.g.kind_list, s.types, a);
            self.tasks.push(Task::Expand { r, a, next: stop });
            self.tasks.push(Task::Close(l));
            self.tasks.push(Task::List {
                r,
                l,
                next: k,
                stop,
                slot: s.types,
                unnamed: n.field == 0,
            });
            return;
        }
        self.tasks.push(Task::Expand { r, a, next });
        if parent.error() {
            self.tasks.push(Task::Convert {
                r: k,
                slot: NONE,
                parent: a,
            });
        } else if n.extra() {
            self.wrap(NONE, a, k);
        } else if n.error() || !n.named() {
            self.tasks.push(Task::Convert {
                r: k,
                slot: NONE,
                parent: a,
            });
        } else if let Some(s) = slot.filter(|s| !s.required && !s.multiple) {
            self.wrap(s.types, a, k);
        } else {
            let slot = slot.map_or(NONE, |s| s.types);
            self.tasks.push(Task::Convert {
                r: k,
                slot,
                parent: a,
            });
        }
    }

    /// An Opt wrapper around raw node `k`, converted into the wrapper's slot.
    fn wrap(&mut self, slot: u32, parent: NodeId, k: u32) {
        let w = self.tree.open(Class::Opt, self.g.kind_opt, slot, parent);
        self.tasks.push(Task::Close(w));
        self.tasks.push(Task::Convert {
            r: k,
            slot,
            parent: w,
        });
    }

    /// Where the list run starting at child `k` of `r` ends (the first child after it, or
    /// `NONE`): same-field elements, separators between them (and one trailing), comments,
    /// ERROR regions and attached tokens.
    fn run_end(&self, r: u32, k: u32) -> u32 {
        let field = self.raw.nodes[k as usize].field;
        let mut j = self.after(k, r);
        while j != NONE && self.rules.continues_run(self.raw.nodes[j as usize], field) {
            j = self.after(j, r);
        }
        j
    }

    /// One item of a list's run, from raw child `k`: the child, inside a synthetic regular node
    /// for each token after it that attaches to it (`struct S` `;`); the rest queued.
    fn list(&mut self, r: u32, l: NodeId, k: u32, stop: u32, slot: u32, unnamed: bool) {
        if k == stop {
            return;
        }
        let n = self.raw.nodes[k as usize];
        let mut attached = Vec::new();
        let mut next = self.after(k, r);
        while unnamed && next != stop && self.rules.attaches(self.raw.nodes[next as usize], 0) {
            attached.push(next);
            next = self.after(next, r);
        }
        self.tasks.push(Task::List {
            r,
            l,
            next,
            stop,
            slot,
            unnamed,
        });
        // the groups, outermost (the last attached token's) first; each holds the one inside
        // it and its token
        let mut parent = l;
        let mut groups = Vec::with_capacity(attached.len());
        for _ in &attached {
            parent = self.tree.open(Class::Regular, n.kind, slot, parent);
            groups.push(parent);
        }
        for (&t, &g) in attached.iter().zip(groups.iter().rev()).rev() {
            self.tasks.push(Task::Close(g));
            self.tasks.push(Task::Convert {
                r: t,
                slot: NONE,
                parent: g,
            });
        }
        if self.rules.is_sep(n) {
            self.leaf(Class::Sep, k, NONE, parent);
        } else {
            let slot = if n.extra() { NONE } else { slot };
            self.tasks.push(Task::Convert { r: k, slot, parent });
        }
    }
}

#[cfg(test)]
#[path = "ts_tests.rs"]
mod tests;
