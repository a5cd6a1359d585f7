//! Shorter shapes of the same C code, each one edit: `e[0]` -> `*e`; `if (c) return a; return
//! b;` -> `return c ? a : b;`.

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Pass, preorder, text};
use crate::lang::table::RewriteTable;

const SUBSCRIPT: &str = "subscript_expression";
const IF: &str = "if_statement";

pub struct Shapes;

impl Pass for Shapes {
    fn name(&self) -> &'static str {
        "shorter-shapes"
    }

    fn edits(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Edit> {
        let mut out = Vec::new();
        // C and C++ only (`*e` is no JavaScript): the tables with function declarators
        if t.function_declarator.is_empty() {
            return out;
        }
        for n in preorder(tree) {
            if n.has_error() {
                continue;
            }
            out.extend(subscript_zero(n, src));
            out.extend(if_return(n, src, t));
        }
        out
    }
}

/// `e[0]` -> `*e`.
fn subscript_zero(n: Node, src: &[u8]) -> Option<Edit> {
    if n.kind() != SUBSCRIPT {
        return None;
    }
    let index = n.child_by_field_name("index")?;
    let e = n.child_by_field_name("argument")?;
    (text(index, src) == b"0").then(|| {
        let mut with = b"*".to_vec();
        with.extend_from_slice(text(e, src));
        Edit::new(n.start_byte(), n.end_byte(), &with)
    })
}

/// `if (c) return a; return b;` (no else) -> `return c ? a : b;`.
fn if_return<'t>(n: Node<'t>, src: &[u8], t: &RewriteTable) -> Option<Edit> {
    if n.kind() != IF || n.child_by_field_name("alternative").is_some() {
        return None;
    }
    let condition = n.child_by_field_name("condition")?;
    let then = n.child_by_field_name("consequence")?;
    let next = n.next_named_sibling()?;
    let value = |r: Node<'t>| -> Option<Node<'t>> {
        (r.kind() == t.return_statement)
            .then(|| r.named_child(0))
            .flatten()
    };
    let (a, b) = (value(then)?, value(next)?);
    // the condition keeps its parentheses: `(c) ? a : b`
    let mut with = b"return ".to_vec();
    for (part, sep) in [(condition, &b" ? "[..]), (a, b" : "), (b, b";")] {
        with.extend_from_slice(text(part, src));
        with.extend_from_slice(sep);
    }
    Some(Edit::new(n.start_byte(), next.end_byte(), &with))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::tests::{minimize, only_this_pass_shrinks, parse};

    fn all(src: &str) -> String {
        minimize(src, &Shapes, &|s| !parse(s).root_node().has_error())
    }

    #[test]
    fn subscript_zero_becomes_a_dereference() {
        assert_eq!(
            all("void f(int *p) { g()[0] = p[0]; }\n"),
            "void f(int *p) { *g() = *p; }\n"
        );
    }

    #[test]
    fn a_guarded_return_and_the_next_become_a_conditional() {
        assert_eq!(
            all("int f(int c) { if (c) return 0; return 1; }\n"),
            "int f(int c) { return (c) ? 0 : 1; }\n"
        );
    }

    #[test]
    fn only_this_pass_gets_the_shorter_shapes() {
        // the test wants the same semantics spelled any way: a store through what f returns,
        // f returning 0 when `v` is set and `g` otherwise
        let src =
            "int *g;\nint *f() { int v; if (v) return 0; return g; }\nvoid h() { f()[0] = 0; }\n";
        let keep = |s: &str| {
            let flat: String = s.split_whitespace().collect();
            let store = flat.contains("f()[0]=0;") || flat.contains("*f()=0;");
            let body = flat.contains("{intv;if(v)return0;returng;}")
                || flat.contains("{intv;return(v)?0:g;}");
            let globals = flat.starts_with("int*g;int*f(){intv;");
            !parse(s).root_node().has_error()
                && store
                && body
                && globals
                && flat.contains("int*f()")
                && flat.contains("voidh()")
        };
        let out = only_this_pass_shrinks(src, &Shapes, &keep);
        let flat: String = out.split_whitespace().collect();
        assert_eq!(
            flat, "int*g;int*f(){intv;return(v)?0:g;}voidh(){*f()=0;}",
            "{out}"
        );
    }
}
