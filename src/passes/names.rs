//! Reference-aware bulk passes, by name over the tree: delete every item nobody else names
//! (top-level items, struct fields, enum members), and turn every function definition into a
//! declaration. The minimizer tries all of a layer at once first and splits on failure, so the
//! common case (most dead code really is dead) costs one test.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use super::exports::{export_entries, with_users};
use crate::edits::{Edit, Hunk, Pass, Preorder, preorder, text};
use crate::lang::table::RewriteTable;

/// Delete every top-level item, struct field and enum member whose declared names no other
/// part of the program uses.
pub struct Unreferenced;

/// Every function definition becomes a declaration (its body becomes `;`).
pub struct Declarations;

impl Pass for Unreferenced {
    fn name(&self) -> &'static str {
        "unreferenced"
    }

    fn edits(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Edit> {
        candidates(tree, src, t)
            .into_iter()
            .map(|(e, _)| e)
            .collect()
    }

    /// The items that declare a same name go together (a prototype and its definition, a
    /// member and its out-of-line body): deleting one without the other rarely compiles.
    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        group_by_names(candidates(tree, src, t))
    }
}

/// Every unreferenced item, field and enum member: its deletion and the names it declares.
fn candidates<'s>(tree: &Tree, src: &'s [u8], t: &RewriteTable) -> Vec<(Edit, Vec<&'s [u8]>)> {
    let nodes = preorder(tree);
    let items = items(&nodes, t);
    let uses = Uses::count(&nodes, &items, src, t);
    let mut out = Vec::new();
    let mut all_declared = HashSet::new();
    for &item in &items {
        let declared = declared_names(item, src, t);
        all_declared.extend(declared.iter().copied());
        let deletion = Edit::delete_lines(src, item.start_byte(), item.end_byte());
        if uses.unreferenced(item, &declared, src, t) {
            out.push((deletion, declared));
        } else if let Some(elements) = with_users(item, &declared, &uses.at, src, t) {
            // one hunk by their shared names (see `group_by_names`)
            out.push((deletion, declared.clone()));
            out.extend(elements.into_iter().map(|e| (e, declared.clone())));
        }
    }
    out.extend(export_entries(&nodes, &all_declared, src, t));
    // (`Node::parent` walks down from the root: slow on every node of a large file)
    let item_ids: HashSet<usize> = items.iter().map(|n| n.id()).collect();
    for n in &nodes {
        let kind = n.kind();
        let is_item = item_ids.contains(&n.id());
        if kind == t.field_declaration && !is_item {
            let declared = declared_names(n, src, t);
            if uses.unreferenced(n, &declared, src, t) {
                out.push((
                    Edit::delete_lines(src, n.start_byte(), n.end_byte()),
                    declared,
                ));
            }
        } else if kind == t.enumerator
            && let Some(name) = n.child_by_field_name(t.name_field)
            && uses.unreferenced(n, &[text(name, src)], src, t)
        {
            out.push((with_separator(n), vec![text(name, src)]));
        }
    }
    out
}

