//! Rewrites as edits: a pass lists, from the current text and its tree, edits (a byte range of the
//! text and its replacement; a deletion has an empty one). The edits are the units of the usual
//! loop: "removing unit `i`" means applying edit `i`, so the chunk minimizers apply large batches
//! and narrow down to single edits, and the cache, prefilter and `-j` work unchanged.
//!
//! A unit is a [`Hunk`]: usually one edit, several for a multi-site rewrite (rename every use).
//! An [`EditSpace`] holds one layer of pairwise disjoint hunks over a fixed text, plus the edits
//! committed in earlier layers; it renders any configuration in one pass over the text.
//! [`layers_of_hunks`] splits a pass's (possibly nested) hunks into such layers. Empty ranges
//! (insertions) are not edits here: every edit replaces at least one byte.

pub mod layers;

use crate::lang::table::RewriteTable;
use crate::policy::Unit;
use crate::tree::render::would_glue;

/// A rewrite pass: lists edits of the current text from its tree. The edits may nest or
/// overlap; the driver splits them into [`layers`] and tries each layer with the usual loop.
pub trait Pass {
    fn name(&self) -> &'static str;

    /// The edits of `src` (parsed as `tree`), in the language of the table `t`.
    fn edits(&self, tree: &tree_sitter::Tree, src: &[u8], t: &RewriteTable) -> Vec<Edit>;

    /// Multi-site passes list hunks (edits applied together); by default each edit is one.
    fn hunks(&self, tree: &tree_sitter::Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        self.edits(tree, src, t)
            .into_iter()
            .map(|e| vec![e])
            .collect()
    }

    /// Mostly-failing passes test edits one at a time instead of bisecting big batches.
    fn one_at_a_time(&self) -> bool {
        false
    }

    /// Skip candidates that parse worse than the best (when the prefilter is on).
    fn prefilter(&self) -> bool {
        true
    }

    /// An enabling pass may grow the text a little (by up to [`ENABLING_SLACK`] bytes a
    /// candidate) to open the way for other passes; the driver takes it back unless the rest of
    /// its cycle leaves the text smaller than before it.
    fn enabling(&self) -> bool {
        false
    }
}

/// How many bytes one candidate of an enabling pass may add (a global declaration for a
/// parameter, say).
pub const ENABLING_SLACK: usize = 64;

/// The source text of a node.
pub fn text<'s>(node: tree_sitter::Node, src: &'s [u8]) -> &'s [u8] {
    src.get(node.byte_range()).unwrap_or(b"")
}

/// The first token of a node (its leftmost leaf).
pub fn first_leaf(node: tree_sitter::Node) -> tree_sitter::Node {
    let mut first = node;
    while let Some(c) = first.child(0) {
        first = c;
    }
    first
}

/// Writes `with` just before `node`: an edit of the node's first token, so that it never ties
/// with an insertion of another hunk.
pub fn insert_before(node: tree_sitter::Node, with: &[u8], src: &[u8]) -> Edit {
    let first = first_leaf(node);
    let mut out = with.to_vec();
    out.extend_from_slice(text(first, src));
    Edit::new(first.start_byte(), first.end_byte(), &out)
}

/// The named elements of a parenthesized, comma-separated list (comments excluded).
pub fn elements(list: tree_sitter::Node) -> Vec<tree_sitter::Node> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|c| !c.is_extra())
        .collect()
}

/// Deletes item `k` of a comma-separated run of items with one of its commas.
pub fn remove_nth(e: &[tree_sitter::Node], k: usize) -> Edit {
    let n = e[k];
    match (e.get(k + 1), k.checked_sub(1).map(|i| e[i])) {
        (Some(next), _) => Edit::delete(n.start_byte(), next.start_byte()),
        (None, Some(prev)) => Edit::delete(prev.end_byte(), n.end_byte()),
        (None, None) => Edit::delete(n.start_byte(), n.end_byte()),
    }
}

/// Every node of the tree in pre-order (iterative: C trees get deep), walked, not collected: a
/// list of a large file's nodes (32 bytes each) was two thirds the size of its tree, at the
/// bulk passes' peak. Iterating `&nodes` (or `nodes.iter()`) walks the tree again from the top.
pub fn preorder(tree: &tree_sitter::Tree) -> Preorder<'_> {
    Preorder {
        cursor: tree.walk(),
        done: false,
    }
}

