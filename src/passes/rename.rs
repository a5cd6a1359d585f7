//! `--rename`: every name the file declares (functions, variables, parameters, types, struct
//! fields, enumerators, macros) gets a short one (`a`, `b`, ..., `z`, `aa`, ...) at its
//! declaration and at every use, the most used names getting the shortest. Saves bytes, not
//! tokens, and makes a result harder to map back to the original, so it is off by default and
//! runs once, after the other passes. One hunk per name; a new name never appears anywhere in the
//! file (nor is a C keyword), so any subset of the hunks is a consistent renaming. Names that
//! occur in a macro body are left alone (a rename would miss those uses).

use std::collections::{HashMap, HashSet};

use tree_sitter::Tree;

use super::names::declared_names;
use crate::edits::{Edit, Hunk, Pass, preorder, text};
use crate::lang::table::RewriteTable;

pub struct Rename;

/// Byte ranges of a name's occurrences.
type Sites = Vec<(usize, usize)>;

/// Words a new name must not be.
const KEYWORDS: &[&str] = &[
    "asm", "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "typeof", "union", "unsigned", "void", "volatile", "while",
];

impl Pass for Rename {
    fn name(&self) -> &'static str {
        "rename"
    }

    fn edits(&self, _tree: &Tree, _src: &[u8], _t: &RewriteTable) -> Vec<Edit> {
        Vec::new()
    }

    fn hunks(&self, tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Hunk> {
        let nodes = preorder(tree);
        let mut declared: HashSet<&[u8]> = HashSet::new();
        let mut in_macros: HashSet<&[u8]> = HashSet::new();
        let mut uses: HashMap<&[u8], Sites> = HashMap::new();
        for n in &nodes {
            let kind = n.kind();
            let declares = t.declarations.contains(&kind)
                || kind == t.parameter_declaration
                || kind == t.field_declaration
                || t.named_items.contains(&kind)
                || t.tagged_types.contains(&kind) && n.child_by_field_name(t.body_field).is_some();
            if declares {
                declared.extend(declared_names(n, src, t));
            }
            if t.raw_text.contains(&kind) {
                in_macros.extend(words(text(n, src)));
            }
            if t.names.contains(&kind) && n.child_count() == 0 {
                uses.entry(text(n, src))
                    .or_default()
                    .push((n.start_byte(), n.end_byte()));
            }
        }
        let taken: HashSet<&[u8]> = words(src).collect();
        let mut order: Vec<(&[u8], &Sites)> = uses
            .iter()
            .filter(|(name, _)| declared.contains(*name) && !in_macros.contains(*name))
            .map(|(name, sites)| (*name, sites))
            .collect();
        // most used first (ties by name, so the order is a function of the text)
        order.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
        let mut fresh = ShortNames::default();
        let mut hunks = Vec::new();
        for (name, sites) in order {
            let Some(new) = fresh.peek(&taken) else {
                break;
            };
            if new.len() < name.len() {
                fresh.take();
                hunks.push(
                    sites
                        .iter()
                        .map(|&(s, e)| Edit::new(s, e, new.as_bytes()))
                        .collect(),
                );
            }
        }
        hunks
    }
}

/// The identifier-like words of a text.
fn words(src: &[u8]) -> impl Iterator<Item = &[u8]> {
    src.split(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c >= 0x80))
        .filter(|w| w.first().is_some_and(|c| !c.is_ascii_digit()))
}

/// `a`, `b`, ..., `z`, `aa`, `ab`, ...: the short names in order of length.
#[derive(Default)]
struct ShortNames {
    next: usize,
}

impl ShortNames {
    /// The next free short name (at most 4 letters), not yet handed out.
    fn peek(&mut self, taken: &HashSet<&[u8]>) -> Option<String> {
        loop {
            let name = nth_name(self.next);
            if name.len() > 4 {
                return None;
            }
            if !taken.contains(name.as_bytes()) && !KEYWORDS.contains(&name.as_str()) {
                return Some(name);
            }
            self.next += 1;
        }
    }

    /// Hands out the name [`ShortNames::peek`] gave.
    fn take(&mut self) {
        self.next += 1;
    }
}

/// The `i`-th short name (bijective base 26 over `a..z`).
fn nth_name(mut i: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'a' + (i % 26) as u8);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edits::{EditSpace, layers_of_hunks};
    use crate::lang::c::C;
    use crate::passes::tests::parse;

    fn renamed(src: &str) -> String {
        let tree = parse(src);
        let mut space = EditSpace::new(src.as_bytes().to_vec());
        for layer in layers_of_hunks(Rename.hunks(&tree, src.as_bytes(), &C), src.as_bytes()) {
            space.next_layer(&[], layer);
        }
        String::from_utf8(space.render(&[])).expect("utf-8")
    }

    #[test]
    fn short_names_count_in_bijective_base_26() {
        let names = [0, 1, 25, 26, 27, 51, 52, 701, 702].map(nth_name);
        assert_eq!(names, ["a", "b", "z", "aa", "ab", "az", "ba", "zz", "aaa"]);
    }

    #[test]
    fn declared_names_get_short_ones_and_external_names_stay() {
        let src = "struct point { int xcoord; };\nint counter;\nint bump(int amount) { counter += amount; return crash(counter); }\n";
        // counter is used most (3 times), then amount (2), then by name; crash is not declared
        assert_eq!(
            renamed(src),
            "struct d { int e; };\nint a;\nint c(int b) { a += b; return crash(a); }\n"
        );
    }

    #[test]
    fn names_used_in_a_macro_body_and_taken_words_are_respected() {
        let src = "#define GET(x) (value + x)\nint value; int other; int a;\n";
        // `value` occurs in a macro body: kept; `a` and `x` are taken; `GET` and `other` shrink
        assert_eq!(
            renamed(src),
            "#define b(x) (value + x)\nint value; int c; int a;\n"
        );
    }
}
