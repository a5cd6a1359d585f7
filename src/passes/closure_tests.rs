//! Tests of the keep-closure units ([`super`]).

use super::*;
use crate::edits::EditSpace;
use crate::engine::{FnOracle, reduce};
use crate::lang::c::C;
use crate::lang::cpp::CPP;
use crate::passes::tests::{parse, parse_cpp};
use crate::policy::Unit;
use crate::policy::closure::KeepClosure;
use std::rc::Rc;

/// Reduces `src` with the closure pass under a test that wants `needle` in the text.
fn keep(src: &str, t: &RewriteTable, tree: &Tree, needle: &str) -> String {
    keep_with(src, t, tree, needle, false, false)
}

fn keep_split(src: &str, t: &RewriteTable, tree: &Tree, needle: &str, split: bool) -> String {
    keep_with(src, t, tree, needle, split, false)
}

fn keep_with(
    src: &str,
    t: &RewriteTable,
    tree: &Tree,
    needle: &str,
    split: bool,
    members: bool,
) -> String {
    let u = units(tree, src.as_bytes(), t, split, members);
    let mut space = EditSpace::new(src.as_bytes().to_vec());
    space.next_layer(&[], u.hunks);
    let mut policy = KeepClosure::new(Rc::new(u.deps), 8).with_roots(u.fixed);
    let rendered = |c: &[Unit]| String::from_utf8(space.render(c)).unwrap();
    let mut oracle = FnOracle(|c: &[Unit]| rendered(c).contains(needle));
    let kept = reduce(space.all_units(), &mut oracle, &mut policy);
    rendered(&kept)
}

#[test]
fn c_keeps_the_needed_function_and_what_it_uses() {
    let src = "typedef int T;\nstruct s { T a; };\nint unused(void) { return 7; }\nstatic int g;\nint helper(struct s *p) { return p->a + g; }\nint other(void) { return unused(); }\nint bug(void) { struct s v; return helper(&v); }\n";
    let out = keep(src, &C, &parse(src), "int bug");
    assert_eq!(
        out.split_whitespace().collect::<Vec<_>>().join(" "),
        "typedef int T; struct s { T a; }; static int g; int helper(struct s *p) { return p->a + g; } int bug(void) { struct s v; return helper(&v); }"
    );
}

#[test]
fn cpp_opens_namespaces_and_keeps_classes_whole() {
    let src = "namespace std { typedef unsigned long size_t; struct pair { int a; }; int dead(); }\nnamespace app { class W { int n; int f(std::size_t k) const; }; }\nint app::W::f(std::size_t k) const { return k; }\n";
    let out = keep(src, &CPP, &parse_cpp(src), "return k;");
    assert!(out.contains("typedef unsigned long size_t;"), "{out}");
    assert!(out.contains("class W { int n;"), "{out}");
    assert!(!out.contains("pair") && !out.contains("dead"), "{out}");
    assert!(out.contains("namespace std {"), "{out}");
}

#[test]
fn items_with_unbalanced_brackets_stay() {
    // tree-sitter-c reads the stray `}` as an item of its own
    let src = "int a;\n}\nint b;\nint bug;\n";
    let tree = parse(src);
    let u = units(&tree, src.as_bytes(), &C, false, false);
    assert_eq!(u.hunks.len(), 4, "{:?}", tree.root_node().to_sexp());
    let out = keep(src, &C, &tree, "bug");
    assert!(
        out.contains('}') && out.contains("bug") && !out.contains("int b;"),
        "{out}"
    );
}

#[test]
fn a_using_declaration_declares_its_name() {
    let src = "namespace n { enum E { LIT }; }\nnamespace m { using n::LIT; int other; int bug() { return LIT; } }\n";
    let out = keep(src, &CPP, &parse_cpp(src), "return LIT");
    assert!(
        out.contains("using n::LIT;") && out.contains("enum E"),
        "{out}"
    );
    assert!(!out.contains("other"), "{out}");
}

