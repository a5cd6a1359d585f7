//! What a run leaves behind and how it ends: blocking inputs and outputs, every terminating
//! signal, test processes that escape their process group, and temp directories after a kill.

use std::fs;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{TestEnv, assert_bytes, is_dead, lines_with, wait_at_most};

fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn signal(child: &std::process::Child, sig: i32) {
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions; pid is our own unreaped child.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0);
}

#[test]
fn a_fifo_or_a_device_as_input_is_refused_at_once() {
    let env = TestEnv::new();
    env.script("t.sh", "exit 0");
    mkfifo(&env.join("in.fifo"));
    for input in ["in.fifo", "/dev/zero"] {
        let mut child = env
            .command(["-q", "--algo", "ddmin", "--test", "t.sh", input])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let status = wait_at_most(&mut child, Duration::from_secs(10));
        assert_eq!(status.code(), Some(4), "{input}");
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert!(stderr.contains("not a regular file"), "{input}: {stderr}");
    }
}

#[test]
fn a_fifo_output_without_a_reader_does_not_block_an_interrupt() {
    let env = TestEnv::new();
    env.write("in.txt", lines_with(6, 2, "needle"));
    env.script("t.sh", "grep -q needle \"$1\"");
    mkfifo(&env.join("out.fifo"));
    let mut child = env
        .command([
            "-q", "--algo", "ddmin", "--test", "t.sh", "-o", "out.fifo", "in.txt",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, libc::SIGTERM);
    let stopped = Instant::now();
    let status = wait_at_most(&mut child, Duration::from_secs(20));
    assert!(stopped.elapsed() < Duration::from_secs(5), "slow to stop");
    assert_eq!(status.code(), Some(143));
}

#[test]
fn sighup_and_sigquit_end_a_run_like_sigterm() {
    for (sig, code) in [(libc::SIGHUP, 129), (libc::SIGQUIT, 131)] {
        let env = TestEnv::new();
        let original = lines_with(30, 21, "keep");
        env.write("in.txt", &original);
        let test = env.script("t.sh", "sleep 0.2; grep -q keep \"$1\"");
        fs::create_dir(env.join("tmp")).unwrap();
        let mut child = env
            .command([
                "--algo",
                "ddmin",
                "--temp-dir",
                "tmp",
                "--test",
                "t.sh",
                "in.txt",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1200));
        signal(&child, sig);
        let status = wait_at_most(&mut child, Duration::from_secs(10));
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(code), "signal {sig}: {stderr}");
        assert!(
            stderr.contains("test runs"),
            "no summary after signal {sig}: {stderr}"
        );
        let result = env.read("in.txt");
        assert!(env.passes(&test, "in.txt", &result));
        assert_bytes("in.txt.orig", original.as_bytes(), &env.read("in.txt.orig"));
        let left = env.entries_starting_with(&env.join("tmp"), "reduce-");
        assert!(left.is_empty(), "signal {sig} left {left:?}");
    }
}

#[test]
fn test_processes_that_escape_into_a_new_session_are_killed() {
    let env = TestEnv::new();
    env.write("in.txt", lines_with(12, 5, "needle"));
    let pids = env.join("pids");
    env.script(
        "t.sh",
        &format!(
            "setsid sleep 300 &\necho $! >> '{p}'\n(setsid sh -c 'sleep 300 & echo $! >> {p}; sleep 300' &)\ngrep -q needle \"$1\"",
            p = pids.display()
        ),
    );
    env.run(["-q", "-j2", "--algo", "ddmin", "--test", "t.sh", "in.txt"])
        .expect_code(0);
    let listed = fs::read_to_string(&pids).unwrap();
    let pids: Vec<i32> = listed.lines().map(|l| l.trim().parse().unwrap()).collect();
    assert!(pids.len() >= 10, "too few runs recorded: {}", pids.len());
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut alive: Vec<i32> = pids.clone();
    while !alive.is_empty() && Instant::now() < deadline {
        alive.retain(|&p| !is_dead(p));
        std::thread::sleep(Duration::from_millis(50));
    }
    for &p in &alive {
        // SAFETY: clean up what the test expected to be gone.
        unsafe { libc::kill(p, libc::SIGKILL) };
    }
    assert!(
        alive.is_empty(),
        "{} of {} escaped processes survived",
        alive.len(),
        pids.len()
    );
}

#[test]
fn temp_dirs_of_a_killed_run_are_swept_by_the_next_run_and_live_ones_kept() {
    let env = TestEnv::new();
    let original = lines_with(40, 17, "needle");
    env.write("in.txt", &original);
    env.script("t.sh", "sleep 0.05; grep -q needle \"$1\"");
    fs::create_dir(env.join("tmp")).unwrap();
    let mut child = env
        .command([
            "-q",
            "-j2",
            "--algo",
            "ddmin",
            "--temp-dir",
            "tmp",
            "--test",
            "t.sh",
            "in.txt",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // kill it mid-run, as soon as its temp directory exists (the run itself takes < 1 s)
    for _ in 0..500 {
        if !env
            .entries_starting_with(&env.join("tmp"), "reduce-")
            .is_empty()
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(100));
    child.kill().unwrap(); // SIGKILL: nothing is cleaned up
    child.wait().unwrap();
    let stale = env.entries_starting_with(&env.join("tmp"), "reduce-");
    assert!(!stale.is_empty(), "the killed run left nothing to sweep");
    // a directory a live process holds is not touched
    let live = env.join("tmp/reduce-live");
    fs::create_dir(&live).unwrap();
    let lock = fs::File::create(live.join("lock")).unwrap();
    // SAFETY: a valid descriptor.
    assert_eq!(
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) },
        0
    );
    // an unrelated directory of the same prefix without a lock is not ours: kept
    fs::create_dir(env.join("tmp/reduce-unrelated")).unwrap();
    env.write("in.txt", &original);
    let _ = fs::remove_file(env.join("in.txt.orig")); // the kill may come before the backup
    env.run([
        "-q",
        "--algo",
        "ddmin",
        "--temp-dir",
        "tmp",
        "--test",
        "t.sh",
        "in.txt",
    ])
    .expect_code(0);
    let mut left = env.entries_starting_with(&env.join("tmp"), "reduce-");
    left.sort();
    assert_eq!(left, ["reduce-live", "reduce-unrelated"]);
    drop(lock);
}

#[test]
fn dash_o_dash_into_a_closed_pipe_is_an_io_error_with_a_summary() {
    let env = TestEnv::new();
    env.write("in.txt", lines_with(6, 2, "needle"));
    env.script("t.sh", "grep -q needle \"$1\"");
    let mut child = env
        .command(["--algo", "ddmin", "--test", "t.sh", "-o", "-", "in.txt"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // nobody reads the result
    let status = wait_at_most(&mut child, Duration::from_secs(20));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(6), "{stderr}");
    assert!(stderr.contains("stdout"), "{stderr}");
    assert!(stderr.contains("test runs"), "no summary: {stderr}");
}
