//! Helpers shared by the integration tests: a private directory per test, files and executable
//! scripts in it, runs of the real `reduce` binary with that directory as cwd, and assertions
//! that show what was expected and what came out.

use std::ffi::OsStr;
use std::fmt::Debug;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// The `reduce` binary cargo built for this test run.
pub fn reduce_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_reduce"))
}

/// What one run of `reduce` did.
pub struct Run {
    /// The exit code; `None` if the process died by a signal.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// How long the run took.
    pub elapsed: Duration,
}

impl Run {
    /// The run as `(status code, stdout, stderr)`.
    pub fn parts(&self) -> (Option<i32>, String, String) {
        (
            self.code,
            String::from_utf8_lossy(&self.stdout).into_owned(),
            self.stderr.clone(),
        )
    }

    /// Asserts the exit code, printing the run's stdout and stderr if it differs.
    #[track_caller]
    pub fn expect_code(&self, expected: i32) -> &Run {
        if self.code != Some(expected) {
            let (code, stdout, stderr) = self.parts();
            panic!(
                "exit code mismatch\n  expected: {expected}\n    actual: {code:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
            );
        }
        self
    }

    /// Asserts that stderr contains every one of `needles`.
    #[track_caller]
    pub fn expect_stderr_contains(&self, needles: &[&str]) -> &Run {
        for needle in needles {
            assert!(
                self.stderr.contains(needle),
                "stderr does not contain the expected text\n  expected to contain: {needle:?}\n--- actual stderr\n{}",
                self.stderr
            );
        }
        self
    }

    /// Asserts that stderr holds exactly one line (an error message, not a backtrace or a list).
    #[track_caller]
    pub fn expect_one_line_error(&self) -> &Run {
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert!(
            lines.len() == 1 && lines[0].starts_with("reduce: error: "),
            "expected a one-line `reduce: error: ...` message\n--- actual stderr ({} lines)\n{}",
            lines.len(),
            self.stderr
        );
        self
    }
}

/// Asserts `expected == actual`, printing both (labelled with `what`) when they differ.
#[track_caller]
pub fn assert_same<T: PartialEq + Debug + ?Sized>(what: &str, expected: &T, actual: &T) {
    if expected != actual {
        panic!("{what} differs\n  expected: {expected:?}\n    actual: {actual:?}");
    }
}

/// Asserts two byte strings are equal, showing both as text when they differ.
#[track_caller]
pub fn assert_bytes(what: &str, expected: &[u8], actual: &[u8]) {
    if expected != actual {
        panic!(
            "{what} differs\n--- expected ({} bytes)\n{}\n--- actual ({} bytes)\n{}",
            expected.len(),
            String::from_utf8_lossy(expected),
            actual.len(),
            String::from_utf8_lossy(actual)
        );
    }
}

/// One test's private directory, removed when the test ends.
pub struct TestEnv {
    dir: TempDir,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        TestEnv {
            dir: tempfile::Builder::new()
                .prefix("reduce-it-")
                .tempdir()
                .expect("cannot create a test directory"),
        }
    }

    /// The directory's absolute, canonical path.
    pub fn path(&self) -> PathBuf {
        fs::canonicalize(self.dir.path()).expect("the test directory exists")
    }

    /// `name` inside the directory.
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.path().join(name)
    }

    /// Writes `contents` to `name` (creating parent directories) and returns its path.
    pub fn write(&self, name: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&path, contents).unwrap();
        path
    }

    /// Writes an executable `#!/bin/sh` script with `body` and returns its path.
    pub fn script(&self, name: impl AsRef<Path>, body: &str) -> PathBuf {
        let path = self.write(name, format!("#!/bin/sh\n{body}\n"));
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// The contents of `name`; panics if it cannot be read.
    pub fn read(&self, name: impl AsRef<Path>) -> Vec<u8> {
        let path = self.join(name);
        fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    }

    pub fn exists(&self, name: impl AsRef<Path>) -> bool {
        self.join(name).exists()
    }

    /// A `reduce` command with `args`, its cwd in this directory, ready to run or spawn.
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(reduce_bin());
        // temp directories of the run stay inside the test's own directory
        cmd.args(args)
            .current_dir(self.path())
            .stdin(Stdio::null())
            .env("TMPDIR", self.path())
            // the persistent verdict cache too: no test touches ~/.cache
            .env("XDG_CACHE_HOME", self.join(".cache"))
            .env_remove("RUST_BACKTRACE");
        cmd
    }

    /// Runs `reduce` with `args` in this directory and waits for it.
    pub fn run<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let start = Instant::now();
        let out = self
            .command(args)
            .output()
            .expect("cannot run the reduce binary");
        Run {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed: start.elapsed(),
        }
    }

    /// Runs `script` on `contents` the way `reduce` does: in a fresh directory, with the
    /// candidate there as `file_name` and its absolute path as `$1`. True if it exits 0.
    pub fn passes(&self, script: &Path, file_name: &str, contents: &[u8]) -> bool {
        let scratch = tempfile::tempdir_in(self.path()).unwrap();
        let dir = fs::canonicalize(scratch.path()).unwrap();
        let candidate = dir.join(file_name);
        fs::write(&candidate, contents).unwrap();
        Command::new(script)
            .arg(&candidate)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("cannot run the test script")
            .success()
    }

    /// The entries of `dir` whose names start with `prefix`.
    pub fn entries_starting_with(&self, dir: &Path, prefix: &str) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(prefix))
            .collect()
    }
}

