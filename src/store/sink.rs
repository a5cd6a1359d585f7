//! Where the best result so far lives: the input itself (after saving `INPUT.orig`), a file given
//! with `-o`, or memory for `-o -` and for outputs that are not regular files.
//!
//! Two steps: [`SinkPlan::new`] checks every location before the first test runs and writes
//! nothing; [`SinkPlan::open`], once the original is known to be interesting, saves the backup
//! (or writes the original to `-o`). Every write to a regular file is atomic (temp file in the
//! same directory, then rename), so killing the process at any moment leaves the previous best or
//! the new one. A symlinked `-o` is written through to its target. A pipe, FIFO, terminal or
//! device gets the final result once, at the end.

use std::fs::{self, File, FileTimes, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use crate::exit::{FailureKind, fail};
use crate::store::paths::{parent_of, probe_writable, resolve_new, stream_of};
use crate::store::resume::ResumeLog;

/// Where the result goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Rewrite INPUT after every improvement; the original is saved as INPUT.orig.
    InPlace,
    File(PathBuf),
    Stdout,
}

/// What a written file inherits from the input.
#[derive(Clone, Debug, Default)]
pub struct FileMeta {
    pub mode: Option<fs::Permissions>,
    /// Owner and group, applied only when running as root.
    pub owner: Option<(u32, u32)>,
    /// Access and modification times (for the backup: it *is* the original).
    pub times: Option<FileTimes>,
}

impl FileMeta {
    pub fn of(input: &Path) -> FileMeta {
        let Ok(m) = fs::metadata(input) else {
            return FileMeta::default();
        };
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let times = m
            .modified()
            .ok()
            .zip(m.accessed().ok())
            .map(|(modified, accessed)| {
                FileTimes::new()
                    .set_modified(modified)
                    .set_accessed(accessed)
            });
        FileMeta {
            mode: Some(m.permissions()),
            owner: root.then(|| (m.uid(), m.gid())),
            times,
        }
    }

    fn without_times(&self) -> FileMeta {
        FileMeta {
            times: None,
            ..self.clone()
        }
    }
}

#[derive(Clone, Debug)]
enum Target {
    /// One of the process's descriptors: stdout for `-o -`, or the one `/dev/stdout` or
    /// `/dev/fd/N` names: written once, at the end.
    Stream(i32),
    /// A regular file (or one to create), symlinks resolved: replaced atomically.
    File(PathBuf),
    /// Not a regular file: written once, at the end.
    Deferred(PathBuf),
}

/// The checked output locations of a run; nothing written yet.
pub struct SinkPlan {
    target: Target,
    /// The path as the user gave it, for messages.
    shown: Option<PathBuf>,
    backup: Option<PathBuf>,
    meta: FileMeta,
    force: bool,
    resume: Option<ResumeLog>,
    /// INPUT's bytes, when the resume record says they are a result of this command's earlier
    /// run (set by [`SinkPlan::resume_from`]; not trusted before a real run of the test).
    resume_point: Option<Vec<u8>>,
}

impl SinkPlan {
    /// Checks where the result and the backup will go: directories exist and are writable, a
    /// read-only `-o` file is not overwritten without `--force`. Writes nothing.
    pub fn new(output: &Output, input: &Path, force: bool) -> Result<SinkPlan> {
        let meta = FileMeta::of(input);
        let (target, shown, backup) = match output {
            Output::Stdout => (Target::Stream(1), None, None),
            Output::File(path) => (check_output_file(path, force)?, Some(path.clone()), None),
            Output::InPlace => {
                let backup = backup_path(input);
                probe_writable(parent_of(input)).map_err(|e| {
                    fail(
                        FailureKind::Io,
                        format!(
                            "cannot save the original as {} ({e}): is the directory writable? Use -o to write the result elsewhere",
                            backup.display()
                        ),
                    )
                })?;
                // a symlinked input is written through, as `-o` is: the link stays a link
                let real = fs::canonicalize(input).unwrap_or_else(|_| input.to_path_buf());
                (Target::File(real), Some(input.to_path_buf()), Some(backup))
            }
        };
        Ok(SinkPlan {
            target,
            shown,
            backup,
            meta,
            force,
            resume: None,
            resume_point: None,
        })
    }

