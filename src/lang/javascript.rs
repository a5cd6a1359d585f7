//! JavaScript (tree-sitter-javascript), also JSX.

use super::{LangSpec, Overrides, RenderRules};
use crate::lang::table::RewriteTable;

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
        ..Overrides::NONE
    },
    comments: &["comment", "html_comment"],
    render: RenderRules {
        // `$` is an identifier character: `$ x` must not become `$x`
        word_chars: b"$",
        empty_block: None,
    },
    rewrite: &REWRITE,
};

/// JavaScript's expression kinds (TypeScript's are these and its own).
pub const EXPRESSIONS: [&str; 22] = [
    "array",
    "arrow_function",
    "assignment_expression",
    "await_expression",
    "binary_expression",
    "call_expression",
    "false",
    "function_expression",
    "member_expression",
    "new_expression",
    "null",
    "number",
    "object",
    "parenthesized_expression",
    "string",
    "subscript_expression",
    "template_string",
    "ternary_expression",
    "true",
    "unary_expression",
    "undefined",
    "update_expression",
];

/// JavaScript's rewrite data: `0`, `{}`, `""`; `if`/loops become their body.
pub const REWRITE: RewriteTable = RewriteTable {
    zero: "0",
    empty_block: "{}",
    empty_string: "\"\"",
    empty_params: "()",
    expressions: &EXPRESSIONS,
    call: "call_expression",
    function_field: "function",
    parenthesized: "parenthesized_expression",
    conditional: "ternary_expression",
    block: "statement_block",
    parameter_list: "formal_parameters",
    guarded: &[
        ("if_statement", "consequence"),
        ("if_statement", "alternative"),
        ("while_statement", "body"),
        ("for_statement", "body"),
        ("for_in_statement", "body"),
        ("do_statement", "body"),
    ],
    wrappers: &["else_clause"],
    // by name over statements (every block's, not only the file's: a bundle is one function);
    // a property name counts as a use, so `o.f` keeps `function f` (names are not scoped)
    names: &[
        "identifier",
        "property_identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
        "private_property_identifier",
    ],
    // a class's methods and fields are items too: one no name reaches goes whole
    item_lists: &["program", "statement_block", "class_body"],
    name_field: "name",
    named_items: &[
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "method_definition",
    ],
    // `new C()` runs it, and nothing names it
    implicit_uses: &["constructor"],
    // `#n = 1;` and `n;` in a class body
    named_by: &[("field_definition", "property")],
    declarators: &["variable_declarator"],
    // an export table `{f: f, g}`, or statements `lib.f = f;`, name every function of a
    // library
    reference_elements: &[
        "pair",
        "shorthand_property_identifier",
        "expression_statement",
    ],
    bulk_between_rounds: true,
    string_literals: &["string", "template_string"],
    comment: "comment",
    // identifier merging: a function (type) goes once its uses call another one of its sort
    merged_functions: &["function_declaration"],
    merged_types: &["class_declaration"],
    mergeable: &["identifier"],
    ..RewriteTable::NONE
};
