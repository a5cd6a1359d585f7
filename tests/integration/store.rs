//! What `reduce` keeps outside the user's files: the run directories under the temp directory
//! and the persistent cache. Nothing there may delete, clobber or trust what `reduce` did not
//! make itself; and resume must agree with what is on disk.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{TestEnv, assert_bytes, lines_with, wait_at_most};

/// A small input, its `needle` test, and the arguments of a quick `-o out` run.
fn quick(env: &TestEnv) -> Vec<&'static str> {
    env.write("in.txt", lines_with(8, 3, "needle"));
    env.script("t.sh", "grep -q needle \"$1\"");
    vec!["-q", "--algo", "ddmin", "-t", "./t.sh", "-o", "out"]
}

#[test]
fn the_stale_run_sweep_keeps_a_users_directory_that_looks_like_a_run_directory() {
    let env = TestEnv::new();
    let mut args = quick(&env);
    // directories of the user's, with a free `lock` file like a killed run's: one with the
    // prefix, one with the prefix and a name of the random pattern, one with a pid inside
    for (dir, lock) in [
        ("reduce-notes", ""),
        ("reduce-a1B2c3", ""),
        ("reduce-Zz9Yy8", "12345\n"),
    ] {
        env.write(format!("{dir}/lock"), lock);
        env.write(format!("{dir}/important.txt"), "x\n");
    }
    args.extend(["--temp-dir", ".", "in.txt"]);
    env.run(&args).expect_code(0);
    assert_bytes("out", b"needle\n", &env.read("out"));
    for dir in ["reduce-notes", "reduce-a1B2c3", "reduce-Zz9Yy8"] {
        assert_bytes(
            &format!("{dir}/important.txt"),
            b"x\n",
            &fs::read(env.join(dir).join("important.txt")).unwrap_or_default(),
        );
    }
}

/// Runs `reduce` in place on in.txt with the test `-- ./t.sh @@` (or `-c "$PWD/t.sh {}"`),
/// then edits t.sh to `stricter` and runs the very same command again: it must not resume (the
/// first run's results are not this test's), exit with `code` and leave in.txt and in.txt.orig
/// as they were.
fn edit_the_test_between_runs(dash_c: bool, stricter: &str, code: i32) {
    let env = TestEnv::new();
    let original = lines_with(8, 3, "needle");
    env.write("in.txt", &original);
    let script = env.script("t.sh", "grep -q needle \"$1\"");
    let command = format!("{} {{}}", script.display());
    let mut args = vec!["--algo", "ddmin", "-j1", "in.txt"];
    match dash_c {
        true => args.extend(["-c", &command]),
        false => args.extend(["--", "./t.sh", "@@"]),
    }
    env.run(&args).expect_code(0);
    assert_bytes("the first result", b"needle\n", &env.read("in.txt"));
    env.script("t.sh", stricter);
    let run = env.run(&args);
    assert!(
        !run.stderr.contains("reduce: resuming"),
        "{args:?}: {}",
        run.stderr
    );
    run.expect_code(code);
    assert_bytes("in.txt", b"needle\n", &env.read("in.txt"));
    assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));
}

#[test]
fn editing_a_dash_c_or_dashdash_test_between_runs_does_not_resume() {
    // stricter, and the first run's result is not interesting any more: the original's check
    // of in.txt says so (3); stricter, and the result still passes: the backup's refusal (2)
    let rejects = "grep -q needle \"$1\" && grep -qx 'filler line 1' \"$1\"";
    let accepts = "grep -q needle \"$1\" && ! grep -q forbidden \"$1\"";
    for (stricter, code) in [(rejects, 3), (accepts, 2)] {
        edit_the_test_between_runs(false, stricter, code);
        edit_the_test_between_runs(true, stricter, code);
    }
}

/// The lines of `stderr` that warn about the persistent cache.
fn cache_warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("cannot use the persistent cache"))
        .collect()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A directory `victim/` of three files the cache must never touch.
fn victim(env: &TestEnv) -> PathBuf {
    for name in ["a", "b", "c"] {
        env.write(format!("victim/{name}"), "precious\n");
    }
    env.join("victim")
}

#[test]
fn a_symlinked_cache_directory_is_refused_and_what_it_points_to_is_kept() {
    for link in ["verdicts", "runs", ""] {
        let env = TestEnv::new();
        let mut args = quick(&env);
        args.retain(|a| *a != "-q");
        let victim = victim(&env);
        let cache = env.join(".cache/reduce");
        match link {
            "" => {
                fs::create_dir_all(env.join(".cache")).unwrap();
                symlink(&victim, &cache).unwrap();
            }
            sub => {
                fs::create_dir_all(&cache).unwrap();
                symlink(&victim, cache.join(sub)).unwrap();
            }
        }
        args.extend(["--cache-size", "1", "in.txt"]);
        let run = env.run(&args);
        run.expect_code(0);
        assert_eq!(
            cache_warnings(&run.stderr).len(),
            1,
            "{link}: {}",
            run.stderr
        );
        assert_bytes("out", b"needle\n", &env.read("out"));
        assert_eq!(names(&victim), ["a", "b", "c"], "{link}");
    }
}