/// The walk of [`preorder`].
#[derive(Clone)]
pub struct Preorder<'t> {
    cursor: tree_sitter::TreeCursor<'t>,
    done: bool,
}

impl<'t> Preorder<'t> {
    /// The walk again from where this one stands (the top, if not started).
    pub fn iter(&self) -> Preorder<'t> {
        self.clone()
    }
}

impl<'t> Iterator for Preorder<'t> {
    type Item = tree_sitter::Node<'t>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let node = self.cursor.node();
        if !self.cursor.goto_first_child() {
            while !self.cursor.goto_next_sibling() {
                if !self.cursor.goto_parent() {
                    self.done = true;
                    break;
                }
            }
        }
        Some(node)
    }
}

impl<'t> IntoIterator for &Preorder<'t> {
    type Item = tree_sitter::Node<'t>;
    type IntoIter = Preorder<'t>;

    fn into_iter(self) -> Preorder<'t> {
        self.clone()
    }
}

/// Replace `text[start..end]` by `with`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Edit {
    pub start: u32,
    pub end: u32,
    pub with: Box<[u8]>,
}

impl Edit {
    pub fn new(start: usize, end: usize, with: &[u8]) -> Edit {
        Edit {
            start: start as u32,
            end: end as u32,
            with: with.into(),
        }
    }

    pub fn delete(start: usize, end: usize) -> Edit {
        Edit::new(start, end, b"")
    }

    /// The deletion of `src[start..end]` (an item, a field); when it stands on lines of its own,
    /// of those whole lines and the blank lines after them, so that deleting items leaves no
    /// line breaks behind (a file that loses thousands of items would keep a line per item).
    pub fn delete_lines(src: &[u8], start: usize, end: usize) -> Edit {
        let blank = |c: &&u8| matches!(c, b' ' | b'\t' | b'\r' | b'\x0c');
        let from = start - src[..start].iter().rev().take_while(blank).count();
        if from > 0 && src[from - 1] != b'\n' {
            return Edit::delete(start, end);
        }
        let mut to = end + src[end..].iter().take_while(blank).count();
        match src.get(to) {
            Some(b'\n') => to += 1,
            Some(_) => return Edit::delete(start, end),
            None => return Edit::delete(from, to),
        }
        loop {
            let n = src[to..].iter().take_while(blank).count();
            match src.get(to + n) {
                Some(b'\n') => to += n + 1,
                _ => return Edit::delete(from, to),
            }
        }
    }

    /// Bytes saved when applied (negative: the text grows).
    pub fn saving(&self) -> i64 {
        (self.end - self.start) as i64 - self.with.len() as i64
    }
}

/// Edits applied together as one unit (a rename at every use); most hunks hold one edit.
pub type Hunk = Vec<Edit>;

/// Whether `hunk` shrinks the text. One that does not could never be committed (the best only
/// gets smaller, `engine/edit_oracle.rs`) unless its pass is an enabling one, which has slack.
pub fn shrinks(hunk: &[Edit]) -> bool {
    hunk.iter().map(Edit::saving).sum::<i64>() > 0
}

/// Splits single edits into layers (see [`layers_of_hunks`]).
pub fn layers(edits: Vec<Edit>, src: &[u8]) -> Vec<Vec<Hunk>> {
    layers_of_hunks(edits.into_iter().map(|e| vec![e]).collect(), src)
}

