//! The units and dependencies of the keep-closure pass ([`crate::policy::closure`]): every item
//! of the file that is not a scope (C++ namespaces and `extern "C"` blocks are opened, their
//! items are units; a class is one unit), each with the names it declares and the names it uses.
//! A unit's deletion is one hunk; the containers' shells stay for the deletion passes.
//!
//! Error recovery leaves tokens outside every item (a namespace head with attributes, an
//! explicit instantiation it cannot parse). Those runs that read as a whole declaration (a word
//! first, a `;` last, brackets balanced, no item inside) are units too, declaring the names they
//! seem to declare; the rest is the fixed shell. Before this, the shell of the 1 MB C++ case named
//! `basic_string` and kept half the file.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use super::debris::{debris, debris_declares};
use super::names::{body_start, declared_nodes, defines_a_member, name_of, names_in_node, wrapped};
use crate::edits::{Edit, Hunk, text};
use crate::lang::table::RewriteTable;
use crate::policy::closure::Deps;

/// The units of the pass: each leaf item's deletion, who uses whom by name, and the items that
/// must stay.
pub struct Units {
    pub hunks: Vec<Hunk>,
    pub deps: Deps,
    /// Units that must stay: the head of a block that stands as an item (`namespace std
    /// __attribute__((..))` before its `{..}`, which tree-sitter-cpp reads as an ERROR and a
    /// block: the block's items are units, the head stays). Parse errors and unbalanced nodes
    /// are no units: their complete items are, the rest stays.
    pub fixed: Vec<u32>,
}

/// The leaf items in source order (see [`Units`]). With `split_bodies`, a function definition
/// is two units: its head, and its body (which becomes `;`, so the head stays a declaration);
/// nobody needs a body by name, so only the bodies the test needs stay. Bodies that a
/// declaration cannot stand for (`constexpr`, a deduced `auto` type) stay with their heads.
/// With `members` (in a language with member lists), a class's members are units too (see
/// [`push_class`]).
pub fn units(
    tree: &Tree,
    src: &[u8],
    t: &RewriteTable,
    split_bodies: bool,
    members: bool,
) -> Units {
    // a copy of a tree-sitter tree shares its nodes
    units_in_pieces(
        &mut std::iter::once(tree.clone()),
        src,
        t,
        split_bodies,
        members,
    )
}

/// [`units`] of a file whose trees come one piece of whole top-level forms at a time, in order
/// (see [`crate::tree::pieces`]): one name table for all.
pub fn units_in_pieces(
    trees: &mut dyn Iterator<Item = Tree>,
    src: &[u8],
    t: &RewriteTable,
    split_bodies: bool,
    members: bool,
) -> Units {
    let mut b = Builder::default();
    let mut shell = Vec::new();
    for tree in trees {
        list(&mut b, &mut shell, &tree, src, t, split_bodies, members);
    }
    b.finish(shell)
}

/// Adds the units of `tree` to `b`, and the names its shell uses to `shell`.
fn list<'s>(
    b: &mut Builder<'s>,
    shell: &mut Vec<u32>,
    tree: &Tree,
    src: &'s [u8],
    t: &RewriteTable,
    split_bodies: bool,
    members: bool,
) {
    let (items, heads, open) = leaf_items(tree, src, t);
    let unit_ids: HashSet<usize> = items.iter().map(Node::id).collect();
    for item in items {
        let fixed = heads.contains(&item.id());
        match class_body(item, t).filter(|_| members) {
            Some(body) => push_class(b, item, body, fixed, split_bodies, src, t),
            None => push_item(b, item, fixed, split_bodies, members, &[], src, t),
        }
    }
    // what stays whatever happens (namespace heads, the parts of parse errors that are no
    // units) is one more unit, always kept and never deleted: what it names stays too; but a
    // run of debris that reads as a whole declaration (`extern template class a<char>;` that
    // tree-sitter-cpp cannot parse) is a unit that declares nothing, so it keeps nothing alive
    let starts: Vec<usize> = b.hunks.iter().map(|h| h[0].start as usize).collect();
    for segment in debris(tree, &unit_ids, &open, &starts) {
        let names = segment
            .tokens
            .iter()
            .flat_map(|n| names_in_node(*n, src, t));
        let used: Vec<u32> = names
            .filter(|x| !x.is_empty())
            .map(|x| b.intern(x))
            .collect();
        match segment.whole {
            true => {
                let (first, last) = (segment.tokens[0], segment.tokens[segment.tokens.len() - 1]);
                let edit = Edit::delete(first.start_byte(), last.end_byte());
                let declared = debris_declares(&segment.tokens, src, t);
                let declared = declared.into_iter().map(|x| b.intern(x)).collect();
                b.push(edit, used, declared, false);
            }
            false => shell.extend(used),
        }
    }
}

