//! The generic rewrite passes on tiny programs of every language that has a grammar: each test
//! runs the other passes to their fixpoint first, so the pass under test is the only way left
//! to get smaller ([`shrink_with`]).

use super::pairs::BalancedPairs;
use super::smallest::Smallest;
use super::subsets::WindowSubsets;
use super::tests::{parse_in, shrink_with};
use crate::lang::{LangSpec, by_name};

fn spec(name: &str) -> &'static LangSpec {
    by_name(name).unwrap_or_else(|| panic!("{name} is in the registry"))
}

fn parses(spec: &LangSpec, s: &str) -> bool {
    !parse_in(spec, s).root_node().has_error()
}

/// A call `crash(12345)` in each language: the test wants `crash` called with an argument.
const CALLS: [(&str, &str, &str); 7] = [
    ("python", "crash(12345)\n", "crash(0)\n"),
    ("rust", "fn m() { crash(12345); }\n", "fn m() { crash(0)}\n"),
    ("javascript", "crash(12345);\n", "crash(0)\n"),
    ("typescript", "crash(12345);\n", "crash(0)\n"),
    (
        "go",
        "package p\nfunc m() { crash(12345) }\n",
        "package p\nfunc m() { crash(0) }\n",
    ),
    (
        "java",
        "class A { void m() { crash(12345); } }\n",
        "class A { void m() { crash(0); } }\n",
    ),
    ("lua", "crash(12345)\n", "crash(0)\n"),
];

#[test]
fn only_smallest_of_kind_turns_a_call_argument_into_zero() {
    for (name, src, want) in CALLS {
        let l = spec(name);
        // the code around the call stays (tree-sitter also reads a bare `{ ... }` file)
        let head = &src[..src.find("crash").expect("a call")];
        let keep = |s: &str| {
            parses(l, s) && s.starts_with(head) && s.contains("crash(") && !s.contains("crash()")
        };
        assert_eq!(shrink_with(l, src, &Smallest, &keep), want, "{name}");
    }
}

#[test]
fn only_smallest_of_kind_empties_a_json_string() {
    let l = spec("json");
    let keep = |s: &str| parses(l, s) && s.contains("\"a\"");
    let out = shrink_with(l, "{\"a\": \"a long value\"}\n", &Smallest, &keep);
    assert_eq!(out, "{\"a\": 0}\n");
}

#[test]
fn only_smallest_of_kind_turns_an_if_into_its_block_in_brace_languages() {
    // the test wants the call and no `if`: the head is 4 tokens, no shorter window parses
    let cases = [
        (
            "rust",
            "fn m() { if a == b { f(); } }\n",
            "fn m() { { f(); } }\n",
        ),
        ("javascript", "if (a == b) { f(); }\n", "{ f(); }\n"),
        (
            "java",
            "class A { void m() { if (a == b) { f(); } } }\n",
            "class A { void m() { { f(); } } }\n",
        ),
        ("lua", "if a == b then f() end\n", "f()\n"),
    ];
    for (name, src, want) in cases {
        let l = spec(name);
        let head = &src[..src.find("if").expect("an if")];
        let keep = |s: &str| {
            s == src
                || parses(l, s) && s.starts_with(head) && s.contains("f()") && !s.contains("if")
        };
        assert_eq!(shrink_with(l, src, &Smallest, &keep), want, "{name}");
    }
}

#[test]
fn only_a_typescript_annotation_or_type_shrinks_by_smallest_of_kind() {
    let l = spec("typescript");
    // the test wants `x` declared with its annotation whole or without one
    let keep = |s: &str| {
        let annotation = s.contains(": Map<string, number>;") || !s.contains(':');
        parses(l, s) && s.contains("let x") && annotation
    };
    let out = shrink_with(l, "let x: Map<string, number>;\n", &Smallest, &keep);
    assert_eq!(out, "let x;\n");
}

/// The window subsets and the balanced pairs read only tokens: on each language they delete
/// what the test no longer needs when nothing else can.
#[test]
fn window_subsets_and_pairs_shrink_every_language() {
    let cases = [
        ("python", "f(1)\n"),
        ("rust", "fn f() {}\n"),
        ("go", "package p\n"),
        ("bash", "echo 1\n"),
        ("lua", "f(1)\n"),
    ];
    for (name, first) in cases {
        let l = spec(name);
        // `P` must stay and the `Q`s go together: only a non-contiguous subset does that
        let keep = |s: &str| s.starts_with(first) && s.contains('P') && s.matches('Q').count() != 1;
        let out = shrink_with(l, &format!("{first}Q P Q\n"), &WindowSubsets, &keep);
        assert!(!out.contains('Q') && out.contains('P'), "{name}: {out:?}");
    }
    let l = spec("javascript");
    // the call kept, `x` kept and the brackets balanced: only the delimiters of the pair go
    let keep = |s: &str| {
        let balanced = s.matches('[').count() == s.matches(']').count();
        parses(l, s) && s.contains("f(") && s.contains('x') && balanced
    };
    let out = shrink_with(l, "f([ x ]);\n", &BalancedPairs, &keep);
    assert_eq!(out, "f(x )\n");
}

