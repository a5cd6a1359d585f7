//! What `reduce` keeps outside the user's files: the run directories under the temp directory
//! and the persistent cache. Nothing there may delete, clobber or trust what `reduce` did not
//! make itself; and resume must agree with what is on disk.

use std::fs;

use crate::util::{TestEnv, assert_bytes, lines_with};

/// A small input, its `needle` test, and the arguments of a quick `-o out` run.
fn quick(env: &TestEnv) -> Vec<&'static str> {
    env.write("in.txt", lines_with(8, 3, "needle"));
    env.script("t.sh", "grep -q needle \"$1\"");
    vec!["-q", "--algo", "ddmin", "-t", "./t.sh", "-o", "out"]
}

#[test]
fn the_stale_run_sweep_keeps_a_users_directory_that_looks_like_a_run_directory() {
    let env = TestEnv::new();
    let mut args = quick(&env);
    // directories of the user's, with a free `lock` file like a killed run's: one with the
    // prefix, one with the prefix and a name of the random pattern, one with a pid inside
    for (dir, lock) in [
        ("reduce-notes", ""),
        ("reduce-a1B2c3", ""),
        ("reduce-Zz9Yy8", "12345\n"),
    ] {
        env.write(format!("{dir}/lock"), lock);
        env.write(format!("{dir}/important.txt"), "x\n");
    }
    args.extend(["--temp-dir", ".", "in.txt"]);
    env.run(&args).expect_code(0);
    assert_bytes("out", b"needle\n", &env.read("out"));
    for dir in ["reduce-notes", "reduce-a1B2c3", "reduce-Zz9Yy8"] {
        assert_bytes(
            &format!("{dir}/important.txt"),
            b"x\n",
            &fs::read(env.join(dir).join("important.txt")).unwrap_or_default(),
        );
    }
}

/// Runs `reduce` in place on in.txt with the test `-- ./t.sh @@` (or `-c "$PWD/t.sh {}"`),
/// then edits t.sh to `stricter` and runs the very same command again: it must not resume (the
/// first run's results are not this test's), exit with `code` and leave in.txt and in.txt.orig
/// as they were.
fn edit_the_test_between_runs(dash_c: bool, stricter: &str, code: i32) {
    let env = TestEnv::new();
    let original = lines_with(8, 3, "needle");
    env.write("in.txt", &original);
    let script = env.script("t.sh", "grep -q needle \"$1\"");
    let command = format!("{} {{}}", script.display());
    let mut args = vec!["--algo", "ddmin", "-j1", "in.txt"];
    match dash_c {
        true => args.extend(["-c", &command]),
        false => args.extend(["--", "./t.sh", "@@"]),
    }
    env.run(&args).expect_code(0);
    assert_bytes("the first result", b"needle\n", &env.read("in.txt"));
    env.script("t.sh", stricter);
    let run = env.run(&args);
    assert!(!run.stderr.contains("resuming"), "{args:?}: {}", run.stderr);
    run.expect_code(code);
    assert_bytes("in.txt", b"needle\n", &env.read("in.txt"));
    assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));
}

#[test]
fn editing_a_dash_c_or_dashdash_test_between_runs_does_not_resume() {
    // stricter, and the first run's result is not interesting any more: the original's check
    // of in.txt says so (3); stricter, and the result still passes: the backup's refusal (2)
    let rejects = "grep -q needle \"$1\" && grep -qx 'filler line 1' \"$1\"";
    let accepts = "grep -q needle \"$1\" && ! grep -q forbidden \"$1\"";
    for (stricter, code) in [(rejects, 3), (accepts, 2)] {
        edit_the_test_between_runs(false, stricter, code);
        edit_the_test_between_runs(true, stricter, code);
    }
}
