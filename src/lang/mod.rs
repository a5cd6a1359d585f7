//! What the reducer knows about each language, one file per language, and the registry that
//! picks one by name or file extension. Adding a language = a new file with its [`LangSpec`] and
//! one line in [`REGISTRY`] (plus, for a grammar crate, a Cargo feature).
//!
//! Everything that depends on the language lives here: the grammar crate's `LANGUAGE` and
//! `NODE_TYPES`, the small override table for what `node-types.json` cannot say, the comment
//! kinds, the renderer's rules, and the rewrite table the rewrite passes read (what the smallest
//! expression, block, type and string are, and which node kinds they replace).
//! Files no grammar covers use the bracket tree ([`crate::tree::text`]) under the name `text`.

pub mod c;
#[cfg(feature = "cpp")]
pub mod cpp;
#[cfg(feature = "go")]
pub mod go;
#[cfg(feature = "java")]
pub mod java;
#[cfg(feature = "javascript")]
pub mod javascript;
#[cfg(feature = "json")]
pub mod json;
#[cfg(feature = "lua")]
pub mod lua;
#[cfg(feature = "python")]
pub mod python;
#[cfg(feature = "rust")]
pub mod rust;
#[cfg(feature = "bash")]
pub mod shell;
pub mod table;
#[cfg(feature = "typescript")]
pub mod typescript;

use std::path::Path;

use tree_sitter::Language;

use crate::lang::table::RewriteTable;

/// The name `--lang` takes for the bracket tree (any text).
pub const TEXT: &str = "text";

/// One language: a tree-sitter grammar plus the facts the reducer needs about it.
pub struct LangSpec {
    /// The `--lang` name.
    pub name: &'static str,
    /// File extensions (without the dot) that select this language.
    pub extensions: &'static [&'static str],
    /// The grammar crate's `LANGUAGE`.
    pub language: fn() -> Language,
    /// The grammar crate's `NODE_TYPES` (slots, supertypes).
    pub node_types: &'static str,
    pub overrides: Overrides,
    /// Node kinds that are comments (reduced first, all at once; kept whole as one token).
    pub comments: &'static [&'static str],
    pub render: RenderRules,
    /// What the rewrite passes know of the language (C's and C++'s live in `crate::edits`).
    pub rewrite: &'static RewriteTable,
}

/// Per-language facts that `node-types.json` lacks. Each language's table says why, per line.
/// (List separators are not here: they are derived from the parsed tree.)
#[derive(Default)]
pub struct Overrides {
    /// Kinds kept as one opaque token (their inner leaves are not units). Comment kinds are
    /// added automatically.
    pub atomic: &'static [&'static str],
    /// Kinds whose `multiple` children are not freely deletable lists.
    pub not_list: &'static [&'static str],
    /// Anonymous tokens that belong to the list element before them (`struct S;` in a block).
    pub attach_to_previous: &'static [&'static str],
    /// Kinds a slot's `node-types.json` entry admits but the language does not:
    /// (parent kind, kinds removed from its unnamed-children slot).
    pub slot_excludes: &'static [(&'static str, &'static [&'static str])],
}

impl Overrides {
    /// No override: the grammar's node types as they are.
    pub const NONE: Overrides = Overrides {
        atomic: &[],
        not_list: &[],
        attach_to_previous: &[],
        slot_excludes: &[],
    };
}

/// How candidates are rendered beyond the generic rules (original gaps, no gluing).
#[derive(Clone, Copy, Default)]
pub struct RenderRules {
    /// Bytes that are part of identifiers besides `[A-Za-z0-9_]` and non-ASCII (`$` in JS).
    pub word_chars: &'static [u8],
    /// An indentation-sensitive block that may not be empty: when every token of a block of
    /// this kind is deleted, the renderer writes the filler after the token that opens it
    /// (Python: `if x:` + deleted body renders `if x: pass`).
    pub empty_block: Option<EmptyBlock>,
}

impl RenderRules {
    /// The generic rules alone.
    pub const NONE: RenderRules = RenderRules {
        word_chars: b"",
        empty_block: None,
    };
}

#[derive(Clone, Copy)]
pub struct EmptyBlock {
    /// The block's node kind (Python: `block`).
    pub kind: &'static str,
    /// What an emptied block becomes (Python: `pass`).
    pub filler: &'static str,
}

impl LangSpec {
    /// Does this language claim a file by its extension?
    pub fn claims(&self, path: &Path) -> bool {
        path.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| self.extensions.contains(&e))
    }
}

