//! An array read at one index only becomes a scalar (C-Reduce's aggregate-to-scalar, for
//! arrays): `T a[N]` whose every use is `a[k]` (or `*a`, index 0) with the same constant `k`
//! becomes `T a`, and the uses `a`, in one hunk; an initializer `{e0, e1, ..}` becomes its
//! `k`-th element (`0` past its end). The outer dimension goes: `int a[2][3]` read as `a[1][j]`
//! becomes `int a[3]` read as `a[j]`. Where the element is a name or a literal and no use writes
//! the array, a second hunk puts the element itself in place of every use and deletes the
//! declaration (`int (*t[1])(void) = {c};` .. `t[0]()` becomes `c()`, C-Reduce's result after
//! aggregate-to-scalar and copy propagation), tried first.
//!
//! Names declared more than once (a local `a` in two functions), used in a macro body or in any
//! other way (`sizeof a`, `f(a)`, `a + 1`), and parameters are left alone.

use tree_sitter::{Node, Tree};

use super::pointers::mentions;
use crate::edits::{Edit, Hunk, Pass, elements, preorder, text};
use crate::lang::table::RewriteTable;

const FIELD_EXPRESSION: &str = "field_expression";
const DEREFERENCE: &str = "pointer_expression";
const ASSIGNMENT: &str = "assignment_expression";
const UPDATE: &str = "update_expression";
const DESIGNATED: &str = "initializer_pair";
const PARENTHESIZED: &str = "parenthesized_declarator";
const ATTRIBUTED: &str = "attributed_declarator";

pub struct ArrayToScalar;

impl Pass for ArrayToScalar {
    fn name(&self) -> &'static str {
        "array-to-scalar"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        if t.array_declarator.is_empty() || t.subscript.is_empty() {
            return Vec::new();
        }
        let nodes = preorder(tree);
        let (declared, used) = mentions(&nodes, src, t);
        let in_macros: Vec<&[u8]> = nodes
            .iter()
            .filter(|n| t.raw_text.contains(&n.kind()))
            .map(|n| text(n, src))
            .collect();
        let mut hunks = Vec::new();
        for (name, sites) in &declared {
            let [array] = sites[..] else { continue };
            if array.kind() != t.array_declarator || in_macros.iter().any(|m| has_word(m, name)) {
                continue;
            }
            let Some(uses) = used.get(name) else { continue };
            hunks.extend(array_hunks(array, uses, src, t));
        }
        hunks.sort_by_key(|h| h[0].start);
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }
}

/// The hunks of one array declared by `array` (`a[N]`, its name inside) and read at `uses`:
/// the element in place of the uses (when it can be), then the scalar.
fn array_hunks(array: Node, uses: &[Node], src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
    let mut out = Vec::new();
    let Some(name) = array.child_by_field_name(t.declarator_field) else {
        return out;
    };
    let Some((item, value)) = declaration_of(array, t) else {
        return out;
    };
    // every use, with the expression that reads the element and its index
    let mut reads = Vec::new();
    for &u in uses {
        match element_read(u, src, t) {
            Some(read) => reads.push(read),
            None => return out,
        }
    }
    let k = reads[0].1;
    if reads.iter().any(|r| r.1 != k) {
        return out;
    }
    let element = match value {
        None => None,
        Some(v) if v.kind() == t.brace_initializer => {
            let list = elements(v);
            if list.iter().any(|e| e.kind() == DESIGNATED) {
                return out;
            }
            Some(usize::try_from(k).ok().and_then(|k| list.get(k).copied()))
        }
        // a string or an expression: no element to take
        Some(_) => return out,
    };
    // the element itself at every use, the declaration gone
    if let Some(Some(e)) = element
        && is_atom(e, t)
        && reads.iter().all(|(x, _)| !written(*x))
        && single_declarator(item, t)
    {
        let mut hunk = vec![Edit::delete(item.start_byte(), item.end_byte())];
        hunk.extend(
            reads
                .iter()
                .map(|(x, _)| Edit::new(x.start_byte(), x.end_byte(), text(e, src))),
        );
        out.push(hunk);
    }
    // the scalar: `[N]` goes, the initializer becomes the element, the reads the name
    let mut hunk = vec![Edit::delete(name.end_byte(), array.end_byte())];
    if let (Some(v), Some(e)) = (value, element) {
        let with = e.map_or(&b"0"[..], |e| text(e, src));
        hunk.push(Edit::new(v.start_byte(), v.end_byte(), with));
    }
    for (x, _) in &reads {
        let access = element_of(*x, t).unwrap_or(*x);
        hunk.push(Edit::new(x.start_byte(), x.end_byte(), text(access, src)));
    }
    out.push(hunk);
    out
}