/// Splits hunks into layers of pairwise disjoint hunks: a greedy scan in (start, longest
/// first, then the pass's) order puts a hunk in the first layer where none of its edits
/// overlaps an edit already there, so an outer edit comes before the edits nested in it.
/// Hunks with an edit that is empty, does not fit the text or overlaps its own hunk are
/// dropped whole, as are edits that change nothing.
pub fn layers_of_hunks(hunks: Vec<Hunk>, src: &[u8]) -> Vec<Vec<Hunk>> {
    let mut hunks: Vec<Hunk> = hunks
        .into_iter()
        .filter_map(|mut h| {
            h.retain(|e| {
                e.end as usize > src.len() || *e.with != src[e.start as usize..e.end as usize]
            });
            h.sort_by_key(|e| e.start);
            let fits = h
                .iter()
                .all(|e| e.start < e.end && e.end as usize <= src.len());
            let disjoint = h.windows(2).all(|w| w[0].end <= w[1].start);
            (fits && disjoint && !h.is_empty()).then_some(h)
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    hunks.retain(|h| seen.insert(h.clone()));
    // stable: alternatives for one range keep the pass's order (best first)
    hunks.sort_by_key(|h| (h[0].start, std::cmp::Reverse(h[0].end)));
    let mut out: Vec<(Vec<Hunk>, Occupied)> = Vec::new();
    for h in hunks {
        match out.iter_mut().find(|(_, occ)| occ.admits(&h)) {
            Some((layer, occ)) => {
                occ.insert(&h);
                layer.push(h);
            }
            None => {
                let mut occ = Occupied::default();
                occ.insert(&h);
                out.push((vec![h], occ));
            }
        }
    }
    out.into_iter().map(|(layer, _)| layer).collect()
}

/// The byte ranges a layer's edits cover: start -> end, disjoint.
#[derive(Default)]
struct Occupied(std::collections::BTreeMap<u32, u32>);

impl Occupied {
    fn admits(&self, h: &[Edit]) -> bool {
        h.iter().all(|e| {
            let before = self.0.range(..=e.start).next_back();
            let after = self.0.range(e.start..).next();
            before.is_none_or(|(_, &end)| end <= e.start)
                && after.is_none_or(|(&start, _)| e.end <= start)
        })
    }

    fn insert(&mut self, h: &[Edit]) {
        for e in h {
            self.0.insert(e.start, e.end);
        }
    }
}

/// One layer of disjoint hunks over a fixed text, with the edits committed before it.
pub struct EditSpace {
    pub src: Vec<u8>,
    /// Applied in every candidate (committed by earlier layers); sorted, disjoint.
    fixed: Vec<Edit>,
    /// This layer's hunks, the units: disjoint from each other and from `fixed`.
    pub hunks: Vec<Hunk>,
}

impl EditSpace {
    pub fn new(src: Vec<u8>) -> EditSpace {
        EditSpace {
            src,
            fixed: Vec::new(),
            hunks: Vec::new(),
        }
    }

    /// Starts a new layer: the hunks of `config`'s complement (applied) become fixed, and the
    /// new layer keeps only the hunks disjoint from every fixed edit (never half-applied).
    pub fn next_layer(&mut self, config: &[Unit], layer: Vec<Hunk>) {
        let old = std::mem::take(&mut self.hunks);
        for i in applied(config, old.len()) {
            self.fixed.extend_from_slice(&old[i]);
        }
        self.fixed.sort_by_key(|e| e.start);
        let fixed = &self.fixed;
        let clear = |e: &Edit| {
            let i = fixed.partition_point(|f| f.end <= e.start);
            fixed.get(i).is_none_or(|f| e.end <= f.start)
        };
        self.hunks = layer.into_iter().filter(|h| h.iter().all(clear)).collect();
    }

    /// Every unit of the current layer (nothing applied yet).
    pub fn all_units(&self) -> Vec<Unit> {
        (0..self.hunks.len() as Unit).collect()
    }

    /// The text with the fixed edits and every hunk of the layer *not* in `config` applied.
    /// Where an edit meets its neighbour and the two would lex as one token, a space goes in.
    pub fn render_into(&self, config: &[Unit], out: &mut Vec<u8>) {
        let mut edits: Vec<&Edit> = applied(config, self.hunks.len())
            .flat_map(|i| &self.hunks[i])
            .collect();
        if edits.is_empty() {
            return self.render_sorted(self.fixed.iter(), out);
        }
        edits.extend(&self.fixed);
        // at one start, insertions first, then the longest (a deletion before a replacement
        // of the same stretch): an edit inside one made is part of it
        edits.sort_unstable_by_key(|e| {
            let insertion = e.end == e.start;
            (e.start, !insertion, std::cmp::Reverse(e.end), e.with.len())
        });
        self.render_sorted(edits.into_iter(), out)
    }

    /// Applies disjoint edits sorted by start; an edit inside one already made (a class
    /// member's, when the keep-closure pass deletes the class) is part of it.
    fn render_sorted<'e>(&self, edits: impl Iterator<Item = &'e Edit>, out: &mut Vec<u8>) {
        out.clear();
        let (mut pos, mut seam) = (0usize, false);
        for edit in edits {
            let (start, end) = (edit.start as usize, edit.end as usize);
            if start < end && start < pos && end <= pos {
                continue;
            }
            push(out, &self.src[pos.min(start)..start], &mut seam);
            seam = true;
            push(out, &edit.with, &mut seam);
            seam = true;
            pos = pos.max(end);
        }
        push(out, &self.src[pos.min(self.src.len())..], &mut seam);
    }

    pub fn render(&self, config: &[Unit]) -> Vec<u8> {
        let mut out = Vec::new();
        self.render_into(config, &mut out);
        out
    }
}

/// Appends `chunk`; right after an edit (`seam`), first a space if the two sides would glue.
fn push(out: &mut Vec<u8>, chunk: &[u8], seam: &mut bool) {
    if chunk.is_empty() {
        return;
    }
    if *seam && would_glue(out, chunk, b"") {
        out.push(b' ');
    }
    *seam = false;
    out.extend_from_slice(chunk);
}

/// The indices in `0..n` missing from the sorted `config`.
fn applied(config: &[Unit], n: usize) -> impl Iterator<Item = usize> + '_ {
    let mut kept = config.iter().peekable();
    (0..n).filter(move |&i| {
        while kept.next_if(|&&k| (k as usize) < i).is_some() {}
        kept.next_if(|&&k| k as usize == i).is_none()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `src` with `Edit::delete_lines` of the first occurrence of `item` applied.
    fn deleted(src: &str, item: &str) -> String {
        let start = src.find(item).unwrap();
        let e = Edit::delete_lines(src.as_bytes(), start, start + item.len());
        assert!(e.with.is_empty());
        let mut out = src.as_bytes()[..e.start as usize].to_vec();
        out.extend_from_slice(&src.as_bytes()[e.end as usize..]);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn an_item_on_lines_of_its_own_goes_with_its_line_break_and_the_blank_lines_after() {
        assert_eq!(deleted("a;\nb;\nc;\n", "b;"), "a;\nc;\n");
        assert_eq!(deleted("a;\n\nb;\n\n\nc;\n", "b;"), "a;\n\nc;\n");
        // indented, over several lines, blanks and CRLF around it
        assert_eq!(
            deleted(
                "x\n    def f():\n        pass  \r\n \t\r\n    y\n",
                "def f():\n        pass"
            ),
            "x\n    y\n"
        );
        assert_eq!(deleted("a;\r\nb;\r\n\r\nc;\r\n", "b;"), "a;\r\nc;\r\n");
    }

    #[test]
    fn the_preorder_walk_visits_every_node_once_parents_first_and_again_when_iterated_again() {
        let src = b"int f(int a) { if (a) { return a + 1; } return 0; }\nint g;\n";
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_c::LANGUAGE.into())
            .unwrap();
        let tree = parser.parse(src, None).unwrap();
        fn recursive<'t>(n: tree_sitter::Node<'t>, out: &mut Vec<tree_sitter::Node<'t>>) {
            out.push(n);
            for i in 0..n.child_count() {
                recursive(n.child(i).unwrap(), out);
            }
        }
        let mut expected = Vec::new();
        recursive(tree.root_node(), &mut expected);
        let nodes = preorder(&tree);
        assert_eq!(nodes.iter().collect::<Vec<_>>(), expected);
        // borrowed, the walk starts from the top each time; consumed, it ends for good
        assert_eq!((&nodes).into_iter().count(), expected.len());
        let mut walk = preorder(&tree);
        assert_eq!(walk.by_ref().count(), expected.len());
        assert_eq!(walk.next(), None);
    }

    #[test]
    fn at_the_ends_of_the_text() {
        assert_eq!(deleted("a;\nb;\n", "a;"), "b;\n");
        assert_eq!(deleted("a;\nb;", "b;"), "a;\n");
        assert_eq!(deleted("a;\nb;  ", "b;"), "a;\n");
        assert_eq!(deleted("a;\n\n", "a;"), "");
        assert_eq!(deleted("a;", "a;"), "");
    }

    #[test]
    fn an_item_sharing_a_line_deletes_only_itself() {
        assert_eq!(deleted("a; b;\nc;\n", "b;"), "a; \nc;\n");
        assert_eq!(deleted("a; b;\nc;\n", "a;"), " b;\nc;\n");
        assert_eq!(deleted("{ a; }\n", "a;"), "{  }\n");
    }
}
