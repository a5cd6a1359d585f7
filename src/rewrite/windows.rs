//! Token windows: delete `n` consecutive tokens, at every position. They catch what the grammar
//! does not model (a stray `int`, qualifiers, macro leftovers in ERROR regions). Mostly failing,
//! so the driver tests them one at a time, and only on small programs.

use tree_sitter::Tree;

use super::table::RewriteTable;
use super::{Edit, Pass, preorder};

/// Above this many tokens the windows pass proposes nothing (it costs a test per position).
pub const MAX_TOKENS: usize = 2_000;

pub struct TokenWindows(pub usize);

impl Pass for TokenWindows {
    fn name(&self) -> &'static str {
        match self.0 {
            1 => "delete-1-token",
            2 => "delete-2-tokens",
            3 => "delete-3-tokens",
            _ => "delete-token-window",
        }
    }

    fn edits(&self, tree: &Tree, src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        let leaves: Vec<(usize, usize)> = preorder(tree)
            .into_iter()
            .filter(|n| n.child_count() == 0 && n.start_byte() < n.end_byte())
            .map(|n| (n.start_byte(), n.end_byte()))
            .collect();
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

/// A deletion also takes the blanks after it (never a newline): `int main` loses `int `.
fn through_blanks(src: &[u8], mut end: usize) -> usize {
    while src.get(end).is_some_and(|&c| c == b' ' || c == b'\t') {
        end += 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::c::C;
    use crate::rewrite::tests::parse;

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
}
