//! Property tests: for random inputs and random monotone and non-monotone oracles, every algorithm
//! returns something the oracle accepts and never larger than the input; what a completion claims
//! (1-minimality) holds; the tree renderer round-trips random C-like programs and every fixture.

use proptest::prelude::*;
use reduce::engine::shuffled::ShuffledOracle;
use reduce::engine::{FnOracle, reduce};
use reduce::policy::bytes::{Completion, Settings, Workspace, reduce_bytes};
use reduce::policy::ddmin::{Ddmin, Sweep};
use reduce::policy::giveup::GiveUp;
use reduce::policy::hdd::Hdd;
use reduce::policy::perses::{ClearDone, Perses, PersesOptions};
use reduce::policy::until::Until;
use reduce::policy::{Policy, Unit, Verdict};
use reduce::tree::grammar::Grammar;
use reduce::tree::ts;

/// A deterministic "random" verdict for a configuration, true for the full input.
fn chaotic(config: &[Unit], seed: u64, full: usize) -> bool {
    if config.len() == full {
        return true;
    }
    let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
    for &u in config {
        h = (h ^ u as u64).wrapping_mul(0x100_0000_01b3);
    }
    h.is_multiple_of(3)
}

fn one_minimal(result: &[Unit], mut ok: impl FnMut(&[Unit]) -> bool) -> bool {
    (0..result.len()).all(|i| {
        let mut smaller = result.to_vec();
        smaller.remove(i);
        !ok(&smaller)
    })
}

