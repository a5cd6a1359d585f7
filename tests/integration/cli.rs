//! The command line end to end: the real binary on real files and scripts, checking the files
//! left on disk, the exit codes and the messages.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{
    Run, TestEnv, assert_bytes, assert_same, is_dead, lines_with, reduce_bin, wait_at_most,
};

const ALGOS: [&str; 4] = ["ddmin", "bytes", "hdd", "perses"];

/// A small C program whose `crash()` call must survive and which must keep compiling.
const CRASH_C: &str = "\
int counter;
int helper(int x) { return x + 1; }
int main() {
    int a = 1;
    int b = helper(a);
    if (a) {
        crash();
        b = b + 2;
    }
    counter = b;
    return 0;
}
";

const CRASH_TEST: &str =
    "grep -q 'crash *(' \"$1\" && gcc -std=gnu89 -Werror -fsyntax-only -x c \"$1\" >/dev/null 2>&1";

fn stats(env: &TestEnv, name: &str) -> serde_json::Value {
    serde_json::from_slice(&env.read(name)).expect("--stats-json writes valid JSON")
}

/// Reduces `crash.c` with a gcc-based test and `algo`, in place; checks the result is smaller,
/// still passes the test, and the original is kept as crash.c.orig.
fn reduces_the_c_file_with(algo: &str) {
    let env = TestEnv::new();
    let input = env.write("crash.c", CRASH_C);
    let test = env.script("crash.sh", CRASH_TEST);
    assert!(
        env.passes(&test, "crash.c", CRASH_C.as_bytes()),
        "the fixture must pass"
    );
    env.run(["-q", "--algo", algo, "--test", "crash.sh", "crash.c"])
        .expect_code(0);
    let result = env.read("crash.c");
    assert!(
        result.len() < CRASH_C.len(),
        "{algo}: not smaller ({} >= {} bytes):\n{}",
        result.len(),
        CRASH_C.len(),
        String::from_utf8_lossy(&result)
    );
    assert!(
        env.passes(&test, "crash.c", &result),
        "{algo}: the result no longer passes the test:\n{}",
        String::from_utf8_lossy(&result)
    );
    assert_bytes(
        "crash.c.orig",
        CRASH_C.as_bytes(),
        &env.read("crash.c.orig"),
    );
    assert!(input.is_file());
}

