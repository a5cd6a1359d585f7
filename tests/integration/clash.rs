//! Nothing lost, round three: every entry point (one file, several files, a directory, stdin)
//! checks the files it writes against every file it reads or keeps before it writes anything,
//! and the run locks cover what they guard. Each test reproduces one way a run used to destroy
//! or clobber a file.

use std::fs;
use std::os::unix::fs::{MetadataExt, symlink};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{TestEnv, assert_bytes, lines_with, wait_at_most};

/// Two files with a needle each, a test that wants both needles, and a directory `proj/` with
/// the same two files and a notes file.
fn setup() -> TestEnv {
    let env = TestEnv::new();
    env.write("a.txt", lines_with(6, 2, "needle-a"));
    env.write("b.txt", lines_with(6, 4, "needle-b"));
    env.script(
        "t.sh",
        "grep -q needle-a \"$PWD/a.txt\" && grep -q needle-b \"$PWD/b.txt\"",
    );
    env.write("proj/a.txt", lines_with(6, 2, "needle-a"));
    env.write("proj/notes.txt", "my notes, kept nowhere else\n");
    env.script("td.sh", "grep -rq needle-a \"$1\"");
    env
}

/// Runs reduce with `args`, expects a one-line usage refusal (exit 2) and that `files` still
/// hold what they held before.
#[track_caller]
fn refused(env: &TestEnv, args: &[&str], files: &[&str], needle: &str) {
    let before: Vec<Vec<u8>> = files.iter().map(|f| env.read(f)).collect();
    env.run(args)
        .expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&[needle]);
    for (f, was) in files.iter().zip(&before) {
        assert_bytes(f, was, &env.read(f));
    }
}

