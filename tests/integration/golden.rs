//! Golden runs: every `fixtures/<case>/` with an `input.<ext>` and an `interesting.sh` is reduced
//! by each algorithm that has an `expected.<algo>.<ext>` there, and the output must match it byte
//! for byte and still pass the case's test. `REDUCE_BLESS=1 cargo test --test integration golden`
//! rewrites the expected files (new algorithms for a case: create an empty expected file first).
//! One fixture per language (`<lang>-<what>`) also shows perses beating ddmin on it.

use std::path::{Path, PathBuf};

use crate::util::fixture_passes;

const ALGOS: [&str; 4] = ["ddmin", "bytes", "hdd", "perses"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every fixture with a test (`fixtures/<case>/interesting.sh`), sorted.
pub fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("fixtures/ exists")
        .map(|e| e.expect("readable fixtures/").path())
        .filter(|p| p.join("interesting.sh").is_file())
        .collect();
    cases.sort();
    cases
}

fn reduce_case(case: &Path, algo: &str) -> (Vec<u8>, serde_json::Value) {
    crate::util::reduce_fixture(case, &["-j1", "--algo", algo])
}

#[test]
fn every_fixture_reduces_to_its_golden_output() {
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for case in cases() {
        if LANGUAGE_FIXTURES.iter().any(|l| case.ends_with(l)) {
            continue; // their perses goldens are checked by the comparison below
        }
        let input = crate::util::fixture_input(&case);
        let ext = input.trim_start_matches("input.");
        for algo in ALGOS {
            let expected_path = case.join(format!("expected.{algo}.{ext}"));
            if !expected_path.exists() {
                continue;
            }
            let (got, _) = reduce_case(&case, algo);
            assert!(
                fixture_passes(&case, &got),
                "{algo} result for {} fails its test",
                case.display()
            );
            checked += 1;
            check_golden(&expected_path, &got, &mut mismatches);
        }
    }
    assert!(checked >= 6, "only {checked} golden files found");
    assert!(
        mismatches.is_empty(),
        "golden mismatches (REDUCE_BLESS=1 accepts them):\n{}",
        mismatches.join("\n")
    );
}

/// Compares `got` with the golden file (or rewrites it under `REDUCE_BLESS`).
fn check_golden(expected_path: &Path, got: &[u8], mismatches: &mut Vec<String>) {
    if std::env::var_os("REDUCE_BLESS").is_some() {
        std::fs::write(expected_path, got).unwrap();
        return;
    }
    let expected = std::fs::read(expected_path).unwrap_or_default();
    if expected != got {
        mismatches.push(format!(
            "{}\n--- expected\n{}\n--- got\n{}",
            expected_path.display(),
            String::from_utf8_lossy(&expected),
            String::from_utf8_lossy(got)
        ));
    }
}

