//! Debris: the tokens that error recovery leaves outside every item of the keep-closure pass
//! (a namespace head with attributes, an explicit instantiation tree-sitter-cpp cannot parse),
//! cut into runs. A run that reads as a whole declaration is a unit of its own; the rest stays.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use super::names::names_in_node;
use crate::lang::table::RewriteTable;

/// A run of tokens outside every unit: `whole` when it reads as a declaration of its own (it
/// starts with a word at the scope's bracket depth and ends with a `;` back at that depth, with
/// no unit inside), so deleting it cannot cut anything apart.
pub struct Debris<'t> {
    pub tokens: Vec<Node<'t>>,
    pub whole: bool,
}

/// The tokens outside the units (`units` by id, their start bytes sorted in `starts`), cut into
/// [`Debris`]. Brackets count from the innermost scope in `open` (a namespace's braces are
/// not debris; a broken function's are, so its statements never make a whole run).
pub fn debris<'t>(
    tree: &'t Tree,
    units: &HashSet<usize>,
    open: &HashSet<usize>,
    starts: &[usize],
) -> Vec<Debris<'t>> {
    let mut runs = Runs::default();
    for (n, parent, scope) in tokens_outside(tree, units, open) {
        // a unit between the run and this token ends the run, unfinished
        if let Some(last) = runs.current.last()
            && starts.partition_point(|&s| s < last.end_byte())
                != starts.partition_point(|&s| s < n.start_byte())
        {
            runs.end(false);
        }
        // a namespace's braces (brackets count from the innermost scope), also when error
        // recovery left its head (`namespace std __attribute__((..)) {`) in a parse error;
        // they end whatever run came before, and stay
        let scope_bracket = (parent == scope && scope != NO_SCOPE && matches!(n.kind(), "{" | "}"))
            || (n.kind() == "{" && opens_scope(&runs.current));
        if scope_bracket {
            runs.end(false);
            runs.alone(n);
        } else {
            runs.push(n, scope);
        }
    }
    runs.end(false);
    runs.out
}

/// No open scope around a token.
const NO_SCOPE: usize = usize::MAX;

/// The leaves outside every unit, in order, each with its parent's id and the id of the
/// innermost open scope around it (carried down, so no token walks up the tree).
fn tokens_outside<'t>(
    tree: &'t Tree,
    units: &HashSet<usize>,
    open: &HashSet<usize>,
) -> impl Iterator<Item = (Node<'t>, usize, usize)> {
    let mut stack = vec![(tree.root_node(), NO_SCOPE, NO_SCOPE)];
    std::iter::from_fn(move || {
        while let Some((n, parent, scope)) = stack.pop() {
            if units.contains(&n.id()) || n.is_missing() {
                continue;
            }
            if n.child_count() == 0 {
                return Some((n, parent, scope));
            }
            let inner = if open.contains(&n.id()) {
                n.id()
            } else {
                scope
            };
            let mut cursor = n.walk();
            let children: Vec<Node> = n.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev().map(|c| (c, n.id(), inner)));
        }
        None
    })
}

/// The runs cut so far, the run being read, and the bracket depth in each scope.
#[derive(Default)]
struct Runs<'t> {
    out: Vec<Debris<'t>>,
    current: Vec<Node<'t>>,
    depths: HashMap<usize, i64>,
}

impl<'t> Runs<'t> {
    /// Ends the run being read (if any).
    fn end(&mut self, whole: bool) {
        if !self.current.is_empty() {
            self.out.push(Debris {
                tokens: std::mem::take(&mut self.current),
                whole,
            });
        }
    }

    /// A token that is a run of its own, never whole.
    fn alone(&mut self, n: Node<'t>) {
        self.out.push(Debris {
            tokens: vec![n],
            whole: false,
        });
    }

