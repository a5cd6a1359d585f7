//! A function that only returns a constant becomes a global holding it: `int *f(void) { return
//! 0; }` becomes `static int *f;` and every call `f(..)` reads it as `f` (`*f()` -> `*f`), its
//! prototypes gone, all in one hunk (what C-Reduce reaches with a new global read in place of
//! the call and the function deleted afterwards). The global takes the function's own name and
//! place, so it needs no new name and is declared before every call. A zero constant (`0`,
//! `((void *)0)`, `NULL`) needs no initializer: a global starts at zero. The global is
//! `static`: one that nothing writes is a constant to the optimizer, as the function's value was
//! (`gcc -O2 -Wnull-dereference` warns at `*f` for a `static int *f;`, not for an `int *f;`);
//! smallest-of-kind drops the `static` where nothing needs it. Inline-return cannot do this
//! where the value is a pointer (`*(0)` does not compile).
//!
//! Only where every mention of the name is a plain call, a prototype of it alone, or the
//! definition: a function whose address is taken stays a function. The calls' arguments go
//! with them.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use super::names::names_in_node;
use super::returns::Functions;
use crate::edits::{Edit, Hunk, Pass, preorder, shrinks, text};
use crate::lang::table::RewriteTable;

const TYPE_DESCRIPTOR: &str = "type_descriptor";
const STORAGE_CLASS: &str = "storage_class_specifier";
const QUALIFIER: &str = "type_qualifier";
/// Expressions that are never constants.
const EFFECTS: &[&str] = &[
    "assignment_expression",
    "update_expression",
    "comma_expression",
    "lambda_expression",
    "new_expression",
];

pub struct FunctionToGlobal;

impl Pass for FunctionToGlobal {
    fn name(&self) -> &'static str {
        "function-to-global"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        // C and C++: the tables with function declarators
        if t.function_declarator.is_empty() || t.return_statement.is_empty() {
            return Vec::new();
        }
        let functions = Functions::of(tree, src, t);
        let mut mentions: HashMap<&[u8], usize> = HashMap::new();
        for n in preorder(tree) {
            for name in names_in_node(n, src, t) {
                *mentions.entry(name).or_default() += 1;
            }
        }
        let mut hunks = Vec::new();
        for (name, defs) in &functions.definitions {
            let [(def, declarator)] = defs[..] else {
                continue;
            };
            if *name == b"main" || functions.blocked.contains(name) {
                continue;
            }
            let calls = functions.calls.get(name).map_or(&[][..], Vec::as_slice);
            let prototypes = functions
                .prototypes
                .get(name)
                .map_or(&[][..], Vec::as_slice);
            let plain = calls.iter().all(|c| {
                c.child_by_field_name(t.function_field)
                    .is_some_and(|f| t.names.contains(&f.kind()))
            });
            // the definition's name, the prototypes' and the callees are every mention
            let all = 1 + prototypes.len() + calls.len();
            if calls.is_empty() || !plain || mentions.get(name) != Some(&all) {
                continue;
            }
            let Some(global) = global(def, declarator, src, t) else {
                continue;
            };
            let mut hunk = vec![Edit::new(def.start_byte(), def.end_byte(), &global)];
            for &(p, _) in prototypes {
                hunk.push(Edit::delete(p.start_byte(), p.end_byte()));
            }
            for &c in calls {
                hunk.push(Edit::new(c.start_byte(), c.end_byte(), name));
            }
            // a call inside a prototype's default argument (C++) would overlap it: none here
            hunk.sort_by_key(|e| e.start);
            let disjoint = hunk.windows(2).all(|w| w[0].end <= w[1].start);
            if disjoint && shrinks(&hunk) {
                hunks.push(hunk);
            }
        }
        hunks.sort_by_key(|h| h[0].start);
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }
}

/// The global that stands for the definition `def` of a function returning a constant at file
/// or namespace scope: `static`, the function's qualifiers and type (no `inline`, `extern` or
/// attributes), its declarator without the parameters, and the constant unless it is zero.
fn global(def: Node, declarator: Node, src: &[u8], t: &RewriteTable) -> Option<Vec<u8>> {
    let scope = def.parent()?;
    let at_file_scope = t.scopes.contains(&scope.kind())
        || scope.kind().starts_with(t.preprocessor_prefix) && !t.preprocessor_prefix.is_empty();
    if !at_file_scope {
        return None;
    }
    let value = returned_constant(def, src, t)?;
    let mut out = b"static ".to_vec();
    let mut cursor = def.walk();
    for child in def.children(&mut cursor) {
        if child.id() == declarator.id() {
            break;
        }
        let (kind, word) = (child.kind(), text(child, src));
        // `inline`, `extern` and attributes are a function's; `const` stays
        let dropped = match kind {
            STORAGE_CLASS => true,
            QUALIFIER => false,
            _ => t.droppable.contains(&kind),
        };
        if !dropped {
            out.extend_from_slice(word);
            out.push(b' ');
        }
    }
    // the declarator up to the function's parameters, then past them
    let f = function_declarator_of(declarator, t)?;
    let params = f.child_by_field_name(t.parameters_field)?;
    out.extend_from_slice(src.get(declarator.start_byte()..params.start_byte())?);
    out.extend_from_slice(src.get(params.end_byte()..declarator.end_byte())?);
    let constant = [b"const".as_slice(), b"constexpr"].iter().any(|w| {
        out.split(|c| !c.is_ascii_alphanumeric() && *c != b'_')
            .any(|x| x == *w)
    });
    if !is_zero(value, src) || constant {
        out.extend_from_slice(b" = ");
        out.extend_from_slice(text(value, src));
    }
    out.push(b';');
    Some(out)
}

