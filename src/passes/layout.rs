//! A readable result: the final file laid out canonically from its tree, one declaration or
//! statement per line, 4-space indentation by block depth, one space around binary operators and
//! after commas, none inside parentheses. Token for token the same program ([`layout`] returns
//! `None` otherwise), and the driver keeps it only if the test still accepts it.

use tree_sitter::{Node, Tree};

use crate::edits::{preorder, text};
use crate::lang::table::RewriteTable;
use crate::tree::render::would_glue;
use crate::tree::ts::count_errors;

/// The canonical layout of `src`, or `None` when the layout would not give back the same tokens
/// or would parse with more errors than `src` (a file with ERROR regions, such as gnu89's
/// implicit-int `main() {}`, is laid out too: the rules only read tokens and their parents).
pub fn layout(tree: &Tree, src: &[u8], t: &RewriteTable) -> Option<Vec<u8>> {
    let leaves = leaves(tree, t);
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut newline = false;
    // the previous token opened a short body: one space after its `{`
    let mut opened_short = false;
    for (i, &n) in leaves.iter().enumerate() {
        let tok = text(n, src);
        let brace = matches!(tok, b"{" | b"}");
        let empty = brace && empty_block(n);
        let short = brace && !empty && short_body(n, src, t);
        let closes = tok == b"}" && opens_block(n, t) && !short && !empty;
        depth -= usize::from(closes && depth > 0);
        if i > 0 {
            if newline || closes {
                trim_blanks(&mut out);
                out.push(b'\n');
                out.extend(std::iter::repeat_n(b' ', 4 * depth));
            } else if tok == b"}" && empty {
                // `{}`: nothing between an empty block's braces
            } else if spaced(leaves[i - 1], n, src, t)
                || would_glue(&out, tok, b"")
                || (tok == b"}" && short)
                || opened_short
            {
                out.push(b' ');
            }
        }
        out.extend_from_slice(tok);
        let next = leaves.get(i + 1).copied();
        depth += usize::from(tok == b"{" && opens_block(n, t) && !short && !empty);
        newline = !(tok == b"{" && empty) && ends_line(n, next, src, t);
        opened_short = tok == b"{" && short;
    }
    trim_blanks(&mut out);
    out.push(b'\n');
    let (again, errors) = reparse(&out, &tree.language(), t)?;
    let same = tokens(tree, src, t) == again && errors <= count_errors(tree).0;
    same.then_some(out)
}

/// The fewest-bytes layout of `src` (`--compact`): a space only where two tokens would read as
/// one, a line break only where the language needs one (around a preprocessor directive, after
/// a comment). `None` as for [`layout`]: when the result would not give back the same tokens,
/// or would parse with more errors (a language whose line breaks end statements, such as Go).
pub fn compact(tree: &Tree, src: &[u8], t: &RewriteTable) -> Option<Vec<u8>> {
    let leaves = leaves(tree, t);
    let mut out = Vec::new();
    for (i, &n) in leaves.iter().enumerate() {
        let tok = text(n, src);
        if let Some(&prev) = i.checked_sub(1).and_then(|j| leaves.get(j)) {
            let (p, q) = (preproc_of(prev, t), preproc_of(n, t));
            let directive_ends = p.is_some() && (q != p || n.kind().starts_with('#'));
            if directive_ends || q.is_some() && p != q || prev.kind() == t.comment {
                out.push(b'\n');
            } else if joins(text(prev, src), tok) {
                out.push(b' ');
            }
        }
        out.extend_from_slice(tok);
    }
    out.push(b'\n');
    let (again, errors) = reparse(&out, &tree.language(), t)?;
    let same = tokens(tree, src, t) == again && errors <= count_errors(tree).0;
    same.then_some(out)
}

/// `src` without blank lines and without blanks at the ends of its lines.
pub fn squeeze(src: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(src.len());
    for line in src.split(|&c| c == b'\n') {
        let line = line.trim_ascii_end();
        if !line.is_empty() {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
    }
    out
}

/// Would `b` written right after `a` read as other tokens? Words run together (`$` counts as a
/// word character, as in JavaScript), so do operators (`- -`, `/ *`); a word prefixes a string
/// or character (`L"x"`); a number takes a `.`, a `.` takes a digit.
fn joins(a: &[u8], b: &[u8]) -> bool {
    let (Some(&x), Some(&y)) = (a.last(), b.first()) else {
        return false;
    };
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    let op = |c: u8| b"+-*/%<>=!&|^~.:#?@".contains(&c);
    let number = a.first().is_some_and(u8::is_ascii_digit);
    (word(x) && word(y))
        || (op(x) && op(y))
        || (word(x) && matches!(y, b'"' | b'\''))
        || (number && y == b'.')
        || (x == b'.' && y.is_ascii_digit())
}

/// The tokens the layouts print, in order: leaves, and nodes printed as one piece.
fn leaves<'t>(tree: &'t Tree, t: &RewriteTable) -> Vec<Node<'t>> {
    preorder(tree)
        .filter(|n| is_token(*n, t) && n.start_byte() < n.end_byte())
        .filter(|n| !n.parent().is_some_and(|p| is_token(p, t)))
        .collect()
}

