//! The first parse of a tree run, on a thread of its own, started while the original's check
//! runs: on a large input the parse and the arena build take seconds, and the test does not
//! need them. The thread hands over the tree-sitter tree (and its error count) as soon as it
//! has parsed, so the first pass can list its edits on it, then counts the tokens its arena
//! would have for the summary (a walk of the tree, not a second arena beside the driver's).
//! The bracket tree has no tree to hand over: its arena is built here and handed over whole,
//! so the driver's first round does not build it again.
//!
//! A [`Listing`] given at the start runs on the thread too, on the tree before it is handed
//! over: the first call's edits (its name analysis takes tens of milliseconds on a 100 KB file,
//! seconds on a large one), which would otherwise start only after the check. The tokens are
//! then counted beside the listing, so that the thread holds no tree once it has handed one over.

use std::any::Any;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};
use std::thread::JoinHandle;

use anyhow::{Result, anyhow};
use tree_sitter::Tree;

use super::front::Front;
use super::pieces;
use super::text;
use super::ts::{self, Parsed, count_errors, parse_tree};
use crate::memory::return_freed_memory;

/// What the parse found: the tree-sitter tree (grammar front ends) and the parse errors.
pub struct First {
    pub errors: usize,
    /// Byte offset of the first error, if any.
    pub first_error: Option<usize>,
    pub tree: Option<Tree>,
    /// The bracket tree's arena: built to find the errors, handed over whole.
    pub built: Option<Parsed>,
    /// What the [`Listing`] made of the tree, if there was one.
    pub listed: Option<Box<dyn Any + Send>>,
    /// The tokens, if they were counted before the handover (beside a listing): the thread
    /// then holds no tree while the first pass runs.
    pub counted: Option<usize>,
}

/// Work on the first tree that the run will need first, done on the parse's thread: a
/// function of the tree-sitter trees and the text alone (the caller takes its result by type,
/// see [`EarlyParse::listed`]).
pub struct Listing {
    /// Takes the text's trees one piece of whole top-level forms at a time: a large C or C++
    /// file is then parsed in pieces ([`pieces`]), and no tree of the whole file is made.
    pub in_pieces: bool,
    /// Takes the trees (one, or the pieces' in order) and the text.
    pub list: ListFn,
}

/// The size of a piece of a file parsed in pieces: its tree is a few megabytes.
pub const PIECE_BYTES: usize = 256 * 1024;

/// The first parse of `text`, running or done (see the module documentation).
pub struct EarlyParse {
    /// Shared with the thread.
    text: Arc<[u8]>,
    first: Option<First>,
    parsed: Option<Receiver<First>>,
    count: Option<JoinHandle<Result<usize>>>,
    tokens: Option<usize>,
}

impl EarlyParse {
    /// Starts parsing `text` on a thread (or here, if no thread can be made).
    pub fn start(front: &Front, text: impl Into<Arc<[u8]>>) -> EarlyParse {
        Self::start_listing(front, text, None)
    }

    /// [`EarlyParse::start`], and `listing` on the tree before it is handed over.
    pub fn start_listing(
        front: &Front,
        text: impl Into<Arc<[u8]>>,
        listing: Option<Listing>,
    ) -> EarlyParse {
        let (tx, rx) = channel();
        let text: Arc<[u8]> = text.into();
        let (theirs, copy) = (front.clone(), text.clone());
        // without a thread the listing is skipped: the first call lists its own edits
        let spawned = std::thread::Builder::new()
            .name("first-parse".into())
            .spawn(move || parse_and_count(&theirs, &copy, listing, |first| drop(tx.send(first))));
        let mut early = EarlyParse {
            text,
            first: None,
            parsed: None,
            count: None,
            tokens: None,
        };
        match spawned {
            Ok(handle) => (early.parsed, early.count) = (Some(rx), Some(handle)),
            Err(_) => {
                let mut first = None;
                let count = parse_and_count(front, &early.text, None, |f| first = Some(f));
                (early.first, early.tokens) = (first, count.ok());
            }
        }
        early
    }

    /// The text this parse is of.
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    /// The parse, waited for.
    pub fn first(&mut self) -> Result<&mut First> {
        if self.first.is_none() {
            match self.parsed.take().and_then(|rx| rx.recv().ok()) {
                Some(first) => self.first = Some(first),
                // the thread failed before it parsed: its error says why
                None => return Err(self.tokens().err().unwrap_or_else(|| anyhow!("no parse"))),
            }
        }
        Ok(self.first.as_mut().expect("just set"))
    }

