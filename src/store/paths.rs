//! Which file a path names, checked before anything is written: no output of a run may be the
//! same file as another output, the input, the test script or a backup, however it is spelled
//! (`./x`, `d/../x`, a symlink, a hard link); and every output location must be writable before
//! the first test runs.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::exit::{FailureKind, fail};

/// What a path names: an existing file by device and inode, or a file to be created by its
/// canonical location.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    Inode(u64, u64),
    Location(PathBuf),
}

/// Where a role's bytes are: a file, everything under a directory, or an open descriptor
/// (stdin, stdout).
#[derive(Clone, Debug)]
pub enum Place {
    File(PathBuf),
    /// A directory and all it holds: a file inside it is part of it.
    Tree(PathBuf),
    Stream(i32),
}

/// The identity of what is open on descriptor `fd`. A character device (a terminal, /dev/null)
/// has none: writing it twice loses nothing.
fn fd_identity(fd: i32) -> Option<Identity> {
    // SAFETY: fstat on any descriptor number only fills the struct or fails.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return None;
    }
    let kind = st.st_mode & libc::S_IFMT;
    (kind != libc::S_IFCHR).then_some(Identity::Inode(st.st_dev, st.st_ino))
}

/// The identity of `path`, or `None` for character devices: writing /dev/null twice loses
/// nothing. A name for one of the process's own descriptors (`/dev/stdout`) is that descriptor.
fn identity(path: &Path) -> Option<Identity> {
    if let Some(fd) = stream_of(path) {
        return fd_identity(fd);
    }
    match fs::metadata(path) {
        Ok(m) if m.file_type().is_char_device() => None,
        Ok(m) => Some(Identity::Inode(m.dev(), m.ino())),
        Err(_) => Some(Identity::Location(resolve_new(path))),
    }
}

/// The descriptor a path names when it is one of the process's own (`/dev/stdout`,
/// `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, directly or through symlinks): such a path
/// is the stream itself, never a file to replace.
pub fn stream_of(path: &Path) -> Option<i32> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        if let Some(fd) = stream_name(&path) {
            return Some(fd);
        }
        match fs::read_link(&path) {
            Ok(target) => path = parent_of(&path).join(target),
            Err(_) => return None,
        }
    }
    None
}

