//! Every C-specific fact the rewrite passes use, in one table, so that it can move to a
//! per-language file: node kinds by name (resolved through the grammar at run time, never by
//! numeric id) and the smallest text of each kind.

/// What the passes need to know about one language.
pub struct RewriteTable {
    /// The smallest expression, block, type and string.
    pub zero: &'static str,
    pub empty_block: &'static str,
    pub small_type: &'static str,
    pub empty_string: &'static str,
    pub empty_params: &'static str,
    /// What a function body becomes when the definition turns into a declaration.
    pub declaration_end: &'static str,
    /// Expression kinds that `zero` may replace.
    pub expressions: &'static [&'static str],
    /// Kinds whose text is an identifier (a name declared or used).
    pub names: &'static [&'static str],
    /// Name kinds that identifier merging renames (not struct fields or labels); tree-sitter-c
    /// parses common typedef names (`size_t`) as primitive types.
    pub mergeable: &'static [&'static str],
    /// Kinds that hold macro bodies as raw text: identifiers inside count as uses.
    pub raw_text: &'static [&'static str],
    /// Function definitions, their body field, and the field naming a declarator.
    pub function_definition: &'static str,
    pub body_field: &'static str,
    pub declarator_field: &'static str,
    pub type_field: &'static str,
    pub name_field: &'static str,
    /// Declarations whose names are declared by members: struct fields and enum members.
    pub field_declaration: &'static str,
    pub enumerator: &'static str,
    /// Kinds that bind a name: the item declares the name of their `name` field or declarator.
    pub macro_definitions: &'static [&'static str],
    pub tagged_types: &'static [&'static str],
    /// `(e)`, `c ? a : b`, `return e;`, a block, a parameter list, an initialized declarator.
    pub parenthesized: &'static str,
    pub conditional: &'static str,
    pub return_statement: &'static str,
    pub block: &'static str,
    pub parameter_list: &'static str,
    pub init_declarator: &'static str,
    /// Statements `kind (head) body` that may become their body (field `consequence`/`body`).
    pub guarded: &'static [(&'static str, &'static str)],
    /// Nodes around a statement that only carry a keyword (`else S`): the statement is inside.
    pub wrappers: &'static [&'static str],
    pub string_literals: &'static [&'static str],
    pub char_literal: &'static str,
    pub number_literal: &'static str,
    /// Types that `small_type` may replace.
    pub types: &'static [&'static str],
    /// Declarations that identifier merging may delete once their name has no use left, and
    /// the kinds that make one a function or a type.
    pub declarations: &'static [&'static str],
    pub function_declarator: &'static str,
    pub parameter_declaration: &'static str,
    /// Calls and the fields of calls and function declarators.
    pub call: &'static str,
    pub function_field: &'static str,
    pub arguments_field: &'static str,
    pub parameters_field: &'static str,
    pub type_definition: &'static str,
    /// Layout: keywords followed by a space before `(`, operators spaced when binary, nodes
    /// whose braces open an indented block, preprocessor lines.
    pub keywords_before_paren: &'static [&'static str],
    pub binary_parents: &'static [&'static str],
    pub block_braces: &'static [&'static str],
    pub preprocessor_prefix: &'static str,
    pub comment: &'static str,
    /// Kinds that can simply go: qualifiers, storage classes, attributes.
    pub droppable: &'static [&'static str],
}

pub const C: RewriteTable = RewriteTable {
    zero: "0",
    empty_block: "{}",
    small_type: "int",
    empty_string: "\"\"",
    empty_params: "()",
    declaration_end: ";",
    expressions: &[
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
    ],
    names: &[
        "identifier",
        "type_identifier",
        "field_identifier",
        "statement_identifier",
    ],
    mergeable: &["identifier", "type_identifier", "primitive_type"],
    raw_text: &["preproc_arg"],
    function_definition: "function_definition",
    body_field: "body",
    declarator_field: "declarator",
    type_field: "type",
    name_field: "name",
    field_declaration: "field_declaration",
    enumerator: "enumerator",
    macro_definitions: &["preproc_def", "preproc_function_def"],
    tagged_types: &["struct_specifier", "union_specifier", "enum_specifier"],
    parenthesized: "parenthesized_expression",
    conditional: "conditional_expression",
    return_statement: "return_statement",
    block: "compound_statement",
    parameter_list: "parameter_list",
    init_declarator: "init_declarator",
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
    declarations: &["declaration", "function_definition", "type_definition"],
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
    droppable: &[
        "type_qualifier",
        "storage_class_specifier",
        "attribute_specifier",
        "attribute_declaration",
        "ms_declspec_modifier",
    ],
};
