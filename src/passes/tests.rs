use proptest::prelude::*;

use super::*;
use crate::edits::*;
use crate::engine::{FnOracle, reduce};
use crate::policy::Unit;
use crate::policy::ddmin::Sweep;
use crate::tree::render::would_glue;

pub fn parse(src: &str) -> tree_sitter::Tree {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_c::LANGUAGE.into())
        .expect("the C grammar loads");
    parser.parse(src, None).expect("a tree")
}

pub fn parse_cpp(src: &str) -> tree_sitter::Tree {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_cpp::LANGUAGE.into())
        .expect("the C++ grammar loads");
    parser.parse(src, None).expect("a tree")
}

/// Applies every layer in turn, each edit of a layer where it still fits.
pub fn apply_all(src: &str, edits: &[Edit]) -> String {
    let mut space = EditSpace::new(src.as_bytes().to_vec());
    for layer in layers(edits.to_vec(), src.as_bytes()) {
        space.next_layer(&[], layer);
    }
    String::from_utf8(space.render(&[])).expect("utf-8")
}

/// The text after each of a pass's hunks on its own (C).
pub fn outcomes(pass: &dyn Pass, src: &str) -> Vec<String> {
    outcomes_in(&crate::lang::c::SPEC, pass, src)
}

/// [`outcomes`] in the language `spec`, with its rewrite table.
pub fn outcomes_in(spec: &crate::lang::LangSpec, pass: &dyn Pass, src: &str) -> Vec<String> {
    pass.hunks(&parse_in(spec, src), src.as_bytes(), spec.rewrite)
        .iter()
        .map(|h| apply_all(src, h))
        .collect()
}

/// Applies the first layer only (the outermost edits).
pub fn apply_first_layer(src: &str, edits: &[Edit]) -> String {
    let mut space = EditSpace::new(src.as_bytes().to_vec());
    let first = layers(edits.to_vec(), src.as_bytes())
        .into_iter()
        .next()
        .unwrap_or_default();
    space.next_layer(&[], first);
    String::from_utf8(space.render(&[])).expect("utf-8")
}

#[test]
fn keeping_every_edit_unapplied_gives_the_text_back() {
    let src = b"int main() { return f(1) + 2; }".to_vec();
    let mut space = EditSpace::new(src.clone());
    space.next_layer(
        &[],
        vec![
            vec![Edit::new(13, 29, b"return;")],
            vec![Edit::delete(0, 3)],
        ],
    );
    assert_eq!(space.render(&space.all_units()), src);
    assert_eq!(space.render(&[0]), b" main() { return f(1) + 2; }");
    assert_eq!(space.render(&[1]), b"int main() { return; }");
}

#[test]
fn a_replacement_never_glues_to_its_neighbours() {
    let src = b"return(x)+y;".to_vec();
    let mut space = EditSpace::new(src);
    space.next_layer(
        &[],
        vec![vec![Edit::new(6, 9, b"0")], vec![Edit::new(9, 10, b"-")]],
    );
    assert_eq!(space.render(&[1]), b"return 0+y;");
    assert_eq!(space.render(&[0]), b"return(x)-y;");
    let mut space = EditSpace::new(b"a - (-b)".to_vec());
    space.next_layer(&[], vec![vec![Edit::new(4, 8, b"-b")]]);
    assert_eq!(space.render(&[]), b"a - -b");
}

/// The closure passes' units nest (a class and its members, an IR function and its body): an
/// edit inside one that is made is part of it, whichever comes first in the layer; an insertion
/// where a deletion starts stays in front of it.
#[test]
fn an_edit_inside_a_made_one_is_part_of_it() {
    let src = b"define i32 @f() {\n  ret i32 0\n}\nrest".to_vec();
    let mut space = EditSpace::new(src.clone());
    space.next_layer(
        &[],
        vec![
            vec![Edit::new(0, 31, b"declare i32 @f()")],
            vec![Edit::delete(0, 32)],
            vec![Edit::delete(18, 30)],
            vec![Edit::new(0, 0, b"X")],
        ],
    );
    assert_eq!(space.render(&[1, 2, 3]), b"declare i32 @f()\nrest");
    assert_eq!(space.render(&[0, 2, 3]), b"rest");
    assert_eq!(space.render(&[2, 3]), b"rest");
    assert_eq!(space.render(&[0, 1, 3]), b"define i32 @f() {\n}\nrest");
    // (a space where the two would lex as one word)
    assert_eq!(space.render(&[0, 2]), b"X rest");
    assert_eq!(space.render(&space.all_units()), src);
}

