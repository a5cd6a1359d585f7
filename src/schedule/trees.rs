//! The driver's parses of the best text. One tree-sitter parser; the last text it parsed, with
//! its tree (a pass that changes nothing leaves the next pass the same text, and trees are never
//! edited, so the next pass lists its edits on the same tree); token counts by text (each pass's
//! row counts the tokens before and after it); and the run's first parse ([`EarlyParse`]),
//! made on a thread while the original's check ran.

use std::collections::HashMap;

use anyhow::{Context, Result};
use tree_sitter::{Parser, Tree};
use xxhash_rust::xxh3::xxh3_64;

use crate::memory::return_freed_memory;
use crate::tree::early::{EarlyParse, PIECE_BYTES};
use crate::tree::front::Front;
use crate::tree::pieces;
use crate::tree::text;
use crate::tree::ts::{self, Parsed, parse_tree};

pub(super) struct Trees<'f> {
    front: &'f Front,
    /// `None` for the bracket tree (no tree-sitter grammar).
    parser: Option<Parser>,
    last: Option<(Vec<u8>, Tree)>,
    counts: HashMap<u64, usize>,
    early: Option<EarlyParse>,
    /// Parses made here (not the first parse's).
    parses: u32,
}

impl<'f> Trees<'f> {
    pub fn new(front: &'f Front, early: Option<EarlyParse>) -> Result<Trees<'f>> {
        let parser = match front {
            Front::Grammar(g) => Some(ts::new_parser(g)?),
            Front::Text => None,
        };
        Ok(Trees {
            front,
            parser,
            last: None,
            counts: HashMap::new(),
            early,
            parses: 0,
        })
    }

    /// The tree-sitter tree of `src` (a grammar front end's).
    pub fn tree(&mut self, src: &[u8]) -> Result<Tree> {
        if let Some((text, tree)) = &self.last
            && text == src
        {
            return Ok(tree.clone());
        }
        // the last tree goes before the next is parsed: two trees of a large file at once
        // were a run's peak
        self.forget();
        let early = self.early.as_mut().filter(|e| e.text() == src);
        let tree = match early.map(|e| e.first().map(|f| f.tree.take())) {
            Some(Ok(Some(tree))) => tree,
            _ => {
                let parser = self.parser.as_mut().context("no tree-sitter grammar")?;
                self.parses += 1;
                parse_tree(parser, src)?
            }
        };
        self.last = Some((src.to_vec(), tree.clone()));
        Ok(tree)
    }

    /// The tree of `src` if it is the last one parsed (a copy: tree-sitter's trees share their
    /// nodes), for the checkers that re-parse candidates against it.
    pub fn parsed(&self, src: &[u8]) -> Option<Tree> {
        let (text, tree) = self.last.as_ref()?;
        (**text == *src).then(|| tree.clone())
    }

    /// `f` of the trees of `src` cut into pieces of whole top-level forms ([`pieces`]), parsed
    /// one at a time, and their parse errors; `None` where the grammar is not cut, `src` is one
    /// piece or its whole tree is at hand. No tree of the whole text is made or kept.
    pub fn in_pieces<R>(
        &mut self,
        src: &[u8],
        f: impl FnOnce(&mut dyn Iterator<Item = Tree>) -> R,
    ) -> Option<(R, usize)> {
        let Front::Grammar(g) = self.front else {
            return None;
        };
        // a tree already made for this text is used whole
        if !pieces::cuts(g.name) || self.last.as_ref().is_some_and(|(text, _)| text == src) {
            return None;
        }
        let ranges = pieces::pieces(src, PIECE_BYTES);
        if ranges.len() < 2 {
            return None;
        }
        self.forget();
        let parser = self.parser.as_mut()?;
        let mut errors = 0;
        let mut trees = pieces::parse_pieces(parser, src, ranges)
            .flatten()
            .inspect(|tree| errors += ts::count_errors(tree).0);
        let r = f(&mut trees);
        trees.for_each(drop);
        self.parses += 1;
        return_freed_memory();
        Some((r, errors))
    }

    /// Drops the last tree (its text's next pass parses again) and returns its memory.
    pub fn forget(&mut self) {
        if self.last.take().is_some() {
            return_freed_memory();
        }
    }

    /// The arena of `src`.
    pub fn build(&mut self, src: &[u8]) -> Result<Parsed> {
        let parsed = match self.front {
            Front::Grammar(g) => ts::build_tree(g, &self.tree(src)?, src),
            Front::Text => match self.early_built(src) {
                Some(built) => built,
                None => text::build(src),
            },
        };
        self.counts.insert(xxh3_64(src), parsed.tokens.len());
        Ok(parsed)
    }

    /// The first parse's bracket tree, if `src` is its text (taken: it is built once).
    fn early_built(&mut self, src: &[u8]) -> Option<Parsed> {
        let early = self.early.as_mut().filter(|e| e.text() == src)?;
        early.first().ok()?.built.take()
    }

    /// The tokens of `src`'s arena, counted once per text.
    pub fn tokens(&mut self, src: &[u8]) -> Result<usize> {
        let key = xxh3_64(src);
        if let Some(&n) = self.counts.get(&key) {
            return Ok(n);
        }
        let front = self.front;
        let n = match (self.early.as_mut().filter(|e| e.text() == src), front) {
            (Some(early), _) => early.tokens()?,
            // counted on the tree-sitter trees, without an arena (a large C or C++ text in
            // pieces): the count at the end of a run stopped early was its peak
            (None, Front::Grammar(g)) => {
                let count = |trees: &mut dyn Iterator<Item = Tree>| -> usize {
                    trees.map(|tree| ts::count_tokens(g, &tree)).sum()
                };
                match self.in_pieces(src, count) {
                    Some((n, _)) => n,
                    None => ts::count_tokens(g, &self.tree(src)?),
                }
            }
            (None, Front::Text) => self.build(src)?.tokens.len(),
        };
        self.counts.insert(key, n);
        Ok(n)
    }

    /// Is `src` the first parse's text, whose tokens the thread may still be counting?
    pub fn is_early(&self, src: &[u8]) -> bool {
        self.early.as_ref().is_some_and(|e| e.text() == src)
    }

    /// What the first parse's listing made of `src`, if `src` is its text and it made a `T`.
    pub fn listed<T: 'static>(&mut self, src: &[u8]) -> Option<T> {
        self.early.as_mut().filter(|e| e.text() == src)?.listed()
    }