    /// Keeps the resume record of an in-place run (see `resume.rs`).
    pub fn set_resume(&mut self, log: Option<ResumeLog>) {
        if self.backup.is_some() {
            self.resume = log;
        }
    }

    /// When the record says INPUT (`input`) is a result of the earlier run that saved a
    /// differing `INPUT.orig`, this run resumes it: the original to start from (the backup's
    /// content). The claim holds only once INPUT passes a real run of the test
    /// ([`SinkPlan::resume_point`], [`SinkPlan::refuse_resume`]).
    pub fn resume_from(&mut self, input: &[u8]) -> Option<Vec<u8>> {
        let log = self.resume.as_mut()?;
        let backup = fs::read(self.backup.as_ref()?).ok()?;
        let claimed = backup != input && log.resumes(input, &backup);
        self.resume_point = claimed.then(|| input.to_vec());
        claimed.then_some(backup)
    }

    /// INPUT, when the run would resume from it: the test must pass on it before the record's
    /// results are trusted.
    pub fn resume_point(&self) -> Option<&[u8]> {
        self.resume_point.as_deref()
    }

    /// The resume point failed its real run: the record is not trusted and the run does not
    /// resume. Without `--force`, the refusal of a differing `INPUT.orig` applies (as without a
    /// record); with it, `Ok`: the caller goes on as without a record.
    pub fn refuse_resume(&mut self) -> Result<()> {
        let point = self.resume_point.take().unwrap_or_default();
        let refusal = self.refusal(&point);
        self.resume = None;
        match refusal {
            Some(refusal) if !self.force => Err(refusal),
            _ => Ok(()),
        }
    }

    /// The refusal of a differing `INPUT.orig` when INPUT holds `input` (`None`: no backup, or
    /// an identical one): it says whether the record knows the backup as the original of a run
    /// that finished with `input` as its result.
    fn refusal(&self, input: &[u8]) -> Option<anyhow::Error> {
        let backup = self.backup.as_ref()?;
        let saved = fs::read(backup).ok()?;
        if saved == input {
            return None;
        }
        let finished = self
            .resume
            .as_ref()
            .is_some_and(|log| log.finished_with(input, &saved));
        Some(match finished {
            true => fail(
                FailureKind::Usage,
                format!(
                    "{b} is the original of an earlier run that finished, and {i} is its result: to reduce it further with another test, move {b} away, or pass --force (keeps it as {b}.N), or use -o",
                    b = backup.display(),
                    i = self.shown.as_deref().unwrap_or(backup).display(),
                ),
            ),
            false => backup_refusal(backup, ("input", "-o")),
        })
    }

    /// The results the resumed run wrote: all known interesting.
    pub fn known_results(&self) -> Vec<u128> {
        self.resume
            .as_ref()
            .map_or_else(Vec::new, ResumeLog::known_results)
    }

    /// The file the run will rewrite, for the run lock (`None` for stdout and devices).
    pub fn locked_file(&self) -> Option<&Path> {
        match &self.target {
            Target::File(p) => Some(p),
            _ => None,
        }
    }

