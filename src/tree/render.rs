//! Turning a configuration of units back into bytes. Pure.
//!
//! - [`Segments`]: units tile the input (lines, chars); a candidate is their concatenation.
//! - [`Tokens`]: units are tree tokens separated by original gaps. Adjacent kept tokens get their
//!   original gap; across a deletion we write a newline (plus the next token's indentation) if the
//!   removed stretch had one, else one space, so tokens never glue (`return(x)` never becomes
//!   `returnx`). Keeping every token gives the input back byte for byte.

use std::sync::Arc;

use super::Unit;

/// Units that tile the input exactly.
pub struct Segments {
    pub src: Vec<u8>,
    /// `[start, end)` of each unit; consecutive and covering the input.
    pub spans: Vec<(u32, u32)>,
}

impl Segments {
    /// One unit per line, each keeping its `\n`.
    pub fn lines(src: Vec<u8>) -> Segments {
        let mut spans = Vec::new();
        let mut start = 0;
        for (i, &b) in src.iter().enumerate() {
            if b == b'\n' {
                spans.push((start as u32, i as u32 + 1));
                start = i + 1;
            }
        }
        if start < src.len() {
            spans.push((start as u32, src.len() as u32));
        }
        Segments { src, spans }
    }

    /// One unit per character (UTF-8 scalar), or per byte when the input is not UTF-8.
    pub fn chars(src: Vec<u8>) -> Segments {
        let spans = match std::str::from_utf8(&src) {
            Ok(text) => text
                .char_indices()
                .map(|(i, c)| (i as u32, (i + c.len_utf8()) as u32))
                .collect(),
            Err(_) => (0..src.len() as u32).map(|i| (i, i + 1)).collect(),
        };
        Segments { src, spans }
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn render_into(&self, config: &[Unit], out: &mut Vec<u8>) {
        out.clear();
        for &u in config {
            let (a, b) = self.spans[u as usize];
            out.extend_from_slice(&self.src[a as usize..b as usize]);
        }
    }

    pub fn render(&self, config: &[Unit]) -> Vec<u8> {
        let mut out = Vec::new();
        self.render_into(config, &mut out);
        out
    }
}

/// Tree tokens with the original gaps between them.
pub struct Tokens {
    /// The text, shared with the parse that made the tokens and the workers that check them:
    /// a large input is not copied per holder.
    pub src: Arc<[u8]>,
    pub spans: Vec<(u32, u32)>,
    rules: TokenRules,
}

/// A language's rendering rules (`crate::lang::RenderRules`), resolved to this input's tokens.
#[derive(Default)]
pub struct TokenRules {
    /// Identifier bytes beyond `[A-Za-z0-9_]` and non-ASCII.
    pub word_chars: &'static [u8],
    /// Per token: [`Self::OPENER`], [`Self::COMMENT`]; empty when no token opens a block.
    pub flags: Vec<u8>,
    /// Per opener, in token order: the byte where the statement it belongs to starts (`if` of
    /// `if (a and\n        b):`), whose line's indentation its block is measured against.
    pub headers: Vec<(Unit, u32)>,
    /// Written after an opener whose block is gone (`pass`).
    pub filler: &'static [u8],
    /// A token moved to a new line gets its original line's indentation even if it was not
    /// first on that line (Python: `x = 1; y` without `x = 1;` must stay in its block).
    pub indent_sensitive: bool,
}

impl TokenRules {
    /// The token opens an indented block (Python's `:` before a `block`).
    pub const OPENER: u8 = 1;
    pub const COMMENT: u8 = 2;

    fn flag(&self, t: Unit, f: u8) -> bool {
        self.flags.get(t as usize).is_some_and(|&x| x & f != 0)
    }

    /// Where the statement of opener `t` starts, if known.
    fn header(&self, t: Unit) -> Option<usize> {
        let i = self.headers.binary_search_by_key(&t, |h| h.0).ok()?;
        Some(self.headers[i].1 as usize)
    }
}

impl Tokens {
    pub fn new(src: impl Into<Arc<[u8]>>, spans: Vec<(u32, u32)>) -> Tokens {
        Tokens {
            src: src.into(),
            spans,
            rules: TokenRules::default(),
        }
    }

