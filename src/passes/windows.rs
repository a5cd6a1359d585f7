//! Token windows: delete `n` consecutive tokens (1 to [`MAX_WINDOW`], as C-Reduce and Perses do),
//! at every position. They catch what the grammar does not model (a stray `int`, qualifiers,
//! macro leftovers in ERROR regions). Mostly failing, so the driver tests them one at a time, and
//! only on small programs.

use tree_sitter::Tree;

use crate::edits::{Edit, Pass, preorder};
use crate::lang::table::RewriteTable;

/// Above this many tokens the windows pass proposes nothing (it costs a test per position).
pub const MAX_TOKENS: usize = 2_000;

/// The widest window.
pub const MAX_WINDOW: usize = 8;

pub struct TokenWindows(pub usize);

impl Pass for TokenWindows {
    fn name(&self) -> &'static str {
        match self.0 {
            1 => "delete-1-token",
            2 => "delete-2-tokens",
            3 => "delete-3-tokens",
            4 => "delete-4-tokens",
            5 => "delete-5-tokens",
            6 => "delete-6-tokens",
            7 => "delete-7-tokens",
            8 => "delete-8-tokens",
            _ => "delete-token-window",
        }
    }

    fn edits(&self, tree: &Tree, src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        let leaves = leaves(tree);
        let n = self.0.max(1);
        if leaves.len() > MAX_TOKENS || leaves.len() < n {
            return Vec::new();
        }
        leaves
            .windows(n)
            .map(|w| Edit::delete(w[0].0, through_blanks(src, w[n - 1].1)))
            .collect()
    }

    fn one_at_a_time(&self) -> bool {
        true
    }

    /// What the windows find is often what the grammar does not model (`main() {}`).
    fn prefilter(&self) -> bool {
        false
    }
}

/// The byte ranges of the tree's tokens (non-empty leaves, ERROR regions included), in order.
pub fn leaves(tree: &Tree) -> Vec<(usize, usize)> {
    preorder(tree)
        .filter(|n| n.child_count() == 0 && n.start_byte() < n.end_byte())
        .map(|n| (n.start_byte(), n.end_byte()))
        .collect()
}

/// A deletion also takes the blanks after it (never a newline): `int main` loses `int `.
pub fn through_blanks(src: &[u8], mut end: usize) -> usize {
    while src.get(end).is_some_and(|&c| c == b' ' || c == b'\t') {
        end += 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::{only_this_pass_shrinks, parse};

    #[test]
    fn windows_cover_every_run_of_n_tokens() {
        let src = "int x = 1;";
        let tree = parse(src);
        let spans: Vec<&str> = TokenWindows(2)
            .edits(&tree, src.as_bytes(), &C)
            .iter()
            .map(|e| &src[e.start as usize..e.end as usize])
            .collect();
        assert_eq!(spans, ["int x ", "x = ", "= 1", "1;"]);
    }

    #[test]
    fn only_a_window_of_five_tokens_shrinks_this_program() {
        // the test wants the leftover `x x x x x` gone whole or kept whole
        let src = "int main() { f(); } x x x x x\n";
        let keep =
            |s: &str| s.contains("int main() { f(); }") && [0, 5].contains(&s.matches('x').count());
        let out = only_this_pass_shrinks(src, &TokenWindows(5), &keep);
        assert_eq!(out, "int main() { f(); } \n");
    }
}