fn policies() -> Vec<(&'static str, Box<dyn Policy>)> {
    vec![
        ("ddmin", Box::new(Ddmin)),
        ("sweep", Box::new(Sweep::new())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn list_minimizers_give_interesting_one_minimal_results_for_monotone_oracles(
        n in 0usize..60,
        needed in proptest::collection::vec(0u32..60, 0..6),
    ) {
        let needed: Vec<Unit> = needed.into_iter().filter(|&u| (u as usize) < n).collect();
        let ok = |c: &[Unit]| needed.iter().all(|u| c.contains(u));
        for (name, mut policy) in policies() {
            let input: Vec<Unit> = (0..n as Unit).collect();
            let mut oracle = FnOracle(ok);
            let result = reduce(input.clone(), &mut oracle, policy.as_mut());
            prop_assert!(ok(&result), "{name}");
            prop_assert!(result.len() <= input.len(), "{name}");
            prop_assert!(one_minimal(&result, ok), "{name}: {result:?}");
        }
    }

    #[test]
    fn list_minimizers_never_return_an_uninteresting_result_for_chaotic_oracles(
        n in 1usize..40,
        seed in any::<u64>(),
    ) {
        for (name, mut policy) in policies() {
            let input: Vec<Unit> = (0..n as Unit).collect();
            let mut oracle = FnOracle(|c: &[Unit]| chaotic(c, seed, n));
            let result = reduce(input, &mut oracle, policy.as_mut());
            prop_assert!(chaotic(&result, seed, n), "{name}");
            prop_assert!(result.len() <= n);
        }
    }

    #[test]
    fn the_bytes_reducer_keeps_its_one_minimal_promise(
        input in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'x'), Just(b'y')], 0..40),
        budget in prop_oneof![Just(None), (1u64..60).prop_map(Some)],
    ) {
        let ok = |c: &[u8]| c.iter().position(|&b| b == b'x').is_some_and(|i| c[i..].contains(&b'y'));
        prop_assume!(ok(&input));
        let mut ws = Workspace::new(input.len()).unwrap();
        let mut calls = 0u64;
        let mut oracle = |c: &[u8]| {
            calls += 1;
            Some(if ok(c) { Verdict::Interesting } else { Verdict::NotInteresting })
        };
        let out = reduce_bytes(&mut ws, &input, &mut oracle, Settings { max_attempts: budget }).unwrap();
        prop_assert!(ok(out.bytes));
        prop_assert!(out.bytes.len() <= input.len());
        prop_assert!(budget.is_none_or(|b| out.attempts <= b));
        if out.completion == Completion::OneMinimal {
            for i in 0..out.bytes.len() {
                let mut smaller = out.bytes.to_vec();
                smaller.remove(i);
                prop_assert!(!ok(&smaller));
            }
        }
    }

    #[test]
    fn the_tree_renderer_round_trips_random_c_like_programs(program in c_like_program()) {
        let g = Grammar::new(&reduce::lang::c::SPEC).unwrap();
        let mut p = ts::new_parser(&g).unwrap();
        let parsed = ts::build(&g, &mut p, program.as_bytes()).unwrap();
        let all: Vec<Unit> = (0..parsed.tokens.len() as Unit).collect();
        prop_assert_eq!(String::from_utf8(parsed.tokens.render(&all)).unwrap(), program);
    }

    #[test]
    fn tree_algorithms_return_interesting_programs(program in c_like_program(), which in 0usize..3) {
        let g = Grammar::new(&reduce::lang::c::SPEC).unwrap();
        let mut p = ts::new_parser(&g).unwrap();
        let parsed = ts::build(&g, &mut p, program.as_bytes()).unwrap();
        let needle = parsed.tokens.spans.len() / 2;
        let needle_text = parsed.tokens.text(needle as Unit).to_vec();
        let mut checker = ts::new_parser(&g).unwrap();
        let base_errors = parsed.errors;
        let ok = |c: &[Unit]| {
            let text = parsed.tokens.render(c);
            let tree = ts::parse_tree(&mut checker, &text).unwrap();
            ts::count_errors(&tree).0 <= base_errors
                && text.windows(needle_text.len().max(1)).any(|w| w == needle_text.as_slice())
        };
        let all: Vec<Unit> = (0..parsed.tokens.len() as Unit).collect();
        let mut oracle = FnOracle(ok);
        let arena = &parsed.arena;
        let options = PersesOptions { skip_failed_replacements: true, clear_done: ClearDone::OnDeletion, lists_in_size_order: true, opt_deletions_in_walk: true };
        let result = match which {
            0 => reduce(all.clone(), &mut oracle, &mut Hdd::new(arena, Sweep::new)),
            1 => reduce(all.clone(), &mut oracle, &mut Perses::new(arena, || Ddmin)),
            _ => reduce(all.clone(), &mut oracle, &mut Perses::new(arena, Sweep::new).options(options)),
        };
        let text = parsed.tokens.render(&result);
        prop_assert!(text.windows(needle_text.len().max(1)).any(|w| w == needle_text.as_slice()));
        prop_assert!(result.len() <= all.len());
        prop_assert!(text.len() <= program.len());
    }
}

/// Random programs from a small C-like grammar, with comments, blank lines and odd spacing.
fn c_like_program() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("x".to_string()),
        Just("42".to_string()),
        Just("f(a, b)".to_string()),
        Just("\"s\"".to_string()),
    ];
    let expr = leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} + {b}")),
            inner.clone().prop_map(|a| format!("({a})")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("g({a},{b})")),
        ]
    });
    let stmt = expr.prop_flat_map(|e| {
        prop_oneof![
            Just(format!("x = {e};")),
            Just(format!("if ({e}) {{ y = {e}; }} else y++;")),
            Just(format!("for (int i = 0; i < {e}; i++) {{ }}")),
            Just(format!("return {e};")),
            Just(format!("/* c */ int v[] = {{ {e}, 1, }};")),
        ]
    });
    let spacing = prop_oneof![Just(" "), Just("\n  "), Just("\n\n"), Just("\t")];
    proptest::collection::vec((stmt, spacing), 1..8).prop_map(|stmts| {
        let body: String = stmts
            .into_iter()
            .map(|(s, sp)| format!("{sp}{s}"))
            .collect();
        format!("#define N 3\nint x, y;\nint f(int a, int b);\nint main(void) {{{body}\n}}\n")
    })
}