    /// What the listing made, if it was a `T` (taken: asked again, `None`).
    pub fn listed<T: 'static>(&mut self) -> Option<T> {
        let first = self.first().ok()?;
        match first.listed.take()?.downcast::<T>() {
            Ok(listed) => Some(*listed),
            Err(other) => {
                first.listed = Some(other);
                None
            }
        }
    }

    /// The tokens of the text's arena, waited for (counted before the handover: at once).
    pub fn tokens(&mut self) -> Result<usize> {
        if self.tokens.is_none() {
            self.tokens = self.first.as_ref().and_then(|f| f.counted);
        }
        // counted already: the thread is ending, and is not waited for
        if let Some(handle) = self.count.take().filter(|_| self.tokens.is_none()) {
            let count = handle
                .join()
                .map_err(|_| anyhow!("the first parse's thread panicked"))?;
            self.tokens = Some(count?);
        }
        self.tokens.ok_or_else(|| anyhow!("the first parse failed"))
    }
}

/// Parses `text`, runs `listing` on the tree, tells `parsed` both, then counts the tokens of
/// its arena.
fn parse_and_count(
    front: &Front,
    text: &Arc<[u8]>,
    listing: Option<Listing>,
    parsed: impl FnOnce(First),
) -> Result<usize> {
    match front {
        Front::Grammar(g) => {
            let mut parser = ts::new_parser(g)?;
            let ranges = match &listing {
                Some(l) if l.in_pieces && pieces::cuts(g.name) => pieces::pieces(text, PIECE_BYTES),
                _ => Vec::new(),
            };
            if ranges.len() > 1 {
                let list = listing.expect("in pieces").list;
                return in_pieces(g, &mut parser, text, ranges, list, parsed);
            }
            let tree = parse_tree(&mut parser, text)?;
            let (errors, first_error) = count_errors(&tree);
            // with a listing, the count runs beside it (on a copy, as tree-sitter asks of a
            // tree used on two threads) and is done when the tree is handed over: counted after
            // the handover, this thread's copy lived on while the first pass's tests ran and
            // the next pass parsed, two trees of a large file at once
            let (listed, count) = match listing {
                Some(list) => std::thread::scope(|s| {
                    let copy = tree.clone();
                    let counter = std::thread::Builder::new()
                        .name("first-count".into())
                        .spawn_scoped(s, move || ts::count_tokens(g, &copy));
                    let listed = (list.list)(&mut std::iter::once(tree.clone()), text);
                    (Some(listed), counter.ok().and_then(|c| c.join().ok()))
                }),
                None => (None, None),
            };
            parsed(First {
                errors,
                first_error,
                listed,
                tree: Some(tree.clone()),
                built: None,
                counted: count,
            });
            let count = count.unwrap_or_else(|| ts::count_tokens(g, &tree));
            // the driver may have dropped its copy while this one was counting: the last
            // holder of a large tree gives its memory back
            drop(tree);
            return_freed_memory();
            Ok(count)
        }
        Front::Text => {
            let built = text::build_shared(text.clone());
            let tokens = built.tokens.len();
            parsed(First {
                errors: built.errors,
                first_error: built.first_error,
                tree: None,
                built: Some(built),
                listed: None,
                counted: Some(tokens),
            });
            Ok(tokens)
        }
    }
}