/// The declaration (or struct field) that holds the declarator `array`, and the value it is
/// initialized with, if any; `None` for a parameter or a declarator in anything else.
fn declaration_of<'t>(array: Node<'t>, t: &RewriteTable) -> Option<(Node<'t>, Option<Node<'t>>)> {
    let mut value = None;
    let mut n = array;
    loop {
        let parent = n.parent()?;
        let kind = parent.kind();
        if (t.declarations.contains(&kind) && kind != t.function_definition)
            || kind == t.field_declaration
        {
            let mut cursor = parent.walk();
            let declares = parent
                .children_by_field_name(t.declarator_field, &mut cursor)
                .any(|d| d.id() == n.id());
            return declares.then_some((parent, value));
        }
        let through = parent
            .child_by_field_name(t.declarator_field)
            .is_some_and(|d| d.id() == n.id());
        match kind {
            // declarators around the array: `*a[2]`, `(*a[2])(void)`
            PARENTHESIZED | ATTRIBUTED => {}
            _ if kind == t.parameter_declaration || !through => return None,
            _ if kind == t.init_declarator => value = parent.child_by_field_name("value"),
            _ => {}
        }
        n = parent;
    }
}

/// For a use `u` of the array's name: the expression reading an element (`a[k]`, `s.a[k]`,
/// `*a`) and `k`; `None` for any other use or an index that is no constant.
fn element_read<'t>(u: Node<'t>, src: &[u8], t: &RewriteTable) -> Option<(Node<'t>, i64)> {
    let mut access = u;
    let parent = u.parent()?;
    if parent.kind() == FIELD_EXPRESSION
        && parent
            .child_by_field_name("field")
            .is_some_and(|f| f.id() == u.id())
    {
        access = parent;
    }
    let x = access.parent()?;
    let argument = x.child_by_field_name("argument")?;
    if argument.id() != access.id() {
        return None;
    }
    if x.kind() == DEREFERENCE {
        let star = x.child_by_field_name("operator")?;
        return (star.kind() == "*").then_some((x, 0));
    }
    if x.kind() != t.subscript {
        return None;
    }
    // C's `a[i]`, C++'s `a[i]` through its argument list
    let index = x.child_by_field_name("index").or_else(|| {
        let list = x.child_by_field_name("indices")?;
        match elements(list)[..] {
            [i] => Some(i),
            _ => None,
        }
    })?;
    if index.kind() != t.number_literal {
        return None;
    }
    Some((x, integer(text(index, src))?))
}

/// What an element read reads from: the `a` of `a[k]` or `*a`, the `s.a` of `s.a[k]`.
fn element_of<'t>(x: Node<'t>, _t: &RewriteTable) -> Option<Node<'t>> {
    x.child_by_field_name("argument")
}

/// A C integer literal's value (`12`, `0x1f`, `017`, `3u`).
fn integer(s: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(s).ok()?;
    let s = s.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return i64::from_str_radix(hex, 16).ok();
    }
    if s.len() > 1
        && let Some(octal) = s.strip_prefix('0')
    {
        return i64::from_str_radix(octal, 8).ok();
    }
    s.parse().ok()
}

/// A name or a literal: its text can stand anywhere the element read stood.
fn is_atom(e: Node, t: &RewriteTable) -> bool {
    let kind = e.kind();
    t.names.contains(&kind)
        || kind == t.number_literal
        || kind == t.char_literal
        || t.string_literals.contains(&kind)
        || matches!(kind, "true" | "false" | "null" | "nullptr")
}

/// Whether an element read is written: assigned, incremented, its address taken.
fn written(x: Node) -> bool {
    let Some(parent) = x.parent() else {
        return false;
    };
    match parent.kind() {
        ASSIGNMENT => parent
            .child_by_field_name("left")
            .is_some_and(|l| l.id() == x.id()),
        UPDATE => true,
        DEREFERENCE => parent
            .child_by_field_name("operator")
            .is_some_and(|o| o.kind() == "&"),
        _ => false,
    }
}

