//! The frame around one file of a multi-file run: every other file of the set, unchanged, so
//! that a candidate for the current file becomes a whole candidate directory. The test pool
//! writes a frame into each candidate directory; the tester keys its verdict cache on the
//! frame's digest plus the candidate; a new best is stored by replacing the one file it changed.

use std::fs::{self, OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use xxhash_rust::xxh3::Xxh3;

use crate::store::sink::{FileMeta, write_atomically};

/// What a path of the set holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// A regular file: reduced.
    File(Vec<u8>),
    /// A file `--delete-files` removed.
    Gone,
    /// A directory (kept, so that an empty one a build expects still exists).
    Dir,
    /// A symlink pointing inside the set: recreated as it is, never reduced.
    Link(PathBuf),
}

/// One path of the set, relative to the set's root.
#[derive(Clone, Debug)]
pub struct Member {
    pub rel: PathBuf,
    pub content: Content,
    /// The permission bits (an executable build script stays executable).
    pub mode: u32,
}

/// The set with one file (`current`) left open for the candidate.
#[derive(Debug)]
pub struct Frame {
    members: Arc<Vec<Member>>,
    current: usize,
    /// The candidate is the set without the current file (`--delete-files`).
    absent: bool,
    /// `$1` of the test, relative to the candidate directory (empty: the directory itself).
    arg: PathBuf,
    /// Where a new best is written (the set's root on disk); `None` before the backups exist.
    out: Option<PathBuf>,
    digest: u128,
}

impl Frame {
    pub fn new(members: Arc<Vec<Member>>, current: usize, arg: PathBuf) -> Frame {
        let mut frame = Frame {
            members,
            current,
            absent: false,
            arg,
            out: None,
            digest: 0,
        };
        frame.digest = frame.compute_digest();
        frame
    }

    /// The same frame, but a candidate means "without the current file".
    pub fn absent(mut self) -> Frame {
        self.absent = true;
        self.digest = self.compute_digest();
        self
    }

    /// The same frame, storing new bests under `root`.
    pub fn storing_in(mut self, root: PathBuf) -> Frame {
        self.out = Some(root);
        self
    }

    /// Identifies everything but the candidate: cache keys of different frames never meet.
    pub fn digest(&self) -> u128 {
        self.digest
    }

    /// The bytes of every file but the current one.
    pub fn others_len(&self) -> usize {
        self.members
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != self.current)
            .map(|(_, m)| match &m.content {
                Content::File(b) => b.len(),
                _ => 0,
            })
            .sum()
    }

    fn compute_digest(&self) -> u128 {
        let mut h = Xxh3::new();
        h.update(&(self.current as u64).to_le_bytes());
        h.update(&[self.absent as u8]);
        for (i, m) in self.members.iter().enumerate() {
            h.update(m.rel.as_os_str().as_encoded_bytes());
            h.update(&[0]);
            let (tag, bytes): (u8, &[u8]) = match &m.content {
                _ if i == self.current => (0, b""),
                Content::File(b) => (1, b),
                Content::Gone => (2, b""),
                Content::Dir => (3, b""),
                Content::Link(t) => (4, t.as_os_str().as_encoded_bytes()),
            };
            h.update(&[tag]);
            h.update(&(bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        }
        h.digest128()
    }

    /// Writes the whole set into the empty directory `dir`, the candidate as the current file,
    /// and returns the test's `$1`. Files are created with `create_new`: a symlink a script left
    /// is never followed.
    pub fn write_into(&self, dir: &Path, candidate: &[u8]) -> Result<PathBuf> {
        for (i, m) in self.members.iter().enumerate() {
            let path = dir.join(&m.rel);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            let bytes = match &m.content {
                _ if i == self.current && self.absent => continue,
                _ if i == self.current => candidate,
                Content::File(b) => b.as_slice(),
                Content::Gone => continue,
                Content::Dir => {
                    fs::create_dir_all(&path)
                        .with_context(|| format!("cannot create {}", path.display()))?;
                    continue;
                }
                Content::Link(target) => {
                    symlink(target, &path)
                        .with_context(|| format!("cannot create the symlink {}", path.display()))?;
                    continue;
                }
            };
            write_new(&path, bytes, m.mode)?;
        }
        Ok(match self.arg.as_os_str().is_empty() {
            true => dir.to_path_buf(),
            false => dir.join(&self.arg),
        })
    }

    /// Stores a new best of the current file: the one file it changes is replaced atomically
    /// (or removed, when the best is the set without it), so the set on disk is always one the
    /// test accepted.
    pub fn store(&self, best: &[u8]) -> Result<()> {
        let Some(root) = &self.out else {
            return Ok(());
        };
        let member = &self.members[self.current];
        let path = root.join(&member.rel);
        if self.absent {
            return match fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(e).with_context(|| format!("cannot remove {}", path.display()))
                }
                _ => Ok(()),
            };
        }
        let meta = FileMeta {
            mode: Some(Permissions::from_mode(member.mode)),
            ..FileMeta::default()
        };
        write_atomically(&path, best, &meta)
    }
}

fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode & 0o7777)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .with_context(|| format!("cannot write the candidate {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> Arc<Vec<Member>> {
        let file = |rel: &str, b: &[u8]| Member {
            rel: rel.into(),
            content: Content::File(b.to_vec()),
            mode: 0o644,
        };
        Arc::new(vec![
            file("a.c", b"int main;"),
            file("inc/b.h", b"struct s;"),
            Member {
                rel: "empty".into(),
                content: Content::Dir,
                mode: 0o755,
            },
        ])
    }

    #[test]
    fn a_candidate_replaces_only_the_current_file_and_keeps_the_layout() {
        let dir = tempfile::tempdir().unwrap();
        let arg = Frame::new(set(), 1, PathBuf::new())
            .write_into(dir.path(), b"X")
            .unwrap();
        assert_eq!(arg, dir.path());
        assert_eq!(fs::read(dir.path().join("a.c")).unwrap(), b"int main;");
        assert_eq!(fs::read(dir.path().join("inc/b.h")).unwrap(), b"X");
        assert!(dir.path().join("empty").is_dir());
    }

    #[test]
    fn an_absent_frame_leaves_the_file_out() {
        let dir = tempfile::tempdir().unwrap();
        Frame::new(set(), 0, "a.c".into())
            .absent()
            .write_into(dir.path(), b"")
            .unwrap();
        assert!(!dir.path().join("a.c").exists());
        assert!(dir.path().join("inc/b.h").exists());
    }

    #[test]
    fn digests_differ_by_current_file_absence_and_the_other_files() {
        let a = Frame::new(set(), 0, PathBuf::new());
        let b = Frame::new(set(), 1, PathBuf::new());
        let mut other = (*set()).clone();
        other[1].content = Content::File(b"struct t;".to_vec());
        let c = Frame::new(Arc::new(other), 0, PathBuf::new());
        let mut same_but_current = (*set()).clone();
        same_but_current[0].content = Content::File(b"changed".to_vec());
        let d = Frame::new(Arc::new(same_but_current), 0, PathBuf::new());
        assert_ne!(a.digest(), b.digest());
        assert_ne!(a.digest(), c.digest());
        assert_ne!(
            a.digest(),
            Frame::new(set(), 0, PathBuf::new()).absent().digest()
        );
        assert_eq!(
            a.digest(),
            d.digest(),
            "the current file's old bytes do not matter"
        );
    }

    #[test]
    fn store_replaces_one_file_and_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        Frame::new(set(), 0, PathBuf::new())
            .write_into(dir.path(), b"int main;")
            .unwrap();
        let frame = Frame::new(set(), 0, PathBuf::new()).storing_in(dir.path().to_path_buf());
        frame.store(b"int;").unwrap();
        assert_eq!(fs::read(dir.path().join("a.c")).unwrap(), b"int;");
        let mode = fs::metadata(dir.path().join("a.c"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644);
        Frame::new(set(), 0, PathBuf::new())
            .absent()
            .storing_in(dir.path().to_path_buf())
            .store(b"")
            .unwrap();
        assert!(!dir.path().join("a.c").exists());
    }
}
