//! Tests run through `--launcher`: a fake launcher that delays, reorders and loses jobs, and
//! (when `.ci/run` has started the one-node cluster of `scripts/slurm-start.sh` and set
//! `REDUCE_SLURM_TEST=1`) real Slurm through `srun`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{TestEnv, assert_bytes, wait_at_most};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// Reduces fixture `case` in `env` with `args`, its temp files in `env`; the result's bytes.
fn reduce_in(env: &TestEnv, case: &str, tag: &str, args: &[&str]) -> Vec<u8> {
    let dir = fixture(case);
    let input = format!("{tag}/input.c");
    env.write(&input, std::fs::read(dir.join("input.c")).unwrap());
    let work = env.join(format!("{tag}/work"));
    std::fs::create_dir_all(&work).unwrap();
    let test = dir.join("interesting.sh");
    let mut full: Vec<&str> = vec!["-q", "--temp-dir", work.to_str().unwrap()];
    full.extend_from_slice(args);
    full.extend_from_slice(&["--test", test.to_str().unwrap(), "-o", "-", &input]);
    let run = env.run(&full);
    run.expect_code(0);
    run.stdout
}

/// A launcher that runs the job after a delay that varies by job, and by its sequence number
/// sometimes fails to start it or loses it half-way (runs it in the background and kills it),
/// never twice in a row for one candidate directory (so that the bounded retries suffice).
const FAKE_LAUNCHER: &str = r#"name=$1 dir=$2
shift 3
echo "$name" >> "$LOG"
seq=${name##*-}
mark="$LOG.$(basename "$dir")"
if [ -e "$mark" ]; then rm -f "$mark"; else
  if [ $((seq % 5)) -eq 0 ]; then touch "$mark"; echo "$name not started" >> "$LOG"; exit 1; fi
  if [ $((seq % 7)) -eq 3 ]; then
    touch "$mark"
    cd "$dir" && { "$@" & pid=$!; kill -9 $pid; }
    echo "$name lost" >> "$LOG"
    exit 0
  fi
fi
sleep 0.0$(( (seq * 7919) % 9 ))
cd "$dir" || exit 1
exec "$@""#;

#[test]
fn a_fake_launcher_that_delays_reorders_and_loses_jobs_gives_the_serial_result() {
    let env = TestEnv::new();
    let launcher = env.script("launcher.sh", FAKE_LAUNCHER);
    let log = env.join("launcher.log");
    let template = format!("{} {{name}} {{dir}} {{timeout}}", launcher.display());
    for algo in ["perses", "hdd", "ddmin"] {
        let serial = reduce_in(
            &env,
            "nested-if",
            &format!("{algo}-j1"),
            &["-j1", "--algo", algo],
        );
        let mut cmd_args = vec!["-j4", "--algo", algo, "--launcher", &template];
        if algo == "ddmin" {
            // a known timeout: the original's check then runs beside the first jobs (the
            // others wait for it, as a launched job fixes its timeout when it starts)
            cmd_args.extend_from_slice(&["--timeout", "30"]);
        }
        let work = env.join(format!("{algo}-shared"));
        std::fs::create_dir_all(&work).unwrap();
        cmd_args.extend_from_slice(&["--work-dir", work.to_str().unwrap()]);
        let wide = {
            let dir = fixture("nested-if");
            env.write(
                format!("{algo}-j4/input.c"),
                std::fs::read(dir.join("input.c")).unwrap(),
            );
            let test = dir.join("interesting.sh");
            let mut full = vec!["-q"];
            full.extend_from_slice(&cmd_args);
            let input = format!("{algo}-j4/input.c");
            full.extend_from_slice(&["--test", test.to_str().unwrap(), "-o", "-", &input]);
            let out = env.command(&full).env("LOG", &log).output().unwrap();
            assert!(
                out.status.success(),
                "{algo}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        assert_bytes(&format!("{algo} through the launcher"), &serial, &wide);
        let left: Vec<_> = std::fs::read_dir(&work).unwrap().collect();
        assert!(left.is_empty(), "the work dir is cleaned up: {left:?}");
    }
    let log = String::from_utf8(env.read("launcher.log")).unwrap();
    assert!(log.lines().count() > 20, "jobs went through the launcher");
    assert!(log.contains("not started") && log.contains("lost"), "{log}");
}

#[test]
fn a_launcher_that_never_starts_a_job_is_an_error_not_a_verdict() {
    let env = TestEnv::new();
    let launcher = env.script("launcher.sh", "exit 1");
    let template = format!("{} {{name}}", launcher.display());
    env.write("input.txt", "a\nb\n");
    let test = env.script("t.sh", "grep -q a \"$1\"");
    let work = env.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let run = env.run([
        "-q",
        "-j2",
        "--algo",
        "ddmin",
        "--launcher",
        &template,
        "--work-dir",
        work.to_str().unwrap(),
        "--test",
        test.to_str().unwrap(),
        "input.txt",
    ]);
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("--launcher"), "{}", run.stderr);
}

fn slurm_enabled() -> bool {
    std::env::var_os("REDUCE_SLURM_TEST").is_some()
}

fn our_jobs() -> Vec<String> {
    let out = Command::new("squeue")
        .args(["-h", "-o", "%j"])
        .output()
        .expect("squeue runs (REDUCE_SLURM_TEST is set)");
    assert!(out.status.success(), "squeue failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|n| n.starts_with("reduce-"))
        .map(str::to_string)
        .collect()
}

/// Needs the one-node cluster (`scripts/slurm-start.sh`); `.ci/run` starts it and sets
/// `REDUCE_SLURM_TEST=1`. Without the variable there is nothing to test against; with it,
/// every failure of `srun` fails the test.
#[test]
fn slurm_runs_give_the_local_serial_result_and_ctrl_c_leaves_no_jobs() {
    if !slurm_enabled() {
        eprintln!("REDUCE_SLURM_TEST is not set: the Slurm test needs scripts/slurm-start.sh");
        return;
    }
    let srun = Command::new("srun")
        .args(["-Q", "true"])
        .status()
        .expect("srun can be started");
    assert!(srun.success(), "srun true failed: is the cluster up?");
    let env = TestEnv::new();
    let template = "srun -Q -J {name} --chdir={dir} --";
    let serial = reduce_in(&env, "nested-if", "local", &["-j1", "--algo", "perses"]);
    let shared = env.join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    let args = [
        "-j4",
        "--algo",
        "perses",
        "--launcher",
        template,
        "--work-dir",
        shared.to_str().unwrap(),
    ];
    let through_slurm = reduce_in(&env, "nested-if", "slurm", &args);
    assert_bytes("through srun", &serial, &through_slurm);

    // Ctrl-C while jobs are running: every job of the run is gone afterwards
    env.write("slow/input.txt", "a\nb\nc\nd\n");
    let slow = env.script("slow.sh", "sleep 30\ngrep -q a \"$1\"");
    let mut child = env
        .command([
            "-q",
            "-j2",
            "--algo",
            "ddmin",
            "--timeout",
            "100",
            "--launcher",
            template,
            "--work-dir",
            shared.to_str().unwrap(),
            "--test",
            slow.to_str().unwrap(),
            "slow/input.txt",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // the original's check is the first job
    let give_up = Instant::now() + Duration::from_secs(30);
    while our_jobs().is_empty() {
        assert!(
            Instant::now() < give_up,
            "no job of the run ever appeared in squeue"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = wait_at_most(&mut child, Duration::from_secs(30));
    assert!(!status.success());
    let give_up = Instant::now() + Duration::from_secs(10);
    while !our_jobs().is_empty() {
        assert!(
            Instant::now() < give_up,
            "jobs left behind: {:?}",
            our_jobs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
