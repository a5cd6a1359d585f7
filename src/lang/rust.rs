//! Rust (tree-sitter-rust).

use super::{Kind, LangSpec, Overrides, RenderRules, Smallest};

fn language() -> tree_sitter::Language {
    tree_sitter_rust::LANGUAGE.into()
}

pub static SPEC: LangSpec = LangSpec {
    name: "rust",
    extensions: &["rs"],
    language,
    node_types: tree_sitter_rust::NODE_TYPES,
    overrides: Overrides {
        // strings and char literals are not reduced inside (escapes, raw-string hashes)
        atomic: &["string_literal", "raw_string_literal", "char_literal"],
        not_list: &[],
        attach_to_previous: &[],
        slot_excludes: &[],
    },
    // doc comments (`///`) are line_comment nodes with children: atomic, like every comment kind
    comments: &["line_comment", "block_comment"],
    render: RenderRules {
        word_chars: b"",
        empty_block: None,
    },
    smallest: &[
        Smallest {
            kind: Kind::Expression,
            text: "0",
            node_kinds: &["_expression"],
        },
        Smallest {
            kind: Kind::Block,
            text: "{}",
            node_kinds: &["block"],
        },
        Smallest {
            kind: Kind::Type,
            text: "()",
            node_kinds: &["_type"],
        },
        Smallest {
            kind: Kind::String,
            text: "\"\"",
            node_kinds: &["string_literal"],
        },
    ],
};