/// One hunk per set of edits linked by a declared name (union-find), in the order of their
/// first edits; an edit nested in (or overlapping) an earlier one of its hunk is left out.
pub(super) fn group_by_names(candidates: Vec<(Edit, Vec<&[u8]>)>) -> Vec<Hunk> {
    let mut parent: Vec<usize> = (0..candidates.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut first: HashMap<&[u8], usize> = HashMap::new();
    for (i, (_, names)) in candidates.iter().enumerate() {
        for name in names {
            let j = *first.entry(name).or_insert(i);
            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut groups: Vec<Hunk> = vec![Vec::new(); candidates.len()];
    for (i, (edit, _)) in candidates.into_iter().enumerate() {
        let r = root(&mut parent, i);
        groups[r].push(edit);
    }
    let mut hunks: Vec<Hunk> = groups
        .into_iter()
        .filter(|g| !g.is_empty())
        .map(|mut g| {
            g.sort_by_key(|e| (e.start, std::cmp::Reverse(e.end)));
            let mut kept: Hunk = Vec::new();
            for e in g {
                if kept.last().is_none_or(|k| k.end <= e.start) {
                    kept.push(e);
                }
            }
            kept
        })
        .collect();
    hunks.sort_by_key(|h| h[0].start);
    hunks
}

impl Pass for Declarations {
    fn name(&self) -> &'static str {
        "definitions-to-declarations"
    }

    fn edits(&self, tree: &Tree, _src: &[u8], t: &RewriteTable) -> Vec<Edit> {
        let nodes = preorder(tree);
        let mut out = Vec::new();
        let mut stack = items(&nodes, t);
        while let Some(n) = stack.pop() {
            if t.item_wrappers.contains(&n.kind()) {
                let mut cursor = n.walk();
                stack.extend(n.named_children(&mut cursor));
                continue;
            }
            if n.kind() != t.function_definition {
                continue;
            }
            let Some(body) = n.child_by_field_name(t.body_field) else {
                continue;
            };
            // `int W::g();` declares nothing outside `W`: an out-of-line member's body becomes
            // the stub (`{}` without a return type: constructors, destructors) or stays
            let end = match defines_a_member(n, t) {
                false => t.declaration_end,
                true if t.stub_body.is_empty() => continue,
                true if n.child_by_field_name(t.type_field).is_none() => t.empty_block,
                true => t.stub_body,
            };
            out.push(Edit::new(
                body_start(n, body, t),
                body.end_byte(),
                end.as_bytes(),
            ));
        }
        out.extend(stubs(&nodes, t));
        out.sort_by_key(|e| e.start);
        out
    }
}

/// The languages without prototypes ([`RewriteTable::stub_functions`]): every outermost
/// function body longer than the stub becomes it.
fn stubs(nodes: &Preorder, t: &RewriteTable) -> Vec<Edit> {
    let mut out = Vec::new();
    // (most tables have none: no walk over a large C file's nodes)
    if t.stub_functions.is_empty() {
        return out;
    }
    let stub = t.stub_body.as_bytes();
    // the end of the last body stubbed: a function inside it goes with it
    let mut end = 0;
    for n in nodes {
        if n.start_byte() < end || !t.stub_functions.contains(&n.kind()) {
            continue;
        }
        let Some(body) = n.child_by_field_name("body") else {
            continue;
        };
        if body.byte_range().len() > stub.len() {
            out.push(Edit::new(body.start_byte(), body.end_byte(), stub));
            end = body.end_byte();
        }
    }
    out
}

/// Whether the item (through templates) defines a member out of line: its declarator's name
/// is qualified (`W::g`), or it is a class whose name is (`class W::In {..};`).
pub(super) fn defines_a_member(item: Node, t: &RewriteTable) -> bool {
    let Some(item) = wrapped(item, t) else {
        return false;
    };
    if t.tagged_types.contains(&item.kind()) {
        return item
            .child_by_field_name(t.name_field)
            .is_some_and(|n| t.qualified_names.contains(&n.kind()));
    }
    let Some(mut d) = item.child_by_field_name(t.declarator_field) else {
        return false;
    };
    for _ in 0..64 {
        if t.qualified_names.contains(&d.kind()) {
            return true;
        }
        match d.child_by_field_name(t.declarator_field) {
            Some(inner) => d = inner,
            None => return false,
        }
    }
    false
}

/// The item a wrapper (`template<..>`, `extern "C"`) wraps, through every wrapper.
pub(super) fn wrapped<'t>(mut item: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    while t.item_wrappers.contains(&item.kind()) {
        let mut cursor = item.walk();
        item = item.named_children(&mut cursor).last()?;
    }
    Some(item)
}

/// Where a function definition's body starts when it goes: a constructor's `: a(x)` goes with it.
pub(super) fn body_start(f: Node, body: Node, t: &RewriteTable) -> usize {
    let mut cursor = f.walk();
    f.children(&mut cursor)
        .find(|c| Some(c.kind()) == t.initializer_list)
        .map_or(body.start_byte(), |c| c.start_byte())
}

/// The items of every item list (the file's top level; C++ namespace and class bodies).
pub(super) fn items<'t>(nodes: &Preorder<'t>, t: &RewriteTable) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    for list in nodes.iter().filter(|n| t.item_lists.contains(&n.kind())) {
        let mut cursor = list.walk();
        out.extend(list.named_children(&mut cursor));
    }
    out
}

