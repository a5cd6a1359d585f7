//! A function whose value nobody needs returns `void`: `int f() { ..; return e; }` becomes
//! `void f() { ..; e; }` (clang_delta's return-void). One hunk per function: its type and every
//! `return` keyword before a value. The `return` tokens go; the values stay as statements, so
//! whatever they compute (and warn about) is still there.

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Hunk, Pass, preorder, text};
use crate::lang::table::RewriteTable;

pub struct ReturnVoid;

impl Pass for ReturnVoid {
    fn name(&self) -> &'static str {
        "return-void"
    }

    fn edits(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Edit> {
        self.hunks(tree, src, t).into_iter().flatten().collect()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        // C and C++ only: the tables with function declarators
        if t.function_declarator.is_empty() {
            return Vec::new();
        }
        preorder(tree)
            .into_iter()
            .filter(|n| n.kind() == t.function_definition && !n.has_error())
            .filter_map(|f| hunk(f, src, t))
            .collect()
    }
}

/// The hunk of one function definition: `T f(..)` (a plain declarator, not `*f`, not `main`)
/// whose body returns a value somewhere.
fn hunk(f: Node, src: &[u8], t: &RewriteTable) -> Option<Hunk> {
    let ty = f.child_by_field_name(t.type_field)?;
    let declarator = f.child_by_field_name(t.declarator_field)?;
    let name = declarator.child_by_field_name(t.declarator_field)?;
    if declarator.kind() != t.function_declarator
        || text(ty, src) == b"void"
        || text(name, src) == b"main"
    {
        return None;
    }
    let body = f.child_by_field_name(t.body_field)?;
    let mut hunk = vec![Edit::new(ty.start_byte(), ty.end_byte(), b"void")];
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        // a lambda's returns are its own
        if n.kind() == "lambda_expression" {
            continue;
        }
        if n.kind() == t.return_statement
            && let Some(value) = n.named_child(0)
        {
            hunk.push(Edit::delete(n.start_byte(), value.start_byte()));
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    hunk.sort_by_key(|e| e.start);
    (hunk.len() > 1).then_some(hunk)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::tests::{only_this_pass_shrinks, parse};

    #[test]
    fn a_returned_value_becomes_a_statement_of_a_void_function() {
        let src = "int f(int x) {\n    int c;\n    if (x) return c + 1;\n    return c;\n}\nint main() { f(1); return 0; }\n";
        // like gcc -Werror=return-type: an `int` function returns its value
        let keep = |s: &str| {
            !parse(s).root_node().has_error()
                && s.contains("c + 1;")
                && s.contains("f(1)")
                && s.contains("f(int x) {")
                && (s.contains("void f(") || s.contains("return c + 1;"))
        };
        let out = only_this_pass_shrinks(src, &ReturnVoid, &keep);
        assert!(out.contains("void f(int x)"), "{out}");
        assert!(out.contains("c + 1;") && !out.contains("return c"), "{out}");
    }

    #[test]
    fn pointer_functions_and_functions_without_values_are_left_alone() {
        let src =
            "int *f(int *p) { return p; }\nint g(void) { return; }\nvoid h(void) { return; }\n";
        assert!(
            ReturnVoid
                .hunks(&parse(src), src.as_bytes(), &crate::lang::c::C)
                .is_empty()
        );
    }
}