    /// Tokens with these texts, one blank apart (for tests and toy trees).
    pub fn from_words<S: AsRef<str>>(words: &[S]) -> Tokens {
        let mut src = Vec::new();
        let mut spans = Vec::new();
        for w in words {
            let start = src.len() as u32;
            src.extend_from_slice(w.as_ref().as_bytes());
            spans.push((start, src.len() as u32));
            src.push(b' ');
        }
        Tokens::new(src, spans)
    }

    pub fn with_rules(mut self, rules: TokenRules) -> Tokens {
        self.rules = rules;
        self
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn text(&self, t: Unit) -> &[u8] {
        let (a, b) = self.spans[t as usize];
        &self.src[a as usize..b as usize]
    }

    pub fn render(&self, config: &[Unit]) -> Vec<u8> {
        let mut out = Vec::new();
        self.render_into(config, &mut out);
        out
    }

    pub fn render_into(&self, config: &[Unit], out: &mut Vec<u8>) {
        self.render_with(config, out, &mut ());
    }

    /// Like [`Tokens::render_into`], and lists where each stretch of the input was copied to
    /// (everything else in `out` was written across a deletion): what an incremental re-parse
    /// of the candidate needs (see [`splices`]).
    pub fn render_recording(&self, config: &[Unit], out: &mut Vec<u8>, copies: &mut Vec<Copy>) {
        copies.clear();
        self.render_with(config, out, copies);
    }

    fn render_with(&self, config: &[Unit], out: &mut Vec<u8>, rec: &mut impl Record) {
        out.clear();
        let Some((&first, &last)) = config.first().zip(config.last()) else {
            return self.render_empty(out);
        };
        let src = &self.src;
        let head = self.spans.first().map_or(0, |s| s.0) as usize;
        if first == 0 {
            rec.copied(0, head, out.len());
            out.extend_from_slice(&src[..head]);
        }
        // copy each run of tokens adjacent in the input with one copy: their gaps are original
        let mut i = 0;
        while i < config.len() {
            let mut j = i;
            let opener = |t: Unit| self.rules.flag(t, TokenRules::OPENER);
            while j + 1 < config.len() && config[j + 1] == config[j] + 1 && !opener(config[j]) {
                j += 1;
            }
            if i > 0 {
                self.join(config[i - 1], config[i], out, rec);
            }
            let (a, b) = (
                self.spans[config[i] as usize].0 as usize,
                self.spans[config[j] as usize].1 as usize,
            );
            rec.copied(a, b, out.len());
            out.extend_from_slice(&src[a..b]);
            if opener(config[j]) && self.block_is_gone(config, j) {
                out.push(b' ');
                out.extend_from_slice(self.rules.filler);
            }
            i = j + 1;
        }
        let tail = self.spans[last as usize].1 as usize;
        let end = self.spans.last().map_or(0, |s| s.1) as usize;
        if last as usize == self.spans.len() - 1 {
            rec.copied(tail, src.len(), out.len());
            out.extend_from_slice(&src[tail..]);
        } else if src[end..].contains(&b'\n') || src[tail..end].contains(&b'\n') {
            out.push(b'\n');
        }
    }

    /// Nothing kept: keep nothing but a final newline if the input had one.
    fn render_empty(&self, out: &mut Vec<u8>) {
        if self.spans.is_empty() {
            out.extend_from_slice(&self.src);
        } else if self.src.ends_with(b"\n") {
            out.push(b'\n');
        }
    }

    /// What goes between kept tokens `a < b`.
    fn join(&self, a: Unit, b: Unit, out: &mut Vec<u8>, rec: &mut impl Record) {
        let (a_end, b_start) = (self.spans[a as usize].1, self.spans[b as usize].0);
        let gap = &self.src[a_end as usize..b_start as usize];
        if b == a + 1 {
            rec.copied(a_end as usize, b_start as usize, out.len());
            out.extend_from_slice(gap);
        } else if gap.contains(&b'\n') {
            let eol: &[u8] = if gap.windows(2).any(|w| w == b"\r\n") {
                b"\r\n"
            } else {
                b"\n"
            };
            out.extend_from_slice(eol);
            out.extend_from_slice(self.indentation_before(b));
        } else if would_glue(self.text(a), self.text(b), self.rules.word_chars) {
            out.push(b' ');
        }
    }

    /// The blanks before token `b` on its own line (none if something else precedes it there,
    /// unless the language is indentation-sensitive: then its line's indentation).
    fn indentation_before(&self, b: Unit) -> &[u8] {
        let start = self.spans[b as usize].0 as usize;
        let line = &self.src[..start];
        let blanks = line
            .iter()
            .rev()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        let at_line_start = start == blanks || line[start - blanks - 1] == b'\n';
        if at_line_start {
            &line[start - blanks..]
        } else if self.rules.indent_sensitive {
            self.line_indentation(start)
        } else {
            b""
        }
    }

    /// The leading blanks of the line holding byte `at`.
    fn line_indentation(&self, at: usize) -> &[u8] {
        let line_start = self.src[..at]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let blanks = self.src[line_start..]
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        &self.src[line_start..line_start + blanks]
    }

    /// Is the block opened by `config[j]` gone: no kept code token follows, or the next one
    /// starts a later line that is not indented deeper than the line its statement starts on
    /// (not the opener's own line: a header over several lines ends on a continuation line,
    /// often indented as deep as the block or deeper)?
    fn block_is_gone(&self, config: &[Unit], j: usize) -> bool {
        let comment = |t: Unit| self.rules.flag(t, TokenRules::COMMENT);
        let Some(&next) = config[j + 1..].iter().find(|&&t| !comment(t)) else {
            return true;
        };
        let (open, next) = (
            self.spans[config[j] as usize].1 as usize,
            self.spans[next as usize].0 as usize,
        );
        if !self.src[open..next].contains(&b'\n') {
            return false;
        }
        let header = self.rules.header(config[j]).unwrap_or(open);
        self.line_indentation(next).len() <= self.line_indentation(header).len()
    }
}

/// Would writing `a` right before `b` change how they lex? Words glue to words (`returnx`),
/// operators to operators (`- -x` vs `--x`), a word to a quote (`L"x"`) or a dot (`1.`).
pub fn would_glue(a: &[u8], b: &[u8], word_chars: &[u8]) -> bool {
    let (Some(&x), Some(&y)) = (a.last(), b.first()) else {
        return false;
    };
    let word =
        |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 || word_chars.contains(&c);
    let op = |c: u8| b"+-*/%<>=!&|^~.:#?".contains(&c);
    (word(x) && word(y))
        || (op(x) && op(y))
        || (word(x) && matches!(y, b'"' | b'\'' | b'.'))
        || (x == b'.' && y.is_ascii_digit())
}

/// A stretch of the input copied unchanged into a rendering: `src[src.0..src.1]` sits at
/// `out_start` of the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy {
    pub src: (usize, usize),
    pub out_start: usize,
}

/// A change between the input and a rendering: input bytes `old` became output bytes `new`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Splice {
    pub old: std::ops::Range<usize>,
    pub new: std::ops::Range<usize>,
}

