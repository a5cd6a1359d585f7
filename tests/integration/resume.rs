//! The persistent verdict cache and resume: a second identical run reuses the first one's "not
//! interesting" verdicts; running the same command again after a kill continues from the
//! interrupted run's result; the cache can be turned off, cleared, survives a torn record, and
//! a cache directory that cannot be used costs one warning.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::util::{TestEnv, assert_bytes, lines_with};

/// 60 lines, one needle: ddmin needs a few hundred tests, each a little slow.
fn setup(env: &TestEnv) -> (String, PathBuf) {
    let original = lines_with(60, 37, "needle");
    env.write("in.txt", &original);
    fs::create_dir_all(env.join("tmp")).unwrap();
    let script = env.script("t.sh", "sleep 0.02; grep -q needle \"$1\"");
    (original, script)
}

fn args<'a>(script: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["-q", "-j1", "--algo", "ddmin", "--temp-dir", "tmp"];
    v.extend_from_slice(extra);
    v.extend(["--test", script.to_str().unwrap(), "in.txt"]);
    v
}

fn stats(env: &TestEnv, name: &str) -> serde_json::Value {
    serde_json::from_slice(&env.read(name)).unwrap()
}

fn tests_of(v: &serde_json::Value) -> u64 {
    v["tests"].as_u64().unwrap()
}

fn verdict_file(env: &TestEnv) -> PathBuf {
    let dir = env.join(".cache/reduce/verdicts");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.remove(0)
}

#[test]
fn a_second_identical_run_reuses_the_verdicts() {
    let env = TestEnv::new();
    let (_, script) = setup(&env);
    let first = ["-o", "out1.txt", "--stats-json", "s1.json"];
    env.run(args(&script, &first)).expect_code(0);
    let second = ["-o", "out2.txt", "--stats-json", "s2.json"];
    env.run(args(&script, &second)).expect_code(0);
    assert_bytes("the result", b"needle\n", &env.read("out1.txt"));
    assert_bytes("the second result", b"needle\n", &env.read("out2.txt"));
    let (s1, s2) = (stats(&env, "s1.json"), stats(&env, "s2.json"));
    assert_eq!(s1["persistent_hits"].as_u64(), Some(0), "{s1}");
    assert!(s2["persistent_hits"].as_u64().unwrap() > 0, "{s2}");
    // every "not interesting" verdict of the first run is a hit: only the interesting ones
    // (and the checks of the original and of the result) run again
    let hits = s2["persistent_hits"].as_u64().unwrap();
    assert!(tests_of(&s2) < tests_of(&s1), "{s1}\n{s2}");
    assert_eq!(tests_of(&s1) - hits, tests_of(&s2), "{s1}\n{s2}");
    assert_eq!(s1["interesting"], s2["interesting"]);
}

#[test]
fn no_persistent_cache_reads_and_writes_nothing() {
    let env = TestEnv::new();
    let (_, script) = setup(&env);
    let flags =
        |n: &'static str, s: &'static str| ["--no-persistent-cache", "-o", n, "--stats-json", s];
    env.run(args(&script, &flags("o1", "s1.json")))
        .expect_code(0);
    assert!(!env.exists(".cache/reduce"), "a cache was written");
    env.run(args(&script, &["-o", "o2", "--stats-json", "s2.json"]))
        .expect_code(0);
    env.run(args(&script, &flags("o3", "s3.json")))
        .expect_code(0);
    let (s1, s3) = (stats(&env, "s1.json"), stats(&env, "s3.json"));
    assert_eq!(tests_of(&s1), tests_of(&s3), "the cache was read");
    assert_eq!(s3["persistent_hits"].as_u64(), Some(0));
    assert_bytes("o3", b"needle\n", &env.read("o3"));
}

#[test]
fn clear_cache_removes_it() {
    let env = TestEnv::new();
    let (_, script) = setup(&env);
    env.run(args(&script, &["-o", "out.txt"])).expect_code(0);
    assert!(env.exists(".cache/reduce/verdicts"));
    let run = env.run(["--clear-cache"]);
    run.expect_code(0).expect_stderr_contains(&["removed"]);
    assert!(!env.exists(".cache/reduce"));
    // and the next run starts from nothing
    env.run(args(&script, &["-o", "out.txt", "--stats-json", "s.json"]))
        .expect_code(0);
    assert_eq!(stats(&env, "s.json")["persistent_hits"].as_u64(), Some(0));
}

