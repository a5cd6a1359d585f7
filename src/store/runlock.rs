//! One run at a time per output file: a second `reduce` on the same file would silently overwrite
//! the first one's results. The lock is an `flock` on `.NAME.reduce-lock` beside the file (the
//! file itself is replaced by every atomic write, so it cannot carry the lock), with the holder's
//! pid inside so the refusal can name it. It is removed when the run ends.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::exit::{FailureKind, fail};
use crate::store::paths::parent_of;

pub struct RunLock {
    path: PathBuf,
    file: File,
}

impl RunLock {
    /// Locks `target` (the input for in-place runs, the `-o` file otherwise). `None` when the
    /// lock file cannot be created (a read-only directory: the run fails later, more clearly, on
    /// its first write there). A lock path that is not a regular file of ours (a symlink planted
    /// there, another user's file) is refused: it is never followed, truncated or written.
    pub fn acquire(target: &Path) -> Result<Option<RunLock>> {
        let Some(path) = lock_path(target) else {
            return Ok(None);
        };
        for _ in 0..10 {
            let file = match OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o644)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                .open(&path)
            {
                Ok(file) => file,
                Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                    return Err(not_ours(target, &path, "a symlink"));
                }
                Err(_) if fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) => {
                    return Err(not_ours(target, &path, "not a regular file"));
                }
                Err(_) => return Ok(None),
            };
            let meta = file.metadata()?;
            if !meta.is_file() {
                return Err(not_ours(target, &path, "not a regular file"));
            }
            // SAFETY: geteuid has no preconditions.
            if meta.uid() != unsafe { libc::geteuid() } {
                return Err(not_ours(target, &path, "another user's file"));
            }
            if let Some(lock) = RunLock::take(target, path.clone(), file)? {
                return Ok(Some(lock));
            }
        }
        Ok(None)
    }

    /// Locks the open lock file; `None` when the file was replaced meanwhile (try again).
    fn take(target: &Path, path: PathBuf, mut file: File) -> Result<Option<RunLock>> {
        if !try_lock(&file) {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let who = if holder.is_empty() {
                "another reduce run".to_string()
            } else {
                format!("another reduce run (pid {holder})")
            };
            return Err(fail(
                FailureKind::Usage,
                format!(
                    "{who} is already working on {}; wait for it to finish or stop it (its lock is {})",
                    target.display(),
                    path.display()
                ),
            ));
        }
        // the holder before us may have removed the file after we opened it: lock the file
        // that is there now, not an unlinked one
        let same = fs::symlink_metadata(&path)
            .ok()
            .zip(file.metadata().ok())
            .is_some_and(|(a, b)| a.dev() == b.dev() && a.ino() == b.ino());
        if !same {
            return Ok(None);
        }
        let _ = file.set_len(0);
        let _ = file.rewind();
        let _ = writeln!(file, "{}", std::process::id());
        Ok(Some(RunLock { path, file }))
    }
}

/// `.NAME.reduce-lock` beside `target`.
fn lock_path(target: &Path) -> Option<PathBuf> {
    let name = target.file_name()?;
    let mut lock_name = std::ffi::OsString::from(".");
    lock_name.push(name);
    lock_name.push(LOCK_SUFFIX);
    Some(parent_of(target).join(lock_name))
}

const LOCK_SUFFIX: &str = ".reduce-lock";

/// Whether a directory entry is a run lock (`.NAME.reduce-lock`): never part of an input.
pub fn is_lock_name(name: &std::ffi::OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes.len() > 1 + LOCK_SUFFIX.len()
        && bytes.starts_with(b".")
        && bytes.ends_with(LOCK_SUFFIX.as_bytes())
}

fn not_ours(target: &Path, path: &Path, what: &str) -> anyhow::Error {
    fail(
        FailureKind::Usage,
        format!(
            "cannot lock {}: {} is {what}, not a lock of reduce's; remove it and run again",
            target.display(),
            path.display()
        ),
    )
}

impl Drop for RunLock {
    /// Removes the lock file while still holding the lock, then releases it.
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
        let _ = &self.file;
    }
}

/// Takes an exclusive `flock` without waiting.
pub fn try_lock(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: a valid, open descriptor.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}
