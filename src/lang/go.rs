//! Go (tree-sitter-go). Statement terminators (newline or `;`) are derived as list separators.

use super::{LangSpec, Overrides, RenderRules};
use crate::lang::table::RewriteTable;

fn language() -> tree_sitter::Language {
    tree_sitter_go::LANGUAGE.into()
}

/// Statements tree-sitter-go accepts in a source file, which Go does not.
const NOT_AT_TOP_LEVEL: &[&str] = &[
    "assignment_statement",
    "block",
    "break_statement",
    "continue_statement",
    "dec_statement",
    "defer_statement",
    "expression_statement",
    "expression_switch_statement",
    "fallthrough_statement",
    "for_statement",
    "go_statement",
    "goto_statement",
    "if_statement",
    "inc_statement",
    "labeled_statement",
    "return_statement",
    "select_statement",
    "send_statement",
    "short_var_declaration",
    "type_switch_statement",
];

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
        // tree-sitter-go takes statements at top level, the compiler only declarations
        slot_excludes: &[("source_file", NOT_AT_TOP_LEVEL)],
        ..Overrides::NONE
    },
    comments: &["comment"],
    render: RenderRules::NONE,
    rewrite: &REWRITE,
};

/// Go's rewrite data: `0`, `{}`, `int`, `""`; `if`/`for` become their block.
pub const REWRITE: RewriteTable = RewriteTable {
    zero: "0",
    empty_block: "{}",
    small_type: "int",
    empty_string: "\"\"",
    empty_params: "()",
    expressions: &[
        "binary_expression",
        "call_expression",
        "composite_literal",
        "false",
        "float_literal",
        "func_literal",
        "index_expression",
        "int_literal",
        "interpreted_string_literal",
        "nil",
        "parenthesized_expression",
        "raw_string_literal",
        "rune_literal",
        "selector_expression",
        "slice_expression",
        "true",
        "type_assertion_expression",
        "unary_expression",
    ],
    call: "call_expression",
    function_field: "function",
    parenthesized: "parenthesized_expression",
    block: "block",
    parameter_list: "parameter_list",
    guarded: &[
        ("if_statement", "consequence"),
        ("if_statement", "alternative"),
        ("for_statement", "body"),
    ],
    string_literals: &["interpreted_string_literal", "raw_string_literal"],
    types: &[
        "array_type",
        "channel_type",
        "function_type",
        "generic_type",
        "interface_type",
        "map_type",
        "pointer_type",
        "qualified_type",
        "slice_type",
        "struct_type",
    ],
    comment: "comment",
    // identifier merging: a function (type) goes once its uses call another one of its sort
    merged_functions: &["function_declaration"],
    merged_types: &[],
    mergeable: &["identifier"],
    ..RewriteTable::NONE
};