/// A leaf, or a node printed as one piece (string literals, macro bodies, comments).
fn is_token(n: Node, t: &RewriteTable) -> bool {
    n.child_count() == 0 || t.string_literals.contains(&n.kind()) || n.kind() == t.char_literal
}

fn opens_block(brace: Node, t: &RewriteTable) -> bool {
    brace
        .parent()
        .is_some_and(|p| t.block_braces.contains(&p.kind()))
}

fn trim_blanks(out: &mut Vec<u8>) {
    while out.last().is_some_and(|&c| c == b' ') {
        out.pop();
    }
}

/// Does the line end after `n`?
fn ends_line(n: Node, next: Option<Node>, src: &[u8], t: &RewriteTable) -> bool {
    let Some(next) = next else { return false };
    let tok = text(n, src);
    let next_tok = text(next, src);
    let in_preproc = |x| preproc_of(x, t);
    if let Some(p) = in_preproc(n) {
        // a directive ends where its node ends (it owns its newline)
        return in_preproc(next) != Some(p) || next.kind().starts_with("#");
    }
    if in_preproc(next).is_some() || n.kind() == t.comment || next.kind() == t.comment {
        return true;
    }
    let parent = n.parent().map(|p| p.kind());
    if tok == b":" && after_label(n, t) {
        return true;
    }
    match tok {
        b";" if next_tok == b"}" && short_body(next, src, t) => false,
        b";" => parent != Some("for_statement"),
        b"{" => opens_block(n, t) && !short_body(n, src, t),
        // a function body's `}` always ends its line; another `}` is followed on its line by
        // what completes its statement (`} S;`, `} else`, `},`)
        b"}" if closes_function(n, t) || closes_item(n, t) && next_tok != b";" => true,
        b"}" => !matches!(next_tok, b";" | b"," | b")" | b"else") && !is_name(next, t),
        _ => false,
    }
}

/// Whether `brace` is a brace of a function body that holds one short statement without a
/// block: `int f() { return 0; }` stays on one line, as clang-format's LLVM style has it.
fn short_body(brace: Node, src: &[u8], t: &RewriteTable) -> bool {
    let Some(body) = brace.parent() else {
        return false;
    };
    // a function's body, or a block at file level (gnu89's `main() {..}`, misparsed)
    let function_body = body.kind() == t.block
        && body
            .parent()
            .is_some_and(|f| f.kind() == t.function_definition || f.parent().is_none());
    if !function_body || body.named_child_count() != 1 {
        return false;
    }
    let statement = body.named_child(0).expect("one named child");
    let s = text(statement, src);
    statement.kind() != t.comment
        && preproc_of(statement, t).is_none()
        && !statement.kind().starts_with(t.preprocessor_prefix)
        && s.len() <= SHORT_STATEMENT
        && !s.iter().any(|&c| matches!(c, b'{' | b'\n'))
}

/// Whether `brace` is a brace of a block that holds nothing (`{}` stays on its head's line, as
/// clang-format's LLVM style has it).
fn empty_block(brace: Node) -> bool {
    brace.parent().is_some_and(|b| b.child_count() == 2)
}

/// The longest statement a function body keeps on its head's line.
const SHORT_STATEMENT: usize = 40;

fn closes_function(brace: Node, t: &RewriteTable) -> bool {
    brace
        .parent()
        .and_then(|body| body.parent())
        .is_some_and(|f| f.kind() == t.function_definition)
}

/// Whether `brace` ends an item of an item list (a namespace's body): what follows is another
/// item. A struct's `}` does not: its declaration goes on (`} s;`).
fn closes_item(brace: Node, t: &RewriteTable) -> bool {
    let owner = brace.parent().and_then(|body| body.parent());
    owner.is_some_and(|o| {
        o.end_byte() == brace.end_byte()
            && o.parent()
                .is_some_and(|list| t.item_lists.contains(&list.kind()))
    })
}

