//! Declarations that go together with the places that name them: an export table `{f: f, g}`
//! or a run of statements `lib.f = f;` names every function of a library, so neither the
//! functions nor the table's entries can go alone. For tables that name *reference elements*
//! (JavaScript's object entries and expression statements): a declaration whose every other
//! use sits in one goes in one hunk with them, and each entry of a large export table is a hunk
//! of its own. Both are listed by the unreferenced pass.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::edits::{Edit, Preorder, text};
use crate::lang::table::RewriteTable;

/// How far above a use its reference element may be (`f: f`, `f: a.f`, `f: g(f)`,
/// `lib.f = f;`).
const ELEMENT_DEPTH: usize = 3;

/// When every use of `declared` outside `item` (`at`: the name nodes that use each name) sits
/// in a reference element, and no element holds the item: the deletions of those elements,
/// each with the comma after it. Words of raw text (macro bodies) are not name nodes: the
/// tables that have reference elements have no raw text.
pub(super) fn with_users(
    item: Node,
    declared: &[&[u8]],
    at: &HashMap<&[u8], Vec<Node>>,
    src: &[u8],
    t: &RewriteTable,
) -> Option<Vec<Edit>> {
    if declared.is_empty() || at.is_empty() {
        return None;
    }
    let range = item.byte_range();
    let mut elements: Vec<Node> = Vec::new();
    for name in declared {
        for u in at.get(name).into_iter().flatten() {
            if range.contains(&u.start_byte()) {
                continue;
            }
            let e = std::iter::successors(Some(*u), Node::parent)
                .take(ELEMENT_DEPTH + 1)
                .find(|a| t.reference_elements.contains(&a.kind()))?;
            if e.start_byte() <= range.start && range.end <= e.end_byte() {
                return None;
            }
            if !elements.iter().any(|x| x.id() == e.id()) {
                elements.push(e);
            }
        }
    }
    if elements.is_empty() {
        return None;
    }
    Some(
        elements
            .into_iter()
            .map(|e| element_deletion(e, src, t))
            .collect(),
    )
}

/// An element's deletion, with the comma after it (a trailing comma is left: JavaScript and
/// Lua accept one); a statement (an element of an item list) with its line when it has one
/// of its own.
fn element_deletion(e: Node, src: &[u8], t: &RewriteTable) -> Edit {
    match e.next_sibling() {
        Some(comma) if comma.kind() == "," => Edit::delete(e.start_byte(), comma.end_byte()),
        _ if e.parent().is_some_and(|p| t.item_lists.contains(&p.kind())) => {
            Edit::delete_lines(src, e.start_byte(), e.end_byte())
        }
        _ => Edit::delete(e.start_byte(), e.end_byte()),
    }
}

/// A node's last named child.
fn last_child(n: Node) -> Option<Node> {
    n.named_child((n.named_child_count() as u32).saturating_sub(1))
}

/// A list with at least this many reference elements that each name a declared item is an
/// export table.
const EXPORT_TABLE_MIN: usize = 8;

