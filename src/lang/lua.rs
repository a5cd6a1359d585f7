//! Lua (tree-sitter-lua).

use super::{Kind, LangSpec, Overrides, RenderRules, Smallest};

fn language() -> tree_sitter::Language {
    tree_sitter_lua::LANGUAGE.into()
}

pub static SPEC: LangSpec = LangSpec {
    name: "lua",
    extensions: &["lua"],
    language,
    node_types: tree_sitter_lua::NODE_TYPES,
    overrides: Overrides {
        // quotes, escapes, long brackets `[[...]]`
        atomic: &["string"],
        not_list: &[],
        attach_to_previous: &[],
        slot_excludes: &[],
    },
    // a comment has a content child: atomic, like every comment kind
    comments: &["comment"],
    render: RenderRules {
        word_chars: b"",
        empty_block: None,
    },
    smallest: &[
        Smallest {
            kind: Kind::Expression,
            text: "0",
            node_kinds: &["expression"],
        },
        Smallest {
            kind: Kind::String,
            text: "\"\"",
            node_kinds: &["string"],
        },
    ],
};
