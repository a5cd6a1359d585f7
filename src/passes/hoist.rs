//! Indentation-aware hoist (Python): a compound statement (`if`, `for`, `while`, `with`, `try`)
//! becomes one of its blocks, its own or one of its clauses' (`elif`, `else`, `except`,
//! `finally`), with every line of the block dedented to the statement's own indentation. The
//! brace languages do this in [`super::smallest`] (`if (c) S` -> `S`); here the body's lines
//! move, so the whole statement is one edit, applied whole or not at all.

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Pass, preorder};
use crate::lang::table::RewriteTable;

pub struct Hoist;

impl Pass for Hoist {
    fn name(&self) -> &'static str {
        "hoist-block"
    }

    fn edits(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Edit> {
        if t.indented_compounds.is_empty() || t.block.is_empty() {
            return Vec::new();
        }
        let mut edits = Vec::new();
        for n in preorder(tree) {
            if !t.indented_compounds.contains(&n.kind()) || n.has_error() {
                continue;
            }
            let column = n.start_position().column;
            for block in blocks(n, t) {
                let body = dedent(src, block, column);
                edits.push(Edit::new(n.start_byte(), n.end_byte(), &body));
            }
            edits.extend(condition_first(n, src, column, t.empty_block));
        }
        edits
    }
}

/// `if c:` / `while c:` and its first block becomes `c` on a line of its own, then the block
/// dedented: the condition may be what the test needs (`if d.itervalues: pass` raises as
/// `d.itervalues` does), which no block of the statement keeps.
fn condition_first(n: Node, src: &[u8], column: usize, empty: &str) -> Option<Edit> {
    let condition = n.child_by_field_name("condition")?;
    let block = n
        .child_by_field_name("consequence")
        .or_else(|| n.child_by_field_name("body"))?;
    // tree-sitter's columns count bytes: the statement's line up to it
    let indent = &src[n.start_byte() - column..n.start_byte()];
    if indent.iter().any(|&c| c != b' ' && c != b'\t') {
        return None;
    }
    let mut with = src[condition.byte_range()].to_vec();
    // an empty block (`pass`) goes with the statement: `if c: pass` is longer as `c` + `pass`
    if &src[block.byte_range()] != empty.as_bytes() {
        with.push(b'\n');
        with.extend_from_slice(indent);
        with.extend_from_slice(&dedent(src, block, column));
    }
    Some(Edit::new(n.start_byte(), n.end_byte(), &with))
}

/// The blocks of a compound statement: its own (the body first) and its clauses'.
fn blocks<'t>(n: Node<'t>, t: &RewriteTable) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cursor = n.walk();
    for child in n.named_children(&mut cursor) {
        if child.kind() == t.block {
            out.push(child);
            continue;
        }
        let mut inner = child.walk();
        out.extend(
            child
                .named_children(&mut inner)
                .filter(|c| c.kind() == t.block),
        );
    }
    out
}

/// The text of `block` with every line after its first moved left by the block's own depth
/// beyond `column` (at most the blanks a line starts with: never into its text).
fn dedent(src: &[u8], block: Node, column: usize) -> Vec<u8> {
    let shift = block.start_position().column.saturating_sub(column);
    let text = &src[block.byte_range()];
    let mut out = Vec::with_capacity(text.len());
    for (i, line) in text.split(|&c| c == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
            let blanks = line
                .iter()
                .take(shift)
                .take_while(|&&c| c == b' ' || c == b'\t')
                .count();
            out.extend_from_slice(&line[blanks..]);
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::python::REWRITE as PY;
    use crate::passes::tests::{apply_all, parse_in, shrink_with};

    fn outcomes(src: &str) -> Vec<String> {
        let tree = parse_in(&crate::lang::python::SPEC, src);
        Hoist
            .edits(&tree, src.as_bytes(), &PY)
            .iter()
            .map(|e| apply_all(src, std::slice::from_ref(e)))
            .collect()
    }

    #[test]
    fn a_statement_becomes_each_of_its_blocks_dedented() {
        let src = "def f(x):\n    if x:\n        a = 1\n        b = 2\n    else:\n        c = 3\n";
        let out = outcomes(src);
        assert_eq!(
            out,
            [
                "def f(x):\n    a = 1\n    b = 2\n",
                "def f(x):\n    c = 3\n",
                "def f(x):\n    x\n    a = 1\n    b = 2\n",
            ]
        );
    }

    #[test]
    fn a_condition_stays_as_a_statement_before_its_block_and_an_empty_block_goes() {
        let src = "def f(d):\n    if d.itervalues:\n        pass\n    while g(d):\n        h()\n";
        let out = outcomes(src);
        assert!(
            out.contains(
                &"def f(d):\n    d.itervalues\n    while g(d):\n        h()\n".to_string()
            ),
            "{out:#?}"
        );
        assert!(
            out.contains(
                &"def f(d):\n    if d.itervalues:\n        pass\n    g(d)\n    h()\n".to_string()
            ),
            "{out:#?}"
        );
    }

    #[test]
    fn try_with_and_loops_hoist_every_block() {
        let src = "try:\n    a()\nexcept E:\n    b()\nfinally:\n    c()\n";
        assert_eq!(outcomes(src), ["a()\n", "b()\n", "c()\n"]);
        let src = "with o:\n    for i in x:\n        d(i)\n";
        assert_eq!(
            outcomes(src),
            ["for i in x:\n    d(i)\n", "with o:\n    d(i)\n"]
        );
    }

    /// What CPython checks and tree-sitter-python (recovering) may not: a line is indented
    /// deeper than the one before it only after a `:` that ends a compound statement's header.
    pub fn python_accepts(s: &str) -> bool {
        let py = &crate::lang::python::SPEC;
        let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
        let indent = |l: &str| l.len() - l.trim_start().len();
        let header = |l: &str| {
            let words = [
                "if ", "for ", "while ", "with ", "try:", "else:", "def ", "class ",
            ];
            l.trim_end().ends_with(':') && words.iter().any(|w| l.trim_start().starts_with(w))
        };
        let colons = lines
            .iter()
            .all(|l| !l.trim_end().ends_with(':') || header(l));
        let deeper = lines
            .windows(2)
            .all(|w| indent(w[1]) <= indent(w[0]) || header(w[0]));
        let first = lines.first().is_none_or(|l| indent(l) == 0);
        colons && deeper && first && !parse_in(py, s).root_node().has_error()
    }

    #[test]
    fn only_the_hoist_removes_an_if_around_a_two_line_body() {
        // the test needs both calls in a program that runs: deleting the `if` line leaves the
        // body indented, and an emptied or smaller block loses a call
        let py = &crate::lang::python::SPEC;
        let keep = |s: &str| python_accepts(s) && s.contains("f(1)") && s.contains("f(2)");
        let src = "if x:\n    f(1)\n    f(2)\n";
        assert_eq!(shrink_with(py, src, &Hoist, &keep), "f(1)\nf(2)\n");
    }
}
