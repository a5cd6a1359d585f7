//! The prefilter's question, "does this candidate parse worse?" ([`Reparse`]), and its
//! incremental answer for tree-sitter grammars: a candidate is the round's text with some stretches
//! changed (deletions, and what the renderer writes across them), so tree-sitter re-parses
//! only around those changes, reusing the rest of the round's tree. The base is fixed for a
//! round, so the answer is a function of the round's text and the candidate alone, never of
//! which candidates were parsed before (results stay the same for every `-j`).

use std::sync::Arc;

use anyhow::{Context, Result};
use tree_sitter::{InputEdit, Parser, Point, Tree};

use super::render::Splice;

/// Parses `src` from scratch.
pub fn parse_tree(parser: &mut Parser, src: &[u8]) -> Result<Tree> {
    parser
        .parse(src, None)
        .context("tree-sitter returned no tree (parser cancelled or no language)")
}

/// ERROR and MISSING nodes in the tree, and where the first one starts.
pub fn count_errors(tree: &Tree) -> (usize, Option<usize>) {
    let root = tree.root_node();
    if !root.has_error() {
        return (0, None);
    }
    let mut count = 0;
    let mut first = None;
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            count += 1;
            first.get_or_insert(node.start_byte());
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return (count, first);
            }
        }
    }
}

/// Makes a worker's parser (the feeding thread's is made the same way).
pub type MakeChecker = std::sync::Arc<dyn Fn() -> anyhow::Result<Box<dyn Reparse>> + Send + Sync>;

/// A round's text, and its tree-sitter tree if the caller has one: every checker re-parses
/// against that one tree (tree-sitter's trees are shared, edited copies cost only the paths they
/// change), where each would otherwise parse the round's text into a tree of its own (tens of
/// bytes per byte of text, once per test worker).
#[derive(Clone)]
pub struct RoundText {
    pub text: Arc<[u8]>,
    /// A fresh parse of `text` (the same tree a checker would make).
    pub tree: Option<Tree>,
}

/// Re-parses a candidate and counts its errors: the prefilter's question.
pub trait Reparse {
    /// ERROR + MISSING nodes (or the front end's equivalent); `None` if it cannot tell.
    fn errors(&mut self, src: &[u8]) -> Option<usize>;

    /// Remembers a round's text as the base of later [`Reparse::errors_edited`] calls.
    fn set_base(&mut self, _base: &RoundText) {}

    /// The errors of `src`, which is the base with `splices` made (in order, in the base's
    /// coordinates), from a parse that may reuse the base's tree.
    fn errors_edited(&mut self, src: &[u8], _splices: &[Splice]) -> Option<usize> {
        self.errors(src)
    }
}

impl Reparse for Parser {
    fn errors(&mut self, src: &[u8]) -> Option<usize> {
        let tree = parse_tree(self, src).ok()?;
        Some(count_errors(&tree).0)
    }
}

/// Above this many changes a candidate is parsed from scratch: editing the old tree that many
/// times costs more than the reuse saves. So is a candidate less than half the base's size: the
/// reuse pays only while most of the old tree survives.
const MAX_SPLICES: usize = 4096;

/// A tree-sitter parser that re-parses candidates against the round's tree.
pub struct Incremental {
    parser: Parser,
    /// The round's text, and its base: the round's tree if it brought one, else parsed once
    /// a candidate needs it.
    text: Arc<[u8]>,
    base: Option<Base>,
}

struct Base {
    tree: Tree,
    /// Byte offset of the start of each line of the base text.
    line_starts: Vec<usize>,
}

impl Base {
    fn new(tree: Tree, text: &[u8]) -> Base {
        let newlines = text.iter().enumerate().filter(|&(_, &c)| c == b'\n');
        let line_starts = std::iter::once(0)
            .chain(newlines.map(|(i, _)| i + 1))
            .collect();
        Base { tree, line_starts }
    }

    fn point(&self, at: usize) -> Point {
        let row = self.line_starts.partition_point(|&s| s <= at) - 1;
        Point::new(row, at - self.line_starts[row])
    }
}