/// [`parse_and_count`] of a file cut into `ranges`: each piece is parsed, listed, counted and
/// dropped in turn; nothing is handed over but what the listing made, the errors and the count.
fn in_pieces(
    g: &super::grammar::Grammar,
    parser: &mut tree_sitter::Parser,
    text: &[u8],
    ranges: Vec<std::ops::Range<usize>>,
    list: ListFn,
    parsed: impl FnOnce(First),
) -> Result<usize> {
    let (mut errors, mut first_error, mut failed) = (0, None, false);
    // each piece's tokens are counted beside the listing, on a copy (as for a whole tree); the
    // channel holds one piece, so a few pieces' trees at most are alive at once
    let (listed, count) = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Tree>(1);
        let counter = std::thread::Builder::new()
            .name("first-count".into())
            .spawn_scoped(s, move || {
                rx.iter().map(|t| ts::count_tokens(g, &t)).sum::<usize>()
            });
        let mut local = 0;
        let mut trees = pieces::parse_pieces(parser, text, ranges)
            .map_while(|tree| {
                failed |= tree.is_none();
                tree
            })
            .inspect(|tree| {
                let (e, at) = count_errors(tree);
                errors += e;
                first_error = first_error.or(at);
                match &counter {
                    Ok(_) => drop(tx.send(tree.clone())),
                    Err(_) => local += ts::count_tokens(g, tree),
                }
            });
        let listed = list(&mut trees, text);
        // the listing took every piece (the count needs them all)
        trees.for_each(drop);
        drop(tx);
        let count = match counter {
            Ok(c) => c.join().unwrap_or(0),
            Err(_) => local,
        };
        (listed, count)
    });
    if failed {
        return Err(anyhow!("the parse of a piece was cancelled"));
    }
    parsed(First {
        errors,
        first_error,
        listed: Some(listed),
        tree: None,
        built: None,
        counted: Some(count),
    });
    return_freed_memory();
    Ok(count)
}

type ListFn = Box<dyn FnOnce(&mut dyn Iterator<Item = Tree>, &[u8]) -> Box<dyn Any + Send> + Send>;

#[cfg(test)]
mod tests {
    use super::*;

    const C: &[u8] = b"int f(int a) { return a + 1; }\nint g(void) { return f(2) }\n";

    #[test]
    fn the_parse_and_the_count_are_those_of_a_build_here() {
        let front = Front::by_name("c").unwrap();
        let mut early = EarlyParse::start(&front, C.to_vec());
        assert_eq!(early.text(), C);
        let here = front.builder().unwrap().build(C).unwrap();
        let first = early.first().unwrap();
        assert_eq!(
            (first.errors, first.first_error),
            (here.errors, here.first_error)
        );
        assert!(first.errors > 0, "the missing `;` is a parse error");
        let tree = first.tree.take().expect("a grammar's tree");
        assert_eq!(tree.root_node().end_byte(), C.len());
        assert_eq!(early.tokens().unwrap(), here.tokens.len());
        // asked again: the same answers, no second parse
        assert_eq!(early.first().unwrap().errors, here.errors);
        assert_eq!(early.tokens().unwrap(), here.tokens.len());
    }

    #[test]
    fn the_listing_runs_on_the_first_tree_and_is_taken_once_by_its_type() {
        let front = Front::by_name("c").unwrap();
        let listing = Listing {
            in_pieces: false,
            list: Box::new(|trees, text| {
                let tree = trees.next().expect("the tree");
                Box::new((tree.root_node().named_child_count(), text.len()))
            }),
        };
        let mut early = EarlyParse::start_listing(&front, C.to_vec(), Some(listing));
        // asked for another type: not there, and not consumed
        assert_eq!(early.listed::<String>(), None);
        assert_eq!(early.listed::<(usize, usize)>(), Some((2, C.len())));
        assert_eq!(early.listed::<(usize, usize)>(), None, "taken");
        let here = front.builder().unwrap().build(C).unwrap();
        assert_eq!(
            early.first().unwrap().counted,
            Some(here.tokens.len()),
            "counted beside the listing, before the handover"
        );
        assert!(
            early.first().unwrap().tree.is_some(),
            "the tree is still handed over"
        );
        // without a listing: nothing listed
        let mut plain = EarlyParse::start(&front, C.to_vec());
        assert_eq!(plain.listed::<(usize, usize)>(), None);
        // without one, the tree is handed over first and counted after
        assert_eq!(plain.first().unwrap().counted, None);
        assert_eq!(plain.tokens().unwrap(), here.tokens.len());
    }

    #[test]
    fn the_bracket_tree_has_no_tree_sitter_tree() {
        let front = Front::Text;
        let text = b"a (b [c) d\n".to_vec();
        let here = text::build(&text);
        let mut early = EarlyParse::start(&front, text);
        let first = early.first().unwrap();
        assert!(first.tree.is_none());
        assert_eq!(first.errors, here.errors);
        assert!(first.errors > 0);
        assert_eq!(early.tokens().unwrap(), here.tokens.len());
    }
}
