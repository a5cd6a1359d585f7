//! Test processes never outlive their run, even when they leave the script's process group.
//!
//! A script can escape the process-group kill (`setsid cmd &`, a double fork into a new session).
//! So `reduce` makes itself a child subreaper (`PR_SET_CHILD_SUBREAPER`): orphans of a test run
//! reparent to it instead of init. Every script runs with [`MARKER`] in its environment, naming
//! this process and the run; descendants inherit it. After each run, [`sweep`] kills and reaps
//! every child of `reduce` that is neither a running script nor an orphan of a run still going;
//! at exit, [`kill_all`] also scans `/proc` for anything that still carries this process's
//! marker (a straggler whose parent lives on in another session).
//!
//! Every script is spawned through [`spawn_registered`], which holds the registry lock across
//! the fork, so a sweep never mistakes a just-spawned script for an orphan, and never reaps a
//! script its worker is about to wait for.

use std::collections::BTreeSet;
use std::io;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The environment variable that tags a test run's processes: `PID.RUN` (this process's pid).
pub const MARKER: &str = "REDUCE_TEST_RUN";

/// Scripts running now (their pids) and the runs they belong to.
struct Registry {
    scripts: BTreeSet<i32>,
    runs: BTreeSet<u64>,
    next_run: u64,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    scripts: BTreeSet::new(),
    runs: BTreeSet::new(),
    next_run: 0,
});

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes this process the reaper of its descendants' orphans. Best effort: without it (an old
/// kernel), escaped processes still die at exit through the `/proc` scan of [`kill_all`].
pub fn become_subreaper() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// A registered run: the script's pid and the run's number.
pub struct Run {
    pub pid: i32,
    id: u64,
}

/// Spawns `command` tagged with a fresh run's marker, registered as running.
pub fn spawn_registered(
    command: &mut Command,
    spawn: impl FnOnce(&mut Command) -> io::Result<Child>,
) -> io::Result<(Child, Run)> {
    let mut reg = registry();
    let id = reg.next_run;
    reg.next_run += 1;
    command.env(MARKER, format!("{}.{id}", std::process::id()));
    let child = spawn(command)?;
    let pid = i32::try_from(child.id()).unwrap_or(i32::MAX);
    reg.scripts.insert(pid);
    reg.runs.insert(id);
    Ok((child, Run { pid, id }))
}

/// The run's script has been reaped: from now on its leftovers are orphans to kill.
pub fn finished(run: &Run) {
    let mut reg = registry();
    reg.scripts.remove(&run.pid);
    reg.runs.remove(&run.id);
}

/// Waits (briefly) until no process is left in the run's process group, killing and reaping
/// the orphans that reach this process meanwhile. The group was just sent SIGKILL. After an
/// interrupt it returns at once: the pool's [`kill_all`] at the end sweeps once for every run.
pub fn settle(pgid: i32) {
    if crate::signal::interrupted() {
        return;
    }
    let deadline = Instant::now() + Duration::from_millis(200);
    loop {
        sweep();
        // SAFETY: signal 0 only asks whether any process of the group exists.
        let gone = unsafe { libc::kill(-pgid, 0) } == -1
            && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Kills and reaps every child of this process that is not a running script and not an orphan
/// of a run still going. Repeats while it finds some (a killed orphan's children reparent here).
///
/// A sweep reads `/proc` for every thread and child, so at a wide `-j` it costs about as much
/// as the width; when many runs end at once (a cancelled batch, an interrupt) their sweeps are
/// shared: a caller whose request a whole sweep has begun and ended after takes that one
/// instead of running its own, so the cost does not grow with the square of the width.
pub fn sweep() {
    let asked = SWEEPS_DONE.load(Ordering::SeqCst);
    let _turn = SWEEPING.lock().unwrap_or_else(|e| e.into_inner());
    // sweep `asked + 1` may have been under way when this one was asked for; `asked + 2`
    // began after it
    if SWEEPS_DONE.load(Ordering::SeqCst) >= asked + 2 {
        return;
    }
    for _ in 0..16 {
        if sweep_once() == 0 {
            break;
        }
    }
    SWEEPS_DONE.fetch_add(1, Ordering::SeqCst);
}

/// How many sweeps have ended (see [`sweep`]).
static SWEEPS_DONE: AtomicU64 = AtomicU64::new(0);

/// Held while a sweep runs: one at a time.
static SWEEPING: Mutex<()> = Mutex::new(());

/// At the end of a run: kills everything that carries this process's marker of a finished run
/// anywhere on the machine, and reaps every such child, until nothing is left (bounded).
pub fn kill_all() {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let found = sweep_once() + kill_marked_anywhere();
        if found == 0 || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// One pass over this process's children; returns how many it killed or reaped.
fn sweep_once() -> usize {
    let reg = registry();
    let victims: Vec<i32> = children()
        .into_iter()
        .filter(|pid| !reg.scripts.contains(pid))
        .filter(|&pid| !matches!(marker_of(pid), Some(id) if reg.runs.contains(&id)))
        .collect();
    for &pid in &victims {
        // SAFETY: pid is our own child (it cannot be reused before we reap it).
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    reap(&victims);
    victims.len()
}

/// Waits a little for killed children to die, then reaps them; gives up after 100 ms for all
/// of them together (a process in uninterruptible sleep is left for the next sweep). They die
/// at once, not one after the other: hundreds of them cost one wait, not hundreds.
fn reap(pids: &[i32]) {
    let deadline = Instant::now() + Duration::from_millis(100);
    let mut left: Vec<i32> = pids.to_vec();
    while !left.is_empty() {
        left.retain(|&pid| {
            let mut status = 0;
            // SAFETY: waiting for a specific child of ours, with a valid status pointer.
            let rc = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            rc == 0
        });
        if left.is_empty() || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// This process's children (from every thread: orphans may be handed to any of them).
fn children() -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                list.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The run number in `pid`'s marker, if it carries this process's marker.
fn marker_of(pid: i32) -> Option<u64> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{MARKER}={}.", std::process::id());
    environ
        .split(|&b| b == 0)
        .find_map(|var| var.strip_prefix(prefix.as_bytes()))
        .and_then(|id| std::str::from_utf8(id).ok()?.parse().ok())
}

/// SIGKILLs every process on the machine that carries this process's marker of a finished run.
fn kill_marked_anywhere() -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let me = std::process::id() as i32;
    let mut n = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        let Some(run) = marker_of(pid) else {
            continue;
        };
        if pid != me && !registry().runs.contains(&run) {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            n += 1;
        }
    }
    n
}
