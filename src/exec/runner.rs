//! The interestingness test: runs the user's test ([`Check`]: a `--test` script, a `-c` shell
//! command or a program after `--`) on one candidate.
//!
//! Each [`ScriptRunner`] owns a private temporary directory. A run empties it, writes the
//! candidate there under the input's own file name (so C-Reduce style scripts that say
//! `grep foo input.c` work) and runs the test in it with the candidate's absolute path (see
//! [`Check::argv`]), stdin from `/dev/null`, in its own process group. In a multi-file run the
//! directory holds the whole set instead (see [`crate::exec::frame`]). The run is interesting
//! when it meets the check's conditions (by default: exit status 0); a timeout or an interrupt
//! never is.
//!
//! The whole process group is killed after every run, so a script's background jobs never
//! outlive the test. Output is discarded unless a `--stdout`/`--stderr` condition or `--verbose`
//! needs it; then it is read through a pipe, bounded (see [`crate::exec::capture`]).

use std::ffi::{OsStr, OsString};
use std::fs::{self, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use tempfile::TempDir;
use wait_timeout::ChildExt;

use crate::exec::capture::{self, Captures};
use crate::exec::check::conditions::signature_of;
pub use crate::exec::check::conditions::{RunStatus, signal_name};
use crate::exec::check::{Check, Expect, Streams, TestCommand, quote_words};
use crate::exec::frame::Frame;
use crate::exec::launcher::{self, Launcher};
use crate::exec::reaper;
pub use crate::exec::script::ensure_script_runnable;
use crate::exec::tempdirs::make_owner_writable;
use crate::exit::{FailureKind, fail};
use crate::signal;
use crate::signature::Signature;
use crate::store::slipped::Slipped;

/// How much of the end of stdout and stderr a verbose run shows.
pub const CAPTURE_LIMIT: usize = 4096;

/// The longest stretch the oracle waits without looking at the interrupt flag.
const POLL_SLICE: Duration = Duration::from_millis(10);

/// A launched job may take this long beyond three times the timeout (queueing) before it is
/// given up as lost.
const JOB_BACKSTOP: Duration = Duration::from_secs(600);

/// How long a launcher has to end its job after SIGTERM.
const JOB_GRACE: Duration = Duration::from_secs(3);

/// How often a spawn that failed with "Text file busy" is retried.
const BUSY_RETRIES: u32 = 10;

/// A timeout as the oracle keeps it (saturating: nobody waits 584 years).
pub(crate) fn nanos(timeout: Duration) -> u64 {
    u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX)
}

/// The result of one run of the script.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The run met every condition of the check.
    pub interesting: bool,
    /// The conditions it failed, in words (empty when interesting).
    pub unmet: Vec<String>,
    /// The command line and directory of the run, when verbose.
    pub command: Option<String>,
    pub status: RunStatus,
    /// Wall-clock time from spawn to the end of the run.
    pub elapsed: Duration,
    /// The last [`CAPTURE_LIMIT`] bytes of stdout, when verbose.
    pub stdout: Option<String>,
    /// The last [`CAPTURE_LIMIT`] bytes of stderr, when verbose.
    pub stderr: Option<String>,
    /// The run's failure signature, when the run derives it ([`ScriptConfig::derive`] or
    /// `--same-failure`) and it failed.
    pub signature: Option<Box<Signature>>,
}

impl Outcome {
    fn uninteresting(status: RunStatus, elapsed: Duration) -> Outcome {
        Outcome {
            interesting: false,
            unmet: vec![status.describe(Duration::ZERO)],
            command: None,
            status,
            elapsed,
            stdout: None,
            stderr: None,
            signature: None,
        }
    }
}

