//! The default path reduces a file whatever its line structure: one huge line without spaces
//! (minified code, base64) is cut by finer units when lines and words do not split it.

use crate::util::{TestEnv, assert_bytes};

/// `n` bytes of base64-like text without a space or a line break, with `needle` in the middle.
fn one_long_line(n: usize, needle: &str) -> Vec<u8> {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bytes: Vec<u8> = (0..n).map(|i| alphabet[(i * 7 + i / 13) % 64]).collect();
    let at = n / 2;
    bytes.splice(at..at + needle.len(), needle.bytes());
    bytes.push(b'\n');
    bytes
}

#[test]
fn one_long_line_of_text_is_reduced_by_default() {
    let env = TestEnv::new();
    env.write("blob.txt", one_long_line(64 * 1024, "NEEDLE"));
    env.script("t.sh", "grep -q NEEDLE \"$1\"");
    env.run(["-q", "-t", "./t.sh", "-o", "out.txt", "blob.txt"])
        .expect_code(0);
    assert_bytes("out.txt", b"NEEDLE", &env.read("out.txt"));
}

#[test]
fn one_long_line_of_binary_is_reduced_by_default() {
    let env = TestEnv::new();
    let mut bytes = one_long_line(48 * 1024, "NEEDLE");
    bytes[10] = 0; // binary: the ddmin path
    env.write("blob.bin", &bytes);
    env.script("t.sh", "grep -q NEEDLE \"$1\"");
    env.run(["-q", "-t", "./t.sh", "-o", "out.bin", "blob.bin"])
        .expect_code(0);
    assert_bytes("out.bin", b"NEEDLE", &env.read("out.bin"));
}

#[test]
fn a_test_that_ignores_the_candidate_gets_a_warning_with_a_check() {
    let env = TestEnv::new();
    env.write("in.txt", "one\ntwo\nthree\n");
    env.write("fixed.txt", "needle\n");
    // a forgotten $1: the test greps a fixed file, so everything is interesting
    env.script(
        "t.sh",
        &format!("grep -q needle '{}'", env.join("fixed.txt").display()),
    );
    let run = env.run(["-t", "./t.sh", "-o", "out.txt", "in.txt"]);
    run.expect_code(0)
        .expect_stderr_contains(&["warning: the result is empty", "may not read the candidate"]);
    assert_eq!(env.read("out.txt"), b"");
    let line = run
        .stderr
        .lines()
        .find(|l| l.contains("result is empty"))
        .unwrap();
    let check = line.split("check: ").nth(1).unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(check)
        .current_dir(env.path())
        .env("TMPDIR", env.path())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("exit status: 0"),
        "{out:?}"
    );
    // -c 'exit 0' too
    env.run(["-c", "exit 0", "-o", "out2.txt", "in.txt"])
        .expect_code(0)
        .expect_stderr_contains(&["warning: the result is empty"]);
    // a test that reads its candidate and ends non-empty: no warning
    env.script("good.sh", "grep -q two \"$1\"");
    let run = env.run(["-t", "./good.sh", "-o", "out3.txt", "in.txt"]);
    run.expect_code(0);
    assert!(!run.stderr.contains("result is empty"), "{}", run.stderr);
}
