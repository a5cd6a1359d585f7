//! Running tests through a job launcher (`--launcher`), e.g. Slurm's `srun`, instead of as local
//! processes.
//!
//! The template is a command prefix with placeholders: `{dir}` (the candidate's directory),
//! `{name}` (a job name unique to this run: every name starts with [`Launcher::prefix`]) and
//! `{timeout}` (whole seconds). After it come a small wrapper script, the timeout, a status file,
//! and the test's command line (the script and the candidate, or the `-c`/`--` command). The wrapper runs on the worker node: it enforces the
//! timeout there (`timeout`, so time spent waiting in a queue never counts) and writes how the
//! test ended into the status file, next to (never inside) the candidate's directory. A job that
//! ends without a status (the launcher could not start it, the node died, the engine cancelled
//! it) is an infrastructure failure: it is retried, never read as "not interesting".

use std::fs::{self, Permissions};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail};

/// How often a job that ended without a status is launched again before the run fails.
pub const LAUNCH_ATTEMPTS: u32 = 3;

/// The wrapper: `job.sh STATUS SECONDS COMMAND...`. `timeout` sends SIGTERM at the limit and
/// SIGKILL 2 s later. The test runs in an inner shell that outlives SIGTERM (a trap, which the
/// test itself does not inherit) and records the test's own exit status in `STATUS.rc`; that
/// shell's exit makes `timeout` exit 0, unless `timeout` stopped the run: then it gives 124
/// (or 137 after SIGKILL) and the job timed out, whatever the test's status was (a test killed
/// by the timeout's SIGKILL is not a crash under `--signal`, and a test that exits 124 itself is
/// not a timeout). The status file says `exit N` or `timeout`; a job that ends with neither
/// (the record could not be written) reads as lost.
const WRAPPER: &str = r#"#!/bin/sh
# reduce's job wrapper: runs the test under `timeout` where the job runs, records how it ended.
status=$1 secs=$2
shift 2
echo started > "$status"
rm -f "$status.rc"
timeout -k 2 "$secs" sh -c 'trap : TERM; "$@"; echo "$?" > "$0"' "$status.rc" "$@" </dev/null
rc=$?
own=$(cat "$status.rc" 2>/dev/null)
rm -f "$status.rc"
case "$rc:$own" in
  124:*|137:*) verdict=timeout ;;
  0:[0-9]*) verdict="exit $own" ;;
  0:*) exit 1 ;;
  *) verdict="exit $rc" ;;
esac
echo "$verdict" > "$status.tmp" && mv -f "$status.tmp" "$status"
exit "$rc"
"#;

/// A parsed `--launcher` template.
#[derive(Clone, Debug)]
pub struct Launcher {
    words: Vec<String>,
    prefix: String,
}

/// What the status file says about a finished job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobStatus {
    /// The test ran and exited with this code (128+N: killed by signal N).
    Exited(i32),
    /// The test ran past its timeout and was stopped.
    TimedOut,
    /// The job started but did not finish (node lost, killed by the engine).
    Lost,
    /// The job never started.
    NotStarted,
}

impl JobStatus {
    /// How a job that gave no verdict ended, in words.
    pub fn describe(self) -> &'static str {
        match self {
            JobStatus::Exited(_) | JobStatus::TimedOut => "the test ran",
            JobStatus::Lost => {
                "the jobs started but ended before the test did (a node lost, the job cancelled)"
            }
            JobStatus::NotStarted => "the jobs never started the test",
        }
    }
}

impl Launcher {
    /// Splits the template like a shell would; every placeholder must be known.
    pub fn parse(template: &str) -> anyhow::Result<Launcher> {
        let Some(words) = shlex::split(template) else {
            bail!("cannot split --launcher {template:?} into words (an unclosed quote?)");
        };
        if words.is_empty() {
            bail!("--launcher is empty; give a command prefix such as 'srun -Q -J {{name}} --'");
        }
        for w in &words {
            let rest = w
                .replace("{dir}", "")
                .replace("{name}", "")
                .replace("{timeout}", "");
            if rest.contains('{') && rest.contains('}') {
                bail!(
                    "--launcher word {w:?} has an unknown placeholder; use {{dir}}, {{name}} or {{timeout}}"
                );
            }
        }
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() % 10_000);
        Ok(Launcher {
            words,
            prefix: format!("reduce-{}x{nonce}-", std::process::id()),
        })
    }

    /// Every job name of this run starts with this.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The job name of this run's `seq`-th job.
    pub fn job_name(&self, seq: u64) -> String {
        format!("{}{seq}", self.prefix)
    }

    /// The command line of one job: the template with its placeholders filled, then the
    /// wrapper and its arguments.
    pub fn command(&self, job: &Job<'_>) -> Command {
        let secs = job.timeout.as_secs_f64().ceil().max(1.0) as u64;
        let fill = |w: &str| {
            w.replace("{dir}", &job.dir.to_string_lossy())
                .replace("{name}", job.name)
                .replace("{timeout}", &secs.to_string())
        };
        let mut command = Command::new(fill(&self.words[0]));
        command.args(self.words[1..].iter().map(|w| fill(w)));
        command
            .arg(job.wrapper)
            .arg(job.status)
            .arg(secs.to_string())
            .args(job.argv);
        command
    }
}

