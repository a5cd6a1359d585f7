//! JavaScript (tree-sitter-javascript), also JSX.

use super::{Kind, LangSpec, Overrides, RenderRules, Smallest};

fn language() -> tree_sitter::Language {
    tree_sitter_javascript::LANGUAGE.into()
}

pub static SPEC: LangSpec = LangSpec {
    name: "javascript",
    extensions: &["js", "mjs", "cjs", "jsx"],
    language,
    node_types: tree_sitter_javascript::NODE_TYPES,
    overrides: Overrides {
        // quotes and escapes; template strings stay reducible (their `${}` parts)
        atomic: &["string", "regex"],
        not_list: &[],
        attach_to_previous: &[],
        slot_excludes: &[],
    },
    comments: &["comment", "html_comment"],
    render: RenderRules {
        // `$` is an identifier character: `$ x` must not become `$x`
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
            node_kinds: &["statement_block"],
        },
        Smallest {
            kind: Kind::String,
            text: "\"\"",
            node_kinds: &["string"],
        },
    ],
};
