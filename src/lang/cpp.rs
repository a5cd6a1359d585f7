//! C++ (tree-sitter-cpp, ABI 14: supertypes come from `NODE_TYPES`). Preprocessed libstdc++
//! code parses with hundreds of ERROR regions; those are reduced token by token.

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
        slot_excludes: &[("translation_unit", super::c::NOT_AT_FILE_SCOPE)],
    },
    comments: &["comment"],
    render: RenderRules {
        word_chars: b"",
        empty_block: None,
    },
    rewrite: &crate::rewrite::cpp::CPP,
};
