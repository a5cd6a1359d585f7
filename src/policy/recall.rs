//! Perses's replacements that failed in earlier rounds of the run, by what they change.
//!
//! A deletion round builds a new tree, so the replacements a round rejected are proposed again
//! in the next one, and in the one after each rewrite that succeeds: on a small program much of
//! a late round is those, and they almost never succeed the second time. A replacement
//! is keyed by the text it changes: the present tokens of the node it replaces, where the kept
//! descendant sits among them, and the token before the node. A round given a [`Recall`] skips
//! the replacements whose key failed before; the driver ends the run with a round that skips
//! nothing, so the result is still a fixpoint of every replacement on the final program.
//!
//! The keys a round learns are those of the real pass's rejected replacements, in commit
//! order, and a round reads only the keys of rounds before it: the same for every `-j`.

use std::collections::HashSet;

use xxhash_rust::xxh3::Xxh3;

use super::Unit;
use crate::tree::render::Tokens;

/// What one round knows of the failed replacements of the rounds before it.
pub struct Recall<'t> {
    tokens: &'t Tokens,
    failed: HashSet<u64>,
}

impl<'t> Recall<'t> {
    /// `failed`: the keys learned so far in the run (empty: the round skips nothing).
    pub fn new(tokens: &'t Tokens, failed: HashSet<u64>) -> Self {
        Recall { tokens, failed }
    }

    /// The key of replacing the present tokens `outer` (a node's) by `inner` (a descendant's, a
    /// run of `outer`) in `config`.
    pub fn key(&self, config: &[Unit], outer: &[Unit], inner: &[Unit]) -> u64 {
        let mut h = Xxh3::new();
        let before = outer
            .first()
            .and_then(|first| config.binary_search(first).ok())
            .and_then(|at| at.checked_sub(1))
            .map(|at| self.tokens.text(config[at]));
        h.update(before.unwrap_or(b"\x01"));
        for &t in outer {
            h.update(b"\0");
            h.update(self.tokens.text(t));
        }
        let start = inner
            .first()
            .and_then(|first| outer.binary_search(first).ok())
            .unwrap_or(0);
        h.update(&(start as u64).to_le_bytes());
        h.update(&(inner.len() as u64).to_le_bytes());
        h.digest()
    }

    /// Did a replacement with this key fail in an earlier round?
    pub fn failed_before(&self, key: u64) -> bool {
        self.failed.contains(&key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_the_changed_text_not_the_token_numbers() {
        // x ; if ( c ) { y ; }   and, one round later with tokens renumbered, the same text
        let a = Tokens::from_words(&["x", ";", "if", "(", "c", ")", "{", "y", ";", "}"]);
        let b = Tokens::from_words(&["z", "x", ";", "if", "(", "c", ")", "{", "y", ";", "}"]);
        let ra = Recall::new(&a, HashSet::new());
        let rb = Recall::new(&b, HashSet::new());
        let all_a: Vec<Unit> = (0..10).collect();
        let all_b: Vec<Unit> = (1..11).collect(); // `z` already deleted
        let if_a: Vec<Unit> = (2..10).collect();
        let if_b: Vec<Unit> = (3..11).collect();
        let key = ra.key(&all_a, &if_a, &[7, 8]);
        assert_eq!(key, rb.key(&all_b, &if_b, &[8, 9]));
        // a different kept descendant, or a different neighbour, is another replacement
        assert_ne!(key, ra.key(&all_a, &if_a, &[4]));
        let no_semicolon: Vec<Unit> = [0, 1].into_iter().chain(3..11).collect();
        assert_ne!(key, rb.key(&no_semicolon, &if_b, &[8, 9]));
        let recall = Recall::new(&a, HashSet::from([key]));
        assert!(recall.failed_before(key));
    }
}
