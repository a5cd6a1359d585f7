//! Identifier merging (Vulcan's largest gain): rename every use of a name `B` to another name
//! `A` of the same sort (function, type, variable) and delete `B`'s declarations, as one hunk.
//! Pairs go cheapest first: for each `B`, the nearest declared names of its sort.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use super::names::declared_names;
use super::windows::MAX_TOKENS;
use crate::edits::{Edit, Hunk, Pass, Preorder, preorder, shrinks, text};
use crate::lang::table::RewriteTable;

/// How many names `A` each `B` may merge into.
const CHOICES: usize = 3;

pub struct MergeNames;

/// What a declaration declares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Sort {
    Function,
    Type,
    Variable,
}

/// A name with its declarations (byte ranges) and sort.
struct Declared<'s> {
    name: &'s [u8],
    sort: Sort,
    sites: Vec<(usize, usize)>,
    /// For a plain typedef (`typedef T name;`): `T`, which can replace the name everywhere.
    underlying: Option<&'s [u8]>,
    /// A parameter: a name to merge into, never one that goes (its site is not deletable).
    target_only: bool,
}

impl Pass for MergeNames {
    fn name(&self) -> &'static str {
        "merge-identifiers"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        let nodes = preorder(tree);
        if nodes.iter().filter(|n| n.child_count() == 0).count() > MAX_TOKENS {
            return Vec::new();
        }
        let declared = declarations(&nodes, src, t);
        let mut uses: HashMap<&[u8], Vec<(usize, usize)>> = HashMap::new();
        for n in &nodes {
            if t.mergeable.contains(&n.kind()) {
                uses.entry(text(n, src))
                    .or_default()
                    .push((n.start_byte(), n.end_byte()));
            }
        }
        let mut hunks = Vec::new();
        for b in declared.iter().filter(|b| !b.target_only) {
            let b_uses = uses.get(b.name).map_or(&[][..], Vec::as_slice);
            // inlining a typedef first: the uses get the underlying type
            hunks.extend(
                b.underlying
                    .map(|u| merge(b, u, b_uses))
                    .filter(|h| shrinks(h)),
            );
            let mut others: Vec<&Declared> = declared
                .iter()
                .filter(|a| a.sort == b.sort && a.name != b.name)
                .collect();
            others.sort_by_key(|a| a.sites[0].0.abs_diff(b.sites[0].0));
            // a longer name at many uses can grow the text: such a merge could never be kept
            let merges = others
                .into_iter()
                .take(CHOICES)
                .map(|a| merge(b, a.name, b_uses));
            hunks.extend(merges.filter(|h| shrinks(h)));
        }
        hunks
    }

    fn one_at_a_time(&self) -> bool {
        true
    }
}

/// Rename the uses of `b` outside its declarations to `a`, and delete the declarations.
fn merge(b: &Declared, a: &[u8], uses: &[(usize, usize)]) -> Hunk {
    let inside = |&(s, e): &(usize, usize)| b.sites.iter().any(|&(ds, de)| ds <= s && e <= de);
    let mut hunk: Hunk = uses
        .iter()
        .filter(|u| !inside(u))
        .map(|&(s, e)| Edit::new(s, e, a))
        .collect();
    hunk.extend(b.sites.iter().map(|&(s, e)| Edit::delete(s, e)));
    hunk
}

/// Names declared by declarations that declare exactly one name, with every such site.
fn declarations<'s>(nodes: &Preorder, src: &'s [u8], t: &RewriteTable) -> Vec<Declared<'s>> {
    let mut by_name: Vec<Declared<'s>> = Vec::new();
    let mut index: HashMap<&[u8], usize> = HashMap::new();
    for n in nodes {
        let parameter = n.kind() == t.parameter_declaration;
        let named = named_sort(n, t);
        if !t.declarations.contains(&n.kind()) && !parameter && named.is_none() {
            continue;
        }
        let names = match named {
            Some(_) => n
                .child_by_field_name("name")
                .filter(|name| t.mergeable.contains(&name.kind()))
                .map(|name| vec![text(name, src)])
                .unwrap_or_default(),
            None => declared_names(n, src, t),
        };
        let [name] = names[..] else { continue };
        let sort = match (parameter, named) {
            (true, _) => Sort::Variable,
            (false, Some(sort)) => sort,
            (false, None) => sort_of(n, t),
        };
        let site = (n.start_byte(), n.end_byte());
        match index.get(name) {
            Some(&i) if by_name[i].sort == sort && !parameter && !by_name[i].target_only => {
                by_name[i].sites.push(site)
            }
            Some(_) => {}
            None => {
                index.insert(name, by_name.len());
                by_name.push(Declared {
                    name,
                    sort,
                    sites: vec![site],
                    underlying: underlying(n, src, t),
                    target_only: parameter,
                });
            }
        }
    }
    by_name
}

/// `T` of `typedef T name;` when the declarator is the bare name.
fn underlying<'s>(n: Node, src: &'s [u8], t: &RewriteTable) -> Option<&'s [u8]> {
    if n.kind() != t.type_definition {
        return None;
    }
    let d = n.child_by_field_name(t.declarator_field)?;
    let ty = n.child_by_field_name(t.type_field)?;
    (t.mergeable.contains(&d.kind()) && ty.child_by_field_name(t.body_field).is_none())
        .then(|| text(ty, src))
}

