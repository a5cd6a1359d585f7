//! Pipelines and tests without a script (issue 12, part 1): `-` reads stdin and writes stdout;
//! `-c 'COMMAND'` and `-- PROGRAM ARGS...` replace the script; `--exit-code`, `--signal`,
//! `--stdout` and `--stderr` say what is interesting. Each runs the real binary.

use std::fs;
use std::io::Write;
use std::process::Stdio;

use crate::util::{Run, TestEnv, assert_bytes, lines_with};

/// Runs `reduce ARGS` with `stdin` piped in.
fn run_with_stdin(env: &TestEnv, args: &[&str], stdin: &[u8]) -> Run {
    let start = std::time::Instant::now();
    let mut child = env
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&data); // reduce may refuse before reading it all
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: start.elapsed(),
    }
}

/// The names in the test's directory, sorted; `.cache` is not the working directory's but the
/// persistent cache's (`XDG_CACHE_HOME`, kept inside the test's directory).
fn listing(env: &TestEnv) -> Vec<String> {
    let mut names = env.entries_starting_with(&env.path(), "");
    names.retain(|n| n != ".cache");
    names.sort();
    names
}

/// A test directory with an empty `tmp/` for `--temp-dir`.
fn env_with_tmp() -> TestEnv {
    let env = TestEnv::new();
    fs::create_dir(env.join("tmp")).unwrap();
    env
}

#[test]
fn stdin_in_stdout_out_writes_nothing_in_the_working_directory() {
    let env = env_with_tmp();
    let before = listing(&env);
    let input = lines_with(40, 17, "needle");
    let run = run_with_stdin(
        &env,
        &["--temp-dir", "tmp", "-c", "grep -q needle {}", "-"],
        input.as_bytes(),
    );
    run.expect_code(0)
        .expect_stderr_contains(&["result written to stdout"]);
    assert_bytes("stdout", b"needle\n", &run.stdout);
    assert_eq!(listing(&env), before, "no backup, lock or result file");
    assert!(fs::read_dir(env.join("tmp")).unwrap().next().is_none());
}

#[test]
fn stdin_with_dash_o_writes_the_file_and_nothing_to_stdout() {
    let env = env_with_tmp();
    let input = lines_with(12, 5, "needle");
    let run = run_with_stdin(
        &env,
        &[
            "-q",
            "--temp-dir",
            "tmp",
            "-o",
            "min.txt",
            "-c",
            "grep -q needle \"$1\"",
            "-",
        ],
        input.as_bytes(),
    );
    run.expect_code(0);
    assert!(run.stdout.is_empty());
    assert_bytes("min.txt", b"needle\n", &env.read("min.txt"));
}

#[test]
fn binary_stdin_with_perses_is_bad_input_in_one_line() {
    let env = env_with_tmp();
    let before = listing(&env);
    let run = run_with_stdin(
        &env,
        &["--algo", "perses", "-c", "true", "-"],
        b"\x7fELF\0\0binary",
    );
    run.expect_code(4)
        .expect_one_line_error()
        .expect_stderr_contains(&["stdin is not UTF-8 text", "--algo bytes"]);
    assert_eq!(listing(&env), before);
}

#[test]
fn a_shell_command_with_braces_reduces_in_place() {
    let env = env_with_tmp();
    let original = lines_with(30, 11, "int needle;");
    env.write("input.c", &original);
    env.run([
        "-q",
        "--temp-dir",
        "tmp",
        "-c",
        "grep -q 'needle' {} && [ -f input.c ]",
        "input.c",
    ])
    .expect_code(0);
    let result = String::from_utf8(env.read("input.c")).unwrap();
    assert!(result.contains("needle") && result.len() < 20, "{result:?}");
    assert_bytes(
        "input.c.orig",
        original.as_bytes(),
        &env.read("input.c.orig"),
    );
}

#[test]
fn a_program_after_dashes_gets_the_path_for_at_at_or_appended() {
    let env = env_with_tmp();
    // argv must be exactly: --file PATH --flag (with @@) or --flag PATH (without)
    env.script(
        "prog",
        "case \"$1\" in --file|--flag) [ $# -eq 2 ] && grep -q needle \"$2\";; *) exit 1;; esac",
    );
    for (extra, expected_args) in [(&["--file", "@@"][..], "--file"), (&["--flag"], "--flag")] {
        env.write("in.txt", lines_with(20, 9, "needle"));
        let mut args = vec![
            "-q",
            "--temp-dir",
            "tmp",
            "-o",
            "out.txt",
            "in.txt",
            "--",
            "./prog",
        ];
        args.extend_from_slice(extra);
        env.run(&args).expect_code(0);
        assert_bytes(expected_args, b"needle\n", &env.read("out.txt"));
    }
}

