//! Balanced pairs, matched at the token level (so through ERROR regions too, where the grammar
//! gives no nodes): delete a pair `(` `)`, `{` `}` or `[` `]` with its contents, or only its two
//! delimiters (one hunk). Catches stray parentheses and braces that no node owns.

use tree_sitter::Tree;

use super::windows::{MAX_TOKENS, through_blanks};
use crate::edits::{Edit, Hunk, Pass, preorder};
use crate::lang::table::RewriteTable;

const PAIRS: [(&str, &str); 3] = [("(", ")"), ("{", "}"), ("[", "]")];

pub struct BalancedPairs;

impl Pass for BalancedPairs {
    fn name(&self) -> &'static str {
        "balanced-pairs"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], _t: &RewriteTable) -> Vec<Hunk> {
        let mut hunks = Vec::new();
        for (open, close) in pairs(tree) {
            hunks.push(vec![Edit::delete(open.0, through_blanks(src, close.1))]);
            let inside = through_blanks(src, open.1);
            if inside < close.0 {
                hunks.push(vec![
                    Edit::delete(open.0, inside),
                    Edit::delete(close.0, close.1),
                ]);
            }
        }
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }
}

/// The matched delimiter pairs, as the byte ranges of the opening and the closing token; a
/// closing token that does not match the innermost open one is left alone.
fn pairs(tree: &Tree) -> Vec<((usize, usize), (usize, usize))> {
    let tokens: Vec<_> = preorder(tree)
        .filter(|n| n.child_count() == 0 && n.start_byte() < n.end_byte())
        .collect();
    if tokens.len() > MAX_TOKENS {
        return Vec::new();
    }
    let mut open: Vec<(&str, (usize, usize))> = Vec::new();
    let mut out = Vec::new();
    for n in tokens {
        let kind = n.kind();
        let span = (n.start_byte(), n.end_byte());
        if PAIRS.iter().any(|(o, _)| *o == kind) {
            open.push((kind, span));
        } else if let Some((o, _)) = PAIRS.iter().find(|(_, c)| *c == kind)
            && open.last().is_some_and(|(k, _)| k == o)
        {
            let (_, start) = open.pop().expect("checked");
            out.push((start, span));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::tests::{only_this_pass_shrinks, parse};

    #[test]
    fn pairs_match_through_error_regions() {
        let src = "int main() { f(); } [ x ( ] )";
        let tree = parse(src);
        let spans: Vec<&str> = pairs(&tree)
            .into_iter()
            .map(|(o, c)| &src[o.0..c.1])
            .collect();
        // the stray `]` matches nothing and is skipped
        assert_eq!(spans, ["()", "()", "{ f(); }", "( ] )"]);
    }

    #[test]
    fn only_the_delimiters_of_a_pair_go_where_the_test_needs_balance() {
        // the test wants `x` kept and the brackets balanced
        let src = "int main() { f(); } [ x ]\n";
        let keep = |s: &str| {
            s.contains("int main() { f(); }")
                && s.contains('x')
                && s.matches('[').count() == s.matches(']').count()
        };
        let out = only_this_pass_shrinks(src, &BalancedPairs, &keep);
        assert_eq!(out, "int main() { f(); } x \n");
    }
}
