//! A struct with one field becomes that field (C-Reduce's aggregate-to-scalar, for the case
//! where it keeps the layout): `typedef struct { T *f; } S;` goes, every use of the type `S` (or
//! `struct Tag`) becomes `T *`, `e->f` becomes `e[0]` and `e.f` becomes `e`, as one hunk. Only
//! when no other struct has a field of that name (so every `.f`/`->f` is this one), the field is
//! a plain or pointer declarator (no array, bit-field or function), and no declaration of several
//! names uses the type (`S a, b;` would not survive a pointer type).

use std::collections::HashSet;

use tree_sitter::{Node, Tree};

use crate::edits::{Edit, Hunk, Pass, Preorder, preorder, text};
use crate::lang::table::RewriteTable;

const STRUCT: &str = "struct_specifier";
const TYPE_NAME: &str = "type_identifier";
const FIELD_NAME: &str = "field_identifier";
const FIELD_EXPRESSION: &str = "field_expression";

pub struct FlattenStruct;

impl Pass for FlattenStruct {
    fn name(&self) -> &'static str {
        "one-field-struct"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        let nodes = preorder(tree);
        let mut hunks = Vec::new();
        for n in &nodes {
            if n.kind() != STRUCT {
                continue;
            }
            let Some(def) = Definition::of(n, src, t) else {
                continue;
            };
            if def.field_is_shared(&nodes, src) || def.used_in_a_list(&nodes, src, t) {
                continue;
            }
            let mut hunk = vec![Edit::delete(def.item.start, def.item.end)];
            hunk.extend(def.uses(&nodes, src));
            hunks.push(hunk);
        }
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }
}

/// A one-field struct's definition: the item to delete, the names it goes by, its field.
struct Definition<'t> {
    item: std::ops::Range<usize>,
    /// `Tag` (as in `struct Tag`) and typedef names.
    tag: Option<Vec<u8>>,
    names: HashSet<Vec<u8>>,
    field: Vec<u8>,
    field_node: Node<'t>,
    /// The field's type with its pointer stars (`Proto *`).
    scalar: Vec<u8>,
}

impl<'t> Definition<'t> {
    fn of(st: Node<'t>, src: &[u8], t: &RewriteTable) -> Option<Self> {
        let (name, field_type, scalar) = only_field(st, src, t)?;
        let tag = st
            .child_by_field_name(t.name_field)
            .map(|n| text(n, src).to_vec());
        let (item, names) = item_of(st, src, t)?;
        let own = |w: &[u8]| tag.as_deref() == Some(w) || names.contains(w);
        if tag.is_none() && names.is_empty() || own_word(field_type, &own) {
            return None;
        }
        Some(Definition {
            item,
            tag,
            names,
            field: text(name, src).to_vec(),
            field_node: name,
            scalar,
        })
    }

    /// Another struct or union declares a field of the same name (or an initializer
    /// designates one).
    fn field_is_shared(&self, nodes: &Preorder, src: &[u8]) -> bool {
        nodes.iter().any(|n| {
            n.kind() == FIELD_NAME
                && n.id() != self.field_node.id()
                && n.parent().is_some_and(|p| p.kind() != FIELD_EXPRESSION)
                && text(n, src) == self.field
        })
    }

    /// A use of the type declares several names at once (`S a, b;`).
    fn used_in_a_list(&self, nodes: &Preorder, src: &[u8], t: &RewriteTable) -> bool {
        nodes.iter().any(|n| {
            let Some(ty) = n.child_by_field_name(t.type_field) else {
                return false;
            };
            let mut c = n.walk();
            self.is_use(ty, src) && n.children_by_field_name(t.declarator_field, &mut c).count() > 1
        })
    }

    fn is_use(&self, n: Node, src: &[u8]) -> bool {
        let inside = self.item.start <= n.start_byte() && n.end_byte() <= self.item.end;
        let named = match n.kind() {
            TYPE_NAME => self.names.contains(text(n, src)),
            STRUCT => {
                n.child_by_field_name("body").is_none()
                    && n.child_by_field_name("name")
                        .is_some_and(|m| self.tag.as_deref() == Some(text(m, src)))
            }
            _ => false,
        };
        named && !inside
    }

    /// The edits at every use: the type becomes the field's type, `->f` becomes `[0]`, `.f` goes.
    fn uses(&self, nodes: &Preorder, src: &[u8]) -> Vec<Edit> {
        let mut out = Vec::new();
        for n in nodes {
            if self.is_use(n, src) {
                out.push(Edit::new(n.start_byte(), n.end_byte(), &self.scalar));
            }
            if n.kind() == FIELD_EXPRESSION
                && let (Some(arg), Some(f)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("field"),
                )
                && text(f, src) == self.field
            {
                let arrow = n
                    .child_by_field_name("operator")
                    .is_some_and(|o| text(o, src) == b"->");
                let with: &[u8] = if arrow { b"[0]" } else { b"" };
                out.push(Edit::new(arg.end_byte(), n.end_byte(), with));
            }
        }
        out
    }
}

