//! Remove a struct field together with its positional initializers: field `k` goes, and so does
//! the `k`-th element of every brace initializer of the struct (`struct S s = {1, 2, 3}`, arrays
//! of it, compound literals `(struct S){...}`), as one hunk. Only for structs that have such
//! initializers, none designated (`.f = x`), and no anonymous member (positions would not count).

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Hunk, Pass, Preorder, elements, preorder, remove_nth, text};
use crate::lang::table::RewriteTable;

const STRUCT: &str = "struct_specifier";
const INITIALIZER_LIST: &str = "initializer_list";
const DESIGNATED: &str = "initializer_pair";
const ARRAY: &str = "array_declarator";
const COMPOUND_LITERAL: &str = "compound_literal_expression";

pub struct RemoveField;

impl Pass for RemoveField {
    fn name(&self) -> &'static str {
        "remove-field"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        let nodes = preorder(tree);
        let aliases = aliases(&nodes, src, t);
        let key = |ty: Node| -> Option<Vec<u8>> {
            match ty.kind() {
                STRUCT => {
                    let name = ty.child_by_field_name(t.name_field)?;
                    Some([b"struct ".as_slice(), text(name, src)].concat())
                }
                _ if t.names.contains(&ty.kind()) => {
                    let name = text(ty, src);
                    Some(aliases.get(name).cloned().unwrap_or_else(|| name.to_vec()))
                }
                _ => None,
            }
        };
        // per struct: its field declarations, and its brace initializers
        let mut bodies: HashMap<Vec<u8>, Node> = HashMap::new();
        let mut lists: HashMap<Vec<u8>, Vec<Node>> = HashMap::new();
        for n in &nodes {
            if n.kind() == STRUCT
                && let Some(body) = n.child_by_field_name("body")
            {
                let named = key(n).or_else(|| typedef_name(n, src, t));
                bodies.extend(named.map(|k| (k, body)));
            }
            if let Some((ty, value, declarator)) = initialized(n, t)
                && let Some(k) = key(ty)
            {
                lists
                    .entry(k)
                    .or_default()
                    .extend(struct_lists(value, declarator));
            }
        }
        let mut hunks = Vec::new();
        for (k, body) in bodies {
            let Some(inits) = lists.get(&k) else { continue };
            let Some(fields) = fields(body, t) else {
                continue;
            };
            let designated = inits
                .iter()
                .any(|l| elements(*l).iter().any(|e| e.kind() == DESIGNATED));
            if designated {
                continue;
            }
            for (i, (decl, declarators, j)) in fields.iter().enumerate() {
                let field = match declarators.len() {
                    1 => Edit::delete(decl.start_byte(), decl.end_byte()),
                    _ => remove_nth(declarators, *j),
                };
                let mut hunk = vec![field];
                for list in inits {
                    let e = elements(*list);
                    if i < e.len() {
                        hunk.push(remove_nth(&e, i));
                    }
                }
                hunks.push(hunk);
            }
        }
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }
}

/// `typedef struct S {...} T;`: `T` stands for `struct S`.
fn aliases(nodes: &Preorder, src: &[u8], t: &RewriteTable) -> HashMap<Vec<u8>, Vec<u8>> {
    let mut out = HashMap::new();
    for n in nodes.iter().filter(|n| n.kind() == t.type_definition) {
        let Some(ty) = n.child_by_field_name(t.type_field) else {
            continue;
        };
        let Some(name) = ty
            .child_by_field_name(t.name_field)
            .filter(|_| ty.kind() == STRUCT)
        else {
            continue;
        };
        let mut cursor = n.walk();
        for d in n.children_by_field_name(t.declarator_field, &mut cursor) {
            let target = [b"struct ".as_slice(), text(name, src)].concat();
            out.insert(text(d, src).to_vec(), target);
        }
    }
    out
}

/// `typedef struct {...} T;`: the anonymous struct is known as `T`.
fn typedef_name(st: Node, src: &[u8], t: &RewriteTable) -> Option<Vec<u8>> {
    let parent = st.parent().filter(|p| p.kind() == t.type_definition)?;
    let d = parent.child_by_field_name(t.declarator_field)?;
    Some(text(d, src).to_vec())
}