    /// Saves the backup (in place) or writes the original to `-o`: from now on the target always
    /// holds an interesting file.
    pub fn open(mut self, original: &[u8]) -> Result<Sink> {
        if let Some(backup) = &self.backup {
            // with a record, the refusal may know more (save_backup refuses the same otherwise)
            if !self.force
                && self.resume.is_some()
                && let Some(refusal) = self.refusal(original)
            {
                return Err(refusal);
            }
            save_backup(backup, original, self.force, &self.meta)?;
        }
        if self
            .resume
            .as_mut()
            .is_some_and(|r| r.start(original).is_err())
        {
            self.resume = None;
        }
        let mut sink = Sink {
            target: self.target,
            shown: self.shown,
            backup: self.backup,
            meta: self.meta.without_times(),
            resume: self.resume,
            // a resumed run starts again from the original: INPUT keeps the resume point
            held: self.resume_point,
        };
        if sink.backup.is_none() {
            sink.write(original)?;
        }
        Ok(sink)
    }
}

pub struct Sink {
    target: Target,
    shown: Option<PathBuf>,
    pub backup: Option<PathBuf>,
    meta: FileMeta,
    /// The resume record of an in-place run (dropped at its first write error).
    resume: Option<ResumeLog>,
    /// What INPUT holds while a resumed run replays its way back: the resume point (known
    /// interesting: it passed a real run), until a smaller result replaces it.
    held: Option<Vec<u8>>,
}

impl Sink {
    /// A sink that keeps nothing on disk (before the original is checked).
    pub fn memory() -> Sink {
        Sink {
            target: Target::Stream(1),
            shown: None,
            backup: None,
            meta: FileMeta::default(),
            resume: None,
            held: None,
        }
    }

    /// Whether running the same command again resumes this run: it keeps a resume record.
    pub fn resumable(&self) -> bool {
        self.resume.is_some()
    }

    /// The output path as the user named it (`None`: stdout).
    pub fn target(&self) -> Option<&Path> {
        self.shown.as_deref()
    }

    /// Replaces a regular target's content atomically. Stdout and devices wait for [`finish`].
    ///
    /// [`finish`]: Sink::finish
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let Target::File(target) = &self.target else {
            return Ok(());
        };
        // a resumed run on its way back: INPUT keeps the smaller resume point (see `settle`)
        if self.held.as_ref().is_some_and(|h| bytes.len() >= h.len()) {
            return Ok(());
        }
        self.held = None;
        if let Some(log) = &mut self.resume {
            // the record first: a kill between the two leaves INPUT at a result it names (a
            // result the record has already is not recorded again)
            if log.before_write(bytes).is_err() {
                self.resume = None;
            }
        }
        write_atomically(target, bytes, &self.meta).map_err(|e| {
            fail(
                FailureKind::Io,
                format!(
                    "cannot write the result to {}: {}",
                    target.display(),
                    e.root_cause()
                ),
            )
        })
    }

    /// What the run's result is, when the run ends with `best`: what INPUT holds, if a resumed
    /// run stopped before its replay got below the resume point (`--max-attempts`, an
    /// interrupt). `None`: INPUT holds `best`. So the report and the file on disk agree, and the
    /// disk keeps the smallest known-interesting result.
    pub fn settle(&mut self, best: &[u8]) -> Option<Vec<u8>> {
        self.held.take().filter(|held| held.as_slice() != best)
    }

    /// The run ended on its own with `result`: the resume record says so (best effort).
    pub fn finished(&mut self, result: &[u8]) {
        if let Some(log) = &mut self.resume
            && log.finish(result).is_err()
        {
            self.resume = None;
        }
    }

    /// Writes the final result where only the final result goes: stdout, a pipe, a device.
    pub fn finish(&self, bytes: &[u8]) -> Result<()> {
        match &self.target {
            Target::File(_) => Ok(()),
            Target::Stream(fd) => write_fd(*fd, bytes).map_err(|e| {
                let shown = self
                    .shown
                    .as_ref()
                    .map_or("stdout".into(), |p| p.display().to_string());
                fail(
                    FailureKind::Io,
                    format!("cannot write the result to {shown}: {e}"),
                )
            }),
            Target::Deferred(path) => write_deferred(path, bytes),
        }
    }
}

