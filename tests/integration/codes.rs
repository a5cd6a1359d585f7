//! Exit codes and messages: every way a run can end maps to a code README documents, with a
//! plain-language message; budgets are exact; every algorithm reaches the empty file.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;

use crate::util::{Run, TestEnv, lines_with};

/// The codes of README's exit-code table.
fn documented_codes() -> Vec<i32> {
    let readme = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let table = readme
        .split("## Exit codes")
        .nth(1)
        .expect("README has an exit-code section");
    let mut codes = Vec::new();
    let rows = table.lines().skip_while(|l| !l.starts_with('|')).skip(2);
    for line in rows {
        if !line.starts_with('|') {
            break;
        }
        let cell = line.split('|').nth(1).unwrap().trim();
        for code in cell.split('/') {
            codes.push(code.trim().parse::<i32>().unwrap());
        }
    }
    assert!(codes.len() >= 8, "README's exit-code table: {codes:?}");
    codes
}

#[test]
fn every_error_path_ends_with_its_documented_code() {
    let env = TestEnv::new();
    env.write("in.txt", lines_with(6, 2, "needle"));
    env.write("empty.txt", "");
    env.write("bin.c", b"int\0main");
    env.script("t.sh", "grep -q needle \"$1\"");
    env.script("no.sh", "exit 1");
    env.write("crlf.sh", "#!/bin/sh\r\nexit 0\r\n");
    env.write("nointerp.sh", "#!/no/such/interpreter\nexit 0\n");
    env.write("plain.sh", "exit 0\n");
    for s in ["crlf.sh", "nointerp.sh", "plain.sh"] {
        fs::set_permissions(env.join(s), fs::Permissions::from_mode(0o755)).unwrap();
    }
    let documented = documented_codes();
    let cases: &[(&[&str], i32)] = &[
        (&["--test", "t.sh", "in.txt", "--timeout", "1e20"], 2),
        (&["--test", "t.sh", "in.txt", "--timeout", "inf"], 2),
        (&["--test", "t.sh", "in.txt", "--jobs", "0"], 2),
        (&["--test", "t.sh", "in.txt", "--stats-json", "t.sh"], 2),
        (&["--test", "no.sh", "in.txt"], 3),
        (&["--test", "t.sh", "missing.txt"], 4),
        (&["--test", "t.sh", "empty.txt"], 4),
        (&["--test", "t.sh", "--algo", "perses", "bin.c"], 4),
        (&["--test", "missing.sh", "in.txt"], 5),
        (&["--test", "crlf.sh", "in.txt"], 5),
        (&["--test", "nointerp.sh", "in.txt"], 5),
        (&["--test", "plain.sh", "in.txt"], 5),
        (&["--test", "t.sh", "-o", "nodir/out.txt", "in.txt"], 6),
        (&["--test", "t.sh", "--temp-dir", "nodir", "in.txt"], 6),
    ];
    for (args, code) in cases {
        let mut all = vec!["-q"];
        all.extend_from_slice(args);
        let run = env.run(&all);
        assert!(
            run.code.is_some_and(|c| documented.contains(&c)),
            "{args:?}: exit {:?} is not in README's table {documented:?}\n{}",
            run.code,
            run.stderr
        );
        run.expect_code(*code);
        if *code != 3 {
            run.expect_one_line_error(); // exit 3 adds a recipe to run the check by hand
        }
    }
}

#[test]
fn a_crlf_shebang_and_a_missing_interpreter_say_what_is_wrong() {
    let env = TestEnv::new();
    env.write("in.txt", lines_with(6, 2, "needle"));
    env.write("crlf.sh", "#!/bin/sh\r\ngrep -q needle \"$1\"\r\n");
    env.write("nointerp.sh", "#!/no/such/sh -e\nexit 0\n");
    for s in ["crlf.sh", "nointerp.sh"] {
        fs::set_permissions(env.join(s), fs::Permissions::from_mode(0o755)).unwrap();
    }
    env.run(["-q", "--test", "crlf.sh", "in.txt"])
        .expect_code(5)
        .expect_stderr_contains(&["carriage return", "Windows line endings"]);
    env.run(["-q", "--test", "nointerp.sh", "in.txt"])
        .expect_code(5)
        .expect_stderr_contains(&["interpreter /no/such/sh does not exist"]);
}