/// Every language this build knows, in `--lang` order.
pub static REGISTRY: &[&LangSpec] = &[
    &c::SPEC,
    #[cfg(feature = "cpp")]
    &cpp::SPEC,
    #[cfg(feature = "rust")]
    &rust::SPEC,
    #[cfg(feature = "python")]
    &python::SPEC,
    #[cfg(feature = "javascript")]
    &javascript::SPEC,
    #[cfg(feature = "typescript")]
    &typescript::SPEC,
    #[cfg(feature = "typescript")]
    &typescript::TSX,
    #[cfg(feature = "go")]
    &go::SPEC,
    #[cfg(feature = "java")]
    &java::SPEC,
    #[cfg(feature = "json")]
    &json::SPEC,
    #[cfg(feature = "bash")]
    &shell::SPEC,
    #[cfg(feature = "lua")]
    &lua::SPEC,
];

/// The language called `name` (`None` for `text` and unknown names).
pub fn by_name(name: &str) -> Option<&'static LangSpec> {
    REGISTRY.iter().copied().find(|l| l.name == name)
}

/// The language whose extension `path` has.
pub fn for_path(path: &Path) -> Option<&'static LangSpec> {
    REGISTRY.iter().copied().find(|l| l.claims(path))
}

/// Every `--lang` value: the registry's names, then `text`.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|l| l.name).chain([TEXT]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::grammar::Grammar;

    #[test]
    fn every_language_loads_and_its_tables_name_real_kinds() {
        for spec in REGISTRY {
            let g = Grammar::new(spec).unwrap_or_else(|e| panic!("{}: {e:#}", spec.name));
            let lang = &g.language;
            let known = |k: &str| {
                lang.id_for_node_kind(k, true) != 0 || g.supertype_names.iter().any(|s| s == k)
            };
            let o = &spec.overrides;
            for k in o.atomic.iter().chain(o.not_list).chain(spec.comments) {
                assert!(known(k), "{}: unknown kind {k}", spec.name);
            }
            for (parent, kinds) in o.slot_excludes {
                assert!(known(parent), "{}: unknown kind {parent}", spec.name);
                assert!(kinds.iter().all(|k| known(k)), "{}", spec.name);
            }
            // rewrite tables may name keywords too (C++'s droppable `virtual`)
            for k in spec.rewrite.kinds() {
                let keyword = lang.id_for_node_kind(k, false) != 0;
                assert!(known(k) || keyword, "{}: unknown kind {k}", spec.name);
            }
            if let Some(b) = spec.render.empty_block {
                assert!(known(b.kind), "{}: {}", spec.name, b.kind);
            }
        }
    }

    /// Every fixture parses without errors in its language, and keeping every token renders it
    /// back byte for byte; lists with separators are found where the language has them.
    #[test]
    fn every_fixture_round_trips_through_its_tree() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut seen = 0;
        for case in std::fs::read_dir(dir).unwrap() {
            let case = case.unwrap().path();
            let Some(input) = std::fs::read_dir(&case)
                .unwrap()
                .map(|f| f.unwrap().path())
                .find(|f| f.file_stem().is_some_and(|s| s == "input"))
            else {
                continue;
            };
            let src = std::fs::read(&input).unwrap();
            let front = match for_path(&input) {
                Some(spec) => crate::tree::front::Front::grammar(spec).unwrap(),
                None => crate::tree::front::Front::Text,
            };
            let parsed = front.builder().unwrap().build(&src).unwrap();
            let all: Vec<u32> = (0..parsed.tokens.len() as u32).collect();
            assert_eq!(parsed.errors, 0, "{}", input.display());
            assert!(parsed.tokens.render(&all) == src, "{}", input.display());
            seen += 1;
        }
        assert!(seen >= 13, "{seen} fixtures");
    }

    /// C++ namespaces, Rust, Go and Java files take only items where tree-sitter takes
    /// statements too: an item there is never replaced by a statement of its body (rustc:
    /// "expected item, found keyword `let`"), and may still be replaced by an item nested in it.
    #[cfg(all(feature = "cpp", feature = "rust", feature = "go", feature = "java"))]
    #[test]
    fn a_top_level_item_is_replaced_by_items_and_not_by_statements() {
        let cases: [(&LangSpec, &str, &str, &str, &str); 4] = [
            (
                &cpp::SPEC,
                "namespace n { void f() { g(); } namespace m { void h() {} } }\n",
                "function_definition",
                "expression_statement",
                "namespace_definition",
            ),
            (
                &rust::SPEC,
                "fn f() { let x = 1; g(x); }\nmod m { fn h() {} }\n",
                "function_item",
                "let_declaration",
                "mod_item",
            ),
            (
                &go::SPEC,
                "package p\nfunc f() { x := 1; g(x) }\n",
                "function_declaration",
                "short_var_declaration",
                "",
            ),
            (
                &java::SPEC,
                "class A { void f() { int x = 1; g(x); } class B {} }\n",
                "class_declaration",
                "expression_statement",
                "",
            ),
        ];
        for (spec, src, item, statement, outer) in cases {
            let front = crate::tree::front::Front::grammar(spec).unwrap();
            let parsed = front.builder().unwrap().build(src.as_bytes()).unwrap();
            let arena = &parsed.arena;
            let all: Vec<u32> = (0..parsed.tokens.len() as u32).collect();
            let view = crate::tree::View::new(arena, &all);
            let of = |kind: &str| -> Vec<u32> {
                (0..arena.len() as u32)
                    .filter(|&n| arena.kind_name(arena.node(n).kind()) == kind)
                    .collect()
            };
            let (top, stmt) = (of(item)[0], of(statement)[0]);
            assert!(!view.can_replace(top, stmt), "{}", spec.name);
            if !outer.is_empty() {
                // `mod m { fn h() {} }` may become `fn h() {}`, a namespace its function
                assert!(view.can_replace(of(outer)[0], of(item)[1]), "{}", spec.name);
            }
        }
    }

    #[cfg(feature = "python")]
    #[test]
    fn an_emptied_python_block_renders_pass_and_lines_keep_their_indentation() {
        let src = "if x:\n    y = 1\n    z = 2; w = 3\nv = 4\n";
        let front = crate::tree::front::Front::grammar(&python::SPEC).unwrap();
        let parsed = front.builder().unwrap().build(src.as_bytes()).unwrap();
        let t = &parsed.tokens;
        let text = |c: &[u32]| String::from_utf8(t.render(c)).unwrap();
        let all: Vec<u32> = (0..t.len() as u32).collect();
        let find = |s: &str| all.iter().position(|&i| t.text(i) == s.as_bytes()).unwrap() as u32;
        // the whole body deleted: `if x: pass`
        let body: Vec<u32> = (find("y")..find("v")).collect();
        let kept = crate::policy::subtract(&all, &body);
        assert_eq!(text(&kept), "if x: pass\nv = 4\n");
        // `y = 1` and `z = 2;` deleted: `w = 3` stays in the block at its line's indentation
        let some: Vec<u32> = (find("y")..find("w")).collect();
        let kept = crate::policy::subtract(&all, &some);
        assert_eq!(text(&kept), "if x:\n    w = 3\nv = 4\n");
    }

    /// A header that spans lines (`if (a and\n        b):`, parameters over several lines)
    /// ends on a continuation line indented as deep as its body, or deeper: its block is
    /// measured against the line the statement starts on, so keeping the body writes no `pass`
    /// (which made every candidate an IndentationError), and deleting it still does.
    #[cfg(feature = "python")]
    #[test]
    fn a_python_block_under_a_header_spanning_lines_is_kept_without_pass() {
        let src = "def f(a,\n      b):\n    if (a and\n            b):\n        return 1\n    return 2\nv = 4\n";
        let front = crate::tree::front::Front::grammar(&python::SPEC).unwrap();
        let parsed = front.builder().unwrap().build(src.as_bytes()).unwrap();
        let t = &parsed.tokens;
        let text = |c: &[u32]| String::from_utf8(t.render(c)).unwrap();
        let all: Vec<u32> = (0..t.len() as u32).collect();
        let find = |s: &str| all.iter().position(|&i| t.text(i) == s.as_bytes()).unwrap() as u32;
        assert_eq!(text(&all), src);
        // `v = 4` deleted: both blocks are still there
        let kept = crate::policy::subtract(&all, &[find("v"), find("v") + 1, find("v") + 2]);
        assert_eq!(text(&kept), &src[..src.len() - "v = 4\n".len()]);
        // the `if`'s body deleted: `pass` after its header, the function's body goes on
        let body: Vec<u32> = (find("return")..find("return") + 2).collect();
        let kept = crate::policy::subtract(&all, &body);
        assert_eq!(
            text(&kept),
            "def f(a,\n      b):\n    if (a and\n            b): pass\n    return 2\nv = 4\n"
        );
        // the function's whole body deleted: `pass` after its header
        let body: Vec<u32> = (find("if")..find("v")).collect();
        let kept = crate::policy::subtract(&all, &body);
        assert_eq!(text(&kept), "def f(a,\n      b): pass\nv = 4\n");
    }

    #[test]
    fn names_and_extensions_are_unique() {
        let names = names();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        let mut exts: Vec<&str> = REGISTRY
            .iter()
            .flat_map(|l| l.extensions.iter().copied())
            .collect();
        let n = exts.len();
        exts.sort_unstable();
        exts.dedup();
        assert_eq!(exts.len(), n, "an extension claimed twice");
    }

    #[test]
    fn files_are_picked_by_extension() {
        assert_eq!(for_path(Path::new("a/b.c")).map(|l| l.name), Some("c"));
        assert_eq!(for_path(Path::new("x.smt2")).map(|l| l.name), None);
        #[cfg(feature = "cpp")]
        assert_eq!(for_path(Path::new("input.cc")).map(|l| l.name), Some("cpp"));
        #[cfg(feature = "python")]
        assert_eq!(for_path(Path::new("m.py")).map(|l| l.name), Some("python"));
        #[cfg(feature = "typescript")]
        assert_eq!(for_path(Path::new("m.tsx")).map(|l| l.name), Some("tsx"));
    }
}