/// The struct's only member when it is one plain or pointer field `T *f`: the field's name, its
/// type `T` and that type with the stars (`T *`, `T **`).
fn only_field<'t, 's>(
    st: Node<'t>,
    src: &'s [u8],
    t: &RewriteTable,
) -> Option<(Node<'t>, &'s [u8], Vec<u8>)> {
    let body = st.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let members: Vec<Node> = body.named_children(&mut cursor).collect();
    let [decl] = members[..] else { return None };
    let mut c = decl.walk();
    let declarators: Vec<Node> = decl
        .children_by_field_name(t.declarator_field, &mut c)
        .collect();
    let [declarator] = declarators[..] else {
        return None;
    };
    let mut name = declarator;
    while let Some(inner) = name.child_by_field_name(t.declarator_field) {
        name = inner;
    }
    let stars = &src[declarator.start_byte()..name.start_byte()];
    let plain = name.end_byte() == declarator.end_byte()
        && stars.iter().all(|c| *c == b'*' || c.is_ascii_whitespace());
    if decl.kind() != t.field_declaration
        || name.kind() != FIELD_NAME
        || !plain
        || text(decl, src).contains(&b':')
    {
        return None;
    }
    let field_type = src[decl.start_byte()..declarator.start_byte()].trim_ascii();
    let mut scalar = field_type.to_vec();
    if stars.contains(&b'*') {
        scalar.push(b' ');
        scalar.extend(stars.iter().filter(|c| **c == b'*'));
    }
    Some((name, field_type, scalar))
}

/// The bytes of the struct's definition (`typedef struct ... S;` declaring one name, or
/// `struct Tag {...};` among the items) and the typedef's name.
fn item_of(
    st: Node,
    src: &[u8],
    t: &RewriteTable,
) -> Option<(std::ops::Range<usize>, HashSet<Vec<u8>>)> {
    let parent = st.parent()?;
    if parent.kind() == t.type_definition {
        let mut c = parent.walk();
        let ds: Vec<Node> = parent
            .children_by_field_name(t.declarator_field, &mut c)
            .collect();
        let [d] = ds[..] else { return None };
        return Some((parent.byte_range(), HashSet::from([text(d, src).to_vec()])));
    }
    if !t.item_lists.contains(&parent.kind()) {
        return None;
    }
    let end = match st.next_sibling() {
        Some(s) if s.kind() == ";" => s.end_byte(),
        _ => st.end_byte(),
    };
    Some((st.start_byte()..end, HashSet::new()))
}

/// Whether a word of `ty` is one of the struct's own names (a self-reference).
fn own_word(ty: &[u8], own: &dyn Fn(&[u8]) -> bool) -> bool {
    ty.split(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .any(own)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::tests::{self, only_this_pass_shrinks, parse};

    fn outcomes(src: &str) -> Vec<String> {
        tests::outcomes(&FlattenStruct, src)
    }

    #[test]
    fn a_chain_of_one_field_structs_flattens_one_link_at_a_time() {
        let src = "typedef struct { int *v; } P;\nstruct F { P *f; };\nint g(struct F *fs, P p) { return *fs->f->v + *p.v; }\n";
        let out = outcomes(src);
        assert_eq!(out.len(), 2, "{out:#?}");
        assert!(out.contains(&"\nstruct F { int * *f; };\nint g(struct F *fs, int * p) { return *fs->f[0] + *p; }\n".to_string()), "{out:#?}");
        assert!(out.contains(&"typedef struct { int *v; } P;\n\nint g(P * *fs, P p) { return *fs[0]->v + *p.v; }\n".to_string()), "{out:#?}");
    }

    #[test]
    fn the_field_type_keeps_its_stars_and_nothing_else() {
        let out =
            outcomes("struct T { char * * p; };\nstruct U { long n; };\nstruct T t; struct U u;\n");
        assert!(
            out.contains(&"\nstruct U { long n; };\nchar ** t; struct U u;\n".to_string()),
            "{out:#?}"
        );
        assert!(
            out.contains(&"struct T { char * * p; };\n\nstruct T t; long u;\n".to_string()),
            "{out:#?}"
        );
    }

    #[test]
    fn a_shared_field_name_or_a_list_of_declarators_blocks_it() {
        assert!(outcomes("struct A { int x; };\nstruct B { int x; int y; };\n").is_empty());
        assert!(outcomes("typedef struct { int *x; } A;\nA a, b;\n").is_empty());
        assert!(outcomes("struct L { struct L *next; };\n").is_empty());
    }

    #[test]
    fn only_flattening_removes_a_wrapper_struct() {
        // the test: `g` still reads the int behind two pointers, through the struct or not
        let src = "struct W { int *p; };\nint g(struct W *w) { return *w->p; }\n";
        let keep = |s: &str| {
            let wrapped = s.contains("struct W { int *p; };")
                && s.contains("(struct W *w)")
                && s.contains("return *w->p;");
            let flat = s.contains("(int * *w)") && s.contains("return *w[0];");
            !parse(s).root_node().has_error() && s.contains("int g(") && (wrapped || flat)
        };
        let out = only_this_pass_shrinks(src, &FlattenStruct, &keep);
        assert_eq!(out, "\nint g(int * *w) { return *w[0]; }\n");
    }
}
