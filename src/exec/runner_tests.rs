use super::*;

const SLACK: Duration = Duration::from_secs(10);

/// Writes an executable `#!/bin/sh` script named `name` with `body` into `dir`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&path, Permissions::from_mode(0o755)).unwrap();
    path
}

fn config(script: PathBuf, verbose: bool) -> ScriptConfig {
    ScriptConfig {
        check: Check {
            command: TestCommand::Script(script),
            conditions: Default::default(),
        },
        file_name: OsString::from("input.c"),
        timeout: Duration::from_secs(30),
        verbose,
        temp_root: None,
        launcher: None,
        derive: false,
        slipped: None,
    }
}

/// An oracle for a script with `body`, its scratch directory, and that directory's path.
fn oracle_for(body: &str, verbose: bool) -> (ScriptRunner, TempDir) {
    let scratch = tempfile::tempdir().unwrap();
    let path = script(scratch.path(), "test.sh", body);
    (ScriptRunner::new(config(path, verbose)).unwrap(), scratch)
}

/// Whether `pid` is gone. A zombie counts as gone: PID 1 in a container may never reap it.
fn is_dead(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks for existence.
    let rc = unsafe { libc::kill(pid, 0) };
    if rc == -1 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) {
        return true;
    }
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit(')').next().unwrap_or("").trim_start();
    state.starts_with('Z') || state.starts_with('X')
}

fn dies_soon(pid: libc::pid_t) -> bool {
    let give_up = Instant::now() + SLACK;
    while Instant::now() < give_up {
        if is_dead(pid) {
            return true;
        }
        thread::sleep(Duration::from_millis(20));
    }
    false
}

fn read_pid(path: &Path) -> libc::pid_t {
    fs::read_to_string(path).unwrap().trim().parse().unwrap()
}

#[test]
fn exit_0_is_interesting() {
    let _guard = signal::shared();
    let (mut oracle, _scratch) = oracle_for("exit 0", false);
    let outcome = oracle.run(b"x").unwrap();
    assert!(outcome.interesting);
    assert_eq!(outcome.status, RunStatus::Exited(0));
    assert_eq!((outcome.stdout, outcome.stderr), (None, None));
}

#[test]
fn exit_1_is_not_interesting() {
    let _guard = signal::shared();
    let (mut oracle, _scratch) = oracle_for("exit 1", false);
    let outcome = oracle.run(b"x").unwrap();
    assert!(!outcome.interesting);
    assert_eq!(outcome.status, RunStatus::Exited(1));
}

#[test]
fn death_by_a_signal_is_not_interesting() {
    let _guard = signal::shared();
    let (mut oracle, _scratch) = oracle_for("kill -9 $$", false);
    let outcome = oracle.run(b"x").unwrap();
    assert!(!outcome.interesting);
    assert_eq!(outcome.status, RunStatus::Signaled(libc::SIGKILL));
}

#[test]
fn the_script_gets_the_candidates_absolute_path_and_runs_beside_it() {
    let _guard = signal::shared();
    let scratch = tempfile::tempdir().unwrap();
    let seen = scratch.path().join("seen");
    let body = format!(
        "printf '%s\\n%s\\n' \"$1\" \"$(pwd -P)\" > '{}'\ngrep -q foo \"$1\"",
        seen.display()
    );
    let path = script(scratch.path(), "test.sh", &body);
    let mut oracle = ScriptRunner::new(config(path, false)).unwrap();
    assert!(oracle.run(b"int foo;\n").unwrap().interesting);
    let expected = format!(
        "{}\n{}\n",
        oracle.candidate_path().display(),
        oracle.dir().display()
    );
    assert_eq!(fs::read_to_string(&seen).unwrap(), expected);
    assert!(oracle.candidate_path().is_absolute());
    assert!(!oracle.run(b"int bar;\n").unwrap().interesting);
}

#[test]
fn a_c_reduce_style_script_finds_the_file_by_its_original_name() {
    let _guard = signal::shared();
    let (mut oracle, _scratch) = oracle_for("grep -q foo input.c", false);
    assert!(oracle.run(b"int foo;\n").unwrap().interesting);
    assert!(!oracle.run(b"int bar;\n").unwrap().interesting);
    assert!(oracle.run(b"foo").unwrap().interesting);
}

