//! The bracket tree for text no grammar covers (SMT-LIB, LLVM IR, Lisp, YAML, Makefiles, logs):
//! Perses' "adaptive Dyck" fallback. Tokens are words, strings, commas and brackets; balanced
//! `()`, `[]`, `{}` pairs become groups; a sequence of elements becomes lines (elements grouped
//! by the line they start on) and lines nest into indentation blocks (a line followed by more
//! indented lines heads a block). Every item is deletable; any item can replace any other
//! (a group by a nested group or word), which is Perses' hoisting on brackets.

use std::sync::Arc;

use super::render::Tokens;
use super::ts::{Parsed, Reparse};
use super::{Arena, Class, NONE, NodeId, PreorderBuilder};

/// Kinds of the bracket tree (its own tiny "grammar").
const WORD: u16 = 0;
const LINE: u16 = 1;
const PAREN: u16 = 2;
const SQUARE: u16 = 3;
const BRACE: u16 = 4;
const BLOCK: u16 = 5;
const LIST: u16 = 6;
const SEP: u16 = 7;
const KIND_NAMES: [&str; 8] = [
    "word", "line", "(group)", "[group]", "{group}", "block", "[List]", "sep",
];
/// Replacement is narrow, so that a pass tries few candidates: a group only by a nested group
/// of the same brackets (Perses' hoisting), a block only by a nested block; words, lines and
/// lists fill no typed slot (`NONE`) and are only deleted. Type set `i` = `{SLOT_KINDS[i]}`.
const SLOT_KINDS: [u16; 4] = [PAREN, SQUARE, BRACE, BLOCK];
/// Brackets nested deeper than this are plain words (keeps the builder's recursion bounded).
const MAX_NESTING: usize = 200;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lex {
    Word,
    Comma,
    Open(u8),
    Close(u8),
}

/// What a token is, from its first byte: brackets and commas are tokens of their own.
fn lex_of(first: u8) -> Lex {
    match first {
        b'(' | b'[' | b'{' => Lex::Open(first),
        b')' | b']' | b'}' => Lex::Close(first),
        b',' => Lex::Comma,
        _ => Lex::Word,
    }
}

/// Splits text into tokens (byte spans): brackets and commas alone, quoted strings whole,
/// other runs of non-blank bytes as words.
fn lex(src: &[u8]) -> impl Iterator<Item = (u32, u32)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < src.len() && src[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == src.len() {
            return None;
        }
        let (start, c) = (i, src[i]);
        i += 1;
        if lex_of(c) == Lex::Word {
            if c == b'"' {
                i = string_end(src, i);
            } else {
                while i < src.len()
                    && !src[i].is_ascii_whitespace()
                    && !b"()[]{},\"".contains(&src[i])
                {
                    i += 1;
                }
            }
        }
        Some((start as u32, i as u32))
    })
}

