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
use crate::tree::early::EarlyParse;
use crate::tree::front::Front;
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
        let n = match self.early.as_mut().filter(|e| e.text() == src) {
            Some(early) => early.tokens()?,
            None => self.build(src)?.tokens.len(),
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
}
