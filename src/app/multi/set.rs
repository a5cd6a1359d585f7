//! Reads the files of a multi-file run: a directory (walked without following symlinks) or a
//! list of files (laid out relative to the current directory when they all lie under it, else
//! relative to their deepest common directory). Every way an input can be unusable is a one-line
//! error before anything is written.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use anyhow::Result;

use crate::exec::frame::{Content, Member};
use crate::exit::{FailureKind, fail};

/// How the user gave the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Dir,
    Files,
}

/// The files of a multi-file run, as read before the run.
#[derive(Debug)]
pub struct FileSet {
    pub shape: Shape,
    /// The set's root on disk (canonical): the directory, or the files' common directory.
    pub root: PathBuf,
    /// Sorted by relative path (a directory before what it holds).
    pub members: Vec<Member>,
    /// The test's `$1`, relative to the candidate directory (empty: the directory itself).
    pub arg: PathBuf,
}

impl FileSet {
    /// The indices of the members that are files.
    pub fn files(&self) -> Vec<usize> {
        (0..self.members.len())
            .filter(|&i| matches!(self.members[i].content, Content::File(_)))
            .collect()
    }
}

fn bad(message: String) -> anyhow::Error {
    fail(FailureKind::BadInput, message)
}

/// Reads a directory input. `skip` are canonical paths left out of the set (the test script,
/// the temp and stats locations when they lie inside).
pub fn load_dir(dir: &Path, skip: &[PathBuf]) -> Result<FileSet> {
    let root = fs::canonicalize(dir)
        .map_err(|e| bad(format!("input {} cannot be read ({e})", dir.display())))?;
    let mut members = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let path = root.join(&rel);
        let mut names: Vec<_> = fs::read_dir(&path)
            .and_then(|entries| entries.map(|e| e.map(|e| e.file_name())).collect())
            .map_err(|e| bad(format!("input {} cannot be read ({e})", shown(dir, &rel))))?;
        names.sort();
        for name in names {
            // a temp file of an atomic write that a killed run left behind is not the user's
            // (and the lock of a run on one of its files)
            let leftover = name.as_encoded_bytes().starts_with(b".reduce-")
                || crate::store::runlock::is_lock_name(&name);
            let rel = rel.join(name);
            if leftover || skip.contains(&root.join(&rel)) {
                continue;
            }
            if let Some(member) = read_member(&root, &rel, dir)? {
                if member.content == Content::Dir {
                    pending.push(rel.clone());
                }
                members.push(member);
            }
        }
    }
    members.sort_by(|a, b| a.rel.cmp(&b.rel));
    let set = FileSet {
        shape: Shape::Dir,
        root,
        members,
        arg: PathBuf::new(),
    };
    ensure_something(&set, &dir.display().to_string())?;
    Ok(set)
}

fn shown(dir: &Path, rel: &Path) -> String {
    dir.join(rel).display().to_string()
}

/// One entry of a directory input; symlinks are kept as links only when they point inside.
fn read_member(root: &Path, rel: &Path, dir: &Path) -> Result<Option<Member>> {
    let path = root.join(rel);
    let meta = fs::symlink_metadata(&path)
        .map_err(|e| bad(format!("input {} cannot be read ({e})", shown(dir, rel))))?;
    let mode = meta.permissions().mode();
    let content = if meta.file_type().is_symlink() {
        Content::Link(inner_link(root, rel, dir)?)
    } else if meta.is_dir() {
        Content::Dir
    } else if meta.is_file() {
        Content::File(read_file(&path, &shown(dir, rel))?)
    } else {
        return Err(bad(format!(
            "input {} is not a regular file (a FIFO, device or socket); remove it from the directory",
            shown(dir, rel)
        )));
    };
    Ok(Some(Member {
        rel: rel.to_path_buf(),
        content,
        mode,
    }))
}

/// The target of a symlink that stays inside the directory (relative, resolving inside);
/// anything else is an error: symlinks are never followed out of the set.
fn inner_link(root: &Path, rel: &Path, dir: &Path) -> Result<PathBuf> {
    let path = root.join(rel);
    let target = fs::read_link(&path)
        .map_err(|e| bad(format!("input {} cannot be read ({e})", shown(dir, rel))))?;
    let inside = target.is_relative()
        && fs::canonicalize(&path).is_ok_and(|real| real.starts_with(root) && real != root);
    if !inside {
        return Err(bad(format!(
            "input {} is a symlink to {} outside the directory (or absolute, or dangling); symlinks are not followed: replace it with a copy of what it points to, or remove it",
            shown(dir, rel),
            target.display()
        )));
    }
    Ok(target)
}

fn read_file(path: &Path, shown: &str) -> Result<Vec<u8>> {
    fs::read(path).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::PermissionDenied => "cannot be read (permission denied)".into(),
            _ => format!("cannot be read ({e})"),
        };
        bad(format!("input {shown} {why}"))
    })
}

fn ensure_something(set: &FileSet, what: &str) -> Result<()> {
    let bytes: usize = set
        .members
        .iter()
        .map(|m| match &m.content {
            Content::File(b) => b.len(),
            _ => 0,
        })
        .sum();
    if bytes == 0 {
        let why = match set.files().is_empty() {
            true => "holds no files",
            false => "holds only empty files",
        };
        return Err(bad(format!(
            "input {what} {why}: there is nothing to reduce"
        )));
    }
    Ok(())
}