/// Where `start` ends up after writing `text` from it.
fn advance(start: Point, text: &[u8]) -> Point {
    match text.iter().rposition(|&c| c == b'\n') {
        Some(last) => Point::new(
            start.row + text.iter().filter(|&&c| c == b'\n').count(),
            text.len() - last - 1,
        ),
        None => Point::new(start.row, start.column + text.len()),
    }
}

impl Incremental {
    pub fn new(parser: Parser) -> Incremental {
        Incremental {
            parser,
            text: Arc::from(&[][..]),
            base: None,
        }
    }

    fn base(&mut self) -> Option<&Base> {
        if self.base.is_none() {
            let tree = parse_tree(&mut self.parser, &self.text).ok()?;
            self.base = Some(Base::new(tree, &self.text));
        }
        self.base.as_ref()
    }
}

impl Reparse for Incremental {
    fn errors(&mut self, src: &[u8]) -> Option<usize> {
        self.parser.errors(src)
    }

    fn set_base(&mut self, base: &RoundText) {
        if !Arc::ptr_eq(&self.text, &base.text) && *self.text != *base.text {
            self.text = base.text.clone();
            self.base = None;
        }
        if self.base.is_none()
            && let Some(tree) = &base.tree
        {
            self.base = Some(Base::new(tree.clone(), &self.text));
        }
    }

    fn errors_edited(&mut self, src: &[u8], splices: &[Splice]) -> Option<usize> {
        if src.len() * 2 < self.text.len() || splices.len() > MAX_SPLICES {
            return self.errors(src);
        }
        let base = self.base()?;
        let mut tree = base.tree.clone();
        // last change first: the text before each change is still the base's
        for s in splices.iter().rev() {
            let start_position = base.point(s.old.start);
            tree.edit(&InputEdit {
                start_byte: s.old.start,
                old_end_byte: s.old.end,
                new_end_byte: s.old.start + s.new.len(),
                start_position,
                old_end_position: base.point(s.old.end),
                new_end_position: advance(start_position, &src[s.new.clone()]),
            });
        }
        let tree = self.parser.parse(src, Some(&tree))?;
        Some(count_errors(&tree).0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::grammar::Grammar;
    use crate::tree::render::splices;
    use crate::tree::ts::{build, new_parser};

    /// Every candidate of a small C program that deletes one or two runs of tokens gets the
    /// same error count from the incremental re-parse as from a fresh one, whether the checker
    /// parsed the round's text itself or was handed the round's tree.
    #[test]
    fn incremental_reparse_agrees_with_a_fresh_parse() {
        let src =
            b"int f(int a, int b) {\n    if (a) { return b; }\n    return a + b;\n}\nint g;\n";
        let grammar = Grammar::new(&crate::lang::c::SPEC).unwrap();
        let parsed = build(&grammar, &mut new_parser(&grammar).unwrap(), src).unwrap();
        let mut fresh = new_parser(&grammar).unwrap();
        let tree = parse_tree(&mut new_parser(&grammar).unwrap(), src).unwrap();
        for given in [None, Some(tree)] {
            let mut inc = Incremental::new(new_parser(&grammar).unwrap());
            let handed = given.is_some();
            inc.set_base(&RoundText {
                text: Arc::from(&src[..]),
                tree: given,
            });
            assert_eq!(inc.base.is_some(), handed);
            let n = parsed.tokens.len() as u32;
            let (mut out, mut copies, mut list) = (Vec::new(), Vec::new(), Vec::new());
            let mut differed = 0;
            for (a, b, c) in (0..n).flat_map(|a| (a..n).flat_map(move |b| [(a, b, b + 3)])) {
                let config: Vec<u32> = (0..n)
                    .filter(|&t| !(a..=b).contains(&t) && t != c)
                    .collect();
                parsed
                    .tokens
                    .render_recording(&config, &mut out, &mut copies);
                splices(&copies, src.len(), out.len(), &mut list);
                let want = fresh.errors(&out);
                differed += usize::from(inc.errors_edited(&out, &list) != want);
            }
            assert_eq!(differed, 0);
        }
    }
}
