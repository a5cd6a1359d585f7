//! Remove the k-th parameter of a function and the k-th argument at every call of it, as one
//! hunk (C-Reduce's param-to-local, without the local): only for functions whose every call
//! passes as many arguments as the function has parameters.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use super::table::RewriteTable;
use super::{Edit, Hunk, Pass, preorder, text};

pub struct RemoveParameter;

impl Pass for RemoveParameter {
    fn name(&self) -> &'static str {
        "remove-parameter"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        let nodes = preorder(tree);
        // per function name: its parameter lists (declarations and definition) and its calls
        let mut lists: HashMap<&[u8], Vec<Node>> = HashMap::new();
        let mut calls: HashMap<&[u8], Vec<Node>> = HashMap::new();
        for &n in &nodes {
            if n.kind() == t.function_declarator
                && let (Some(name), Some(params)) = (
                    n.child_by_field_name(t.declarator_field),
                    n.child_by_field_name(t.parameters_field),
                )
                && t.names.contains(&name.kind())
            {
                lists.entry(text(name, src)).or_default().push(params);
            }
            if n.kind() == t.call
                && let (Some(f), Some(args)) = (
                    n.child_by_field_name(t.function_field),
                    n.child_by_field_name(t.arguments_field),
                )
            {
                calls.entry(text(f, src)).or_default().push(args);
            }
        }
        let mut hunks = Vec::new();
        for (name, params) in &lists {
            let arity = elements(params[0]).len();
            let uses = calls.get(name).map_or(&[][..], Vec::as_slice);
            let consistent = params.iter().all(|p| elements(*p).len() == arity)
                && uses.iter().all(|a| elements(*a).len() == arity);
            if !consistent || is_void(params[0], src) {
                continue;
            }
            for k in 0..arity {
                hunks.push(
                    params
                        .iter()
                        .chain(uses)
                        .map(|list| remove_element(*list, k))
                        .collect(),
                );
            }
        }
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }
}

/// `(void)`: no parameter to remove.
fn is_void(params: Node, src: &[u8]) -> bool {
    let e = elements(params);
    e.len() == 1 && text(e[0], src) == b"void"
}

/// The named elements of a parenthesized, comma-separated list (comments excluded).
pub fn elements(list: Node) -> Vec<Node> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|c| !c.is_extra())
        .collect()
}

/// Deletes element `k` with one of its commas.
fn remove_element(list: Node, k: usize) -> Edit {
    remove_nth(&elements(list), k)
}

/// Deletes item `k` of a comma-separated run of items with one of its commas.
pub fn remove_nth(e: &[Node], k: usize) -> Edit {
    let n = e[k];
    match (e.get(k + 1), k.checked_sub(1).map(|i| e[i])) {
        (Some(next), _) => Edit::delete(n.start_byte(), next.start_byte()),
        (None, Some(prev)) => Edit::delete(prev.end_byte(), n.end_byte()),
        (None, None) => Edit::delete(n.start_byte(), n.end_byte()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::c::C;
    use crate::rewrite::tests::parse;

    fn apply(src: &str, hunk: &Hunk) -> String {
        let mut space = crate::rewrite::EditSpace::new(src.as_bytes().to_vec());
        space.next_layer(&[], vec![hunk.clone()]);
        String::from_utf8(space.render(&[])).unwrap()
    }

    #[test]
    fn a_parameter_goes_with_its_argument_at_every_call() {
        let src = "int f(int a, char *b);\nint f(int a, char *b) { return a; }\nint main() { return f(1, 0) + f(2, 0); }\n";
        let tree = parse(src);
        let hunks = RemoveParameter.hunks(&tree, src.as_bytes(), &C);
        let out: Vec<String> = hunks.iter().map(|h| apply(src, h)).collect();
        assert!(
            out.contains(
                &"int f(int a);\nint f(int a) { return a; }\nint main() { return f(1) + f(2); }\n"
                    .to_string()
            ),
            "{out:#?}"
        );
        assert!(out.contains(
            &"int f(char *b);\nint f(char *b) { return a; }\nint main() { return f(0) + f(0); }\n"
                .to_string()
        ), "{out:#?}");
    }

    #[test]
    fn a_call_with_another_arity_blocks_the_removal() {
        let src = "int g();\nint g(int a) { return a; }\nint main() { return g(1, 2); }\n";
        let tree = parse(src);
        assert!(RemoveParameter.hunks(&tree, src.as_bytes(), &C).is_empty());
    }
}