#[test]
fn an_operator_goes_with_the_types_of_its_parameters() {
    let src = "enum E { A, B };\nstruct F { int x; };\nconstexpr E operator&(E a, E b) { return E(int(a) & int(b)); }\nint bug(E e) { return e & e; }\n";
    let out = keep(src, &CPP, &parse_cpp(src), "int bug");
    assert!(
        out.contains("operator&") && !out.contains("struct F"),
        "{out}"
    );
}

#[test]
fn the_head_of_a_misparsed_namespace_stays() {
    let src = "namespace std __attribute__ ((__visibility__ (\"default\"))) {\n  typedef unsigned long size_t;\n  int dead;\n}\nint bug(std::size_t n);\n";
    let out = keep(src, &CPP, &parse_cpp(src), "int bug");
    assert!(out.contains("namespace std __attribute__"), "{out}");
    assert!(out.contains("size_t;") && !out.contains("dead"), "{out}");
}

#[test]
fn a_using_declaration_uses_what_it_names() {
    let src = "extern \"C++\" int wm(int);\nint other;\nnamespace std { using ::wm; }\nint bug() { return std::wm(1); }\n";
    let out = keep(src, &CPP, &parse_cpp(src), "int bug");
    assert!(
        out.contains("int wm(int)") && !out.contains("other"),
        "{out}"
    );
}

#[test]
fn split_bodies_keep_only_the_needed_body() {
    let src = "struct big { int x; };\nint helper(struct big *b) { return b->x; }\nint caller(void) { return helper(0); }\nint bug(void) { return caller(); }\n";
    let whole = keep(src, &C, &parse(src), "int bug");
    assert!(whole.contains("return b->x"), "{whole}");
    let split = keep_split(src, &C, &parse(src), "return caller();", true);
    assert!(split.contains("int caller(void) ;"), "{split}");
    assert!(
        !split.contains("helper") && !split.contains("big"),
        "{split}"
    );
    assert!(split.contains("return caller();"), "{split}");
}

#[test]
fn constexpr_and_auto_bodies_stay_with_their_heads() {
    let src = "constexpr int k() { return 1; }\nauto d() { return 2; }\nint f() { return 3; }\n";
    let tree = parse_cpp(src);
    let u = units(&tree, src.as_bytes(), &CPP, true, false);
    assert_eq!(u.hunks.len(), 5, "{:?}", u.hunks);
}

#[test]
fn an_out_of_line_member_goes_whole_and_keeps_its_declaration() {
    let src = "struct W { int f(); int g(); };\nint W::f() { return 1; }\nint W::g() { return 2; }\nint bug(W w) { return w.f() + w.g(); }\n";
    let out = keep_split(src, &CPP, &parse_cpp(src), "return 2;", true);
    assert!(out.contains("int W::g() { return 2; }"), "{out}");
    assert!(!out.contains("W::f()") && !out.contains("bug"), "{out}");
    assert!(out.contains("struct W { int f(); int g(); };"), "{out}");
    // with the members opened, the member it defines stays in the class, the other goes
    let out = keep_with(src, &CPP, &parse_cpp(src), "return 2;", true, true);
    assert!(
        out.contains("int g();") && !out.contains("int f();"),
        "{out}"
    );
}

#[test]
fn an_out_of_line_nested_class_keeps_its_declaration_in_the_class() {
    let src = "class L { public: class facet; class id; int n; };\nclass L::facet { int bug; };\nclass L::id { int x; };\ntemplate<class T> struct W { struct In; struct Out; };\ntemplate<class T> struct W<T>::In { T bug2; };\n";
    // the test wants both bodies: each keeps the declaration its class has of it, and only
    // that one (without it, each would cost a root of its own)
    let u = units(&parse_cpp(src), src.as_bytes(), &CPP, true, true);
    let mut space = EditSpace::new(src.as_bytes().to_vec());
    space.next_layer(&[], u.hunks);
    let mut policy = KeepClosure::new(Rc::new(u.deps), 8).with_roots(u.fixed);
    let rendered = |c: &[Unit]| String::from_utf8(space.render(c)).unwrap();
    let mut oracle = FnOracle(|c: &[Unit]| {
        let out = rendered(c);
        out.contains("int bug;") && out.contains("T bug2;")
    });
    let kept = reduce(space.all_units(), &mut oracle, &mut policy);
    let out = rendered(&kept);
    assert!(
        out.contains("class facet;") && out.contains("struct In;"),
        "{out}"
    );
    assert!(
        !out.contains("class id;") && !out.contains("L::id"),
        "{out}"
    );
    assert!(
        !out.contains("struct Out;") && !out.contains("int n;"),
        "{out}"
    );
    assert_eq!(policy.roots().len(), 2, "{out}");
}

