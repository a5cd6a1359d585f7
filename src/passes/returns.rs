//! A function whose value nobody needs returns `void`: `int f() { ..; return e; }` becomes
//! `void f() { ..; e; }` (clang_delta's return-void). One hunk per function: its type at the
//! definition and at every prototype (`int f(void);`, a C++ member `int f();` declared in its
//! class), the `*` of a pointer-returning `int *f()`, and every `return` keyword before a value.
//! The `return` tokens go; the values stay as statements, so whatever they compute (and warn
//! about) is still there: perses deletes them when they are not needed.
//!
//! Only where no call uses the value: every call of the name is a statement of its own (`f(x);`,
//! `(void)f(x);`, the left of a comma, a `for`'s update), or the value of a `return` inside the
//! function itself (recursion: that `return` loses its keyword in the same hunk). A call whose
//! value is used would no longer compile, so such a function lists nothing. A prototype that
//! declares other names too (`int f(void), g;`) cannot change alone: the function is left as
//! it is.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Hunk, Pass, insert_before, preorder, shrinks, text};
use crate::lang::table::RewriteTable;

const POINTER_DECLARATOR: &str = "pointer_declarator";
const EXPRESSION_STATEMENT: &str = "expression_statement";
const COMMA: &str = "comma_expression";
const CAST: &str = "cast_expression";
const FOR: &str = "for_statement";
const LAMBDA: &str = "lambda_expression";

pub struct ReturnVoid;

impl Pass for ReturnVoid {
    fn name(&self) -> &'static str {
        "return-void"
    }

    fn edits(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Edit> {
        self.hunks(tree, src, t).into_iter().flatten().collect()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        // C and C++ only: the tables with function declarators
        if t.function_declarator.is_empty() || t.return_statement.is_empty() {
            return Vec::new();
        }
        let functions = Functions::of(tree, src, t);
        let mut hunks = Vec::new();
        for (name, defs) in &functions.definitions {
            if *name == b"main" || functions.blocked.contains(name) {
                continue;
            }
            let calls = functions.calls.get(name).map_or(&[][..], Vec::as_slice);
            // the prototypes change with the definition only when it is the one definition
            let prototypes = match defs.len() {
                1 => functions
                    .prototypes
                    .get(name)
                    .map_or(&[][..], Vec::as_slice),
                _ => &[],
            };
            for &(def, declarator) in defs {
                if !calls.iter().all(|&c| value_unused(c, def, src, t)) {
                    continue;
                }
                let sites = std::iter::once((def, declarator)).chain(prototypes.iter().copied());
                let Some(hunk) = sites
                    .map(|(n, d)| to_void(n, d, src, t))
                    .collect::<Option<Vec<Hunk>>>()
                else {
                    continue;
                };
                let Some(body) = def.child_by_field_name(t.body_field) else {
                    continue;
                };
                let mut hunk = hunk.concat();
                hunk.extend(returned_values(body, t));
                hunk.sort_by_key(|e| e.start);
                if shrinks(&hunk) {
                    hunks.push(hunk);
                }
            }
        }
        hunks.sort_by_key(|h| h[0].start);
        hunks
    }
}

/// The functions of a file by name: their definitions and prototypes (each with its declarator,
/// `*f(..)` or `f(..)`), the calls of the name, and the names that a declaration of several
/// names also declares.
pub(super) struct Functions<'t, 's> {
    pub definitions: HashMap<&'s [u8], Vec<(Node<'t>, Node<'t>)>>,
    pub prototypes: HashMap<&'s [u8], Vec<(Node<'t>, Node<'t>)>>,
    pub calls: HashMap<&'s [u8], Vec<Node<'t>>>,
    pub blocked: HashSet<&'s [u8]>,
}

