//! Rewrites through the real binary with a real compiler as the test: an enabling rewrite
//! (param-to-global, which grows the text a little) stays only when what follows pays for it.

use crate::util::TestEnv;

/// Runs `reduce -j1` with `test` on `input` into `output`: the result's text and the run's stats.
fn reduce_with_stats(
    env: &TestEnv,
    test: &std::path::Path,
    input: &str,
    output: &str,
) -> (String, serde_json::Value) {
    let test = test.to_str().unwrap();
    let args = [
        "-j1",
        "--stats-json",
        "st.json",
        "--test",
        test,
        input,
        "-o",
        output,
    ];
    env.run(args).expect_code(0);
    let out = String::from_utf8(env.read(output)).unwrap();
    (out, serde_json::from_slice(&env.read("st.json")).unwrap())
}

/// The run's stats JSON entry of the pass named `name`.
fn pass<'a>(stats: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    stats["passes"]
        .as_array()
        .expect("passes in the stats")
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no pass {name} in {stats}"))
}

#[test]
fn an_enabling_rewrite_that_does_not_pay_is_undone() {
    let env = TestEnv::new();
    env.write(
        "in.c",
        "int f(int *p) { return *p; }\nint main(void) { return f(0); }\n",
    );
    let test = env.script(
        "t.sh",
        "grep -q 'return \\*p' \"$1\" && gcc -Wall -Werror -fsyntax-only \"$1\"",
    );
    let (out, stats) = reduce_with_stats(&env, &test, "in.c", "out.c");
    // the global form (`int *p;` and `int f()`) passed the test but is 2 bytes larger
    assert_eq!(out, "int f(int *p) { return *p; }\n");
    assert!(
        pass(&stats, "param-to-global")["successes"].as_u64() >= Some(1),
        "{stats}"
    );
}

#[test]
fn a_used_parameter_becomes_a_global() {
    // the body needs `p` and main must call f three times: only param-to-global drops the
    // parameter and the three arguments
    let env = TestEnv::new();
    env.write(
        "in.c",
        "int f(int *p) { return *p; }\nint main(void) { return f(0) + f(0) + f(0); }\n",
    );
    let test = env.script(
        "t.sh",
        "grep -q 'return \\*p' \"$1\" && grep -q 'main.*f(.*f(.*f(' \"$1\" && gcc -Wall -Werror -fsyntax-only \"$1\"",
    );
    let test = test.to_str().unwrap();
    env.run(["-j1", "--test", test, "in.c", "-o", "out.c"])
        .expect_code(0);
    let out = String::from_utf8(env.read("out.c")).unwrap();
    assert!(out.starts_with("int *p;\nint f() {"), "{out}");
    assert!(out.contains("f() + f() + f()"), "{out}");
}

/// A test that wants rustc's last line to be exactly `aborting due to 1 previous error` (no
/// warning) rejects every candidate that leaves an import or a parameter unused. The run tries
/// the file with `#![allow(warnings)]` first: the `Display` impl (whose deletion leaves `fmt`
/// unused) can then go, then the import, and at the end the prelude, which nothing needs.
#[test]
fn a_strict_rustc_test_lets_a_helper_go_once_warnings_are_off() {
    let env = TestEnv::new();
    env.write(
        "in.rs",
        "use std::fmt;\n\npub fn report(names: Vec<String>) -> usize {\n    let kept = names;\n    \
         names.len() + kept.len()\n}\n\npub struct Money(u64);\n\nimpl fmt::Display for Money {\n    \
         fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        \
         write!(f, \"{}.{:02}\", self.0 / 100, self.0 % 100)\n    }\n}\n",
    );
    let test = env.script(
        "t.sh",
        "out=$(rustc --edition 2021 --crate-type lib --emit=metadata -o \"$(dirname \"$1\")/o.rmeta\" \
         \"$1\" 2>&1) && exit 1\nprintf '%s\\n' \"$out\" | grep -qx 'error: aborting due to 1 previous error' \
         || exit 1\nprintf '%s\\n' \"$out\" | grep -q '^error\\[E0382\\]'",
    );
    let (out, stats) = reduce_with_stats(&env, &test, "in.rs", "out.rs");
    assert!(
        !out.contains("fmt") && !out.contains("allow") && out.contains("kept"),
        "{out}"
    );
    assert_eq!(pass(&stats, "quiet-warnings")["successes"], 1, "{stats}");
}

/// The prelude makes the text larger: a run stopped right after it ends with the input as it
/// was, never with the larger text.
#[test]
fn a_run_stopped_after_the_warnings_prelude_ends_no_larger_than_its_input() {
    let env = TestEnv::new();
    let src = "pub fn report(names: Vec<String>) -> usize {\n    let kept = names;\n    names.len() + kept.len()\n}\n";
    env.write("in.rs", src);
    let test = env.script(
        "t.sh",
        "rustc --edition 2021 --crate-type lib --emit=metadata -o \"$(dirname \"$1\")/o.rmeta\" \"$1\" 2>&1 \
         | grep -q '^error\\[E0382\\]'",
    );
    let test = test.to_str().unwrap();
    env.run([
        "-j1",
        "--max-attempts",
        "2",
        "--test",
        test,
        "in.rs",
        "-o",
        "out.rs",
    ])
    .expect_code(0);
    assert_eq!(String::from_utf8(env.read("out.rs")).unwrap(), src);
}

/// On a text still above the closure's 256 KB after the bulk passes by name, keep-closure runs
/// once more after them; where they changed nothing it costs no test (the cache answers what
/// the first closure asked).
#[test]
fn a_large_text_gets_the_closure_again_after_the_bulk_passes() {
    let env = TestEnv::new();
    let mut src = String::new();
    for k in 0..2000 {
        let terms: Vec<String> = (0..12).map(|j| format!("a * {}", k + j)).collect();
        src += &format!("int f{k}(int a) {{ return {}; }}\n", terms.join(" + "));
    }
    assert!(src.len() > 256 * 1024);
    env.write("in.c", &src);
    // every body is needed: nothing goes, and the text stays large
    let test = env.script("t.sh", "[ \"$(grep -c 'return a' \"$1\")\" -ge 2000 ]");
    // (the deletion rounds after it would try every function: the run stops before)
    let test = test.to_str().unwrap();
    env.run([
        "-j1",
        "--max-attempts",
        "500",
        "--stats-json",
        "st.json",
        "--test",
        test,
        "in.c",
        "-o",
        "out.c",
    ])
    .expect_code(0);
    let out = String::from_utf8(env.read("out.c")).unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&env.read("st.json")).unwrap();
    assert_eq!(out.matches("return a").count(), 2000);
    let names: Vec<&str> = stats["passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let at = |name: &str| names.iter().position(|n| *n == name);
    let again = at("keep-closure-again").unwrap_or_else(|| panic!("{names:?}"));
    assert!(
        at("definitions-to-declarations").is_some_and(|d| d < again),
        "{names:?}"
    );
    assert_eq!(pass(&stats, "keep-closure-again")["tests"], 0, "{stats}");
    assert!(pass(&stats, "keep-closure-bodies")["tests"].as_u64() > Some(0));
}
