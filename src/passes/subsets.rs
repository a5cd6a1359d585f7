//! Every subset of a sliding window of 4 tokens (Perses' and C-Reduce's "delete non-adjacent
//! tokens"): the contiguous subsets are the token windows 1..4, so this pass lists the others,
//! anchored at the window's first token (`{0,2}`, `{0,3}`, `{0,1,3}`, `{0,2,3}`; `{1,3}` is the
//! next window's `{0,2}`), each as one hunk. Mostly failing: tested one at a time, small files only.

use tree_sitter::Tree;

use super::windows::{MAX_TOKENS, leaves, through_blanks};
use crate::edits::{Edit, Hunk, Pass};
use crate::lang::table::RewriteTable;

/// The window's width.
const WIDTH: usize = 4;

/// The non-contiguous subsets of a window that start at its first token.
const SUBSETS: [&[usize]; 4] = [&[0, 2], &[0, 3], &[0, 1, 3], &[0, 2, 3]];

pub struct WindowSubsets;

impl Pass for WindowSubsets {
    fn name(&self) -> &'static str {
        "delete-window-subsets"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], _t: &RewriteTable) -> Vec<Hunk> {
        let leaves = leaves(tree);
        if leaves.len() > MAX_TOKENS {
            return Vec::new();
        }
        let mut hunks = Vec::new();
        // the last windows are cut short by the end of the file
        for i in 0..leaves.len() {
            let w = &leaves[i..leaves.len().min(i + WIDTH)];
            for subset in SUBSETS.iter().filter(|s| s.iter().all(|&k| k < w.len())) {
                hunks.push(runs(subset).map(|(a, b)| delete(src, w, a, b)).collect());
            }
        }
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }

    fn prefilter(&self) -> bool {
        false
    }
}

/// Deletes tokens `a..=b` of the window with the blanks after them.
fn delete(src: &[u8], w: &[(usize, usize)], a: usize, b: usize) -> Edit {
    Edit::delete(w[a].0, through_blanks(src, w[b].1))
}

/// The maximal runs of consecutive indices of a sorted subset, as inclusive pairs.
fn runs(subset: &[usize]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let start = *subset.get(i)?;
        let mut end = start;
        while subset.get(i + 1) == Some(&(end + 1)) {
            end += 1;
            i += 1;
        }
        i += 1;
        Some((start, end))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::tests::only_this_pass_shrinks;

    #[test]
    fn runs_split_a_subset_where_it_skips() {
        let r: Vec<_> = runs(&[0, 1, 3]).collect();
        assert_eq!(r, [(0, 1), (3, 3)]);
    }

    #[test]
    fn only_a_non_contiguous_subset_shrinks_this_program() {
        // the test wants the `q` kept and the two `p` around it gone together or kept
        let src = "int main() { f(); } p q p\n";
        let keep = |s: &str| {
            s.contains("int main() { f(); }") && s.contains('q') && s.matches('p').count() != 1
        };
        let out = only_this_pass_shrinks(src, &WindowSubsets, &keep);
        assert_eq!(out, "int main() { f(); } q \n");
    }
}