#[test]
fn the_tree_renderer_round_trips_every_fixture() {
    let g = Grammar::new(&reduce::lang::c::SPEC).unwrap();
    let mut p = ts::new_parser(&g).unwrap();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let case = entry.unwrap().path();
        for file in std::fs::read_dir(&case).into_iter().flatten() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "c") {
                let src = std::fs::read(&path).unwrap();
                let parsed = ts::build(&g, &mut p, &src).unwrap();
                let all: Vec<Unit> = (0..parsed.tokens.len() as Unit).collect();
                assert_eq!(parsed.tokens.render(&all), src, "{}", path.display());
                seen += 1;
            }
        }
    }
    assert!(seen >= 2);
}

proptest! {
    // Long: `cargo test --release -- --ignored fuzz` (parse + render + Perses on arbitrary bytes).
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    #[ignore = "long fuzz run; cargo test --release -- --ignored"]
    fn fuzz_parse_render_and_perses_on_arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let g = Grammar::new(&reduce::lang::c::SPEC).unwrap();
        let mut p = ts::new_parser(&g).unwrap();
        let parsed = ts::build(&g, &mut p, &bytes).unwrap();
        let all: Vec<Unit> = (0..parsed.tokens.len() as Unit).collect();
        prop_assert_eq!(parsed.tokens.render(&all), bytes.clone());
        // keep the first token: every algorithm must run to its end without panicking
        let first = all.first().copied();
        let mut oracle = FnOracle(|c: &[Unit]| first.is_none_or(|f| c.contains(&f)));
        let options = PersesOptions { skip_failed_replacements: true, clear_done: ClearDone::OnDeletion, lists_in_size_order: true, opt_deletions_in_walk: true };
        let result = reduce(all.clone(), &mut oracle, &mut Perses::new(&parsed.arena, Sweep::new).options(options));
        prop_assert!(result.len() <= all.len());
        let hdd = reduce(all.clone(), &mut oracle, &mut Hdd::new(&parsed.arena, Sweep::new));
        prop_assert!(hdd.len() <= all.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Speculation along the serial chain: for a random oracle and a random width, with tests
    /// finishing in a random order and some verdicts lost, the result and the sequence of
    /// committed candidates are the serial run's.
    #[test]
    fn every_width_commits_the_serial_candidates_in_the_serial_order(
        program in c_like_program(),
        which in 0usize..6,
        width in 2usize..24,
        seed in any::<u64>(),
    ) {
        let g = Grammar::new(&reduce::lang::c::SPEC).unwrap();
        let mut p = ts::new_parser(&g).unwrap();
        let parsed = ts::build(&g, &mut p, program.as_bytes()).unwrap();
        let all: Vec<Unit> = (0..parsed.tokens.len() as Unit).collect();
        let full = all.len();
        let judge = |c: &[Unit]| chaotic(c, seed, full);
        let arena = &parsed.arena;
        let run = |width: usize, shuffle: u64| {
            let mut oracle = ShuffledOracle::new(judge, width, shuffle);
            let options = PersesOptions { skip_failed_replacements: true, clear_done: ClearDone::OnDeletion, lists_in_size_order: true, opt_deletions_in_walk: true };
            let result = match which {
                0 => reduce(all.clone(), &mut oracle, &mut Sweep::new()),
                1 => reduce(all.clone(), &mut oracle, &mut Hdd::new(arena, Sweep::new)),
                2 => reduce(all.clone(), &mut oracle, &mut Perses::new(arena, || Ddmin)),
                3 => reduce(all.clone(), &mut oracle, &mut Perses::new(arena, Sweep::new).options(options)),
                // the rewrite passes' give-up rule: its count of failures in a row forks with it
                5 => reduce(all.clone(), &mut oracle, &mut GiveUp::new(Sweep::new(), Some(3))),
                // the size goal of the JavaScript and C++ rounds: it ends the loop in commit order
                _ => {
                    let perses = Perses::new(arena, Sweep::new).options(options);
                    reduce(all.clone(), &mut oracle, &mut Until::new(perses, full * 3 / 4))
                }
            };
            (result, oracle.committed)
        };
        let serial = run(1, 0);
        prop_assert!(chaotic(&serial.0, seed, full));
        prop_assert_eq!(run(width, seed), serial);
    }
}