/// A class's members are units of their own: a member stays only if something kept names it
/// (or the test needs it), so of libstdc++'s `basic_string` only the members a program uses
/// stay, with what they use. The class is a unit too (its whole text), declares its name, and
/// every member uses that name, so a member never stays without its class. Constructors and
/// destructors, named like the class, declare nothing: the class's users do not need them all.
fn push_class<'s>(
    b: &mut Builder<'s>,
    item: Node,
    body: Node,
    fixed: bool,
    split_bodies: bool,
    src: &'s [u8],
    t: &RewriteTable,
) {
    let mut cursor = body.walk();
    let members: Vec<Node> = body
        .named_children(&mut cursor)
        .filter(|m| is_member(*m, t))
        .collect();
    let mut skip: Vec<usize> = members.iter().map(Node::id).collect();
    skip.sort_unstable();
    let (mut used, declared) = b.names(item, &skip, src, t);
    // `class W::In {..};` needs the `class In;` in `W`, as an out-of-line function does
    if defines_a_member(item, t) {
        used.extend_from_slice(&declared);
    }
    let own: Vec<u32> = wrapped(item, t)
        .and_then(|c| name_of(c, t))
        .map(|n| b.intern(text(n, src)))
        .into_iter()
        .collect();
    b.push(
        Edit::delete(item.start_byte(), item.end_byte()),
        used,
        declared,
        fixed,
    );
    for m in members {
        push_item(b, m, false, split_bodies, true, &own, src, t);
    }
}

/// The name of a declaration `class In;` (no body, no declarator), as a member declares a
/// nested class that is defined out of line (libstdc++'s `locale::facet`, `locale::id`).
fn nested_class_declaration<'t>(m: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    if m.kind() != t.field_declaration || m.child_by_field_name(t.declarator_field).is_some() {
        return None;
    }
    let class = m.child_by_field_name(t.type_field)?;
    if !t.tagged_types.contains(&class.kind()) || class.child_by_field_name(t.body_field).is_some()
    {
        return None;
    }
    name_of(class, t)
}

/// A member of a class body that can go on its own: a declaration of some kind, whole, not a
/// parse error (access specifiers, `static_assert`s and fragments stay with the class).
fn is_member(m: Node, t: &RewriteTable) -> bool {
    (t.declarations.contains(&m.kind())
        || t.item_wrappers.contains(&m.kind())
        || matches!(
            m.kind(),
            "field_declaration" | "friend_declaration" | "using_declaration"
        ))
        && !m.has_error()
        && complete(m)
}

/// The body of a class (through `template<..>`) whose members become units, in a language
/// that has member lists.
fn class_body<'t>(item: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    let class = wrapped(item, t)?;
    if !t.member_lists || !matches!(class.kind(), "class_specifier" | "struct_specifier") {
        return None;
    }
    name_of(class, t)?;
    class
        .child_by_field_name(t.body_field)
        .filter(|b| b.kind() == "field_declaration_list" && !b.has_error())
}