#[test]
fn a_fuzz_crash_reduces_with_signal_and_a_program_that_kills_itself() {
    let env = env_with_tmp();
    // the fuzz target: crashes (SIGSEGV, no shell between it and reduce) on "BUG" anywhere
    env.script("target", "grep -q BUG \"$1\" && kill -SEGV $$\nexit 0");
    let mut crash: Vec<u8> = (0..300u32).map(|i| (i * 7 % 251) as u8).collect();
    crash.splice(120..120, b"BUG".iter().copied());
    env.write("crash.bin", &crash);
    env.run([
        "-q",
        "--temp-dir",
        "tmp",
        "--algo",
        "bytes",
        "crash.bin",
        "--signal",
        "--",
        "./target",
        "@@",
    ])
    .expect_code(0);
    assert_bytes("crash.bin", b"BUG", &env.read("crash.bin"));
    // a named signal that is not the one raised: the original is not interesting
    env.write("crash2.bin", &crash);
    env.run([
        "-q",
        "--temp-dir",
        "tmp",
        "--signal=ABRT",
        "crash2.bin",
        "--",
        "./target",
        "@@",
    ])
    .expect_code(3)
    .expect_stderr_contains(&["was killed by SIGSEGV, not killed by SIGABRT (--signal ABRT)"]);
}

#[test]
fn a_stderr_regex_and_an_exit_code_together_decide() {
    let env = env_with_tmp();
    env.write("input.c", lines_with(25, 3, "boom();"));
    let cmd = "if grep -q boom {}; then echo 'x.c:1: error: boom' >&2; exit 1; fi; exit 1";
    env.run([
        "-q",
        "--temp-dir",
        "tmp",
        "--lang",
        "text",
        "--exit-code",
        "1",
        "--stderr",
        "^x.c:1: error: boom$",
        "-c",
        cmd,
        "input.c",
    ])
    .expect_code(0);
    let result = String::from_utf8(env.read("input.c")).unwrap();
    assert!(result.contains("boom") && result.len() < 10, "{result:?}");
}

#[test]
fn an_uninteresting_original_names_the_command_and_the_unmet_condition() {
    let env = env_with_tmp();
    env.write("in.txt", lines_with(5, 2, "hay"));
    let run = env.run([
        "--temp-dir",
        "tmp",
        "--stderr",
        "needle",
        "-c",
        "cat {} >&2",
        "in.txt",
    ]);
    run.expect_code(3).expect_stderr_contains(&[
        "the test -c 'cat {} >&2'",
        "--stderr needle found no match in its stderr",
        "nothing was changed",
    ]);
    assert!(!env.exists("in.txt.orig"));
    // the recipe, pasted into sh, runs the same command on a copy of the input
    let recipe = run.stderr.split_once(":\n").unwrap().1.trim().to_string();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&recipe)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stderr);
    assert!(
        printed.contains("hay"),
        "recipe {recipe}\nprinted {printed}"
    );
}

#[test]
fn verbose_shows_the_exact_command_line_of_the_first_runs() {
    let env = env_with_tmp();
    env.write("in.txt", lines_with(6, 2, "needle"));
    let run = env.run([
        "-v",
        "--temp-dir",
        "tmp",
        "-o",
        "out.txt",
        "in.txt",
        "--",
        "grep",
        "-q",
        "needle",
    ]);
    run.expect_code(0);
    let tmp = env.join("tmp").display().to_string();
    let line = run
        .stderr
        .lines()
        .find(|l| l.trim_start().starts_with("$ "))
        .unwrap_or_else(|| panic!("no command line in:\n{}", run.stderr));
    assert!(
        line.contains("grep -q needle ") && line.contains("/in.txt"),
        "{line}"
    );
    assert!(
        line.contains(&tmp),
        "the candidate is in --temp-dir: {line}"
    );
}

