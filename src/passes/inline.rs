//! Inline a function that only returns an expression: `T *f() { return e; }` and every call
//! `f()` becomes `(e)`, in one hunk; when nothing else names `f`, its definition goes in the same
//! hunk (C-Reduce's simple-inliner, for the case without parameters). A bug that gcc reports
//! "inlined from" a caller is then in the caller, and the function and its call go.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Hunk, Pass, elements, preorder, shrinks, text};
use crate::lang::table::RewriteTable;

pub struct InlineReturn;

impl Pass for InlineReturn {
    fn name(&self) -> &'static str {
        "inline-return"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        let nodes = preorder(tree);
        let mut returns: HashMap<&[u8], (Node, Node)> = HashMap::new();
        let mut calls: HashMap<&[u8], Vec<Node>> = HashMap::new();
        let mut mentions: HashMap<&[u8], usize> = HashMap::new();
        for n in &nodes {
            if t.names.contains(&n.kind()) {
                *mentions.entry(text(n, src)).or_default() += 1;
            }
            if let Some((name, e)) = returns_only(n, src, t) {
                returns.insert(name, (n, e));
            }
            if n.kind() == t.call
                && let (Some(f), Some(args)) = (
                    n.child_by_field_name(t.function_field),
                    n.child_by_field_name(t.arguments_field),
                )
                && elements(args).is_empty()
            {
                calls.entry(text(f, src)).or_default().push(n);
            }
        }
        let mut hunks: Vec<Hunk> = Vec::new();
        for (name, (def, e)) in returns {
            let Some(sites) = calls.get(name) else {
                continue;
            };
            let mut with = b"(".to_vec();
            with.extend_from_slice(text(e, src));
            with.push(b')');
            let mut hunk: Hunk = sites
                .iter()
                .filter(|c| !within(**c, def))
                .map(|c| Edit::new(c.start_byte(), c.end_byte(), &with))
                .collect();
            // the definition's name and the calls are all the mentions: it goes too
            if mentions.get(name) == Some(&(1 + hunk.len())) {
                hunk.push(Edit::delete(def.start_byte(), def.end_byte()));
            }
            // a hunk that grows the text could never be committed
            if !hunk.is_empty() && shrinks(&hunk) {
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

/// `(name, e)` when `n` defines a function without parameters whose body is `{ return e; }`.
fn returns_only<'t, 's>(
    n: Node<'t>,
    src: &'s [u8],
    t: &RewriteTable,
) -> Option<(&'s [u8], Node<'t>)> {
    if n.kind() != t.function_definition || n.has_error() {
        return None;
    }
    let body = n.child_by_field_name(t.body_field)?;
    let mut declarator = n.child_by_field_name(t.declarator_field)?;
    while declarator.kind() != t.function_declarator {
        declarator = declarator.child_by_field_name(t.declarator_field)?;
    }
    let name = declarator.child_by_field_name(t.declarator_field)?;
    let params = declarator.child_by_field_name(t.parameters_field)?;
    let no_params = match elements(params)[..] {
        [] => true,
        [p] => text(p, src) == b"void",
        _ => false,
    };
    let [statement] = elements(body)[..] else {
        return None;
    };
    let e = (statement.kind() == t.return_statement)
        .then(|| statement.named_child(0))
        .flatten()?;
    (no_params && t.names.contains(&name.kind())).then(|| (text(name, src), e))
}

fn within(n: Node, outer: Node) -> bool {
    outer.start_byte() <= n.start_byte() && n.end_byte() <= outer.end_byte()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::{minimize, only_this_pass_shrinks, parse};

    #[test]
    fn calls_get_the_returned_expression_and_the_function_goes() {
        let src = "int *g;\nint *f(void) { return g + 1; }\nvoid h() { *f() = 0; *f() = 1; }\n";
        let out = minimize(src, &InlineReturn, &|s| !parse(s).root_node().has_error());
        assert_eq!(out, "int *g;\n\nvoid h() { *(g + 1) = 0; *(g + 1) = 1; }\n");
    }

    #[test]
    fn a_function_named_elsewhere_stays() {
        let src = "int ff() { return 1; }\nint (*p)() = ff;\nint h() { return ff(); }\n";
        let tree = parse(src);
        let hunks = InlineReturn.hunks(&tree, src.as_bytes(), &C);
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].len(), 1, "{hunks:?}");
        let src = "int f(int a) { return a; }\nint h() { return f(1); }\n";
        assert!(
            InlineReturn
                .hunks(&parse(src), src.as_bytes(), &C)
                .is_empty()
        );
    }

    #[test]
    fn only_this_pass_moves_the_store_into_the_caller() {
        // the test wants a store through `v ? 0 : g` inside `h`, spelled either way
        let src = "int *g, v;\nint *f() { return v ? 0 : g; }\nvoid h() { *f() = 0; }\n";
        let keep = |s: &str| {
            let flat: String = s.split_whitespace().collect();
            let called = flat.contains("int*f(){returnv?0:g;}voidh(){*f()=0;}");
            let inlined = flat.ends_with("voidh(){*(v?0:g)=0;}");
            !parse(s).root_node().has_error() && flat.starts_with("int*g,v;") && (called || inlined)
        };
        let out = only_this_pass_shrinks(src, &InlineReturn, &keep);
        assert!(!out.contains("f()"), "{out}");
    }
}