/// What to run and how.
#[derive(Clone, Debug)]
pub struct ScriptConfig {
    /// The test; a script's path is made absolute by [`ScriptRunner::new`] if it is not.
    pub check: Check,
    /// The input's own file name, e.g. `input.c`: the candidate is written under this name.
    pub file_name: OsString,
    pub timeout: Duration,
    /// Capture the script's stdout and stderr.
    pub verbose: bool,
    /// Where to create the private directories (`--temp-dir`); `None` means the system default.
    pub temp_root: Option<PathBuf>,
    /// Run each test as a job through this launcher (`--launcher`) instead of locally.
    pub launcher: Option<Launcher>,
    /// Capture both streams and derive each run's failure signature ([`Outcome::signature`]),
    /// whatever the conditions need.
    pub derive: bool,
    /// `--save-slipped`: where a candidate that fails another way goes.
    pub slipped: Option<Arc<Slipped>>,
}

/// Runs the test script on candidates, one at a time, in a private directory.
pub struct ScriptRunner {
    cfg: ScriptConfig,
    /// The absolute path of `work`.
    dir: PathBuf,
    work: TempDir,
    /// Set by another thread to kill the current run (see [`ScriptRunner::cancel_flag`]).
    cancel: Arc<AtomicBool>,
    /// The timeout in nanoseconds, read while a run goes on: it may be set during the run
    /// (the original's check decides it while the first candidates already run), and the
    /// pool's workers share one (see [`ScriptRunner::share_timeout`]).
    timeout: Arc<AtomicU64>,
    /// With a launcher: a private directory beside `work` holding the job wrapper and the
    /// status files, and the wrapper's path.
    jobs: Option<(TempDir, PathBuf)>,
    /// The local test's `$TMPDIR`, beside `work` and kept across its runs (a cache there
    /// lasts): what a killed test leaves there (a `mktemp -d` whose `trap` never ran, a
    /// compiler's temporary files) goes with the run instead of piling up in /tmp.
    scratch: TempDir,
}

impl ScriptRunner {
    /// Creates the private working directory.
    pub fn new(mut cfg: ScriptConfig) -> anyhow::Result<Self> {
        check_file_name(&cfg.file_name)?;
        if let TestCommand::Script(script) = &mut cfg.check.command {
            *script = std::path::absolute(&*script)
                .with_context(|| format!("cannot resolve test script {}", script.display()))?;
        }
        let work = private_dir(cfg.temp_root.as_deref(), "reduce-")?;
        let dir = fs::canonicalize(work.path())
            .with_context(|| format!("cannot resolve {}", work.path().display()))?;
        let jobs = match cfg.launcher {
            Some(_) => {
                let jobs = private_dir(cfg.temp_root.as_deref(), "reduce-job-")?;
                let wrapper = launcher::write_wrapper(jobs.path())?;
                Some((jobs, wrapper))
            }
            None => None,
        };
        let scratch = private_dir(cfg.temp_root.as_deref(), "reduce-tmp-")?;
        let timeout = Arc::new(AtomicU64::new(nanos(cfg.timeout)));
        Ok(ScriptRunner {
            cfg,
            dir,
            work,
            scratch,
            cancel: Arc::default(),
            timeout,
            jobs,
        })
    }

    /// A flag that, once set, kills the current run (status `Cancelled`) within one poll slice.
    /// Whoever sets it clears it before the next run.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }

    /// Sets the timeout, for the run going on too (its deadline moves).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout.store(nanos(timeout), Ordering::Relaxed);
    }

    /// The timeout now.
    pub fn timeout(&self) -> Duration {
        Duration::from_nanos(self.timeout.load(Ordering::Relaxed))
    }

    /// From now on the timeout is `shared`'s (one setting for every worker of a pool).
    pub fn share_timeout(&mut self, shared: Arc<AtomicU64>) {
        self.timeout = shared;
    }

    /// From the next run on, runs this test instead (`--reduce-args`: the same conditions on
    /// another command line).
    pub fn set_check(&mut self, check: Check) {
        self.cfg.check = check;
    }

    /// The absolute path of the directory the script runs in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The absolute path the candidate is written to.
    pub fn candidate_path(&self) -> PathBuf {
        self.dir.join(&self.cfg.file_name)
    }

    /// Runs the test on `candidate`. Errs only when the candidate cannot be written or the test
    /// cannot be started.
    pub fn run(&mut self, candidate: &[u8]) -> anyhow::Result<Outcome> {
        self.run_in(candidate, None)
    }

    /// Runs the script on `candidate` as one file of a multi-file set: the directory holds the
    /// whole `frame` and `$1` is the frame's argument.
    pub fn run_in(&mut self, candidate: &[u8], frame: Option<&Frame>) -> anyhow::Result<Outcome> {
        if signal::interrupted() {
            return Ok(Outcome::uninteresting(
                RunStatus::Interrupted,
                Duration::ZERO,
            ));
        }
        self.reset_dir()?;
        let path = match frame {
            Some(frame) => frame
                .write_into(&self.dir, candidate)
                .map_err(|e| fail(FailureKind::Io, format!("{e:#}")))?,
            None => self.write_candidate(candidate)?,
        };
        let start = Instant::now();
        let argv = self.cfg.check.argv(&path);
        let (status, output) = match self.cfg.launcher.is_some() {
            true => self.run_job(&argv)?,
            false => {
                let (mut child, run) = self.spawn(&argv)?;
                let captures = Captures::take(&mut child);
                let status = self.wait(&mut child);
                // the script is reaped and its group killed: whatever it left behind is an orphan now
                reaper::finished(&run);
                reaper::settle(run.pid);
                let captures = captures.context("cannot capture the test's output")?;
                (status?, captures.finish())
            }
        };
        let elapsed = start.elapsed();
        let signature = match self.derives() {
            true => {
                signature_of(status, output.stdout.as_ref(), output.stderr.as_ref()).map(Box::new)
            }
            false => None,
        };
        let streams = Streams {
            stdout: output.stdout.as_ref(),
            stderr: output.stderr.as_ref(),
            timeout: self.timeout(),
            signature: signature.as_deref(),
        };
        let via_shell = self.cfg.check.via_shell() || self.cfg.launcher.is_some();
        let unmet = self.cfg.check.conditions.unmet(status, via_shell, streams);
        if let (Some(slipped), Some(got), Some(want), None) = (
            &self.cfg.slipped,
            &signature,
            &self.cfg.check.conditions.same,
            frame,
        ) {
            // a side effect only: the verdict is the conditions'
            slipped.offer(want, got, candidate);
        }
        let shown = |c: &Option<capture::Captured>| match self.cfg.verbose {
            true => c.as_ref().map(|c| c.last_text(CAPTURE_LIMIT)),
            false => None,
        };
        Ok(Outcome {
            interesting: unmet.is_empty(),
            unmet,
            command: self
                .cfg
                .verbose
                .then(|| format!("{} (in {})", quote_words(&argv), self.dir.display())),
            status,
            elapsed,
            stdout: shown(&output.stdout),
            stderr: shown(&output.stderr),
            signature,
        })
    }

    /// Whether each run's failure signature is derived.
    fn derives(&self) -> bool {
        self.cfg.derive || self.cfg.slipped.is_some() || self.cfg.check.conditions.needs_signature()
    }

    /// Whether stdout, stderr are captured (for a condition, a signature, or to show them).
    fn captured_streams(&self) -> (bool, bool) {
        let c = &self.cfg.check.conditions;
        let derives = self.derives();
        (
            self.cfg.verbose || derives || c.needs_stdout(),
            self.cfg.verbose || derives || c.needs_stderr(),
        )
    }

    /// Recreates the working directory if the script removed it, and empties it.
    fn reset_dir(&self) -> anyhow::Result<()> {
        fs::create_dir_all(&self.dir)
            .and_then(|()| fs::set_permissions(&self.dir, Permissions::from_mode(0o700)))
            .map_err(|e| {
                fail(
                    FailureKind::Io,
                    format!(
                        "cannot recreate the working directory {}: {e}",
                        self.dir.display()
                    ),
                )
            })?;
        clear_dir(&self.dir);
        Ok(())
    }

    /// Writes a fresh candidate file. `create_new` never follows a symlink the script left.
    fn write_candidate(&self, candidate: &[u8]) -> anyhow::Result<PathBuf> {
        let path = self.candidate_path();
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut file| file.write_all(candidate))
            .map_err(|e| {
                fail(
                    FailureKind::Io,
                    format!("cannot write the candidate {}: {e}", path.display()),
                )
            })?;
        Ok(path)
    }

    fn spawn(&self, argv: &[OsString]) -> anyhow::Result<(Child, reaper::Run)> {
        let mut command = self.command(&argv[0], &argv[1..]);
        let what = match &self.cfg.check.command {
            TestCommand::Script(script) => format!("test script {}", script.display()),
            _ => format!("the test {}", quote_words(argv)),
        };
        spawn_retrying_busy(&mut command).map_err(|e| match e.raw_os_error() {
            // the spawn opens /dev/null for the test's stdin: not the test's fault
            _ if ensure_dev_null().is_err() => ensure_dev_null().unwrap_err(),
            Some(libc::ENOEXEC) => fail(
                FailureKind::BadScript,
                format!(
                    "failed to run {what}: the kernel cannot execute it; \
                     add an interpreter line such as `#!/bin/sh` as its first line"
                ),
            ),
            _ => fail(FailureKind::BadScript, format!("failed to run {what}: {e}")),
        })
    }

    /// A command run in the candidate's directory, stdin from `/dev/null`, stdout and stderr
    /// piped when captured, in its own process group. With `--signal` and no `ASAN_OPTIONS`
    /// of the user's, a sanitizer report aborts (SIGABRT) instead of exiting with status 1.
    fn command(&self, program: &OsStr, args: &[OsString]) -> Command {
        let mut command = Command::new(program);
        command.args(args);
        self.configure(&mut command);
        command
    }

    /// See [`ScriptRunner::command`].
    fn configure(&self, command: &mut Command) {
        let (out, err) = self.captured_streams();
        command
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Captures::stdio(out))
            .stderr(Captures::stdio(err))
            .process_group(0);
        // (a launcher's job keeps the node's own: this directory is on this machine)
        if self.cfg.launcher.is_none() {
            command.env("TMPDIR", self.scratch.path());
        }
        let signal = matches!(self.cfg.check.conditions.expect, Expect::Signal(_));
        if signal && std::env::var_os("ASAN_OPTIONS").is_none() {
            command.env("ASAN_OPTIONS", "abort_on_error=1");
        }
    }

    /// Waits for the script in short slices, watching the timeout and the interrupt flag.
    /// However the run ends, the script's whole process group is killed and the script reaped.
    fn wait(&self, child: &mut Child) -> anyhow::Result<RunStatus> {
        let start = Instant::now();
        loop {
            // read each time: the timeout may be set while the run goes on
            let deadline = start + self.timeout();
            if signal::interrupted() {
                return stop(child, RunStatus::Interrupted);
            }
            if self.cancel.load(Ordering::Relaxed) {
                return stop(child, RunStatus::Cancelled);
            }
            let now = Instant::now();
            if now >= deadline {
                return stop(child, RunStatus::TimedOut);
            }
            let slice = POLL_SLICE.min(deadline - now);
            let waited = child.wait_timeout(slice).inspect_err(|_| kill_group(child));
            if let Some(status) = waited.context("failed to wait for the test script")? {
                kill_group(child);
                return Ok(exit_status(status));
            }
        }
    }

    /// Runs the test as a job through the launcher, launching again (a bounded number of
    /// times) when the job ends without a status: that is the infrastructure, not a verdict.
    fn run_job(&self, argv: &[OsString]) -> anyhow::Result<(RunStatus, capture::Output)> {
        let (Some(launcher), Some((jobs, wrapper))) = (&self.cfg.launcher, &self.jobs) else {
            bail!("run_job without a launcher (internal error)");
        };
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let mut last = launcher::JobStatus::NotStarted;
        for _ in 0..launcher::LAUNCH_ATTEMPTS {
            let seq = SEQ.fetch_add(1, Ordering::Relaxed);
            let name = launcher.job_name(seq);
            let status = jobs.path().join(format!("status-{seq}"));
            let job = launcher::Job {
                name: &name,
                dir: &self.dir,
                wrapper,
                status: &status,
                argv,
                timeout: self.timeout(),
            };
            let mut command = launcher.command(&job);
            self.configure(&mut command);
            let (mut child, run) = spawn_retrying_busy(&mut command).map_err(|e| {
                fail(
                    FailureKind::Launcher,
                    format!(
                        "cannot start the --launcher command {}: {e}",
                        Path::new(command.get_program()).display()
                    ),
                )
            })?;
            let captures = Captures::take(&mut child);
            let waited = self.wait_job(&mut child, &name);
            reaper::finished(&run);
            reaper::settle(run.pid);
            let output = captures
                .context("cannot capture the test's output")?
                .finish();
            if let Some(stopped) = waited? {
                let _ = fs::remove_file(&status);
                return Ok((stopped, output));
            }
            last = launcher::read_status(&status);
            match last {
                launcher::JobStatus::TimedOut => return Ok((RunStatus::TimedOut, output)),
                launcher::JobStatus::Exited(code) => return Ok((RunStatus::Exited(code), output)),
                _ => {}
            }
        }
        Err(fail(
            FailureKind::Launcher,
            format!(
                "the --launcher cannot run jobs: {} in a row ended without a verdict, {}; check the --launcher command (run with -v to see its output)",
                launcher::LAUNCH_ATTEMPTS,
                last.describe()
            ),
        ))
    }

    /// Waits for a launched job. `Some` when it was stopped (cancelled, interrupted, or past
    /// the local backstop: then a lost job); `None` when the launcher exited by itself.
    fn wait_job(&self, child: &mut Child, name: &str) -> anyhow::Result<Option<RunStatus>> {
        // the timeout is enforced inside the job; this only catches a job that never returns
        let start = Instant::now();
        loop {
            let backstop = start + self.timeout().saturating_mul(3) + JOB_BACKSTOP;
            let stop = if signal::interrupted() {
                Some(RunStatus::Interrupted)
            } else if self.cancel.load(Ordering::Relaxed) {
                Some(RunStatus::Cancelled)
            } else if Instant::now() >= backstop {
                Some(RunStatus::TimedOut)
            } else {
                None
            };
            if let Some(status) = stop {
                terminate_job(child, name)?;
                return Ok((status != RunStatus::TimedOut).then_some(status));
            }
            let waited = child
                .wait_timeout(POLL_SLICE)
                .inspect_err(|_| kill_group(child));
            if waited
                .context("failed to wait for the --launcher command")?
                .is_some()
            {
                kill_group(child);
                return Ok(None);
            }
        }
    }
}