/// An enumerator's range with the comma after it (or before it, for the last one).
pub(super) fn with_separator(n: Node) -> Edit {
    match (n.next_sibling(), n.prev_sibling()) {
        (Some(next), _) if next.kind() == "," => Edit::delete(n.start_byte(), next.end_byte()),
        (_, Some(prev)) if prev.kind() == "," => Edit::delete(prev.start_byte(), n.end_byte()),
        _ => Edit::delete(n.start_byte(), n.end_byte()),
    }
}

/// How often each name is used in the whole program (as a name node or a word of a macro
/// body). Unless the table says otherwise (C), where an item, a field or an enum member declares
/// a name is no use of it, so a prototype and its definition (a class's member and its
/// out-of-line body) go together.
struct Uses<'t, 's> {
    count: HashMap<&'s [u8], u32>,
    /// The ids of the name nodes that declare.
    sites: HashSet<usize>,
    /// The name nodes that use each name, when the table has reference elements (see
    /// [`with_users`]).
    at: HashMap<&'s [u8], Vec<Node<'t>>>,
}

impl<'t, 's> Uses<'t, 's> {
    fn count(
        nodes: &Preorder<'t>,
        items: &[Node],
        src: &'s [u8],
        t: &RewriteTable,
    ) -> Uses<'t, 's> {
        let sites = declaring_sites(nodes, items, t);
        let mut count: HashMap<&[u8], u32> = HashMap::new();
        let mut at: HashMap<&[u8], Vec<Node>> = HashMap::new();
        let places = !t.reference_elements.is_empty();
        for n in nodes.iter().filter(|n| !sites.contains(&n.id())) {
            for name in names_in_node(n, src, t) {
                *count.entry(name).or_default() += 1;
                if places && !t.raw_text.contains(&n.kind()) {
                    at.entry(name).or_default().push(n);
                }
            }
        }
        Uses { count, sites, at }
    }

    /// Does no occurrence of any of `declared` lie outside `item`? False if it declares nothing.
    fn unreferenced(&self, item: Node, declared: &[&[u8]], src: &[u8], t: &RewriteTable) -> bool {
        if declared.is_empty()
            || declared
                .iter()
                .any(|d| t.implicit_uses.iter().any(|u| u.as_bytes() == *d))
        {
            return false;
        }
        let mut inside: HashMap<&[u8], u32> = HashMap::new();
        let mut stack = vec![item];
        while let Some(n) = stack.pop() {
            if !self.sites.contains(&n.id()) {
                for name in names_in_node(n, src, t) {
                    *inside.entry(name).or_default() += 1;
                }
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
        declared.iter().all(|d| {
            let total = self.count.get(d).copied().unwrap_or(0);
            total <= inside.get(d).copied().unwrap_or(0)
        })
    }
}

/// The ids of the name nodes where items and fields declare their names, which are no uses of
/// them unless the table says declarations are (C: none).
pub(super) fn declaring_sites(
    nodes: &Preorder,
    items: &[Node],
    t: &RewriteTable,
) -> HashSet<usize> {
    let mut sites = HashSet::new();
    if t.declarations_are_uses {
        return sites;
    }
    for &n in items {
        sites.extend(declared_nodes(n, t).iter().map(Node::id));
    }
    for n in nodes.iter().filter(|n| n.kind() == t.field_declaration) {
        sites.extend(declared_nodes(n, t).iter().map(Node::id));
    }
    sites
}

/// The names a node itself contributes: its text if it is a name, the words of a macro body.
pub(super) fn names_in_node<'s>(n: Node, src: &'s [u8], t: &RewriteTable) -> Vec<&'s [u8]> {
    if t.names.contains(&n.kind()) || t.mergeable.contains(&n.kind()) {
        return vec![text(n, src)];
    }
    if t.raw_text.contains(&n.kind()) {
        return words(text(n, src));
    }
    Vec::new()
}

/// The identifier-like words of raw text.
fn words(s: &[u8]) -> Vec<&[u8]> {
    let word = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_';
    s.split(|c| !word(c))
        .filter(|w| w.first().is_some_and(|c| !c.is_ascii_digit()))
        .collect()
}

/// The names an item declares (see [`declared_nodes`]).
pub(super) fn declared_names<'s>(item: Node, src: &'s [u8], t: &RewriteTable) -> Vec<&'s [u8]> {
    declared_nodes(item, t)
        .into_iter()
        .map(|n| text(n, src))
        .collect()
}

