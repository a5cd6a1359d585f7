//! A large C or C++ file cut into runs of whole top-level forms, so that what needs only its
//! top-level forms one by one (the closure's units, the token count) can parse it one piece at a
//! time: tree-sitter's tree takes about 16 to 28 bytes per byte of text, and the tree of a whole
//! preprocessed file was a run's peak memory. Each piece is parsed with
//! tree-sitter's included ranges, so its nodes keep the file's byte offsets.
//!
//! The cut is C-Reduce's topformflat at level 0: brackets are counted outside comments, string
//! and character literals and preprocessor lines, and a form ends at a `;` or a closing `}` at
//! depth 0 (a `}` only where the rest of its line is blank: not in `struct s { .. } x;`).

use std::ops::Range;

use tree_sitter::{Parser, Point, Tree};

/// The grammars whose files are cut: their forms end at `;` and `}` at depth 0.
pub fn cuts(grammar: &str) -> bool {
    matches!(grammar, "c" | "cpp")
}

/// `src` as consecutive pieces of whole top-level forms, each at
/// least `at_least` bytes (the last may be shorter); one piece when no cut is found. The pieces
/// cover `src`.
///
/// Conditional groups count as the preprocessor sees one branch: an `#else` or `#elif` goes
/// back to the count at its `#if`, and the `#endif` takes the count at the end of the first
/// branch (`#ifdef X\n if(a){\n#else\n if(b){\n#endif` opens one brace, not two). A piece
/// may end inside a group (a whole file is often one `#ifndef` group): the group's tree is then
/// cut in two, each half with a parse error at the cut. In a text whose brackets do not balance,
/// a `}` alone at column 0 also ends a form once a piece is four times `at_least`.
pub fn pieces(src: &[u8], at_least: usize) -> Vec<Range<usize>> {
    // per open group: the count at its `#if`, and at the end of its first branch
    let mut groups: Vec<(usize, Option<usize>)> = Vec::new();
    let mut out = Vec::new();
    let mut start = 0;
    let mut depth = 0usize;
    let mut i = 0;
    let n = src.len();
    let line_start = |i: usize| {
        src[..i]
            .iter()
            .rev()
            .take_while(|&&b| b != b'\n')
            .all(|b| b.is_ascii_whitespace())
    };
    // a text no longer than a piece is one piece, without a scan
    while i < n && n > at_least {
        match src[i] {
            b'/' if src.get(i + 1) == Some(&b'/') => i = skip_line(src, i),
            b'/' if src.get(i + 1) == Some(&b'*') => {
                i = find(src, i + 2, b"*/").map_or(n, |e| e + 2);
            }
            b'#' if line_start(i) => {
                let end = skip_line(src, i);
                let word = directive(&src[i + 1..end]);
                if word.starts_with(b"if") {
                    groups.push((depth, None));
                } else if word.starts_with(b"el") {
                    if let Some((at_if, first)) = groups.last_mut() {
                        first.get_or_insert(depth);
                        depth = *at_if;
                    }
                } else if word == b"endif"
                    && let Some((_, first)) = groups.pop()
                {
                    depth = first.unwrap_or(depth);
                }
                i = end;
            }
            b'R' if src.get(i + 1) == Some(&b'"') && !ident_byte(src, i.wrapping_sub(1)) => {
                i = skip_raw_string(src, i + 2);
            }
            b'0'..=b'9' if !ident_byte(src, i.wrapping_sub(1)) => i = skip_number(src, i),
            q @ (b'"' | b'\'') => i = skip_quoted(src, i + 1, q),
            b'{' | b'(' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b')' | b']' => {
                let brace = src[i] == b'}';
                let column_0 = i == 0 || src[i - 1] == b'\n';
                depth = depth.saturating_sub(1);
                i += 1;
                if brace && ends_form(src, i) {
                    // a text whose brackets do not balance (a reduction's, cut inside a group
                    // or a function) would be one piece from there on: a `}` alone at column 0
                    // ends a form once the piece is long overdue
                    if depth > 0 && column_0 && i - start >= 4 * at_least {
                        depth = 0;
                        groups.clear();
                    }
                    if depth == 0 && i - start >= at_least {
                        out.push(start..i);
                        start = i;
                    }
                }
            }
            b';' => {
                i += 1;
                if depth == 0 && i - start >= at_least {
                    out.push(start..i);
                    start = i;
                }
            }
            _ => i += 1,
        }
    }
    if start < n || out.is_empty() {
        out.push(start..n);
    }
    out
}

