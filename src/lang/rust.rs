//! Rust (tree-sitter-rust).

use super::{LangSpec, Overrides, RenderRules};
use crate::lang::table::RewriteTable;

fn language() -> tree_sitter::Language {
    tree_sitter_rust::LANGUAGE.into()
}

pub static SPEC: LangSpec = LangSpec {
    name: "rust",
    extensions: &["rs"],
    language,
    node_types: tree_sitter_rust::NODE_TYPES,
    overrides: Overrides {
        // strings and char literals are not reduced inside (escapes, raw-string hashes)
        atomic: &["string_literal", "raw_string_literal", "char_literal"],
        // tree-sitter-rust takes statements where rustc takes only items: a function is never
        // "replaced" by one of its statements
        slot_excludes: &[
            ("source_file", &["expression_statement", "let_declaration"]),
            ("declaration_list", &["let_declaration"]),
        ],
        ..Overrides::NONE
    },
    // doc comments (`///`) are line_comment nodes with children: atomic, like every comment kind
    comments: &["line_comment", "block_comment"],
    render: RenderRules::NONE,
    rewrite: &REWRITE,
};

/// Rust's rewrite data: `0`, `{}`, `()` for a type, `""`; `if`/loops become their block.
pub const REWRITE: RewriteTable = RewriteTable {
    zero: "0",
    empty_block: "{}",
    small_type: "()",
    empty_string: "\"\"",
    empty_params: "()",
    // `loop {}` has the type `!`, which every return type takes
    stub_functions: &["function_item"],
    stub_body: "{loop{}}",
    quiet_prelude: "#![allow(warnings)]\n",
    expressions: &[
        "array_expression",
        "binary_expression",
        "boolean_literal",
        "call_expression",
        "char_literal",
        "closure_expression",
        "field_expression",
        "float_literal",
        "index_expression",
        "integer_literal",
        "macro_invocation",
        "parenthesized_expression",
        "reference_expression",
        "string_literal",
        "struct_expression",
        "try_expression",
        "tuple_expression",
        "type_cast_expression",
        "unary_expression",
    ],
    call: "call_expression",
    function_field: "function",
    parenthesized: "parenthesized_expression",
    block: "block",
    parameter_list: "parameters",
    guarded: &[
        ("if_expression", "consequence"),
        ("if_expression", "alternative"),
        ("while_expression", "body"),
        ("for_expression", "body"),
        ("loop_expression", "body"),
    ],
    wrappers: &["else_clause"],
    string_literals: &["string_literal", "raw_string_literal"],
    types: &[
        "array_type",
        "dynamic_type",
        "function_type",
        "generic_type",
        "pointer_type",
        "reference_type",
        "scoped_type_identifier",
        "tuple_type",
    ],
    droppable: &["visibility_modifier", "attribute_item"],
    comment: "line_comment",
    // no unreferenced pass: trait methods are used without being named, so the pass keeps
    // little the list sweeps would not delete in fewer tests
    // identifier merging: a function (type) goes once its uses call another one of its sort
    merged_functions: &["function_item"],
    merged_types: &["struct_item", "enum_item", "trait_item", "type_item"],
    mergeable: &["identifier", "type_identifier"],
    ..RewriteTable::NONE
};