#[test]
fn a_symlinked_resume_record_is_refused_and_its_target_kept() {
    let env = TestEnv::new();
    let original = lines_with(8, 3, "needle");
    env.write("in.txt", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    let args = ["--algo", "ddmin", "-t", "./t.sh", "in.txt"];
    env.run(args).expect_code(0);
    env.write("precious.txt", "precious\n");
    let runs = env.join(".cache/reduce/runs");
    for entry in fs::read_dir(&runs).unwrap() {
        let path = entry.unwrap().path();
        fs::remove_file(&path).unwrap();
        symlink(env.join("precious.txt"), &path).unwrap();
    }
    // a new reduction of in.txt, from scratch
    env.write("in.txt", &original);
    fs::remove_file(env.join("in.txt.orig")).unwrap();
    let run = env.run(args);
    run.expect_code(0);
    assert_eq!(cache_warnings(&run.stderr).len(), 1, "{}", run.stderr);
    assert_bytes("in.txt", b"needle\n", &env.read("in.txt"));
    assert_bytes("precious.txt", b"precious\n", &env.read("precious.txt"));
}

#[test]
fn a_symlinked_or_foreign_verdict_file_is_refused() {
    let env = TestEnv::new();
    let mut args = quick(&env);
    args.retain(|a| *a != "-q");
    args.push("in.txt");
    env.run(&args).expect_code(0);
    let verdicts = env.join(".cache/reduce/verdicts");
    let file = verdicts.join(&names(&verdicts)[0]);
    env.write("precious.txt", "precious\n");
    fs::remove_file(&file).unwrap();
    symlink(env.join("precious.txt"), &file).unwrap();
    let run = env.run(&args);
    run.expect_code(0);
    assert_eq!(cache_warnings(&run.stderr).len(), 1, "{}", run.stderr);
    assert_bytes("precious.txt", b"precious\n", &env.read("precious.txt"));
    // a directory of the cache that another user owns (only root can make one to test)
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        fs::remove_file(&file).unwrap();
        let c = std::ffi::CString::new(verdicts.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::chown(c.as_ptr(), 4242, 4242) }, 0);
        let run = env.run(&args);
        run.expect_code(0);
        assert_eq!(cache_warnings(&run.stderr).len(), 1, "{}", run.stderr);
        assert!(
            names(&verdicts).is_empty(),
            "wrote into another user's directory"
        );
    }
}

#[test]
fn eviction_removes_only_the_caches_own_files() {
    let env = TestEnv::new();
    let mut args = quick(&env);
    let verdicts = env.join(".cache/reduce/verdicts");
    env.write(".cache/reduce/verdicts/notes.txt", "mine\n");
    env.write(".cache/reduce/verdicts/0123.v1", "mine\n");
    fs::create_dir(verdicts.join(format!("{:032x}.v1", 7))).unwrap();
    args.extend(["--cache-size", "1", "in.txt"]);
    env.run(&args).expect_code(0);
    let left = names(&verdicts);
    for name in ["notes.txt", "0123.v1"] {
        assert!(left.iter().any(|n| n == name), "{name} removed: {left:?}");
    }
}

#[test]
fn the_cache_directories_are_private() {
    let env = TestEnv::new();
    let mut args = quick(&env);
    args.push("in.txt");
    env.run(&args).expect_code(0);
    let mode = |p: &str| fs::metadata(env.join(p)).unwrap().permissions().mode() & 0o777;
    for dir in [
        ".cache/reduce",
        ".cache/reduce/verdicts",
        ".cache/reduce/runs",
    ] {
        assert_eq!(mode(dir), 0o700, "{dir}");
    }
    // a directory of ours that others may write to is tightened, and used
    fs::set_permissions(env.join(".cache/reduce"), fs::Permissions::from_mode(0o777)).unwrap();
    args.retain(|a| *a != "-q");
    let run = env.run(&args);
    run.expect_code(0);
    assert!(cache_warnings(&run.stderr).is_empty(), "{}", run.stderr);
    assert_eq!(mode(".cache/reduce"), 0o700);
}