/// Checks `-o PATH` and resolves what to write: a regular file (through symlinks) or a device.
fn check_output_file(path: &Path, force: bool) -> Result<Target> {
    let shown = path.display();
    if let Some(fd) = stream_of(path) {
        return Ok(Target::Stream(fd));
    }
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(fail(
                FailureKind::Io,
                format!("cannot write -o {shown}: it is a directory; name a file"),
            ));
        }
        Ok(m) if !m.is_file() => return Ok(Target::Deferred(path.to_path_buf())),
        Ok(m) if m.permissions().mode() & 0o222 == 0 && !force => {
            return Err(fail(
                FailureKind::Usage,
                format!(
                    "-o {shown} is read-only: pass --force to overwrite it, or name another file"
                ),
            ));
        }
        _ => {}
    }
    let real = match fs::canonicalize(path) {
        Ok(p) => p,
        Err(_) => resolve_new(path),
    };
    let parent = parent_of(&real);
    if !parent.is_dir() {
        let why = if parent.exists() {
            "is not a directory"
        } else {
            "does not exist"
        };
        return Err(fail(
            FailureKind::Io,
            format!(
                "cannot write -o {shown}: directory {} {why}",
                parent_of(path).display()
            ),
        ));
    }
    probe_writable(parent).map_err(|e| {
        fail(
            FailureKind::Io,
            format!(
                "cannot write -o {shown}: directory {} ({e})",
                parent.display()
            ),
        )
    })?;
    Ok(Target::File(real))
}

pub fn backup_path(input: &Path) -> PathBuf {
    let mut name = input.as_os_str().to_owned();
    name.push(".orig");
    PathBuf::from(name)
}

/// Makes way for a new backup at `backup`: `true` when an identical one (`same`) is already
/// there. A different one stops the run without `--force` and moves to the next free
/// `BACKUP.N` with it, so an original is never lost. `what` names what is backed up and the
/// `-o` form that avoids a backup, for the message.
pub fn make_way_for_backup(
    backup: &Path,
    same: impl FnOnce() -> bool,
    force: bool,
    (what, output): (&str, &str),
) -> Result<bool> {
    if fs::symlink_metadata(backup).is_err() {
        return Ok(false);
    }
    if same() {
        return Ok(true);
    }
    if !force {
        return Err(backup_refusal(backup, (what, output)));
    }
    let kept = next_free(backup);
    fs::rename(backup, &kept).map_err(|e| {
        fail(
            FailureKind::Io,
            format!(
                "cannot keep the old {} as {}: {e}",
                backup.display(),
                kept.display()
            ),
        )
    })?;
    Ok(false)
}

/// The refusal of a differing `backup` (exit 2): keep it.
fn backup_refusal(backup: &Path, (what, output): (&str, &str)) -> anyhow::Error {
    fail(
        FailureKind::Usage,
        format!(
            "{b} already exists and differs from the {what}: it is very likely the original of an earlier run that was interrupted (the {what} then holds that run's partial result); keep it: move it away, or pass --force to keep it as {b}.N and back up the current {what}, or use {output}",
            b = backup.display()
        ),
    )
}

/// Saves the original as `INPUT.orig`. An existing, different one is kept: without `--force`
/// the run stops; with it, the old backup moves to the next free `INPUT.orig.N` first. (A
/// resumed run starts from the backup's content: see [`SinkPlan::resume_from`].)
pub fn save_backup(backup: &Path, original: &[u8], force: bool, meta: &FileMeta) -> Result<()> {
    let same = || fs::read(backup).is_ok_and(|existing| existing == original);
    if make_way_for_backup(backup, same, force, ("input", "-o"))? {
        return Ok(());
    }
    write_atomically(backup, original, meta).map_err(|e| {
        fail(
            FailureKind::Io,
            format!(
                "cannot save the original as {} ({}): is the directory writable? Use -o to write the result elsewhere",
                backup.display(),
                e.root_cause()
            ),
        )
    })
}

