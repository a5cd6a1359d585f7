//! Java (tree-sitter-java, ABI 14: supertypes come from `NODE_TYPES`).

use super::{Kind, LangSpec, Overrides, RenderRules, Smallest};

fn language() -> tree_sitter::Language {
    tree_sitter_java::LANGUAGE.into()
}

pub static SPEC: LangSpec = LangSpec {
    name: "java",
    extensions: &["java"],
    language,
    node_types: tree_sitter_java::NODE_TYPES,
    overrides: Overrides {
        // quotes, escapes, text blocks
        atomic: &["string_literal", "character_literal"],
        not_list: &[],
        attach_to_previous: &[],
        slot_excludes: &[],
    },
    comments: &["line_comment", "block_comment"],
    render: RenderRules {
        // `$` is an identifier character
        word_chars: b"$",
        empty_block: None,
    },
    smallest: &[
        Smallest {
            kind: Kind::Expression,
            text: "0",
            node_kinds: &["expression"],
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
            node_kinds: &["string_literal"],
        },
    ],
};
