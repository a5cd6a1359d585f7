//! Nothing lost: every path through the flags keeps the original input, the backup, the test
//! script and the result. Each test reproduces one way `reduce` used to destroy a file.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::process::Stdio;
use std::time::Duration;

use crate::util::{TestEnv, assert_bytes, lines_with, wait_at_most};

/// An input, its `needle` test, and every file a run could damage.
struct Files {
    env: TestEnv,
    original: String,
    script_text: Vec<u8>,
}

impl Files {
    fn new() -> Files {
        let env = TestEnv::new();
        let original = lines_with(8, 3, "needle");
        env.write("in.txt", &original);
        env.script("t.sh", "grep -q needle \"$1\"");
        let script_text = env.read("t.sh");
        Files {
            env,
            original,
            script_text,
        }
    }

    /// The input and the script are as they were.
    #[track_caller]
    fn untouched(&self) {
        assert_bytes("in.txt", self.original.as_bytes(), &self.env.read("in.txt"));
        assert_bytes("t.sh", &self.script_text, &self.env.read("t.sh"));
    }
}

#[test]
fn an_output_path_that_names_another_file_of_the_run_is_refused() {
    let f = Files::new();
    let env = &f.env;
    env.write("in.txt.orig", &f.original);
    fs::hard_link(env.join("in.txt"), env.join("hard.txt")).unwrap();
    symlink(env.join("t.sh"), env.join("script-link")).unwrap();
    fs::create_dir(env.join("sub")).unwrap();
    let cases: &[&[&str]] = &[
        &["--stats-json", "in.txt.orig"],
        &["--stats-json", "./in.txt.orig"],
        &["--stats-json", "in.txt", "-o", "out.txt"],
        &["--stats-json", "sub/../in.txt", "-o", "out.txt"],
        &["--stats-json", "hard.txt", "-o", "out.txt"],
        &["--stats-json", "out.txt", "-o", "out.txt"],
        &["--stats-json", "out.txt", "-o", "./sub/../out.txt"],
        &["--stats-json", "t.sh"],
        &["--stats-json", "script-link"],
        &["-o", "t.sh"],
        &["-o", "script-link"],
        &["-o", "hard.txt"],
        &["-o", "in.txt.orig"],
    ];
    for extra in cases {
        let mut args = vec!["-q", "--algo", "ddmin", "--test", "t.sh"];
        args.extend_from_slice(extra);
        args.push("in.txt");
        env.run(&args)
            .expect_code(2)
            .expect_one_line_error()
            .expect_stderr_contains(&["same file"]);
        f.untouched();
        assert_bytes(
            "in.txt.orig",
            f.original.as_bytes(),
            &env.read("in.txt.orig"),
        );
        assert!(!env.exists("out.txt"), "{extra:?} wrote out.txt");
    }
}

#[test]
fn reducing_the_test_script_itself_is_refused() {
    let f = Files::new();
    f.env
        .run(["-q", "--algo", "ddmin", "--test", "./t.sh", "t.sh"])
        .expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["test script"]);
    f.untouched();
    assert!(!f.env.exists("t.sh.orig"));
}

#[test]
fn dash_o_a_symlink_writes_through_to_its_target_and_keeps_the_link() {
    let f = Files::new();
    let env = &f.env;
    fs::create_dir(env.join("real")).unwrap();
    symlink(env.join("real/out.txt"), env.join("link.txt")).unwrap();
    env.run([
        "-q", "--algo", "ddmin", "--test", "t.sh", "-o", "link.txt", "in.txt",
    ])
    .expect_code(0);
    let meta = fs::symlink_metadata(env.join("link.txt")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert_bytes("real/out.txt", b"needle\n", &env.read("real/out.txt"));
    f.untouched();
}

#[test]
fn a_fifo_output_receives_the_final_result_once() {
    let f = Files::new();
    let env = &f.env;
    let fifo = env.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let reader = std::process::Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    env.run([
        "-q", "--algo", "ddmin", "--test", "t.sh", "-o", "pipe", "in.txt",
    ])
    .expect_code(0);
    let out = reader.wait_with_output().unwrap();
    assert_bytes("what the pipe received", b"needle\n", &out.stdout);
    f.untouched();
}

#[test]
fn a_rerun_after_a_kill_explains_the_old_backup_and_force_keeps_it_as_orig_1() {
    let f = Files::new();
    let env = &f.env;
    // an earlier run was killed: the input holds a partial result, .orig the true original
    env.write("in.txt.orig", &f.original);
    env.write("in.txt", "needle\nfiller line 5\n");
    env.run(["-q", "--algo", "ddmin", "--test", "t.sh", "in.txt"])
        .expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["in.txt.orig", "interrupted", "--force"]);
    env.run([
        "-q", "--force", "--algo", "ddmin", "--test", "t.sh", "in.txt",
    ])
    .expect_code(0);
    assert_bytes(
        "in.txt.orig.1",
        f.original.as_bytes(),
        &env.read("in.txt.orig.1"),
    );
    assert_bytes(
        "in.txt.orig",
        b"needle\nfiller line 5\n",
        &env.read("in.txt.orig"),
    );
    // a second --force run keeps both older backups
    env.write("in.txt", "needle\nfiller line 6\n");
    env.run([
        "-q", "--force", "--algo", "ddmin", "--test", "t.sh", "in.txt",
    ])
    .expect_code(0);
    assert_bytes(
        "in.txt.orig.1",
        f.original.as_bytes(),
        &env.read("in.txt.orig.1"),
    );
    assert_bytes(
        "in.txt.orig.2",
        b"needle\nfiller line 5\n",
        &env.read("in.txt.orig.2"),
    );
}