/// Where the renderer copies input to output; a no-op for plain rendering.
trait Record {
    fn copied(&mut self, src_start: usize, src_end: usize, out_start: usize);
}

impl Record for () {
    fn copied(&mut self, _: usize, _: usize, _: usize) {}
}

impl Record for Vec<Copy> {
    fn copied(&mut self, src_start: usize, src_end: usize, out_start: usize) {
        if src_start == src_end {
            return;
        }
        if let Some(last) = self.last_mut()
            && last.src.1 == src_start
            && last.out_start + (last.src.1 - last.src.0) == out_start
        {
            last.src.1 = src_end;
            return;
        }
        self.push(Copy {
            src: (src_start, src_end),
            out_start,
        });
    }
}

/// The changes from an input of `src_len` bytes to an output of `out_len` bytes, given the
/// stretches copied unchanged (in order): the complement of the copies, in order.
pub fn splices(copies: &[Copy], src_len: usize, out_len: usize, into: &mut Vec<Splice>) {
    into.clear();
    let (mut src_at, mut out_at) = (0, 0);
    for c in copies {
        if c.src.0 > src_at || c.out_start > out_at {
            into.push(Splice {
                old: src_at..c.src.0,
                new: out_at..c.out_start,
            });
        }
        src_at = c.src.1;
        out_at = c.out_start + (c.src.1 - c.src.0);
    }
    if src_len > src_at || out_len > out_at {
        into.push(Splice {
            old: src_at..src_len,
            new: out_at..out_len,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str, words: &[&str]) -> Tokens {
        let mut spans = Vec::new();
        let mut pos = 0;
        for w in words {
            let at = src[pos..].find(w).unwrap() + pos;
            spans.push((at as u32, (at + w.len()) as u32));
            pos = at + w.len();
        }
        Tokens::new(src.as_bytes().to_vec(), spans)
    }

    /// A small program with comments, blank lines and indentation, and its tokens.
    fn sample() -> (&'static str, Tokens) {
        let src = "  int  x = (y);\n\n  // c\nreturn(x);\n";
        let words = [
            "int", "x", "=", "(", "y", ")", ";", "// c", "return", "(", "x", ")", ";",
        ];
        (src, toks(src, &words))
    }

    #[test]
    fn keeping_every_token_gives_the_input_back() {
        let (src, t) = sample();
        let all: Vec<Unit> = (0..t.len() as Unit).collect();
        assert_eq!(t.render(&all), src.as_bytes());
    }

    #[test]
    fn tokens_never_glue_across_a_deletion() {
        let t = toks("return(x);", &["return", "(", "x", ")", ";"]);
        assert_eq!(t.render(&[0, 2, 4]), b"return x;");
        let t = toks("a - (-b)", &["a", "-", "(", "-", "b", ")"]);
        assert_eq!(t.render(&[0, 1, 3, 4]), b"a - -b");
    }

    #[test]
    fn a_removed_newline_is_written_back_with_the_indentation() {
        let t = toks(
            "#define A 1\n#define B 2\n  f();\n",
            &[
                "#define", "A", "1", "\n", "#define", "B", "2", "\n", "f", "(", ")", ";",
            ],
        );
        assert_eq!(
            t.render(&[0, 1, 2, 3, 8, 9, 10, 11]),
            b"#define A 1\n\n  f();\n"
        );
    }

    #[test]
    fn lines_and_chars_tile_the_input() {
        let s = Segments::lines(b"a\nbb\nc".to_vec());
        assert_eq!(s.spans, vec![(0, 2), (2, 5), (5, 6)]);
        assert_eq!(s.render(&[0, 2]), b"a\nc");
        let c = Segments::chars("hé!".as_bytes().to_vec());
        assert_eq!(c.len(), 3);
        assert_eq!(c.render(&[1]), "é".as_bytes());
    }

    /// Splicing the recorded changes into the input gives the rendering back, for every subset
    /// of a small program's tokens.
    #[test]
    fn recorded_splices_turn_the_input_into_the_rendering() {
        let (_, t) = sample();
        let (mut out, mut copies, mut list) = (Vec::new(), Vec::new(), Vec::new());
        for mask in 0u32..(1 << t.len()) {
            let config: Vec<Unit> = (0..t.len() as Unit)
                .filter(|&i| mask >> i & 1 == 1)
                .collect();
            t.render_recording(&config, &mut out, &mut copies);
            assert_eq!(out, t.render(&config));
            splices(&copies, t.src.len(), out.len(), &mut list);
            let mut rebuilt = Vec::new();
            let mut at = 0;
            for s in &list {
                rebuilt.extend_from_slice(&t.src[at..s.old.start]);
                rebuilt.extend_from_slice(&out[s.new.clone()]);
                at = s.old.end;
            }
            rebuilt.extend_from_slice(&t.src[at..]);
            assert_eq!(rebuilt, out, "config {config:?}");
            if config.len() == t.len() {
                assert!(list.is_empty(), "keeping everything changes nothing");
            }
        }
    }
}