impl Drop for ScriptRunner {
    /// Empties the working and scratch directories even if the script made parts of them
    /// unwritable, so that `TempDir`'s own cleanup succeeds.
    fn drop(&mut self) {
        for dir in [self.work.path(), self.scratch.path()] {
            if fs::set_permissions(dir, Permissions::from_mode(0o700)).is_ok() {
                clear_dir(dir);
            }
        }
    }
}

/// `/dev/null` must open: every test reads its stdin from it, and the output nobody captures
/// goes there. Checked once before the first run (and again when a spawn fails), so that its
/// absence (a container or chroot without `/dev`) is named as such, not blamed on the test.
pub fn ensure_dev_null() -> anyhow::Result<()> {
    match OpenOptions::new().read(true).write(true).open("/dev/null") {
        Ok(_) => Ok(()),
        Err(e) => Err(fail(
            FailureKind::Io,
            format!(
                "cannot open /dev/null ({e}): every test reads its stdin from it and writes its discarded output to it; run reduce where /dev/null exists (in a container or chroot, mount /dev)"
            ),
        )),
    }
}

/// The candidate's name must be a single, normal path component.
fn check_file_name(name: &OsStr) -> anyhow::Result<()> {
    if Path::new(name).file_name() != Some(name) {
        bail!(
            "invalid input file name {:?}: expected a plain file name",
            Path::new(name)
        );
    }
    Ok(())
}

