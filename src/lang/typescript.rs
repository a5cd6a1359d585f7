//! TypeScript and TSX (tree-sitter-typescript, ABI 14: supertypes come from `NODE_TYPES`).
//! One crate, two grammars with their own node-types.

use super::{Kind, LangSpec, Overrides, RenderRules, Smallest};

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

const SMALLEST: &[Smallest] = &[
    Smallest {
        kind: Kind::Expression,
        text: "0",
        node_kinds: &["expression"],
    },
    Smallest {
        kind: Kind::Block,
        text: "{}",
        node_kinds: &["statement_block"],
    },
    Smallest {
        kind: Kind::Type,
        text: "any",
        node_kinds: &["type"],
    },
    Smallest {
        kind: Kind::String,
        text: "\"\"",
        node_kinds: &["string"],
    },
];

pub static SPEC: LangSpec = LangSpec {
    name: "typescript",
    extensions: &["ts", "mts", "cts"],
    language: typescript,
    node_types: tree_sitter_typescript::TYPESCRIPT_NODE_TYPES,
    overrides: OVERRIDES,
    comments: &["comment", "html_comment"],
    render: RENDER,
    smallest: SMALLEST,
};

pub static TSX: LangSpec = LangSpec {
    name: "tsx",
    extensions: &["tsx"],
    language: tsx,
    node_types: tree_sitter_typescript::TSX_NODE_TYPES,
    overrides: OVERRIDES,
    comments: &["comment", "html_comment"],
    render: RENDER,
    smallest: SMALLEST,
};
