//! Resume after an interrupt. An in-place run keeps, next to the verdict cache, a record of its
//! input (`CACHE/runs/HASH.json`, HASH: the input's canonical path: the test's fingerprint and
//! the hash of the original in `INPUT.orig`) and the hashes of every result it wrote to INPUT
//! (`HASH.commits`, append-only, one record per result, written before the result).
//!
//! Running the very same command again resumes when the fingerprint matches, `INPUT.orig` is
//! that run's original and INPUT is one of its results: the run starts again from `INPUT.orig`
//! and replays the interrupted run, whose commits are known interesting and whose rejections
//! the verdict cache knows, so the replay runs (almost) no tests and takes exactly the path of
//! an uninterrupted run (the algorithms are deterministic), then goes on from where it stopped.
//! Any other `INPUT.orig` keeps the refusal.
//!
//! The record's files are checked and opened as the verdict files are (see `diskcache`: regular
//! files of this user's, never through a symlink).

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_128;

use crate::store::diskcache::{
    RECORD, RUNS, check_file, decode, encode, open_private, private_dir,
};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Record {
    fingerprint: String,
    original: String,
    /// The run ended on its own (not interrupted, no error), leaving `result` in INPUT.
    #[serde(default)]
    finished: bool,
    /// The hash of the result a finished run left.
    #[serde(default)]
    result: String,
}

fn hex(h: u128) -> String {
    format!("{h:032x}")
}

/// The resume record of one in-place run.
pub struct ResumeLog {
    json: PathBuf,
    commits_path: PathBuf,
    record: Record,
    /// The previous run's record, if it was of this test.
    previous: Option<Record>,
    /// The previous run's record, whatever its test.
    earlier: Option<Record>,
    /// Results written to INPUT by the run (and by the run it resumes).
    commits: HashSet<u128>,
    file: Option<File>,
    resumed: bool,
}

impl ResumeLog {
    /// The log for reducing `input` under `fingerprint`; `None` if the input has no canonical
    /// path. Reads the previous run's record, if any, for [`ResumeLog::resumes`]. An error: the
    /// record's directory or files are not this user's own (a symlink, another user's).
    pub fn new(root: &Path, input: &Path, fingerprint: u128) -> io::Result<Option<ResumeLog>> {
        let Ok(canonical) = fs::canonicalize(input) else {
            return Ok(None);
        };
        let key = hex(xxh3_128(canonical.as_os_str().as_bytes()));
        let dir = root.join(RUNS);
        private_dir(&dir, true)?;
        let record = Record {
            fingerprint: hex(fingerprint),
            ..Record::default()
        };
        let json = dir.join(format!("{key}.json"));
        let commits_path = dir.join(format!("{key}.commits"));
        check_file(&json)?;
        check_file(&commits_path)?;
        let earlier = read_private(&json).and_then(|b| serde_json::from_slice::<Record>(&b).ok());
        let previous = earlier
            .clone()
            .filter(|r| r.fingerprint == record.fingerprint);
        let commits = match previous {
            Some(_) => read_commits(&commits_path),
            None => HashSet::new(),
        };
        Ok(Some(ResumeLog {
            json,
            commits_path,
            record,
            previous,
            earlier,
            commits,
            file: None,
            resumed: false,
        }))
    }

    /// Is `input` a result the last run wrote, and `backup` that run's original? Then this run
    /// resumes it: it starts again from `backup` and keeps it.
    pub fn resumes(&mut self, input: &[u8], backup: &[u8]) -> bool {
        self.resumed = self
            .previous
            .as_ref()
            .is_some_and(|p| p.original == hex(xxh3_128(backup)))
            && self.commits.contains(&xxh3_128(input));
        self.resumed
    }

    /// The record's files (for eviction, which keeps them).
    pub fn paths(&self) -> [&Path; 2] {
        [&self.json, &self.commits_path]
    }

    /// Did the previous run, whatever its test, finish with `input` as its result, from the
    /// original `backup`?
    pub fn finished_with(&self, input: &[u8], backup: &[u8]) -> bool {
        self.earlier.as_ref().is_some_and(|r| {
            r.finished && r.result == hex(xxh3_128(input)) && r.original == hex(xxh3_128(backup))
        })
    }

    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// The results the resumed run committed (known interesting); empty unless resuming.
    pub fn known_results(&self) -> Vec<u128> {
        match self.resumed {
            true => self.commits.iter().copied().collect(),
            false => Vec::new(),
        }
    }

    /// The run starts from `original` (in `INPUT.orig`, and in INPUT unless resuming): a fresh
    /// run forgets the previous record.
    pub fn start(&mut self, original: &[u8]) -> io::Result<()> {
        let dir = crate::store::paths::parent_of(&self.json);
        private_dir(dir, true)?;
        self.record.original = hex(xxh3_128(original));
        let mut options = OpenOptions::new();
        options.append(true).create(true);
        if !self.resumed {
            self.commits.clear();
            let file = open_private(&self.commits_path, &mut options)?;
            file.set_len(0)?;
            self.file = Some(file);
        } else {
            let file = open_private(&self.commits_path, &mut options)?;
            // a torn last record is cut off so that the next ones stay aligned
            let len = file.metadata()?.len();
            file.set_len(len - len % RECORD as u64)?;
            self.file = Some(file);
        }
        self.write_record()?;
        self.before_write(original)
    }