impl<'t, 's> Functions<'t, 's> {
    pub fn of(tree: &'t Tree, src: &'s [u8], t: &RewriteTable) -> Functions<'t, 's> {
        let mut out = Functions {
            definitions: HashMap::new(),
            prototypes: HashMap::new(),
            calls: HashMap::new(),
            blocked: HashSet::new(),
        };
        for n in preorder(tree) {
            let kind = n.kind();
            if kind == t.function_definition {
                let found = n
                    .child_by_field_name(t.declarator_field)
                    .and_then(|d| function_name(d, t).map(|name| (d, name)));
                if let Some((d, name)) = found
                    && !n.has_error()
                {
                    out.definitions
                        .entry(text(name, src))
                        .or_default()
                        .push((n, d));
                }
            } else if t.declarations.contains(&kind) || kind == t.field_declaration {
                let mut cursor = n.walk();
                let declarators: Vec<Node> = n
                    .children_by_field_name(t.declarator_field, &mut cursor)
                    .collect();
                for &d in &declarators {
                    let Some(name) = function_name(d, t) else {
                        continue;
                    };
                    match declarators.len() {
                        1 => out
                            .prototypes
                            .entry(text(name, src))
                            .or_default()
                            .push((n, d)),
                        _ => {
                            out.blocked.insert(text(name, src));
                        }
                    }
                }
            } else if kind == t.call
                && let Some(callee) = n.child_by_field_name(t.function_field)
                && let Some(name) = last_name(callee, t)
            {
                out.calls.entry(text(name, src)).or_default().push(n);
            }
        }
        out
    }
}

/// The name a declarator declares when it declares a function: `f(..)`, through the `*` of
/// `int *f(..)` (not `(*f)(..)`, a pointer, nor `(*f(..))[3]`).
pub(super) fn function_name<'t>(declarator: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    let f = function_declarator(declarator, t)?;
    last_name(f.child_by_field_name(t.declarator_field)?, t)
}

/// The function declarator of `f(..)` or `*f(..)` (through pointer declarators only).
fn function_declarator<'t>(mut d: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    while d.kind() == POINTER_DECLARATOR {
        d = d.child_by_field_name(t.declarator_field)?;
    }
    (d.kind() == t.function_declarator).then_some(d)
}

/// The name a callee or a declarator ends with: `f`, the method of `a.f` / `p->f`, the `f` of
/// C++'s `A::f`.
fn last_name<'t>(n: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    if t.names.contains(&n.kind()) {
        return Some(n);
    }
    let part = match n.kind() {
        "field_expression" => n.child_by_field_name("field"),
        "qualified_identifier" | "template_function" | "template_method" => {
            n.child_by_field_name("name")
        }
        _ => None,
    };
    last_name(part?, t)
}

/// `T f(..)` or `T *f(..)` as `void f(..)`: the type becomes `void` (or `void ` goes in front
/// when the definition has none, gnu89's `f() {..}`), the pointer stars go.
fn to_void(item: Node, declarator: Node, src: &[u8], t: &RewriteTable) -> Option<Hunk> {
    let f = function_declarator(declarator, t)?;
    let mut hunk = Vec::new();
    match item.child_by_field_name(t.type_field) {
        Some(ty) if text(ty, src) == b"void" && f.id() == declarator.id() => return None,
        Some(ty) => hunk.push(Edit::new(ty.start_byte(), ty.end_byte(), b"void")),
        None if item.kind() == t.function_definition => {
            hunk.push(insert_before(declarator, b"void ", src))
        }
        None => return None,
    }
    if f.id() != declarator.id() {
        hunk.push(Edit::delete(declarator.start_byte(), f.start_byte()));
    }
    Some(hunk)
}