/// A declarator with a brace initializer, or a compound literal: (type, list, declarator).
fn initialized<'t>(
    n: Node<'t>,
    t: &RewriteTable,
) -> Option<(Node<'t>, Node<'t>, Option<Node<'t>>)> {
    if n.kind() == COMPOUND_LITERAL {
        let descriptor = n.child_by_field_name(t.type_field)?;
        let ty = descriptor.child_by_field_name(t.type_field)?;
        let value = n.child_by_field_name("value")?;
        return (value.kind() == INITIALIZER_LIST).then_some((ty, value, None));
    }
    if n.kind() != t.init_declarator {
        return None;
    }
    let value = n.child_by_field_name("value")?;
    let ty = n.parent()?.child_by_field_name(t.type_field)?;
    let declarator = n.child_by_field_name(t.declarator_field);
    (value.kind() == INITIALIZER_LIST).then_some((ty, value, declarator))
}

/// The lists that initialize one struct each: `list` itself, or for an array declarator the
/// lists one level down per dimension.
fn struct_lists<'t>(list: Node<'t>, declarator: Option<Node<'t>>) -> Vec<Node<'t>> {
    let mut level = vec![list];
    let mut d = declarator;
    while let Some(array) = d.filter(|d| d.kind() == ARRAY) {
        level = level
            .iter()
            .flat_map(|l| elements(*l))
            .filter(|e| e.kind() == INITIALIZER_LIST)
            .collect();
        d = array.child_by_field_name("declarator");
    }
    level
}

/// The struct's fields in order: (declaration, its declarators, index of this one); `None`
/// when a member has no declarator (an anonymous struct or union: positions would not count).
fn fields<'t>(body: Node<'t>, t: &RewriteTable) -> Option<Vec<(Node<'t>, Vec<Node<'t>>, usize)>> {
    let mut out = Vec::new();
    let mut cursor = body.walk();
    for decl in body.named_children(&mut cursor) {
        if decl.kind() != t.field_declaration {
            continue;
        }
        let mut c = decl.walk();
        let declarators: Vec<Node> = decl
            .children_by_field_name(t.declarator_field, &mut c)
            .collect();
        if declarators.is_empty() {
            return None;
        }
        for j in 0..declarators.len() {
            out.push((decl, declarators.clone(), j));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::tests::{self, only_this_pass_shrinks, parse};

    fn outcomes(src: &str) -> Vec<String> {
        tests::outcomes(&RemoveField, src)
    }

    #[test]
    fn a_field_goes_with_its_initializers_in_arrays_and_through_typedefs() {
        let src = "typedef struct S { int x; int y, z; } T;\nT a = {1, 2, 3};\nstruct S b[] = {{4, 5, 6}, {7}};\n";
        let out = outcomes(src);
        assert!(out.contains(&"typedef struct S {  int y, z; } T;\nT a = {2, 3};\nstruct S b[] = {{5, 6}, {}};\n".to_string()), "{out:#?}");
        assert!(out.contains(&"typedef struct S { int x; int y; } T;\nT a = {1, 2};\nstruct S b[] = {{4, 5}, {7}};\n".to_string()), "{out:#?}");
    }

    #[test]
    fn designated_initializers_block_the_removal() {
        assert!(outcomes("struct S { int x; int y; };\nstruct S s = {.y = 1};\n").is_empty());
    }

    /// The value `s.b` is initialized with, read positionally as a compiler would (every field
    /// needs a type and a name).
    fn value_of_b(s: &str) -> Option<String> {
        let fields = s.split_once("struct S {")?.1.split_once('}')?.0;
        let names: Vec<&str> = fields
            .split(';')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .collect();
        let inits = s.split_once("s = {")?.1.split_once('}')?.0;
        let values: Vec<&str> = inits.split(',').map(str::trim).collect();
        let k = names.iter().position(|f| *f == "int b")?;
        if !names.iter().all(|f| f.contains(' ')) {
            return None;
        }
        (names.len() == values.len()).then(|| values.get(k).map(|v| v.to_string()))?
    }

    #[test]
    fn only_the_field_pass_drops_an_unused_field_with_its_value() {
        let src = "struct S { int a; int b; };\nstruct S s = {1, 2};\nint main() { f(s.b); }\n";
        let keep = |s: &str| {
            !parse(s).root_node().has_error()
                && s.contains("struct S s = {")
                && s.contains("int main() { f(s.b); }")
                && value_of_b(s).as_deref() == Some("2")
        };
        let out = only_this_pass_shrinks(src, &RemoveField, &keep);
        assert_eq!(
            out,
            "struct S {  int b; };\nstruct S s = {2};\nint main() { f(s.b); }\n"
        );
    }
}
