//! Many files at once: a list of files or a directory, reduced together; every test sees the
//! whole set in its layout; the set on disk is always one the test accepted.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::util::{TestEnv, assert_same, lines_with};

/// Every regular file under `dir` (relative path -> bytes); symlinks, directories and FIFOs
/// are listed with a marker.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().display().to_string();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                out.insert(rel, b"<link>".to_vec());
            } else if meta.is_dir() {
                out.insert(rel, b"<dir>".to_vec());
                pending.push(path);
            } else if !meta.is_file() {
                out.insert(rel, b"<special>".to_vec());
            } else {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Runs `script` the way `reduce` does for a directory: on a copy of `dir`, in it, with the
/// copy's path as `$1`. True if it exits 0.
fn passes_dir(env: &TestEnv, script: &Path, dir: &Path) -> bool {
    let scratch = tempfile::tempdir_in(env.path()).unwrap();
    let copy = scratch.path().join("copy");
    let status = Command::new("cp")
        .arg("-R")
        .arg(dir)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    Command::new(script)
        .arg(&copy)
        .current_dir(&copy)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

/// The bytes of the regular files of a snapshot.
fn total(files: &BTreeMap<String, Vec<u8>>) -> usize {
    files
        .values()
        .filter(|b| !b.starts_with(b"<"))
        .map(Vec::len)
        .sum()
}

const HEADER: &str = "\
#ifndef POINT_H
#define POINT_H
/* shapes */
struct point { int x; int y; };
struct size { double w; double h; };
int area(struct size s) __attribute__((deprecated(\"use surface\")));
static inline int twice(int v) { return v * 2; }
#endif
";

const SOURCE: &str = "\
#include <stdio.h>
#include \"point.h\"
int unused(void) { return twice(4); }
int main(void) {
    struct point p;
    p.x = 1;
    p.y = 2;
    struct size sz = { p.x, p.y };
    printf(\"%d\\n\", area(sz));
    return 0;
}
";

/// The warning needs both files: the deprecated declaration is in the header, the call in the
/// source.
const WARNING: &str = "grep -q '.area. is deprecated: use surface'";

fn two_file_program(env: &TestEnv) -> std::path::PathBuf {
    env.write("main.c", SOURCE);
    env.write("point.h", HEADER);
    env.script(
        "t.sh",
        &format!("gcc -c -Wall main.c -o /dev/null 2>&1 | {WARNING}"),
    )
}

#[test]
fn a_header_and_a_source_that_crash_only_together_are_both_reduced_in_place() {
    let env = TestEnv::new();
    let script = two_file_program(&env);
    let run = env.run([
        "-j2",
        "--temp-dir",
        ".",
        "--test",
        "./t.sh",
        "main.c",
        "point.h",
    ]);
    let (main_line, header_line) = (
        format!("main.c: {} ->", SOURCE.len()),
        format!("point.h: {} ->", HEADER.len()),
    );
    run.expect_code(0)
        .expect_stderr_contains(&[&main_line, &header_line, "(perses)"]);
    assert_same("main.c.orig", SOURCE.as_bytes(), &env.read("main.c.orig"));
    assert_same("point.h.orig", HEADER.as_bytes(), &env.read("point.h.orig"));
    let (main, header) = (env.read("main.c"), env.read("point.h"));
    assert!(
        main.len() < SOURCE.len() / 3,
        "{}",
        String::from_utf8_lossy(&main)
    );
    assert!(
        header.len() < HEADER.len() / 3,
        "{}",
        String::from_utf8_lossy(&header)
    );
    // both files are still needed: the header keeps the declaration, the source includes it
    assert!(String::from_utf8_lossy(&header).contains("deprecated"));
    assert!(String::from_utf8_lossy(&main).contains("point.h"));
    let scratch = env.join("check");
    fs::create_dir(&scratch).unwrap();
    fs::write(scratch.join("main.c"), &main).unwrap();
    fs::write(scratch.join("point.h"), &header).unwrap();
    assert!(passes_dir(&env, &script, &scratch));
}

#[test]
fn several_files_give_the_same_result_at_every_jobs_count_and_minus_o_leaves_them_untouched() {
    let env = TestEnv::new();
    two_file_program(&env);
    let mut results = Vec::new();
    for (jobs, out) in [("1", "out1"), ("3", "out3")] {
        let run = env.run([
            "-q",
            "-j",
            jobs,
            "--temp-dir",
            ".",
            "--test",
            "./t.sh",
            "-o",
            out,
            "main.c",
            "point.h",
        ]);
        run.expect_code(0);
        results.push(snapshot(&env.join(out)));
    }
    assert_same("-j1 and -j3 results", &results[0], &results[1]);
    assert_eq!(results[0].len(), 2, "{:?}", results[0].keys());
    assert_same("main.c", SOURCE.as_bytes(), &env.read("main.c"));
    assert!(!env.exists("main.c.orig") && !env.exists("point.h.orig"));
}

/// A small project without a Makefile: the test compiles every `.c` file in its directory.
fn project(env: &TestEnv) -> BTreeMap<String, Vec<u8>> {
    env.write("proj/main.c", SOURCE.replace("point.h", "inc/point.h"));
    env.write("proj/inc/point.h", HEADER);
    env.write(
        "proj/util.c",
        "int add(int a, int b) { return a + b; }\nint sub(int a, int b) { return a - b; }\n",
    );
    env.write(
        "proj/NOTES.txt",
        "build: gcc *.c\n(nothing here matters)\n[todo] {fix the label}\n",
    );
    env.write("proj/blob.bin", [0u8, 1, 2, 0, 255, 7, 0, 9]);
    snapshot(&env.join("proj"))
}

#[test]
fn a_directory_is_reduced_with_the_test_running_in_the_candidate_directory() {
    let env = TestEnv::new();
    let original = project(&env);
    let script = env.script(
        "t.sh",
        &format!("[ \"$PWD\" = \"$1\" ] || exit 1\ngcc -c -Wall *.c 2>&1 | {WARNING}"),
    );
    let run = env.run([
        "-j2",
        "--temp-dir",
        ".",
        "--stats-json",
        "stats.json",
        "--test",
        "./t.sh",
        "proj",
    ]);
    run.expect_code(0).expect_stderr_contains(&[
        "original kept as",
        "proj.orig",
        "util.c: 80 -> 0 bytes (perses)",
        "blob.bin: 8 -> 0 bytes (ddmin)",
        "NOTES.txt:",
    ]);
    assert_same("proj.orig", &original, &snapshot(&env.join("proj.orig")));
    let now = snapshot(&env.join("proj"));
    assert_same(
        "the files left",
        &original.keys().collect::<Vec<_>>(),
        &now.keys().collect::<Vec<_>>(),
    );
    assert!(total(&now) * 4 < total(&original), "{now:?}");
    assert!(passes_dir(&env, &script, &env.join("proj")));
    let stats: serde_json::Value =
        serde_json::from_slice(&env.read("stats.json")).expect("valid JSON");
    let files = stats["files"].as_array().expect("per-file sizes");
    assert_eq!(files.len(), 5);
    let util = files.iter().find(|f| f["path"] == "util.c").unwrap();
    assert_eq!(util["original_bytes"], 80);
    assert_eq!(util["final_bytes"], 0);
    assert_eq!(stats["final_bytes"].as_u64().unwrap() as usize, total(&now));
}

#[test]
fn delete_files_removes_the_files_the_test_does_not_need() {
    let env = TestEnv::new();
    env.write("d/keep.txt", lines_with(30, 11, "needle"));
    env.write("d/sub/noise.txt", lines_with(20, 3, "other"));
    env.write("d/more.txt", "unrelated\n");
    env.script("t.sh", "grep -q needle keep.txt");
    let run = env.run([
        "-q",
        "--temp-dir",
        ".",
        "--delete-files",
        "--stats-json",
        "s.json",
        "--test",
        "./t.sh",
        "d",
    ]);
    run.expect_code(0);
    let now = snapshot(&env.join("d"));
    let want: BTreeMap<String, Vec<u8>> = [
        ("keep.txt".to_string(), b"needle\n".to_vec()),
        ("sub".to_string(), b"<dir>".to_vec()),
    ]
    .into();
    assert_same("the directory", &want, &now);
    let stats: serde_json::Value = serde_json::from_slice(&env.read("s.json")).unwrap();
    let deleted: Vec<bool> = stats["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["deleted"].as_bool().unwrap())
        .collect();
    assert_eq!(deleted, [false, true, true], "{stats}");
    // without the flag the files stay, emptied
    env.write("e/keep.txt", "needle\n");
    env.write("e/more.txt", "unrelated\n");
    env.run(["-q", "--temp-dir", ".", "--test", "./t.sh", "e"])
        .expect_code(0);
    assert_eq!(env.read("e/more.txt"), b"");
}

/// The tests a run made, from its `--stats-json` record.
fn tests_run(env: &TestEnv, stats: &str) -> u64 {
    let stats: serde_json::Value = serde_json::from_slice(&env.read(stats)).unwrap();
    stats["tests"].as_u64().expect("a test count")
}

#[test]
fn a_file_the_test_does_not_read_costs_one_test_and_a_settled_file_is_not_reduced_again() {
    let env = TestEnv::new();
    let noise: String = (0..60)
        .map(|i| format!("static int helper{i}(int x) {{ return x * {i} + 1; }}\n"))
        .collect();
    env.write("d/keep.txt", lines_with(30, 11, "needle"));
    env.write(
        "d/noise.c",
        format!("{noise}int main(void) {{ return helper3(1); }}\n"),
    );
    env.write("one/keep.txt", lines_with(30, 11, "needle"));
    env.script("t.sh", "grep -q needle keep.txt");
    let common = ["-j1", "-q", "--temp-dir", ".", "--no-persistent-cache"];
    let run = |out: &str, stats: &str, input: &str| {
        let mut args = common.to_vec();
        args.extend(["--stats-json", stats, "--test", "./t.sh", "-o", out, input]);
        env.run(args).expect_code(0);
    };
    run("alone.txt", "alone.json", "one/keep.txt");
    run("set", "set.json", "d");
    assert_eq!(env.read("set/keep.txt"), env.read("alone.txt"));
    assert_eq!(env.read("set/noise.c"), b"");
    // the noise goes in one test before keep.txt is reduced, which is then reduced as it
    // would be alone; the second round finds both files as their visits left them
    assert_eq!(
        tests_run(&env, "set.json"),
        tests_run(&env, "alone.json") + 1
    );
}

#[test]
fn a_killed_or_interrupted_run_leaves_a_set_the_test_accepted() {
    let env = TestEnv::new();
    let a = lines_with(120, 77, "needle");
    let b = lines_with(120, 31, "pin");
    // the test needs both files and takes a moment, so kills land mid-run
    let script = env.script(
        "t.sh",
        "sleep 0.01; grep -q needle a.txt && grep -q pin b.txt && [ \"$(wc -l < a.txt)\" -le \"$(wc -l < b.txt)\" ]",
    );
    for (round, delay_ms) in [60u64, 150, 260, 400].into_iter().enumerate() {
        let _ = fs::remove_dir_all(env.join("d"));
        let _ = fs::remove_dir_all(env.join("d.orig"));
        env.write("d/a.txt", &a);
        env.write("d/b.txt", &b);
        let mut child = env
            .command(["-q", "-j2", "--algo", "ddmin", "--temp-dir", ".", "--test"])
            .arg(&script)
            .arg("d")
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let signal = if round % 2 == 0 {
            libc::SIGKILL
        } else {
            libc::SIGINT
        };
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        if signal == libc::SIGINT {
            assert!(
                matches!(status.code(), Some(130) | Some(0)),
                "round {round}: {status:?}"
            );
        }
        assert!(
            passes_dir(&env, &script, &env.join("d")),
            "round {round}: the set left behind was never accepted: {:?}",
            snapshot(&env.join("d"))
        );
        if env.exists("d.orig") {
            let orig = snapshot(&env.join("d.orig"));
            assert_eq!(orig["a.txt"], a.as_bytes(), "round {round}");
            assert_eq!(orig["b.txt"], b.as_bytes(), "round {round}");
        }
    }
}

#[test]
fn bad_multi_file_inputs_are_one_line_errors_that_touch_nothing() {
    let env = TestEnv::new();
    env.script("t.sh", "exit 0");
    env.write("outside.c", "int x;\n");
    env.write("linked/a.c", "int a;\n");
    std::os::unix::fs::symlink("../outside.c", env.join("linked/b.c")).unwrap();
    env.write("fifo/a.c", "int a;\n");
    let fifo = std::ffi::CString::new(env.join("fifo/pipe").to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    fs::create_dir_all(env.join("empty/sub")).unwrap();
    env.write("one.c", "int one;\n");
    let before = snapshot(&env.path());
    let cases: [(&[&str], i32, &str); 7] = [
        (&["linked"], 4, "symlinks are not followed"),
        (&["fifo"], 4, "is not a regular file"),
        (&["empty"], 4, "holds no files"),
        (
            &["--delete-files", "one.c"],
            2,
            "--delete-files needs several files",
        ),
        (
            &["-o", "-", "linked/a.c", "one.c"],
            2,
            "-o - cannot take several files",
        ),
        (&["one.c", "linked"], 2, "give one directory alone"),
        (&["one.c", "./one.c"], 2, "is named twice"),
    ];
    for (args, code, text) in cases {
        let mut all = vec!["--test", "./t.sh"];
        all.extend_from_slice(args);
        env.run(&all)
            .expect_code(code)
            .expect_one_line_error()
            .expect_stderr_contains(&[text]);
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        env.write("locked/a.c", "int a;\n");
        fs::set_permissions(
            env.join("locked/a.c"),
            std::os::unix::fs::PermissionsExt::from_mode(0o000),
        )
        .unwrap();
        env.run(["--test", "./t.sh", "locked"])
            .expect_code(4)
            .expect_stderr_contains(&["permission denied"]);
        let _ = fs::remove_dir_all(env.join("locked"));
    }
    assert_same("the test directory", &before, &snapshot(&env.path()));
}

#[test]
fn an_uninteresting_set_or_a_different_old_backup_stops_before_any_change() {
    let env = TestEnv::new();
    env.write("d/a.txt", "hello\n");
    env.script("no.sh", "exit 1");
    env.script("yes.sh", "grep -q hello a.txt");
    let before = snapshot(&env.path());
    env.run(["--test", "./no.sh", "d"])
        .expect_code(3)
        .expect_stderr_contains(&["the original files are not interesting", "cp -R"]);
    assert_same("after exit 3", &before, &snapshot(&env.path()));
    env.write("d.orig/a.txt", "an older original\n");
    env.run(["--test", "./yes.sh", "d"])
        .expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["d.orig already exists and differs"]);
    assert_eq!(env.read("d/a.txt"), b"hello\n");
    env.run(["-q", "--force", "--test", "./yes.sh", "d"])
        .expect_code(0);
    assert_eq!(env.read("d.orig.1/a.txt"), b"an older original\n");
    assert_eq!(env.read("d.orig/a.txt"), b"hello\n");
    assert!(String::from_utf8_lossy(&env.read("d/a.txt")).contains("hello"));
}