/// The function declarator inside `f(..)` or `*f(..)`.
fn function_declarator_of<'t>(mut d: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    while d.kind() != t.function_declarator {
        d = d.child_by_field_name(t.declarator_field)?;
    }
    Some(d)
}

/// `e` when the body of `def` is `{ return e; }` with `e` a constant: no call, assignment or
/// other effect, no name but in a type (`(void *)0`, `sizeof(struct S)`) or a macro's
/// (upper-case, as `NULL` or `EOF`).
fn returned_constant<'t>(def: Node<'t>, src: &[u8], t: &RewriteTable) -> Option<Node<'t>> {
    let body = def.child_by_field_name(t.body_field)?;
    let mut cursor = body.walk();
    let statements: Vec<Node> = body
        .named_children(&mut cursor)
        .filter(|c| !c.is_extra())
        .collect();
    let [statement] = statements[..] else {
        return None;
    };
    if statement.kind() != t.return_statement {
        return None;
    }
    let value = statement.named_child(0)?;
    let mut stack = vec![value];
    while let Some(n) = stack.pop() {
        let kind = n.kind();
        if kind == TYPE_DESCRIPTOR {
            continue;
        }
        if kind == t.call || EFFECTS.contains(&kind) || n.is_error() || n.is_missing() {
            return None;
        }
        let macro_like = |w: &[u8]| {
            w.iter()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
        };
        if t.names.contains(&kind) && !macro_like(text(n, src)) {
            return None;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    Some(value)
}

/// Whether a constant is zero as a global's initial value: `0`, `0L`, `((void *)0)`, `NULL`,
/// `nullptr`, `false`.
fn is_zero(value: Node, src: &[u8]) -> bool {
    let flat: Vec<u8> = text(value, src)
        .iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'(' && *c != b')')
        .collect();
    let flat = flat.strip_prefix(b"void*".as_slice()).unwrap_or(&flat);
    let number = flat.first() == Some(&b'0')
        && flat[1..]
            .iter()
            .all(|c| matches!(c, b'0' | b'.' | b'u' | b'U' | b'l' | b'L'));
    number || [b"NULL".as_slice(), b"nullptr", b"false"].contains(&flat)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::{minimize, only_this_pass_shrinks, parse, shrink_with};

    #[test]
    fn a_function_returning_null_becomes_a_null_global() {
        let src = "static inline int *f(void);\nstatic inline int *f(void) { return ((void *)0); }\nint g() { return *f() + f()[1]; }\n";
        let out = minimize(src, &FunctionToGlobal, &|s| {
            !parse(s).root_node().has_error()
        });
        assert_eq!(out, "\nstatic int *f;\nint g() { return *f + f[1]; }\n");
    }

    #[test]
    fn a_constant_stays_as_the_initial_value_and_arguments_go() {
        let src = "long h(int x) { return -1; }\nint g() { return h(g()); }\n";
        let out = minimize(src, &FunctionToGlobal, &|s| {
            !parse(s).root_node().has_error()
        });
        assert_eq!(out, "static long h = -1;\nint g() { return h; }\n");
    }

    #[test]
    fn functions_named_elsewhere_or_computing_are_left_alone() {
        let src = "int f(void) { return 0; }\nint (*p)(void) = f;\nint g(void) { return f(); }\nint v;\nint k(void) { return v; }\nint m(void) { return k() + g(); }\n";
        assert!(
            FunctionToGlobal
                .hunks(&parse(src), src.as_bytes(), &C)
                .is_empty()
        );
    }

    #[test]
    fn only_this_pass_reads_a_null_global() {
        // like gcc -O2 -Wnull-dereference: a store through a pointer known to be null, whether
        // a function returns it (inlined) or a static global holds it (never written)
        let src = "int *get(void) { return 0; }\nvoid crash(void) { *get() = 1; }\n";
        let keep = |s: &str| {
            let flat: String = s.split_whitespace().collect();
            let called = flat.starts_with("int*get(void){return0;}");
            let global = flat.starts_with("staticint*get;");
            !parse(s).root_node().has_error()
                && (called && flat.ends_with("voidcrash(void){*get()=1;}")
                    || global && flat.ends_with("voidcrash(void){*get=1;}"))
        };
        let out = only_this_pass_shrinks(src, &FunctionToGlobal, &keep);
        assert_eq!(out, "static int *get;\nvoid crash(void) { *get = 1; }\n");
    }

    #[test]
    fn only_this_pass_turns_a_cpp_function_into_a_global() {
        let cpp = crate::lang::by_name("cpp").expect("C++ is in the registry");
        let src =
            "namespace n {\nint *get() { return nullptr; }\nvoid crash() { *get() = 1; }\n}\n";
        let keep = |s: &str| {
            let flat: String = s.split_whitespace().collect();
            !crate::passes::tests::parse_cpp(s).root_node().has_error()
                && (flat == "namespacen{int*get(){returnnullptr;}voidcrash(){*get()=1;}}"
                    || flat == "namespacen{staticint*get;voidcrash(){*get=1;}}")
        };
        let out = shrink_with(cpp, src, &FunctionToGlobal, &keep);
        assert_eq!(
            out,
            "namespace n {\nstatic int *get;\nvoid crash() { *get = 1; }\n}\n"
        );
    }
}