fn stream_name(path: &Path) -> Option<i32> {
    let text = path.to_str()?;
    match text {
        "/dev/stdin" => return Some(0),
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let own = format!("/proc/{}/fd/", std::process::id());
    let n = text
        .strip_prefix("/dev/fd/")
        .or_else(|| text.strip_prefix("/proc/self/fd/"))
        .or_else(|| text.strip_prefix("/proc/thread-self/fd/"))
        .or_else(|| text.strip_prefix(own.as_str()))?;
    n.parse().ok()
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

/// The canonical location of `path`, existing or not.
fn location(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| resolve_new(path))
}

/// The directory holding `path` (`.` for a bare file name).
pub fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// One file a run reads or writes, and what it is to the user.
pub struct Role {
    pub what: String,
    pub place: Place,
    /// The run writes it (so it must not be any other role's file).
    pub written: bool,
    /// It is the input: a clash gets "is the input itself".
    pub is_input: bool,
}

impl Role {
    pub fn new(what: impl Into<String>, place: Place, written: bool) -> Role {
        Role {
            what: what.into(),
            place,
            written,
            is_input: false,
        }
    }

    pub fn input(what: impl Into<String>, place: Place, written: bool) -> Role {
        Role {
            is_input: true,
            ..Role::new(what, place, written)
        }
    }

    fn identity(&self) -> Option<Identity> {
        match &self.place {
            Place::File(p) | Place::Tree(p) => identity(p),
            Place::Stream(fd) => fd_identity(*fd),
        }
    }

    /// The canonical directory of a tree role.
    fn tree(&self) -> Option<PathBuf> {
        match &self.place {
            Place::Tree(p) => Some(location(p)),
            _ => None,
        }
    }

    /// The canonical location of a file role, for "inside a tree".
    fn file_location(&self) -> Option<PathBuf> {
        match &self.place {
            Place::File(p) if stream_of(p).is_none() => Some(location(p)),
            Place::Tree(p) => Some(location(p)),
            _ => None,
        }
    }
}

/// Refuses (usage error) any written file that is another role's file, however it is spelled
/// (`./x`, `d/../x`, a symlink, a hard link, `/dev/stdout` for the stdout the shell
/// redirected), or that lies inside another role's directory (or holds it).
pub fn check_distinct(roles: &[Role]) -> Result<()> {
    let ids: Vec<Option<Identity>> = roles.iter().map(Role::identity).collect();
    let trees: Vec<Option<PathBuf>> = roles.iter().map(Role::tree).collect();
    let places: Vec<Option<PathBuf>> = roles.iter().map(Role::file_location).collect();
    for (i, a) in roles.iter().enumerate() {
        for (j, b) in roles.iter().enumerate() {
            if i == j || !(a.written || b.written) {
                continue;
            }
            if j > i && ids[i].is_some() && ids[i] == ids[j] {
                return Err(fail(FailureKind::Usage, same_file(a, b)));
            }
            // a written `b` inside the tree `a` (the same directory is the case above); a file
            // only read may lie inside a written tree: a tree's run writes only its own files
            let inside = b.written
                && trees[i]
                    .as_ref()
                    .zip(places[j].as_ref())
                    .is_some_and(|(tree, place)| place != tree && place.starts_with(tree));
            if inside {
                return Err(fail(
                    FailureKind::Usage,
                    format!(
                        "{} is inside {}: nothing of a run may write into its input or its backup; {}",
                        b.what,
                        a.what,
                        advice_for(b)
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn same_file(a: &Role, b: &Role) -> String {
    match (a.is_input, b.is_input) {
        (true, _) | (_, true) => {
            let (input, other) = if a.is_input { (a, b) } else { (b, a) };
            format!(
                "{} is the input itself (the same file as {}): nothing of a run may overwrite its input; {}",
                other.what,
                input.what,
                advice_for(other)
            )
        }
        _ => format!(
            "{} and {} are the same file: give each its own path",
            a.what, b.what
        ),
    }
}

fn advice_for(role: &Role) -> &'static str {
    if role.what.starts_with("-o") {
        "drop -o to reduce in place (the original is then kept as INPUT.orig), or name another file"
    } else if role.what.contains("backup") {
        "move that backup away, or remove that link (it is not a copy of the original)"
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

    fn role(what: &str, path: &Path, written: bool) -> Role {
        Role {
            what: what.into(),
            place: Place::File(path.to_path_buf()),
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
    fn a_written_file_inside_a_tree_clashes_and_one_only_read_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir(d.join("proj")).unwrap();
        fs::write(d.join("proj/notes"), "x").unwrap();
        let tree =
            |written| Role::input("the input directory", Place::Tree(d.join("proj")), written);
        let inner = |written| {
            Role::new(
                "--stats-json",
                Place::File(d.join("proj/sub/../notes")),
                written,
            )
        };
        assert!(check_distinct(&[tree(false), inner(true)]).is_err());
        assert!(check_distinct(&[inner(true), tree(false)]).is_err());
        assert!(check_distinct(&[tree(true), inner(false)]).is_ok());
        let beside = Role::new("-o", Place::File(d.join("proj2")), true);
        assert!(check_distinct(&[tree(true), beside]).is_ok());
    }

    #[test]
    fn stream_names_are_their_descriptors() {
        assert_eq!(stream_of(Path::new("/dev/stdout")), Some(1));
        assert_eq!(stream_of(Path::new("/dev/fd/7")), Some(7));
        assert_eq!(stream_of(Path::new("/proc/self/fd/2")), Some(2));
        assert_eq!(stream_of(Path::new("/dev/null")), None);
        assert_eq!(stream_of(Path::new("out.txt")), None);
    }

    #[test]
    fn devices_are_never_a_clash() {
        let null = Path::new("/dev/null");
        let roles = [role("-o", null, true), role("--stats-json", null, true)];
        assert!(check_distinct(&roles).is_ok());
    }
}