/// A fresh directory only the current user can enter.
fn private_dir(root: Option<&Path>, prefix: &str) -> anyhow::Result<TempDir> {
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(prefix)
        .permissions(Permissions::from_mode(0o700));
    match root {
        Some(root) => builder
            .tempdir_in(root)
            .with_context(|| format!("cannot create a temporary directory in {}", root.display())),
        None => builder
            .tempdir()
            .context("cannot create a temporary directory"),
    }
}

/// Removes every entry of `dir`, best effort: what cannot be removed is left for next time.
fn clear_dir(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if remove_entry(&path).is_err() {
            make_owner_writable(&path);
            let _ = remove_entry(&path);
        }
    }
}

/// Removes a file, symlink or whole directory tree. Never follows symlinks.
fn remove_entry(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path)?.is_dir() {
        true => fs::remove_dir_all(path),
        false => fs::remove_file(path),
    }
}

/// Spawns `command`, retrying a few times on ETXTBSY: another thread of this process may have
/// forked while it had a script open for writing, and the child holds that descriptor until exec.
fn spawn_retrying_busy(command: &mut Command) -> io::Result<(Child, reaper::Run)> {
    let mut attempt = 0;
    loop {
        match reaper::spawn_registered(command, |c| c.spawn()) {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && attempt < BUSY_RETRIES => {
                attempt += 1;
                thread::sleep(Duration::from_millis(5 * u64::from(attempt)));
            }
            result => return result,
        }
    }
}