#[test]
fn ddmin_over_lines_reduces_a_30_line_file_in_place_to_the_one_needed_line() {
    let env = TestEnv::new();
    let original = lines_with(30, 17, "the needle");
    env.write("input.txt", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    env.run([
        "-q",
        "--algo",
        "ddmin",
        "--unit",
        "line",
        "--test",
        "t.sh",
        "input.txt",
    ])
    .expect_code(0);
    assert_bytes("input.txt", b"the needle\n", &env.read("input.txt"));
    assert_bytes(
        "input.txt.orig",
        original.as_bytes(),
        &env.read("input.txt.orig"),
    );
}

#[test]
fn perses_shrinks_a_c_file_to_a_smaller_one_that_still_compiles_and_crashes() {
    reduces_the_c_file_with("perses");
}

#[test]
fn hdd_shrinks_a_c_file_to_a_smaller_one_that_still_compiles_and_crashes() {
    reduces_the_c_file_with("hdd");
}

#[test]
fn ddmin_shrinks_a_c_file_to_a_smaller_one_that_still_compiles_and_crashes() {
    reduces_the_c_file_with("ddmin");
}

#[test]
fn bytes_shrinks_a_c_file_to_a_smaller_one_that_still_compiles_and_crashes() {
    reduces_the_c_file_with("bytes");
}

#[test]
fn a_c_reduce_style_script_without_arguments_finds_the_candidate_by_its_file_name() {
    let env = TestEnv::new();
    env.write("input.txt", lines_with(10, 4, "needle"));
    env.script("t.sh", "[ $# -ge 0 ] && grep -q needle input.txt");
    env.run(["-q", "--algo", "ddmin", "--test", "t.sh", "input.txt"])
        .expect_code(0);
    assert_bytes("input.txt", b"needle\n", &env.read("input.txt"));
}

#[test]
fn dash_o_dash_prints_only_the_result_on_stdout_and_leaves_the_input_untouched() {
    let env = TestEnv::new();
    let original = lines_with(12, 3, "needle");
    env.write("input.txt", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    let run = env.run(["--algo", "ddmin", "--test", "t.sh", "-o", "-", "input.txt"]);
    run.expect_code(0);
    let (_, stdout, stderr) = run.parts();
    assert_same("stdout", "needle\n", stdout.as_str());
    assert!(
        stderr.contains("result written to stdout"),
        "the summary goes to stderr:\n{stderr}"
    );
    assert_bytes("input.txt", original.as_bytes(), &env.read("input.txt"));
    assert!(
        !env.exists("input.txt.orig"),
        "-o - must not write a backup"
    );
}

#[test]
fn dash_o_file_writes_the_result_there_and_leaves_the_input_untouched() {
    let env = TestEnv::new();
    let original = lines_with(12, 8, "needle");
    env.write("input.txt", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    std::fs::create_dir(env.join("out")).unwrap();
    let run = env.run(["-q", "--test", "t.sh", "-o", "out/small.txt", "input.txt"]);
    run.expect_code(0);
    assert!(run.stdout.is_empty(), "nothing on stdout with -o FILE");
    assert_bytes("out/small.txt", b"needle\n", &env.read("out/small.txt"));
    assert_bytes("input.txt", original.as_bytes(), &env.read("input.txt"));
    assert!(
        !env.exists("input.txt.orig"),
        "-o FILE must not write a backup"
    );
}

#[test]
fn dash_o_into_a_missing_directory_is_an_io_error_naming_the_directory() {
    let env = TestEnv::new();
    let original = lines_with(5, 2, "needle");
    env.write("input.txt", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    env.run([
        "-q",
        "--test",
        "t.sh",
        "-o",
        "nowhere/deeper/out.txt",
        "input.txt",
    ])
    .expect_code(6)
    .expect_one_line_error()
    .expect_stderr_contains(&["nowhere/deeper", "does not exist"]);
    assert_bytes("input.txt", original.as_bytes(), &env.read("input.txt"));
    assert!(!env.exists("nowhere"));
    assert!(!env.exists("input.txt.orig"));
}

#[test]
fn dash_o_pointing_at_the_input_itself_is_a_usage_error_and_changes_nothing() {
    let env = TestEnv::new();
    let original = lines_with(5, 2, "needle");
    let input = env.write("input.txt", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    for spelling in ["input.txt", "./input.txt", &input.display().to_string()] {
        env.run(["-q", "--test", "t.sh", "-o", spelling, "input.txt"])
            .expect_code(2)
            .expect_one_line_error()
            .expect_stderr_contains(&["is the input itself"]);
        assert_bytes("input.txt", original.as_bytes(), &env.read("input.txt"));
        assert!(!env.exists("input.txt.orig"));
    }
}

#[test]
fn an_uninteresting_original_exits_3_with_a_pasteable_recipe_and_changes_nothing() {
    let env = TestEnv::new();
    let original = lines_with(5, 2, "hay");
    env.write("input.txt", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    let run = env.run(["-q", "--test", "t.sh", "input.txt"]);
    run.expect_code(3).expect_stderr_contains(&[
        "not interesting",
        "nothing was changed",
        "mktemp -d",
    ]);
    assert_bytes("input.txt", original.as_bytes(), &env.read("input.txt"));
    assert!(!env.exists("input.txt.orig"));

    // The recipe is the stderr line(s) after "Check it by hand:"; pasted into sh, it must
    // reproduce the failure.
    let recipe = run
        .stderr
        .split_once("Check it by hand:")
        .map(|(_, r)| r.trim().to_string())
        .unwrap_or_else(|| panic!("no recipe in:\n{}", run.stderr));
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&recipe)
        .current_dir("/")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains("exit status: 1"),
        "the recipe should show the test failing\n--- recipe\n{recipe}\n--- its output\n{printed}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_hanging_test_is_killed_at_the_timeout_together_with_its_background_jobs() {
    let env = TestEnv::new();
    let pids = env.join("pids");
    env.write("input.txt", lines_with(6, 0, "keepme"));
    env.script(
        "t.sh",
        &format!(
            "grep -q keepme \"$1\" || exit 1\n\
             if [ $(wc -l < \"$1\") -lt 5 ]; then sleep 30 & echo $! >> '{}'; wait; fi\nexit 0",
            pids.display()
        ),
    );
    let run = env.run([
        "-q",
        "--algo",
        "ddmin",
        "--timeout",
        "0.5",
        "--stats-json",
        "stats.json",
        "--test",
        "t.sh",
        "input.txt",
    ]);
    run.expect_code(0);
    assert!(
        run.elapsed < Duration::from_secs(15),
        "took {:?}",
        run.elapsed
    );
    let record = stats(&env, "stats.json");
    assert!(record["timeouts"].as_u64().unwrap() > 0, "{record}");
    let pids: Vec<i32> = std::fs::read_to_string(&pids)
        .expect("some candidate hung")
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert!(!pids.is_empty());
    let alive: Vec<i32> = pids.iter().copied().filter(|&p| !is_dead(p)).collect();
    assert!(alive.is_empty(), "background sleeps still alive: {alive:?}");
    // Every shorter candidate timed out, so the result keeps at least 5 lines and the needle.
    let result = env.read("input.txt");
    assert!(String::from_utf8_lossy(&result).contains("keepme"));
    assert!(result.iter().filter(|&&b| b == b'\n').count() >= 5);
}

#[test]
fn a_missing_input_is_bad_input() {
    let env = TestEnv::new();
    env.script("t.sh", "exit 0");
    env.run(["-q", "--test", "t.sh", "absent.txt"])
        .expect_code(4)
        .expect_one_line_error()
        .expect_stderr_contains(&["absent.txt", "does not exist"]);
    assert!(!env.exists("absent.txt.orig"));
}

#[test]
fn an_empty_directory_as_input_is_bad_input() {
    let env = TestEnv::new();
    env.script("t.sh", "exit 0");
    std::fs::create_dir(env.join("somedir")).unwrap();
    env.run(["-q", "--test", "t.sh", "somedir"])
        .expect_code(4)
        .expect_one_line_error()
        .expect_stderr_contains(&["somedir", "holds no files"]);
}

#[test]
fn an_empty_input_is_bad_input() {
    let env = TestEnv::new();
    env.script("t.sh", "exit 0");
    env.write("empty.txt", "");
    env.run(["-q", "--test", "t.sh", "empty.txt"])
        .expect_code(4)
        .expect_one_line_error()
        .expect_stderr_contains(&["empty.txt", "empty"]);
    assert!(!env.exists("empty.txt.orig"));
}

#[test]
fn a_binary_input_with_perses_is_bad_input_pointing_to_algo_bytes() {
    let env = TestEnv::new();
    env.script("t.sh", "exit 0");
    let original = b"int x;\0\xff\xfe int main() {}\n";
    env.write("blob.c", original);
    env.run(["-q", "--algo", "perses", "--test", "t.sh", "blob.c"])
        .expect_code(4)
        .expect_one_line_error()
        .expect_stderr_contains(&["blob.c", "--algo bytes"]);
    assert_bytes("blob.c", original, &env.read("blob.c"));
    assert!(!env.exists("blob.c.orig"));
}

#[test]
fn a_binary_input_by_default_is_reduced_to_the_bytes_the_test_needs() {
    // a fuzz finding: two magic strings far apart in binary noise with a few newlines, which
    // ddmin over lines alone would leave inside whole "lines" of noise
    let env = TestEnv::new();
    env.script("t.sh", "grep -q FUZZ \"$1\" && grep -q BUG \"$1\"");
    let mut blob: Vec<u8> = (0..3000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8 | 0x80)
        .collect();
    blob[200] = b'\n';
    blob[1500] = b'\n';
    blob[100..104].copy_from_slice(b"FUZZ");
    blob[2500..2503].copy_from_slice(b"BUG");
    env.write("crash.bin", &blob);
    env.run(["-q", "-j", "2", "--test", "t.sh", "crash.bin"])
        .expect_code(0);
    assert_bytes("crash.bin", b"FUZZBUG", &env.read("crash.bin"));
    assert_bytes("crash.bin.orig", &blob, &env.read("crash.bin.orig"));
}

#[test]
fn a_txt_input_with_hdd_is_reduced_over_the_bracket_tree() {
    let env = TestEnv::new();
    env.script("t.sh", "grep -q 'f(.*b' \"$1\"");
    env.write("notes.txt", "x = 1\ncall f(a, b, c)\ny = [2, 3]\n");
    env.run(["-q", "--algo", "hdd", "--test", "t.sh", "notes.txt"])
        .expect_code(0);
    assert_bytes("notes.txt", b"f(b)\n", &env.read("notes.txt"));
}

#[test]
fn lang_lists_every_language_and_extensions_pick_them() {
    let env = TestEnv::new();
    let run = env.run(["--lang", "cobol", "--test", "t.sh", "x.txt"]);
    run.expect_code(2);
    for lang in [
        "c",
        "cpp",
        "rust",
        "python",
        "javascript",
        "typescript",
        "tsx",
        "go",
        "java",
        "json",
        "bash",
        "lua",
        "text",
    ] {
        assert!(
            run.stderr.contains(lang),
            "{lang} missing from: {}",
            run.stderr
        );
    }
    for (file, lang) in [
        ("a.py", "python"),
        ("a.rs", "rust"),
        ("a.cc", "cpp"),
        ("a.smt2", "text"),
    ] {
        env.write(file, "x\n");
        let run = env.run(["--dump-tree", "--test", "t.sh", file]);
        run.expect_code(0);
        let head = String::from_utf8_lossy(&run.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_string();
        assert!(head.starts_with(&format!("# {lang}:")), "{file}: {head}");
    }
}

#[test]
fn the_same_txt_input_with_hdd_and_lang_c_is_reduced() {
    let env = TestEnv::new();
    env.script("t.sh", "grep -q 'return 7' \"$1\"");
    env.write("notes.txt", "int x;\nint main() { return 7; }\nint y;\n");
    env.run([
        "-q",
        "--algo",
        "hdd",
        "--lang",
        "c",
        "--test",
        "t.sh",
        "notes.txt",
    ])
    .expect_code(0);
    let result = env.read("notes.txt");
    assert!(result.len() < 40, "{}", String::from_utf8_lossy(&result));
    assert!(String::from_utf8_lossy(&result).contains("return 7"));
}

#[test]
fn a_missing_script_is_a_bad_script() {
    let env = TestEnv::new();
    let original = lines_with(3, 0, "x");
    env.write("input.txt", &original);
    env.run(["-q", "--test", "nope.sh", "input.txt"])
        .expect_code(5)
        .expect_one_line_error()
        .expect_stderr_contains(&[&env.join("nope.sh").display().to_string(), "does not exist"]);
    assert_bytes("input.txt", original.as_bytes(), &env.read("input.txt"));
    assert!(!env.exists("input.txt.orig"));
}

#[test]
fn a_non_executable_script_is_a_bad_script_suggesting_chmod_x() {
    let env = TestEnv::new();
    env.write("input.txt", lines_with(3, 0, "x"));
    let script = env.script("t.sh", "exit 0");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    env.run(["-q", "--test", "t.sh", "input.txt"])
        .expect_code(5)
        .expect_one_line_error()
        .expect_stderr_contains(&["not executable", "chmod +x"]);
    assert!(!env.exists("input.txt.orig"));
}

#[test]
fn a_script_without_a_shebang_is_a_bad_script() {
    let env = TestEnv::new();
    env.write("input.txt", lines_with(3, 0, "x"));
    let script = env.write("t.sh", "exit 0\n");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    env.run(["-q", "--test", "t.sh", "input.txt"])
        .expect_code(5)
        .expect_one_line_error()
        .expect_stderr_contains(&["#!/bin/sh"]);
    assert!(!env.exists("input.txt.orig"));
}

#[test]
fn a_directory_as_the_script_is_a_bad_script() {
    let env = TestEnv::new();
    env.write("input.txt", lines_with(3, 0, "x"));
    std::fs::create_dir(env.join("scripts")).unwrap();
    env.run(["-q", "--test", "scripts", "input.txt"])
        .expect_code(5)
        .expect_one_line_error()
        .expect_stderr_contains(&["is a directory"]);
}

#[test]
fn a_relative_script_path_is_resolved_from_the_cwd_where_reduce_runs() {
    let env = TestEnv::new();
    env.write("work/input.txt", lines_with(8, 5, "needle"));
    env.script("checks/t.sh", "grep -q needle \"$1\"");
    // From the env root, both relative paths resolve.
    env.run(["-q", "--test", "checks/t.sh", "work/input.txt"])
        .expect_code(0);
    assert_bytes("work/input.txt", b"needle\n", &env.read("work/input.txt"));
    // From work/, the same script path does not exist: it is not resolved against the
    // input's directory or the binary's.
    let out = std::process::Command::new(reduce_bin())
        .args(["-q", "--test", "checks/t.sh", "input.txt"])
        .current_dir(env.join("work"))
        .env("XDG_CACHE_HOME", env.join(".cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_same("exit code", &Some(5), &out.status.code());
    let expected = env.join("work/checks/t.sh").display().to_string();
    assert!(stderr.contains(&expected), "{stderr}");
    // And from work/ a path going up works.
    let out = std::process::Command::new(reduce_bin())
        .args([
            "-q",
            "--test",
            "../checks/t.sh",
            "-o",
            "out.txt",
            "input.txt",
        ])
        .current_dir(env.join("work"))
        .env("XDG_CACHE_HOME", env.join(".cache"))
        .output()
        .unwrap();
    assert_same("exit code", &Some(0), &out.status.code());
}

#[test]
fn an_existing_different_orig_without_force_is_a_usage_error_and_changes_nothing() {
    let env = TestEnv::new();
    let original = lines_with(6, 1, "needle");
    env.write("input.txt", &original);
    env.write("input.txt.orig", "an older original\n");
    env.script("t.sh", "grep -q needle \"$1\"");
    env.run(["-q", "--test", "t.sh", "input.txt"])
        .expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["input.txt.orig", "--force"]);
    assert_bytes("input.txt", original.as_bytes(), &env.read("input.txt"));
    assert_bytes(
        "input.txt.orig",
        b"an older original\n",
        &env.read("input.txt.orig"),
    );
}

#[test]
fn an_existing_different_orig_with_force_is_overwritten_and_the_run_proceeds() {
    let env = TestEnv::new();
    let original = lines_with(6, 1, "needle");
    env.write("input.txt", &original);
    env.write("input.txt.orig", "an older original\n");
    env.script("t.sh", "grep -q needle \"$1\"");
    env.run(["-q", "--force", "--test", "t.sh", "input.txt"])
        .expect_code(0);
    assert_bytes("input.txt", b"needle\n", &env.read("input.txt"));
    assert_bytes(
        "input.txt.orig",
        original.as_bytes(),
        &env.read("input.txt.orig"),
    );
}

#[test]
fn an_existing_identical_orig_is_fine_without_force() {
    let env = TestEnv::new();
    let original = lines_with(6, 1, "needle");
    env.write("input.txt", &original);
    env.write("input.txt.orig", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    env.run(["-q", "--test", "t.sh", "input.txt"])
        .expect_code(0);
    assert_bytes("input.txt", b"needle\n", &env.read("input.txt"));
    assert_bytes(
        "input.txt.orig",
        original.as_bytes(),
        &env.read("input.txt.orig"),
    );
}

#[test]
fn stats_json_records_the_output_size_the_test_count_and_fixpoint_for_ddmin() {
    let env = TestEnv::new();
    env.write("input.txt", lines_with(10, 6, "needle"));
    env.script("t.sh", "grep -q needle \"$1\"");
    env.run([
        "-q",
        "--algo",
        "ddmin",
        "--stats-json",
        "stats.json",
        "--test",
        "t.sh",
        "-o",
        "out.txt",
        "input.txt",
    ])
    .expect_code(0);
    let record = stats(&env, "stats.json");
    let out_len = env.read("out.txt").len() as u64;
    assert_same(
        "final_bytes",
        &Some(out_len),
        &record["final_bytes"].as_u64(),
    );
    assert!(record["tests"].as_u64().unwrap() > 0, "{record}");
    assert_same(
        "completion",
        &Some("fixpoint"),
        &record["completion"].as_str(),
    );
    assert_same("algo", &Some("ddmin"), &record["algo"].as_str());
}

#[test]
fn stats_json_records_one_minimal_for_bytes() {
    let env = TestEnv::new();
    env.write("input.txt", "abc needle xyz\n");
    env.script("t.sh", "grep -q needle \"$1\"");
    env.run([
        "-q",
        "--algo",
        "bytes",
        "--stats-json",
        "stats.json",
        "--test",
        "t.sh",
        "input.txt",
    ])
    .expect_code(0);
    let record = stats(&env, "stats.json");
    let result = env.read("input.txt");
    assert_bytes("input.txt", b"needle", &result);
    assert_same(
        "final_bytes",
        &Some(result.len() as u64),
        &record["final_bytes"].as_u64(),
    );
    assert!(record["tests"].as_u64().unwrap() > 0, "{record}");
    assert_same(
        "completion",
        &Some("one_minimal"),
        &record["completion"].as_str(),
    );
}

#[test]
fn max_attempts_stops_early_with_an_interesting_best_so_far_and_budget_exhausted() {
    let env = TestEnv::new();
    let original = lines_with(30, 0, "needle");
    env.write("input.txt", &original);
    let test = env.script("t.sh", "grep -q needle \"$1\"");
    env.run([
        "-q",
        "--algo",
        "ddmin",
        "--max-attempts",
        "3",
        "--stats-json",
        "stats.json",
        "--test",
        "t.sh",
        "input.txt",
    ])
    .expect_code(0);
    let record = stats(&env, "stats.json");
    assert_same(
        "completion",
        &Some("budget_exhausted"),
        &record["completion"].as_str(),
    );
    assert!(record["tests"].as_u64().unwrap() <= 4, "{record}");
    let result = env.read("input.txt");
    assert!(result.len() < original.len(), "the first halving succeeds");
    assert_ne!(result, b"needle\n", "3 attempts cannot reach the end");
    assert_same(
        "final_bytes",
        &Some(result.len() as u64),
        &record["final_bytes"].as_u64(),
    );
    assert!(env.passes(&test, "input.txt", &result));
    assert_bytes(
        "input.txt.orig",
        original.as_bytes(),
        &env.read("input.txt.orig"),
    );
}

#[test]
fn sigint_during_a_run_exits_130_keeps_an_interesting_result_and_cleans_the_temp_dir() {
    let env = TestEnv::new();
    let original = lines_with(30, 21, "keep");
    env.write("input.txt", &original);
    let test = env.script("t.sh", "sleep 0.2; grep -q keep \"$1\"");
    std::fs::create_dir(env.join("tmp")).unwrap();
    let mut child = env
        .command([
            "-q",
            "--algo",
            "ddmin",
            "--temp-dir",
            "tmp",
            "--test",
            "t.sh",
            "input.txt",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "finished before the interrupt"
    );
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions; pid is our own child, not yet reaped.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let interrupted = Instant::now();
    let status = wait_at_most(&mut child, Duration::from_secs(10));
    assert!(
        interrupted.elapsed() < Duration::from_secs(3),
        "slow to stop"
    );
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_same("exit code", &Some(130), &status.code());
    let result = env.read("input.txt");
    assert!(result.len() <= original.len());
    assert!(
        env.passes(&test, "input.txt", &result),
        "the interrupted result fails the test:\n{}",
        String::from_utf8_lossy(&result)
    );
    assert_bytes(
        "input.txt.orig",
        original.as_bytes(),
        &env.read("input.txt.orig"),
    );
    let left = env.entries_starting_with(&env.join("tmp"), "reduce-");
    assert!(
        left.is_empty(),
        "left in --temp-dir: {left:?}; stderr: {stderr}"
    );
    let stray = env.entries_starting_with(&env.path(), ".reduce-");
    assert!(stray.is_empty(), "temp files beside the input: {stray:?}");
}

#[test]
fn sigint_while_the_original_is_checked_exits_130_and_changes_nothing() {
    let env = TestEnv::new();
    let original = lines_with(5, 2, "keep");
    env.write("input.txt", &original);
    env.script("t.sh", "sleep 3; grep -q keep \"$1\"");
    let mut child = env
        .command(["-q", "--test", "t.sh", "input.txt"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions; pid is our own child, not yet reaped.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let status = wait_at_most(&mut child, Duration::from_secs(10));
    assert_same("exit code", &Some(130), &status.code());
    assert_bytes("input.txt", original.as_bytes(), &env.read("input.txt"));
    assert!(!env.exists("input.txt.orig"));
}

#[test]
fn every_algo_returns_a_result_no_larger_than_the_input_that_still_passes_the_test() {
    let case = "int a;\nint b;\nint main() { int k = 2; crash(); return k; }\nint c;\n";
    for algo in ALGOS {
        let env = TestEnv::new();
        env.write("case.c", case);
        let test = env.script("t.sh", CRASH_TEST);
        env.run([
            "-q", "--algo", algo, "--test", "t.sh", "-o", "out.c", "case.c",
        ])
        .expect_code(0);
        let result = env.read("out.c");
        assert!(
            result.len() <= case.len(),
            "{algo} grew the input to {} bytes",
            result.len()
        );
        assert!(
            env.passes(&test, "case.c", &result),
            "{algo} result fails the test:\n{}",
            String::from_utf8_lossy(&result)
        );
        assert_bytes("case.c (with -o)", case.as_bytes(), &env.read("case.c"));
    }
}

#[test]
fn a_non_tty_run_prints_no_ansi_escape_codes() {
    let env = TestEnv::new();
    env.write("input.c", "int x;\nint main() { crash(); return 0; }\n");
    env.script("t.sh", CRASH_TEST);
    for algo in ALGOS {
        let run: Run = env.run([
            "-v", "--algo", algo, "--test", "t.sh", "-o", "out.c", "input.c",
        ]);
        run.expect_code(0)
            .expect_stderr_contains(&[&format!("reduce: {algo} ")]);
        assert!(
            !run.stderr.contains('\x1b'),
            "{algo}: escape codes on a non-tty stderr:\n{:?}",
            run.stderr
        );
        assert!(!run.stdout.contains(&0x1b));
    }
}

#[test]
fn the_summary_names_the_result_and_the_backup() {
    let env = TestEnv::new();
    env.write("input.txt", lines_with(4, 1, "needle"));
    env.script("t.sh", "grep -q needle \"$1\"");
    env.run(["--test", "t.sh", "input.txt"])
        .expect_code(0)
        .expect_stderr_contains(&[
            "reduce: perses fixpoint:",
            "result in input.txt, original kept as input.txt.orig",
        ]);
}

#[test]
fn quiet_runs_print_nothing_on_success() {
    let env = TestEnv::new();
    env.write("input.txt", lines_with(4, 1, "needle"));
    env.script("t.sh", "grep -q needle \"$1\"");
    let run = env.run(["-q", "--test", "t.sh", "input.txt"]);
    run.expect_code(0);
    assert_same("stderr", "", run.stderr.as_str());
    assert!(run.stdout.is_empty());
}

#[test]
fn bad_numeric_flags_are_usage_errors() {
    let env = TestEnv::new();
    env.write("input.txt", lines_with(4, 1, "needle"));
    env.script("t.sh", "grep -q needle \"$1\"");
    for (flag, mentions) in [
        ("--timeout=0", "--timeout must be a positive number"),
        ("--timeout=-1", "--timeout must be a positive number"),
        ("--max-attempts=0", "--max-attempts must be at least 1"),
    ] {
        env.run(["-q", flag, "--test", "t.sh", "input.txt"])
            .expect_code(2)
            .expect_one_line_error()
            .expect_stderr_contains(&[mentions]);
    }
    assert!(!env.exists("input.txt.orig"));
}

#[test]
fn dash_o_onto_an_existing_directory_is_an_io_error() {
    let env = TestEnv::new();
    let original = lines_with(5, 2, "needle");
    env.write("input.txt", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    std::fs::create_dir(env.join("outdir")).unwrap();
    env.run(["-q", "--test", "t.sh", "-o", "outdir", "input.txt"])
        .expect_code(6)
        .expect_one_line_error()
        .expect_stderr_contains(&["outdir"]);
    assert_bytes("input.txt", original.as_bytes(), &env.read("input.txt"));
    assert!(env.join("outdir").is_dir());
}

#[test]
fn sigterm_during_a_run_exits_143_and_keeps_an_interesting_result() {
    let env = TestEnv::new();
    let original = lines_with(20, 3, "keep");
    env.write("input.txt", &original);
    let test = env.script("t.sh", "sleep 0.2; grep -q keep \"$1\"");
    let mut child = env
        .command(["-q", "--algo", "ddmin", "--test", "t.sh", "input.txt"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions; pid is our own child, not yet reaped.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = wait_at_most(&mut child, Duration::from_secs(10));
    assert_same("exit code", &Some(143), &status.code());
    assert!(env.passes(&test, "input.txt", &env.read("input.txt")));
    assert_bytes(
        "input.txt.orig",
        original.as_bytes(),
        &env.read("input.txt.orig"),
    );
}

#[test]
fn help_mentions_the_examples_and_the_exit_codes() {
    let env = TestEnv::new();
    let run = env.run(["--help"]);
    run.expect_code(0);
    let help = String::from_utf8_lossy(&run.stdout);
    for needle in [
        "Examples:",
        "reduce --test ./crash.sh input.c",
        "Exit codes:",
        "3 original not interesting",
        "130 interrupted",
        "--stats-json",
        "--max-attempts",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}

#[test]
fn version_prints_the_version() {
    let env = TestEnv::new();
    let run = env.run(["--version"]);
    run.expect_code(0);
    assert_same(
        "--version",
        format!("reduce {}\n", env!("CARGO_PKG_VERSION")).as_str(),
        String::from_utf8_lossy(&run.stdout).as_ref(),
    );
}

#[test]
fn missing_arguments_are_usage_errors() {
    let env = TestEnv::new();
    env.write("input.txt", "x\n");
    env.run(["input.txt"]).expect_code(2);
    env.run(["--test", "/bin/true"]).expect_code(2);
    env.run(["--algo", "nonsense", "--test", "/bin/true", "input.txt"])
        .expect_code(2);
    assert!(Path::new(&env.join("input.txt")).is_file());
}