/// Each entry of an export table (`{f: f, g, ..}`) on its own: the library's functions stay
/// named by the table until the entries the test does not need go, and a bisection of the
/// entries finds those it needs in a few tests each. `declared`: every name the items declare.
pub(super) fn export_entries<'s>(
    nodes: &Preorder,
    declared: &HashSet<&[u8]>,
    src: &'s [u8],
    t: &RewriteTable,
) -> Vec<(Edit, Vec<&'s [u8]>)> {
    if t.reference_elements.is_empty() {
        return Vec::new();
    }
    // the value is the entry itself (`{f}`), its last child (`f: f`), or that child's last
    // child (`lib.f = f;`)
    let names_an_item = |e: &Node| {
        std::iter::successors(Some(*e), |n| last_child(*n))
            .take(3)
            .find(|v| t.names.contains(&v.kind()))
            .is_some_and(|v| declared.contains(text(v, src)))
    };
    let mut out = Vec::new();
    for n in nodes
        .iter()
        .filter(|n| n.named_child_count() >= EXPORT_TABLE_MIN)
    {
        let mut cursor = n.walk();
        let entries: Vec<Node> = n
            .named_children(&mut cursor)
            .filter(|e| t.reference_elements.contains(&e.kind()) && names_an_item(e))
            .collect();
        if entries.len() >= EXPORT_TABLE_MIN {
            out.extend(
                entries
                    .into_iter()
                    .map(|e| (element_deletion(e, src, t), Vec::new())),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::names::Unreferenced;
    use super::super::tests::{apply_all, parse_in};
    use crate::edits::Pass;

    fn squashed_outcomes(src: &str) -> Vec<String> {
        let js = &crate::lang::javascript::SPEC;
        let tree = parse_in(js, src);
        Unreferenced
            .hunks(&tree, src.as_bytes(), js.rewrite)
            .iter()
            .map(|h| apply_all(src, h).split_whitespace().collect())
            .collect()
    }

    /// A JavaScript library whose export table names every function: a function used only
    /// there goes in one hunk with its entries; one the library also calls stays.
    #[test]
    fn javascript_functions_go_with_their_export_entries() {
        let src = "(function () {\n  function a() { return b(); }\n  function b() { return 1; }\n  function c() { return 2; }\n  var d = 3, e = 4;\n  var all = {a: a, b: b, c, dd: d, e: e};\n  return all;\n})();\n";
        // compared without whitespace (a deletion leaves the spaces around it)
        let outcomes = squashed_outcomes(src);
        let gone = |what: &str| {
            outcomes
                .iter()
                .find(|o| !o.contains(what))
                .cloned()
                .unwrap_or_default()
        };
        // `a` and `c` (shorthand) go with their entries, each entry with its comma
        assert!(
            gone("functiona").contains("varall={b:b,c,dd:d,e:e};"),
            "{outcomes:?}"
        );
        assert!(
            gone("functionc").contains("varall={a:a,b:b,dd:d,e:e};"),
            "{outcomes:?}"
        );
        // `var d = 3, e = 4;` declares both: it goes with both entries
        assert!(
            gone("vard").contains("varall={a:a,b:b,c,};"),
            "{outcomes:?}"
        );
        // `b` is called by `a`: no hunk deletes it
        assert!(
            outcomes.iter().all(|o| o.contains("functionb")),
            "{outcomes:?}"
        );
        assert_eq!(outcomes.len(), 3, "{outcomes:?}");
    }

    /// A library that exports by statements (`lib.f = f;`, lodash's way): a function goes
    /// with the statements that use it, lines and all, and eight such statements are each a
    /// hunk too.
    #[test]
    fn javascript_functions_go_with_the_statements_that_export_them() {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let mut src = String::from("(function () {\n  var lib = {};\n");
        for f in names {
            src.push_str(&format!("  function {f}() {{ return 1; }}\n"));
        }
        for f in names {
            src.push_str(&format!("  lib.{f} = {f};\n"));
        }
        src.push_str("  lib.a();\n  module.exports = lib;\n})();\n");
        let js = &crate::lang::javascript::SPEC;
        let tree = parse_in(js, &src);
        let outcomes: Vec<String> = Unreferenced
            .hunks(&tree, src.as_bytes(), js.rewrite)
            .iter()
            .map(|h| apply_all(&src, h))
            .collect();
        let has = |o: String| outcomes.contains(&o);
        let line = |f: &str| format!("  function {f}() {{ return 1; }}\n");
        let statement = |f: &str| format!("  lib.{f} = {f};\n");
        // `h` goes with its statement, whole lines
        assert!(
            has(src.replace(&line("h"), "").replace(&statement("h"), "")),
            "{outcomes:?}"
        );
        // `a` with its statement and the call (its every use is a statement)
        let a = src.replace(&line("a"), "").replace(&statement("a"), "");
        assert!(has(a.replace("  lib.a();\n", "")), "{outcomes:?}");
        // and each statement alone
        assert!(has(src.replace(&statement("c"), "")), "{outcomes:?}");
        // 8 functions, `lib` with every statement that uses it, and 9 statements alone (the
        // 8 and `module.exports = lib;`)
        assert!(
            has(src.replace("  module.exports = lib;\n", "")),
            "{outcomes:?}"
        );
        assert_eq!(outcomes.len(), 8 + 1 + 9, "{outcomes:?}");
    }

    /// Eight entries that name functions make an export table: each entry is a hunk of its own
    /// (besides the hunks of the functions nobody else calls); seven do not.
    #[test]
    fn each_entry_of_a_large_export_table_is_a_hunk() {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let program = |n: usize| {
            let mut src = String::new();
            for f in &names[..n] {
                src.push_str(&format!("function {f}() {{ return x(); }}\n"));
            }
            let entries: Vec<String> = names[..n].iter().map(|f| format!("{f}: {f}")).collect();
            src.push_str(&format!(
                "var all = {{{}}};\nuse(all, a, b);\n",
                entries.join(", ")
            ));
            src
        };
        let eight = squashed_outcomes(&program(8));
        // each entry alone
        assert!(
            eight
                .iter()
                .any(|o| o.contains("functiona") && o.contains("varall={b:b,c:c,")),
            "{eight:?}"
        );
        // `a` and `b` are also used by the call statement: they go with it and their entries,
        // and `all` goes with the call
        assert!(
            eight.iter().any(|o| !o.contains("functiona")
                && o.ends_with("varall={b:b,c:c,d:d,e:e,f:f,g:g,h:h};")),
            "{eight:?}"
        );
        assert!(
            eight.iter().any(|o| o.ends_with("functionh(){returnx();}")),
            "{eight:?}"
        );
        // 8 functions with their entries (and the call, for `a` and `b`), `all` with the
        // call, and 8 entries alone
        assert_eq!(eight.len(), 17, "{eight:?}");
        let seven = squashed_outcomes(&program(7));
        assert_eq!(seven.len(), 8, "{seven:?}");
    }
}
