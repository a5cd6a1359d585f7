//! A method becomes a plain function (C-Reduce's member-to-global, for calls): the class's
//! `R m(P);` is declared again before the file-level item that holds the class, and every call
//! `x.m(..)`, `p->m(..)`, `A::m(..)` becomes `m(..)`. The member is then unused and the
//! deletion passes take it, and with it often the class and the object the calls went through
//! (a `std::string` kept only for its `append`). One hunk per method name; enabling, since the
//! new declaration makes the file longer until the class goes.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Hunk, Pass, insert_before, preorder, text};
use crate::lang::table::RewriteTable;

pub struct MethodToFunction;

impl Pass for MethodToFunction {
    fn name(&self) -> &'static str {
        "method-to-function"
    }

    fn edits(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Edit> {
        self.hunks(tree, src, t).into_iter().flatten().collect()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        // classes with members: C++
        if !t.member_lists {
            return Vec::new();
        }
        let nodes = preorder(tree);
        let mut calls: HashMap<&[u8], Vec<Node>> = HashMap::new();
        for n in &nodes {
            if n.kind() == t.call
                && let Some(callee) = n.child_by_field_name(t.function_field)
                && let Some(name) = member_name(callee)
            {
                calls.entry(text(name, src)).or_default().push(callee);
            }
        }
        let mut hunks = Vec::new();
        for n in &nodes {
            if n.kind() != t.field_declaration || n.has_error() {
                continue;
            }
            let Some((name, declaration)) = free_declaration(n, src, t) else {
                continue;
            };
            let (Some(uses), Some(item)) = (calls.get(name), file_item(n)) else {
                continue;
            };
            let mut hunk: Hunk = uses
                .iter()
                .map(|c| Edit::new(c.start_byte(), c.end_byte(), name))
                .collect();
            hunk.push(insert_before(item, &declaration, src));
            hunk.sort_by_key(|e| e.start);
            hunks.push(hunk);
        }
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }

    fn enabling(&self) -> bool {
        true
    }
}

/// The method a callee names through an object or a class: `m` of `x.m`, `p->m`, `A::m`.
fn member_name(callee: Node) -> Option<Node> {
    let name = match callee.kind() {
        "field_expression" => callee.child_by_field_name("field")?,
        "qualified_identifier" => callee.child_by_field_name("name")?,
        _ => return None,
    };
    matches!(name.kind(), "field_identifier" | "identifier").then_some(name)
}

/// A member function's declaration as a free one: `R m(P);` without `virtual`, `static`,
/// `explicit`, a trailing `const`, `override` or `= 0`. `None` for data members, operators and
/// qualified or templated names.
fn free_declaration<'s>(
    member: Node,
    src: &'s [u8],
    t: &RewriteTable,
) -> Option<(&'s [u8], Vec<u8>)> {
    let declarator = member.child_by_field_name(t.declarator_field)?;
    let mut f = declarator;
    while f.kind() != t.function_declarator {
        f = f.child_by_field_name(t.declarator_field)?;
    }
    let name = f.child_by_field_name(t.declarator_field)?;
    let params = f.child_by_field_name(t.parameters_field)?;
    if name.kind() != "field_identifier" {
        return None;
    }
    let mut out = Vec::new();
    let mut cursor = member.walk();
    for c in member.children(&mut cursor) {
        if c.start_byte() >= declarator.start_byte() {
            break;
        }
        // `virtual`, `static`, `explicit`, attributes (a leading `const` stays: it is the type's)
        if t.droppable.contains(&c.kind()) && c.kind() != "type_qualifier" {
            continue;
        }
        out.extend_from_slice(text(c, src));
        out.push(b' ');
    }
    out.extend_from_slice(&src[declarator.start_byte()..params.end_byte()]);
    out.extend_from_slice(b";\n");
    Some((text(name, src), out))
}

/// The item of the file (a child of the translation unit) that holds `n`.
fn file_item(n: Node) -> Option<Node> {
    let mut cur = n;
    loop {
        let parent = cur.parent()?;
        if parent.parent().is_none() {
            return Some(cur);
        }
        cur = parent;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::cpp::CPP;
    use crate::passes::tests::{apply_all, minimize_in, parse_cpp};

    fn outcomes(src: &str) -> Vec<String> {
        MethodToFunction
            .hunks(&parse_cpp(src), src.as_bytes(), &CPP)
            .iter()
            .map(|h| apply_all(src, h))
            .collect()
    }

    #[test]
    fn a_called_method_becomes_a_function_declared_before_its_class() {
        let src = "namespace n {\nstruct S {\n  virtual int append(long v) const;\n  int size;\n};\n}\nn::S *s;\nvoid f() { s->append(1); n::S().append(2); }\n";
        assert_eq!(
            outcomes(src),
            vec![
                "int append(long v);\nnamespace n {\nstruct S {\n  virtual int append(long v) const;\n  int size;\n};\n}\nn::S *s;\nvoid f() { append(1); append(2); }\n"
            ]
        );
    }

    #[test]
    fn an_uncalled_method_a_data_member_and_c_are_left_alone() {
        assert!(outcomes("struct S { int f(); int g; };\nint h(S s) { return s.g; }\n").is_empty());
        let src = "struct S { int (*f)(int); };\nint h(struct S *s) { return s->f(1); }\n";
        let tree = crate::passes::tests::parse(src);
        let c = crate::lang::c::C;
        assert!(MethodToFunction.hunks(&tree, src.as_bytes(), &c).is_empty());
    }

    #[test]
    fn only_this_pass_frees_a_class_kept_for_one_call() {
        // like g++ -fsyntax-only: a call through `s` needs `s`, its class and the member; a
        // plain call needs a free `append`
        let src = "struct Str {\n  int append(long n);\n};\nStr *s;\nvoid f(char *p) { s->append(p - p); }\n";
        let keep = |s: &str| {
            let through = s.contains("s->append(p - p)")
                && s.contains("struct Str {\n  int append(long n);\n};")
                && s.contains("Str *s;");
            let direct = s.contains("{ append(p - p); }") && s.starts_with("int append(long n);");
            !parse_cpp(s).root_node().has_error()
                && s.contains("void f(char *p) {")
                && (through || direct)
        };
        let spec = &crate::lang::cpp::SPEC;
        let fixpoint = |mut text: String| loop {
            let before = text.clone();
            for pass in crate::passes::tests::existing_passes() {
                text = minimize_in(spec, &text, pass.as_ref(), &keep);
            }
            if text == before {
                return text;
            }
        };
        let without = fixpoint(src.to_string());
        assert!(without.contains("struct Str"), "{without}");
        let with = fixpoint(minimize_in(spec, &without, &MethodToFunction, &keep));
        // the blank lines left behind are the final layout's to remove
        assert_eq!(
            with.replace("\n\n", "\n").replace("\n\n", "\n"),
            "int append(long n);\nvoid f(char *p) { append(p - p); }\n"
        );
    }
}
