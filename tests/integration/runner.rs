//! How the test runs, and what stops a run before or while it goes: timeouts through
//! `--launcher`, file names that are not UTF-8, stdin that never ends, a wide `-j`, a missing
//! `/dev/null`, and the messages of the usual slips.

use crate::util::TestEnv;

/// A test that crashes (SIGSEGV) when the candidate holds `crash` and otherwise hangs, ignoring
/// SIGTERM: only the SIGKILL after the timeout's grace ends it.
const CRASH_OR_HANG: &str =
    "if grep -q crash \"$1\"; then kill -SEGV $$; fi\ntrap '' TERM\nsleep 30";

#[test]
fn through_a_launcher_a_test_that_hangs_past_sigterm_is_a_timeout_not_a_sigkill() {
    let env = TestEnv::new();
    env.write("in.txt", "crash\nfiller\n");
    let test = env.script("t.sh", CRASH_OR_HANG);
    let run = env.run([
        "-q",
        "-j1",
        "--algo",
        "ddmin",
        "--timeout",
        "1",
        "--signal",
        "--launcher",
        "env",
        "--test",
        test.to_str().unwrap(),
        "-o",
        "out.txt",
        "--stats-json",
        "stats.json",
        "in.txt",
    ]);
    run.expect_code(0);
    let out = env.read("out.txt");
    assert!(
        String::from_utf8_lossy(&out).contains("crash"),
        "the result must still crash, not hang: {:?}",
        String::from_utf8_lossy(&out)
    );
    let record: serde_json::Value = serde_json::from_slice(&env.read("stats.json")).unwrap();
    assert!(
        record["timeouts"].as_u64().unwrap() > 0,
        "hanging candidates count as timeouts: {record}"
    );
}

#[test]
fn through_a_launcher_a_test_that_exits_124_itself_is_not_a_timeout() {
    let env = TestEnv::new();
    env.write("in.txt", "a\nneedle\nb\n");
    let run = env.run([
        "-q",
        "-j1",
        "--launcher",
        "env",
        "--exit-code",
        "124",
        "-c",
        "grep -q needle {} && exit 124",
        "-o",
        "out.txt",
        "in.txt",
    ]);
    run.expect_code(0);
    assert_eq!(env.read("out.txt"), b"needle\n");
}