/// Reads a list of files. `cwd` is the canonical current directory.
pub fn load_files(paths: &[PathBuf], cwd: &Path) -> Result<FileSet> {
    let mut real = Vec::new();
    for path in paths {
        let meta = fs::metadata(path).map_err(|e| {
            let why = match e.kind() {
                std::io::ErrorKind::NotFound => "does not exist".to_string(),
                _ => format!("cannot be read ({e})"),
            };
            bad(format!("input {} {why}", path.display()))
        })?;
        if meta.is_dir() {
            return Err(fail(
                FailureKind::Usage,
                format!(
                    "input {} is a directory: give one directory alone, or only files",
                    path.display()
                ),
            ));
        }
        if !meta.is_file() {
            return Err(bad(format!(
                "input {} is not a regular file (a FIFO, device or socket); save it to a file first",
                path.display()
            )));
        }
        let name = path.file_name().unwrap_or_default();
        let dir = fs::canonicalize(crate::store::paths::parent_of(path))
            .map_err(|e| bad(format!("input {} cannot be read ({e})", path.display())))?;
        real.push((path, dir.join(name), meta.permissions().mode()));
    }
    let root = match real.iter().all(|(_, p, _)| p.starts_with(cwd)) {
        true => cwd.to_path_buf(),
        false => common_dir(real.iter().map(|(_, p, _)| p.as_path())),
    };
    let mut members: Vec<Member> = Vec::new();
    for (path, abs, mode) in &real {
        let rel = abs.strip_prefix(&root).unwrap_or(abs).to_path_buf();
        if members.iter().any(|m| m.rel == rel) {
            return Err(fail(
                FailureKind::Usage,
                format!("input {} is named twice", path.display()),
            ));
        }
        let bytes = read_file(abs, &path.display().to_string())?;
        members.push(Member {
            rel,
            content: Content::File(bytes),
            mode: *mode,
        });
    }
    let arg = members[0].rel.clone();
    members.sort_by(|a, b| a.rel.cmp(&b.rel));
    let set = FileSet {
        shape: Shape::Files,
        root,
        members,
        arg,
    };
    ensure_something(&set, "files")?;
    Ok(set)
}

/// The deepest directory holding every path.
fn common_dir<'a>(mut paths: impl Iterator<Item = &'a Path>) -> PathBuf {
    let Some(first) = paths.next() else {
        return PathBuf::from("/");
    };
    let mut common: Vec<Component> = crate::store::paths::parent_of(first).components().collect();
    for p in paths {
        let parts: Vec<Component> = crate::store::paths::parent_of(p).components().collect();
        let same = common
            .iter()
            .zip(&parts)
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(same);
    }
    common.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_read_in_path_order_with_its_empty_subdirectories() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("src/empty")).unwrap();
        fs::write(dir.path().join("src/a.c"), "int a;").unwrap();
        fs::write(dir.path().join("b.h"), "int b;").unwrap();
        std::os::unix::fs::symlink("src/a.c", dir.path().join("link.c")).unwrap();
        let set = load_dir(dir.path(), &[]).unwrap();
        let rels: Vec<_> = set.members.iter().map(|m| m.rel.clone()).collect();
        let want: Vec<PathBuf> = ["b.h", "link.c", "src", "src/a.c", "src/empty"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(rels, want);
        assert_eq!(set.members[1].content, Content::Link("src/a.c".into()));
        assert_eq!(set.files().len(), 2);
    }

    #[test]
    fn a_symlink_out_of_the_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("d")).unwrap();
        fs::write(dir.path().join("outside.c"), "x").unwrap();
        fs::write(dir.path().join("d/in.c"), "x").unwrap();
        std::os::unix::fs::symlink("../outside.c", dir.path().join("d/l.c")).unwrap();
        let err = load_dir(&dir.path().join("d"), &[]).unwrap_err();
        assert!(format!("{err}").contains("not followed"), "{err}");
    }

    #[test]
    fn files_under_the_current_directory_keep_their_relative_paths() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(cwd.join("inc")).unwrap();
        fs::write(cwd.join("main.c"), "int m;").unwrap();
        fs::write(cwd.join("inc/s.h"), "int s;").unwrap();
        let set = load_files(&[cwd.join("main.c"), cwd.join("inc/s.h")], &cwd).unwrap();
        assert_eq!(set.root, cwd);
        assert_eq!(set.arg, PathBuf::from("main.c"));
        assert_eq!(set.members[0].rel, PathBuf::from("inc/s.h"));
        let elsewhere = load_files(&[cwd.join("inc/s.h")], &cwd.join("inc/none")).unwrap();
        assert_eq!(elsewhere.root, cwd.join("inc"));
        assert_eq!(elsewhere.arg, PathBuf::from("s.h"));
    }

    #[test]
    fn an_empty_directory_has_nothing_to_reduce() {
        let dir = tempfile::tempdir().unwrap();
        let err = load_dir(dir.path(), &[]).unwrap_err();
        assert!(format!("{err}").contains("holds no files"), "{err}");
    }
}
