//! The rewrite passes on C++ through the C++ table: items inside namespaces, classes and
//! templates, constructors' initializer lists, qualified names.

use super::names::{Declarations, Unreferenced};
use super::params::RemoveParameter;
use super::smallest::Smallest;
use super::tests::{apply_all, parse_cpp};
use crate::edits::Pass;
use crate::lang::cpp::CPP;
use crate::lang::table::for_language;

fn unreferenced(src: &str) -> String {
    apply_all(
        src,
        &Unreferenced.edits(&parse_cpp(src), src.as_bytes(), &CPP),
    )
}

fn declarations(src: &str) -> String {
    apply_all(
        src,
        &Declarations.edits(&parse_cpp(src), src.as_bytes(), &CPP),
    )
}

#[test]
fn the_table_is_picked_by_language_name() {
    assert!(for_language("cpp").is_some_and(|t| t.item_wrappers.contains(&"template_declaration")));
    assert!(for_language("c").is_some_and(|t| t.item_wrappers.is_empty()));
    assert!(for_language("python").is_some_and(|t| t.item_lists.contains(&"module")));
    assert!(for_language("json").is_some_and(|t| t.item_lists.is_empty()));
    assert!(for_language("text").is_none());
}

#[test]
fn unused_items_inside_namespaces_go() {
    let src =
        "namespace std {\nint dead(int);\nint used(int);\n}\nint main() { return std::used(1); }\n";
    let out = unreferenced(src);
    assert!(!out.contains("dead"), "{out}");
    assert!(out.contains("int used(int);"), "{out}");
    // the namespace itself is named by `std::used`: it stays
    assert!(out.contains("namespace std"), "{out}");
}

#[test]
fn unused_templates_go_whole_and_used_ones_stay() {
    let src = "template <class T> struct Dead { T x; };\ntemplate <class T> T twice(T v) { return v + v; }\nint main() { return twice(2); }\n";
    let out = unreferenced(src);
    assert!(!out.contains("Dead") && !out.contains("struct"), "{out}");
    assert!(out.contains("template <class T> T twice(T v)"), "{out}");
}

#[test]
fn unused_members_go_and_used_ones_stay() {
    let src = "class C {\npublic:\n  int used() { return 1; }\n  int unused() { return 2; }\n  int field;\n};\nint main() { C c; return c.used(); }\n";
    let out = unreferenced(src);
    assert!(!out.contains("unused") && !out.contains("field"), "{out}");
    assert!(
        out.contains("int used()") && out.contains("class C"),
        "{out}"
    );
}

#[test]
fn an_out_of_line_member_declares_its_own_name_not_its_class() {
    let src = "struct S { int f(); int g(); };\nint S::f() { return 1; }\nint S::g() { return 2; }\nint main() { S s; return s.f(); }\n";
    let out = unreferenced(src);
    assert!(out.contains("int S::f()") && !out.contains("S::g"), "{out}");
}

#[test]
fn a_specialization_declares_the_template_name() {
    // `X<int>` declares `X`, which `main` uses: the specialization stays
    let src = "template <class T> struct X {};\ntemplate <> struct X<int> { int v; };\nint main() { X<int> x; return x.v; }\n";
    let out = unreferenced(src);
    assert!(out.contains("struct X<int>"), "{out}");
}

#[test]
fn definitions_in_classes_templates_and_namespaces_become_declarations() {
    let src = "namespace n {\nstruct S {\n  S() : a(1) { a = 2; }\n  int f() const { return a; }\n  int a;\n};\ntemplate <class T> T id(T v) { return v; }\n}\n";
    let out = declarations(src);
    assert_eq!(
        out,
        "namespace n {\nstruct S {\n  S() ;\n  int f() const ;\n  int a;\n};\ntemplate <class T> T id(T v) ;\n}\n"
    );
}

/// `int S::f();` is no declaration outside `S` (g++: "declaration outside of class is not
/// definition"): an out-of-line member's body becomes a stub that compiles whatever its return
/// type, `{}` where there is none (a constructor loses its initializer list with it).
#[test]
fn an_out_of_line_member_body_becomes_a_stub_not_a_declaration() {
    let src = "struct S { S(); ~S(); int f(); int a; };\nS::S() : a(1) { a = 2; }\nS::~S() { a = 0; }\ntemplate <class T> struct X { T g(); };\ntemplate <class T> T X<T>::g() { return T(); }\nint S::f() { return a + 1; }\nint h() { return 2; }\n";
    let want = "struct S { S(); ~S(); int f(); int a; };\nS::S() {}\nS::~S() {}\ntemplate <class T> struct X { T g(); };\ntemplate <class T> T X<T>::g() {throw 0;}\nint S::f() {throw 0;}\nint h() ;\n";
    assert_eq!(declarations(src), want);
}

#[test]
fn defaulted_functions_have_no_body_to_drop() {
    let src = "struct S { S() = default; };\n";
    assert!(
        Declarations
            .edits(&parse_cpp(src), src.as_bytes(), &CPP)
            .is_empty()
    );
}

#[test]
fn a_method_loses_a_parameter_with_its_argument_at_every_call() {
    let src = "struct S { int append(int c, long n); };\nint S::append(int c, long n) { return n; }\nS *s;\nvoid f(char *p) { s->append(0, p - p); S().append(1, 2); }\n";
    let tree = parse_cpp(src);
    let out: Vec<String> = RemoveParameter
        .hunks(&tree, src.as_bytes(), &CPP)
        .iter()
        .map(|h| apply_all(src, h))
        .collect();
    let want = "struct S { int append(long n); };\nint S::append(long n) { return n; }\nS *s;\nvoid f(char *p) { s->append(p - p); S().append(2); }\n";
    assert!(out.contains(&want.to_string()), "{out:#?}");
}

#[test]
fn a_named_type_becomes_int_only_where_a_type_goes() {
    let src = "struct Array {};\nstd::string s;\nArray f(Array a);\nT g(T a);\n";
    let outcomes: Vec<String> = Smallest
        .hunks(&parse_cpp(src), src.as_bytes(), &CPP)
        .iter()
        .map(|h| apply_all(src, h))
        .collect();
    // every outcome changes one type name; `struct Array` keeps its name, `T` is shorter than `int`
    assert!(
        outcomes.iter().all(|o| o.starts_with("struct Array {};")),
        "{outcomes:#?}"
    );
    assert!(
        outcomes
            .iter()
            .all(|o| !o.contains("int g") && !o.contains("g(int")),
        "{outcomes:#?}"
    );
    for want in ["int s;", "int f(Array a);", "Array f(int a);"] {
        assert!(
            outcomes.iter().any(|o| o.contains(want)),
            "{want}: {outcomes:#?}"
        );
    }
}