#[test]
fn a_slow_script_times_out_and_its_background_job_dies() {
    let _guard = signal::shared();
    let scratch = tempfile::tempdir().unwrap();
    let pidfile = scratch.path().join("pid");
    let body = format!(
        "sleep 60 &\necho $! > '{}'\nsleep 30\nwait",
        pidfile.display()
    );
    let path = script(scratch.path(), "test.sh", &body);
    let mut oracle = ScriptRunner::new(config(path, false)).unwrap();
    oracle.set_timeout(Duration::from_millis(500));
    let start = Instant::now();
    let outcome = oracle.run(b"x").unwrap();
    assert!(start.elapsed() < SLACK, "took {:?}", start.elapsed());
    assert_eq!(outcome.status, RunStatus::TimedOut);
    assert!(!outcome.interesting);
    assert!(
        dies_soon(read_pid(&pidfile)),
        "the backgrounded sleep survived"
    );
}

#[test]
fn a_background_job_left_by_a_passing_script_is_killed() {
    let _guard = signal::shared();
    let scratch = tempfile::tempdir().unwrap();
    let pidfile = scratch.path().join("pid");
    let body = format!("sleep 60 &\necho $! > '{}'\nexit 0", pidfile.display());
    let path = script(scratch.path(), "test.sh", &body);
    let mut oracle = ScriptRunner::new(config(path, false)).unwrap();
    let start = Instant::now();
    let outcome = oracle.run(b"x").unwrap();
    assert!(outcome.interesting);
    assert!(start.elapsed() < SLACK);
    assert!(
        dies_soon(read_pid(&pidfile)),
        "the backgrounded sleep survived"
    );
}

#[test]
fn changes_a_script_makes_to_its_directory_do_not_reach_the_next_run() {
    let _guard = signal::shared();
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("vandalized");
    let body = format!(
        "if [ -e '{m}' ]; then\n  [ \"$(ls -A)\" = input.c ] && grep -q hello input.c\n  exit $?\nfi\n\
         touch '{m}'\nrm input.c\nln -s /etc/passwd input.c\ntouch junk .hidden\n\
         mkdir -p sub/deeper\ntouch sub/deeper/x\nchmod 000 sub/deeper sub\nexit 1",
        m = marker.display()
    );
    let path = script(scratch.path(), "test.sh", &body);
    let mut oracle = ScriptRunner::new(config(path, false)).unwrap();
    assert!(!oracle.run(b"hello").unwrap().interesting);
    assert!(marker.exists());
    assert!(oracle.run(b"hello").unwrap().interesting);
}

#[test]
fn a_script_that_removes_its_own_directory_does_not_break_the_next_run() {
    let _guard = signal::shared();
    let (mut oracle, _scratch) =
        oracle_for("grep -q hello \"$1\" || exit 1\nrm -rf \"$PWD\"", false);
    assert!(oracle.run(b"hello").unwrap().interesting);
    assert!(!oracle.dir().exists());
    assert!(oracle.run(b"hello").unwrap().interesting);
    assert!(!oracle.run(b"bye").unwrap().interesting);
}

#[test]
fn a_dropped_oracle_removes_its_directory_even_when_chmod_ed_shut() {
    let _guard = signal::shared();
    let root = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let path = script(
        scratch.path(),
        "test.sh",
        "mkdir d\ntouch d/x\nchmod 000 d\nchmod 500 .",
    );
    let mut cfg = config(path, false);
    cfg.temp_root = Some(root.path().to_path_buf());
    let mut oracle = ScriptRunner::new(cfg).unwrap();
    let dir = oracle.dir().to_path_buf();
    assert!(dir.starts_with(fs::canonicalize(root.path()).unwrap()));
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("reduce-"), "{name}");
    assert_eq!(
        fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    oracle.run(b"x").unwrap();
    drop(oracle);
    assert!(!dir.exists());
    assert_eq!(fs::read_dir(root.path()).unwrap().count(), 0);
}

#[test]
fn stdin_is_dev_null() {
    let _guard = signal::shared();
    // reading stdin hits end-of-file at once: nothing is piped in, no terminal waits
    let body = "if read x; then exit 1; fi\nexit 0";
    let (mut oracle, _scratch) = oracle_for(body, true);
    let outcome = oracle.run(b"x").unwrap();
    assert!(outcome.interesting, "{outcome:?}");
}

