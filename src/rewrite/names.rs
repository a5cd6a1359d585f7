//! Reference-aware bulk passes, by name over the tree: delete every item nobody else names
//! (top-level items, struct fields, enum members), and turn every function definition into a
//! declaration. The minimizer tries all of a layer at once first and splits on failure, so the
//! common case (most dead code really is dead) costs one test.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use super::c::{C, RewriteTable};
use super::{Edit, Pass, preorder, text};

/// Delete every top-level item, struct field and enum member whose declared names no other
/// part of the program uses.
pub struct Unreferenced;

/// Every function definition becomes a declaration (its body becomes `;`).
pub struct Declarations;

impl Pass for Unreferenced {
    fn name(&self) -> &'static str {
        "unreferenced"
    }

    fn edits(&self, tree: &Tree, src: &[u8]) -> Vec<Edit> {
        let t = &C;
        let nodes = preorder(tree);
        let uses = Uses::count(&nodes, src, t);
        let mut edits = Vec::new();
        let root = tree.root_node();
        let mut cursor = root.walk();
        for item in root.named_children(&mut cursor) {
            let declared = declared_names(item, src, t);
            if uses.unreferenced(item, &declared, src, t) {
                edits.push(Edit::delete(item.start_byte(), item.end_byte()));
            }
        }
        for &n in &nodes {
            let kind = n.kind();
            if kind == t.field_declaration {
                let declared = declared_names(n, src, t);
                if uses.unreferenced(n, &declared, src, t) {
                    edits.push(Edit::delete(n.start_byte(), n.end_byte()));
                }
            } else if kind == t.enumerator
                && let Some(name) = n.child_by_field_name(t.name_field)
                && uses.unreferenced(n, &[text(name, src)], src, t)
            {
                edits.push(with_separator(n));
            }
        }
        edits
    }
}

impl Pass for Declarations {
    fn name(&self) -> &'static str {
        "definitions-to-declarations"
    }

    fn edits(&self, tree: &Tree, _src: &[u8]) -> Vec<Edit> {
        let t = &C;
        let root = tree.root_node();
        let mut cursor = root.walk();
        root.named_children(&mut cursor)
            .filter(|n| n.kind() == t.function_definition)
            .filter_map(|n| n.child_by_field_name(t.body_field))
            .map(|body| {
                Edit::new(
                    body.start_byte(),
                    body.end_byte(),
                    t.declaration_end.as_bytes(),
                )
            })
            .collect()
    }
}

/// An enumerator's range with the comma after it (or before it, for the last one).
fn with_separator(n: Node) -> Edit {
    match (n.next_sibling(), n.prev_sibling()) {
        (Some(next), _) if next.kind() == "," => Edit::delete(n.start_byte(), next.end_byte()),
        (_, Some(prev)) if prev.kind() == "," => Edit::delete(prev.start_byte(), n.end_byte()),
        _ => Edit::delete(n.start_byte(), n.end_byte()),
    }
}

/// How often each name occurs in the whole program (as a name node or a word of a macro body).
struct Uses<'s> {
    count: HashMap<&'s [u8], u32>,
}

impl<'s> Uses<'s> {
    fn count(nodes: &[Node], src: &'s [u8], t: &RewriteTable) -> Uses<'s> {
        let mut count: HashMap<&[u8], u32> = HashMap::new();
        for &n in nodes {
            for name in names_in_node(n, src, t) {
                *count.entry(name).or_default() += 1;
            }
        }
        Uses { count }
    }

    /// Does no occurrence of any of `declared` lie outside `item`? False if it declares nothing.
    fn unreferenced(&self, item: Node, declared: &[&[u8]], src: &[u8], t: &RewriteTable) -> bool {
        if declared.is_empty() {
            return false;
        }
        let mut inside: HashMap<&[u8], u32> = HashMap::new();
        let mut stack = vec![item];
        while let Some(n) = stack.pop() {
            for name in names_in_node(n, src, t) {
                *inside.entry(name).or_default() += 1;
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

/// The names a node itself contributes: its text if it is a name, the words of a macro body.
fn names_in_node<'s>(n: Node, src: &'s [u8], t: &RewriteTable) -> Vec<&'s [u8]> {
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

/// The names an item declares: its declarators' names, a macro's or a tagged type's name, and
/// the enum members inside it.
pub(super) fn declared_names<'s>(item: Node, src: &'s [u8], t: &RewriteTable) -> Vec<&'s [u8]> {
    let mut out = Vec::new();
    let kind = item.kind();
    if t.macro_definitions.contains(&kind) || t.tagged_types.contains(&kind) {
        out.extend(item.child_by_field_name(t.name_field).map(|n| text(n, src)));
    }
    let mut cursor = item.walk();
    for child in item.children(&mut cursor) {
        if t.tagged_types.contains(&child.kind())
            && child.child_by_field_name(t.body_field).is_some()
        {
            out.extend(
                child
                    .child_by_field_name(t.name_field)
                    .map(|n| text(n, src)),
            );
        }
    }
    let mut cursor = item.walk();
    for d in item.children_by_field_name(t.declarator_field, &mut cursor) {
        out.extend(declarator_name(d, t).map(|n| text(n, src)));
    }
    let mut stack = vec![item];
    while let Some(n) = stack.pop() {
        if n.kind() == t.enumerator {
            out.extend(n.child_by_field_name(t.name_field).map(|n| text(n, src)));
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    out
}

/// The name inside a declarator chain (`*f(int)`, `a[3] = {..}`, `(*p)`): follow `declarator`.
fn declarator_name<'t>(mut d: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    for _ in 0..64 {
        // `typedef unsigned long size_t;`: tree-sitter-c reads `size_t` as a primitive type
        if t.names.contains(&d.kind()) || t.mergeable.contains(&d.kind()) {
            return Some(d);
        }
        d = d
            .child_by_field_name(t.declarator_field)
            .or_else(|| d.named_child(0))?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::tests::{apply_all, parse};

    #[test]
    fn unreferenced_items_go_and_used_ones_stay() {
        let src = "int dead(void) { return 1; }\nint used(void) { return 2; }\nint main() { return used(); }\n";
        let tree = parse(src);
        let out = apply_all(src, &Unreferenced.edits(&tree, src.as_bytes()));
        assert!(!out.contains("dead"), "{out}");
        assert!(out.contains("int used(void)"), "{out}");
        // main is named by nothing either: the test decides about it
        assert!(!out.contains("main"), "{out}");
    }

    #[test]
    fn a_recursive_function_is_still_unreferenced() {
        let src = "int f(int n) { return f(n - 1); }\nint g;\nint main() { return g; }\n";
        let tree = parse(src);
        let edits = Unreferenced.edits(&tree, src.as_bytes());
        let out = apply_all(src, &edits);
        assert!(!out.contains("f(") && out.contains("int g;"), "{out}");
    }

    #[test]
    fn unused_fields_enum_members_and_macros_go() {
        let src = "#define M 1\n#define N M\nstruct s { int a; int b; };\nenum e { X, Y, Z };\nint main() { struct s v; return v.a + Y + N; }\n";
        let tree = parse(src);
        let out = apply_all(src, &Unreferenced.edits(&tree, src.as_bytes()));
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
    fn definitions_become_declarations() {
        let src = "static int f(int x) { return x * 2; }\nint main(void) { return f(1); }\n";
        let tree = parse(src);
        let out = apply_all(src, &Declarations.edits(&tree, src.as_bytes()));
        assert_eq!(out, "static int f(int x) ;\nint main(void) ;\n");
    }
}
