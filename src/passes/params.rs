//! Remove the k-th parameter of a function and the k-th argument at every call of it, as one
//! hunk (C-Reduce's param-to-local, without the local): only for functions whose every call
//! passes as many arguments as the function has parameters. [`ParamToGlobal`] does the same and
//! declares the parameter as a global before the definition (C-Reduce's param-to-global), so a
//! body that still uses it compiles: a function that crashes on a null argument keeps its
//! crash with a zero-initialized global and no argument to pass.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use super::keywords;

use crate::edits::{Edit, Hunk, Pass, elements, insert_before, preorder, remove_nth, text};
use crate::lang::table::RewriteTable;

pub struct RemoveParameter;

impl Pass for RemoveParameter {
    fn name(&self) -> &'static str {
        "remove-parameter"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        let mut hunks = parameter_hunks(tree, src, t, false);
        hunks.extend(keywords::hunks(tree, src, t));
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }
}

/// A parameter of a defined function becomes a global declared just before the definition.
pub struct ParamToGlobal;

impl Pass for ParamToGlobal {
    fn name(&self) -> &'static str {
        "param-to-global"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        parameter_hunks(tree, src, t, true)
    }

    fn one_at_a_time(&self) -> bool {
        true
    }

    /// `f(T *p)` with `f(0)` becomes `T *p;` and `f()`: one byte more, paid back once the
    /// body's uses of `p` merge with other names or go.
    fn enabling(&self) -> bool {
        true
    }
}

/// The hunks of both passes; with `global`, only for named parameters of a function defined in
/// the file, each hunk also declaring the parameter before the definition.
fn parameter_hunks(tree: &Tree, src: &[u8], t: &RewriteTable, global: bool) -> Vec<Hunk> {
    let nodes = preorder(tree);
    // per function name: its parameter lists (declarations and definition) and its calls
    let mut lists: HashMap<&[u8], Vec<Node>> = HashMap::new();
    let mut calls: HashMap<&[u8], Vec<Node>> = HashMap::new();
    let mut definitions: HashMap<&[u8], Node> = HashMap::new();
    for n in &nodes {
        if n.kind() == t.function_declarator
            && let (Some(name), Some(params)) = (
                n.child_by_field_name(t.declarator_field),
                n.child_by_field_name(t.parameters_field),
            )
            && let Some(name) = last_name(name, t)
        {
            lists.entry(text(name, src)).or_default().push(params);
            if let Some(def) = definition_of(n, t) {
                definitions.insert(text(name, src), def);
            }
        }
        if n.kind() == t.call
            && let (Some(f), Some(args)) = (
                n.child_by_field_name(t.function_field),
                n.child_by_field_name(t.arguments_field),
            )
            && let Some(f) = last_name(f, t)
        {
            calls.entry(text(f, src)).or_default().push(args);
        }
    }
    let mut hunks = Vec::new();
    for (name, params) in &lists {
        let arity = elements(params[0]).len();
        let uses = calls.get(name).map_or(&[][..], Vec::as_slice);
        let consistent = params.iter().all(|p| elements(*p).len() == arity)
            && uses.iter().all(|a| elements(*a).len() == arity);
        if !consistent || is_void(params[0], src) {
            continue;
        }
        let definition = definitions.get(name);
        for k in 0..arity {
            let mut hunk: Hunk = params
                .iter()
                .chain(uses)
                .map(|list| remove_element(*list, k))
                .collect();
            if global {
                let Some(def) = definition else { break };
                let Some(param) = named_parameter(params[0], k, t) else {
                    continue;
                };
                hunk.push(declare_before(*def, param, src));
            }
            hunks.push(hunk);
        }
    }
    hunks
}

/// The name a callee or a declarator ends with: `f`, the method of `a.f` / `p->f`, the `f` of
/// C++'s `A::f` and `f<T>`. Methods are matched by name alone: a name shared by functions of
/// different arities is never touched (see [`parameter_hunks`]), and a wrong match costs one
/// failed test.
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

