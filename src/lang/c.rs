//! C (tree-sitter-c). Also `.i` (preprocessed C) and `.h`.

use super::table::{Layout, RewriteTable};
use super::{LangSpec, Overrides, RenderRules};

fn language() -> tree_sitter::Language {
    tree_sitter_c::LANGUAGE.into()
}

/// Statements tree-sitter-c accepts at file scope (for scripts); C compilers do not, so a
/// function is never "replaced" by one of its statements.
pub(crate) const NOT_AT_FILE_SCOPE: [&str; 14] = [
    "attributed_statement",
    "break_statement",
    "case_statement",
    "compound_statement",
    "continue_statement",
    "do_statement",
    "expression_statement",
    "for_statement",
    "goto_statement",
    "if_statement",
    "labeled_statement",
    "return_statement",
    "switch_statement",
    "while_statement",
];

pub static SPEC: LangSpec = LangSpec {
    name: "c",
    extensions: &["c", "h", "i"],
    language,
    node_types: tree_sitter_c::NODE_TYPES,
    overrides: Overrides {
        // a string's pieces (escapes, fragments) and `<stdio.h>` are never reduced inside
        atomic: &["string_literal", "char_literal", "system_lib_string"],
        not_list: &[
            // attributes then one mandatory statement
            "attributed_statement",
            // attributes then one mandatory declarator
            "attributed_declarator",
            // `( declarator )`: one declarator, marked multiple because of attributes
            "parenthesized_declarator",
            "abstract_parenthesized_declarator",
            // `_Generic(x, int: a, default: b)`: the controlling expression is not deletable
            "generic_expression",
        ],
        // `struct S;` in a block: the `;` belongs to the struct_specifier before it
        attach_to_previous: &[";"],
        slot_excludes: &[("translation_unit", &NOT_AT_FILE_SCOPE)],
    },
    comments: &["comment"],
    render: RenderRules::NONE,
    rewrite: &C,
};

/// C's expression kinds (C++'s are these and its own).
pub const EXPRESSIONS: [&str; 15] = [
    "binary_expression",
    "call_expression",
    "cast_expression",
    "comma_expression",
    "conditional_expression",
    "field_expression",
    "parenthesized_expression",
    "pointer_expression",
    "sizeof_expression",
    "subscript_expression",
    "unary_expression",
    "update_expression",
    "assignment_expression",
    "compound_literal_expression",
    "identifier",
];

/// The C rewrite table: what the rewrite passes need to know of C.
pub const C: RewriteTable = RewriteTable {
    zero: "0",
    empty_block: "{}",
    small_type: "int",
    empty_string: "\"\"",
    empty_params: "()",
    declaration_end: ";",
    stub_functions: &[],
    stub_body: "",
    quiet_prelude: "",
    expressions: &EXPRESSIONS,
    names: &[
        "identifier",
        "type_identifier",
        "field_identifier",
        "statement_identifier",
    ],
    mergeable: &["identifier", "type_identifier", "primitive_type"],
    raw_text: &["preproc_arg"],
    // a prototype is a use: with declarations as no uses, an unused prototype and its
    // definition go early and a run can take another, longer path to a warning
    declarations_are_uses: true,
    implicit_uses: &[],
    named_by: &[],
    member_lists: false,
    item_lists: &["translation_unit"],
    scopes: &["translation_unit"],
    using_declarations: &[],
    operator_names: &[],
    qualified_names: &[],
    item_wrappers: &[],
    initializer_list: None,
    function_definition: "function_definition",
    body_field: "body",
    declarator_field: "declarator",
    type_field: "type",
    name_field: "name",
    field_declaration: "field_declaration",
    enumerator: "enumerator",
    named_items: &["preproc_def", "preproc_function_def"],
    declarators: &[],
    reference_elements: &[],
    tagged_types: &["struct_specifier", "union_specifier", "enum_specifier"],
    parenthesized: "parenthesized_expression",
    conditional: "conditional_expression",
    return_statement: "return_statement",
    block: "compound_statement",
    parameter_list: "parameter_list",
    init_declarator: "init_declarator",
    array_declarator: "array_declarator",
    subscript: "subscript_expression",
    brace_initializer: "initializer_list",
    guarded: &[
        ("if_statement", "consequence"),
        ("if_statement", "alternative"),
        ("while_statement", "body"),
        ("for_statement", "body"),
        ("do_statement", "body"),
    ],
    wrappers: &["else_clause"],
    string_literals: &["string_literal", "concatenated_string"],
    char_literal: "char_literal",
    number_literal: "number_literal",
    types: &["primitive_type", "sized_type_specifier", "struct_specifier"],
    // not in C: `expdesc *v` -> `int *v` early took lparser to a 32-token local minimum
    // instead of 23 (one-field-struct and merge-identifiers then had less to work with)
    named_types: &[],
    declarations: &["declaration", "function_definition", "type_definition"],
    merged_functions: &[],
    merged_types: &[],
    function_declarator: "function_declarator",
    parameter_declaration: "parameter_declaration",
    call: "call_expression",
    function_field: "function",
    arguments_field: "arguments",
    parameters_field: "parameters",
    type_definition: "type_definition",
    keywords_before_paren: &["if", "while", "for", "switch", "return", "do"],
    binary_parents: &[
        "binary_expression",
        "assignment_expression",
        "conditional_expression",
        "init_declarator",
        "enumerator",
    ],
    block_braces: &[
        "compound_statement",
        "field_declaration_list",
        "enumerator_list",
        "declaration_list",
    ],
    preprocessor_prefix: "preproc_",
    comment: "comment",
    tight_tokens: &[],
    angle_lists: &[],
    line_labels: &[],
    droppable: &[
        "type_qualifier",
        "storage_class_specifier",
        "attribute_specifier",
        "attribute_declaration",
        "ms_declspec_modifier",
    ],
    indented_compounds: &[],
    layout: Layout::Braces,
    bulk_between_rounds: false,
    faithful_grammar: false,
    keyword_params: None,
};