#[test]
fn later_layers_drop_edits_that_overlap_committed_ones() {
    let src = "int f() { return (a + b); }";
    let edits = vec![
        Edit::new(17, 24, b"0"),     // (a + b)
        Edit::new(17, 24, b"a + b"), // the same node, second choice
        Edit::new(18, 23, b"0"),     // a + b, nested
    ];
    let layered = layers(edits, src.as_bytes());
    assert_eq!(layered.len(), 3);
    let mut space = EditSpace::new(src.as_bytes().to_vec());
    space.next_layer(&[], layered[0].clone());
    space.next_layer(&[], layered[1].clone()); // commits `0`: the rest overlaps it
    assert!(space.hunks.is_empty());
    assert_eq!(space.render(&[]), b"int f() { return 0; }");
}

#[test]
fn a_chain_of_passes_shrinks_a_small_program() {
    let src = "static int dead(void) { return 4; }\nint main(void) { if (x) { crash((1 + 2)); } return 7; }\n";
    let keep = |s: &str| s.contains("crash(") && parse(s).root_node().has_error().not();
    let mut text = src.to_string();
    for pass in [
        &names::Unreferenced as &dyn Pass,
        &smallest::Smallest,
        &smallest::Smallest,
        &smallest::Smallest,
    ] {
        text = minimize(&text, pass, &keep);
    }
    assert!(keep(&text));
    assert!(text.len() < src.len() / 2, "{text}");
    assert!(!text.contains("dead") && !text.contains("if"), "{text}");
}

use std::ops::Not;

/// Every pass of the table before the new ones (and the other token windows).
pub fn existing_passes() -> Vec<Box<dyn Pass>> {
    let mut out: Vec<Box<dyn Pass>> = vec![
        Box::new(names::Unreferenced),
        Box::new(names::Declarations),
        Box::new(smallest::Smallest),
        Box::new(merge::MergeNames),
        Box::new(params::RemoveParameter),
    ];
    out.extend((1..=2).map(|n| Box::new(windows::TokenWindows(n)) as Box<dyn Pass>));
    out
}

/// Asserts that `pass` still shrinks `src` under `keep` once every one of [`existing_passes`]
/// has done what it can (run in turn to a fixpoint); returns what `pass` made of that fixpoint.
pub fn only_this_pass_shrinks(src: &str, pass: &dyn Pass, keep: &dyn Fn(&str) -> bool) -> String {
    shrink_with(&crate::lang::c::SPEC, src, pass, keep)
}

/// Parses `src` as the language `spec`.
pub fn parse_in(spec: &crate::lang::LangSpec, src: &str) -> tree_sitter::Tree {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&(spec.language)())
        .expect("the grammar loads");
    parser.parse(src, None).expect("a tree")
}

/// [`only_this_pass_shrinks`] in the language `spec` (with its rewrite table), the other passes
/// being [`existing_passes`] and the hoist, less `pass` itself.
pub fn shrink_with(
    spec: &crate::lang::LangSpec,
    src: &str,
    pass: &dyn Pass,
    keep: &dyn Fn(&str) -> bool,
) -> String {
    assert!(keep(src), "the test rejects the original");
    let mut text = src.to_string();
    let mut others = existing_passes();
    others.push(Box::new(hoist::Hoist));
    others.retain(|p| p.name() != pass.name());
    loop {
        let before = text.clone();
        for other in &others {
            text = minimize_in(spec, &text, other.as_ref(), keep);
        }
        if text == before {
            break;
        }
    }
    let out = minimize_in(spec, &text, pass, keep);
    assert!(
        out.len() < text.len() && keep(&out),
        "{}: {text:?} -> {out:?}",
        pass.name()
    );
    out
}

/// One pass through the loop with an in-process oracle, layer by layer; returns the new text.
pub fn minimize(src: &str, pass: &dyn Pass, keep: &dyn Fn(&str) -> bool) -> String {
    minimize_in(&crate::lang::c::SPEC, src, pass, keep)
}