/// The trees of the pieces `ranges` (in order) of `src`, each parsed alone with the file's byte
/// offsets and positions; `None` for a piece whose parse was cancelled.
pub fn parse_pieces<'a>(
    parser: &'a mut Parser,
    src: &'a [u8],
    ranges: Vec<Range<usize>>,
) -> impl Iterator<Item = Option<Tree>> + 'a {
    let (mut at, mut point) = (0, Point { row: 0, column: 0 });
    let mut advance = move |to: usize| {
        for &b in &src[at..to] {
            match b {
                b'\n' => (point.row, point.column) = (point.row + 1, 0),
                _ => point.column += 1,
            }
        }
        at = to;
        point
    };
    ranges.into_iter().map(move |range| {
        let ts_range = tree_sitter::Range {
            start_byte: range.start,
            end_byte: range.end,
            start_point: advance(range.start),
            end_point: advance(range.end),
        };
        parser.set_included_ranges(&[ts_range]).ok()?;
        let tree = parser.parse(src, None);
        parser.set_included_ranges(&[]).ok()?;
        tree
    })
}

/// After a `}` at depth 0 (at `i`): the form ends where the rest of the line is blank (not
/// before the declarator of `struct s { .. } x;`, nor before a comment, to be safe).
fn ends_form(src: &[u8], i: usize) -> bool {
    let rest = &src[i..];
    let next = rest
        .iter()
        .position(|&b| b != b' ' && b != b'\t' && b != b'\r');
    match next.map(|p| rest[p]) {
        None | Some(b'\n') => true,
        Some(_) => false,
    }
}

/// The directive's name: `if`, `ifdef`, `elif`, `else`, `endif`, ...
fn directive(line: &[u8]) -> &[u8] {
    let word = line.trim_ascii_start();
    let len = word.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    &word[..len]
}

