//! unifdef: an `#if`/`#ifdef`/`#ifndef` block becomes the lines of one of its branches, the
//! directives gone (`#if A x #else y #endif` -> `x` or `y`; an `#elif` branch becomes the `#if`
//! of what follows it). Preprocessor nodes of the C and C++ trees, found by kind.

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Pass, preorder};
use crate::lang::table::RewriteTable;

/// Conditional blocks and the branches their `alternative` field holds.
const BLOCKS: [&str; 2] = ["preproc_if", "preproc_ifdef"];
const ELSE: &str = "preproc_else";
const ELIF: &str = "preproc_elif";
const CONDITION_FIELDS: [&str; 3] = ["condition", "name", "alternative"];

pub struct Unifdef;

impl Pass for Unifdef {
    fn name(&self) -> &'static str {
        "unifdef"
    }

    fn edits(&self, tree: &Tree, src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        let mut edits = Vec::new();
        for n in preorder(tree) {
            if !BLOCKS.contains(&n.kind()) || n.has_error() {
                continue;
            }
            let whole = |with: &[u8]| Edit::new(n.start_byte(), n.end_byte(), with);
            edits.push(whole(body(n, src)));
            match n.child_by_field_name("alternative") {
                Some(alt) if alt.kind() == ELSE => edits.push(whole(body(alt, src))),
                Some(alt) if alt.kind() == ELIF => {
                    // `#elif c ... #endif` -> `#if c ... #endif`
                    let rest = &src[alt.start_byte() + "#elif".len()..n.end_byte()];
                    edits.push(whole(&[b"#if".as_slice(), rest].concat()));
                }
                _ => {}
            }
        }
        edits
    }
}

/// The text of a branch's lines: from its first item to its last (empty without items).
fn body<'s>(branch: Node, src: &'s [u8]) -> &'s [u8] {
    let skip: Vec<usize> = CONDITION_FIELDS
        .iter()
        .filter_map(|f| branch.child_by_field_name(f))
        .map(|c| c.id())
        .collect();
    let mut cursor = branch.walk();
    let items: Vec<Node> = branch
        .named_children(&mut cursor)
        .filter(|c| !skip.contains(&c.id()))
        .collect();
    match (items.first(), items.last()) {
        (Some(first), Some(last)) => &src[first.start_byte()..last.end_byte()],
        _ => &src[..0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::tests::{self, only_this_pass_shrinks, parse};

    fn outcomes(src: &str) -> Vec<String> {
        tests::outcomes(&Unifdef, src)
    }

    #[test]
    fn each_branch_can_stay_alone() {
        let src = "#ifdef A\nint a;\n#else\nint b;\n#endif\nint c;\n";
        assert_eq!(outcomes(src), ["int a;\nint c;\n", "int b;\nint c;\n"]);
        let src = "#if X\nint a;\n#elif Y\nint b;\n#endif\n";
        assert_eq!(outcomes(src), ["int a;\n", "#if Y\nint b;\n#endif\n"]);
    }

    #[test]
    fn only_unifdef_drops_the_directives_around_a_needed_line() {
        // the test wants `x` declared (a stand-in for a compiler that sees `A` undefined), and
        // like the preprocessor, an `#endif` for every `#if` and a name after `#ifndef`
        let src = "#ifndef A\nint x;\n#endif\nint main() { f(x); }\n";
        let keep = |s: &str| {
            s.contains("int main() { f(x); }")
                && s.contains("int x;")
                && !parse(s).root_node().has_error()
                && s.matches("#if").count() == s.matches("#endif").count()
                && s.matches("#ifndef").count() == s.matches("#ifndef A").count()
        };
        let out = only_this_pass_shrinks(src, &Unifdef, &keep);
        assert_eq!(out, "int x;\nint main() { f(x); }\n");
    }
}
