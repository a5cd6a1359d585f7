//! Killing `reduce` with SIGKILL at any moment leaves the input holding either the previous best
//! or the new best, never a torn file: every write is a temp file renamed over the target.

use std::time::Duration;

use crate::util::{TestEnv, lines_with};

#[test]
fn sigkill_at_any_moment_leaves_a_whole_interesting_file() {
    let env = TestEnv::new();
    // many lines and a test that is quick but not instant, so kills land mid-run
    let original = lines_with(400, 217, "needle");
    let script = env.script("t.sh", "sleep 0.01; grep -q needle \"$1\"");
    for (round, delay_ms) in [40u64, 90, 150, 230, 330, 470].into_iter().enumerate() {
        env.write("in.txt", &original);
        let _ = std::fs::remove_file(env.join("in.txt.orig"));
        let mut child = env
            .command(["-q", "-j2", "--algo", "ddmin", "--test"])
            .arg(&script)
            .arg("in.txt")
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL: no handler runs
        child.wait().unwrap();
        let now = env.read("in.txt");
        assert!(
            env.passes(&script, "in.txt", &now),
            "round {round}: the file left behind is not interesting ({} bytes)",
            now.len()
        );
        assert!(now.len() <= original.len());
        if env.exists("in.txt.orig") {
            assert_eq!(
                env.read("in.txt.orig"),
                original.as_bytes(),
                "round {round}"
            );
        }
    }
}

#[test]
fn output_to_a_device_writes_into_it_and_never_replaces_it() {
    use std::os::unix::fs::FileTypeExt;
    let env = TestEnv::new();
    env.write("in.txt", lines_with(20, 7, "needle"));
    let script = env.script("t.sh", "grep -q needle \"$1\"");
    let run = env.run([
        "-q",
        "--algo",
        "ddmin",
        "-o",
        "/dev/null",
        "--test",
        script.to_str().unwrap(),
        "in.txt",
    ]);
    run.expect_code(0);
    let kind = std::fs::metadata("/dev/null").unwrap().file_type();
    assert!(kind.is_char_device(), "/dev/null is no longer a device");
}
