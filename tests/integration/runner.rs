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

/// `in<0xff>.txt`: a file name that is not UTF-8.
fn not_utf8_name() -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    std::ffi::OsString::from_vec(b"in\xff.txt".to_vec())
}

#[test]
fn a_shell_command_gets_a_file_name_that_is_not_utf8_byte_for_byte() {
    let env = TestEnv::new();
    let name = not_utf8_name();
    env.write(&name, "a\nneedle\nb\n");
    let mut args: Vec<std::ffi::OsString> =
        ["-q", "-j1", "-c", "grep -q needle {}", "-o", "out.txt"]
            .iter()
            .map(Into::into)
            .collect();
    args.push(name.clone());
    let run = env.run(&args);
    run.expect_code(0);
    assert_eq!(env.read("out.txt"), b"needle\n");
    assert_eq!(env.read(&name), b"a\nneedle\nb\n", "the input is untouched");
}

#[test]
fn the_check_it_by_hand_recipe_names_a_file_that_is_not_utf8() {
    let env = TestEnv::new();
    let name = not_utf8_name();
    env.write(&name, "a\n");
    // 9 if {} names no file, 1 (not interesting) if it does
    for test in [
        vec!["-c".into(), "test -f {} || exit 9; exit 1".into()],
        vec![
            "-c".into(),
            "test -f \"$1\" && test -f \"./$(basename \"$1\")\" || exit 9; exit 1".into(),
        ],
    ] {
        let mut args: Vec<std::ffi::OsString> = vec!["-j1".into()];
        args.extend(test);
        args.extend(["-o".into(), "out.txt".into(), name.clone()]);
        let run = env.run(&args);
        run.expect_code(3);
        let recipe = run
            .stderr
            .lines()
            .find(|l| l.trim_start().starts_with("d=$(mktemp -d)"))
            .unwrap_or_else(|| panic!("no recipe in:\n{}", run.stderr));
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(recipe)
            .current_dir(env.path())
            .env("TMPDIR", env.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains("exit status: 1"),
            "the recipe {recipe:?} gave {said:?} {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Waits until `pid` has handlers for SIGINT, SIGTERM and SIGHUP (its `SigCgt` mask), so a
/// signal sent now is one `reduce` handles, not one that kills it before it set up.
fn wait_for_handlers(pid: u32) {
    let wanted = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP]
        .iter()
        .fold(0u64, |m, &s| m | 1 << (s - 1));
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            .unwrap_or(0);
        if caught & wanted == wanted {
            return;
        }
        assert!(
            std::time::Instant::now() < give_up,
            "reduce never installed its handlers"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn a_signal_stops_a_run_waiting_on_a_stdin_that_never_ends() {
    use std::process::Stdio;
    use std::time::Duration;
    let env = TestEnv::new();
    for (signal, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGINT, 130),
        (libc::SIGHUP, 129),
    ] {
        let mut child = env
            .command(["-q", "-c", "true", "-"])
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // the write end stays open (and silent) until the child is gone
        let _writer = child.stdin.take().unwrap();
        wait_for_handlers(child.id());
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: kill has no memory-safety preconditions; the pid is our child's.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = crate::util::wait_at_most(&mut child, Duration::from_secs(10));
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(code), "signal {signal}: {stderr}");
        assert!(
            stderr.starts_with("reduce: error: ") && stderr.lines().count() == 1,
            "{stderr}"
        );
    }
}

#[test]
fn an_endless_stdin_stops_at_max_stdin_with_exit_4() {
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let env = TestEnv::new();
    let mut yes = Command::new("yes")
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let mut child = env
        .command(["-q", "-c", "true", "--max-stdin", "1M", "-"])
        .stdin(yes.stdout.take().unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = crate::util::wait_at_most(&mut child, Duration::from_secs(30));
    let _ = yes.kill();
    let _ = yes.wait();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(4), "{stderr}");
    assert!(
        stderr.starts_with("reduce: error: ")
            && stderr.lines().count() == 1
            && stderr.contains("--max-stdin"),
        "{stderr}"
    );
}

#[test]
fn max_stdin_takes_sizes_and_a_stream_within_it_is_reduced() {
    let env = TestEnv::new();
    let mut child = env
        .command(["-q", "-c", "grep -q needle {}", "--max-stdin", "1K", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"a\nneedle\nb\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"needle\n");
    let bad = env.run(["-c", "true", "--max-stdin", "1X", "-"]);
    bad.expect_code(2);
}

#[test]
fn jobs_past_the_bound_are_a_usage_error() {
    let env = TestEnv::new();
    env.write("in.txt", crate::util::lines_with(31, 7, "needle"));
    for jobs in ["1025", "100000"] {
        let run = env.run(["-j", jobs, "-c", "grep -q needle {}", "in.txt"]);
        run.expect_code(2)
            .expect_one_line_error()
            .expect_stderr_contains(&["--jobs", "1024"]);
        assert!(!env.exists("in.txt.orig"), "nothing ran");
    }
}

#[test]
fn sigterm_at_the_widest_jobs_is_prompt_and_leaves_no_worker_dirs_or_lock() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let env = TestEnv::new();
    let original = crate::util::lines_with(31, 7, "needle");
    env.write("in.txt", &original);
    let log = env.join("started.log");
    // the original passes at once; every candidate hangs
    let test = env.script(
        "t.sh",
        &format!(
            "[ \"$(wc -l < \"$1\")\" -eq 31 ] && exit 0\necho . >> '{}'\nsleep 60\n",
            log.display()
        ),
    );
    let mut child = env
        .command(["-q", "-j", "1024", "--timeout", "100", "--test"])
        .arg(&test)
        .arg("in.txt")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // wait until the test runs wide: hundreds of speculative candidates
    let give_up = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&log).map_or(0, |s| s.lines().count()) < 300 {
        assert!(Instant::now() < give_up, "the tests never ran wide");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let start = Instant::now();
    // SAFETY: kill has no memory-safety preconditions; the pid is our child's.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = crate::util::wait_at_most(&mut child, Duration::from_secs(60));
    let took = start.elapsed();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(143), "{stderr}");
    assert!(
        took < Duration::from_secs(8),
        "SIGTERM took {took:?} to end the run"
    );
    let left = env.entries_starting_with(&env.path(), "reduce-");
    assert!(left.is_empty(), "worker directories left: {}", left.len());
    assert!(!env.exists(".in.txt.reduce-lock"), "the lock is left");
    assert_eq!(env.read("in.txt"), original.as_bytes(), "nothing committed");
}

#[test]
fn a_missing_dev_null_is_named_and_not_blamed_on_the_test() {
    use std::process::{Command, Stdio};
    let env = TestEnv::new();
    env.write("in.txt", "a\nneedle\nb\n");
    let test = env.script("t.sh", "grep -q needle \"$1\"");
    // a private mount namespace, /dev hidden under an empty tmpfs there: the real /dev/null is
    // never touched, and nothing outside the namespace sees the mount
    let out = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c"])
        .arg("mount -t tmpfs reduce-test-dev /dev 2>&1 || exit 97; exec \"$0\" \"$@\"")
        .arg(crate::util::reduce_bin())
        .args(["-q", "-j1", "--test"])
        .arg(&test)
        .args(["-o", "out.txt", "in.txt"])
        .current_dir(env.path())
        .env("TMPDIR", env.path())
        .env("XDG_CACHE_HOME", env.join(".cache"))
        .stdin(Stdio::null())
        .output();
    let out = match out {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: cannot run unshare ({e})");
            return;
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    if code == Some(97) || (code == Some(1) && stderr.starts_with("unshare:")) {
        eprintln!("skipped: no private mount namespace with a tmpfs over /dev here: {stderr}");
        return;
    }
    assert_eq!(code, Some(6), "{stderr}");
    assert!(
        stderr.starts_with("reduce: error: ")
            && stderr.lines().count() == 1
            && stderr.contains("/dev/null")
            && !stderr.contains("test script"),
        "{stderr}"
    );
    assert!(!env.exists("out.txt"));
}

#[test]
fn launcher_mistakes_have_their_own_documented_code_and_a_message_in_words() {
    let env = TestEnv::new();
    env.write("in.txt", "a\nneedle\nb\n");
    let test = env.script("t.sh", "grep -q needle \"$1\"");
    let never = env.script("never.sh", "exit 1");
    let never = format!("{} {{name}}", never.display());
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(
        readme.contains("| 8 | the `--launcher` cannot run jobs"),
        "README's exit-code table documents 8"
    );
    let help = env.run(["--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("8 the launcher cannot run jobs"));
    for launcher in ["/no/such/launcher --", never.as_str()] {
        let run = env.run([
            "-q",
            "-j1",
            "--launcher",
            launcher,
            "--test",
            test.to_str().unwrap(),
            "-o",
            "out.txt",
            "in.txt",
        ]);
        run.expect_code(8)
            .expect_one_line_error()
            .expect_stderr_contains(&["--launcher"]);
        assert!(
            !run.stderr.contains("NotStarted") && !run.stderr.contains("Lost"),
            "{}",
            run.stderr
        );
        assert!(!env.exists("out.txt"));
    }
}

#[test]
fn creduce_argument_order_suggests_test() {
    let env = TestEnv::new();
    env.script("test.sh", "grep -q needle bug.c");
    env.write("bug.c", "int needle;\n");
    let run = env.run(["./test.sh", "bug.c"]);
    run.expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["missing the test", "reduce --test ./test.sh bug.c"]);
    assert!(!env.exists("test.sh.orig") && !env.exists("bug.c.orig"));
    // a first argument that is not executable gets no such hint
    let run = env.run(["bug.c"]);
    run.expect_code(2).expect_one_line_error();
    assert!(!run.stderr.contains("--test ./"), "{}", run.stderr);
}

#[test]
fn stdin_without_lang_that_is_not_interesting_says_the_candidate_has_no_extension() {
    use std::process::Stdio;
    let env = TestEnv::new();
    // like `gcc -c {}`: only a file named *.c is taken
    let test = "case {} in *.c) exit 0;; esac; exit 1";
    let piped = |args: &[&str]| {
        let mut child = env
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"int x;\n").unwrap();
        child.wait_with_output().unwrap()
    };
    let out = piped(&["-q", "-j1", "-c", test, "-"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("named `input`, with no extension") && stderr.contains("--lang"),
        "{stderr}"
    );
    let out = piped(&["-q", "-j1", "--lang", "c", "-c", test, "-"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_progress_line_has_no_empty_phase_segment() {
    let env = TestEnv::new();
    env.write(
        "u.c",
        "int unused_a(int x) { return x + 1; }\nint unused_b(int y) { return y * 2; }\nstatic int helper(void) { return 3; }\nint main(void) { crash(); return helper(); }\n",
    );
    let run = env.run([
        "--no-persistent-cache",
        "-j1",
        "-c",
        "grep -q 'crash()' {}",
        "-o",
        "out.c",
        "u.c",
    ]);
    run.expect_code(0);
    assert!(
        run.stderr.contains("reduce: unreferenced: 159 -> "),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains(": : "), "{}", run.stderr);
}

#[test]
fn one_test_run_is_singular_in_the_summary() {
    let env = TestEnv::new();
    env.write("in.txt", "a\nneedle\nb\n");
    let run = env.run([
        "-j1",
        "--max-attempts",
        "1",
        "-c",
        "grep -q needle {}",
        "-o",
        "out.txt",
        "in.txt",
    ]);
    run.expect_code(0)
        .expect_stderr_contains(&["reduce: 1 test run ("]);
    assert!(!run.stderr.contains("1 test runs"), "{}", run.stderr);
}

#[test]
fn exit_codes_outside_0_to_255_are_usage_errors() {
    let env = TestEnv::new();
    env.write("in.txt", "a\nneedle\nb\n");
    for bad in ["256", "-1", "1000"] {
        let run = env.run([
            "--exit-code",
            bad,
            "-c",
            "exit 1",
            "-o",
            "out.txt",
            "in.txt",
        ]);
        run.expect_code(2)
            .expect_one_line_error()
            .expect_stderr_contains(&["--exit-code", "0 to 255"]);
    }
    let run = env.run([
        "-q",
        "--exit-code",
        "255",
        "-c",
        "grep -q needle {} && exit 255",
        "-o",
        "out.txt",
        "in.txt",
    ]);
    run.expect_code(0);
    assert_eq!(env.read("out.txt"), b"needle\n");
}

#[test]
fn every_signal_has_its_name_in_messages() {
    let env = TestEnv::new();
    env.write("in.txt", "a\n");
    let run = env.run(["--signal", "31", "-c", "exit 1", "-o", "out.txt", "in.txt"]);
    run.expect_code(3)
        .expect_stderr_contains(&["not killed by SIGSYS (--signal SYS)"]);
    assert!(!run.stderr.contains("unknown signal"), "{}", run.stderr);
    // a real-time signal, named as a C program names it (glibc's SIGRTMIN is 34)
    let run = env.run([
        "--signal",
        "SEGV",
        "-o",
        "out.txt",
        "in.txt",
        "--",
        "/bin/sh",
        "-c",
        "kill -35 $$",
    ]);
    run.expect_code(3)
        .expect_stderr_contains(&["killed by SIGRTMIN+1"]);
    let run = env.run([
        "--signal",
        "SEGV",
        "-o",
        "out.txt",
        "in.txt",
        "--",
        "/bin/sh",
        "-c",
        "kill -30 $$",
    ]);
    run.expect_code(3)
        .expect_stderr_contains(&["killed by SIGPWR"]);
}

#[test]
fn stdin_among_several_inputs_is_named_as_such() {
    let env = TestEnv::new();
    env.write("other.txt", "a\n");
    let run = env.run(["-c", "true", "other.txt", "-"]);
    run.expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["- (stdin) cannot be one of several inputs"]);
}

/// A test's `$TMPDIR` is the run's own: what the test leaves there (here a `mktemp -d` it never
/// removes, as a test killed before its `trap` runs would) goes with the run, and the
/// directory the user's `$TMPDIR` names is left as it was.
#[test]
fn what_a_test_leaves_in_its_tmpdir_goes_with_the_run() {
    let env = TestEnv::new();
    env.write("in.txt", "a\nneedle\nb\nc\n");
    let test = env.script(
        "t.sh",
        "mktemp -d > /dev/null || exit 2\ngrep -q needle \"$1\"",
    );
    env.run([
        "-j2",
        "--test",
        test.to_str().unwrap(),
        "-o",
        "out.txt",
        "in.txt",
    ])
    .expect_code(0);
    assert_eq!(env.read("out.txt"), b"needle\n");
    let left = env.entries_starting_with(&env.path(), "tmp.");
    assert!(left.is_empty(), "left in $TMPDIR: {left:?}");
}
