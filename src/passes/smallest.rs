//! Replace a node by the smallest of its kind (the language table's `0`, `{}`/`pass`, `int`/`()`,
//! `""`, `()`), or by
//! a part of it: `(e)` -> `e`, `a ? b : c` -> `b` | `c`, `if (c) S` -> `S`, `return e;` ->
//! `return;` | `e;`, `x = v` -> `x`; drop qualifiers, storage classes and attributes. Alternatives for
//! one node overlap, so they land in successive layers: the first that works wins.

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Pass, preorder, text};
use crate::lang::table::RewriteTable;

pub struct Smallest;

impl Pass for Smallest {
    fn name(&self) -> &'static str {
        "smallest-of-kind"
    }

    fn edits(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Edit> {
        let mut edits = Vec::new();
        for n in preorder(tree) {
            if !n.has_error() {
                alternatives(n, src, t, &mut edits);
            }
        }
        edits
    }
}

/// The smaller alternatives of one node, best first.
fn alternatives(n: Node, src: &[u8], t: &RewriteTable, out: &mut Vec<Edit>) {
    let kind = n.kind();
    let whole = |with: &[u8]| Edit::new(n.start_byte(), n.end_byte(), with);
    let inner = |c: Node| whole(text(c, src));
    if t.expressions.contains(&kind) && is_expression_slot(n, t) {
        out.push(whole(t.zero.as_bytes()));
    }
    if kind == t.parenthesized
        && let Some(e) = n.named_child(0)
    {
        out.push(inner(e));
    }
    if kind == t.conditional {
        for field in ["consequence", "alternative"] {
            out.extend(n.child_by_field_name(field).map(inner));
        }
    }
    if kind == t.block && n.named_child_count() > 0 {
        out.push(whole(t.empty_block.as_bytes()));
    }
    if kind == t.return_statement
        && let Some(e) = n.named_child(0)
    {
        out.push(whole(b"return;"));
        // the value still computed, as a statement
        let mut statement = text(e, src).to_vec();
        statement.push(b';');
        out.push(whole(&statement));
    }
    for &(stmt, field) in t.guarded {
        if kind == stmt
            && let Some(body) = n.child_by_field_name(field)
        {
            let body = match t.wrappers.contains(&body.kind()) {
                true => body.named_child(body.named_child_count().saturating_sub(1) as u32),
                false => Some(body),
            };
            out.extend(body.map(inner));
        }
    }
    if kind == t.init_declarator
        && let Some(d) = n.child_by_field_name(t.declarator_field)
    {
        out.push(inner(d));
    }
    if kind == t.parameter_list && n.named_child_count() > 0 {
        out.push(whole(t.empty_params.as_bytes()));
    }
    if t.string_literals.contains(&kind) {
        out.push(whole(t.empty_string.as_bytes()));
    }
    if kind == t.char_literal || kind == t.number_literal {
        out.push(whole(t.zero.as_bytes()));
    }
    // a name only where it is a type, and only when longer (`T` stays: `int` would not pay)
    let named_type = || {
        n.byte_range().len() > t.small_type.len()
            && n.parent().and_then(|p| p.child_by_field_name(t.type_field)) == Some(n)
    };
    if t.types.contains(&kind) && n.child_by_field_name(t.body_field).is_none()
        || t.named_types.contains(&kind) && named_type()
    {
        out.push(whole(t.small_type.as_bytes()));
    }
    if t.droppable.contains(&kind) {
        out.push(whole(b""));
    }
}

