//! JSON (tree-sitter-json, ABI 14). Commas between members and elements are derived.

use super::{LangSpec, Overrides, RenderRules};
use crate::lang::table::RewriteTable;

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
        ..Overrides::NONE
    },
    comments: &["comment"],
    render: RenderRules::NONE,
    rewrite: &REWRITE,
};

/// JSON's rewrite data: any value becomes `0`, a string `""`.
pub const REWRITE: RewriteTable = RewriteTable {
    zero: "0",
    empty_string: "\"\"",
    expressions: &[
        "array", "false", "null", "number", "object", "string", "true",
    ],
    string_literals: &["string"],
    ..RewriteTable::NONE
};