/// [`minimize`] in the language `spec`, with its rewrite table.
pub fn minimize_in(
    spec: &crate::lang::LangSpec,
    src: &str,
    pass: &dyn Pass,
    keep: &dyn Fn(&str) -> bool,
) -> String {
    let tree = parse_in(spec, src);
    let hunks = pass.hunks(&tree, src.as_bytes(), spec.rewrite);
    let mut space = EditSpace::new(src.as_bytes().to_vec());
    let mut config = Vec::new();
    for layer in layers_of_hunks(hunks, src.as_bytes()) {
        space.next_layer(&config, layer);
        let mut oracle =
            FnOracle(|c: &[crate::policy::Unit]| keep(&String::from_utf8_lossy(&space.render(c))));
        // as the driver runs it: mostly-failing passes one edit at a time
        let mut sweep = match pass.one_at_a_time() {
            true => Sweep::singles(),
            false => Sweep::new(),
        };
        config = reduce(space.all_units(), &mut oracle, &mut sweep);
    }
    String::from_utf8(space.render(&config)).expect("utf-8")
}

/// A tiny lexer: maximal runs of word characters, maximal runs of operator characters, and
/// every other non-blank character alone.
fn lex(s: &[u8]) -> Vec<Vec<u8>> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let op = |c: u8| b"+-*/%<>=!&|^~.:#?".contains(&c);
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut prev: Option<u8> = None;
    for &c in s {
        if c == b' ' {
            prev = None;
            continue;
        }
        let joins = prev.is_some_and(|p| (word(p) && word(c)) || (op(p) && op(c)));
        match out.last_mut() {
            Some(last) if joins => last.push(c),
            _ => out.push(vec![c]),
        }
        prev = Some(c);
    }
    out
}

const TOKENS: &[&str] = &[
    "a", "x1", "int", "0", "+", "-", "=", "*", "(", ")", ";", "++",
];

fn token() -> impl Strategy<Value = usize> {
    0..TOKENS.len()
}