#[test]
fn class_members_stay_only_when_something_kept_names_them() {
    let src = "template<class T> class basic_string { public: basic_string(); ~basic_string(); int size() const { return n; } int append(T c) { return grow(c); } int grow(T c); int n; };\nint bug(basic_string<char> &s) { return s.size(); }\n";
    let out = keep_with(src, &CPP, &parse_cpp(src), "int bug", false, true);
    // what `bug` names stays, with what that uses; the rest of the class goes
    assert!(out.contains("int size() const { return n; }"), "{out}");
    assert!(out.contains("int n;") && out.contains("public:"), "{out}");
    assert!(!out.contains("append") && !out.contains("grow"), "{out}");
    assert!(!out.contains("basic_string()"), "{out}");
    // in C, structs stay whole (the field passes take them apart)
    let src = "struct s { int a; int b; };\nint bug(struct s *p) { return p->a; }\n";
    let out = keep_with(src, &C, &parse(src), "int bug", false, true);
    assert!(out.contains("struct s { int a; int b; };"), "{out}");
}

#[test]
fn a_braced_parse_error_is_opened() {
    let src = "namespace std __attribute__ ((__visibility__ (\"default\"))) {\n  typedef unsigned long size_t;\n  int dead;\n  template<typename T> struct X { T t; };\n}\nint bug(std::size_t n);\n";
    let out = keep(src, &CPP, &parse_cpp(src), "int bug");
    assert!(out.contains("namespace std __attribute__"), "{out}");
    assert!(out.contains("size_t;") && !out.contains("dead"), "{out}");
}

#[test]
fn statements_in_a_broken_function_stay() {
    // the missing `}` makes the function's node unbalanced: it is opened, not a unit, and
    // its statements are no units either
    let src = "struct s { int a; };\nint f(int x) { do { x++; } while (false); return x;\n";
    let tree = parse_cpp(src);
    let u = units(&tree, src.as_bytes(), &CPP, false, false);
    let texts: Vec<&str> = u
        .hunks
        .iter()
        .filter(|h| !h.is_empty())
        .map(|h| &src[h[0].start as usize..h[0].end as usize])
        .collect();
    assert_eq!(
        texts,
        ["struct s { int a; }"],
        "{}",
        tree.root_node().to_sexp()
    );
}

#[test]
fn whole_declarations_in_parse_errors_are_units_that_keep_nothing() {
    // tree-sitter-cpp cannot parse explicit instantiations after this class: they end up in
    // a parse error, each a whole run of debris, deletable, and `allocator` can go
    let src = "namespace std __attribute__ ((__visibility__ (\"default\")))\n{\n  template<typename _Tp>\n    class allocator<const volatile _Tp>\n    {\n    public:\n      typedef _Tp value_type;\n    };\n  extern template class allocator<char>;\n  extern template class allocator<wchar_t>;\n}\nint bug;\n";
    let tree = parse_cpp(src);
    assert!(
        tree.root_node().has_error(),
        "{}",
        tree.root_node().to_sexp()
    );
    let out = keep(src, &CPP, &tree, "int bug");
    assert!(!out.contains("allocator"), "{out}");
    assert!(out.contains("namespace std __attribute__"), "{out}");
    assert!(out.contains("int bug;"), "{out}");
}
