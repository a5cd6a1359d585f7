//! The files of `--each DIR`: every regular file under DIR, recursively, in path order. Symlinks
//! are not followed (a link is listed, not run: what it points to inside DIR is a file of its
//! own); FIFOs, devices, sockets, empty and huge files are listed as skipped, unreadable files
//! and directories as unreadable. Only a DIR that is missing, not a directory or holds nothing to
//! run stops the run (exit 4). DIR is only read.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::exit::{FailureKind, fail};

/// A file above this size is listed as skipped, not read: fuzz crashes are small, and every
/// file of the folder is held in memory for the signature runs. See issue 41 ("huge files").
pub const MAX_FILE: u64 = 64 << 20;

/// One entry of DIR.
#[derive(Debug)]
pub struct Entry {
    /// Relative to DIR.
    pub rel: PathBuf,
    pub state: State,
}

#[derive(Debug, PartialEq, Eq)]
pub enum State {
    /// A regular file, read.
    File(Vec<u8>),
    /// Cannot be read (the reason).
    Unreadable(String),
    /// Not a job: a symlink, a FIFO, an empty or huge file (the reason), with its size.
    Skipped(String, u64),
}

fn bad(message: String) -> anyhow::Error {
    fail(FailureKind::BadInput, message)
}

/// Every entry of `dir`, in path order; `skip` are canonical paths left out (the test script,
/// the temp directory when they lie inside).
pub fn scan(dir: &Path, skip: &[PathBuf]) -> Result<Vec<Entry>> {
    let shown = dir.display();
    let meta = fs::metadata(dir).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "does not exist".to_string(),
            _ => format!("cannot be read ({e})"),
        };
        bad(format!("--each {shown} {why}"))
    })?;
    if !meta.is_dir() {
        return Err(bad(format!(
            "--each {shown} is not a directory: give the folder of crashes (to reduce one file, leave out --each)"
        )));
    }
    let root = fs::canonicalize(dir).map_err(|e| bad(format!("--each {shown}: {e}")))?;
    if fs::read_dir(&root).is_err() {
        return Err(bad(format!(
            "--each {shown} cannot be read (permission denied)"
        )));
    }
    let mut out = Vec::new();
    walk(&root, Path::new(""), skip, &mut out);
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    if !out.iter().any(|e| matches!(e.state, State::File(_))) {
        let why = match out.is_empty() {
            true => "holds no files".to_string(),
            false => format!(
                "holds no file to run ({} entries, each empty, unreadable or not a regular file)",
                out.len()
            ),
        };
        return Err(bad(format!(
            "--each {shown} {why}: there is nothing to reduce"
        )));
    }
    Ok(out)
}

fn walk(root: &Path, rel: &Path, skip: &[PathBuf], out: &mut Vec<Entry>) {
    let names = match fs::read_dir(root.join(rel)).and_then(|entries| {
        entries
            .map(|e| e.map(|e| e.file_name()))
            .collect::<Result<Vec<_>, _>>()
    }) {
        Ok(names) => names,
        Err(e) => {
            out.push(Entry {
                rel: rel.to_path_buf(),
                state: State::Unreadable(format!("a directory that cannot be read ({e})")),
            });
            return;
        }
    };
    for name in names {
        // the temp file of an atomic write a killed run left behind, a run's lock
        if name.as_encoded_bytes().starts_with(b".reduce-")
            || crate::store::runlock::is_lock_name(&name)
        {
            continue;
        }
        let rel = rel.join(&name);
        let path = root.join(&rel);
        if skip.contains(&path) {
            continue;
        }
        let state = match fs::symlink_metadata(&path) {
            Err(e) => State::Unreadable(format!("cannot be read ({e})")),
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&path).unwrap_or_default();
                State::Skipped(
                    format!("a symlink to {}: not followed", target.display()),
                    0,
                )
            }
            Ok(m) if m.is_dir() => {
                walk(root, &rel, skip, out);
                continue;
            }
            Ok(m) if !m.is_file() => {
                State::Skipped("not a regular file (a FIFO, device or socket)".into(), 0)
            }
            Ok(m) if m.len() == 0 => State::Skipped("empty".into(), 0),
            Ok(m) if m.len() > MAX_FILE => State::Skipped(
                format!(
                    "{} bytes, larger than {} MiB: not read",
                    m.len(),
                    MAX_FILE >> 20
                ),
                m.len(),
            ),
            Ok(_) => match fs::read(&path) {
                Ok(bytes) => State::File(bytes),
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                    State::Unreadable("cannot be read (permission denied)".into())
                }
                Err(e) => State::Unreadable(format!("cannot be read ({e})")),
            },
        };
        out.push(Entry { rel, state });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_found_recursively_in_path_order_and_links_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir_all(d.join("sub/deeper")).unwrap();
        fs::write(d.join("b"), "b").unwrap();
        fs::write(d.join("sub/deeper/a"), "a").unwrap();
        fs::write(d.join("empty"), "").unwrap();
        fs::write(d.join(".reduce-tmp123"), "leftover").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", d.join("link")).unwrap();
        let entries = scan(d, &[]).unwrap();
        let rels: Vec<_> = entries.iter().map(|e| e.rel.to_str().unwrap()).collect();
        assert_eq!(rels, ["b", "empty", "link", "sub/deeper/a"]);
        assert_eq!(entries[0].state, State::File(b"b".to_vec()));
        assert!(matches!(&entries[1].state, State::Skipped(why, 0) if why == "empty"));
        assert!(
            matches!(&entries[2].state, State::Skipped(why, _) if why.contains("not followed"))
        );
    }

    #[test]
    fn a_folder_with_nothing_to_run_is_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let err = scan(dir.path(), &[]).unwrap_err();
        assert!(format!("{err}").contains("holds no files"), "{err}");
        fs::write(dir.path().join("empty"), "").unwrap();
        let err = scan(dir.path(), &[]).unwrap_err();
        assert!(format!("{err}").contains("no file to run"), "{err}");
        let err = scan(&dir.path().join("none"), &[]).unwrap_err();
        assert!(format!("{err}").contains("does not exist"), "{err}");
        let err = scan(&dir.path().join("empty"), &[]).unwrap_err();
        assert!(format!("{err}").contains("not a directory"), "{err}");
    }
}