#[test]
fn a_write_failure_in_the_temp_dir_is_an_io_error() {
    let env = TestEnv::new();
    env.write("in.txt", lines_with(400, 2, "needle"));
    env.script("t.sh", "grep -q needle \"$1\"");
    let mut cmd = env.command([
        "-q", "--algo", "ddmin", "--test", "t.sh", "-o", "-", "in.txt",
    ]);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            // a full disk, as far as this process can tell: writes past 1 KiB fail with EFBIG
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 1024,
                rlim_max: 1024,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert!(stderr.contains("candidate"), "{stderr}");
}

#[test]
fn the_check_by_hand_recipe_quotes_hostile_file_names() {
    let env = TestEnv::new();
    let name = "x$(touch INJECTED)'q'.txt";
    env.write(name, "hello\n");
    env.script("no.sh", "exit 1");
    let run = env.run(["-q", "--test", "no.sh", name]);
    run.expect_code(3);
    let recipe = run
        .stderr
        .lines()
        .find(|l| l.contains("mktemp"))
        .expect("a recipe line")
        .trim()
        .to_string();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&recipe)
        .current_dir(env.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        !env.exists("INJECTED"),
        "the recipe ran a command from the file name"
    );
    assert!(printed.contains("exit status: 1"), "{recipe}\n{printed}");
}

#[test]
fn absurd_timeouts_are_usage_errors_not_panics() {
    let env = TestEnv::new();
    env.write("in.txt", lines_with(4, 1, "needle"));
    env.script("t.sh", "grep -q needle \"$1\"");
    for t in ["1e20", "1e19", "inf", "NaN", "-3"] {
        let flag = format!("--timeout={t}");
        env.run(["-q", &flag, "--test", "t.sh", "in.txt"])
            .expect_code(2)
            .expect_one_line_error()
            .expect_stderr_contains(&["--timeout"]);
    }
}

#[test]
fn a_panic_is_reported_in_one_line_with_the_best_result_kept() {
    let env = TestEnv::new();
    let original = lines_with(20, 4, "needle");
    env.write("in.txt", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    let out = env
        .command(["-q", "--algo", "ddmin", "--test", "t.sh", "in.txt"])
        .env("REDUCE_INJECT_PANIC", "after-improvement")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("internal error") && stderr.contains("please report"),
        "{stderr}"
    );
    assert!(stderr.contains("in.txt"), "{stderr}");
    let now = env.read("in.txt");
    assert!(String::from_utf8_lossy(&now).contains("needle"));
    assert_eq!(env.read("in.txt.orig"), original.as_bytes());
}

/// Runs `reduce` with a test that appends a line to `runs` per run; returns the run and count.
fn counted(env: &TestEnv, extra: &[&str]) -> (Run, usize) {
    let _ = fs::remove_file(env.join("runs"));
    env.script(
        "count.sh",
        &format!(
            "echo x >> '{}'; grep -q needle \"$1\"",
            env.join("runs").display()
        ),
    );
    // a generous timeout: on a loaded machine a 5 ms test can take over a second
    let mut args = vec![
        "-q",
        "--timeout",
        "60",
        "--test",
        "count.sh",
        "-o",
        "out.txt",
    ];
    args.extend_from_slice(extra);
    args.push("in.c");
    let run = env.run(&args);
    let n = fs::read_to_string(env.join("runs")).map_or(0, |s| s.lines().count());
    (run, n)
}