fn ident_byte(src: &[u8], i: usize) -> bool {
    src.get(i)
        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

fn find(src: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    src.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The end of the line at `i`, past backslash-newlines (a preprocessor line or a `//` comment).
fn skip_line(src: &[u8], mut i: usize) -> usize {
    while i < src.len() {
        match src[i] {
            b'\\' if src.get(i + 1) == Some(&b'\n') => i += 2,
            b'\n' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Past the closing `q` of a literal whose body starts at `i` (not past a newline: an
/// unterminated literal ends at its line, as the compiler would report it).
fn skip_quoted(src: &[u8], mut i: usize, q: u8) -> usize {
    while i < src.len() {
        match src[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            b if b == q => return i + 1,
            _ => i += 1,
        }
    }
    i.min(src.len())
}

/// Past a number starting at `i` (a preprocessing number: `1'000`, `0x1.8p-3`, `10ull`),
/// so that a C++14 digit separator does not start a character literal.
fn skip_number(src: &[u8], mut i: usize) -> usize {
    i += 1;
    while let Some(&b) = src.get(i) {
        match b {
            b'\'' if ident_byte(src, i + 1) => i += 2,
            b'+' | b'-' if matches!(src[i - 1], b'e' | b'E' | b'p' | b'P') => i += 1,
            b'.' => i += 1,
            _ if ident_byte(src, i) => i += 1,
            _ => break,
        }
    }
    i
}

/// Past a C++ raw string `R"delim( .. )delim"` whose delimiter starts at `i`.
fn skip_raw_string(src: &[u8], i: usize) -> usize {
    let Some(open) = src[i..].iter().take(17).position(|&b| b == b'(') else {
        return i;
    };
    let mut close = vec![b')'];
    close.extend_from_slice(&src[i..i + open]);
    close.push(b'"');
    find(src, i + open + 1, &close).map_or(src.len(), |e| e + close.len())
}

/// A C file of at least `len` bytes that cuts into pieces: functions that call each other,
/// structs, conditional groups, and one parse error at its end (a missing `;` in `main`).
#[cfg(test)]
pub fn large_c(len: usize) -> Vec<u8> {
    let mut text = Vec::new();
    let mut i = 0;
    while text.len() < len {
        let form = match i % 3 {
            0 => format!("int f{i}(int a) {{ return a + f{}(a); }}\n", i / 2),
            1 => format!("struct s{i} {{ int x; }} v{i};\n"),
            _ => format!(
                "#ifdef X{i}\nint g{i}(void) {{ return v{}.x; }}\n#else\nint g{i};\n#endif\n",
                i - 1
            ),
        };
        text.extend_from_slice(form.as_bytes());
        i += 1;
    }
    text.extend_from_slice(b"int main(void) { return f3(1) }\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(src: &str, at_least: usize) -> Vec<&str> {
        let pieces = pieces(src.as_bytes(), at_least);
        assert_eq!(pieces.first().map(|r| r.start), Some(0));
        assert_eq!(pieces.last().map(|r| r.end), Some(src.len()));
        assert!(
            pieces.windows(2).all(|w| w[0].end == w[1].start),
            "{pieces:?}"
        );
        pieces.into_iter().map(|r| &src[r]).collect()
    }

    #[test]
    fn forms_end_at_top_level_semicolons_and_braces() {
        let src = "int a;\nint f(void) { return a; }\nstruct s { int x; } v;\nint b;\n";
        assert_eq!(
            cut(src, 1),
            [
                "int a;",
                "\nint f(void) { return a; }",
                "\nstruct s { int x; } v;",
                "\nint b;",
                "\n"
            ]
        );
        // a piece takes forms until it has its size
        assert_eq!(
            cut(src, 20),
            [
                "int a;\nint f(void) { return a; }",
                "\nstruct s { int x; } v;",
                "\nint b;\n"
            ]
        );
        assert_eq!(cut(src, 1000), [src]);
    }

    #[test]
    fn literals_comments_and_directives_do_not_count() {
        let src = concat!(
            "#define X(a) { a;\n",
            "char *s = \"};\\\"{\";\n",
            "char c = '{';\n",
            "/* } ; */ // };\n",
            "const char *r = R\"x(};)\")x\";\n",
            "namespace n {\nint k;\n}\n",
            "long m = 1'000 + 0x1p-3 + u8'a' + L'}';\n",
            "int z;\n"
        );
        let pieces = cut(src, 1);
        assert_eq!(
            pieces,
            [
                "#define X(a) { a;\nchar *s = \"};\\\"{\";",
                "\nchar c = '{';",
                "\n/* } ; */ // };\nconst char *r = R\"x(};)\")x\";",
                "\nnamespace n {\nint k;\n}",
                "\nlong m = 1'000 + 0x1p-3 + u8'a' + L'}';",
                "\nint z;",
                "\n"
            ]
        );
    }

    #[test]
    fn a_conditional_group_counts_one_branch() {
        let src = "int f(int a) {\n#ifdef X\n  if (a) {\n#else\n  if (!a) {\n#endif\n    return 1;\n  }\n  return 0;\n}\n#if Y\nint c;\nint d;\n#endif\nint b;\n";
        let cut = cut(src, 1);
        assert_eq!(cut.len(), 5, "{cut:?}");
        assert!(cut[0].ends_with("return 0;\n}"));
        assert_eq!(
            cut[1..],
            ["\n#if Y\nint c;", "\nint d;", "\n#endif\nint b;", "\n"]
        );
    }

    #[test]
    fn a_closing_brace_at_column_0_ends_a_form_when_the_count_is_off() {
        // a reduction left an `if` of two branches with one brace: the count is one too high
        // from there on
        let mut src = String::from("void g(void) {\n#if\n  if (x) {\n  {\n  y();\n}\n");
        for i in 0..12 {
            src.push_str(&format!("int f{i}(void)\n{{\n  return {i};\n}}\n"));
        }
        let got = cut(&src, 40);
        assert!(got.len() > 3, "{got:?}");
        // the first piece waits for four times its size, then every piece ends at a `}`
        assert!(got[0].len() >= 160, "{got:?}");
        for piece in &got[..got.len() - 1] {
            assert!(piece.ends_with("\n}"), "{piece:?}");
        }
        // before four times the piece's size, a `}` at column 0 inside a form ends nothing
        let nested = "int h(void) {\n  if (x) {\n}\n  return 0;\n}\nint k;\n";
        assert_eq!(
            cut(nested, 20),
            ["int h(void) {\n  if (x) {\n}\n  return 0;\n}", "\nint k;\n"]
        );
    }

    #[test]
    fn a_piece_parses_with_the_files_offsets() {
        let front = crate::tree::front::Front::by_name("c").unwrap();
        let crate::tree::front::Front::Grammar(g) = front else {
            panic!("a grammar")
        };
        let mut parser = crate::tree::ts::new_parser(&g).unwrap();
        let src = b"int a;\nint f(void) { return a; }\n";
        let mut trees = parse_pieces(&mut parser, src, vec![0..6, 6..src.len()]);
        assert_eq!(trees.next().unwrap().unwrap().root_node().end_byte(), 6);
        let tree = trees.next().unwrap().unwrap();
        drop(trees);
        let root = tree.root_node();
        assert!(!root.has_error());
        let f = root.named_child(0).unwrap();
        assert_eq!(f.kind(), "function_definition");
        assert_eq!((f.start_byte(), f.start_position().row), (7, 1));
        // the parser parses whole texts again afterwards
        let whole = crate::tree::ts::parse_tree(&mut parser, src).unwrap();
        assert_eq!(whole.root_node().named_child_count(), 2);
    }
}
