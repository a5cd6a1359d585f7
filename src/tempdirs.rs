//! The run's own temp directory, and the sweep of those that killed runs left behind.
//!
//! Each run creates one private `reduce-XXXXXX` directory (0700) under `--temp-dir` or
//! `$TMPDIR`, holding a `lock` file that the run keeps `flock`ed (with its pid inside) and the
//! workers' directories. A run killed with SIGKILL cannot remove it, but the kernel drops its
//! lock; the next run removes every `reduce-*` directory it owns whose lock is free. Directories
//! without a lock file (not made by this scheme) and directories whose lock is held are kept.

use std::fs::{self, File, Permissions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tempfile::TempDir;

const PREFIX: &str = "reduce-";
const LOCK: &str = "lock";

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
            .permissions(Permissions::from_mode(0o700));
        let dir = match root {
            Some(root) => builder.tempdir_in(root).with_context(|| {
                format!("cannot create a temporary directory in {}", root.display())
            })?,
            None => builder
                .tempdir()
                .context("cannot create a temporary directory")?,
        };
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

/// Removes the `reduce-*` directories under `root` that belong to this user and whose run is
/// gone (their lock is free). Best effort and silent: returns how many it removed.
pub fn sweep_stale(root: Option<&Path>) -> usize {
    let root: PathBuf = root.map_or_else(std::env::temp_dir, Path::to_path_buf);
    let Ok(entries) = fs::read_dir(&root) else {
        return 0;
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let path = entry.path();
        let ours = fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == me);
        if ours && is_abandoned(&path) {
            make_owner_writable(&path);
            if fs::remove_dir_all(&path).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

/// The directory has a lock file that nobody holds.
fn is_abandoned(dir: &Path) -> bool {
    let lock = dir.join(LOCK);
    if !fs::symlink_metadata(&lock).is_ok_and(|m| m.is_file()) {
        return false;
    }
    File::open(&lock).is_ok_and(|f| try_lock(&f))
}

/// Takes an exclusive `flock` without waiting.
pub fn try_lock(file: &File) -> bool {
    // SAFETY: a valid, open descriptor.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
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
        let stale = root.path().join("reduce-stale");
        fs::create_dir_all(stale.join("w/sub")).unwrap();
        fs::write(stale.join(LOCK), "12345\n").unwrap();
        fs::set_permissions(stale.join("w/sub"), Permissions::from_mode(0o000)).unwrap();
        let foreign = root.path().join("reduce-foreign");
        fs::create_dir(&foreign).unwrap();
        let other = root.path().join("unrelated");
        fs::create_dir(&other).unwrap();
        fs::write(other.join(LOCK), "").unwrap();
        assert_eq!(sweep_stale(Some(root.path())), 1);
        assert!(!stale.exists());
        assert!(foreign.exists() && other.exists());
    }
}