    /// The run ended on its own with `result` in INPUT: recorded, so that a later run knows.
    pub fn finish(&mut self, result: &[u8]) -> io::Result<()> {
        self.record.finished = true;
        self.record.result = hex(xxh3_128(result));
        self.write_record()
    }

    /// Replaces the json record atomically: a temp file (0600) in `runs/`, renamed over it (a
    /// rename replaces a symlink planted there, never writes through it).
    fn write_record(&self) -> io::Result<()> {
        let json = serde_json::to_vec(&self.record).map_err(io::Error::other)?;
        let mut tmp = tempfile::NamedTempFile::new_in(crate::store::paths::parent_of(&self.json))?;
        tmp.write_all(&json)?;
        tmp.persist(&self.json).map_err(|e| e.error)?;
        Ok(())
    }

    /// `next` is about to replace INPUT: one record, one write.
    pub fn before_write(&mut self, next: &[u8]) -> io::Result<()> {
        let key = xxh3_128(next);
        if !self.commits.insert(key) {
            return Ok(());
        }
        match &mut self.file {
            Some(f) => f.write_all(&encode(key)),
            None => Ok(()),
        }
    }
}

/// The whole records of a commits file (a torn last one is ignored).
fn read_commits(path: &Path) -> HashSet<u128> {
    let Some(bytes) = read_private(path) else {
        return HashSet::new();
    };
    bytes.chunks_exact(RECORD).filter_map(decode).collect()
}

/// The bytes of a file of the record: `None` if it is missing, unreadable or not ours.
fn read_private(path: &Path) -> Option<Vec<u8>> {
    let mut file: File = open_private(path, OpenOptions::new().read(true)).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.c");
        fs::write(&input, "x").unwrap();
        let root = dir.path().join("cache");
        (dir, input, root)
    }

    #[test]
    fn a_written_result_resumes_and_a_stranger_does_not() {
        let (_dir, input, root) = setup();
        let mut log = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        assert!(!log.resumes(b"abc", b"abcdef"));
        log.start(b"abcdef").unwrap();
        log.before_write(b"abcd").unwrap();
        log.before_write(b"ab").unwrap();
        drop(log);
        for current in [&b"abcd"[..], b"ab"] {
            let mut again = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
            assert!(again.resumes(current, b"abcdef"));
            assert_eq!(again.known_results().len(), 3);
        }
        let mut again = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        assert!(!again.resumes(b"abcdef!", b"abcdef"), "an unknown input");
        assert!(
            !again.resumes(b"ab", b"other original"),
            "an unknown backup"
        );
        assert!(again.known_results().is_empty());
        let mut other_test = ResumeLog::new(&root, &input, 2).unwrap().unwrap();
        assert!(!other_test.resumes(b"ab", b"abcdef"), "another test");
        assert!(!other_test.finished_with(b"ab", b"abcdef"), "not finished");
    }

    #[test]
    fn a_finished_run_is_known_as_such_to_any_test() {
        let (_dir, input, root) = setup();
        let mut log = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        log.start(b"abcdef").unwrap();
        log.before_write(b"ab").unwrap();
        log.finish(b"ab").unwrap();
        for fingerprint in [1, 2] {
            let log = ResumeLog::new(&root, &input, fingerprint).unwrap().unwrap();
            assert!(log.finished_with(b"ab", b"abcdef"));
            assert!(!log.finished_with(b"abcd", b"abcdef") && !log.finished_with(b"ab", b"x"));
        }
        // a run that starts again is not finished until it says so
        let mut again = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        assert!(again.resumes(b"ab", b"abcdef"));
        again.start(b"abcdef").unwrap();
        let after = ResumeLog::new(&root, &input, 2).unwrap().unwrap();
        assert!(!after.finished_with(b"ab", b"abcdef"));
    }

    #[test]
    fn a_fresh_start_forgets_the_old_results_and_a_resume_keeps_them() {
        let (_dir, input, root) = setup();
        let mut log = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        log.start(b"aaa").unwrap();
        log.before_write(b"aa").unwrap();
        let mut resumed = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        assert!(resumed.resumes(b"aa", b"aaa"));
        resumed.start(b"aaa").unwrap();
        resumed.before_write(b"a").unwrap();
        let mut again = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        assert!(again.resumes(b"aa", b"aaa") && again.resumes(b"a", b"aaa"));
        let mut fresh = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        assert!(!fresh.resumes(b"zzz", b"yyy"));
        fresh.start(b"zzz").unwrap();
        let mut after = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        assert!(!after.resumes(b"aa", b"aaa"));
        assert!(after.resumes(b"zzz", b"zzz"));
    }

    #[test]
    fn a_torn_commit_record_is_ignored() {
        let (_dir, input, root) = setup();
        let mut log = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        log.start(b"aaa").unwrap();
        let path = log.commits_path.clone();
        drop(log);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&encode(xxh3_128(b"aa"))[..7]).unwrap();
        let mut again = ResumeLog::new(&root, &input, 1).unwrap().unwrap();
        assert!(!again.resumes(b"aa", b"aaa"));
        assert!(again.resumes(b"aaa", b"aaa"));
    }
}
