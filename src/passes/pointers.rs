//! One pointer level less (C-Reduce's reduce-pointer-level): a variable declared once as
//! `T **p` becomes `T *p`, and every `p[i]` or `*p` becomes `p`, as one hunk. Other uses stay
//! as they are (the test decides whether they still compile). Names declared more than once
//! (a local `p` in two functions) are left alone, since the uses could not be told apart.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Hunk, Pass, Preorder, preorder, text};
use crate::lang::table::RewriteTable;

const POINTER_DECLARATOR: &str = "pointer_declarator";
const SUBSCRIPT: &str = "subscript_expression";
const DEREFERENCE: &str = "pointer_expression";

pub struct PointerLevel;

impl Pass for PointerLevel {
    fn name(&self) -> &'static str {
        "reduce-pointer-level"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        let nodes = preorder(tree);
        let (declared, used) = mentions(&nodes, src, t);
        let mut hunks = Vec::new();
        for (name, sites) in &declared {
            let [site] = sites[..] else { continue };
            if site.kind() != POINTER_DECLARATOR {
                continue;
            }
            let Some(inner) = site.child_by_field_name(t.declarator_field) else {
                continue;
            };
            let mut hunk = vec![Edit::delete(site.start_byte(), inner.start_byte())];
            for &u in used.get(name).map_or(&[][..], Vec::as_slice) {
                if let Some(e) = one_level_less(u, src) {
                    hunk.push(e);
                }
            }
            if hunk.len() > 1 {
                hunks.push(hunk);
            }
        }
        hunks.sort_by_key(|h| h[0].start);
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }
}

/// `p[i]` or `*p` around the use `u` of a name, as an edit that leaves `p`.
fn one_level_less(u: Node, src: &[u8]) -> Option<Edit> {
    let parent = u.parent()?;
    let through = match parent.kind() {
        SUBSCRIPT => parent.child_by_field_name("argument"),
        DEREFERENCE => parent
            .child_by_field_name("operator")
            .filter(|o| o.kind() == "*")
            .and(parent.child_by_field_name("argument")),
        _ => None,
    }?;
    (through.id() == u.id())
        .then(|| Edit::new(parent.start_byte(), parent.end_byte(), text(u, src)))
}

/// Nodes by the name they declare or mention.
pub(super) type ByName<'s, 't> = HashMap<&'s [u8], Vec<Node<'t>>>;

/// Per name in `nodes`: where it is declared (the declarator naming it) and where it is used.
pub(super) fn mentions<'s, 't>(
    nodes: &Preorder<'t>,
    src: &'s [u8],
    t: &RewriteTable,
) -> (ByName<'s, 't>, ByName<'s, 't>) {
    let mut declared: ByName = HashMap::new();
    let mut used: ByName = HashMap::new();
    for n in nodes {
        if !t.names.contains(&n.kind()) {
            continue;
        }
        let Some(parent) = n.parent() else { continue };
        let naming = parent
            .child_by_field_name(t.declarator_field)
            .is_some_and(|d| d.id() == n.id());
        match naming && parent.kind() != t.function_declarator {
            true => declared.entry(text(n, src)).or_default().push(parent),
            false => used.entry(text(n, src)).or_default().push(n),
        }
    }
    (declared, used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::{minimize, only_this_pass_shrinks, parse};

    #[test]
    fn a_pointer_loses_a_level_at_its_declaration_and_uses() {
        let src = "int ***fs;\nint *g() { return fs[0][0]; }\nint h() { return **fs[1]; }\n";
        let tree = parse(src);
        let hunks = PointerLevel.hunks(&tree, src.as_bytes(), &C);
        assert_eq!(hunks.len(), 1, "{hunks:?}");
        let out = minimize(src, &PointerLevel, &|_| true);
        assert_eq!(
            out,
            "int **fs;\nint *g() { return fs[0]; }\nint h() { return **fs; }\n"
        );
    }

    #[test]
    fn a_name_declared_twice_is_left_alone() {
        let src = "int f() { int **p; return p[0][0]; }\nint g() { int **p; return **p; }\n";
        let tree = parse(src);
        assert!(PointerLevel.hunks(&tree, src.as_bytes(), &C).is_empty());
    }

    #[test]
    fn only_this_pass_drops_the_extra_level() {
        // the test wants a store through a pointer read from memory: each level is a token
        // the other passes cannot remove
        let src = "int ***fs;\nint *get() { return fs[0][0]; }\nvoid crash() { get()[0] = 0; }\n";
        // types must agree: `int *get()` returns `fs` with one `[0]` per level beyond one
        let keep = |s: &str| {
            (1..=3).any(|k| {
                s == format!(
                    "int {}fs;\nint *get() {{ return fs{}; }}\nvoid crash() {{ get()[0] = 0; }}\n",
                    "*".repeat(k),
                    "[0]".repeat(k - 1)
                )
            })
        };
        let out = only_this_pass_shrinks(src, &PointerLevel, &keep);
        assert!(
            out.contains("int **fs;") || out.contains("int *fs;"),
            "{out}"
        );
    }
}