#[test]
fn an_orig_that_is_a_link_to_the_input_is_refused() {
    for kind in ["symlink", "hard link"] {
        let f = Files::new();
        let env = &f.env;
        match kind {
            "symlink" => symlink("in.txt", env.join("in.txt.orig")).unwrap(),
            _ => fs::hard_link(env.join("in.txt"), env.join("in.txt.orig")).unwrap(),
        }
        env.run([
            "-q", "--force", "--algo", "ddmin", "--test", "t.sh", "in.txt",
        ])
        .expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["in.txt.orig", "the input itself"]);
        f.untouched();
    }
}

#[test]
fn an_orig_symlink_elsewhere_is_never_written_through() {
    let f = Files::new();
    let env = &f.env;
    env.write("elsewhere.txt", "precious\n");
    symlink("elsewhere.txt", env.join("in.txt.orig")).unwrap();
    env.run(["-q", "--algo", "ddmin", "--test", "t.sh", "in.txt"])
        .expect_code(2);
    env.run([
        "-q", "--force", "--algo", "ddmin", "--test", "t.sh", "in.txt",
    ])
    .expect_code(0);
    assert_bytes("elsewhere.txt", b"precious\n", &env.read("elsewhere.txt"));
    assert_bytes(
        "in.txt.orig",
        f.original.as_bytes(),
        &env.read("in.txt.orig"),
    );
    assert!(
        !fs::symlink_metadata(env.join("in.txt.orig"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_second_run_on_the_same_file_stops_at_once_naming_the_first() {
    let env = TestEnv::new();
    let original = lines_with(30, 11, "needle");
    env.write("in.txt", &original);
    env.script("slow.sh", "sleep 0.3; grep -q needle \"$1\"");
    let mut first = env
        .command([
            "-q", "-j1", "--algo", "ddmin", "--test", "slow.sh", "in.txt",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(900));
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first run ended too soon"
    );
    let second = env.run(["-q", "--algo", "ddmin", "--test", "slow.sh", "in.txt"]);
    second
        .expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&[&format!("pid {}", first.id())]);
    let status = wait_at_most(&mut first, Duration::from_secs(60));
    assert_eq!(status.code(), Some(0));
    assert_bytes("in.txt", b"needle\n", &env.read("in.txt"));
    assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));
    // the lock is gone with the run
    env.write("in.txt", &original);
    fs::remove_file(env.join("in.txt.orig")).unwrap();
    env.run(["-q", "--algo", "ddmin", "--test", "slow.sh", "in.txt"])
        .expect_code(0);
}

#[test]
fn output_locations_are_checked_before_the_first_test_run() {
    let f = Files::new();
    let env = &f.env;
    let marker = env.join("ran");
    env.script(
        "t.sh",
        &format!("touch '{}'; grep -q needle \"$1\"", marker.display()),
    );
    env.write("plain-file", "x");
    for extra in [
        ["-o", "missing/out.txt"],
        ["-o", "plain-file/out.txt"],
        ["--stats-json", "missing/stats.json"],
        ["--stats-json", "plain-file/stats.json"],
    ] {
        let mut args = vec!["-q", "--algo", "ddmin", "--test", "t.sh"];
        args.extend_from_slice(&extra);
        args.push("in.txt");
        let run = env.run(&args);
        run.expect_code(6).expect_one_line_error();
        assert!(!marker.exists(), "{extra:?}: the test ran before the check");
        assert!(!env.exists("in.txt.orig"));
    }
}

#[test]
fn a_read_only_output_file_is_refused_without_force() {
    let f = Files::new();
    let env = &f.env;
    let out = env.write("out.txt", "keep me\n");
    fs::set_permissions(&out, fs::Permissions::from_mode(0o444)).unwrap();
    env.run([
        "-q", "--algo", "ddmin", "--test", "t.sh", "-o", "out.txt", "in.txt",
    ])
    .expect_code(2)
    .expect_one_line_error()
    .expect_stderr_contains(&["read-only", "--force"]);
    assert_bytes("out.txt", b"keep me\n", &env.read("out.txt"));
    env.run([
        "-q", "--force", "--algo", "ddmin", "--test", "t.sh", "-o", "out.txt", "in.txt",
    ])
    .expect_code(0);
    assert_bytes("out.txt", b"needle\n", &env.read("out.txt"));
}

#[test]
fn the_backup_and_the_result_keep_the_originals_mode_mtime_and_owner() {
    let f = Files::new();
    let env = &f.env;
    let input = env.join("in.txt");
    fs::set_permissions(&input, fs::Permissions::from_mode(0o754)).unwrap();
    let mtime = libc::timespec {
        tv_sec: 1_000_000_000,
        tv_nsec: 0,
    };
    let c = std::ffi::CString::new(input.to_str().unwrap()).unwrap();
    // SAFETY: a valid path and two valid timespecs.
    assert_eq!(
        unsafe { libc::utimensat(libc::AT_FDCWD, c.as_ptr(), [mtime, mtime].as_ptr(), 0) },
        0
    );
    // SAFETY: no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&input, Some(4321), Some(4321)).unwrap();
    }
    env.run(["-q", "--algo", "ddmin", "--test", "t.sh", "in.txt"])
        .expect_code(0);
    let backup = fs::metadata(env.join("in.txt.orig")).unwrap();
    let result = fs::metadata(&input).unwrap();
    assert_eq!(backup.mode() & 0o7777, 0o754, "backup mode");
    assert_eq!(result.mode() & 0o7777, 0o754, "result mode");
    assert_eq!(backup.mtime(), 1_000_000_000, "backup mtime");
    if root {
        assert_eq!((backup.uid(), backup.gid()), (4321, 4321), "backup owner");
        assert_eq!((result.uid(), result.gid()), (4321, 4321), "result owner");
    }
}