#[test]
fn a_resume_runs_the_test_on_its_resume_point_before_trusting_the_record() {
    let env = TestEnv::new();
    let original = lines_with(8, 3, "needle");
    env.write("in.txt", &original);
    // the test reads what to look for from a file its identity does not cover
    let pattern = env.write("pattern", "needle");
    env.script(
        "t.sh",
        &format!("grep -q \"$(cat {})\" \"$1\"", pattern.display()),
    );
    let args = ["--algo", "ddmin", "-j1", "-t", "./t.sh", "in.txt"];
    env.run(args).expect_code(0);
    assert_bytes("the first result", b"needle\n", &env.read("in.txt"));
    // the record says in.txt is a result of this command; the test no longer agrees
    env.write("pattern", "filler line 1");
    let run = env.run(args);
    assert!(!run.stderr.contains("reduce: resuming"), "{}", run.stderr);
    run.expect_code(2)
        .expect_stderr_contains(&["not resuming", "in.txt.orig", "--force"]);
    let warning: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("not resuming"))
        .collect();
    assert_eq!(warning.len(), 1, "{}", run.stderr);
    assert!(
        warning[0].starts_with("reduce: warning: "),
        "{}",
        run.stderr
    );
    assert_bytes("in.txt", b"needle\n", &env.read("in.txt"));
    assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));
    // with --force, as without a record: in.txt is the original, and it is not interesting
    let mut forced = args.to_vec();
    forced.push("--force");
    env.run(&forced).expect_code(3);
    assert_bytes("in.txt", b"needle\n", &env.read("in.txt"));
    assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));
}

#[test]
fn resume_records_are_under_the_cache_size_and_the_current_one_is_kept() {
    let env = TestEnv::new();
    env.script("t.sh", "grep -q needle \"$1\"");
    for name in ["a.txt", "b.txt", "c.txt", "d.txt"] {
        env.write(name, lines_with(8, 3, "needle"));
    }
    let run = |name: &str, extra: &[&str]| {
        let mut args = vec!["-q", "--algo", "ddmin", "-t", "./t.sh"];
        args.extend_from_slice(extra);
        args.push(name);
        env.run(&args).expect_code(0);
    };
    for name in ["a.txt", "b.txt", "c.txt"] {
        run(name, &[]);
    }
    let runs = env.join(".cache/reduce/runs");
    assert_eq!(names(&runs).len(), 6, "{:?}", names(&runs));
    // a bound below everything: only what this run uses stays, its record whole
    run("d.txt", &["--cache-size", "1"]);
    let left = names(&runs);
    assert_eq!(left.len(), 2, "{left:?}");
    let stem = |n: &String| n.split('.').next().unwrap().to_string();
    assert_eq!(stem(&left[0]), stem(&left[1]), "{left:?}");
    assert!(
        left[0].ends_with(".commits") && left[1].ends_with(".json"),
        "{left:?}"
    );
    assert_eq!(names(&env.join(".cache/reduce/verdicts")).len(), 1);
    // and the record kept is d.txt's: running its command again resumes
    let again = env.run([
        "--algo",
        "ddmin",
        "-t",
        "./t.sh",
        "--cache-size",
        "1",
        "d.txt",
    ]);
    again
        .expect_code(0)
        .expect_stderr_contains(&["reduce: resuming"]);
    assert_eq!(names(&runs), left);
}

#[test]
fn reducing_a_finished_result_with_another_test_says_the_earlier_run_finished() {
    let env = TestEnv::new();
    let original = lines_with(8, 3, "needle");
    env.write("in.txt", &original);
    env.script("t.sh", "grep -q needle \"$1\"");
    env.run(["-q", "--algo", "ddmin", "-t", "./t.sh", "in.txt"])
        .expect_code(0);
    assert_bytes("the first result", b"needle\n", &env.read("in.txt"));
    // another test, which the result passes: a further reduction of the result
    env.script("t2.sh", "grep -q needle \"$1\" && ! grep -q zzz \"$1\"");
    let args = ["--algo", "ddmin", "-t", "./t2.sh", "in.txt"];
    let run = env.run(args);
    run.expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&[
            "in.txt.orig is the original of an earlier run that finished",
            "in.txt is its result",
            "--force",
        ]);
    assert!(!run.stderr.contains("interrupted"), "{}", run.stderr);
    assert_bytes("in.txt", b"needle\n", &env.read("in.txt"));
    assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));
    // as it says: --force keeps the first original as in.txt.orig.1
    let mut forced = args.to_vec();
    forced.push("--force");
    env.run(&forced).expect_code(0);
    assert_bytes(
        "in.txt.orig.1",
        original.as_bytes(),
        &env.read("in.txt.orig.1"),
    );
    assert_bytes("in.txt.orig", b"needle\n", &env.read("in.txt.orig"));
}