#[test]
fn verbose_runs_capture_stdout_and_stderr() {
    let _guard = signal::shared();
    let (mut oracle, _scratch) = oracle_for("echo out\necho err >&2\nexit 3", true);
    let outcome = oracle.run(b"x").unwrap();
    assert_eq!(outcome.status, RunStatus::Exited(3));
    assert_eq!(outcome.stdout.as_deref(), Some("out\n"));
    assert_eq!(outcome.stderr.as_deref(), Some("err\n"));
}

#[test]
fn verbose_output_keeps_only_the_last_4_kib() {
    let _guard = signal::shared();
    let body = "i=0\nwhile [ $i -lt 2000 ]; do echo \"line $i\"; i=$((i+1)); done";
    let (mut oracle, _scratch) = oracle_for(body, true);
    let stdout = oracle.run(b"x").unwrap().stdout.unwrap();
    assert_eq!(stdout.len(), CAPTURE_LIMIT);
    assert!(stdout.ends_with("line 1998\nline 1999\n"));
}

#[test]
fn the_working_directory_holds_only_the_candidate_even_when_verbose() {
    let _guard = signal::shared();
    let (mut oracle, _scratch) = oracle_for("[ \"$(ls -A)\" = input.c ]", true);
    assert!(oracle.run(b"x").unwrap().interesting);
    assert!(oracle.run(b"y").unwrap().interesting);
}

#[test]
fn an_interrupt_before_the_run_returns_interrupted_without_waiting() {
    let _guard = signal::exclusive();
    let (mut oracle, _scratch) = oracle_for("sleep 30", false);
    signal::simulate(libc::SIGINT);
    let start = Instant::now();
    let outcome = oracle.run(b"x");
    signal::reset();
    let outcome = outcome.unwrap();
    assert_eq!(outcome.status, RunStatus::Interrupted);
    assert!(!outcome.interesting);
    assert!(start.elapsed() < SLACK);
}

#[test]
fn an_interrupt_during_the_run_kills_the_script_and_its_children() {
    let _guard = signal::exclusive();
    let scratch = tempfile::tempdir().unwrap();
    let pidfile = scratch.path().join("pid");
    let body = format!("sleep 60 &\necho $! > '{}'\nwait", pidfile.display());
    let path = script(scratch.path(), "test.sh", &body);
    let mut oracle = ScriptRunner::new(config(path, false)).unwrap();
    let pidfile_seen = pidfile.clone();
    let interrupter = thread::spawn(move || {
        let give_up = Instant::now() + SLACK;
        while !pidfile_seen.exists() && Instant::now() < give_up {
            thread::sleep(Duration::from_millis(10));
        }
        signal::simulate(libc::SIGTERM);
    });
    let start = Instant::now();
    let outcome = oracle.run(b"x");
    interrupter.join().unwrap();
    signal::reset();
    assert_eq!(outcome.unwrap().status, RunStatus::Interrupted);
    assert!(start.elapsed() < SLACK + SLACK);
    assert!(
        dies_soon(read_pid(&pidfile)),
        "the backgrounded sleep survived"
    );
}

#[test]
fn a_script_without_a_shebang_fails_with_advice_to_add_one() {
    let _guard = signal::shared();
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join("test.sh");
    fs::write(&path, "exit 0\n").unwrap();
    fs::set_permissions(&path, Permissions::from_mode(0o755)).unwrap();
    let mut oracle = ScriptRunner::new(config(path, false)).unwrap();
    let message = format!("{:#}", oracle.run(b"x").unwrap_err());
    assert!(message.contains("#!"), "{message}");
}

#[test]
fn a_missing_script_is_an_error_naming_it() {
    let _guard = signal::shared();
    let missing = PathBuf::from("/nonexistent/reduce-test.sh");
    let mut oracle = ScriptRunner::new(config(missing, false)).unwrap();
    let message = format!("{:#}", oracle.run(b"x").unwrap_err());
    assert!(
        message.contains("failed to run test script /nonexistent/reduce-test.sh"),
        "{message}"
    );
}

#[test]
fn a_file_name_with_a_slash_is_rejected() {
    let mut cfg = config(PathBuf::from("/bin/true"), false);
    cfg.file_name = OsString::from("a/b.c");
    assert!(ScriptRunner::new(cfg.clone()).is_err());
    cfg.file_name = OsString::from("..");
    assert!(ScriptRunner::new(cfg).is_err());
}