/// The function definition a function declarator belongs to (through pointer declarators).
fn definition_of<'t>(declarator: Node<'t>, t: &RewriteTable) -> Option<Node<'t>> {
    let mut n = declarator.parent()?;
    loop {
        let kind = n.kind();
        if kind == t.function_definition {
            return Some(n);
        }
        if t.declarations.contains(&kind)
            || kind == t.parameter_declaration
            || t.item_lists.contains(&kind)
        {
            return None;
        }
        n = n.parent()?;
    }
}

/// Parameter `k` of `params` when it is a declaration with a declarator (`int *p`, not `int`
/// or `...`).
fn named_parameter<'t>(params: Node<'t>, k: usize, t: &RewriteTable) -> Option<Node<'t>> {
    let p = *elements(params).get(k)?;
    (p.kind() == t.parameter_declaration && p.child_by_field_name(t.declarator_field).is_some())
        .then_some(p)
}

/// Writes `param;` on a line of its own before `def` (an edit of the definition's first token).
fn declare_before(def: Node, param: Node, src: &[u8]) -> Edit {
    let mut with = text(param, src).to_vec();
    with.extend_from_slice(b";\n");
    insert_before(def, &with, src)
}

/// `(void)`: no parameter to remove.
fn is_void(params: Node, src: &[u8]) -> bool {
    let e = elements(params);
    e.len() == 1 && text(e[0], src) == b"void"
}

/// Deletes element `k` with one of its commas.
fn remove_element(list: Node, k: usize) -> Edit {
    remove_nth(&elements(list), k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::parse;

    fn apply(src: &str, hunk: &Hunk) -> String {
        let mut space = crate::edits::EditSpace::new(src.as_bytes().to_vec());
        space.next_layer(&[], vec![hunk.clone()]);
        String::from_utf8(space.render(&[])).unwrap()
    }

    #[test]
    fn a_parameter_goes_with_its_argument_at_every_call() {
        let src = "int f(int a, char *b);\nint f(int a, char *b) { return a; }\nint main() { return f(1, 0) + f(2, 0); }\n";
        let tree = parse(src);
        let hunks = RemoveParameter.hunks(&tree, src.as_bytes(), &C);
        let out: Vec<String> = hunks.iter().map(|h| apply(src, h)).collect();
        assert!(
            out.contains(
                &"int f(int a);\nint f(int a) { return a; }\nint main() { return f(1) + f(2); }\n"
                    .to_string()
            ),
            "{out:#?}"
        );
        assert!(out.contains(
            &"int f(char *b);\nint f(char *b) { return a; }\nint main() { return f(0) + f(0); }\n"
                .to_string()
        ), "{out:#?}");
    }

    #[test]
    fn a_call_with_another_arity_blocks_the_removal() {
        let src = "int g();\nint g(int a) { return a; }\nint main() { return g(1, 2); }\n";
        let tree = parse(src);
        assert!(RemoveParameter.hunks(&tree, src.as_bytes(), &C).is_empty());
    }

    #[test]
    fn a_parameter_becomes_a_global_before_the_definition() {
        let src = "int f(int a, char *b);\nint f(int a, char *b) { return *b; }\nint main() { return f(1, 0); }\n";
        let tree = parse(src);
        let hunks = ParamToGlobal.hunks(&tree, src.as_bytes(), &C);
        let out: Vec<String> = hunks.iter().map(|h| apply(src, h)).collect();
        assert!(
            out.contains(
                &"int f(int a);\nchar *b;\nint f(int a) { return *b; }\nint main() { return f(1); }\n"
                    .to_string()
            ),
            "{out:#?}"
        );
        assert_eq!(out.len(), 2, "{out:#?}");
    }

    #[test]
    fn only_param_to_global_drops_a_used_parameter() {
        // the body needs `p`; every call must match the definition
        let src = "int f(int *p) { return *p; }\nint main() { return f(0) + f(0) + f(0); }\n";
        let keep = |s: &str| {
            let with_param = s.contains("int f(int *p)") && s.matches("f(0)").count() == 3;
            let global =
                s.contains("int *p;") && s.contains("int f()") && s.matches("f()").count() == 4;
            !parse(s).root_node().has_error() && s.contains("return *p;") && (with_param || global)
        };
        let out = crate::passes::tests::only_this_pass_shrinks(src, &ParamToGlobal, &keep);
        assert!(out.starts_with("int *p;\nint f()"), "{out}");
    }
}
