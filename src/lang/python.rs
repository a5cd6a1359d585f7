//! Python (tree-sitter-python). Indentation-sensitive: the renderer keeps every kept line's
//! original indentation and writes `pass` for a block whose statements were all deleted.

use super::{EmptyBlock, LangSpec, Overrides, RenderRules};
use crate::lang::table::{KeywordParams, Layout, RewriteTable};

fn language() -> tree_sitter::Language {
    tree_sitter_python::LANGUAGE.into()
}

pub static SPEC: LangSpec = LangSpec {
    name: "python",
    extensions: &["py", "pyi", "pyw"],
    language,
    node_types: tree_sitter_python::NODE_TYPES,
    overrides: Overrides {
        // a string is start/content/interpolation/end tokens: reducing inside breaks the quotes
        atomic: &["string"],
        ..Overrides::NONE
    },
    comments: &["comment"],
    render: RenderRules {
        word_chars: b"",
        // an emptied block is a syntax error: `if x:` + nothing renders as `if x: pass`
        empty_block: Some(EmptyBlock {
            kind: "block",
            filler: "pass",
        }),
    },
    rewrite: &REWRITE,
};

/// Python's rewrite data: literals and compound expressions become `0`, a block `pass`, a string
/// `''`; compound statements become one of their blocks, dedented (hoist); the final layout only
/// re-indents.
pub const REWRITE: RewriteTable = RewriteTable {
    zero: "0",
    empty_block: "pass",
    empty_string: "''",
    empty_params: "()",
    // bare names are left alone: which ones hold a value is not in the grammar
    expressions: &[
        "attribute",
        "await",
        "binary_operator",
        "boolean_operator",
        "call",
        "comparison_operator",
        "concatenated_string",
        "dictionary",
        "dictionary_comprehension",
        "false",
        "float",
        "generator_expression",
        "integer",
        "lambda",
        "list",
        "list_comprehension",
        "none",
        "not_operator",
        "parenthesized_expression",
        "set",
        "set_comprehension",
        "string",
        "subscript",
        "true",
        "tuple",
        "unary_operator",
    ],
    call: "call",
    function_field: "function",
    parenthesized: "parenthesized_expression",
    block: "block",
    parameter_list: "parameters",
    string_literals: &["string"],
    comment: "comment",
    // the unreferenced pass: functions and classes of every block, by name (an attribute
    // `o.f` counts as a use of `f`)
    names: &["identifier"],
    item_lists: &["module", "block"],
    name_field: "name",
    named_items: &["function_definition", "class_definition"],
    item_wrappers: &["decorated_definition"],
    indented_compounds: &[
        "if_statement",
        "for_statement",
        "while_statement",
        "with_statement",
        "try_statement",
    ],
    layout: Layout::Indent,
    // identifier merging: a function (type) goes once its uses call another one of its sort
    merged_functions: &["function_definition"],
    merged_types: &["class_definition"],
    mergeable: &["identifier"],
    keyword_params: Some(KeywordParams {
        definition: "function_definition",
        class: "class_definition",
        decorated: "decorated_definition",
        constructors: &["__init__", "__new__"],
        attribute: "attribute",
        arguments: "argument_list",
        keyword_argument: "keyword_argument",
        defaulted: &["default_parameter", "typed_default_parameter"],
        typed: "typed_parameter",
        splat_arguments: &["list_splat", "dictionary_splat"],
        keyword_only_markers: &["keyword_separator", "list_splat_pattern"],
        other_markers: &["positional_separator", "dictionary_splat_pattern"],
    }),
    ..RewriteTable::NONE
};