/// One item's units: the item, or (with `split_bodies`, for a function definition) its head
/// and its body. `owner`: names every unit of it uses besides its own (its class's); an owner's
/// name is never declared by the item (a constructor).
#[allow(clippy::too_many_arguments)]
fn push_item<'s>(
    b: &mut Builder<'s>,
    item: Node,
    fixed: bool,
    split_bodies: bool,
    members: bool,
    owner: &[u32],
    src: &'s [u8],
    t: &RewriteTable,
) {
    let split = split_bodies.then(|| body_of(item, src, t)).flatten();
    let skip: Vec<usize> = split
        .and_then(|s| s.body)
        .map(|(body, _)| body.id())
        .into_iter()
        .collect();
    let (mut used, mut declared) = b.names(item, &skip, src, t);
    // a member `class In;` declares `In` (a forward declaration elsewhere declares nothing:
    // the definition is what a user needs)
    if !owner.is_empty()
        && let Some(name) = nested_class_declaration(item, t)
    {
        declared.push(b.intern(text(name, src)));
    }
    used.extend_from_slice(owner);
    declared.retain(|d| !owner.contains(d));
    // an out-of-line member (`int W::g() {..}`, `int W::x = 1;`, `class W::In {..};`) needs
    // the declaration in its class when the class's members are units: it uses the name it
    // defines
    if members && defines_a_member(item, t) {
        used.append(&mut declared);
    }
    let Some(Split {
        body: Some((body, start)),
    }) = split
    else {
        // an out-of-line member's definition: its class declares it, nobody needs it by name
        if split.is_some() {
            declared.clear();
        }
        b.push(
            Edit::delete(item.start_byte(), item.end_byte()),
            used,
            declared,
            fixed,
        );
        return;
    };
    // the body uses what its head declares: it never stays without it
    let mut body_uses = declared.clone();
    body_uses.extend_from_slice(owner);
    names_of(body, &[], src, t, &mut |name, _| {
        body_uses.push(b.intern(name))
    });
    b.push(
        Edit::delete(item.start_byte(), start),
        used,
        declared,
        fixed,
    );
    let body_end = Edit::new(start, body.end_byte(), t.declaration_end.as_bytes());
    b.push(body_end, body_uses, Vec::new(), false);
}

/// The units as they are found, with names interned.
#[derive(Default)]
struct Builder<'s> {
    ids: HashMap<&'s [u8], u32>,
    uses: Vec<Vec<u32>>,
    declares: Vec<Vec<u32>>,
    hunks: Vec<Hunk>,
    fixed: Vec<u32>,
}

impl<'s> Builder<'s> {
    fn intern(&mut self, name: &'s [u8]) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(name).or_insert(next)
    }

    /// The names `item` uses and declares (see [`names_of`]), interned.
    fn names(
        &mut self,
        item: Node,
        skip: &[usize],
        src: &'s [u8],
        t: &RewriteTable,
    ) -> (Vec<u32>, Vec<u32>) {
        let (mut used, mut declared) = (Vec::new(), Vec::new());
        names_of(item, skip, src, t, &mut |name, declaring| match declaring {
            true => declared.push(self.intern(name)),
            false => used.push(self.intern(name)),
        });
        (used, declared)
    }

    fn finish(mut self, shell: Vec<u32>) -> Units {
        self.push_shell(shell);
        Units {
            deps: Deps::new(&self.uses, &self.declares, self.ids.len()),
            hunks: self.hunks,
            fixed: self.fixed,
        }
    }

    /// The shell: a unit with nothing to delete, fixed.
    fn push_shell(&mut self, mut used: Vec<u32>) {
        used.sort_unstable();
        used.dedup();
        self.fixed.push(self.hunks.len() as u32);
        self.hunks.push(Vec::new());
        self.uses.push(used);
        self.declares.push(Vec::new());
    }

    fn push(&mut self, edit: Edit, mut used: Vec<u32>, mut declared: Vec<u32>, fixed: bool) {
        for v in [&mut used, &mut declared] {
            v.sort_unstable();
            v.dedup();
        }
        if fixed {
            self.fixed.push(self.hunks.len() as u32);
        }
        self.hunks.push(vec![edit]);
        self.uses.push(used);
        self.declares.push(declared);
    }
}

/// The function declarator of a definition or declaration, through `*` and `&` declarators.
fn function_declarator<'t>(f: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    let mut d = f.child_by_field_name(t.declarator_field)?;
    while d.kind() != t.function_declarator {
        d = d.child_by_field_name(t.declarator_field)?;
    }
    Some(d)
}

