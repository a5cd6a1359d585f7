//! Which file a path names, checked before anything is written: no output of a run may be the
//! same file as another output, the input, the test script or a backup, however it is spelled
//! (`./x`, `d/../x`, a symlink, a hard link); and every output location must be writable before
//! the first test runs.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::exit::{FailureKind, fail};

/// What a path names: an existing file by device and inode, or a file to be created by its
/// canonical location.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    Inode(u64, u64),
    Location(PathBuf),
}

/// The identity of `path`, or `None` for things that are not files (devices, FIFOs): writing
/// the same device twice loses nothing.
fn identity(path: &Path) -> Option<Identity> {
    match fs::metadata(path) {
        Ok(m) if m.is_file() || m.is_dir() => Some(Identity::Inode(m.dev(), m.ino())),
        Ok(_) => None,
        Err(_) => Some(Identity::Location(resolve_new(path))),
    }
}

/// Where a file that does not exist yet would be created: symlinks (dangling ones included) are
/// followed, and the directory is made canonical.
pub fn resolve_new(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match fs::read_link(&path) {
            Ok(target) => path = parent_of(&path).join(target),
            Err(_) => break,
        }
    }
    let name = path.file_name().map(|n| n.to_os_string());
    match (fs::canonicalize(parent_of(&path)), name) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => std::path::absolute(&path).unwrap_or(path),
    }
}

/// The directory holding `path` (`.` for a bare file name).
pub fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// One file a run reads or writes, and what it is to the user.
pub struct Role<'a> {
    pub what: String,
    pub path: &'a Path,
    /// The run writes it (so it must not be any other role's file).
    pub written: bool,
    /// It is the input: a clash gets "is the input itself".
    pub is_input: bool,
}

/// Refuses (usage error) any written file that is the same file as another role's.
pub fn check_distinct(roles: &[Role]) -> Result<()> {
    let ids: Vec<Option<Identity>> = roles.iter().map(|r| identity(r.path)).collect();
    for (i, a) in roles.iter().enumerate() {
        for (j, b) in roles.iter().enumerate().skip(i + 1) {
            if !(a.written || b.written) || ids[i].is_none() || ids[i] != ids[j] {
                continue;
            }
            let message = match (a.is_input, b.is_input) {
                (true, _) | (_, true) => {
                    let (input, other) = if a.is_input { (a, b) } else { (b, a) };
                    format!(
                        "{} is the input itself (the same file as {}): nothing of a run may overwrite its input; {}",
                        other.what,
                        input.path.display(),
                        advice_for(other)
                    )
                }
                _ => format!(
                    "{} and {} are the same file: give each its own path",
                    a.what, b.what
                ),
            };
            return Err(fail(FailureKind::Usage, message));
        }
    }
    Ok(())
}

fn advice_for(role: &Role) -> &'static str {
    if role.what.starts_with("-o") {
        "drop -o to reduce in place (the original is then kept as INPUT.orig)"
    } else if role.what.contains("backup") {
        "remove that link (it is not a copy of the original)"
    } else if role.what.contains("test script") {
        "the test script cannot be reduced by itself; copy it and reduce the copy"
    } else {
        "give it its own path"
    }
}

/// Creates and removes a file in `dir` to prove that the run will be able to write there.
pub fn probe_writable(dir: &Path) -> std::io::Result<()> {
    tempfile::Builder::new()
        .prefix(".reduce-probe-")
        .tempfile_in(dir)
        .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role<'a>(what: &str, path: &'a Path, written: bool) -> Role<'a> {
        Role {
            what: what.into(),
            path,
            written,
            is_input: what == "input",
        }
    }

    #[test]
    fn spellings_links_and_new_files_are_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("a"), "x").unwrap();
        fs::hard_link(d.join("a"), d.join("hard")).unwrap();
        std::os::unix::fs::symlink(d.join("a"), d.join("soft")).unwrap();
        std::os::unix::fs::symlink(d.join("new"), d.join("dangling")).unwrap();
        fs::create_dir(d.join("sub")).unwrap();
        let same = [
            (d.join("a"), d.join("sub/../a")),
            (d.join("a"), d.join("hard")),
            (d.join("a"), d.join("soft")),
            (d.join("new"), d.join("sub/../new")),
            (d.join("new"), d.join("dangling")),
        ];
        for (x, y) in &same {
            let roles = [role("input", x, false), role("-o", y, true)];
            assert!(check_distinct(&roles).is_err(), "{x:?} {y:?}");
        }
        let roles = [
            role("input", &same[0].0, false),
            role("-o", &same[3].0, true),
        ];
        assert!(check_distinct(&roles).is_ok());
        // two files only read may be the same
        let roles = [
            role("input", &same[0].0, false),
            role("script", &same[0].1, false),
        ];
        assert!(check_distinct(&roles).is_ok());
    }

    #[test]
    fn devices_are_never_a_clash() {
        let null = Path::new("/dev/null");
        let roles = [role("-o", null, true), role("--stats-json", null, true)];
        assert!(check_distinct(&roles).is_ok());
    }
}