/// The name nodes an item declares: its declarators' names, a macro's or a tagged type's name,
/// the enum members inside it; a template's, what it wraps declares.
pub(super) fn declared_nodes<'t>(item: Node<'t>, t: &RewriteTable) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let kind = item.kind();
    if t.item_wrappers.contains(&kind) {
        let mut cursor = item.walk();
        for wrapped in item.named_children(&mut cursor) {
            out.extend(declared_nodes(wrapped, t));
        }
        return out;
    }
    if t.named_items.contains(&kind) || t.tagged_types.contains(&kind) {
        out.extend(name_of(item, t));
    }
    if let Some((_, field)) = t.named_by.iter().find(|(k, _)| *k == kind) {
        out.extend(
            item.child_by_field_name(field)
                .and_then(|n| last_name(n, t)),
        );
    }
    if t.using_declarations.contains(&kind) {
        let mut cursor = item.walk();
        let target = item.named_children(&mut cursor).last();
        out.extend(target.and_then(|n| last_name(n, t)));
    }
    let mut cursor = item.walk();
    for child in item.children(&mut cursor) {
        if t.tagged_types.contains(&child.kind())
            && child.child_by_field_name(t.body_field).is_some()
        {
            out.extend(name_of(child, t));
        }
    }
    let mut cursor = item.walk();
    for child in item.named_children(&mut cursor) {
        if t.declarators.contains(&child.kind()) {
            out.extend(name_of(child, t));
        }
    }
    let mut cursor = item.walk();
    for d in item.children_by_field_name(t.declarator_field, &mut cursor) {
        out.extend(declarator_name(d, t));
    }
    let mut stack = vec![item];
    while let Some(n) = stack.pop() {
        if n.kind() == t.enumerator {
            out.extend(n.child_by_field_name(t.name_field));
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    out
}

/// The name node of a named item: its `name` field, through `a::b` and `X<T>` to the name.
pub(super) fn name_of<'t>(item: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    last_name(item.child_by_field_name(t.name_field)?, t)
}

/// The last name of `a::b::c` (through its `name` fields), or the node itself if it is a name.
fn last_name<'t>(mut n: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    for _ in 0..64 {
        if t.names.contains(&n.kind()) || t.mergeable.contains(&n.kind()) {
            return Some(n);
        }
        n = n.child_by_field_name(t.name_field)?;
    }
    None
}

