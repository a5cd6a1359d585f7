//! Where a multi-file result lives, under the same rules as one file's (see `sink`): checked
//! before the first test, the originals saved before the first change (`DIR.orig/`, or
//! `FILE.orig` beside each file), and `-o DIR` filled with the original set first. A whole tree
//! is written by staging it in a fresh directory beside its target and renaming it into place,
//! so an interrupt never leaves half a copy under the final name.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};

use super::set::{FileSet, Shape, load_dir};
use crate::app::cli::Output;
use crate::exec::frame::{Content, Frame, Member};
use crate::exit::{FailureKind, fail};
use crate::store::paths::{Place, Role, parent_of, probe_writable, resolve_new};
use crate::store::sink::{FileMeta, backup_path, make_way_for_backup, save_backup};

/// What a multi-file run reads and writes, for the one check of a run's files: the files (or
/// the directory), their backups, and `-o DIR`.
pub fn roles(output: &Output, set: &FileSet) -> Vec<Role> {
    let in_place = *output == Output::InPlace;
    let mut roles = Vec::new();
    match set.shape {
        Shape::Dir => {
            let backup = backup_path(&set.root);
            roles.push(Role::input(
                format!("the input directory {}", set.root.display()),
                Place::Tree(set.root.clone()),
                in_place,
            ));
            let written = in_place || backup.exists();
            roles.push(Role::new(
                format!("the backup {}", backup.display()),
                Place::Tree(backup),
                written,
            ));
        }
        Shape::Files => {
            for &i in &set.files() {
                let path = set.root.join(&set.members[i].rel);
                let backup = backup_path(&path);
                let written = in_place || backup.exists();
                roles.push(Role::new(
                    format!("the backup {}", backup.display()),
                    Place::File(backup),
                    written,
                ));
                roles.push(Role::input(
                    format!("the input {}", path.display()),
                    Place::File(path),
                    in_place,
                ));
            }
        }
    }
    if let Output::File(out) = output {
        roles.push(Role::new(
            format!("-o {}", out.display()),
            Place::Tree(out.clone()),
            true,
        ));
    }
    roles
}

/// The checked output of a multi-file run; nothing written yet.
pub struct StorePlan {
    /// Where new bests go: the set's own root (in place) or `-o DIR`.
    pub root: PathBuf,
    in_place: bool,
    force: bool,
}

impl StorePlan {
    pub fn new(output: &Output, set: &FileSet, force: bool) -> Result<StorePlan> {
        let usage = |m: String| fail(FailureKind::Usage, m);
        let root = match output {
            Output::Stdout => {
                return Err(usage(
                    "-o - cannot take several files: name a directory with -o DIR".into(),
                ));
            }
            Output::InPlace => set.root.clone(),
            Output::File(out) => check_out_dir(out, set)?,
        };
        let writable = match output {
            Output::InPlace if set.shape == Shape::Dir => parent_of(&set.root).to_path_buf(),
            Output::InPlace => set.root.clone(),
            _ => parent_of(&root).to_path_buf(),
        };
        probe_writable(&writable).map_err(|e| {
            fail(
                FailureKind::Io,
                format!(
                    "cannot write in {} ({e}): is the directory writable? Use -o DIR to write the result elsewhere",
                    writable.display()
                ),
            )
        })?;
        Ok(StorePlan {
            root,
            in_place: *output == Output::InPlace,
            force,
        })
    }

    /// The paths the run locks: each file in place; a directory in place and everything in
    /// it (so that a run on one of its files, or on a directory inside it, is refused while
    /// it runs, and the other way round); or `-o DIR`.
    pub fn locked(&self, set: &FileSet) -> Vec<PathBuf> {
        match (self.in_place, set.shape) {
            (true, Shape::Files) => set
                .files()
                .iter()
                .map(|&i| set.root.join(&set.members[i].rel))
                .collect(),
            (true, Shape::Dir) => std::iter::once(self.root.clone())
                .chain(set.members.iter().map(|m| set.root.join(&m.rel)))
                .collect(),
            (false, _) => vec![self.root.clone()],
        }
    }

