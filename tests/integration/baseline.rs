//! Never behind the simple baseline (issue 38): on every fixture (a real program per language
//! with its real tool's test) the default result is no larger than line ddmin's; where the tree passes cannot get smaller (a
//! table of data in one string token, which no grammar splits), the default schedule still ends
//! no larger than `--algo ddmin` over lines; and the schedule's stall guard (a line sweep after
//! many test runs without a smaller best) decides by charged runs, so its result is the same at
//! every `-j`. At the end, the blank lines that deletions leave go too, unless the test needs
//! them.

use crate::util::{TestEnv, assert_same};

/// Rows of a table `0000 item-0 QTY COLOUR`, joined by `sep`, with `12x` as the quantity of
/// row `bad` (the record the test is after); `long`: a longer name.
fn table(rows: usize, bad: usize, sep: char, long: bool) -> String {
    let colours = ["red", "green", "blue"];
    (0..rows)
        .map(|i| {
            let qty = if i == bad {
                "12x".to_string()
            } else {
                ((i * 37 + 11) % 997).to_string()
            };
            let fields = [
                format!("{i:04}"),
                format!(
                    "item-{i}{}",
                    if long { "-of-the-spring-catalogue" } else { "" }
                ),
                qty,
                colours[i % 3].into(),
            ];
            fields.join(&sep.to_string())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A bash report whose table is a here-document (one token of the grammar): the sum fails on
/// the record `12x`. First `steps` `echo` commands, ten a line, each of which the test needs
/// (with steps, a shorter table of longer rows: fewer lines).
fn bash_report(steps: usize) -> String {
    let steps: String = (0..steps)
        .map(|i| format!("echo \"step {i}\"{}", if i % 10 == 9 { "\n" } else { "; " }))
        .collect();
    format!(
        "#!/usr/bin/env bash\n# An inventory report: the table below, summed.\necho \"report\"\n\
         {steps}total=0\nwhile read -r id name qty colour; do\n  total=$((total + qty))\n\
         done <<'TABLE'\n{}\nTABLE\necho \"total $total\"\n",
        if steps.is_empty() {
            table(260, 171, ' ', false)
        } else {
            table(110, 71, ' ', true)
        }
    )
}

/// The test of [`bash_report`]: the report starts, every step runs, and the sum fails on `12x`.
fn bash_test(steps: usize) -> String {
    format!(
        "f=\"${{1:-input.sh}}\"\nout=$(bash \"$f\" 2>&1)\n\
         printf '%s\\n' \"$out\" | grep -q '^report$' || exit 1\n\
         [ \"$(printf '%s\\n' \"$out\" | grep -c '^step ')\" -eq {steps} ] || exit 1\n\
         printf '%s\\n' \"$out\" | grep -q '12x: value too great for base'"
    )
}

/// A Python module whose table is a triple-quoted string (one token): the sum fails on `12x`.
fn python_report() -> String {
    format!(
        "TABLE = \"\"\"\n{}\n\"\"\"\ntotal = 0\nfor line in TABLE.split():\n    \
         total += int(line.split(\",\")[2])\nprint(total)\n",
        table(200, 131, ',', false)
    )
}

const PYTHON_TEST: &str = "f=\"${1:-input.py}\"\n\
    python3 -I \"$f\" 2>&1 | tail -n 1 | \
    grep -qx \"ValueError: invalid literal for int() with base 10: '12x'\"";

/// `reduce -q ARGS --test t.sh -o out --stats-json stats.json NAME`: the output and the stats.
fn reduce(env: &TestEnv, name: &str, args: &[&str]) -> (Vec<u8>, serde_json::Value) {
    let mut all = vec!["-q", "--no-persistent-cache"];
    all.extend_from_slice(args);
    all.extend_from_slice(&[
        "--test",
        "t.sh",
        "-o",
        "out",
        "--stats-json",
        "stats.json",
        name,
    ]);
    env.run(&all).expect_code(0);
    let stats = serde_json::from_slice(&env.read("stats.json")).unwrap();
    (env.read("out"), stats)
}

/// Bytes removed by the pass `name` (0 if it did not run).
fn removed_by(stats: &serde_json::Value, name: &str) -> i64 {
    stats["passes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["name"] == name)
        .map(|p| p["bytes_removed"].as_i64().unwrap())
        .sum()
}

/// The default schedule and `--algo ddmin` on `input`: the default result is no larger, and
/// the test accepts it.
#[track_caller]
fn never_behind_ddmin(name: &str, input: &str, test: &str) {
    assert!(input.len() >= 4096, "{name}: {} bytes", input.len());
    let env = TestEnv::new();
    env.write(name, input);
    let script = env.script("t.sh", test);
    assert!(env.passes(&script, name, input.as_bytes()), "{name}: input");
    let (ddmin, _) = reduce(&env, name, &["-j2", "--algo", "ddmin"]);
    let (default, stats) = reduce(&env, name, &["-j2"]);
    assert!(
        env.passes(&script, name, &default),
        "{name}: the default result fails its test"
    );
    assert!(
        default.len() <= ddmin.len(),
        "{name}: default {} bytes, ddmin {} bytes\n--- default\n{}\n--- ddmin\n{}\n--- stats\n{stats}",
        default.len(),
        ddmin.len(),
        String::from_utf8_lossy(&default),
        String::from_utf8_lossy(&ddmin)
    );
    // the tree passes could not split the table: lines did
    let lines = removed_by(&stats, "line-sweep") + removed_by(&stats, "last-line-sweep");
    assert!(lines > 3000, "{name}: {stats}");
}

#[test]
fn a_bash_here_document_ends_no_larger_than_line_ddmin() {
    never_behind_ddmin("input.sh", &bash_report(0), &bash_test(0));
}

#[test]
fn a_python_string_table_ends_no_larger_than_line_ddmin() {
    never_behind_ddmin("input.py", &python_report(), PYTHON_TEST);
}

/// 150 commands the test needs (the tree's deletions fail on each), on 15 lines, before a
/// table in a here-document: the tree passes stall, the guard's line sweep takes the table's lines, and the
/// run (bounded by a budget, which also counts as the serial run does) is byte-identical at
/// `-j1` and `-j3`.
#[test]
fn the_stall_guard_fires_and_gives_the_same_result_at_every_width() {
    let env = TestEnv::new();
    let input = bash_report(150);
    env.write("input.sh", &input);
    env.script("t.sh", &bash_test(150));
    let mut results = Vec::new();
    for j in ["-j1", "-j3"] {
        let (out, stats) = reduce(&env, "input.sh", &[j, "--max-attempts", "700"]);
        assert!(
            removed_by(&stats, "line-sweep") > 4000,
            "{j}: the guard's sweep did not take the table\n{stats}"
        );
        assert!(out.len() * 2 < input.len(), "{j}: {} bytes", out.len());
        results.push(out);
    }
    assert_same("-j1 and -j3 results", &results[0], &results[1]);
}

/// Every statement is needed and nothing else is smaller but the blank lines between them:
/// the end's blank-lines pass takes them (all at once).
#[test]
fn the_blank_lines_pass_takes_the_blank_lines_the_test_does_not_need() {
    let env = TestEnv::new();
    env.write("input.sh", "echo a\n\n\necho b\n  \t\n\necho c\n\n");
    env.script(
        "t.sh",
        "[ \"$(bash \"${1:-input.sh}\")\" = \"$(printf 'a\\nb\\nc')\" ]",
    );
    let (out, stats) = reduce(&env, "input.sh", &["-j2"]);
    assert_eq!(String::from_utf8_lossy(&out), "echo a\necho b\necho c\n");
    assert_eq!(removed_by(&stats, "blank-lines"), 8, "{stats}");
}

/// A test that reads a line number rejects every candidate without the blank lines before it:
/// the pass keeps those and takes the one after it.
#[test]
fn the_blank_lines_pass_keeps_the_blank_lines_a_test_needs() {
    let env = TestEnv::new();
    env.write("input.sh", "echo a\n\n\necho $LINENO\n\necho c\n");
    env.script(
        "t.sh",
        "[ \"$(bash \"${1:-input.sh}\")\" = \"$(printf 'a\\n4\\nc')\" ]",
    );
    let (out, stats) = reduce(&env, "input.sh", &["-j2"]);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "echo a\n\n\necho $LINENO\necho c\n"
    );
    assert_eq!(removed_by(&stats, "blank-lines"), 1, "{stats}");
}

/// The property over every fixture (one real program per language, with a test that runs the
/// real tool where the fixture has one: gcc, g++, rustc, Python, Node, bash): the default
/// schedule's result is never larger than `--algo ddmin`'s run to its end, and both pass their
/// test. The default's result is the fixture's `expected.perses.*`: the golden tests check that
/// the default run gives it (at `-j1`, and the property tests that every `-j` gives the same), so
/// only ddmin runs here.
#[test]
fn the_default_is_never_larger_than_line_ddmin_on_any_fixture() {
    let cases = crate::golden::cases();
    assert!(cases.len() >= 13, "{} fixtures", cases.len());
    let mut table = vec![format!("{:<16} {:>8} {:>8}", "fixture", "default", "ddmin")];
    let mut behind = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let input = crate::util::fixture_input(case);
        let golden = case.join(input.replacen("input.", "expected.perses.", 1));
        let default =
            std::fs::read(&golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
        let (ddmin, _) = crate::util::reduce_fixture(case, &["-j2", "--algo", "ddmin"]);
        for (what, out) in [("default", &default), ("ddmin", &ddmin)] {
            assert!(
                crate::util::fixture_passes(case, out),
                "{name}: the {what} result fails its test"
            );
        }
        table.push(format!(
            "{name:<16} {:>8} {:>8}",
            default.len(),
            ddmin.len()
        ));
        if default.len() > ddmin.len() {
            behind.push(name);
        }
    }
    assert!(
        behind.is_empty(),
        "behind ddmin on {behind:?} (bytes):\n{}",
        table.join("\n")
    );
}