/// `PATH.1`, `PATH.2`, ...: the first that does not exist.
pub fn next_free(path: &Path) -> PathBuf {
    (1u32..)
        .map(|n| {
            let mut name = path.as_os_str().to_owned();
            name.push(format!(".{n}"));
            PathBuf::from(name)
        })
        .find(|p| fs::symlink_metadata(p).is_err())
        .unwrap_or_else(|| path.to_path_buf())
}

/// Opens a FIFO or device without blocking (a FIFO without a reader would block `open` for
/// ever), waiting for a reader while no interrupt arrives, then writes `bytes`.
fn write_deferred(path: &Path, bytes: &[u8]) -> Result<()> {
    let shown = path.display();
    let file = loop {
        match OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
        {
            Ok(f) => break f,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if crate::signal::interrupted() {
                    return Err(fail(
                        FailureKind::Interrupted,
                        format!(
                            "interrupted while waiting for a reader of {shown}; the result was not written there"
                        ),
                    ));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => {
                return Err(fail(
                    FailureKind::Io,
                    format!("cannot write the result to {shown}: {e}"),
                ));
            }
        }
    };
    set_blocking(&file);
    (&file).write_all(bytes).map_err(|e| {
        fail(
            FailureKind::Io,
            format!("cannot write the result to {shown}: {e}"),
        )
    })
}

fn set_blocking(file: &File) {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a valid descriptor with integer arguments.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
}

/// Writes `bytes` to one of the process's descriptors, as it is (no truncation, no rename).
fn write_fd(fd: i32, bytes: &[u8]) -> std::io::Result<()> {
    match fd {
        1 => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes).and_then(|_| out.flush())
        }
        2 => std::io::stderr().lock().write_all(bytes),
        _ => {
            use std::os::fd::FromRawFd;
            // SAFETY: the descriptor is the caller's to write; ManuallyDrop keeps it open.
            let file = std::mem::ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
            (&*file).write_all(bytes)
        }
    }
}

/// Writes a record of the run (`--stats-json`) by the rule for every output: a regular file (or
/// one to create, through symlinks) is replaced atomically; a stream (`/dev/stdout`), a pipe or
/// a device is written in place, once, and never renamed over.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(fd) = stream_of(path) {
        return write_fd(fd, bytes).with_context(|| format!("cannot write {}", path.display()));
    }
    if fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return write_deferred(path, bytes);
    }
    let target = fs::canonicalize(path).unwrap_or_else(|_| resolve_new(path));
    write_atomically(&target, bytes, &FileMeta::default())
}

/// Temp file in the target's directory, renamed over the target: a crash or SIGKILL at any
/// moment leaves the old file or the new one. (No fsync: it would cost milliseconds on every
/// improvement and only matters if the machine loses power.)
pub fn write_atomically(target: &Path, bytes: &[u8], meta: &FileMeta) -> Result<()> {
    // a device or a FIFO is written to, never renamed over: as root, a rename would replace
    // /dev/null with a regular file
    if fs::metadata(target).is_ok_and(|m| !m.is_file()) {
        return fs::write(target, bytes)
            .with_context(|| format!("cannot write {}", target.display()));
    }
    let dir = parent_of(target);
    let mut tmp = tempfile::Builder::new()
        .prefix(".reduce-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temp file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("cannot write {}", tmp.path().display()))?;
    apply_meta(tmp.as_file(), meta);
    tmp.persist(target)
        .with_context(|| format!("cannot replace {}", target.display()))?;
    Ok(())
}

/// Best effort: a file system without owners or times still gets the content.
fn apply_meta(file: &File, meta: &FileMeta) {
    if let Some((uid, gid)) = meta.owner {
        let _ = std::os::unix::fs::fchown(file, Some(uid), Some(gid));
    }
    if let Some(mode) = &meta.mode {
        let _ = file.set_permissions(mode.clone());
    }
    if let Some(times) = meta.times {
        let _ = file.set_times(times);
    }
}