    /// Saves the originals (in place) or writes the original set to `-o DIR`; returns the
    /// backup's description for the summary.
    pub fn open(&self, set: &FileSet) -> Result<Option<String>> {
        match (self.in_place, set.shape) {
            (true, Shape::Dir) => {
                let backup = backup_path(&set.root);
                save_dir_backup(&backup, set, self.force)?;
                Ok(Some(backup.display().to_string()))
            }
            (true, Shape::Files) => {
                for &i in &set.files() {
                    let member = &set.members[i];
                    let path = set.root.join(&member.rel);
                    if let Content::File(bytes) = &member.content {
                        save_backup(&backup_path(&path), bytes, self.force, &FileMeta::of(&path))?;
                    }
                }
                Ok(Some("FILE.orig beside each file".into()))
            }
            (false, _) => {
                stage_tree(&self.root, &set.members, 0o755)?;
                Ok(None)
            }
        }
    }
}

/// `-o DIR` for several files: a new or empty directory outside the input directory.
fn check_out_dir(out: &Path, set: &FileSet) -> Result<PathBuf> {
    let shown = out.display();
    let real = fs::canonicalize(out).unwrap_or_else(|_| resolve_new(out));
    match fs::metadata(out) {
        Ok(m) if !m.is_dir() => {
            return Err(fail(
                FailureKind::Usage,
                format!("-o {shown} is not a directory: several files need -o DIR"),
            ));
        }
        Ok(_) if fs::read_dir(out).is_ok_and(|mut d| d.next().is_some()) => {
            return Err(fail(
                FailureKind::Usage,
                format!("-o {shown} is not empty: name a new or empty directory"),
            ));
        }
        _ => {}
    }
    if set.shape == Shape::Dir && (real.starts_with(&set.root) || set.root.starts_with(&real)) {
        return Err(fail(
            FailureKind::Usage,
            format!("-o {shown} overlaps the input directory: name a directory outside it"),
        ));
    }
    if !parent_of(&real).is_dir() {
        return Err(fail(
            FailureKind::Io,
            format!(
                "cannot write -o {shown}: directory {} does not exist",
                parent_of(out).display()
            ),
        ));
    }
    Ok(real)
}

/// `DIR.orig/`: kept if it already holds exactly the set; any other one stops the run, or
/// with `--force` moves to `DIR.orig.N` first.
fn save_dir_backup(backup: &Path, set: &FileSet, force: bool) -> Result<()> {
    let same = || same_tree(backup, &set.members);
    if make_way_for_backup(backup, same, force, ("directory", "-o DIR"))? {
        return Ok(());
    }
    let mode = fs::metadata(&set.root).map_or(0o755, |m| m.permissions().mode());
    stage_tree(backup, &set.members, mode).map_err(|e| {
        fail(
            FailureKind::Io,
            format!(
                "cannot save the original as {} ({e:#}): use -o DIR to write the result elsewhere",
                backup.display()
            ),
        )
    })
}

fn same_tree(dir: &Path, members: &[Member]) -> bool {
    load_dir(dir, &[]).is_ok_and(|copy| {
        copy.members.len() == members.len()
            && copy
                .members
                .iter()
                .zip(members)
                .all(|(a, b)| a.rel == b.rel && a.content == b.content)
    })
}

/// Writes `members` into a fresh directory beside `target`, then renames it to `target` (which
/// must not exist, or be an empty directory).
fn stage_tree(target: &Path, members: &[Member], mode: u32) -> Result<()> {
    let parent = parent_of(target);
    let staged = tempfile::Builder::new()
        .prefix(".reduce-stage-")
        .tempdir_in(parent)
        .with_context(|| format!("cannot create a directory in {}", parent.display()))?;
    let frame = Frame::new(Arc::new(members.to_vec()), usize::MAX, PathBuf::new());
    frame.write_into(staged.path(), b"")?;
    let staged = staged.keep();
    let renamed = fs::set_permissions(&staged, fs::Permissions::from_mode(mode & 0o7777))
        .and_then(|()| fs::rename(&staged, target));
    if let Err(e) = renamed {
        let _ = fs::remove_dir_all(&staged);
        return Err(e).with_context(|| format!("cannot create {}", target.display()));
    }
    Ok(())
}