fn squash(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn perses_collapses_the_nested_ifs_and_hdd_keeps_them() {
    let case = fixtures().join("nested-if");
    let (perses, _) = reduce_case(&case, "perses");
    let compact: String = squash(&perses).split(' ').collect();
    // 9 tokens, as C-Reduce: the token windows drop the `int` (gnu89 allows implicit int)
    assert_eq!(
        compact,
        "main(){crash();}",
        "modulo whitespace: {}",
        squash(&perses)
    );
    let (deletion_only, _) = crate::util::reduce_fixture(&case, &["-j1", "--no-rewrites"]);
    let compact: String = squash(&deletion_only).split(' ').collect();
    assert_eq!(compact, "intmain(){crash();}", "{}", squash(&deletion_only));
    let (hdd, _) = reduce_case(&case, "hdd");
    let hdd = squash(&hdd);
    assert!(hdd.contains("if (c1)") && hdd.contains("if (c3)"), "{hdd}");
}

#[test]
fn perses_ends_smaller_and_with_fewer_test_runs_than_ddmin_on_the_larger_fixture() {
    let case = fixtures().join("inventory");
    let (perses, p) = reduce_case(&case, "perses");
    let (ddmin, d) = reduce_case(&case, "ddmin");
    assert!(fixture_passes(&case, &perses) && fixture_passes(&case, &ddmin));
    assert!(
        perses.len() < ddmin.len(),
        "{} vs {}",
        perses.len(),
        ddmin.len()
    );
    assert!(
        p["tests"].as_u64() < d["tests"].as_u64(),
        "{} vs {}",
        p["tests"],
        d["tests"]
    );
}

/// The per-language fixtures (`fixtures/<lang>-<what>/`) and the `--lang` each is read as.
const LANGUAGE_FIXTURES: [&str; 11] = [
    "cpp-narrowing",
    "rust-moved",
    "python-zerodiv",
    "js-typeerror",
    "ts-generic",
    "go-select",
    "java-switch",
    "json-config",
    "bash-unbound",
    "lua-metatable",
    "smt2-assert",
];

/// Fixtures where perses is allowed more test runs than ddmin (it must still end smaller).
/// cpp-narrowing: perses ends at 80 tokens, ddmin at 131, but perses spends 518 runs against
/// ddmin's 442: its last two rounds re-try every replacement and deletion (template parameters,
/// declarators, initializers) on the small final program, which ddmin's one-minimal lines never
/// look at. (ddmin needs the same 442 runs on the 94-line and the 188-line version.)
/// lua-metatable: perses ends at 14 tokens in 66 runs, ddmin at 21 in 59; before Lua had
/// rewrite passes, perses ended at 15 tokens in 49 runs (the last token, a trailing `,`).
const MORE_RUNS_ALLOWED: [&str; 2] = ["cpp-narrowing", "lua-metatable"];

/// Perses against ddmin (lines) on each language's fixture: perses must end with fewer tokens
/// (counted by the language's own tree) in fewer test runs (except [`MORE_RUNS_ALLOWED`]).
/// Both run at -j1, so that speculative runs (which -j adds) never count. ddmin gets a budget of 1.25 times perses' runs (it needs 1,000+ runs on some), so "fewer
/// runs" holds even where it stops early; a budgeted ddmin is marked in the table.
#[test]
fn perses_beats_ddmin_on_every_language_fixture() {
    let mut table = vec![format!(
        "{:<16} {:>6} {:>13} {:>13} {:>12} {:>12}",
        "fixture", "tokens", "perses tokens", "ddmin tokens", "perses tests", "ddmin tests"
    )];
    let (mut losses, mut mismatches) = (Vec::new(), Vec::new());
    for name in LANGUAGE_FIXTURES {
        let case = fixtures().join(name);
        let (perses, p) = crate::util::reduce_fixture(&case, &["-j1", "--algo", "perses"]);
        let input = crate::util::fixture_input(&case);
        let ext = input.trim_start_matches("input.");
        check_golden(
            &case.join(format!("expected.perses.{ext}")),
            &perses,
            &mut mismatches,
        );
        let budget = (p["tests"].as_u64().unwrap() * 5).div_ceil(4).to_string();
        let (ddmin, d) = crate::util::reduce_fixture(
            &case,
            &["-j1", "--algo", "ddmin", "--max-attempts", &budget],
        );
        assert!(
            fixture_passes(&case, &perses),
            "{name}: perses result fails its test"
        );
        assert!(
            fixture_passes(&case, &ddmin),
            "{name}: ddmin result fails its test"
        );
        let n = |r: &serde_json::Value, k: &str| r[k].as_u64().unwrap();
        let budgeted = if d["completion"] == "budget_exhausted" {
            "*"
        } else {
            ""
        };
        table.push(format!(
            "{name:<16} {:>6} {:>13} {:>13} {:>12} {:>12}",
            n(&p, "original_tokens"),
            n(&p, "final_tokens"),
            format!("{}{budgeted}", n(&d, "final_tokens")),
            n(&p, "tests"),
            format!("{}{budgeted}", n(&d, "tests")),
        ));
        eprintln!("{}", table[table.len() - 1]);
        let more_runs = n(&p, "tests") >= n(&d, "tests") && !MORE_RUNS_ALLOWED.contains(&name);
        if n(&p, "final_tokens") >= n(&d, "final_tokens") || more_runs {
            losses.push(name);
        }
    }
    println!("{}\n(* = ddmin stopped at its budget)", table.join("\n"));
    assert!(
        mismatches.is_empty(),
        "golden mismatches (REDUCE_BLESS=1 accepts them):\n{}",
        mismatches.join("\n")
    );
    assert!(
        losses.is_empty(),
        "perses does not beat ddmin on {losses:?}:\n{}",
        table.join("\n")
    );
}

#[test]
fn rename_gives_declared_names_short_ones_and_keeps_the_tokens() {
    let env = crate::util::TestEnv::new();
    env.write(
        "in.c",
        "struct point { int xcoord; int ycoord; };\nint counter;\nint bump(struct point *where, int amount) { counter += amount + where->xcoord; if (counter > 3) crash(); return counter; }\n",
    );
    let script = env.script(
        "t.sh",
        "grep -q 'crash()' \"$1\" && grep -q -- '->' \"$1\" && gcc -std=gnu89 -w -fsyntax-only -x c \"$1\"",
    );
    let runs: [(&str, &[&str]); 3] = [
        ("plain.c", &[]),
        ("renamed.c", &["--rename"]),
        ("compact.c", &["--rename", "--compact"]),
    ];
    for (out, extra) in runs {
        let mut args = vec!["-q", "-j1", "-o", out, "--test", "t.sh", "in.c"];
        args.extend(extra);
        env.run(args).expect_code(0);
    }
    let (plain, renamed) = (env.read("plain.c"), env.read("renamed.c"));
    // --compact: the same program in the fewest bytes, still interesting
    let compact = env.read("compact.c");
    assert!(env.passes(&script, "compact.c", &compact));
    assert!(
        compact.len() < renamed.len(),
        "{}",
        String::from_utf8_lossy(&compact)
    );
    assert_eq!(
        squash(&compact).replace(' ', ""),
        squash(&renamed).replace(' ', "")
    );
    assert!(!String::from_utf8_lossy(&compact).contains(", "));
    env.run(["-q", "--compact", "--no-format", "--test", "t.sh", "in.c"])
        .expect_code(2);
    assert!(env.passes(&script, "renamed.c", &renamed));
    let text = String::from_utf8_lossy(&renamed);
    assert!(text.contains("crash()"), "{text}");
    for long in ["point", "xcoord", "where"] {
        assert!(!text.contains(long), "{long} kept: {text}");
    }
    let tokens = |b: &[u8]| squash(b).split(' ').count();
    assert!(renamed.len() < plain.len(), "{text}");
    assert_eq!(tokens(&renamed), tokens(&plain), "{text}");
}

/// Python gets the rewrite passes too: on its fixture the hoist takes the last call out of
/// `if __name__ ...:` (one dedented edit) and the result ends re-indented, 4 spaces a block.
#[test]
fn the_python_fixture_is_hoisted_and_reindented() {
    let case = fixtures().join("python-zerodiv");
    let (out, stats) = reduce_case(&case, "perses");
    assert!(fixture_passes(&case, &out));
    let text = String::from_utf8(out).unwrap();
    let pass = |name: &str| {
        let passes = stats["passes"].as_array().expect("a per-pass table");
        let p = passes.iter().find(|p| p["name"] == name);
        p.map_or(0, |p| p["successes"].as_u64().unwrap())
    };
    assert!(pass("hoist-block") >= 1, "{stats}");
    assert!(!text.contains("if __name__"), "{text}");
    let indents: Vec<usize> = text
        .lines()
        .map(|l| l.len() - l.trim_start().len())
        .collect();
    assert!(indents.iter().all(|i| i % 4 == 0), "{text}");
}

/// A generated 18 KB module of classes used at module level, each with headers over several
/// lines (`def handle(self, a,\n               b):`, `if (a and\n                b):`), and
/// a `NameError` at top level 60% of the way down (as `_pydecimal.py` with such a line). The
/// renderer took every such header's block for gone (its `:` ends a continuation line indented
/// as deep as the body) and wrote `pass` after it, so every candidate of the tree path was an
/// IndentationError: 400 test runs left the module whole. Now it goes to the one name in ~50.
#[test]
fn a_python_module_with_headers_over_several_lines_reduces_to_its_error() {
    let env = crate::util::TestEnv::new();
    let mut src = String::new();
    for i in 0..100 {
        if i == 60 {
            src.push_str("undefined_name_xyz.attr\n\n");
        }
        src.push_str(&format!(
            "class C{i}:\n    \"\"\"Doc {i}.\"\"\"\n\n    def handle(self, a,\n               b):\n        if (a and\n                b):\n            return {i}\n        return a + b\n\n\nv{i} = C{i}().handle({i}, 1)\n\n"
        ));
    }
    env.write("module.py", &src);
    let script = env.script(
        "t.sh",
        "py=/usr/bin/python3; [ -x \"$py\" ] || py=python3\n\"$py\" \"$1\" 2>&1 >/dev/null | tail -n 1 | grep -q \"^NameError: name 'undefined_name_xyz'\"",
    );
    assert!(env.passes(&script, "module.py", src.as_bytes()));
    env.run([
        "-q",
        "--max-attempts",
        "400",
        "--stats-json",
        "stats.json",
        "-o",
        "out.py",
        "--test",
        "t.sh",
        "module.py",
    ])
    .expect_code(0);
    let out = env.read("out.py");
    let stats: serde_json::Value = serde_json::from_slice(&env.read("stats.json")).unwrap();
    assert!(env.passes(&script, "module.py", &out));
    crate::util::assert_bytes("result", b"undefined_name_xyz\n", &out);
    assert_eq!(stats["completion"], "fixpoint", "{stats}");
    assert!(stats["tests"].as_u64().unwrap() < 150, "{stats}");
}

/// A result reduced again comes back unchanged: the deletion rounds end at a fixpoint of every
/// replacement (those skipped for failing on earlier programs are tried on the final one), and
/// no layout makes a file larger than its input (C++ with parse errors came back 4 bytes larger).
#[test]
fn a_result_reduced_again_comes_back_unchanged() {
    for name in [
        "cpp-narrowing",
        "lua-metatable",
        "nested-if",
        "python-zerodiv",
    ] {
        let case = fixtures().join(name);
        let (first, _) = crate::util::reduce_fixture(&case, &["-j2"]);
        let again = tempfile::tempdir().unwrap();
        std::fs::write(again.path().join(crate::util::fixture_input(&case)), &first).unwrap();
        let test = again.path().join("interesting.sh");
        std::fs::copy(case.join("interesting.sh"), test).unwrap();
        let (second, _) = crate::util::reduce_fixture(again.path(), &["-j2"]);
        crate::util::assert_bytes(name, &first, &second);
    }
}