/// One launch: where things are and what to call the job.
pub struct Job<'a> {
    pub name: &'a str,
    pub dir: &'a Path,
    pub wrapper: &'a Path,
    pub status: &'a Path,
    /// The test's command line (see [`crate::exec::check::Check::argv`]).
    pub argv: &'a [std::ffi::OsString],
    pub timeout: Duration,
}

/// Writes the wrapper script into `dir` (a directory every node sees) and returns its path.
pub fn write_wrapper(dir: &Path) -> anyhow::Result<PathBuf> {
    let path = dir.join("job.sh");
    fs::write(&path, WRAPPER)
        .and_then(|()| fs::set_permissions(&path, Permissions::from_mode(0o700)))
        .with_context(|| format!("cannot write the job wrapper {}", path.display()))?;
    Ok(path)
}

/// Reads (and removes) a job's status file.
pub fn read_status(path: &Path) -> JobStatus {
    let text = fs::read_to_string(path).unwrap_or_default();
    let _ = fs::remove_file(path);
    match text.trim().strip_prefix("exit ") {
        Some(code) => code.parse().map_or(JobStatus::Lost, JobStatus::Exited),
        None if text.trim() == "timeout" => JobStatus::TimedOut,
        None if text.trim() == "started" => JobStatus::Lost,
        None => JobStatus::NotStarted,
    }
}

/// Cancels the job named `name` through Slurm, if Slurm is there (a fallback when signalling
/// the launcher did not end it).
pub fn scancel_name(name: &str) {
    let _ = Command::new("scancel")
        .arg("--name")
        .arg(name)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Cancels every Slurm job whose name starts with `prefix` (on exit or Ctrl-C). Quietly does
/// nothing where Slurm is not installed.
pub fn cancel_by_prefix(prefix: &str) {
    let Ok(out) = Command::new("squeue")
        .args(["-h", "-o", "%i %j"])
        .stderr(Stdio::null())
        .output()
    else {
        return;
    };
    let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(_, name)| name.starts_with(prefix))
        .map(|(id, _)| id.to_string())
        .collect();
    if !ids.is_empty() {
        let _ = Command::new("scancel")
            .args(&ids)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_inside_words() {
        let l = Launcher::parse("srun -Q -J {name} --chdir={dir} --time={timeout} --").unwrap();
        let job = Job {
            name: "reduce-1-w0-3",
            dir: Path::new("/shared/w0"),
            wrapper: Path::new("/shared/job.sh"),
            status: Path::new("/shared/status"),
            argv: &["/t.sh".into(), "/shared/w0/input.c".into()],
            timeout: Duration::from_millis(1500),
        };
        let cmd = l.command(&job);
        let args: Vec<String> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(cmd.get_program(), "srun");
        assert_eq!(
            args,
            [
                "-Q",
                "-J",
                "reduce-1-w0-3",
                "--chdir=/shared/w0",
                "--time=2",
                "--",
                "/shared/job.sh",
                "/shared/status",
                "2",
                "/t.sh",
                "/shared/w0/input.c"
            ]
        );
    }

    #[test]
    fn bad_templates_are_rejected_with_the_flag_named() {
        for bad in ["", "srun {nmae}", "srun 'unclosed"] {
            let message = format!("{:#}", Launcher::parse(bad).unwrap_err());
            assert!(message.contains("--launcher"), "{message}");
        }
    }

    #[test]
    fn a_status_file_tells_verdicts_from_lost_jobs() {
        let dir = tempfile::tempdir().unwrap();
        let status = dir.path().join("s");
        assert_eq!(read_status(&status), JobStatus::NotStarted);
        fs::write(&status, "started\n").unwrap();
        assert_eq!(read_status(&status), JobStatus::Lost);
        fs::write(&status, "exit 3\n").unwrap();
        assert_eq!(read_status(&status), JobStatus::Exited(3));
        fs::write(&status, "timeout\n").unwrap();
        assert_eq!(read_status(&status), JobStatus::TimedOut);
        assert!(!status.exists(), "read_status removes the file");
    }

    #[test]
    fn job_names_share_the_runs_prefix() {
        let l = Launcher::parse("env").unwrap();
        assert!(l.job_name(7).starts_with(l.prefix()));
        assert!(l.prefix().starts_with("reduce-"));
    }
}
