//! Java (tree-sitter-java, ABI 14: supertypes come from `NODE_TYPES`).

use super::{LangSpec, Overrides, RenderRules};
use crate::lang::table::RewriteTable;

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
        ..Overrides::NONE
    },
    comments: &["line_comment", "block_comment"],
    render: RenderRules {
        // `$` is an identifier character
        word_chars: b"$",
        empty_block: None,
    },
    rewrite: &REWRITE,
};

/// Java's rewrite data: `0`, `{}`, `int`, `""`; `if`/loops become their body; modifiers and
/// annotations can simply go.
pub const REWRITE: RewriteTable = RewriteTable {
    zero: "0",
    empty_block: "{}",
    small_type: "int",
    empty_string: "\"\"",
    empty_params: "()",
    expressions: &[
        "array_access",
        "array_creation_expression",
        "binary_expression",
        "cast_expression",
        "decimal_integer_literal",
        "false",
        "field_access",
        "instanceof_expression",
        "lambda_expression",
        "method_invocation",
        "object_creation_expression",
        "parenthesized_expression",
        "string_literal",
        "ternary_expression",
        "true",
        "unary_expression",
        "update_expression",
    ],
    call: "method_invocation",
    function_field: "name",
    parenthesized: "parenthesized_expression",
    conditional: "ternary_expression",
    block: "block",
    parameter_list: "formal_parameters",
    guarded: &[
        ("if_statement", "consequence"),
        ("if_statement", "alternative"),
        ("while_statement", "body"),
        ("for_statement", "body"),
        ("enhanced_for_statement", "body"),
        ("do_statement", "body"),
    ],
    string_literals: &["string_literal"],
    types: &[
        "array_type",
        "boolean_type",
        "floating_point_type",
        "generic_type",
        "scoped_type_identifier",
        "type_identifier",
    ],
    droppable: &["modifiers", "marker_annotation", "annotation"],
    comment: "line_comment",
    // the unreferenced pass: members of every class body and the file's types, by name
    names: &["identifier", "type_identifier"],
    item_lists: &["program", "class_body", "interface_body"],
    name_field: "name",
    named_items: &[
        "method_declaration",
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
    ],
    declarator_field: "declarator",
    // identifier merging: a function (type) goes once its uses call another one of its sort
    merged_functions: &["method_declaration"],
    merged_types: &["class_declaration", "interface_declaration"],
    mergeable: &["identifier", "type_identifier"],
    ..RewriteTable::NONE
};