/// Kills the script's process group, reaps the script and reports `status`.
fn stop(child: &mut Child, status: RunStatus) -> anyhow::Result<RunStatus> {
    kill_group(child);
    child.wait().context("failed to reap the test script")?;
    Ok(status)
}

/// Ends a launched job: SIGTERM to the launcher's process group (`srun` then cancels the job),
/// and if it has not ended after a grace period, `scancel` by name and SIGKILL.
fn terminate_job(child: &mut Child, name: &str) -> anyhow::Result<()> {
    signal_group(child, libc::SIGTERM);
    let grace = Instant::now() + JOB_GRACE;
    while Instant::now() < grace {
        if child.wait_timeout(POLL_SLICE)?.is_some() {
            kill_group(child);
            return Ok(());
        }
    }
    launcher::scancel_name(name);
    kill_group(child);
    child
        .wait()
        .context("failed to reap the --launcher command")?;
    Ok(())
}

fn signal_group(child: &Child, signal: libc::c_int) {
    let Ok(pgid) = libc::pid_t::try_from(child.id()) else {
        return;
    };
    // SAFETY: killpg has no memory-safety preconditions.
    unsafe {
        libc::killpg(pgid, signal);
    }
}

/// SIGKILLs the process group led by `child`. ESRCH (the group is already gone) is fine.
fn kill_group(child: &Child) {
    let Ok(pgid) = libc::pid_t::try_from(child.id()) else {
        return;
    };
    // SAFETY: killpg has no memory-safety preconditions.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

fn exit_status(status: ExitStatus) -> RunStatus {
    match (status.code(), status.signal()) {
        (Some(code), _) => RunStatus::Exited(code),
        (None, Some(signal)) => RunStatus::Signaled(signal),
        (None, None) => RunStatus::Exited(-1),
    }
}

#[cfg(test)]
#[path = "runner_tests.rs"]
mod tests;