/// The name inside a declarator chain (`*f(int)`, `a[3] = {..}`, `(*p)`): follow `declarator`.
fn declarator_name<'t>(mut d: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    for _ in 0..64 {
        // `typedef unsigned long size_t;`: tree-sitter-c reads `size_t` as a primitive type
        if t.names.contains(&d.kind()) || t.mergeable.contains(&d.kind()) {
            return Some(d);
        }
        // C++: `a::f` declares `f`, `f<int>` declares `f`
        d = d
            .child_by_field_name(t.declarator_field)
            .or_else(|| d.child_by_field_name(t.name_field))
            .or_else(|| d.named_child(0))?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::{apply_all, parse};

    #[test]
    fn unreferenced_items_go_and_used_ones_stay() {
        let src = "int dead(void) { return 1; }\nint used(void) { return 2; }\nint main() { return used(); }\n";
        let tree = parse(src);
        let out = apply_all(src, &Unreferenced.edits(&tree, src.as_bytes(), &C));
        assert!(!out.contains("dead"), "{out}");
        assert!(out.contains("int used(void)"), "{out}");
        // main is named by nothing either: the test decides about it
        assert!(!out.contains("main"), "{out}");
    }

    #[test]
    fn a_recursive_function_is_still_unreferenced() {
        let src = "int f(int n) { return f(n - 1); }\nint g;\nint main() { return g; }\n";
        let tree = parse(src);
        let edits = Unreferenced.edits(&tree, src.as_bytes(), &C);
        let out = apply_all(src, &edits);
        assert!(!out.contains("f(") && out.contains("int g;"), "{out}");
    }

    #[test]
    fn unused_fields_enum_members_and_macros_go() {
        let src = "#define M 1\n#define N M\nstruct s { int a; int b; };\nenum e { X, Y, Z };\nint main() { struct s v; return v.a + Y + N; }\n";
        let tree = parse(src);
        let out = apply_all(src, &Unreferenced.edits(&tree, src.as_bytes(), &C));
        assert!(out.contains("int a;") && !out.contains("int b;"), "{out}");
        assert!(
            out.contains("Y") && !out.contains('X') && !out.contains('Z'),
            "{out}"
        );
        assert!(
            out.contains("#define M") && out.contains("#define N"),
            "{out}"
        );
    }

    #[test]
    fn a_prototype_and_its_definition_go_in_one_hunk() {
        let src = "int f(int);\nint g(void);\nint f(int x) { return x; }\nint main(void) { return g(); }\n";
        // in C a prototype counts as a use of its definition (see the C table): neither goes
        assert!(
            Unreferenced
                .hunks(&parse(src), src.as_bytes(), &C)
                .iter()
                .flatten()
                .all(|e| !src[e.start as usize..].starts_with("int f"))
        );
        let t = RewriteTable {
            declarations_are_uses: false,
            ..C
        };
        let hunks = Unreferenced.hunks(&parse(src), src.as_bytes(), &t);
        let f: Vec<&Hunk> = hunks
            .iter()
            .filter(|h| src[h[0].start as usize..].starts_with("int f"))
            .collect();
        assert_eq!(f.len(), 1, "{hunks:?}");
        assert_eq!(f[0].len(), 2, "{hunks:?}");
        // `g` is used by main: no hunk deletes it
        assert!(
            hunks
                .iter()
                .flatten()
                .all(|e| !src[e.start as usize..e.end as usize].contains("g(void)")),
            "{hunks:?}"
        );
    }

    #[test]
    fn definitions_become_declarations() {
        let src = "static int f(int x) { return x * 2; }\nint main(void) { return f(1); }\n";
        let tree = parse(src);
        let out = apply_all(src, &Declarations.edits(&tree, src.as_bytes(), &C));
        assert_eq!(out, "static int f(int x) ;\nint main(void) ;\n");
    }

    /// `src` with every unreferenced JavaScript item deleted at once.
    /// `src` with every edit of the unreferenced pass applied, in `spec`'s language.
    fn unreferenced_in(spec: &crate::lang::LangSpec, src: &str) -> String {
        let tree = crate::passes::tests::parse_in(spec, src);
        apply_all(
            src,
            &Unreferenced.edits(&tree, src.as_bytes(), spec.rewrite),
        )
    }

    fn unreferenced_in_javascript(src: &str) -> String {
        unreferenced_in(&crate::lang::javascript::SPEC, src)
    }

    #[test]
    fn javascript_locals_nobody_reads_are_unreferenced() {
        let out = unreferenced_in_javascript(
            "function f(x) {\n  var unused = x + 1;\n  let kept = 2;\n  return kept;\n}\nif (f(1)) {}\n",
        );
        assert!(
            !out.contains("unused") && out.contains("let kept = 2;"),
            "{out}"
        );
        assert!(out.contains("function f(x)"), "{out}");
    }

    #[test]
    fn javascript_methods_and_fields_nobody_uses_are_unreferenced() {
        let out = unreferenced_in_javascript(
            "class C {\n  #n = 1;\n  #m;\n  k = 0;\n  get() { return this.#read(); }\n  #read() { return this.#n; }\n  #spare() { return 2; }\n  unused() { return 3; }\n  constructor() { this.x = 1; }\n}\nif (new C().get()) {}\n",
        );
        assert!(!out.contains("#spare") && !out.contains("unused"), "{out}");
        assert!(out.contains("get()") && out.contains("#read()"), "{out}");
        // a field nothing reads goes too
        assert!(
            out.contains("#n = 1;") && !out.contains("#m;") && !out.contains("k = 0;"),
            "{out}"
        );
        // nothing names it, and `new C()` runs it
        assert!(out.contains("constructor()"), "{out}");
    }

    #[test]
    fn typescript_fields_nobody_uses_are_unreferenced() {
        let out = unreferenced_in(
            &crate::lang::typescript::SPEC,
            "class C {\n  private n: number = 1;\n  m: string;\n  readonly k = 0;\n  get(): number { return this.n; }\n  unused(): number { return 3; }\n}\nif (new C().get()) {}\n",
        );
        assert!(!out.contains("unused"), "{out}");
        assert!(
            out.contains("get()") && out.contains("n: number = 1;"),
            "{out}"
        );
        assert!(
            !out.contains("m: string;") && !out.contains("k = 0;"),
            "{out}"
        );
    }
}