/// How a function definition splits: `body` is its body and where the body's removal starts (a
/// constructor's `: a(x)` goes with it); `None` for an out-of-line member (`A::f`), which
/// cannot stay as a declaration and goes whole.
#[derive(Clone, Copy)]
struct Split<'t> {
    body: Option<(Node<'t>, usize)>,
}

/// How a function definition item (through templates and `extern "C"`) splits, unless a
/// declaration cannot stand for the definition (`constexpr`, a deduced type).
fn body_of<'t>(item: Node<'t>, src: &[u8], t: &RewriteTable) -> Option<Split<'t>> {
    let f = wrapped(item, t)?;
    if f.kind() != t.function_definition {
        return None;
    }
    let body = f.child_by_field_name(t.body_field)?;
    if body.kind() != t.block {
        return None;
    }
    let start = body_start(f, body, t);
    let head = &src[item.start_byte()..start];
    let deduced = f
        .child_by_field_name(t.type_field)
        .is_some_and(|ty| text(ty, src).ends_with(b"auto"));
    let constexpr = head.windows(9).any(|w| w == b"constexpr");
    if deduced || constexpr {
        return None;
    }
    // (a definition whose declarator tree-sitter did not read as a function's stays whole)
    function_declarator(f, t)?.child_by_field_name(t.declarator_field)?;
    let member = defines_a_member(item, t);
    Some(Split {
        body: (!member).then_some((body, start)),
    })
}

/// Calls `f(name, declares)` for every name `item` declares and every name it uses, outside
/// the nodes of `skip` (sorted ids). An operator
/// overload also "declares" the types of its parameters: whoever uses such a type may use the
/// operator without naming it.
fn names_of<'s>(
    item: Node,
    skip: &[usize],
    src: &'s [u8],
    t: &RewriteTable,
    f: &mut dyn FnMut(&'s [u8], bool),
) {
    let declaring = declared_nodes(item, t);
    // `using a::b;` declares `b` here and uses the `b` of `a`
    let sites: HashSet<usize> = match t.using_declarations.contains(&item.kind()) {
        true => HashSet::new(),
        false => declaring.iter().map(Node::id).collect(),
    };
    for n in &declaring {
        f(text(*n, src), true);
    }
    for ty in operator_types(item, src, t) {
        f(ty, true);
    }
    let mut stack = vec![item];
    while let Some(n) = stack.pop() {
        if skip.binary_search(&n.id()).is_ok() {
            continue;
        }
        if !sites.contains(&n.id()) {
            for name in names_in_node(n, src, t) {
                f(name, false);
            }
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
}

/// When `item` is an operator overload (through templates), the names of its parameters' types
/// (`A` for `const A<T>&`, `b` for `a::b`), except the template's own parameters and primitive
/// types.
fn operator_types<'s>(item: Node, src: &'s [u8], t: &RewriteTable) -> Vec<&'s [u8]> {
    // the template parameters on the way to the wrapped item
    let mut own: Vec<&[u8]> = Vec::new();
    let mut w = item;
    while t.item_wrappers.contains(&w.kind()) {
        let mut cursor = w.walk();
        let children: Vec<Node> = w.named_children(&mut cursor).collect();
        let Some((&last, params)) = children.split_last() else {
            return Vec::new();
        };
        for &c in params {
            let mut stack = vec![c];
            while let Some(m) = stack.pop() {
                own.extend(names_in_node(m, src, t));
                let mut cc = m.walk();
                stack.extend(m.children(&mut cc));
            }
        }
        w = last;
    }
    let Some(d) = function_declarator(w, t) else {
        return Vec::new();
    };
    let is_operator = d
        .child_by_field_name(t.declarator_field)
        .is_some_and(|n| t.operator_names.contains(&n.kind()));
    let Some(params) = d
        .child_by_field_name(t.parameters_field)
        .filter(|_| is_operator)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut cursor = params.walk();
    for p in params.named_children(&mut cursor) {
        let Some(mut ty) = p.child_by_field_name(t.type_field) else {
            continue;
        };
        for _ in 0..8 {
            if t.names.contains(&ty.kind()) {
                let name = text(ty, src);
                if !own.contains(&name) {
                    out.push(name);
                }
                break;
            }
            match ty.child_by_field_name(t.name_field) {
                Some(inner) => ty = inner,
                None => break,
            }
        }
    }
    out
}

