//! Lua (tree-sitter-lua).

use super::{LangSpec, Overrides, RenderRules};
use crate::lang::table::RewriteTable;

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
        ..Overrides::NONE
    },
    // a comment has a content child: atomic, like every comment kind
    comments: &["comment"],
    render: RenderRules::NONE,
    rewrite: &REWRITE,
};

/// Lua's rewrite data: `0`, an emptied block, `""`; `if`/loops become their block.
pub const REWRITE: RewriteTable = RewriteTable {
    zero: "0",
    empty_string: "\"\"",
    empty_params: "()",
    expressions: &[
        "binary_expression",
        "false",
        "function_call",
        "function_definition",
        "nil",
        "number",
        "parenthesized_expression",
        "string",
        "table_constructor",
        "true",
        "unary_expression",
    ],
    call: "function_call",
    function_field: "name",
    parenthesized: "parenthesized_expression",
    block: "block",
    parameter_list: "parameters",
    guarded: &[
        ("if_statement", "consequence"),
        ("if_statement", "alternative"),
        ("while_statement", "body"),
        ("for_statement", "body"),
        ("repeat_statement", "body"),
        ("do_statement", "body"),
    ],
    wrappers: &["else_statement"],
    string_literals: &["string"],
    comment: "comment",
    // the unreferenced pass: `function f` and `local function f` of every block, by name
    names: &["identifier"],
    item_lists: &["chunk", "block"],
    name_field: "name",
    named_items: &["function_declaration"],
    // identifier merging: a function (type) goes once its uses call another one of its sort
    merged_functions: &["function_declaration"],
    merged_types: &[],
    mergeable: &["identifier"],
    ..RewriteTable::NONE
};