#[test]
fn bad_tests_and_conditions_fail_in_one_line_and_touch_nothing() {
    let env = env_with_tmp();
    env.write("in.txt", lines_with(6, 2, "needle"));
    env.write("plain", "#!/bin/sh\nexit 0\n"); // not executable
    let before = listing(&env);
    let cases: &[(&[&str], i32, &str)] = &[
        (&["-c", "", "in.txt"], 5, "-c was given an empty command"),
        (
            &["in.txt", "--", "./nonexistent", "@@"],
            5,
            "does not exist",
        ),
        (&["in.txt", "--", "no-such-program-xyz"], 5, "not on PATH"),
        (&["in.txt", "--", "./plain"], 5, "chmod +x"),
        (
            &["--stderr", "a(", "-c", "true", "in.txt"],
            2,
            "--stderr: invalid regular expression",
        ),
        (
            &["--signal", "in.txt", "--", "./x"],
            2,
            "--signal took in.txt as its value",
        ),
        (
            &["--signal", "in.txt", "in.txt", "--", "./x"],
            2,
            "--signal: unknown signal",
        ),
        (&["in.txt"], 2, "missing the test"),
        (&["-c", "true", "-"], 4, "input - (stdin) is empty"),
    ];
    for (args, code, message) in cases {
        let mut all = vec!["--temp-dir", "tmp"];
        all.extend_from_slice(args);
        env.run(&all)
            .expect_code(*code)
            .expect_one_line_error()
            .expect_stderr_contains(&[message]);
        assert_eq!(listing(&env), before, "{args:?}");
    }
    // two test forms at once: clap's usage error
    env.run(["-t", "x.sh", "-c", "true", "in.txt"])
        .expect_code(2);
    env.run(["-c", "true", "in.txt", "--", "true"])
        .expect_code(2);
}

#[test]
fn conditions_hold_through_a_launcher_whose_wrapper_reports_a_signal_as_128_plus_n() {
    let env = env_with_tmp();
    env.script("target", "grep -q BUG \"$1\" && kill -SEGV $$\nexit 0");
    env.write("crash.bin", b"0123456789BUG0123456789");
    env.run([
        "-q",
        "--temp-dir",
        "tmp",
        "--launcher",
        "env",
        "--algo",
        "bytes",
        "--signal=SEGV",
        "crash.bin",
        "--",
        "./target",
        "@@",
    ])
    .expect_code(0);
    assert_bytes("crash.bin", b"BUG", &env.read("crash.bin"));
}

#[test]
fn braces_are_quoted_safely_for_a_file_name_with_spaces_and_quotes() {
    let env = env_with_tmp();
    let name = "it's a \"file\" $(x).txt";
    env.write(name, lines_with(8, 3, "needle"));
    env.run([
        "-q",
        "--temp-dir",
        "tmp",
        "-o",
        "out.txt",
        "-c",
        "[ -f {} ] && [ {} = \"$1\" ] && grep -q needle {}",
        name,
    ])
    .expect_code(0);
    assert_bytes("out.txt", b"needle\n", &env.read("out.txt"));
}

#[test]
fn stdin_with_lang_names_the_candidate_with_the_languages_extension() {
    let env = env_with_tmp();
    let input = "int a;\nint needle;\nint b;\n";
    let run = run_with_stdin(
        &env,
        &[
            "-q",
            "--temp-dir",
            "tmp",
            "--lang",
            "c",
            "-c",
            "[ \"$(basename {})\" = input.c ] && grep -q needle input.c",
            "-",
        ],
        input.as_bytes(),
    );
    run.expect_code(0);
    let out = String::from_utf8(run.stdout).unwrap();
    assert!(out.contains("needle") && out.len() < input.len(), "{out:?}");
}

#[test]
fn an_address_sanitizer_report_counts_as_sigabrt_under_signal() {
    let env = env_with_tmp();
    env.write(
        "asan.c",
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\
         int main(int c, char **v) {\n  FILE *f = fopen(v[1], \"rb\"); char b[4096];\n\
         size_t n = fread(b, 1, sizeof b, f); char *p = malloc(8);\n\
         if (memmem(b, n, \"OOB\", 3)) p[8] = 1;\n  free(p); return 0;\n}\n",
    );
    let built = std::process::Command::new("gcc")
        .args([
            "-D_GNU_SOURCE",
            "-fsanitize=address",
            "-o",
            "asan",
            "asan.c",
        ])
        .current_dir(env.path())
        .status()
        .expect("gcc runs");
    assert!(
        built.success(),
        "gcc -fsanitize=address (libasan) is needed"
    );
    let mut crash: Vec<u8> = (0..200u32).map(|i| (i * 13 % 251) as u8).collect();
    crash.splice(90..90, b"OOB".iter().copied());
    env.write("crash.bin", &crash);
    // ASAN_OPTIONS unset: reduce sets abort_on_error=1 for --signal, so the report aborts
    let mut cmd = env.command([
        "-q",
        "--temp-dir",
        "tmp",
        "--algo",
        "bytes",
        "--signal=ABRT",
        "crash.bin",
        "--",
        "./asan",
        "@@",
    ]);
    cmd.env_remove("ASAN_OPTIONS");
    let status = cmd.status().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_bytes("crash.bin", b"OOB", &env.read("crash.bin"));
}
