//! Java (tree-sitter-java, ABI 14: supertypes come from `NODE_TYPES`).

use super::{LangSpec, Overrides, RenderRules};
use crate::lang::table::RewriteTable;

fn language() -> tree_sitter::Language {
    tree_sitter_java::LANGUAGE.into()
}

/// Statements tree-sitter-java accepts in a program, which javac does not.
const NOT_AT_TOP_LEVEL: &[&str] = &[
    "assert_statement",
    "block",
    "break_statement",
    "continue_statement",
    "do_statement",
    "enhanced_for_statement",
    "expression_statement",
    "for_statement",
    "if_statement",
    "labeled_statement",
    "return_statement",
    "switch_expression",
    "synchronized_statement",
    "throw_statement",
    "try_statement",
    "try_with_resources_statement",
    "while_statement",
    "yield_statement",
];

pub static SPEC: LangSpec = LangSpec {
    name: "java",
    extensions: &["java"],
    language,
    node_types: tree_sitter_java::NODE_TYPES,
    overrides: Overrides {
        // quotes, escapes, text blocks
        atomic: &["string_literal", "character_literal"],
        // tree-sitter-java takes statements at top level (for snippets), javac does not
        // (a compact source file's `int x = 1;` is a field, parsed as a local variable: kept)
        slot_excludes: &[("program", NOT_AT_TOP_LEVEL)],
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
    // `throw null;` ends a method of any return type, and a constructor
    stub_functions: &["method_declaration", "constructor_declaration"],
    stub_body: "{throw null;}",
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