#[test]
fn many_files_refuse_a_stats_file_that_is_an_input_a_backup_or_the_script() {
    let env = setup();
    let base = ["-q", "--algo", "ddmin", "-t", "./t.sh"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v: Vec<&str> = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    // the stats file is one of the inputs
    refused(
        &env,
        &with(&["-o", "out", "--stats-json", "a.txt", "a.txt", "b.txt"]),
        &["a.txt", "b.txt"],
        "the input itself",
    );
    assert!(!env.exists("out"));
    // the stats file is a backup the run is about to write
    refused(
        &env,
        &with(&["--stats-json", "a.txt.orig", "a.txt", "b.txt"]),
        &["a.txt", "b.txt"],
        "same file",
    );
    assert!(!env.exists("a.txt.orig") && !env.exists("b.txt.orig"));
    // the stats file is the test script
    refused(
        &env,
        &with(&["--stats-json", "t.sh", "a.txt", "b.txt"]),
        &["t.sh", "a.txt"],
        "same file",
    );
}

#[test]
fn a_directory_run_refuses_a_stats_file_inside_the_directory_or_its_backup() {
    let env = setup();
    for extra in [&[][..], &["-o", "out"][..]] {
        let mut args = vec!["-q", "-t", "./td.sh", "--stats-json", "proj/notes.txt"];
        args.extend_from_slice(extra);
        args.push("proj");
        refused(&env, &args, &["proj/notes.txt", "proj/a.txt"], "inside");
        assert!(!env.exists("proj.orig") && !env.exists("out"));
    }
    // a backup from an earlier run: --force moves it aside and writes a fresh one, which the
    // stats file must not then overwrite
    env.write("proj.orig/a.txt", "an earlier original\n");
    refused(
        &env,
        &[
            "-q",
            "--force",
            "-t",
            "./td.sh",
            "--stats-json",
            "proj.orig/a.txt",
            "proj",
        ],
        &["proj.orig/a.txt", "proj/a.txt", "proj/notes.txt"],
        "inside",
    );
    assert!(!env.exists("proj.orig.1"));
}

#[test]
fn an_input_that_is_another_inputs_backup_is_refused() {
    let env = setup();
    env.write("a.txt.orig", lines_with(6, 2, "needle-a"));
    env.script(
        "ta.sh",
        "grep -q needle-a \"$PWD/a.txt\" && grep -q needle-a \"$PWD/a.txt.orig\"",
    );
    refused(
        &env,
        &[
            "-q",
            "--force",
            "--algo",
            "ddmin",
            "-t",
            "./ta.sh",
            "a.txt",
            "a.txt.orig",
        ],
        &["a.txt", "a.txt.orig"],
        "backup",
    );
    assert!(!env.exists("a.txt.orig.1") && !env.exists("a.txt.orig.orig"));
}

/// `reduce ... -o - --stats-json /dev/stdout > min.txt`, run through a shell so that stdout is
/// the file.
fn shell_run(env: &TestEnv, line: &str) -> std::process::Output {
    let bin = crate::util::reduce_bin();
    Command::new("sh")
        .arg("-c")
        .arg(line.replace("reduce ", &format!("{} ", bin.display())))
        .current_dir(env.path())
        .env("TMPDIR", env.path())
        .env("XDG_CACHE_HOME", env.join(".cache"))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn the_stats_file_and_the_result_cannot_share_stdout() {
    let env = setup();
    env.script("t1.sh", "grep -q needle-a \"$1\"");
    let out = shell_run(
        &env,
        "reduce -q --algo ddmin -t ./t1.sh -o - --stats-json /dev/stdout a.txt > min.txt",
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stdout"), "{err}");
    assert_eq!(env.read("min.txt"), b"", "nothing written to stdout");
    // the same through a pipe
    let out = shell_run(
        &env,
        "reduce -q --algo ddmin -t ./t1.sh -o - --stats-json /dev/stdout a.txt | cat > piped.txt",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stdout"), "{err}");
    assert_eq!(env.read("piped.txt"), b"");
}

#[test]
fn a_stats_file_on_stdout_is_written_to_stdout_and_never_renamed_over_it() {
    let env = setup();
    env.script("t1.sh", "grep -q needle-a \"$1\"");
    // stdout is a regular file: the record goes into it, the result to -o
    env.write("min.txt", "");
    let ino = fs::metadata(env.join("min.txt")).unwrap().ino();
    let out = shell_run(
        &env,
        "reduce -q --algo ddmin -t ./t1.sh -o out.txt --stats-json /dev/stdout a.txt >> min.txt",
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(fs::metadata(env.join("min.txt")).unwrap().ino(), ino);
    let json: serde_json::Value = serde_json::from_slice(&env.read("min.txt")).unwrap();
    assert_eq!(json["final_bytes"], 9);
    assert_bytes("out.txt", b"needle-a\n", &env.read("out.txt"));
    // stdout is a pipe: the record goes through it, and the run succeeds
    let out = shell_run(
        &env,
        "reduce -q --algo ddmin -t ./t1.sh -o out2.txt --stats-json /dev/stdout a.txt | cat > piped.json",
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&env.read("piped.json")).unwrap();
    assert_eq!(json["final_bytes"], 9);
}

#[test]
fn dash_o_naming_the_file_stdin_reads_is_refused() {
    let env = setup();
    env.script("t1.sh", "grep -q needle-a \"$1\"");
    let out = shell_run(&env, "reduce -q --algo ddmin -t ./t1.sh -o a.txt - < a.txt");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the input itself"), "{err}");
    assert_bytes(
        "a.txt",
        lines_with(6, 2, "needle-a").as_bytes(),
        &env.read("a.txt"),
    );
    let out = shell_run(
        &env,
        "reduce -q --algo ddmin -t ./t1.sh -o out.txt --stats-json a.txt - < a.txt",
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_bytes(
        "a.txt",
        lines_with(6, 2, "needle-a").as_bytes(),
        &env.read("a.txt"),
    );
}

#[test]
fn a_symlink_planted_at_the_lock_path_is_not_written_through() {
    let env = setup();
    env.script("t1.sh", "grep -q needle-a \"$1\"");
    env.write("victim.txt", "precious\n");
    symlink("victim.txt", env.join(".a.txt.reduce-lock")).unwrap();
    let run = env.run(["-q", "--algo", "ddmin", "-t", "./t1.sh", "a.txt"]);
    assert_bytes("victim.txt", b"precious\n", &env.read("victim.txt"));
    run.expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["symlink"]);
    assert_bytes(
        "a.txt",
        lines_with(6, 2, "needle-a").as_bytes(),
        &env.read("a.txt"),
    );
    assert!(
        fs::symlink_metadata(env.join(".a.txt.reduce-lock"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// Starts an in-place run with a slow test and waits until it holds its lock.
fn start_slow(env: &TestEnv, args: &[&str], lock: &str) -> std::process::Child {
    let child = env
        .command(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let give_up = Instant::now() + Duration::from_secs(20);
    while !env.exists(lock) {
        assert!(
            Instant::now() < give_up,
            "the first run never took its lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

#[test]
fn a_directory_run_and_a_run_on_one_of_its_files_exclude_each_other() {
    let env = setup();
    env.script("slow.sh", "sleep 0.5; grep -rq needle-a \"$1\"");
    // the file first, then the directory
    let mut first = start_slow(
        &env,
        &[
            "-q",
            "--algo",
            "ddmin",
            "-j1",
            "-t",
            "./slow.sh",
            "proj/a.txt",
        ],
        "proj/.a.txt.reduce-lock",
    );
    env.run(["-q", "-j1", "-t", "./slow.sh", "proj"])
        .expect_code(2)
        .expect_stderr_contains(&["already working"]);
    unsafe { libc::kill(first.id() as i32, libc::SIGTERM) };
    wait_at_most(&mut first, Duration::from_secs(30));
    assert!(!env.exists("proj.orig"));
    // the directory first, then one of its files
    fs::remove_file(env.join("proj/a.txt")).unwrap();
    let _ = fs::remove_file(env.join("proj/a.txt.orig"));
    env.write("proj/a.txt", lines_with(6, 2, "needle-a"));
    // (its backup is written once the original passed its test, after the locks)
    let mut first = start_slow(&env, &["-q", "-j1", "-t", "./slow.sh", "proj"], "proj.orig");
    env.run([
        "-q",
        "--algo",
        "ddmin",
        "-j1",
        "-t",
        "./slow.sh",
        "proj/a.txt",
    ])
    .expect_code(2)
    .expect_stderr_contains(&["already working"]);
    assert!(!env.exists("proj/a.txt.orig"));
    unsafe { libc::kill(first.id() as i32, libc::SIGTERM) };
    wait_at_most(&mut first, Duration::from_secs(30));
    let orig = fs::read_dir(env.join("proj.orig")).unwrap();
    let names: Vec<String> = orig
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.contains("reduce-lock")),
        "the backup holds a lock file: {names:?}"
    );
}

#[test]
fn an_in_place_run_on_a_symlink_writes_through_it() {
    let env = setup();
    env.script("t1.sh", "grep -q needle-a \"$1\"");
    symlink("a.txt", env.join("link.txt")).unwrap();
    env.run(["-q", "--algo", "ddmin", "-t", "./t1.sh", "link.txt"])
        .expect_code(0);
    assert!(
        fs::symlink_metadata(env.join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced by a file"
    );
    assert_bytes("a.txt", b"needle-a\n", &env.read("a.txt"));
    assert_bytes(
        "link.txt.orig",
        lines_with(6, 2, "needle-a").as_bytes(),
        &env.read("link.txt.orig"),
    );
}

#[test]
fn the_by_hand_recipe_of_many_files_copies_only_those_files() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    env.write("sub/b.txt", "b\n");
    env.write("unrelated/big.bin", vec![b'x'; 4096]);
    // the test lists what it sees, then says "not interesting"
    let seen = env.join("seen.txt");
    env.script(
        "t.sh",
        &format!("find . -type f | sort > '{}'; exit 1", seen.display()),
    );
    let run = env.run(["-q", "-t", "./t.sh", "a.txt", "sub/b.txt"]);
    run.expect_code(3);
    let recipe = run
        .stderr
        .lines()
        .find(|l| l.trim_start().starts_with("d=$(mktemp -d)"))
        .unwrap_or_else(|| panic!("no recipe in {}", run.stderr))
        .trim()
        .to_string();
    fs::remove_file(&seen).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(&recipe)
        .current_dir(env.path())
        .env("TMPDIR", env.path())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("exit status: 1"),
        "{out:?}"
    );
    assert_bytes(
        "what the recipe copied",
        b"./a.txt\n./sub/b.txt\n",
        &fs::read(&seen).unwrap(),
    );
}
