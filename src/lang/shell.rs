//! Bash (tree-sitter-bash).

use super::{Kind, LangSpec, Overrides, RenderRules, Smallest};

fn language() -> tree_sitter::Language {
    tree_sitter_bash::LANGUAGE.into()
}

pub static SPEC: LangSpec = LangSpec {
    name: "bash",
    extensions: &["sh", "bash"],
    language,
    node_types: tree_sitter_bash::NODE_TYPES,
    overrides: Overrides {
        // quoting: a raw string or a heredoc body is one token
        atomic: &["raw_string", "ansi_c_string", "heredoc_body"],
        not_list: &[],
        attach_to_previous: &[],
        slot_excludes: &[],
    },
    comments: &["comment"],
    render: RenderRules {
        // `$` starts expansions: `$ x` must not become `$x`
        word_chars: b"$",
        empty_block: None,
    },
    smallest: &[
        Smallest {
            kind: Kind::Block,
            text: "{ :; }",
            node_kinds: &["compound_statement"],
        },
        Smallest {
            kind: Kind::String,
            text: "''",
            node_kinds: &["string", "raw_string"],
        },
    ],
};
