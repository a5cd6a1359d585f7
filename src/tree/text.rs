//! The bracket tree for text no grammar covers (SMT-LIB, LLVM IR, Lisp, YAML, Makefiles, logs):
//! Perses' "adaptive Dyck" fallback. Tokens are words, strings, commas and brackets; balanced
//! `()`, `[]`, `{}` pairs become groups; a sequence of elements becomes lines (elements grouped
//! by the line they start on) and lines nest into indentation blocks (a line followed by more
//! indented lines heads a block). Every item is deletable; any item can replace any other
//! (a group by a nested group or word), which is Perses' hoisting on brackets.

use super::render::Tokens;
use super::ts::{Parsed, Reparse, renumber_preorder};
use super::{Arena, Class, NONE, Node, NodeId};

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

struct Tok {
    span: (u32, u32),
    lex: Lex,
    line: u32,
}

/// Splits text into tokens: brackets and commas alone, quoted strings whole, other runs of
/// non-blank bytes as words.
fn lex(src: &[u8]) -> Vec<Tok> {
    let mut toks = Vec::new();
    let (mut i, mut line) = (0, 0u32);
    while i < src.len() {
        let c = src[i];
        if c == b'\n' {
            line += 1;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let lex = match c {
            b'(' | b'[' | b'{' => Lex::Open(c),
            b')' | b']' | b'}' => Lex::Close(c),
            b',' => Lex::Comma,
            _ => Lex::Word,
        };
        i += 1;
        if lex == Lex::Word {
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
        toks.push(Tok {
            span: (start as u32, i as u32),
            lex,
            line,
        });
        line += src[start..i].iter().filter(|&&b| b == b'\n').count() as u32;
    }
    toks
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

/// For each token, the index of its matching bracket (`u32::MAX` if none), and how many
/// brackets are unmatched.
fn match_brackets(toks: &[Tok]) -> (Vec<u32>, usize) {
    let mut pair = vec![NONE; toks.len()];
    let mut stack: Vec<usize> = Vec::new();
    let mut unmatched = 0;
    for (i, t) in toks.iter().enumerate() {
        match t.lex {
            Lex::Open(_) => stack.push(i),
            Lex::Close(c) => {
                let want = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                match stack.last() {
                    Some(&o) if toks[o].lex == Lex::Open(want) => {
                        stack.pop();
                        if stack.len() < MAX_NESTING {
                            pair[o] = i as u32;
                            pair[i] = o as u32;
                        }
                    }
                    _ => unmatched += 1,
                }
            }
            _ => {}
        }
    }
    (pair, unmatched + stack.len())
}

/// How many brackets of `src` are unmatched: the bracket tree's "parse errors".
pub fn bracket_errors(src: &[u8]) -> usize {
    match_brackets(&lex(src)).1
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
    let toks = lex(src);
    let (pair, errors) = match_brackets(&toks);
    let indent = line_indents(src);
    let mut b = Builder {
        toks: &toks,
        pair: &pair,
        indent: &indent,
        arena: Arena {
            kind_names: KIND_NAMES.map(String::from).to_vec(),
            type_sets: SLOT_KINDS.iter().map(|&k| vec![1u64 << k]).collect(),
            ..Arena::default()
        },
        span: Vec::new(),
    };
    let root = b.sequence(0, toks.len(), NONE);
    b.arena.root = root;
    let (arena, spans) = renumber_preorder(b.arena, &b.span);
    let first_error = (errors > 0).then_some(0);
    Parsed {
        arena,
        tokens: Tokens::new(src.to_vec(), spans),
        errors,
        first_error,
    }
}

/// The indentation (leading blank bytes) of every line.
fn line_indents(src: &[u8]) -> Vec<u32> {
    src.split(|&b| b == b'\n')
        .map(|l| l.iter().take_while(|&&b| b == b' ' || b == b'\t').count() as u32)
        .collect()
}

struct Builder<'a> {
    toks: &'a [Tok],
    pair: &'a [u32],
    indent: &'a [u32],
    arena: Arena,
    span: Vec<(u32, u32)>,
}

/// An element of a sequence: one token, or a bracket group `[open, close]`.
#[derive(Clone, Copy)]
struct Elem {
    first: usize,
    last: usize,
}

impl Builder<'_> {
    fn push(&mut self, class: Class, kind: u16, parent: NodeId) -> NodeId {
        let id = self.arena.nodes.len() as NodeId;
        let slot = SLOT_KINDS
            .iter()
            .position(|&k| k == kind)
            .map_or(NONE, |i| i as u32);
        self.arena.nodes.push(Node {
            class,
            kind,
            slot,
            parent,
            children: (0, 0),
            toks: (0, 0),
            depth: 0,
        });
        self.span.push((0, 0));
        id
    }

    fn set_children(&mut self, id: NodeId, kids: &[NodeId]) {
        let start = self.arena.child_ids.len() as u32;
        self.arena.child_ids.extend_from_slice(kids);
        for &k in kids {
            self.arena.nodes[k as usize].parent = id;
        }
        self.arena.nodes[id as usize].children = (start, self.arena.child_ids.len() as u32);
    }

    fn token(&mut self, t: usize, class: Class, kind: u16, parent: NodeId) -> NodeId {
        let id = self.push(class, kind, parent);
        self.span[id as usize] = self.toks[t].span;
        id
    }

    /// The elements of tokens `[lo, hi)`: groups where brackets match inside the range.
    fn elems(&self, lo: usize, hi: usize) -> Vec<Elem> {
        let mut out = Vec::new();
        let mut i = lo;
        while i < hi {
            let p = self.pair[i] as usize;
            let last = match self.toks[i].lex {
                Lex::Open(_) if self.pair[i] != NONE && p < hi => p,
                _ => i,
            };
            out.push(Elem { first: i, last });
            i = last + 1;
        }
        out
    }

    /// A List node over tokens `[lo, hi)`: its elements if they sit on one line, else its
    /// lines nested by indentation.
    fn sequence(&mut self, lo: usize, hi: usize, parent: NodeId) -> NodeId {
        let list = self.push(Class::List, LIST, parent);
        let elems = self.elems(lo, hi);
        let lines = self.lines(&elems);
        let kids = if lines.len() <= 1 {
            self.flat(&elems, list)
        } else {
            self.blocks(&elems, &lines, list)
        };
        self.set_children(list, &kids);
        list
    }

    /// Splits elements into lines: `[start, end)` index ranges by the line they start on.
    fn lines(&self, elems: &[Elem]) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = Vec::new();
        for (i, e) in elems.iter().enumerate() {
            let line = self.toks[e.first].line;
            match out.last_mut() {
                Some(l) if self.toks[elems[l.0].first].line == line => l.1 = i + 1,
                _ => out.push((i, i + 1)),
            }
        }
        out
    }

    /// Elements as list items, commas between them as separators.
    fn flat(&mut self, elems: &[Elem], parent: NodeId) -> Vec<NodeId> {
        let mut kids = Vec::with_capacity(elems.len());
        for (i, e) in elems.iter().enumerate() {
            let comma = self.toks[e.first].lex == Lex::Comma && i > 0 && i + 1 < elems.len();
            kids.push(if comma {
                self.token(e.first, Class::Sep, SEP, parent)
            } else {
                self.elem(*e, parent)
            });
        }
        kids
    }

    fn elem(&mut self, e: Elem, parent: NodeId) -> NodeId {
        if e.first == e.last {
            return self.token(e.first, Class::Token, WORD, parent);
        }
        let kind = match self.toks[e.first].lex {
            Lex::Open(b'(') => PAREN,
            Lex::Open(b'[') => SQUARE,
            _ => BRACE,
        };
        let g = self.push(Class::Regular, kind, parent);
        let open = self.token(e.first, Class::Token, WORD, g);
        let inner = self.sequence(e.first + 1, e.last, g);
        let close = self.token(e.last, Class::Token, WORD, g);
        self.set_children(g, &[open, inner, close]);
        g
    }

    /// One line as an item: its only element, or a LINE node over a list of its elements.
    fn line(&mut self, elems: &[Elem], parent: NodeId) -> NodeId {
        if let [only] = elems {
            return self.elem(*only, parent);
        }
        let line = self.push(Class::Regular, LINE, parent);
        let list = self.push(Class::List, LIST, line);
        let kids = self.flat(elems, list);
        self.set_children(list, &kids);
        self.set_children(line, &[list]);
        line
    }

    /// Lines as items; a line followed by more indented lines heads a BLOCK holding them.
    fn blocks(&mut self, elems: &[Elem], lines: &[(usize, usize)], parent: NodeId) -> Vec<NodeId> {
        let indent = |l: &(usize, usize)| {
            let t = &self.toks[elems[l.0].first];
            self.indent.get(t.line as usize).copied().unwrap_or(0)
        };
        let mut kids = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let head = indent(&lines[i]);
            let mut end = i + 1;
            while end < lines.len() && indent(&lines[end]) > head {
                end += 1;
            }
            let (a, b) = lines[i];
            if end == i + 1 {
                kids.push(self.line(&elems[a..b], parent));
            } else {
                let block = self.push(Class::Regular, BLOCK, parent);
                let header = self.line(&elems[a..b], block);
                let body = self.push(Class::List, LIST, block);
                let inner = self.blocks(elems, &lines[i + 1..end], body);
                self.set_children(body, &inner);
                self.set_children(block, &[header, body]);
                kids.push(block);
            }
            i = end;
        }
        kids
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
        let b = (0..p.arena.nodes.len() as NodeId)
            .find(|&n| {
                p.arena.node(n).class == Class::Token
                    && p.tokens.text(p.arena.node(n).toks.0) == b"b"
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
        let groups: Vec<NodeId> = (0..p.arena.nodes.len() as NodeId)
            .filter(|&n| p.arena.node(n).kind == PAREN)
            .collect();
        assert_eq!(groups.len(), 3);
        assert!(view.can_replace(groups[1], groups[2]));
        let word = p.arena.tok_leaf[p.tokens.len() - 3]; // `y`
        assert!(!view.can_replace(groups[1], word));
        let lists: Vec<NodeId> = (0..p.arena.nodes.len() as NodeId)
            .filter(|&n| p.arena.node(n).class == Class::List)
            .collect();
        assert!(!view.can_replace(lists[1], lists[2]));
    }
}