/// Whether `colon` ends a label that takes a line of its own (`public:`).
fn after_label(colon: Node, t: &RewriteTable) -> bool {
    colon
        .prev_sibling()
        .is_some_and(|p| t.line_labels.contains(&p.kind()))
}

fn is_name(n: Node, t: &RewriteTable) -> bool {
    t.names.contains(&n.kind()) || t.mergeable.contains(&n.kind())
}

/// The preprocessor directive `n` belongs to.
fn preproc_of<'t>(n: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    let mut cur = n.parent();
    while let Some(c) = cur {
        if c.kind().starts_with(t.preprocessor_prefix) {
            return Some(c);
        }
        cur = c.parent();
    }
    None
}

/// One space between `a` and `b` on a line?
fn spaced(a: Node, b: Node, src: &[u8], t: &RewriteTable) -> bool {
    let (x, y) = (text(a, src), text(b, src));
    let binary = |n: Node| {
        !n.is_named()
            && n.parent()
                .is_some_and(|p| t.binary_parents.contains(&p.kind()))
    };
    if matches!(y, b";" | b"," | b")" | b"]" | b"}") || matches!(x, b"(" | b"[" | b"{") {
        return false;
    }
    if y == b":" && after_label(b, t) {
        return false;
    }
    // C++: `a::b`, `vector<int> v`
    let angle = |n: Node| {
        n.parent()
            .is_some_and(|p| t.angle_lists.contains(&p.kind()))
    };
    let tight = |s: &[u8]| t.tight_tokens.iter().any(|k| k.as_bytes() == s);
    if tight(x) || tight(y) || angle(b) || x == b"<" && angle(a) {
        return false;
    }
    if x == b">" && angle(a) {
        return y != b"(";
    }
    if y == b"(" {
        // `while (`, `a && (b)`; not `f(`
        return t.keywords_before_paren.contains(&a.kind()) || binary(a);
    }
    let word = x
        .last()
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
    let tight = matches!(y, b"(" | b"[" | b"." | b"->" | b"++" | b"--");
    matches!(x, b"," | b";")
        || binary(a)
        || binary(b)
        || y == b"{"
        || x == b"}"
        || (x == b")" || word) && !tight
}

/// The token texts of the tree, for the same-program check.
fn tokens<'s>(tree: &Tree, src: &'s [u8], t: &RewriteTable) -> Vec<&'s [u8]> {
    preorder(tree)
        .filter(|n| is_token(*n, t) && !n.parent().is_some_and(|p| is_token(p, t)))
        .map(|n| text(n, src))
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_ascii())
        .collect()
}

