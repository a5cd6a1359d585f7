//! C++ (tree-sitter-cpp, ABI 14: supertypes come from `NODE_TYPES`). Preprocessed libstdc++
//! code parses with hundreds of ERROR regions; those are reduced token by token.

use super::c::C;
use super::table::{RewriteTable, concat};
use super::{LangSpec, Overrides, RenderRules};

fn language() -> tree_sitter::Language {
    tree_sitter_cpp::LANGUAGE.into()
}

pub static SPEC: LangSpec = LangSpec {
    name: "cpp",
    extensions: &[
        "cc", "cpp", "cxx", "c++", "C", "hh", "hpp", "hxx", "h++", "H", "ii", "ipp", "tcc",
    ],
    language,
    node_types: tree_sitter_cpp::NODE_TYPES,
    overrides: Overrides {
        // strings (also raw strings `R"x(...)x"`) and `<vector>` are never reduced inside
        atomic: &[
            "string_literal",
            "raw_string_literal",
            "char_literal",
            "system_lib_string",
        ],
        not_list: &[
            // the C facts (the C++ grammar extends the C one)
            "attributed_statement",
            "attributed_declarator",
            "parenthesized_declarator",
            "abstract_parenthesized_declarator",
            // one declared item (and an optional requires clause) after `template<...>`: dropping
            // the item leaves a bare `template<...>`
            "template_declaration",
            // `template<...>` inside a template's parameter list: same shape
            "template_template_parameter_declaration",
        ],
        // `struct S;` and `class C;` in a block or class body: the `;` belongs to the specifier
        attach_to_previous: &[";"],
        // a namespace's body (and `extern "C" { }`) takes declarations only, like the file
        slot_excludes: &[
            ("translation_unit", &NOT_AT_FILE_SCOPE),
            ("declaration_list", &NOT_AT_FILE_SCOPE),
        ],
    },
    comments: &["comment"],
    render: RenderRules::NONE,
    rewrite: &CPP,
};

/// C's statements and C++'s own: tree-sitter-cpp takes them at file and namespace scope.
const NOT_AT_FILE_SCOPE: [&str; 20] = concat(
    super::c::NOT_AT_FILE_SCOPE,
    [
        "co_return_statement",
        "co_yield_statement",
        "for_range_loop",
        "seh_leave_statement",
        "seh_try_statement",
        "throw_statement",
    ],
);

/// C's expression kinds and C++'s own.
const EXPRESSIONS: [&str; 18] = concat(
    super::c::EXPRESSIONS,
    [
        "new_expression",
        "lambda_expression",
        "qualified_identifier",
    ],
);

/// The C++ rewrite table: the C facts (tree-sitter-cpp extends the C grammar) plus C++'s item
/// lists (namespace, `extern "C"` and class bodies, whose items the bulk passes delete or strip
/// as they do the file's), templates wrapping items, constructors' initializer lists, and the
/// C++ names, expressions, types and specifiers.
pub const CPP: RewriteTable = RewriteTable {
    expressions: &EXPRESSIONS,
    // `std::x` uses `std` and `x`; `~T` names `T` through its identifier
    names: &[
        "identifier",
        "type_identifier",
        "field_identifier",
        "statement_identifier",
        "namespace_identifier",
    ],
    named_items: &[
        "preproc_def",
        "preproc_function_def",
        "namespace_definition",
        "alias_declaration",
        "concept_definition",
        "namespace_alias_definition",
    ],
    tagged_types: &[
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "class_specifier",
    ],
    // a member declared in its class and defined out of line (`int S::f() {..}`), a template
    // declared before its definition: each would keep the other alive
    declarations_are_uses: false,
    member_lists: true,
    item_lists: &[
        "translation_unit",
        "declaration_list",
        "field_declaration_list",
    ],
    scopes: &["translation_unit", "declaration_list"],
    using_declarations: &["using_declaration"],
    operator_names: &["operator_name"],
    qualified_names: &["qualified_identifier"],
    item_wrappers: &["template_declaration", "linkage_specification"],
    initializer_list: Some("field_initializer_list"),
    string_literals: &[
        "string_literal",
        "concatenated_string",
        "raw_string_literal",
    ],
    types: &[
        "primitive_type",
        "sized_type_specifier",
        "struct_specifier",
        "class_specifier",
        "template_type",
    ],
    named_types: &["type_identifier", "qualified_identifier"],
    declarations: &[
        "declaration",
        "function_definition",
        "type_definition",
        "alias_declaration",
    ],
    block_braces: &[
        "compound_statement",
        "field_declaration_list",
        "enumerator_list",
        "declaration_list",
    ],
    droppable: &[
        "type_qualifier",
        "storage_class_specifier",
        "attribute_specifier",
        "attribute_declaration",
        "ms_declspec_modifier",
        "virtual",
        "virtual_specifier",
        "explicit_function_specifier",
    ],
    tight_tokens: &["::"],
    angle_lists: &["template_argument_list", "template_parameter_list"],
    line_labels: &["access_specifier"],
    bulk_between_rounds: true,
    // an out-of-line member's body (`int A::f() {..}`, which cannot become `int A::f();`)
    stub_body: "{throw 0;}",
    ..C
};
