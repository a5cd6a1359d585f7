//! One run at a time per output file: a second `reduce` on the same file would silently overwrite
//! the first one's results. The lock is an `flock` on `.NAME.reduce-lock` beside the file (the
//! file itself is replaced by every atomic write, so it cannot carry the lock), with the holder's
//! pid inside so the refusal can name it. It is removed when the run ends.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::exit::{FailureKind, fail};
use crate::paths::parent_of;
use crate::tempdirs::try_lock;

pub struct RunLock {
    path: PathBuf,
    file: File,
}

impl RunLock {
    /// Locks `target` (the input for in-place runs, the `-o` file otherwise). `None` when the
    /// lock file cannot be created (a read-only directory: the run fails later, more clearly, on
    /// its first write there).
    pub fn acquire(target: &Path) -> Result<Option<RunLock>> {
        let Some(name) = target.file_name() else {
            return Ok(None);
        };
        let mut lock_name = std::ffi::OsString::from(".");
        lock_name.push(name);
        lock_name.push(".reduce-lock");
        let path = parent_of(target).join(lock_name);
        for _ in 0..10 {
            let Ok(mut file) = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
            else {
                return Ok(None);
            };
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
            // the holder before us may have removed the file after we opened it: lock the
            // file that is there now, not an unlinked one
            let same = fs::metadata(&path)
                .ok()
                .zip(file.metadata().ok())
                .is_some_and(|(a, b)| a.dev() == b.dev() && a.ino() == b.ino());
            if !same {
                continue;
            }
            let _ = file.set_len(0);
            let _ = file.rewind();
            let _ = writeln!(file, "{}", std::process::id());
            return Ok(Some(RunLock { path, file }));
        }
        Ok(None)
    }
}

impl Drop for RunLock {
    /// Removes the lock file while still holding the lock, then releases it.
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
        let _ = &self.file;
    }
}