/// The named children of every scope, opening containers (items with a scope as a child, and
/// blocks or braced parse errors that stand where an item should), and the ids of the items
/// just before such blocks (their heads).
fn leaf_items<'t>(tree: &'t Tree, src: &[u8], t: &RewriteTable) -> LeafItems<'t> {
    let mut out = Vec::new();
    let mut heads = HashSet::new();
    let mut open = HashSet::new();
    // (scope, broken): in a broken construct only complete items are units, the rest is its
    // shell, and the units hide inside the fragments too
    let mut scopes = vec![(tree.root_node(), false)];
    while let Some((scope, broken)) = scopes.pop() {
        let mut cursor = scope.walk();
        for item in scope.named_children(&mut cursor) {
            if item.kind() == t.block {
                heads.extend(item.prev_named_sibling().map(|h| h.id()));
                // a broken function's body is no scope for the debris: its statements stay
                if !broken {
                    open.insert(item.id());
                }
                scopes.push((item, false));
                continue;
            }
            // a statement where an item should be is debris of a function that error recovery
            // cut apart (`do {..}` here, `while (0);` there): it stays
            if item.kind().ends_with("_statement") || starts_a_statement(item, src) {
                continue;
            }
            if broken && !complete(item) {
                scopes.push((item, true));
                continue;
            }
            // a parse error (`namespace x __attribute__((..)) {..}`, `} extern template ..;`),
            // or a node that error recovery stretched over half a namespace
            if item.is_error() || !balanced(item) {
                scopes.push((item, true));
                continue;
            }
            let mut inner = item.walk();
            let body = item
                .named_children(&mut inner)
                .find(|c| t.scopes.contains(&c.kind()));
            match body {
                Some(body) => {
                    open.insert(body.id());
                    scopes.push((body, false))
                }
                None => out.push(item),
            }
        }
    }
    out.sort_by_key(|n| n.start_byte());
    (out, heads, open)
}

/// The leaf items in source order, the ids of the heads among them, the ids of the scopes whose
/// brackets are no debris (see [`leaf_items`]).
type LeafItems<'t> = (Vec<Node<'t>>, HashSet<usize>, HashSet<usize>);

/// Whether the node's first token is a statement keyword (`while (false);` that error recovery
/// read as a declaration): debris, never an item.
fn starts_a_statement(n: Node, src: &[u8]) -> bool {
    let first = crate::edits::first_leaf(n);
    // by text: error recovery reads `while (false);` as a function `while` declared
    matches!(
        text(first, src),
        b"while"
            | b"do"
            | b"if"
            | b"else"
            | b"for"
            | b"return"
            | b"switch"
            | b"case"
            | b"break"
            | b"continue"
            | b"goto"
    )
}

/// A balanced node whose last token ends a declaration (`;` or `}`): an item, not a fragment.
fn complete(n: Node) -> bool {
    let mut last = n;
    while let Some(c) = last.child(last.child_count().saturating_sub(1)) {
        last = c;
    }
    matches!(last.kind(), ";" | "}") && balanced(n)
}

/// Whether the tokens of `item` close every bracket they open, in order.
fn balanced(item: Node) -> bool {
    let mut depth = 0i64;
    let mut cursor = item.walk();
    let mut stack = vec![item];
    while let Some(n) = stack.pop() {
        if n.child_count() == 0 {
            if n.is_missing() {
                continue;
            }
            match n.kind() {
                "{" | "(" | "[" => depth += 1,
                "}" | ")" | "]" => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return false;
            }
            continue;
        }
        let children: Vec<Node> = n.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    depth == 0
}

#[cfg(test)]
#[path = "closure_tests.rs"]
mod tests;
