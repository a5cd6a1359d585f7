//! Where the best result so far lives: the input itself (after saving `INPUT.orig`), a file given
//! with `-o`, or memory for `-o -`. Every write is atomic (temp file in the same directory, then
//! rename), so killing the process at any moment leaves the previous best or the new one.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::cli::Output;
use crate::exit::{FailureKind, fail};

pub struct Sink {
    target: Option<PathBuf>,
    pub backup: Option<PathBuf>,
    /// Permissions to give the written file (the input's).
    mode: Option<fs::Permissions>,
}

impl Sink {
    /// Checks the output location and, for in-place runs, saves the original first.
    pub fn prepare(output: &Output, input: &Path, original: &[u8], force: bool) -> Result<Sink> {
        let mode = fs::metadata(input).ok().map(|m| m.permissions());
        match output {
            Output::Stdout => Ok(Sink {
                target: None,
                backup: None,
                mode,
            }),
            Output::File(path) => {
                ensure_not_the_input(path, input)?;
                ensure_parent_exists(path)?;
                let sink = Sink {
                    target: Some(path.clone()),
                    backup: None,
                    mode,
                };
                sink.write(original)?;
                Ok(sink)
            }
            Output::InPlace => {
                let backup = backup_path(input);
                save_backup(&backup, original, force)?;
                Ok(Sink {
                    target: Some(input.to_path_buf()),
                    backup: Some(backup),
                    mode,
                })
            }
        }
    }

    pub fn target(&self) -> Option<&Path> {
        self.target.as_deref()
    }

    /// Replaces the target's content atomically. A no-op for stdout.
    pub fn write(&self, bytes: &[u8]) -> Result<()> {
        let Some(target) = &self.target else {
            return Ok(());
        };
        write_atomically(target, bytes, self.mode.clone()).map_err(|e| {
            fail(
                FailureKind::Io,
                format!(
                    "cannot write the result to {}: {}",
                    target.display(),
                    root_cause(&e)
                ),
            )
        })
    }
}

pub fn backup_path(input: &Path) -> PathBuf {
    let mut name = input.as_os_str().to_owned();
    name.push(".orig");
    PathBuf::from(name)
}

fn ensure_not_the_input(path: &Path, input: &Path) -> Result<()> {
    let same = match (fs::canonicalize(path), fs::canonicalize(input)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(fail(
            FailureKind::Usage,
            format!(
                "-o {} is the input itself: drop -o to reduce in place (the original is then kept as {})",
                path.display(),
                backup_path(input).display()
            ),
        ));
    }
    Ok(())
}

fn ensure_parent_exists(path: &Path) -> Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if path.is_dir() {
        return Err(fail(
            FailureKind::Io,
            format!(
                "cannot write -o {}: it is a directory; name a file",
                path.display()
            ),
        ));
    }
    if !parent.is_dir() {
        return Err(fail(
            FailureKind::Io,
            format!(
                "cannot write -o {}: directory {} does not exist",
                path.display(),
                parent.display()
            ),
        ));
    }
    Ok(())
}

/// Saves the original as `INPUT.orig`, never overwriting a different one without `--force`.
fn save_backup(backup: &Path, original: &[u8], force: bool) -> Result<()> {
    if let Ok(existing) = fs::read(backup) {
        if existing == original {
            return Ok(());
        }
        if !force {
            return Err(fail(
                FailureKind::Usage,
                format!(
                    "{} already exists and differs from the input: move it away, pass --force to overwrite it, or use -o",
                    backup.display()
                ),
            ));
        }
    }
    write_atomically(backup, original, None).map_err(|e| {
        fail(
            FailureKind::Io,
            format!(
                "cannot save the original as {} ({}): is the directory writable? Use -o to write the result elsewhere",
                backup.display(),
                root_cause(&e)
            ),
        )
    })
}

fn root_cause(e: &anyhow::Error) -> String {
    e.root_cause().to_string()
}

/// Temp file in the target's directory, renamed over the target: a crash or SIGKILL at any
/// moment leaves the old file or the new one. (No fsync: it would cost milliseconds on every
/// improvement and only matters if the machine loses power.)
pub fn write_atomically(target: &Path, bytes: &[u8], mode: Option<fs::Permissions>) -> Result<()> {
    // a device or a FIFO (`-o /dev/null`, `-o /dev/stdout`) is written to, never renamed over:
    // as root, a rename would replace /dev/null with a regular file
    if fs::metadata(target).is_ok_and(|m| !m.is_file()) {
        return fs::write(target, bytes)
            .with_context(|| format!("cannot write {}", target.display()));
    }
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".reduce-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temp file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("cannot write {}", tmp.path().display()))?;
    if let Some(mode) = mode {
        let _ = fs::set_permissions(tmp.path(), mode);
    }
    tmp.persist(target)
        .with_context(|| format!("cannot replace {}", target.display()))?;
    Ok(())
}