    /// A token in `scope`: it starts a run that may be whole (a word at the scope's depth), or
    /// stands alone, or goes on the run, which a `;` back at the depth ends whole and a close
    /// below it ends unfinished.
    fn push(&mut self, n: Node<'t>, scope: usize) {
        let depth = self.depths.entry(scope).or_insert(0);
        let before = *depth;
        match n.kind() {
            "{" | "(" | "[" => *depth += 1,
            "}" | ")" | "]" => *depth -= 1,
            _ => {}
        }
        let starts_whole = self.current.is_empty() && before == 0 && n.kind().starts_with(is_word);
        if self.current.is_empty() && !starts_whole {
            *depth = (*depth).max(0);
            self.alone(n);
            return;
        }
        let after = *depth;
        self.current.push(n);
        if after < 0 {
            self.depths.insert(scope, 0);
            self.end(false);
        } else if after == 0 && n.kind() == ";" {
            self.end(true);
        }
    }
}

/// The names a whole run of debris seems to declare, by shape: a name at the run's outer level
/// just before `;`, `=`, `(`, `[` or `,` (`typedef long ptrdiff_t;`, `extern int f(int);`), or
/// just after `struct`, `class`, `union` or `enum`. A miss costs tests, never correctness.
pub fn debris_declares<'s>(tokens: &[Node], src: &'s [u8], t: &RewriteTable) -> Vec<&'s [u8]> {
    let mut out = Vec::new();
    let mut depth = 0i64;
    for (i, n) in tokens.iter().enumerate() {
        match n.kind() {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => depth -= 1,
            _ => {}
        }
        let name = names_in_node(*n, src, t);
        if depth != 0 || name.len() != 1 || name[0].is_empty() {
            continue;
        }
        let next = tokens.get(i + 1).map(|x| x.kind());
        let prev = i.checked_sub(1).map(|j| tokens[j].kind());
        let before_end = matches!(next, Some(";" | "=" | "(" | "[" | ","));
        let after_tag = matches!(prev, Some("struct" | "class" | "union" | "enum"));
        if before_end || after_tag {
            out.push(name[0]);
        }
    }
    out
}

/// Whether a run is the head of a namespace or a linkage block (its `{` opens a scope).
fn opens_scope(run: &[Node]) -> bool {
    let kinds: Vec<&str> = run.iter().take(2).map(|n| n.kind()).collect();
    matches!(
        kinds[..],
        ["namespace", ..] | ["inline", "namespace"] | ["extern", "\""]
    )
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::cpp::CPP;
    use crate::passes::tests::parse_cpp;

    #[test]
    fn debris_declares_the_name_before_its_end() {
        let src = "extern int f(int x);\ntypedef struct { int a; } t;\n";
        let tree = parse_cpp(src);
        let mut leaves = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            let mut c = n.walk();
            let kids: Vec<Node> = n.children(&mut c).collect();
            if kids.is_empty() {
                leaves.push(n);
            }
            stack.extend(kids.into_iter().rev());
        }
        let names = debris_declares(&leaves, src.as_bytes(), &CPP);
        let names: Vec<&str> = names
            .iter()
            .map(|n| std::str::from_utf8(n).unwrap())
            .collect();
        assert_eq!(names, ["f", "t"]);
    }

    #[test]
    fn a_namespace_head_in_a_parse_error_keeps_its_braces_out_of_the_count() {
        let src = "namespace std __attribute__ ((__visibility__ (\"default\")))\n{\n  typedef long ptrdiff_t;\n  extern template class allocator<char>;\n}\n";
        let tree = parse_cpp(src);
        let open = HashSet::new();
        let runs = debris(&tree, &HashSet::new(), &open, &[]);
        let whole: Vec<String> = runs
            .iter()
            .filter(|r| r.whole)
            .map(|r| {
                let (a, b) = (r.tokens[0], r.tokens[r.tokens.len() - 1]);
                src[a.start_byte()..b.end_byte()].to_string()
            })
            .collect();
        assert_eq!(
            whole,
            [
                "typedef long ptrdiff_t;",
                "extern template class allocator<char>;"
            ],
            "{}",
            tree.root_node().to_sexp()
        );
    }
}