/// Waits for `child` at most `limit`; kills it and panics if it is still running then.
pub fn wait_at_most(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let give_up = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= give_up {
            let _ = child.kill();
            let _ = child.wait();
            panic!("reduce still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` is gone: no such process, or a zombie nobody reaped yet.
pub fn is_dead(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    if rc == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) {
        return true;
    }
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit(')').next().unwrap_or("").trim_start();
    state.starts_with('Z') || state.starts_with('X')
}

/// `n` numbered filler lines with `needle` on line `at` (0-based), each ending in a newline.
pub fn lines_with(n: usize, at: usize, needle: &str) -> String {
    (0..n)
        .map(|i| {
            if i == at {
                format!("{needle}\n")
            } else {
                format!("filler line {i}\n")
            }
        })
        .collect()
}

/// Runs `reduce -q ARGS --test CASE/interesting.sh -o OUT --stats-json S` on a copy of
/// `fixtures/CASE/input.<ext>`; checks it succeeded and left the copy untouched; returns the output
/// and the stats record.
pub fn reduce_fixture(case: &Path, args: &[&str]) -> (Vec<u8>, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let name = fixture_input(case);
    let input = dir.path().join(&name);
    fs::copy(case.join(&name), &input).unwrap();
    let out = dir.path().join("out");
    let stats = dir.path().join("stats.json");
    let temp = dir.path().join("tmp");
    fs::create_dir(&temp).unwrap();
    let status = Command::new(reduce_bin())
        .env("TMPDIR", dir.path())
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .arg("-q")
        .args(args)
        .arg("--test")
        .arg(case.join("interesting.sh"))
        .arg("--temp-dir")
        .arg(&temp)
        .arg("-o")
        .arg(&out)
        .arg("--stats-json")
        .arg(&stats)
        .arg(&input)
        // the tree-sitter-only fixtures' tests ask `reduce --dump-tree` whether a candidate parses
        .env("REDUCE_BIN", reduce_bin())
        .status()
        .unwrap();
    assert!(status.success(), "{args:?} on {}: {status}", case.display());
    assert_eq!(
        fs::read(&input).unwrap(),
        fs::read(case.join(&name)).unwrap()
    );
    let record = serde_json::from_slice(&fs::read(&stats).unwrap()).unwrap();
    (fs::read(&out).unwrap(), record)
}

/// The input file of a fixture: its one `input.*` file (`input.c`, `input.py`, ...).
pub fn fixture_input(case: &Path) -> String {
    let mut names: Vec<String> = fs::read_dir(case)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("input."))
        .collect();
    names.sort();
    assert_eq!(names.len(), 1, "{}: one input.* file", case.display());
    names.remove(0)
}

/// Whether the fixture's test accepts `bytes` as its input (run in a temp dir of its own).
pub fn fixture_passes(case: &Path, bytes: &[u8]) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(fixture_input(case));
    fs::write(&file, bytes).unwrap();
    Command::new(case.join("interesting.sh"))
        .arg(&file)
        .current_dir(dir.path())
        .env("REDUCE_BIN", reduce_bin())
        .status()
        .unwrap()
        .success()
}
