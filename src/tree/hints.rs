//! A hint for the speculation's odds (`engine/odds.rs`): what the text says about a deletion.
//!
//! Most list deletions that fail, fail because the program still uses a name the deleted code
//! declared. The first occurrence of a name is (in C-like languages, roughly) where it is
//! declared; so a deletion that removes a name's first present occurrence while the name still
//! occurs elsewhere likely leaves a use without its declaration. That is a small category per
//! candidate, computed from the token texts alone (keywords are words too, but only the
//! candidate that holds a keyword's very first occurrence is affected). The hint also names
//! the token texts at the deletion's edges (its first and last tokens, and the tokens just
//! outside it): what kind of code it is, in any language (`typedef ... ;`, `* `, `{ ... }`).
//! The odds learn per run how much each part says; the hint steers only which candidates run
//! early, never a verdict.

use std::collections::HashMap;

use xxhash_rust::xxh3::xxh3_64;

use super::render::Tokens;
use crate::tree::Unit;

/// What an oracle can tell about a deletion from the text alone, before any test: the odds
/// (`odds.rs`) learn how much each part says, per run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hint {
    /// How the deletion treats the names it holds (`tree/hints.rs`): a small category.
    pub names: u8,
    /// Hashes of four token texts: the first and last deleted tokens, and the present tokens
    /// just before and after the deletion (0: none, or unknown).
    pub words: [u64; 4],
}

/// A deletion that removes no name's first occurrence (or only names that occur nowhere else).
pub const PLAIN: u8 = 0;
/// A deletion that removes the first present occurrence of one name still used outside it; two
/// such names or more are `2 * ORPHANS` (the more names it orphans, the surer it fails).
pub const ORPHANS: u8 = 1;
/// Added to the hint when the deletion also removes every present occurrence of a name whose
/// first occurrence it holds: it takes a declaration with all its uses, which mostly succeeds.
pub const SELF_CONTAINED: u8 = 4;

/// Where each word of the tokens occurs. A token's word and text hash are looked up from its
/// text when asked, not stored per token: at 10^6 tokens and more, two per-token arrays were
/// the largest part of the speculation's memory, and a hint reads few tokens.
pub struct NameHints<'t> {
    tokens: &'t Tokens,
    /// Per distinct word: its index into `starts`.
    ids: HashMap<&'t [u8], u32>,
    /// The tokens where each word occurs, in order: word `w`'s are `at[starts[w]..starts[w + 1]]`.
    at: Vec<Unit>,
    starts: Vec<u32>,
}

