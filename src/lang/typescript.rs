//! TypeScript and TSX (tree-sitter-typescript, ABI 14: supertypes come from `NODE_TYPES`).
//! One crate, two grammars with their own node-types.

use super::{LangSpec, Overrides, RenderRules};
use crate::lang::table::{RewriteTable, concat};

fn typescript() -> tree_sitter::Language {
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
}

fn tsx() -> tree_sitter::Language {
    tree_sitter_typescript::LANGUAGE_TSX.into()
}

const OVERRIDES: Overrides = Overrides {
    // quotes and escapes; template strings stay reducible (their `${}` parts)
    atomic: &["string", "regex"],
    not_list: &[],
    attach_to_previous: &[],
    slot_excludes: &[],
};

const RENDER: RenderRules = RenderRules {
    // `$` is an identifier character
    word_chars: b"$",
    empty_block: None,
};

pub static SPEC: LangSpec = LangSpec {
    name: "typescript",
    extensions: &["ts", "mts", "cts"],
    language: typescript,
    node_types: tree_sitter_typescript::TYPESCRIPT_NODE_TYPES,
    overrides: OVERRIDES,
    comments: &["comment", "html_comment"],
    render: RENDER,
    rewrite: &REWRITE,
};

pub static TSX: LangSpec = LangSpec {
    name: "tsx",
    extensions: &["tsx"],
    language: tsx,
    node_types: tree_sitter_typescript::TSX_NODE_TYPES,
    overrides: OVERRIDES,
    comments: &["comment", "html_comment"],
    render: RENDER,
    rewrite: &REWRITE,
};

/// JavaScript's expression kinds and TypeScript's own.
const EXPRESSIONS: [&str; 25] = concat(
    super::javascript::EXPRESSIONS,
    [
        "as_expression",
        "non_null_expression",
        "satisfies_expression",
    ],
);

/// TypeScript's rewrite data: JavaScript's, plus `any` for a type, and type annotations,
/// type arguments and access modifiers that can simply go.
pub const REWRITE: RewriteTable = RewriteTable {
    small_type: "any",
    // a body that throws checks against every return type (JavaScript deletes the statements
    // instead: no type is checked there)
    stub_functions: &["function_declaration", "method_definition"],
    stub_body: "{throw 0}",
    expressions: &EXPRESSIONS,
    types: &[
        "array_type",
        "conditional_type",
        "function_type",
        "generic_type",
        "intersection_type",
        "literal_type",
        "lookup_type",
        "object_type",
        "parenthesized_type",
        "tuple_type",
        "union_type",
    ],
    droppable: &[
        "type_annotation",
        "type_arguments",
        "type_parameters",
        "accessibility_modifier",
        "override_modifier",
    ],
    // JavaScript's, and a class field with a type or a modifier (`private n: number = 1;`)
    named_by: &[
        ("field_definition", "property"),
        ("public_field_definition", "name"),
    ],
    ..super::javascript::REWRITE
};