#[test]
fn a_torn_last_record_is_ignored() {
    let env = TestEnv::new();
    let (_, script) = setup(&env);
    env.run(args(&script, &["-o", "o1", "--stats-json", "s1.json"]))
        .expect_code(0);
    let file = verdict_file(&env);
    let whole = fs::metadata(&file).unwrap().len();
    assert!(whole > 0 && whole.is_multiple_of(20), "{whole}");
    // a power cut in the middle of a record: 7 bytes of the next one
    fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap()
        .write_all(&[0xAB; 7])
        .unwrap();
    env.run(args(&script, &["-o", "o2", "--stats-json", "s2.json"]))
        .expect_code(0);
    assert_bytes("o2", b"needle\n", &env.read("o2"));
    let s2 = stats(&env, "s2.json");
    assert!(s2["persistent_hits"].as_u64().unwrap() > 0, "{s2}");
    assert_eq!(fs::metadata(&file).unwrap().len() % 20, 0, "still aligned");
}

#[test]
fn an_unusable_cache_directory_warns_once_and_the_run_goes_on() {
    let env = TestEnv::new();
    let (_, script) = setup(&env);
    // a file where the cache directory should be: not writable even for root
    env.write("not-a-dir", "x");
    let loud: Vec<&str> = args(&script, &["-o", "out2.txt"])
        .into_iter()
        .filter(|a| *a != "-q")
        .collect();
    let mut cmd = env.command(loud);
    cmd.env("XDG_CACHE_HOME", env.join("not-a-dir"));
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("cannot use the persistent cache").count(),
        1,
        "{stderr}"
    );
    assert_bytes("out2.txt", b"needle\n", &env.read("out2.txt"));
}

/// Starts an in-place run and kills it (SIGKILL) once it has written a first improvement.
fn kill_after_first_improvement(env: &TestEnv, script: &Path, original: &str) {
    let mut child = env.command(args(script, &[])).spawn().unwrap();
    let give_up = Instant::now() + Duration::from_secs(60);
    while env.read("in.txt") == original.as_bytes() {
        assert!(Instant::now() < give_up, "no improvement was ever written");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn running_the_same_command_after_a_kill_resumes() {
    let env = TestEnv::new();
    let (original, script) = setup(&env);
    // the uninterrupted run, for comparison (its cache goes elsewhere)
    env.write("ref/in.txt", &original);
    let mut reference = env.command(["-q", "-j1", "--algo", "ddmin", "--temp-dir", "tmp"]);
    reference
        .args(["--test", script.to_str().unwrap(), "-o", "ref/out.txt"])
        .arg("ref/in.txt")
        .env("XDG_CACHE_HOME", env.join("ref/.cache"));
    assert!(reference.status().unwrap().success());

    kill_after_first_improvement(&env, &script, &original);
    let partial = env.read("in.txt");
    assert!(partial.len() < original.len() && partial != b"needle\n");
    assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));

    let mut loud = args(&script, &["--stats-json", "s.json"]);
    loud.retain(|a| *a != "-q");
    let run = env.run(loud);
    run.expect_code(0).expect_stderr_contains(&["resuming"]);
    let result = env.read("in.txt");
    assert!(env.passes(&script, "in.txt", &result));
    assert_bytes("the resumed result", &env.read("ref/out.txt"), &result);
    assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));
    let s = stats(&env, "s.json");
    assert!(s["persistent_hits"].as_u64().unwrap() > 0, "{s}");
}

#[test]
fn an_input_changed_by_hand_after_a_kill_is_still_refused() {
    let env = TestEnv::new();
    let (original, script) = setup(&env);
    kill_after_first_improvement(&env, &script, &original);
    let edited = format!("{}# edited\n", String::from_utf8_lossy(&env.read("in.txt")));
    env.write("in.txt", &edited);
    env.run(args(&script, &[]))
        .expect_code(2)
        .expect_stderr_contains(&["in.txt.orig", "--force"]);
    assert_bytes("in.txt", edited.as_bytes(), &env.read("in.txt"));
    assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));
}

#[test]
fn a_timeout_is_never_kept_as_a_verdict() {
    let env = TestEnv::new();
    setup(&env);
    // interesting: the needle and at least 3 lines; with the needle and fewer lines it hangs
    let script = env.script(
        "slow.sh",
        "grep -q needle \"$1\" || exit 1\n[ \"$(wc -l < \"$1\")\" -ge 3 ] || sleep 5",
    );
    let run = |out: &'static str, s: &'static str| {
        env.run(args(
            &script,
            &["--timeout", "0.5", "-o", out, "--stats-json", s],
        ))
        .expect_code(0);
        stats(&env, s)
    };
    let (s1, s2) = (run("o1", "s1.json"), run("o2", "s2.json"));
    let timeouts = s1["timeouts"].as_u64().unwrap();
    assert!(timeouts > 0, "{s1}");
    assert_eq!(s2["timeouts"].as_u64(), Some(timeouts), "{s2}");
    assert!(s2["persistent_hits"].as_u64().unwrap() > 0, "{s2}");
    assert_eq!(env.read("o1"), env.read("o2"));
}