impl<'t> NameHints<'t> {
    pub fn new(tokens: &'t Tokens) -> NameHints<'t> {
        let words = || {
            (0..tokens.len() as Unit)
                .map(|t| (t, tokens.text(t)))
                .filter(|(_, bytes)| is_word(bytes))
        };
        // two passes (count, then place) so that the occurrences are one exact array
        let mut ids: HashMap<&[u8], u32> = HashMap::new();
        let mut counts: Vec<u32> = Vec::new();
        for (_, bytes) in words() {
            let id = *ids.entry(bytes).or_insert_with(|| {
                counts.push(0);
                counts.len() as u32 - 1
            });
            counts[id as usize] += 1;
        }
        let mut starts = Vec::with_capacity(counts.len() + 1);
        let mut total = 0u32;
        for c in &counts {
            starts.push(total);
            total += c;
        }
        starts.push(total);
        let mut next = starts[..counts.len()].to_vec();
        drop(counts);
        let mut at = vec![0; total as usize];
        for (t, bytes) in words() {
            let slot = &mut next[ids[bytes] as usize];
            at[*slot as usize] = t;
            *slot += 1;
        }
        NameHints {
            tokens,
            ids,
            at,
            starts,
        }
    }

    /// Token `t`'s text, if there is such a token.
    fn bytes(&self, t: Unit) -> Option<&[u8]> {
        ((t as usize) < self.tokens.len()).then(|| self.tokens.text(t))
    }

    /// Token `t`'s word, if it is one.
    fn word(&self, t: Unit) -> Option<u32> {
        let bytes = self.bytes(t)?;
        is_word(bytes).then(|| self.ids.get(bytes).copied())?
    }

    /// The hash of token `t`'s text (never 0), the same in every round and run.
    fn text(&self, t: Unit) -> Option<u64> {
        self.bytes(t).map(|b| xxh3_64(b) | 1)
    }

    /// The hint for deleting `delta` (sorted, not empty) from `config` (sorted): its names
    /// ([`NameHints::names`]) and the texts at its edges.
    pub fn hint(&self, config: &[Unit], delta: &[Unit]) -> Hint {
        let text = |t: Option<&Unit>| t.and_then(|&t| self.text(t));
        let (first, last) = (delta.first(), delta.last());
        let before = first.and_then(|f| {
            let i = config.partition_point(|u| u < f);
            i.checked_sub(1).map(|i| &config[i])
        });
        let after = last.and_then(|l| config.get(config.partition_point(|u| u <= l)));
        Hint {
            names: self.names(config, delta),
            words: [first, last, before, after].map(|t| text(t).unwrap_or(0)),
        }
    }

    /// The names of deleting `delta` (sorted) from `config` (sorted): [`PLAIN`], or how many
    /// names it orphans (one or two and more, as multiples of [`ORPHANS`]), plus
    /// [`SELF_CONTAINED`] if it holds some name's every occurrence.
    pub fn names(&self, config: &[Unit], delta: &[Unit]) -> u8 {
        let present = |t: &Unit| config.binary_search(t).is_ok();
        let deleted = |t: &Unit| delta.binary_search(t).is_ok();
        let mut seen: Vec<u32> = Vec::new();
        let (mut orphans, mut whole) = (0u8, false);
        for &t in delta {
            let Some(w) = self.word(t) else {
                continue;
            };
            if seen.contains(&w) {
                continue;
            }
            seen.push(w);
            let (a, b) = (self.starts[w as usize], self.starts[w as usize + 1]);
            let mut occurrences = self.at[a as usize..b as usize]
                .iter()
                .filter(|t| present(t));
            if occurrences.next().is_some_and(deleted) {
                match occurrences.any(|t| !deleted(t)) {
                    true => orphans += 1,
                    false => whole = true,
                }
            }
            if (orphans >= 2 && whole) || seen.len() >= 64 {
                break; // nothing more to learn, or a large deletion: its first names say enough
            }
        }
        orphans.min(2) * ORPHANS + u8::from(whole) * SELF_CONTAINED
    }
}

/// An identifier-like token: a letter or `_` first, then letters, digits, `_` or `$`.
fn is_word(text: &[u8]) -> bool {
    text.first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && text
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deleting_a_declaration_still_used_orphans_its_name() {
        // int f ; int g ; g = f ;
        let t = Tokens::from_words(&["int", "f", ";", "int", "g", ";", "g", "=", "f", ";"]);
        let hints = NameHints::new(&t);
        let all: Vec<Unit> = (0..10).collect();
        // `int f ;`: f is used at 8, and `int` at 3: two names
        assert_eq!(hints.names(&all, &[0, 1, 2]), 2 * ORPHANS);
        // `f ;`: one
        assert_eq!(hints.names(&all, &[1, 2]), ORPHANS);
        // the use `g = f ;` orphans nothing and declares nothing
        assert_eq!(hints.names(&all, &[6, 7, 8, 9]), PLAIN);
        // with the use gone, `int g ;` orphans only `int`, and holds all of g
        let rest: Vec<Unit> = (0..6).collect();
        assert_eq!(hints.names(&rest, &[3, 4, 5]), SELF_CONTAINED);
        assert_eq!(hints.names(&rest, &[0, 1, 2]), ORPHANS + SELF_CONTAINED);
        // deleting f's declaration with its use orphans nothing: it holds all of f
        assert_eq!(hints.names(&all, &[1, 8]), SELF_CONTAINED);
    }

    #[test]
    fn the_hint_names_the_texts_at_the_deletions_edges() {
        // int f ; int g ; g = f ;
        let t = Tokens::from_words(&["int", "f", ";", "int", "g", ";", "g", "=", "f", ";"]);
        let hints = NameHints::new(&t);
        let all: Vec<Unit> = (0..10).collect();
        let h = |t: &str| xxh3_64(t.as_bytes()) | 1;
        // `int g ;` between `;` and `g`
        let hint = hints.hint(&all, &[3, 4, 5]);
        assert_eq!(hint.words, [h("int"), h(";"), h(";"), h("g")]);
        assert_eq!(hint.names, hints.names(&all, &[3, 4, 5]));
        // the edges are the present tokens: with `int g ;` gone, `g = f ;` follows `f ;`
        let rest: Vec<Unit> = [0, 1, 2, 6, 7, 8, 9].into();
        assert_eq!(
            hints.hint(&rest, &[6, 7]).words,
            [h("g"), h("="), h(";"), h("f")]
        );
        // nothing before the first token, nothing after the last
        let whole = hints.hint(&all, &all);
        assert_eq!(whole.words, [h("int"), h(";"), 0, 0]);
        // the same text hashes alike wherever it is, and never to 0 (none)
        assert_eq!(
            hints.hint(&all, &[0]).words[0],
            hints.hint(&all, &[3]).words[0]
        );
        assert!((0..10).all(|u| hints.hint(&all, &[u]).words[0] != 0));
    }
}