proptest! {
    #[test]
    fn rendering_any_subset_of_edits_never_glues_tokens(
        toks in prop::collection::vec(token(), 1..30),
        spaced in prop::collection::vec(any::<bool>(), 30),
        edits in prop::collection::vec((0usize..30, 0usize..4, prop::option::of(token())), 0..8),
        applied in prop::collection::vec(any::<bool>(), 8),
    ) {
        // the source: tokens with a space where they would glue, else maybe one
        let mut src = Vec::new();
        let mut spans = Vec::new();
        for (i, &t) in toks.iter().enumerate() {
            let t = TOKENS[t].as_bytes();
            if !src.is_empty() && (spaced[i] || would_glue(&src, t, b"")) {
                src.push(b' ');
            }
            spans.push((src.len(), src.len() + t.len()));
            src.extend_from_slice(t);
        }
        prop_assume!(lex(&src).len() == toks.len());
        // disjoint token-range edits
        let mut chosen: Vec<(usize, usize, Option<usize>)> = Vec::new();
        for (s, len, with) in edits {
            let (s, e) = (s.min(toks.len() - 1), (s + len).min(toks.len()));
            if chosen.iter().all(|&(a, b, _)| e <= a || b <= s) && s < e {
                chosen.push((s, e, with));
            }
        }
        chosen.sort();
        let layer: Vec<Hunk> = chosen
            .iter()
            .map(|&(s, e, w)| vec![Edit::new(spans[s].0, spans[e - 1].1, w.map_or(&b""[..], |w| TOKENS[w].as_bytes()))])
            .collect();
        let mut space = EditSpace::new(src.clone());
        space.next_layer(&[], layer);
        let config: Vec<Unit> = (0..chosen.len() as Unit).filter(|&i| !applied[i as usize]).collect();
        // the expected tokens
        let mut expected: Vec<Vec<u8>> = Vec::new();
        let mut i = 0;
        for (k, &(s, e, w)) in chosen.iter().enumerate() {
            let on = applied[k];
            while i < s { expected.push(TOKENS[toks[i]].as_bytes().to_vec()); i += 1; }
            if on {
                expected.extend(w.map(|w| TOKENS[w].as_bytes().to_vec()));
            } else {
                expected.extend(toks[s..e].iter().map(|&t| TOKENS[t].as_bytes().to_vec()));
            }
            i = e;
        }
        expected.extend(toks[i..].iter().map(|&t| TOKENS[t].as_bytes().to_vec()));
        let out = space.render(&config);
        prop_assert_eq!(lex(&out), expected);
        if config.len() == chosen.len() {
            prop_assert_eq!(out, src);
        }
    }

    #[test]
    fn layers_are_disjoint_and_keep_every_hunk(
        raw in prop::collection::vec(prop::collection::vec((0u32..40, 1u32..6, 0u8..3), 1..3), 0..30),
    ) {
        let src = vec![b'x'; 50];
        let hunks: Vec<Hunk> = raw
            .iter()
            .map(|h| h.iter().map(|&(s, l, w)| Edit::new(s as usize, (s + l) as usize, &b"yy"[..w as usize])).collect())
            .collect();
        let layered = layers_of_hunks(hunks.clone(), &src);
        for layer in &layered {
            let mut all: Vec<&Edit> = layer.iter().flatten().collect();
            all.sort_by_key(|e| e.start);
            for w in all.windows(2) {
                prop_assert!(w[0].end <= w[1].start, "{:?}", w);
            }
        }
        // every valid hunk is in exactly one layer
        let kept: Vec<Hunk> = layered.concat();
        for mut h in hunks {
            h.sort_by_key(|e| e.start);
            let valid = h.windows(2).all(|w| w[0].end <= w[1].start);
            prop_assert_eq!(kept.contains(&h), valid, "{:?}", h);
        }
    }

    #[test]
    fn every_pass_keeps_the_result_interesting_under_a_chaotic_oracle(
        prog in c_program(),
        salt in any::<u64>(),
    ) {
        let original = prog.clone();
        let chaotic = move |s: &str| {
            s == original || xxhash_rust::xxh3::xxh3_64_with_seed(s.as_bytes(), salt).is_multiple_of(3)
        };
        let monotone = |s: &str| s.contains("crash");
        let passes: [&dyn Pass; 19] = [
            &params::RemoveParameter,
            &inline::InlineReturn,
            &globals::FunctionToGlobal,
            &arrays::ArrayToScalar,
            &returns::ReturnVoid,
            &shapes::Shapes,
            &pointers::PointerLevel,
            &fields::RemoveField,
            &flatten::FlattenStruct,
            &unifdef::Unifdef,
            &pairs::BalancedPairs,
            &subsets::WindowSubsets,
            &windows::TokenWindows(5),
            &names::Unreferenced,
            &names::Declarations,
            &smallest::Smallest,
            &merge::MergeNames,
            &windows::TokenWindows(1),
            &windows::TokenWindows(2),
        ];
        for keep in [&chaotic as &dyn Fn(&str) -> bool, &monotone] {
            let mut text = prog.clone();
            for pass in passes {
                let next = minimize(&text, pass, keep);
                prop_assert!(next == text || keep(&next), "{} broke {:?}", pass.name(), next);
                prop_assert!(next.len() <= text.len(), "{} grew {:?} into {:?}", pass.name(), text, next);
                text = next;
            }
        }
    }
}

/// Random C-like programs: globals, functions with nested statements, a `crash()` somewhere.
fn c_program() -> impl Strategy<Value = String> {
    let expr = prop::sample::select(vec!["x", "1", "(y + 2)", "f(x)", "a ? b : c", "crash()"]);
    let stmt = (expr.clone(), 0u8..4).prop_map(|(e, k)| match k {
        0 => format!("if ({e}) {{ g({e}); }}"),
        1 => format!("return {e};"),
        2 => format!("x = {e};"),
        _ => format!("while ({e}) y++;"),
    });
    let func = (prop::collection::vec(stmt, 1..4), 0u8..5)
        .prop_map(|(body, n)| format!("static int f{n}(int x) {{ {} }}", body.join(" ")));
    prop::collection::vec(func, 1..4).prop_map(|fs| {
        format!(
            "int x, y, a, b, c;\n{}\nint main(void) {{ crash(); }}\n",
            fs.join("\n")
        )
    })
}