/// The `return ` before every value in a body (not in a lambda's: its returns are its own).
fn returned_values(body: Node, t: &RewriteTable) -> Vec<Edit> {
    let mut out = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind() == LAMBDA {
            continue;
        }
        if n.kind() == t.return_statement
            && let Some(value) = n.named_child(0)
        {
            out.push(Edit::delete(n.start_byte(), value.start_byte()));
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    out
}

/// Whether the value of `call` goes unused once the function `def` returns `void`: the call is
/// a statement, cast to `void`, the left of a comma, a `for`'s update, or returned by `def`
/// itself.
fn value_unused(call: Node, def: Node, src: &[u8], t: &RewriteTable) -> bool {
    let mut n = call;
    let Some(mut parent) = n.parent() else {
        return false;
    };
    while parent.kind() == t.parenthesized {
        n = parent;
        let Some(p) = parent.parent() else {
            return false;
        };
        parent = p;
    }
    let is = |field: &str| {
        parent
            .child_by_field_name(field)
            .is_some_and(|c| c.id() == n.id())
    };
    match parent.kind() {
        EXPRESSION_STATEMENT => true,
        COMMA => is("left"),
        FOR => is("update"),
        CAST => parent
            .child_by_field_name("type")
            .is_some_and(|ty| text(ty, src) == b"void"),
        k if k == t.return_statement => {
            let mut up = parent.parent();
            while let Some(u) = up {
                if u.kind() == t.function_definition || u.kind() == LAMBDA {
                    return u.id() == def.id();
                }
                up = u.parent();
            }
            false
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::{minimize, only_this_pass_shrinks, parse, shrink_with};

    /// Like gcc with `-Werror=return-type` and conflicting types as errors: every declaration of
    /// `f` has the same return type, and an `int` one returns its value.
    fn consistent(s: &str, f: &str) -> bool {
        let ints =
            s.matches(&format!("int {f}(")).count() + s.matches(&format!("int *{f}(")).count();
        let voids = s.matches(&format!("void {f}(")).count();
        !parse(s).root_node().has_error() && (ints == 0 || voids == 0)
    }

    #[test]
    fn a_returned_value_becomes_a_statement_of_a_void_function() {
        let src = "int f(int x) {\n    int c;\n    if (x) return c + 1;\n    return c;\n}\nint main() { f(1); return 0; }\n";
        // like gcc -Werror=return-type: an `int` function returns its value
        let keep = |s: &str| {
            !parse(s).root_node().has_error()
                && s.contains("c + 1;")
                && s.contains("f(1)")
                && s.contains("f(int x) {")
                && (s.contains("void f(") || s.contains("return c + 1;"))
        };
        let out = only_this_pass_shrinks(src, &ReturnVoid, &keep);
        assert!(out.contains("void f(int x)"), "{out}");
        assert!(out.contains("c + 1;") && !out.contains("return c"), "{out}");
    }

    /// The test accepts exactly these spellings (blanks aside): the original and its `void`
    /// form, where every declaration changed together.
    fn one_of<'a>(forms: &'a [&'a str]) -> impl Fn(&str) -> bool + 'a {
        move |s: &str| {
            let flat: String = s.split_whitespace().collect();
            forms
                .iter()
                .any(|f| f.split_whitespace().collect::<String>() == flat)
        }
    }

    #[test]
    fn the_prototypes_change_with_the_definition() {
        let src = "int f(int);\nvoid g() { f(1); }\nint f(int x) { return x + 1; }\n";
        let want = "void f(int);\nvoid g() { f(1); }\nvoid f(int x) { x + 1; }\n";
        let out = only_this_pass_shrinks(src, &ReturnVoid, &one_of(&[src, want]));
        assert_eq!(out, want);
    }

    #[test]
    fn a_pointer_function_loses_its_stars_and_a_recursive_one_its_own_returns() {
        let src = "int *f(void);\nint *f(void) { return 0; }\nint r(int n) { if (n) return r(n - 1); return 0; }\nvoid m() { f(); r(3); }\n";
        let out = minimize(src, &ReturnVoid, &|s| {
            consistent(s, "f") && consistent(s, "r")
        });
        assert_eq!(
            out,
            "void f(void);\nvoid f(void) { 0; }\nvoid r(int n) { if (n) r(n - 1); 0; }\nvoid m() { f(); r(3); }\n"
        );
    }

    #[test]
    fn a_function_whose_value_a_caller_uses_is_left_alone() {
        let src = "int f(void) { return 1; }\nint g(void) { return f() + 1; }\nint h(void) { int x = f(); return x; }\nint main() { g(); h(); return 0; }\nint k(void);\nint k(void), x;\nint k(void) { return 2; }\n";
        let out: Vec<String> = ReturnVoid
            .hunks(&parse(src), src.as_bytes(), &C)
            .iter()
            .map(|h| crate::passes::tests::apply_all(src, h))
            .collect();
        // g and h, whose values nobody uses; not f (used), main, or k (declared with `x`)
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out[0].contains("void g(void) { f() + 1; }"), "{}", out[0]);
        assert!(
            out[1].contains("void h(void) { int x = f(); x; }"),
            "{}",
            out[1]
        );
    }

    #[test]
    fn functions_without_values_are_left_alone() {
        let src = "int g(void) { return; }\nvoid h(void) { return; }\n";
        assert!(ReturnVoid.hunks(&parse(src), src.as_bytes(), &C).is_empty());
    }

    #[test]
    fn only_this_pass_makes_a_cpp_member_void_in_its_class_and_out_of_line() {
        let cpp = crate::lang::by_name("cpp").expect("C++ is in the registry");
        let src = "struct A { int f(); };\nint A::f() { return 1; }\nvoid m(A a) { a.f(); }\n";
        let want = "struct A { void f(); };\nvoid A::f() { 1; }\nvoid m(A a) { a.f(); }\n";
        let out = shrink_with(cpp, src, &ReturnVoid, &one_of(&[src, want]));
        assert_eq!(out, want);
    }
}
