//! Remove a parameter of a function and its argument at every call, where a call may pass an
//! argument by position or by keyword (Python): `def f(a, b=1)` called as `f(1, b=2)` and `f(3)`
//! becomes `def f(a)`, `f(1)`, `f(3)`. One hunk per parameter, part of `remove-parameter`
//! ([`super::params`] lists C's, whose functions are declarators).
//!
//! Calls are matched by name: a function's are the calls of its name (`f(..)`, `m.f(..)`), a
//! method's the calls `o.f(..)` (whose arguments start after the receiver, `self`), and a
//! class's `__init__`'s or `__new__`'s the calls of the class (`C(..)`, `m.C(..)`). Left alone:
//! a name defined twice (two classes' `get`, a class with both `__new__` and `__init__`, which
//! take the same arguments), a decorated definition (the decorator may change the
//! signature), a name some call reaches with `*a` or `**k` (positions and names unknowable),
//! the receiver, and the methods the interpreter calls itself (`__eq__`, any other `__x__`):
//! a hunk for them could only fail. A wrong match costs one failed test, never a wrong result.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use crate::edits::{Hunk, elements, preorder, remove_nth, text};
use crate::lang::table::{KeywordParams, RewriteTable};

const PARAMETERS: &str = "parameters";
const ARGUMENTS: &str = "arguments";

/// One definition: its parameter list, and whether its first parameter is the receiver (and its
/// calls are `o.f(..)` only: a plain `f(..)` is some other function's call).
struct Definition<'t> {
    params: Node<'t>,
    method: bool,
    receiver: bool,
}

/// One call: its arguments, how many of them come by position, and whether its callee was
/// `o.f` rather than `f`.
struct Call<'t> {
    args: Vec<Node<'t>>,
    positional: usize,
    attribute: bool,
}

/// The hunks of `t`'s language (none without [`RewriteTable::keyword_params`]).
pub fn hunks(tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
    let Some(k) = &t.keyword_params else {
        return Vec::new();
    };
    let mut definitions: HashMap<&[u8], Vec<Definition>> = HashMap::new();
    let mut calls: HashMap<&[u8], Vec<Call>> = HashMap::new();
    let mut blocked: HashSet<&[u8]> = HashSet::new();
    for n in preorder(tree) {
        if n.kind() == k.definition {
            let (Some(name), Some(params)) = (
                n.child_by_field_name(t.name_field),
                n.child_by_field_name(PARAMETERS),
            ) else {
                continue;
            };
            let name = text(name, src);
            let class = enclosing_class(n, k);
            let constructor = k.constructors.iter().any(|c| c.as_bytes() == name);
            let key = match class.and_then(|c| c.child_by_field_name(t.name_field)) {
                Some(c) if constructor => text(c, src),
                _ => name,
            };
            let decorated = n.parent().is_some_and(|p| p.kind() == k.decorated);
            let dunder = name.len() > 4 && name.starts_with(b"__") && name.ends_with(b"__");
            if decorated || (dunder && !constructor) {
                blocked.insert(key);
            }
            definitions.entry(key).or_default().push(Definition {
                params,
                method: class.is_some() && !constructor,
                receiver: class.is_some(),
            });
        } else if n.kind() == t.call {
            let (Some(f), Some(args)) = (
                n.child_by_field_name(t.function_field),
                n.child_by_field_name(ARGUMENTS),
            ) else {
                continue;
            };
            let (name, attribute) = match f.kind() {
                kind if t.names.contains(&kind) => (text(f, src), false),
                kind if kind == k.attribute => match f.child_by_field_name(k.attribute) {
                    Some(a) => (text(a, src), true),
                    None => continue,
                },
                _ => continue,
            };
            let args_kind = args.kind();
            let args = elements(args);
            // `f(x for x in xs)` has no list; `f(*a)` and `f(**k)` no knowable positions
            if args_kind != k.arguments
                || args.iter().any(|a| k.splat_arguments.contains(&a.kind()))
            {
                blocked.insert(name);
            }
            let positional = args
                .iter()
                .take_while(|a| a.kind() != k.keyword_argument)
                .count();
            calls.entry(name).or_default().push(Call {
                args,
                positional,
                attribute,
            });
        }
    }
    let mut hunks = Vec::new();
    for (name, defs) in &definitions {
        let [def] = defs.as_slice() else { continue };
        if blocked.contains(name) {
            continue;
        }
        let uses: Vec<&Call> = calls
            .get(name)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter(|c| c.attribute || !def.method)
            .collect();
        hunks.extend(parameter_hunks(def, &uses, src, k));
    }
    // the same hunks in the same order whatever the map's order
    hunks.sort_by_key(|h: &Hunk| h.first().map(|e| e.start));
    hunks
}

/// The class whose body `def` is a method of.
fn enclosing_class<'t>(def: Node<'t>, k: &KeywordParams) -> Option<Node<'t>> {
    let mut n = def.parent()?;
    if n.kind() == k.decorated {
        n = n.parent()?;
    }
    let class = n.parent()?;
    (class.kind() == k.class).then_some(class)
}