/// Expressions are replaced in value positions only: not a callee's name, a declarator or the
/// field of `a.b`, where `0` can never compile; a bare name (`n`, C++'s `A::n`) only where a
/// value goes (an array's size is one).
fn is_expression_slot(n: Node, t: &RewriteTable) -> bool {
    let Some(parent) = n.parent() else {
        return false;
    };
    let is = |field: &str| !field.is_empty() && parent.child_by_field_name(field) == Some(n);
    let pk = parent.kind();
    let name_in_value_slot = pk.ends_with("expression")
        || matches!(pk, "argument_list" | "return_statement" | "init_declarator")
        || pk == "array_declarator" && is("size");
    let name = matches!(n.kind(), "identifier" | "qualified_identifier");
    !(pk == t.call && is(t.function_field)
        || is(t.declarator_field)
        || pk == "field_expression" && is("field")
        || name && !name_in_value_slot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::{apply_first_layer, parse};

    fn first_layer(src: &str) -> String {
        let tree = parse(src);
        apply_first_layer(src, &Smallest.edits(&tree, src.as_bytes(), &C))
    }

    #[test]
    fn expressions_become_zero_outermost_first() {
        assert_eq!(
            first_layer("int f() { return g(a + b) * 3; }"),
            "int f() {}"
        );
        let src = "int f() { return g(a + b) * 3; }";
        let tree = parse(src);
        let edits = Smallest.edits(&tree, src.as_bytes(), &C);
        assert!(edits.contains(&Edit::new(17, 29, b"0")), "{edits:?}");
        assert!(edits.contains(&Edit::new(10, 30, b"return;")), "{edits:?}");
    }

    #[test]
    fn a_call_keeps_its_name_and_a_declarator_is_never_zero() {
        let src = "int x = 1; int f() { g(x); }";
        let tree = parse(src);
        let edits = Smallest.edits(&tree, src.as_bytes(), &C);
        let replaced: Vec<&str> = edits
            .iter()
            .filter(|e| &*e.with == b"0")
            .map(|e| &src[e.start as usize..e.end as usize])
            .collect();
        assert!(
            replaced.contains(&"g(x)") && replaced.contains(&"x"),
            "{replaced:?}"
        );
        assert!(
            !replaced.contains(&"g") && !replaced.contains(&"f"),
            "{replaced:?}"
        );
    }

    #[test]
    fn a_cpp_qualified_name_is_zero_where_a_value_goes() {
        let src = "struct V { static int k; };\nV::T x;\nvoid f(char *p) { char buf[V::k]; g(V::k, p - buf); }\nint V::k;\n";
        let tree = crate::passes::tests::parse_cpp(src);
        let edits = Smallest.edits(&tree, src.as_bytes(), &crate::lang::cpp::CPP);
        let zeroed: Vec<usize> = edits
            .iter()
            .filter(|e| &*e.with == b"0" && &src[e.start as usize..e.end as usize] == "V::k")
            .map(|e| e.start as usize)
            .collect();
        // the array size and the argument; not the definition `int V::k;`
        assert_eq!(zeroed.len(), 2, "{edits:?}");
        // a type may become `int`, never `0`
        assert!(
            edits
                .iter()
                .all(|e| &src[e.start as usize..e.end as usize] != "V::T" || &*e.with == b"int")
        );
    }

    #[test]
    fn parts_replace_the_whole() {
        let src = "int f(int c) { if (c) { h(); } else k(); return c ? 1 : 2; }";
        let tree = parse(src);
        let edits = Smallest.edits(&tree, src.as_bytes(), &C);
        let with: Vec<&[u8]> = edits.iter().map(|e| &*e.with).collect();
        for want in [
            &b"{ h(); }"[..],
            b"k();",
            b"1",
            b"2",
            b"()",
            b"{}",
            b"return;",
        ] {
            assert!(
                with.contains(&want),
                "{:?} missing",
                String::from_utf8_lossy(want)
            );
        }
    }

    #[test]
    fn qualifiers_go_and_types_shrink() {
        let src = "static const unsigned long x = 5;";
        let tree = parse(src);
        let edits = Smallest.edits(&tree, src.as_bytes(), &C);
        let with: Vec<(&str, &[u8])> = edits
            .iter()
            .map(|e| (&src[e.start as usize..e.end as usize], &*e.with))
            .collect();
        assert!(with.contains(&("static", b"")) && with.contains(&("const", b"")));
        assert!(with.contains(&("unsigned long", b"int")), "{with:?}");
        assert!(with.contains(&("x = 5", b"x")), "{with:?}");
    }
}