    /// The parse errors of the run's first text (`None` without a first parse).
    pub fn early_errors(&mut self) -> Option<usize> {
        Some(self.early.as_mut()?.first().ok()?.errors)
    }

    /// The tokens of the run's first text (`None` without a first parse).
    pub fn early_tokens(&mut self) -> Option<usize> {
        self.early.as_mut()?.tokens().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &[u8] = b"int a;\nint f(void) { return a; }\n";
    const B: &[u8] = b"int b;\n";

    #[test]
    fn the_first_parse_serves_its_own_text_only() {
        let front = Front::by_name("c").unwrap();
        let early = EarlyParse::start(&front, A.to_vec());
        let mut trees = Trees::new(&front, Some(early)).unwrap();
        assert!(trees.is_early(A) && !trees.is_early(B));
        let b = trees.tree(B).unwrap();
        assert_eq!(b.root_node().end_byte(), B.len());
        let a = trees.tree(A).unwrap();
        assert_eq!(a.root_node().end_byte(), A.len());
        assert_eq!(trees.parses, 1, "A's tree is the first parse's");
        // the early tree was handed over
        assert!(
            trees
                .early
                .as_mut()
                .unwrap()
                .first()
                .unwrap()
                .tree
                .is_none()
        );
        let mut here = front.builder().unwrap();
        assert_eq!(
            trees.tokens(A).unwrap(),
            here.build(A).unwrap().tokens.len()
        );
        assert_eq!(
            trees.tokens(B).unwrap(),
            here.build(B).unwrap().tokens.len()
        );
        assert_eq!(
            trees.early_tokens(),
            Some(here.build(A).unwrap().tokens.len())
        );
    }

    #[test]
    fn a_text_parsed_last_is_not_parsed_again_and_builds_as_from_scratch() {
        let front = Front::by_name("c").unwrap();
        let mut trees = Trees::new(&front, None).unwrap();
        trees.tree(A).unwrap();
        let again = trees.tree(A).unwrap();
        assert_eq!(trees.parses, 1);
        assert_eq!(again.root_node().end_byte(), A.len());
        trees.tree(B).unwrap();
        assert_eq!(trees.parses, 2);
        // A again: parsed again (only the last text is kept); then built from that tree
        let built = trees.build(A).unwrap();
        assert_eq!(trees.parses, 3);
        assert_eq!(trees.tokens(A).unwrap(), built.tokens.len());
        assert_eq!(trees.parses, 3);
        let fresh = front.builder().unwrap().build(A).unwrap();
        assert_eq!(built.tokens.len(), fresh.tokens.len());
        assert_eq!(
            built.arena.dump(&|_| String::new()),
            fresh.arena.dump(&|_| String::new())
        );
        assert_eq!(trees.early_tokens(), None);
    }

    #[test]
    fn a_forgotten_tree_is_no_longer_held_and_its_text_is_parsed_again() {
        let front = Front::by_name("c").unwrap();
        let mut trees = Trees::new(&front, None).unwrap();
        let a = trees.tree(A).unwrap();
        drop(a);
        trees.forget();
        assert!(
            trees.last.is_none(),
            "the driver holds no tree after forget"
        );
        let again = trees.tree(A).unwrap();
        assert_eq!(trees.parses, 2);
        assert_eq!(again.root_node().end_byte(), A.len());
        // forgetting twice, or with nothing held, is harmless
        trees.forget();
        trees.forget();
        assert_eq!(
            trees.tokens(A).unwrap(),
            front.builder().unwrap().build(A).unwrap().tokens.len()
        );
    }

    /// A large C text is counted in pieces, as its arena would count it, and the closure's
    /// pieces are listed without a tree of the whole text.
    #[test]
    fn a_large_c_text_is_counted_and_listed_in_pieces() {
        let front = Front::by_name("c").unwrap();
        let text = crate::tree::pieces::large_c(2 * PIECE_BYTES + 1000);
        let whole = front.builder().unwrap().build(&text).unwrap();
        let mut trees = Trees::new(&front, None).unwrap();
        assert_eq!(trees.tokens(&text).unwrap(), whole.tokens.len());
        assert!(trees.last.is_none(), "no tree of the whole text kept");
        let (pieces, errors) = trees.in_pieces(&text, |t| t.count()).unwrap();
        assert!(pieces > 1);
        assert_eq!(errors, whole.errors);
        // the closure's units with split bodies and members, as the whole tree gives them
        let t = crate::lang::table::for_language("c").unwrap();
        let list = |trees: &mut dyn Iterator<Item = Tree>| {
            crate::passes::closure::units_in_pieces(trees, &text, t, true, true)
        };
        let (listed, _) = trees.in_pieces(&text, list).unwrap();
        let here = crate::passes::closure::units(&trees.tree(&text).unwrap(), &text, t, true, true);
        assert_eq!((listed.hunks, listed.fixed), (here.hunks, here.fixed));
        // with the whole tree at hand, it is used instead
        assert!(trees.in_pieces(&text, |t| t.count()).is_none());
        // a small text is one piece
        assert!(trees.in_pieces(A, |t| t.count()).is_none());
    }
}