#[test]
fn max_attempts_n_makes_exactly_n_test_runs() {
    let env = TestEnv::new();
    env.write(
        "in.c",
        "int a;\nint b;\nint needle;\nint c;\nint d;\nint e;\nint f;\n",
    );
    for algo in ["ddmin", "bytes", "hdd", "perses"] {
        // one worker: a cancelled speculative run may die before its script counts itself
        let (_, unbounded) = counted(&env, &["--algo", algo, "-j1", "--no-cache"]);
        for n in [1usize, 2, 3, 5, 8] {
            let budget = n.to_string();
            let (run, runs) = counted(
                &env,
                &[
                    "--algo",
                    algo,
                    "-j1",
                    "--no-cache",
                    "--max-attempts",
                    &budget,
                ],
            );
            assert_eq!(
                runs,
                n.min(unbounded),
                "{algo} --max-attempts {n}: {}",
                run.stderr
            );
            assert!(matches!(run.code, Some(0)), "{algo} {n}: {}", run.stderr);
            for j in ["-j1", "-j3"] {
                let (_, runs) = counted(&env, &["--algo", algo, j, "--max-attempts", &budget]);
                assert!(runs <= n, "{algo} {j} --max-attempts {n}: {runs} runs");
            }
        }
    }
}

#[test]
fn messages_use_plain_words_and_never_round_a_partial_removal_to_100_percent() {
    let env = TestEnv::new();
    env.write("in.txt", lines_with(6, 2, "needle"));
    env.script("no.sh", "exit 1");
    env.run(["-q", "--test", "no.sh", "in.txt"])
        .expect_code(3)
        .expect_stderr_contains(&["exited with status 1"]);
    env.script("slow.sh", "sleep 5");
    let run = env.run(["-q", "--timeout", "0.2", "--test", "slow.sh", "in.txt"]);
    run.expect_code(3)
        .expect_stderr_contains(&["timed out after 0.2 s (see --timeout)"]);
    assert!(!run.stderr.contains("TimedOut") && !run.stderr.contains("Exited("));
    let mut big = "x".repeat(99) + "\n";
    big = big.repeat(2000) + "ab\n";
    env.write("big.txt", &big);
    env.script("ab.sh", "grep -q '^ab$' \"$1\"");
    let run = env.run([
        "--algo", "ddmin", "--test", "ab.sh", "-o", "out.txt", "big.txt",
    ]);
    run.expect_code(0);
    assert_eq!(env.read("out.txt"), b"ab\n");
    assert!(run.stderr.contains("99.99"), "{}", run.stderr);
    assert!(!run.stderr.contains("100.0%"), "{}", run.stderr);
}

#[test]
fn every_algo_reaches_the_empty_file_when_it_is_interesting() {
    for algo in ["ddmin", "bytes", "hdd", "perses"] {
        let env = TestEnv::new();
        env.write("in.c", "int main() {\n  return 0;\n}\n");
        env.script("t.sh", "exit 0");
        env.run([
            "-q", "--algo", algo, "--test", "t.sh", "-o", "out.c", "in.c",
        ])
        .expect_code(0);
        assert_eq!(env.read("out.c"), b"", "{algo}");
    }
}

/// With `-j` of 3 and more the original's check runs beside the first candidates, which the
/// test accepts here (they lack the line that makes the original fail): still exit 3, the one
/// message, and nothing written anywhere, in place or to `-o`.
#[test]
fn an_original_that_fails_beside_interesting_candidates_changes_nothing() {
    let env = TestEnv::new();
    let text = lines_with(40, 2, "ORIGINAL");
    env.write("in.txt", &text);
    env.script("t.sh", "sleep 0.2; ! grep -q ORIGINAL \"$1\"");
    for args in [&["in.txt"][..], &["-o", "out.txt", "in.txt"]] {
        let mut all = vec!["-q", "-j4", "--algo", "ddmin", "--test", "t.sh"];
        all.extend_from_slice(args);
        env.run(&all)
            .expect_code(3)
            .expect_stderr_contains(&["the original input is not interesting"]);
        assert_eq!(env.read("in.txt"), text.as_bytes(), "{args:?}");
        let left: Vec<String> = fs::read_dir(env.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !matches!(n.as_str(), "in.txt" | "t.sh" | ".cache"))
            .collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}
