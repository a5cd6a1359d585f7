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
