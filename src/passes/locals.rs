//! A function's local `T x;` joins a global declaration of the same type before the function
//! (`T g;` -> `T g, x;`): C-Reduce's local-to-global, merged into an existing declaration so it
//! costs no new line. It runs late (at the fixpoint of the other passes): a declaration of
//! several names blocks the one-field-struct pass.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Hunk, Pass, preorder, text};
use crate::lang::table::RewriteTable;

const DECLARATION: &str = "declaration";

pub struct LocalToGlobal;

impl Pass for LocalToGlobal {
    fn name(&self) -> &'static str {
        "local-to-global"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        let mut out = Vec::new();
        // the file's plain declarations by type text: where a local of that type can join
        let mut globals: HashMap<&[u8], Node> = HashMap::new();
        for n in preorder(tree) {
            if n.has_error() {
                continue;
            }
            if n.kind() == DECLARATION && n.parent().is_some_and(|p| p.parent().is_none()) {
                if let Some(ty) = plain_type(n, src, t) {
                    globals.insert(ty, n);
                }
            } else if let Some(h) = local_to_global(n, src, t, &globals) {
                out.push(h);
            }
        }
        out
    }
}

/// The type of a variable declaration without storage class, qualifiers, initializers or
/// functions (`int *a, b;`): its text, when locals of that type may join it.
fn plain_type<'s>(n: Node, src: &'s [u8], t: &RewriteTable) -> Option<&'s [u8]> {
    let ty = n.child_by_field_name(t.type_field)?;
    if n.child(0)?.id() != ty.id() {
        return None;
    }
    let mut cursor = n.walk();
    let variables = n
        .named_children(&mut cursor)
        .filter(|c| c.id() != ty.id())
        .all(|c| c.kind() != t.init_declarator && !text(c, src).contains(&b'('));
    variables.then(|| text(ty, src))
}

/// A declaration at the top of a function body whose type a global declaration before the
/// function has: it moves there (its declarators after the global's).
fn local_to_global<'t>(
    n: Node<'t>,
    src: &[u8],
    t: &RewriteTable,
    globals: &HashMap<&[u8], Node<'t>>,
) -> Option<Hunk> {
    if n.kind() != DECLARATION {
        return None;
    }
    let body = n.parent().filter(|b| b.kind() == t.block)?;
    body.parent()
        .filter(|f| f.kind() == t.function_definition)?;
    let global = globals.get(plain_type(n, src, t)?)?;
    let ty = n.child_by_field_name(t.type_field)?;
    let last = n.child(n.child_count().checked_sub(1)?)?;
    let declarators = src.get(ty.end_byte()..last.start_byte())?;
    let global_end = global.child(global.child_count().checked_sub(1)?)?;
    if global_end.kind() != ";" {
        return None;
    }
    let mut with = b",".to_vec();
    with.extend_from_slice(declarators);
    with.push(b';');
    Some(vec![
        Edit::new(global_end.start_byte(), global_end.end_byte(), &with),
        Edit::delete(n.start_byte(), n.end_byte()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::tests::{minimize, parse};

    fn all(src: &str) -> String {
        minimize(src, &LocalToGlobal, &|s| !parse(s).root_node().has_error())
    }

    #[test]
    fn a_local_joins_a_global_of_its_type() {
        assert_eq!(
            all("int *g;\nint f() { int v; return v; }\n"),
            "int *g, v;\nint f() {  return v; }\n"
        );
        // no global of that type, or an initializer: nothing to do
        let src = "long g;\nint f() { int v = 1; int w; return v + w; }\n";
        assert_eq!(all(src), src);
    }
}
