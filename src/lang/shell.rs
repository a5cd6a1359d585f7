//! Bash (tree-sitter-bash).

use super::{LangSpec, Overrides, RenderRules};
use crate::lang::table::RewriteTable;

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
        ..Overrides::NONE
    },
    comments: &["comment"],
    render: RenderRules {
        // `$` starts expansions: `$ x` must not become `$x`
        word_chars: b"$",
        empty_block: None,
    },
    rewrite: &REWRITE,
};

/// Bash's rewrite data: a brace group becomes `{ :; }`, a string `''`.
pub const REWRITE: RewriteTable = RewriteTable {
    empty_block: "{ :; }",
    empty_string: "''",
    block: "compound_statement",
    string_literals: &["string", "raw_string"],
    comment: "comment",
    // shells accept more than tree-sitter-bash models (heredocs, `case` corners)
    faithful_grammar: false,
    ..RewriteTable::NONE
};
