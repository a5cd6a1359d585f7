//! The run's own temp directory, and the sweep of those that killed runs left behind.
//!
//! Each run creates one private `reduce-XXXXXX` directory (0700) under `--temp-dir` or
//! `$TMPDIR`, holding a marker (`reduce-run`: a fixed text naming the directory's own device and
//! inode, so that only the directory `reduce` made carries the right one), a `lock` file that the
//! run keeps `flock`ed (with its pid inside) and the workers' directories. A run killed with
//! SIGKILL cannot remove it, but the kernel drops its lock; the next run removes a directory only
//! when all of these hold: its name is `reduce-` and six letters or digits, it is a real
//! directory (not a symlink) this user owns, its marker is a regular file with the right text,
//! and its `lock` is a regular file nobody holds. Anything else (a user's `reduce-notes/` with a
//! `lock` file in it, a copy of a run directory, a live run's) is kept.

use std::fs::{self, File, Permissions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::store::runlock::try_lock;
use tempfile::TempDir;

const PREFIX: &str = "reduce-";
/// The random part of a run directory's name: letters and digits.
const RANDOM_LEN: usize = 6;
const LOCK: &str = "lock";
const MARKER: &str = "reduce-run";

/// A run's temp directory, locked for as long as it lives.
pub struct RunDir {
    dir: TempDir,
    /// Held open: the `flock` lasts as long as the descriptor.
    _lock: File,
}

impl RunDir {
    /// Creates `reduce-XXXXXX` under `root` (default: the system temp directory) and locks it.
    pub fn create(root: Option<&Path>) -> Result<RunDir> {
        let mut builder = tempfile::Builder::new();
        builder
            .prefix(PREFIX)
            .rand_bytes(RANDOM_LEN)
            .permissions(Permissions::from_mode(0o700));
        let dir = match root {
            Some(root) => builder.tempdir_in(root).with_context(|| {
                format!("cannot create a temporary directory in {}", root.display())
            })?,
            None => builder
                .tempdir()
                .context("cannot create a temporary directory")?,
        };
        let marker = dir.path().join(MARKER);
        let text = fs::symlink_metadata(dir.path()).map(|m| marker_text(&m));
        text.and_then(|t| fs::write(&marker, t))
            .with_context(|| format!("cannot create {}", marker.display()))?;
        // lock under a temporary name, then rename: a sweeper never sees an unlocked `lock`
        let staging = dir.path().join(".lock-new");
        let mut lock = File::create(&staging)
            .with_context(|| format!("cannot create {}", staging.display()))?;
        if !try_lock(&lock) {
            anyhow::bail!("cannot lock {}", staging.display());
        }
        let _ = writeln!(lock, "{}", std::process::id());
        fs::rename(&staging, dir.path().join(LOCK))
            .with_context(|| format!("cannot create the lock in {}", dir.path().display()))?;
        Ok(RunDir { dir, _lock: lock })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        make_owner_writable(self.dir.path());
    }
}

/// What the marker of the run directory with `metadata` says.
fn marker_text(metadata: &fs::Metadata) -> String {
    format!(
        "reduce run directory {}:{}\n",
        metadata.dev(),
        metadata.ino()
    )
}

/// Removes the run directories under `root` that `reduce` made for this user and whose run is
/// gone (see the module's comment). Best effort and silent: returns how many it removed.
pub fn sweep_stale(root: Option<&Path>) -> usize {
    let root: PathBuf = root.map_or_else(std::env::temp_dir, Path::to_path_buf);
    let Ok(entries) = fs::read_dir(&root) else {
        return 0;
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let mut removed = 0;
    for entry in entries.flatten() {
        if !is_run_dir_name(&entry.file_name()) {
            continue;
        }
        let path = entry.path();
        let Ok(metadata) = fs::symlink_metadata(&path) else {
            continue;
        };
        let ours = metadata.is_dir() && metadata.uid() == me && has_marker(&path, &metadata);
        if ours && is_abandoned(&path) {
            make_owner_writable(&path);
            if fs::remove_dir_all(&path).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

/// `reduce-` and six letters or digits, as [`RunDir::create`] names them.
fn is_run_dir_name(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .and_then(|n| n.strip_prefix(PREFIX))
        .is_some_and(|r| r.len() == RANDOM_LEN && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// The directory (with `metadata`) holds the marker [`RunDir::create`] wrote into it.
fn has_marker(dir: &Path, metadata: &fs::Metadata) -> bool {
    let Ok(file) = open_regular(&dir.join(MARKER)) else {
        return false;
    };
    let expected = marker_text(metadata);
    let mut text = Vec::new();
    use std::io::Read;
    file.take(expected.len() as u64 + 1)
        .read_to_end(&mut text)
        .is_ok_and(|_| text == expected.as_bytes())
}

/// The directory has a lock file that nobody holds.
fn is_abandoned(dir: &Path) -> bool {
    open_regular(&dir.join(LOCK)).is_ok_and(|f| try_lock(&f))
}

/// Opens a regular file for reading, never through a symlink.
fn open_regular(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    match file.metadata()?.is_file() {
        true => Ok(file),
        false => Err(std::io::ErrorKind::InvalidInput.into()),
    }
}

/// Gives the owner full access to a directory tree a script chmod-ed shut, so it can be removed.
pub fn make_owner_writable(path: &Path) {
    let Ok(metadata) = fs::symlink_metadata(path) else {
        return;
    };
    if !metadata.is_dir() {
        return;
    }
    let _ = fs::set_permissions(path, Permissions::from_mode(0o700));
    if let Ok(entries) = fs::read_dir(path) {
        for entry in entries.flatten() {
            make_owner_writable(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_run_dir_is_removed_and_a_live_one_is_not_swept() {
        let root = tempfile::tempdir().unwrap();
        let live = RunDir::create(Some(root.path())).unwrap();
        assert_eq!(sweep_stale(Some(root.path())), 0);
        assert!(live.path().is_dir());
        let path = live.path().to_path_buf();
        drop(live);
        assert!(!path.exists());
    }

    #[test]
    fn an_abandoned_run_dir_is_swept_and_foreign_dirs_are_kept() {
        let root = tempfile::tempdir().unwrap();
        // a run directory whose run was killed: its lock is free
        let stale_path = root.path().join("reduce-St4le0");
        fs::create_dir_all(stale_path.join("w/sub")).unwrap();
        let text = marker_text(&fs::symlink_metadata(&stale_path).unwrap());
        fs::write(stale_path.join(MARKER), text).unwrap();
        fs::write(stale_path.join(LOCK), "12345\n").unwrap();
        fs::set_permissions(stale_path.join("w/sub"), Permissions::from_mode(0o000)).unwrap();
        // not made by reduce: no marker, a wrong one (a copy of the stale one), another name
        let foreign = root.path().join("reduce-foreig");
        fs::create_dir(&foreign).unwrap();
        fs::write(foreign.join(LOCK), "").unwrap();
        let copy = root.path().join("reduce-copied");
        fs::create_dir(&copy).unwrap();
        fs::copy(stale_path.join(MARKER), copy.join(MARKER)).unwrap();
        fs::write(copy.join(LOCK), "").unwrap();
        let other = root.path().join("unrelated");
        fs::create_dir(&other).unwrap();
        fs::write(other.join(LOCK), "").unwrap();
        fs::copy(stale_path.join(MARKER), other.join(MARKER)).unwrap();
        assert_eq!(sweep_stale(Some(root.path())), 1);
        assert!(!stale_path.exists());
        assert!(foreign.exists() && copy.exists() && other.exists());
    }
}