/// A dead function and a used one in each language with an unreferenced pass: every edit the
/// pass lists, applied at once, deletes the dead one and keeps the used one.
#[test]
fn the_unreferenced_pass_deletes_dead_functions_in_every_language_that_has_it() {
    use super::names::Unreferenced;
    use super::tests::apply_all;
    use crate::edits::Pass;
    let programs = [
        (
            "python",
            "def dead():\n    return 1\n\ndef used():\n    return 2\n\nprint(used())\n",
        ),
        (
            "java",
            // (class B is unreferenced too, and goes)
            "class A {\n  int dead() { return 1; }\n  int used() { return 2; }\n  int f = used();\n}\nclass B { A a; }\n",
        ),
        (
            "lua",
            "local function dead() return 1 end\nlocal function used() return 2 end\nprint(used())\n",
        ),
        (
            "javascript",
            // (a function whose every use is a statement goes with it: `used()` is a condition)
            "function dead() { return 1; }\nfunction used() { return 2; }\nif (used()) {}\n",
        ),
    ];
    for (name, src) in programs {
        let l = spec(name);
        let tree = parse_in(l, src);
        let out = apply_all(src, &Unreferenced.edits(&tree, src.as_bytes(), l.rewrite));
        assert!(
            !out.contains("dead") && out.contains("used()"),
            "{name}: {out}"
        );
        assert!(parses(l, &out), "{name}: {out}");
    }
}

/// In the languages without prototypes, definitions-to-declarations turns each function body
/// longer than the table's stub into it: a body that fits every return type (Rust's `{loop{}}`,
/// of type `!`; Java's and TypeScript's throw). A function inside a body goes with it, and a
/// shorter body stays. JavaScript checks no type: its statements go instead.
#[test]
fn a_function_body_becomes_a_stub_that_fits_every_return_type() {
    use super::names::Declarations;
    use super::tests::apply_all;
    use crate::edits::Pass;
    let programs = [
        (
            "rust",
            "fn f(a: u32) -> u32 {\n    fn inner() -> u32 { 7 }\n    a * inner()\n}\n\
             impl S {\n    fn g(&self) -> String { String::from(\"x\") }\n    fn h() {}\n}\n",
            "fn f(a: u32) -> u32 {loop{}}\n\
             impl S {\n    fn g(&self) -> String {loop{}}\n    fn h() {}\n}\n",
        ),
        (
            "java",
            "class A {\n  A(int x) { this.x = x * 2; }\n  int f(int a) { return a * 3 + 1; }\n  void g() {}\n}\n",
            "class A {\n  A(int x) {throw null;}\n  int f(int a) {throw null;}\n  void g() {}\n}\n",
        ),
        (
            "typescript",
            "function f(a: number): string { return String(a * 3); }\n\
             class C {\n  m(): number { return this.n + 1; }\n  k() {}\n}\n",
            "function f(a: number): string {throw 0}\nclass C {\n  m(): number {throw 0}\n  k() {}\n}\n",
        ),
    ];
    for (name, src, want) in programs {
        let l = spec(name);
        let tree = parse_in(l, src);
        let edits = Declarations.edits(&tree, src.as_bytes(), l.rewrite);
        let out = apply_all(src, &edits);
        assert_eq!(out, want, "{name}");
        assert!(parses(l, &out), "{name}: {out}");
    }
    let js = "function f(a) { return a * 3; }\n";
    let tree = parse_in(spec("javascript"), js);
    assert!(
        Declarations
            .edits(&tree, js.as_bytes(), spec("javascript").rewrite)
            .is_empty()
    );
}

/// Identifier merging in the languages whose items are named by a `name` field: one hunk calls
/// `f` where `g` was called and deletes `g`'s definition; functions merge only with functions.
#[test]
fn merging_a_function_into_another_works_in_every_language_that_lists_items() {
    use super::merge::MergeNames;
    use crate::edits::Pass;
    let programs = [
        (
            "python",
            "def f():\n    crash()\ndef g():\n    crash()\nclass C:\n    pass\nf()\ng()\n",
            "def f():\n    crash()\n\nclass C:\n    pass\nf()\nf()\n",
        ),
        (
            "rust",
            "fn f() { crash(); }\nfn g() { crash(); }\nstruct S;\nfn main() { f(); g(); }\n",
            "fn f() { crash(); }\n\nstruct S;\nfn main() { f(); f(); }\n",
        ),
        (
            "javascript",
            "function f() { crash(); }\nfunction g() { crash(); }\nclass C {}\nf(); g();\n",
            "function f() { crash(); }\n\nclass C {}\nf(); f();\n",
        ),
        (
            "java",
            "class A {\n  void f() { crash(); }\n  void g() { crash(); }\n  void m() { f(); g(); }\n}\n",
            "class A {\n  void f() { crash(); }\n  \n  void m() { f(); f(); }\n}\n",
        ),
        (
            "go",
            "package p\nfunc f() { crash() }\nfunc g() { crash() }\nfunc m() { f(); g() }\n",
            "package p\nfunc f() { crash() }\n\nfunc m() { f(); f() }\n",
        ),
        (
            "lua",
            "function f() crash() end\nfunction g() crash() end\nf() g()\n",
            "function f() crash() end\n\nf() f()\n",
        ),
    ];
    for (name, src, want) in programs {
        let l = spec(name);
        let tree = parse_in(l, src);
        let outs: Vec<String> = MergeNames
            .hunks(&tree, src.as_bytes(), l.rewrite)
            .iter()
            .map(|h| super::tests::apply_all(src, h))
            .collect();
        assert!(outs.iter().any(|o| o == want), "{name}: {outs:#?}");
        // a type never takes a function's place
        assert!(
            outs.iter()
                .all(|o| !o.contains("C()") && !o.contains("S()")),
            "{name}: {outs:#?}"
        );
    }
}
