//! JSON (tree-sitter-json, ABI 14). Commas between members and elements are derived.

use super::{Kind, LangSpec, Overrides, RenderRules, Smallest};

fn language() -> tree_sitter::Language {
    tree_sitter_json::LANGUAGE.into()
}

pub static SPEC: LangSpec = LangSpec {
    name: "json",
    extensions: &["json"],
    language,
    node_types: tree_sitter_json::NODE_TYPES,
    overrides: Overrides {
        // quotes and escapes
        atomic: &["string"],
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
            node_kinds: &["_value"],
        },
        Smallest {
            kind: Kind::String,
            text: "\"\"",
            node_kinds: &["string"],
        },
    ],
};
