//! C (tree-sitter-c). Also `.i` (preprocessed C) and `.h`.

use super::{LangSpec, Overrides, RenderRules};

fn language() -> tree_sitter::Language {
    tree_sitter_c::LANGUAGE.into()
}

/// Statements tree-sitter-c accepts at file scope (for scripts); C compilers do not, so a
/// function is never "replaced" by one of its statements.
pub(crate) const NOT_AT_FILE_SCOPE: &[&str] = &[
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
        slot_excludes: &[("translation_unit", NOT_AT_FILE_SCOPE)],
    },
    comments: &["comment"],
    render: RenderRules {
        word_chars: b"",
        empty_block: None,
    },
    rewrite: &crate::rewrite::c::C,
};
