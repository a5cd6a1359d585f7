//! The run's first call lists its edits on the first parse's thread ([`EarlyParse`]), while the
//! original's check runs: the closure's units on a large file, the cascade's segments otherwise,
//! as [`Driver::reduce`] begins. Their name analysis is the last thing between the check and the
//! first candidate's test, and on a large file it takes longer than a test.
//!
//! [`EarlyParse`]: crate::tree::early::EarlyParse

use super::{CLOSURE_MIN_BYTES, Driver};
use crate::lang::table;
use crate::passes::cascade::{Segment, cascade};
use crate::passes::closure::{self, Units};
use crate::tree::early::Listing;
use crate::tree::front::Front;

/// The closure's units of the first text (without split bodies or members).
pub(super) struct FirstClosure(pub Units);

/// The cascade's segments of the first text.
pub(super) struct FirstCascade(pub Vec<Segment>);

/// What the first call of a run on `len` bytes lists, for the first parse's thread (`None`:
/// no rewrites, or no table for the language).
pub fn first_listing(front: &Front, len: usize, rewrites: bool) -> Option<Listing> {
    let Front::Grammar(g) = front else {
        return None;
    };
    let t = table::for_language(g.name).filter(|_| rewrites)?;
    Some(match len > CLOSURE_MIN_BYTES {
        // one name table over every piece: a large file's tree is never whole
        true => Listing {
            in_pieces: true,
            list: Box::new(move |trees, src| {
                Box::new(FirstClosure(closure::units_in_pieces(
                    trees, src, t, false, false,
                )))
            }),
        },
        false => Listing {
            in_pieces: false,
            list: Box::new(move |trees, src| {
                let tree = trees.next().expect("one tree");
                Box::new(FirstCascade(cascade(&tree, src, t)))
            }),
        },
    })
}

impl Driver<'_> {
    /// The closure's units of `src` listed on the first parse's thread, if `src` is its text.
    pub(super) fn first_closure(&mut self, src: &[u8]) -> Option<Units> {
        self.trees.listed::<FirstClosure>(src).map(|c| c.0)
    }

    /// The cascade's segments of `src` listed on the first parse's thread, if `src` is its text.
    pub(super) fn first_cascade(&mut self, src: &[u8]) -> Option<Vec<Segment>> {
        self.trees.listed::<FirstCascade>(src).map(|c| c.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::early::EarlyParse;
    use crate::tree::ts::{new_parser, parse_tree};

    const C: &[u8] = b"static int unused(void) { return 1; }\nint helper(int x) { return x; }\nint main(void) { return helper(2); }\n";

    fn parsed(front: &Front, text: &[u8]) -> tree_sitter::Tree {
        let Front::Grammar(g) = front else {
            panic!("a grammar")
        };
        parse_tree(&mut new_parser(g).unwrap(), text).unwrap()
    }

    /// The thread lists what the driver's first call would list on its own tree: the
    /// cascade's segments below [`CLOSURE_MIN_BYTES`], the closure's units above.
    #[test]
    fn the_first_listing_is_what_the_first_call_lists() {
        let front = Front::by_name("c").unwrap();
        let t = table::for_language("c").unwrap();
        let tree = parsed(&front, C);
        let listing = first_listing(&front, C.len(), true).unwrap();
        let mut early = EarlyParse::start_listing(&front, C.to_vec(), Some(listing));
        let FirstCascade(listed) = early.listed::<FirstCascade>().expect("the cascade's");
        let here = cascade(&tree, C, t);
        let key =
            |s: &[Segment]| -> Vec<_> { s.iter().map(|s| (s.name, s.hunks.clone())).collect() };
        assert_eq!(key(&listed), key(&here));
        assert!(
            listed[0].hunks.iter().flatten().any(|e| e.start == 0),
            "`unused` goes first"
        );

        let listing = first_listing(&front, CLOSURE_MIN_BYTES + 1, true).unwrap();
        let mut early = EarlyParse::start_listing(&front, C.to_vec(), Some(listing));
        let FirstClosure(listed) = early.listed::<FirstClosure>().expect("the closure's");
        let here = closure::units(&tree, C, t, false, false);
        assert_eq!(listed.hunks, here.hunks);
        assert_eq!(listed.fixed, here.fixed);
    }

    /// The driver takes the listing for the first parse's text only, and once.
    #[test]
    fn the_listing_serves_the_first_text_only() {
        let front = Front::by_name("c").unwrap();
        let listing = first_listing(&front, C.len(), true);
        let early = EarlyParse::start_listing(&front, C.to_vec(), listing);
        let mut trees = super::super::trees::Trees::new(&front, Some(early)).unwrap();
        let other = &C[..C.len() - 1];
        assert!(trees.listed::<FirstCascade>(other).is_none());
        assert!(
            trees.listed::<FirstClosure>(C).is_none(),
            "not the closure's"
        );
        assert!(trees.listed::<FirstCascade>(C).is_some());
        assert!(trees.listed::<FirstCascade>(C).is_none(), "taken");
    }

    /// Above [`CLOSURE_MIN_BYTES`] a C file is parsed and listed in pieces: the same units,
    /// errors and tokens as the whole file's tree, and no tree is handed over.
    #[test]
    fn a_large_file_is_listed_in_pieces_as_its_whole_tree_would_be() {
        use crate::tree::early::PIECE_BYTES;
        let front = Front::by_name("c").unwrap();
        let t = table::for_language("c").unwrap();
        let text = crate::tree::pieces::large_c(2 * PIECE_BYTES + 1000);
        let listing = first_listing(&front, text.len(), true).unwrap();
        let mut early = EarlyParse::start_listing(&front, text.clone(), Some(listing));
        let FirstClosure(listed) = early.listed::<FirstClosure>().expect("the closure's");
        let tree = parsed(&front, &text);
        let here = closure::units(&tree, &text, t, false, false);
        assert_eq!(listed.hunks, here.hunks);
        assert_eq!(listed.fixed, here.fixed);
        let whole = front.builder().unwrap().build(&text).unwrap();
        let first = early.first().unwrap();
        assert!(first.tree.is_none(), "no tree of the whole file");
        assert_eq!(
            (first.errors, first.first_error),
            (whole.errors, whole.first_error)
        );
        assert_eq!(
            (first.errors, first.first_error.unwrap() > text.len() - 10),
            (1, true)
        );
        assert_eq!(early.tokens().unwrap(), whole.tokens.len());
    }

    #[test]
    fn no_listing_without_rewrites_or_a_grammar() {
        let c = Front::by_name("c").unwrap();
        assert!(first_listing(&c, C.len(), false).is_none());
        assert!(first_listing(&Front::Text, C.len(), true).is_none());
    }
}