/// The sort of an item the table names for merging by its `name` field.
fn named_sort(n: Node, t: &RewriteTable) -> Option<Sort> {
    let kind = n.kind();
    match (
        t.merged_functions.contains(&kind),
        t.merged_types.contains(&kind),
    ) {
        (true, _) => Some(Sort::Function),
        (_, true) => Some(Sort::Type),
        _ => None,
    }
}

fn sort_of(n: Node, t: &RewriteTable) -> Sort {
    if n.kind() == t.type_definition {
        return Sort::Type;
    }
    let mut cursor = n.walk();
    let function = n
        .children_by_field_name(t.declarator_field, &mut cursor)
        .any(|d| d.kind() == t.function_declarator);
    match function {
        true => Sort::Function,
        false => Sort::Variable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::c::C;
    use crate::passes::tests::parse;

    #[test]
    fn merging_renames_the_uses_and_deletes_the_declaration() {
        let src = "int a;\nint bb;\nint main() { return a + bb; }\n";
        let tree = parse(src);
        let hunks = MergeNames.hunks(&tree, src.as_bytes(), &C);
        let mut space = crate::edits::EditSpace::new(src.as_bytes().to_vec());
        let bb_into_a = hunks
            .iter()
            .position(|h| h.iter().any(|e| &*e.with == b"a"))
            .expect("a hunk renames bb to a");
        space.next_layer(&[], vec![hunks[bb_into_a].clone()]);
        assert_eq!(
            String::from_utf8(space.render(&[])).unwrap(),
            "int a;\n\nint main() { return a + a; }\n"
        );
    }

    /// A short name used often, merged into a long one, would grow the text: that merge is
    /// not proposed (the best only gets smaller), the other way round is.
    #[test]
    fn a_merge_that_grows_the_text_is_not_proposed() {
        let src = "int b;\nint longer_name;\nint main() { return b + b + b + b + longer_name; }\n";
        let tree = parse(src);
        let hunks = MergeNames.hunks(&tree, src.as_bytes(), &C);
        let into = |name: &[u8]| hunks.iter().any(|h| h.iter().any(|e| &*e.with == name));
        assert!(!into(b"longer_name"), "{hunks:?}");
        assert!(into(b"b"));
        assert!(hunks.iter().all(|h| super::shrinks(h)));
    }

    #[test]
    fn a_typedef_is_inlined_at_its_uses() {
        let src = "typedef unsigned long T;\nT x;\n";
        let tree = parse(src);
        let hunks = MergeNames.hunks(&tree, src.as_bytes(), &C);
        let mut space = crate::edits::EditSpace::new(src.as_bytes().to_vec());
        space.next_layer(&[], vec![hunks[0].clone()]);
        assert_eq!(
            String::from_utf8(space.render(&[])).unwrap(),
            "\nunsigned long x;\n"
        );
    }

    #[test]
    fn a_typedef_tree_sitter_reads_as_primitive_is_inlined_too() {
        let src = "typedef long unsigned size_t;\nint f(size_t);\n";
        let tree = parse(src);
        let hunks = MergeNames.hunks(&tree, src.as_bytes(), &C);
        let mut space = crate::edits::EditSpace::new(src.as_bytes().to_vec());
        space.next_layer(&[], vec![hunks[0].clone()]);
        assert_eq!(
            String::from_utf8(space.render(&[])).unwrap(),
            "\nint f(long unsigned);\n"
        );
    }

    #[test]
    fn a_local_merges_into_a_parameter() {
        let src = "int f(int *p) {\n    int *q;\n    return *q;\n}\n";
        let tree = parse(src);
        let hunks = MergeNames.hunks(&tree, src.as_bytes(), &C);
        let mut space = crate::edits::EditSpace::new(src.as_bytes().to_vec());
        space.next_layer(&[], hunks);
        assert_eq!(
            String::from_utf8(space.render(&[])).unwrap(),
            "int f(int *p) {\n    \n    return *p;\n}\n"
        );
    }

    #[test]
    fn only_names_of_the_same_sort_merge() {
        let src = "typedef int T;\nint f(void);\nint x;\nint main() { T y = f(); return x; }\n";
        let tree = parse(src);
        let hunks = MergeNames.hunks(&tree, src.as_bytes(), &C);
        for h in &hunks {
            let renames: Vec<&[u8]> = h
                .iter()
                .filter(|e| !e.with.is_empty())
                .map(|e| &*e.with)
                .collect();
            let deleted = h
                .iter()
                .find(|e| e.with.is_empty())
                .map(|e| &src[e.start as usize..e.end as usize]);
            // functions merge with functions (main, f), never with x or T
            if deleted == Some("int f(void);") {
                assert!(renames.iter().all(|r| *r == b"main"), "{renames:?}");
            }
            if deleted == Some("typedef int T;") {
                assert_eq!(
                    renames,
                    [b"int"],
                    "T is only inlined: no other type to merge into"
                );
            }
        }
    }
}