/// The end of a `"` string starting before `i`: its closing quote, or the end of its line.
fn string_end(src: &[u8], mut i: usize) -> usize {
    while i < src.len() {
        match src[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    src.len()
}

/// Matches brackets over tokens in order: `pair(i, j)` for each matched pair (nested less
/// than [`MAX_NESTING`] deep) by token index; returns how many brackets are unmatched.
fn match_brackets(lexes: impl Iterator<Item = Lex>, mut pair: impl FnMut(u32, u32)) -> usize {
    let mut stack: Vec<(u32, u8)> = Vec::new();
    let mut unmatched = 0;
    for (i, lex) in lexes.enumerate() {
        match lex {
            Lex::Open(c) => stack.push((i as u32, c)),
            Lex::Close(c) => {
                let want = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                match stack.last() {
                    Some(&(o, open)) if open == want => {
                        stack.pop();
                        if stack.len() < MAX_NESTING {
                            pair(o, i as u32);
                        }
                    }
                    _ => unmatched += 1,
                }
            }
            _ => {}
        }
    }
    unmatched + stack.len()
}

/// How many brackets of `src` are unmatched: the bracket tree's "parse errors".
pub fn bracket_errors(src: &[u8]) -> usize {
    match_brackets(lex(src).map(|(a, _)| lex_of(src[a as usize])), |_, _| {})
}

/// The bracket tree's prefilter: a candidate with more unmatched brackets than the best is
/// skipped. Deletions of whole items never unbalance; this catches the rest.
pub struct BracketCheck;

impl Reparse for BracketCheck {
    fn errors(&mut self, src: &[u8]) -> Option<usize> {
        Some(bracket_errors(src))
    }
}

/// Builds the bracket tree of `src`.
pub fn build(src: &[u8]) -> Parsed {
    build_shared(src.into())
}

/// [`build`], the tokens sharing `text` rather than copying it.
pub fn build_shared(text: Arc<[u8]>) -> Parsed {
    let src = &text[..];
    // counted first: a vector grown by doubling holds up to twice what a large input needs
    let mut spans: Vec<(u32, u32)> = Vec::with_capacity(lex(src).count());
    spans.extend(lex(src));
    let mut pair = vec![NONE; spans.len()];
    let lexes = spans.iter().map(|&(a, _)| lex_of(src[a as usize]));
    let errors = match_brackets(lexes, |o, c| {
        pair[o as usize] = c;
        pair[c as usize] = o;
    });
    let (line_starts, indent) = lines_of(src);
    let arena = Arena::new(
        KIND_NAMES.map(String::from).to_vec(),
        SLOT_KINDS.iter().map(|&k| vec![1u64 << k]).collect(),
    );
    let mut b = Builder {
        src,
        spans: &spans,
        pair: &pair,
        line_starts: &line_starts,
        indent: &indent,
        tree: PreorderBuilder::new(arena, spans.len()),
    };
    b.sequence(0, spans.len() as u32, NONE);
    let arena = b.tree.finish();
    drop(pair);
    let first_error = (errors > 0).then_some(0);
    Parsed {
        arena,
        tokens: Tokens::new(text, spans),
        errors,
        first_error,
    }
}

/// Where every line starts, and its indentation (leading blank bytes).
fn lines_of(src: &[u8]) -> (Vec<u32>, Vec<u32>) {
    let mut starts = Vec::new();
    let mut indent = Vec::new();
    let mut start = 0;
    for line in src.split(|&b| b == b'\n') {
        starts.push(start as u32);
        indent.push(
            line.iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count() as u32,
        );
        start += line.len() + 1;
    }
    (starts, indent)
}

struct Builder<'a> {
    src: &'a [u8],
    spans: &'a [(u32, u32)],
    pair: &'a [u32],
    line_starts: &'a [u32],
    indent: &'a [u32],
    tree: PreorderBuilder,
}

/// A run of whole elements: tokens `[lo, hi)`, where every bracket group that starts inside
/// also ends inside (a sequence's elements, or one line of them).
#[derive(Clone, Copy)]
struct Run {
    lo: u32,
    hi: u32,
}

impl Builder<'_> {
    fn lex(&self, t: u32) -> Lex {
        lex_of(self.src[self.spans[t as usize].0 as usize])
    }

    /// The line token `t` starts on.
    fn line_of(&self, t: u32) -> usize {
        let at = self.spans[t as usize].0;
        self.line_starts.partition_point(|&s| s <= at) - 1
    }

    /// The last token of the element starting at `t` within `[.., hi)`: its group's closing
    /// bracket if the group closes inside, else `t` itself.
    fn elem_last(&self, t: u32, hi: u32) -> u32 {
        let p = self.pair[t as usize];
        match self.lex(t) {
            Lex::Open(_) if p != NONE && p < hi => p,
            _ => t,
        }
    }

    /// The elements of a run, by first and last token.
    fn elems(&self, run: Run) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut t = run.lo;
        std::iter::from_fn(move || {
            (t < run.hi).then(|| {
                let last = self.elem_last(t, run.hi);
                let e = (t, last);
                t = last + 1;
                e
            })
        })
    }

    fn token(&mut self, class: Class, kind: u16, parent: NodeId) -> NodeId {
        self.tree.open(class, kind, NONE, parent)
    }

    fn inner(&mut self, class: Class, kind: u16, parent: NodeId) -> NodeId {
        let slot = SLOT_KINDS
            .iter()
            .position(|&k| k == kind)
            .map_or(NONE, |i| i as u32);
        self.tree.open(class, kind, slot, parent)
    }

    /// A List node over tokens `[lo, hi)`: its elements if they sit on one line, else its
    /// lines nested by indentation.
    fn sequence(&mut self, lo: u32, hi: u32, parent: NodeId) -> NodeId {
        let list = self.inner(Class::List, LIST, parent);
        let run = Run { lo, hi };
        let lines = self.lines(run);
        if lines.len() <= 1 {
            self.flat(run, list);
        } else {
            self.blocks(&lines, list);
        }
        self.tree.close(list);
        list
    }

    /// Splits a run into lines: the elements that start on one line.
    fn lines(&self, run: Run) -> Vec<Run> {
        let mut out: Vec<Run> = Vec::new();
        // elements come in source order: the line moves forward only
        let mut line = usize::MAX;
        let mut last_line = usize::MAX;
        for (first, last) in self.elems(run) {
            let at = self.spans[first as usize].0;
            if line == usize::MAX {
                line = self.line_of(first);
            }
            while self.line_starts.get(line + 1).is_some_and(|&s| s <= at) {
                line += 1;
            }
            match out.last_mut() {
                Some(l) if last_line == line => l.hi = last + 1,
                _ => {
                    out.push(Run {
                        lo: first,
                        hi: last + 1,
                    });
                    last_line = line;
                }
            }
        }
        out
    }

    /// Elements as list items, commas between them as separators.
    fn flat(&mut self, run: Run, parent: NodeId) {
        let mut first = true;
        let mut t = run.lo;
        while t < run.hi {
            let last = self.elem_last(t, run.hi);
            let comma = self.lex(t) == Lex::Comma && !first && last + 1 < run.hi;
            if comma {
                self.token(Class::Sep, SEP, parent);
            } else {
                self.elem(t, last, parent);
            }
            first = false;
            t = last + 1;
        }
    }

    fn elem(&mut self, first: u32, last: u32, parent: NodeId) -> NodeId {
        if first == last {
            return self.token(Class::Token, WORD, parent);
        }
        let kind = match self.lex(first) {
            Lex::Open(b'(') => PAREN,
            Lex::Open(b'[') => SQUARE,
            _ => BRACE,
        };
        let g = self.inner(Class::Regular, kind, parent);
        self.token(Class::Token, WORD, g);
        self.sequence(first + 1, last, g);
        self.token(Class::Token, WORD, g);
        self.tree.close(g);
        g
    }

    /// One line as an item: its only element, or a LINE node over a list of its elements.
    fn line(&mut self, run: Run, parent: NodeId) -> NodeId {
        let last = self.elem_last(run.lo, run.hi);
        if last + 1 == run.hi {
            return self.elem(run.lo, last, parent);
        }
        let line = self.inner(Class::Regular, LINE, parent);
        let list = self.inner(Class::List, LIST, line);
        self.flat(run, list);
        self.tree.close(list);
        self.tree.close(line);
        line
    }

    /// Lines as items; a line followed by more indented lines heads a BLOCK holding them.
    fn blocks(&mut self, lines: &[Run], parent: NodeId) {
        let indent = |b: &Self, l: &Run| b.indent.get(b.line_of(l.lo)).copied().unwrap_or(0);
        let mut i = 0;
        while i < lines.len() {
            let head = indent(self, &lines[i]);
            let mut end = i + 1;
            while end < lines.len() && indent(self, &lines[end]) > head {
                end += 1;
            }
            if end == i + 1 {
                self.line(lines[i], parent);
            } else {
                let block = self.inner(Class::Regular, BLOCK, parent);
                self.line(lines[i], block);
                let body = self.inner(Class::List, LIST, block);
                self.blocks(&lines[i + 1..end], body);
                self.tree.close(body);
                self.tree.close(block);
            }
            i = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::View;

    const SMT: &str = "(set-logic QF_LIA)\n(declare-fun x () Int)\n(assert (and (> x 1)\n            (< x 3)))\n(check-sat)\n";

    fn all(p: &Parsed) -> Vec<u32> {
        (0..p.tokens.len() as u32).collect()
    }

    #[test]
    fn keeping_every_token_gives_the_input_back() {
        for src in [
            SMT,
            "a:\n  b: [1, 2]\n  c: {x}\n\tfoo(\"s ( t\")\n",
            "unbalanced ) ( [\n",
            "x",
        ] {
            let p = build(src.as_bytes());
            assert_eq!(p.tokens.render(&all(&p)), src.as_bytes(), "{src}");
        }
    }

    #[test]
    fn brackets_group_and_unmatched_ones_are_errors() {
        assert_eq!(build(SMT.as_bytes()).errors, 0);
        assert_eq!(bracket_errors(b"(a [b) c"), 3);
        let p = build(b"f(a, g(b), c)\n");
        let dump = p
            .arena
            .dump(&|t| String::from_utf8_lossy(p.tokens.text(t)).into_owned());
        assert!(dump.contains("(group)"), "{dump}");
        assert!(dump.contains("sep \",\""), "{dump}");
    }

    #[test]
    fn deleting_an_argument_takes_its_comma() {
        let p = build(b"f(a, b, c)\n");
        let config = all(&p);
        let view = View::new(&p.arena, &config);
        let b = (0..p.arena.len() as NodeId)
            .find(|&n| {
                p.arena.node(n).class() == Class::Token && p.tokens.text(p.arena.toks(n).0) == b"b"
            })
            .unwrap();
        assert!(p.arena.deletable(b));
        let delta = view.deletion_delta(&config, &[b]);
        let kept = crate::policy::subtract(&config, &delta);
        assert_eq!(p.tokens.render(&kept), b"f(a, c)\n");
    }

    #[test]
    fn indented_lines_form_blocks_and_groups_can_replace_their_parents() {
        let p = build(b"a:\n  b\n  c\nd\n");
        let dump = p
            .arena
            .dump(&|t| String::from_utf8_lossy(p.tokens.text(t)).into_owned());
        assert!(dump.contains("block"), "{dump}");
        let p = build(b"(assert (and (> x 1) y))\n");
        let config = all(&p);
        let view = View::new(&p.arena, &config);
        let groups: Vec<NodeId> = (0..p.arena.len() as NodeId)
            .filter(|&n| p.arena.node(n).kind() == PAREN)
            .collect();
        assert_eq!(groups.len(), 3);
        assert!(view.can_replace(groups[1], groups[2]));
        let word = p.arena.leaves().nth(p.tokens.len() - 3).unwrap(); // `y`
        assert!(!view.can_replace(groups[1], word));
        let lists: Vec<NodeId> = (0..p.arena.len() as NodeId)
            .filter(|&n| p.arena.node(n).class() == Class::List)
            .collect();
        assert!(!view.can_replace(lists[1], lists[2]));
    }
}