/// Whether a declaration declares one name only (so it can go whole).
fn single_declarator(item: Node, t: &RewriteTable) -> bool {
    let mut cursor = item.walk();
    item.children_by_field_name(t.declarator_field, &mut cursor)
        .count()
        == 1
}

/// Whether `name` is a whole word of the raw text `s` (a macro body).
fn has_word(s: &[u8], name: &[u8]) -> bool {
    s.split(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .any(|w| w == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::{minimize, only_this_pass_shrinks, outcomes, parse, shrink_with};

    #[test]
    fn an_array_read_at_one_index_becomes_its_element() {
        let src = "int a[4] = {1, 2, 3};\nint f() { return a[2] + a[2]; }\n";
        assert_eq!(
            outcomes(&ArrayToScalar, src),
            [
                "\nint f() { return 3 + 3; }\n",
                "int a = 3;\nint f() { return a + a; }\n"
            ]
        );
        // past the initializer's end: zero; without one: none
        let src = "int a[8] = {1};\nint b[2][3];\nint f() { b[1][2] = 0; return *a; }\n";
        assert_eq!(
            outcomes(&ArrayToScalar, src),
            [
                "\nint b[2][3];\nint f() { b[1][2] = 0; return 1; }\n",
                "int a = 1;\nint b[2][3];\nint f() { b[1][2] = 0; return a; }\n",
                "int a[8] = {1};\nint b[3];\nint f() { b[2] = 0; return *a; }\n",
            ]
        );
    }

    #[test]
    fn arrays_used_otherwise_are_left_alone() {
        let src = "int a[2], b[2], c[2], d[2];\n#define D d[0]\nint f(int i, int p[2]) { return a[0] + a[1] + b[i] + sizeof c + c[0] + p[0] + D; }\n";
        assert!(
            ArrayToScalar
                .hunks(&parse(src), src.as_bytes(), &C)
                .is_empty()
        );
    }

    #[test]
    fn a_table_of_one_function_becomes_its_function() {
        let src = "int c(void);\nint (*t[2])(void) = {0, c};\nint f(void) { return t[1](); }\n";
        let out = minimize(src, &ArrayToScalar, &|s| !parse(s).root_node().has_error());
        assert_eq!(out, "int c(void);\n\nint f(void) { return c(); }\n");
        // written: only the scalar
        let src =
            "int c(void);\nint (*t[1])(void) = {c};\nint f(void) { t[0] = 0; return t[0](); }\n";
        let out = minimize(src, &ArrayToScalar, &|s| !parse(s).root_node().has_error());
        assert_eq!(
            out,
            "int c(void);\nint (*t)(void) = c;\nint f(void) { t = 0; return t(); }\n"
        );
    }

    #[test]
    fn only_this_pass_makes_a_scalar_of_a_struct_array() {
        // the test wants the field read through whatever holds the struct
        let src = "struct S { int *p; };\nstruct S s[3];\nvoid f(void) { *s[1].p = 0; }\n";
        let keep = |s: &str| {
            let flat: String = s.split_whitespace().collect();
            !parse(s).root_node().has_error()
                && (flat == "structS{int*p;};structSs[3];voidf(void){*s[1].p=0;}"
                    || flat == "structS{int*p;};structSs;voidf(void){*s.p=0;}")
        };
        let out = only_this_pass_shrinks(src, &ArrayToScalar, &keep);
        // (a space where `s` meets `.p`: the renderer's rule for `1` and `.5`)
        assert_eq!(
            out,
            "struct S { int *p; };\nstruct S s;\nvoid f(void) { *s .p = 0; }\n"
        );
    }

    #[test]
    fn only_this_pass_calls_the_function_of_a_cpp_table() {
        let cpp = crate::lang::by_name("cpp").expect("C++ is in the registry");
        // (tree-sitter-cpp reads `void (*t[])() = ..` at file scope as an expression)
        let src = "void c();\nstatic void (*t[])() = {c};\nvoid f() { t[0](); }\n";
        let keep = |s: &str| {
            let flat: String = s.split_whitespace().collect();
            !crate::passes::tests::parse_cpp(s).root_node().has_error()
                && (flat == "voidc();staticvoid(*t[])()={c};voidf(){t[0]();}"
                    || flat == "voidc();staticvoid(*t)()=c;voidf(){t();}"
                    || flat == "voidc();voidf(){c();}")
        };
        let out = shrink_with(cpp, src, &ArrayToScalar, &keep);
        assert_eq!(out, "void c();\n\nvoid f() { c(); }\n");
    }
}
