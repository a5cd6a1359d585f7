//! The canonical layout of an indentation-sensitive language (Python): every line that starts a
//! statement or a clause is re-indented to 4 spaces per enclosing block; nothing else changes
//! (no line is joined or split, and continuation lines, lines inside strings and blank lines keep
//! their bytes). The driver keeps it only if the test still accepts it.

use tree_sitter::{Node, Tree};

use crate::edits::preorder;
use crate::lang::table::RewriteTable;

/// Spaces per block.
const WIDTH: usize = 4;

/// `src` re-indented, or `None` when nothing moves or the tree has errors (then which lines
/// start statements is a guess).
pub fn reindent(tree: &Tree, src: &[u8], t: &RewriteTable) -> Option<Vec<u8>> {
    if tree.root_node().has_error() || t.block.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(src.len());
    let mut pos = 0;
    for (line_start, leaf) in line_starts(tree, src, t) {
        out.extend_from_slice(&src[pos..line_start]);
        out.extend(std::iter::repeat_n(b' ', WIDTH * depth(leaf, t)));
        pos = leaf.start_byte();
    }
    out.extend_from_slice(&src[pos..]);
    (out != src).then_some(out)
}

/// The first token of each line that starts a logical line (outside brackets and strings, not
/// after a backslash), with where its line starts.
fn line_starts<'t>(tree: &'t Tree, src: &[u8], t: &RewriteTable) -> Vec<(usize, Node<'t>)> {
    let mut out = Vec::new();
    let mut brackets = 0i64;
    for n in preorder(tree) {
        if n.child_count() > 0 || n.start_byte() == n.end_byte() {
            continue;
        }
        let start = n.start_byte();
        let line_start = src[..start]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let first = src[line_start..start]
            .iter()
            .all(|&c| c == b' ' || c == b'\t');
        let continued = src[..line_start].ends_with(b"\\\n");
        if first && brackets == 0 && !continued && !in_string(n, t) {
            out.push((line_start, n));
        }
        match n.kind() {
            "(" | "[" | "{" => brackets += 1,
            ")" | "]" | "}" => brackets -= 1,
            _ => {}
        }
    }
    out
}

fn in_string(n: Node, t: &RewriteTable) -> bool {
    let mut up = n.parent();
    while let Some(p) = up {
        if t.string_literals.contains(&p.kind()) {
            return true;
        }
        up = p.parent();
    }
    false
}

/// How many blocks enclose the token.
fn depth(n: Node, t: &RewriteTable) -> usize {
    let mut d = 0;
    let mut up = n.parent();
    while let Some(p) = up {
        d += usize::from(p.kind() == t.block);
        up = p.parent();
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::python::{REWRITE as PY, SPEC};
    use crate::passes::tests::parse_in;

    fn reindented(src: &str) -> Option<String> {
        let tree = parse_in(&SPEC, src);
        reindent(&tree, src.as_bytes(), &PY).map(|o| String::from_utf8(o).unwrap())
    }

    #[test]
    fn each_block_goes_four_spaces_deeper_than_its_parent() {
        let src = "class A:\n  def f(self):\n          if x:\n           return 1\n          else:\n\n             return 2\n";
        assert_eq!(
            reindented(src).as_deref(),
            Some(
                "class A:\n    def f(self):\n        if x:\n            return 1\n        else:\n\n            return 2\n"
            )
        );
    }

    #[test]
    fn continuation_lines_and_strings_keep_their_bytes() {
        let src = "if x:\n  f(1,\n 2)\n  s = '''a\n  b\n'''\n  t = 1 + \\\n 2\n";
        assert_eq!(
            reindented(src).as_deref(),
            Some("if x:\n    f(1,\n 2)\n    s = '''a\n  b\n'''\n    t = 1 + \\\n 2\n")
        );
    }

    #[test]
    fn a_canonical_file_is_left_alone_and_one_with_errors_too() {
        assert_eq!(reindented("if x:\n    y = 1\nz = 2\n"), None);
        assert_eq!(reindented("if x:\n  y = (\n"), None);
    }
}
