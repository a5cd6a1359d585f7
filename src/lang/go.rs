//! Go (tree-sitter-go). Statement terminators (newline or `;`) are derived as list separators.

use super::{Kind, LangSpec, Overrides, RenderRules, Smallest};

fn language() -> tree_sitter::Language {
    tree_sitter_go::LANGUAGE.into()
}

pub static SPEC: LangSpec = LangSpec {
    name: "go",
    extensions: &["go"],
    language,
    node_types: tree_sitter_go::NODE_TYPES,
    overrides: Overrides {
        // quotes and escapes
        atomic: &[
            "interpreted_string_literal",
            "raw_string_literal",
            "rune_literal",
        ],
        not_list: &[],
        attach_to_previous: &[],
        slot_excludes: &[],
    },
    comments: &["comment"],
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
            text: "int",
            node_kinds: &["_type"],
        },
        Smallest {
            kind: Kind::String,
            text: "\"\"",
            node_kinds: &["interpreted_string_literal"],
        },
    ],
};