/// One hunk per parameter of `def` that is a plain name (with or without a type or default).
fn parameter_hunks(def: &Definition, calls: &[&Call], src: &[u8], k: &KeywordParams) -> Vec<Hunk> {
    let params = elements(def.params);
    let mut hunks = Vec::new();
    let mut keyword_only = false;
    // the position a caller passes the parameter at (the receiver is not passed)
    let mut position = 0usize;
    let mut receiver = def.receiver;
    for (j, p) in params.iter().enumerate() {
        let kind = p.kind();
        if k.keyword_only_markers.contains(&kind) {
            keyword_only = true;
            continue;
        }
        if k.other_markers.contains(&kind) {
            continue;
        }
        let name = match kind {
            _ if kind == k.typed => p.named_child(0).filter(|n| n.kind() == "identifier"),
            _ if k.defaulted.contains(&kind) => p.child_by_field_name("name"),
            "identifier" => Some(*p),
            _ => None,
        };
        if std::mem::take(&mut receiver) {
            continue;
        }
        let at = (!keyword_only).then_some(position);
        position += 1;
        let Some(name) = name else { continue };
        let mut hunk = vec![remove_nth(&params, j)];
        for call in calls {
            let by_keyword = || {
                call.args.iter().position(|a| {
                    a.kind() == k.keyword_argument
                        && a.child_by_field_name("name")
                            .is_some_and(|n| text(n, src) == text(name, src))
                })
            };
            match at.filter(|&i| i < call.positional).or_else(by_keyword) {
                Some(i) => hunk.push(remove_nth(&call.args, i)),
                None => continue,
            }
        }
        hunks.push(hunk);
    }
    hunks
}

#[cfg(test)]
mod tests {
    use crate::lang::python;
    use crate::passes::params::RemoveParameter;
    use crate::passes::tests::{outcomes_in, parse_in, shrink_with};

    fn candidates(src: &str) -> Vec<String> {
        outcomes_in(&python::SPEC, &RemoveParameter, src)
    }

    #[test]
    fn a_parameter_goes_with_its_argument_by_position_or_by_keyword() {
        let src = "def f(a, b=1):\n    return a\nf(1, b=2)\nf(3)\nf(4, 5)\n";
        let out = candidates(src);
        assert!(
            out.contains(&"def f(b=1):\n    return a\nf(b=2)\nf()\nf(5)\n".to_string()),
            "{out:#?}"
        );
        assert!(
            out.contains(&"def f(a):\n    return a\nf(1)\nf(3)\nf(4)\n".to_string()),
            "{out:#?}"
        );
        assert_eq!(out.len(), 2, "{out:#?}");
    }

    #[test]
    fn a_constructor_goes_with_the_calls_of_its_class_and_a_method_with_o_dot_f() {
        let src = "class C:\n    def __init__(self, x, y):\n        self.m(x, y)\n    def m(self, p, q):\n        pass\nC(1, y=2)\n";
        let out = candidates(src);
        // the receiver stays; the class's call loses the argument of `x`
        assert!(
            out.contains(&"class C:\n    def __init__(self, y):\n        self.m(x, y)\n    def m(self, p, q):\n        pass\nC(y=2)\n".to_string()),
            "{out:#?}"
        );
        assert!(
            out.contains(&"class C:\n    def __init__(self, x, y):\n        self.m(y)\n    def m(self, q):\n        pass\nC(1, y=2)\n".to_string()),
            "{out:#?}"
        );
        assert_eq!(out.len(), 4, "x, y, p, q: {out:#?}");
    }

    #[test]
    fn keyword_only_parameters_go_by_name_only() {
        let src = "def f(a, *, k=0):\n    pass\nf(1, k=2)\n";
        assert_eq!(
            candidates(src),
            [
                "def f(*, k=0):\n    pass\nf(k=2)\n",
                "def f(a, *):\n    pass\nf(1)\n",
            ]
        );
    }

    #[test]
    fn new_takes_the_class_arguments_and_a_class_with_new_and_init_is_left_alone() {
        let src = "class F:\n    def __new__(cls, n, d):\n        raise E(n)\nF(1, 0)\n";
        assert_eq!(
            candidates(src),
            [
                "class F:\n    def __new__(cls, d):\n        raise E(n)\nF(0)\n",
                "class F:\n    def __new__(cls, n):\n        raise E(n)\nF(1)\n",
            ]
        );
        let both = "class F:\n    def __new__(cls, n):\n        pass\n    def __init__(self, n):\n        pass\nF(1)\n";
        assert!(candidates(both).is_empty(), "{:#?}", candidates(both));
    }

    #[test]
    fn splats_decorators_dunders_and_names_defined_twice_are_left_alone() {
        for src in [
            "def f(a):\n    pass\nf(*xs)\n",
            "def f(a):\n    pass\nf(**kw)\n",
            "@wraps\ndef f(a):\n    pass\nf(1)\n",
            "class C:\n    def __eq__(self, other):\n        return 1\n",
            "class A:\n    def get(self, k):\n        pass\nclass B:\n    def get(self, k, d):\n        pass\nA().get(1)\n",
        ] {
            assert!(candidates(src).is_empty(), "{src}: {:#?}", candidates(src));
        }
    }

    #[test]
    fn only_this_pass_removes_a_parameter_that_every_call_passes() {
        // Python's rule, as the test of a reduction would see it: every call passes what the
        // definition takes. Deleting `a` or one of its arguments alone breaks a call.
        let keep = |s: &str| {
            let Some((_, rest)) = s.split_once("def f(") else {
                return false;
            };
            let count = |list: &str| list.split(',').filter(|x| !x.trim().is_empty()).count();
            let arity = count(rest.split(')').next().unwrap());
            let calls: Vec<&str> = s.split("\nf(").skip(1).collect();
            !parse_in(&python::SPEC, s).root_node().has_error()
                && s.contains("b.missing")
                && calls.len() == 2
                && calls
                    .iter()
                    .all(|c| count(c.split(')').next().unwrap()) == arity)
        };
        let src = "def f(a, b):\n    return b.missing\nf(1, {})\nf(2, b={})\n";
        let out = shrink_with(&python::SPEC, src, &RemoveParameter, &keep);
        // both calls kept an argument each: the one of `b`
        assert!(out.starts_with("def f(b):"), "{out}");
    }
}
