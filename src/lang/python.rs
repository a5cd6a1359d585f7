//! Python (tree-sitter-python). Indentation-sensitive: the renderer keeps every kept line's
//! original indentation and writes `pass` for a block whose statements were all deleted.

use super::{EmptyBlock, Kind, LangSpec, Overrides, RenderRules, Smallest};

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
        not_list: &[],
        attach_to_previous: &[],
        slot_excludes: &[],
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
    smallest: &[
        Smallest {
            kind: Kind::Expression,
            text: "0",
            node_kinds: &["expression"],
        },
        Smallest {
            kind: Kind::Block,
            text: "pass",
            node_kinds: &["block"],
        },
        Smallest {
            kind: Kind::Type,
            text: "int",
            node_kinds: &["type"],
        },
        Smallest {
            kind: Kind::String,
            text: "''",
            node_kinds: &["string"],
        },
    ],
};