/// The token texts and the error count of `out` parsed afresh.
fn reparse<'o>(
    out: &'o [u8],
    language: &tree_sitter::Language,
    t: &RewriteTable,
) -> Option<(Vec<&'o [u8]>, usize)> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(language).ok()?;
    let tree = parser.parse(out, None)?;
    Some((tokens(&tree, out, t), count_errors(&tree).0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::parse;

    fn laid_out(src: &str) -> String {
        let tree = parse(src);
        String::from_utf8(layout(&tree, src.as_bytes(), &C).expect("a layout")).unwrap()
    }

    fn compacted(src: &str) -> Option<String> {
        let tree = parse(src);
        compact(&tree, src.as_bytes(), &C).map(|o| String::from_utf8(o).unwrap())
    }

    #[test]
    fn the_compact_layout_spaces_only_what_would_join() {
        assert_eq!(
            compacted("main()\n{ crash(); }\n").as_deref(),
            Some("main(){crash();}\n")
        );
        assert_eq!(
            compacted("int f(int a, int b) {\n    return a - -b + s.x + 1.5 + *p / *q;\n}\n")
                .as_deref(),
            Some("int f(int a,int b){return a- -b+s.x+1.5+ *p/ *q;}\n")
        );
        assert_eq!(
            compacted("wchar_t *w = L \"x\";\n").as_deref(),
            Some("wchar_t*w=L \"x\";\n")
        );
    }

    #[test]
    fn squeezing_drops_blank_lines_and_trailing_blanks_only() {
        assert_eq!(squeeze(b"a(\n\n  b(  \n\n"), b"a(\n  b(\n");
    }

    #[test]
    fn the_compact_layout_keeps_directives_on_their_lines_and_refuses_a_changed_program() {
        assert_eq!(
            compacted("#define N 3\nint a[N];\n#include <x.h>\nint b;\n").as_deref(),
            Some("#define N 3\nint a[N];\n#include<x.h>\nint b;\n")
        );
        // `X (1)` would become the function-like macro `X(1)`: not the same tokens
        assert_eq!(compacted("#define X (1)\nint a = X;\n"), None);
    }

    #[test]
    fn a_function_gets_one_statement_per_line() {
        assert_eq!(
            laid_out("int main()\n{ crash(); crash();}"),
            "int main() {\n    crash();\n    crash();\n}\n"
        );
        assert_eq!(
            laid_out("int f(int a,int b){if(a<b){return a+b;}else return -a;}"),
            "int f(int a, int b) {\n    if (a < b) {\n        return a + b;\n    } else return -a;\n}\n"
        );
        // an operator before a parenthesis is still an operator
        assert_eq!(
            laid_out("int g(int i,int c){while(i&&(c=0));return c*(i);}"),
            "int g(int i, int c) {\n    while (i && (c = 0));\n    return c * (i);\n}\n"
        );
    }

    #[test]
    fn an_empty_block_stays_on_its_head_line() {
        assert_eq!(
            laid_out("void f(int b)\n{\n}\nint g(int a){if(a){}\nwhile(a){\n}return a;}"),
            "void f(int b) {}\nint g(int a) {\n    if (a) {}\n    while (a) {}\n    return a;\n}\n"
        );
        assert_eq!(laid_out("struct S{};"), "struct S {};\n");
    }

    #[test]
    fn declarations_structs_and_directives_keep_their_shape() {
        assert_eq!(
            laid_out("#define N 3\ntypedef struct{int x;int *p;} S;S s={1,0};\n"),
            "#define N 3\ntypedef struct {\n    int x;\n    int *p;\n} S;\nS s = {1, 0};\n"
        );
    }

    #[test]
    fn cpp_names_and_template_arguments_stay_tight() {
        use crate::lang::cpp::CPP;
        use crate::passes::tests::parse_cpp;
        let src = "namespace n { template < class T > struct V { T x ; } ; }\nn :: V < int > v ;\n";
        let out = layout(&parse_cpp(src), src.as_bytes(), &CPP).expect("a layout");
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("template<class T> struct V {"), "{out}");
        assert!(out.ends_with("n::V<int> v;\n"), "{out}");
    }

    #[test]
    fn a_namespace_ends_its_line_and_an_access_label_takes_its_own() {
        use crate::lang::cpp::CPP;
        use crate::passes::tests::parse_cpp;
        let src = "namespace n { class S { public : int f(); }; } n::S *s;\n";
        let out = layout(&parse_cpp(src), src.as_bytes(), &CPP).expect("a layout");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "namespace n {\n    class S {\n        public:\n        int f();\n    };\n}\nn::S *s;\n"
        );
    }

    #[test]
    fn files_with_error_regions_keep_their_tokens_and_parse_no_worse() {
        let broken = [
            "int main( { x\n#if 1\n#endif\n",
            "int a = \n#define X 1\n 2;",
            "f(a b c) { x y; }",
            "int x; } int y;",
            "a ) b ( c",
            "struct { int a } b;",
            "if (x) {",
        ];
        for src in broken {
            let tree = parse(src);
            let out = layout(&tree, src.as_bytes(), &C).expect("a layout");
            let (tokens_after, errors_after) = reparse(&out, &tree.language(), &C).expect("parses");
            assert_eq!(tokens(&tree, src.as_bytes(), &C), tokens_after, "{src:?}");
            assert!(errors_after <= count_errors(&tree).0, "{src:?}");
        }
    }

    #[test]
    fn a_function_after_a_function_starts_a_new_line() {
        assert_eq!(
            laid_out("int *g(void) { return 0; } void f() { *g() = 0; }"),
            "int *g(void) { return 0; }\nvoid f() { *g() = 0; }\n"
        );
    }

    #[test]
    fn only_a_short_single_statement_body_stays_on_the_head_line() {
        assert_eq!(
            laid_out("int main()\n{ crash();}"),
            "int main() { crash(); }\n"
        );
        assert_eq!(laid_out("int main()\n{ }"), "int main() {}\n");
        let long = "int f() { return aaaaaaaaaa + bbbbbbbbbb + cccccccccc + dddddddddd; }";
        assert!(laid_out(long).contains("{\n    return"));
        assert_eq!(
            laid_out("int f(int a) { if (a) { g(); } }"),
            "int f(int a) {\n    if (a) {\n        g();\n    }\n}\n"
        );
    }

    #[test]
    fn an_implicit_int_function_is_laid_out_despite_its_error_region() {
        assert_eq!(laid_out("main()\n{ crash();}"), "main() { crash(); }\n");
        assert_eq!(
            laid_out("main()\n{ crash(); crash(); }"),
            "main() {\n    crash();\n    crash();\n}\n"
        );
    }
}