/// Starts `reduce ARGS`, sends SIGINT once `progressed` holds (checked every 10 ms, at most 60
/// s), and returns its exit code and stderr.
fn interrupt_when(
    env: &TestEnv,
    args: &[&str],
    progressed: impl Fn() -> bool,
) -> (Option<i32>, String) {
    let mut child = env
        .command(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut pipe, &mut text).unwrap();
        text
    });
    let give_up = Instant::now() + Duration::from_secs(60);
    while !progressed() {
        assert!(Instant::now() < give_up, "no progress: {args:?}");
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before the interrupt: {args:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill has no memory-safety preconditions; our own child, not yet reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = wait_at_most(&mut child, Duration::from_secs(20));
    (status.code(), reader.join().unwrap())
}

/// 60 lines, one needle, a test slow enough to interrupt (of a file or a directory).
fn slow(env: &TestEnv) -> String {
    let original = lines_with(60, 37, "needle");
    env.write("in.txt", &original);
    env.script("t.sh", "sleep 0.05; grep -rq needle \"$1\"");
    original
}

#[test]
fn an_interrupted_summary_says_how_to_resume_only_when_the_run_can_resume() {
    let base = ["--algo", "ddmin", "-j1", "-t", "./t.sh"];
    // in place with the persistent cache: the same command resumes, and the summary says so
    let env = TestEnv::new();
    let original = slow(&env);
    let mut args = base.to_vec();
    args.push("in.txt");
    let (code, stderr) = interrupt_when(&env, &args, || env.read("in.txt") != original.as_bytes());
    assert_eq!(code, Some(130), "{stderr}");
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains("resume")).collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].starts_with("reduce: ") && said[0].contains("same command"),
        "{stderr}"
    );
    let again = env.run(&args);
    again
        .expect_code(0)
        .expect_stderr_contains(&["reduce: resuming"]);
    // it cannot: -o, or no persistent cache, or many files (no resume yet): not a word of it
    let cannot: [&[&str]; 3] = [
        &["-o", "out", "in.txt"],
        &["--no-persistent-cache", "in.txt"],
        &["dir"],
    ];
    for extra in cannot {
        let env = TestEnv::new();
        let original = slow(&env);
        env.write("dir/a.txt", &original);
        env.write("dir/b.txt", "b\n");
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let changed = || match extra[0] {
            "-o" => fs::read(env.join("out")).is_ok_and(|o| o != original.as_bytes()),
            "dir" => env.exists("dir.orig") && env.read("dir/a.txt") != original.as_bytes(),
            _ => env.read("in.txt") != original.as_bytes(),
        };
        let (code, stderr) = interrupt_when(&env, &args, changed);
        assert_eq!(code, Some(130), "{extra:?}: {stderr}");
        assert!(stderr.contains("interrupted"), "{extra:?}: {stderr}");
        assert!(!stderr.contains("resum"), "{extra:?}: {stderr}");
    }
}

#[test]
fn a_resumed_run_under_max_attempts_reports_the_file_on_disk() {
    let env = TestEnv::new();
    let original = slow(&env);
    let args = ["--algo", "ddmin", "-j1", "-t", "./t.sh", "in.txt"];
    // interrupted once in.txt is down to a quarter
    let (code, stderr) = interrupt_when(&env, &args, || {
        env.read("in.txt").len() * 4 < original.len()
    });
    assert_eq!(code, Some(130), "{stderr}");
    let interrupted = env.read("in.txt");
    for budget in ["2", "3", "5"] {
        env.write("in.txt", &interrupted);
        let mut again = args.to_vec();
        again.extend(["--max-attempts", budget, "--stats-json", "s.json"]);
        let run = env.run(&again);
        run.expect_code(0)
            .expect_stderr_contains(&["reduce: resuming"]);
        let on_disk = env.read("in.txt");
        let s: serde_json::Value = serde_json::from_slice(&env.read("s.json")).unwrap();
        assert_eq!(
            s["final_bytes"].as_u64(),
            Some(on_disk.len() as u64),
            "--max-attempts {budget}: the report is not the file on disk\n{}",
            run.stderr
        );
        let summary = format!("-> {} bytes", on_disk.len());
        assert!(run.stderr.contains(&summary), "{budget}: {}", run.stderr);
        assert!(
            on_disk.len() <= interrupted.len(),
            "{budget}: the disk lost the smaller result"
        );
        assert!(
            env.passes(&env.join("t.sh"), "in.txt", &on_disk),
            "{budget}"
        );
    }
    // a budget of one run leaves none to check the resume point with: no resume, and the
    // budget holds (the refusal of in.txt.orig, as without a record)
    env.write("in.txt", &interrupted);
    let mut one = args.to_vec();
    one.extend(["--max-attempts", "1"]);
    let run = env.run(&one);
    run.expect_code(2)
        .expect_stderr_contains(&["not resuming", "--max-attempts 1", "in.txt.orig"]);
    assert_bytes("in.txt", &interrupted, &env.read("in.txt"));
    assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));
}
