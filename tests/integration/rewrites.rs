//! Rewrites through the real binary with a real compiler as the test: an enabling rewrite
//! (param-to-global, which grows the text a little) stays only when what follows pays for it.

use crate::util::TestEnv;

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
    let test = test.to_str().unwrap();
    let args = [
        "-j1",
        "--stats-json",
        "st.json",
        "--test",
        test,
        "in.c",
        "-o",
        "out.c",
    ];
    env.run(args).expect_code(0);
    let out = String::from_utf8(env.read("out.c")).unwrap();
    // the global form (`int *p;` and `int f()`) passed the test but is 2 bytes larger
    assert_eq!(out, "int f(int *p) { return *p; }\n");
    let stats: serde_json::Value = serde_json::from_slice(&env.read("st.json")).unwrap();
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
