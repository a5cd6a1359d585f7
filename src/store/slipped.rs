//! `--save-slipped DIR`: the other failures a reduction meets on its way. A candidate whose run
//! fails with another signature than the one kept (`--same-failure`) is not interesting, but it
//! is another bug the input hides: it is written to DIR, one file per distinct signature (the
//! smallest candidate seen of each), named by the signature's short name and hash with the
//! input's extension (`gcc-ice-coerce-template-parms-1a2b3c4d.cc`), and listed in DIR's
//! `signatures.json`.
//!
//! What counts as another bug: a signature with key lines (not [`Signature::is_bare`]), of
//! another identity ([`Signature::hash`]: the same crash after a new error is the same bug), not
//! a compiler diagnostic (a broken candidate's `error: expected ';'` is what reduction produces
//! all the time, not a bug of the tool), and not GCC's `confused by earlier errors, bailing out`
//! (a crash without its site). At most [`MAX_SIGNATURES`] are kept.
//!
//! Saving is a side effect of the workers' runs: it never changes a verdict, so the reduction's
//! result is the same whatever `-j` is (which candidates run, and so which slips are seen, may
//! differ). Every file is replaced atomically, the index last. A DIR that holds an index already
//! (an earlier run's) is added to; any other non-empty DIR is refused before the run.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::exit::{FailureKind, fail};
use crate::signature::{Kind, Signature};
use crate::store::sink::{FileMeta, write_atomically};

/// The index's file name in DIR.
pub const INDEX: &str = "signatures.json";

/// At most this many distinct signatures are kept (the first ones seen).
pub const MAX_SIGNATURES: usize = 64;

/// One slipped failure, as the index lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The signature's hash, 16 hex digits.
    pub hash: String,
    pub short_name: String,
    /// The signature in words ([`Signature::describe`]).
    pub describe: String,
    /// The file in DIR holding the smallest candidate seen with it.
    pub file: String,
    /// Its size in bytes.
    pub size: usize,
    /// When it was first seen: UTC, `2024-05-01T12:34:56Z`.
    pub first_seen: String,
    /// How many candidates failed this way (in the runs that wrote the index).
    pub candidates: u64,
    pub signature: Signature,
}

struct State {
    entries: Vec<Entry>,
    /// Counts changed since the index was written.
    dirty: bool,
    /// The first write error: saving stops there (the run goes on), and the summary says why.
    error: Option<String>,
}

/// The saver, shared by the workers.
pub struct Slipped {
    dir: PathBuf,
    /// The input's extension with its dot (`.cc`), or nothing.
    ext: String,
    state: Mutex<State>,
    start: Instant,
}

impl std::fmt::Debug for Slipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slipped").field("dir", &self.dir).finish()
    }
}

/// Whether `got` is another bug than `want`, worth a file.
pub fn is_slip(want: &Signature, got: &Signature) -> bool {
    // GCC's `confused by earlier errors, bailing out` is a crash it hides behind an error: it
    // names no crash site, so there is nothing to tell one such bug from another
    let hidden = got.kind == Kind::GccIce
        && got
            .key
            .iter()
            .all(|line| line.starts_with("confused by earlier errors"));
    !got.is_bare() && !hidden && got.kind != Kind::Diagnostic && got.hash() != want.hash()
}

impl Slipped {
    /// Checks DIR (a new or empty directory, or one holding an index of an earlier run, whose
    /// entries are kept), creates it and writes its index. `name`: the candidate's file name,
    /// whose extension the saved files get.
    pub fn open(dir: &Path, name: &OsString) -> Result<Slipped> {
        let entries = match Slipped::check(dir)? {
            Some(entries) => entries,
            None => {
                fs::create_dir(dir).map_err(|e| {
                    fail(
                        FailureKind::Io,
                        format!(
                            "--save-slipped: cannot create the directory {}: {e}",
                            dir.display()
                        ),
                    )
                })?;
                Vec::new()
            }
        };
        let ext = Path::new(name)
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        let saver = Slipped {
            dir: dir.to_path_buf(),
            ext,
            state: Mutex::new(State {
                entries,
                dirty: false,
                error: None,
            }),
            start: Instant::now(),
        };
        let state = saver.lock();
        saver
            .write_index(&state.entries)
            .map_err(|e| fail(FailureKind::Io, format!("--save-slipped: {e:#}")))?;
        drop(state);
        Ok(saver)
    }

    /// Checks DIR before the run: `None` when it does not exist yet (its parent must), else the
    /// entries of its index (none for an empty DIR). Refuses a file, a DIR that holds anything
    /// but an index of this kind, and an index that does not parse.
    pub fn check(dir: &Path) -> Result<Option<Vec<Entry>>> {
        let shown = dir.display();
        let usage =
            |why: String| fail(FailureKind::Usage, format!("--save-slipped {shown}: {why}"));
        match fs::symlink_metadata(dir) {
            Ok(m) if !m.is_dir() => Err(usage("exists and is not a directory".into())),
            Ok(_) => {
                let index = dir.join(INDEX);
                if index.exists() {
                    let bytes = fs::read(&index).map_err(|e| {
                        fail(
                            FailureKind::Io,
                            format!("cannot read {}: {e}", index.display()),
                        )
                    })?;
                    let entries = serde_json::from_slice(&bytes).map_err(|e| {
                        usage(format!(
                            "its {INDEX} is not an index of --save-slipped ({e}); give a new or empty directory"
                        ))
                    })?;
                    return Ok(Some(entries));
                }
                let any = fs::read_dir(dir)
                    .map_err(|e| fail(FailureKind::Io, format!("cannot read {shown}: {e}")))?
                    .next()
                    .is_some();
                match any {
                    true => Err(usage(
                        "holds files already; give a new or empty directory (or the DIR of an earlier --save-slipped, which is added to)".into(),
                    )),
                    false => Ok(Some(Vec::new())),
                }
            }
            Err(_) => {
                let parent = crate::store::paths::parent_of(dir);
                match parent.is_dir() {
                    true => Ok(None),
                    false => Err(fail(
                        FailureKind::Io,
                        format!(
                            "--save-slipped {shown}: directory {} does not exist",
                            parent.display()
                        ),
                    )),
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A candidate (`bytes`) failed as `got` while `want` is kept: saved if it is another bug
    /// and the smallest of its signature so far. Errors stop the saving, not the run.
    pub fn offer(&self, want: &Signature, got: &Signature, bytes: &[u8]) {
        if !is_slip(want, got) {
            return;
        }
        let mut state = self.lock();
        if state.error.is_some() {
            return;
        }
        let hash = format!("{:016x}", got.hash());
        let index = state.entries.iter().position(|e| e.hash == hash);
        let write = match index {
            Some(i) => {
                let entry = &mut state.entries[i];
                entry.candidates += 1;
                let smaller = bytes.len() < entry.size;
                state.dirty = !smaller;
                smaller
            }
            None => state.entries.len() < MAX_SIGNATURES,
        };
        if !write {
            return;
        }
        let short_name = got.short_name();
        let file = format!("{short_name}-{}{}", &hash[..8], self.ext);
        let result = write_atomically(&self.dir.join(&file), bytes, &FileMeta::default());
        if let Err(e) = result {
            state.error = Some(format!("{e:#}"));
            return;
        }
        match index {
            Some(i) => state.entries[i].size = bytes.len(),
            None => state.entries.push(Entry {
                hash,
                short_name,
                describe: got.describe(),
                file,
                size: bytes.len(),
                first_seen: utc_now(),
                candidates: 1,
                signature: got.clone(),
            }),
        }
        if let Err(e) = self.write_index(&state.entries) {
            state.error = Some(format!("{e:#}"));
        }
    }

    /// Writes the index if counts changed since it was last written (at the end of the run;
    /// a run killed before keeps the files and an index with older counts).
    pub fn flush(&self) {
        let mut state = self.lock();
        if state.dirty && state.error.is_none() {
            state.dirty = false;
            if let Err(e) = self.write_index(&state.entries) {
                state.error = Some(format!("{e:#}"));
            }
        }
    }

    fn write_index(&self, entries: &[Entry]) -> Result<()> {
        let mut json = serde_json::to_vec_pretty(entries)?;
        json.push(b'\n');
        write_atomically(&self.dir.join(INDEX), &json, &FileMeta::default())
    }

    /// The signatures kept (of this run and the earlier ones), in the order first seen.
    pub fn entries(&self) -> Vec<Entry> {
        self.lock().entries.clone()
    }

    /// Why saving stopped, if it did.
    pub fn error(&self) -> Option<String> {
        self.lock().error.clone()
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Seconds since the saver was opened (the run's start).
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}

/// Now, in UTC: `2024-05-01T12:34:56Z`.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(secs)
}

/// Seconds since the epoch as a UTC date and time (the civil calendar from days, after Howard
/// Hinnant's `civil_from_days`).
fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rest = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::{Ending, derive};

    fn sig(stderr: &str) -> Signature {
        derive(Ending::Exited(1), b"", stderr.as_bytes()).unwrap()
    }

    const ZERO: &str = "Traceback (most recent call last):\n  File \"c.py\", line 3, in div\n    return a / b\nZeroDivisionError: division by zero\n";
    const KEY: &str = "Traceback (most recent call last):\n  File \"c.py\", line 9, in look\n    return d[k]\nKeyError: 'x'\n";

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_714_566_896), "2024-05-01T12:34:56Z");
    }

    #[test]
    fn one_file_per_signature_the_smallest_and_an_index() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("slips");
        let saver = Slipped::open(&dir, &"calc.py".into()).unwrap();
        let (want, other) = (sig(ZERO), sig(KEY));
        saver.offer(&want, &want, b"the same bug");
        saver.offer(&want, &sig("error: expected ';'\n"), b"a diagnostic");
        saver.offer(&want, &other, b"a bigger one");
        saver.offer(&want, &other, b"small");
        saver.offer(&want, &other, b"not smaller");
        saver.flush();
        let entries = saver.entries();
        assert_eq!(entries.len(), 1, "{entries:?}");
        let entry = &entries[0];
        assert!(entry.file.ends_with(".py") && entry.file.starts_with("python-keyerror"));
        assert_eq!((entry.size, entry.candidates), (5, 3));
        assert_eq!(fs::read(dir.join(&entry.file)).unwrap(), b"small");
        let index: Vec<Entry> =
            serde_json::from_slice(&fs::read(dir.join(INDEX)).unwrap()).unwrap();
        assert_eq!(index, entries);
        // a second run adds to the index
        let again = Slipped::open(&dir, &"calc.py".into()).unwrap();
        assert_eq!(again.entries(), entries);
    }

    #[test]
    fn a_directory_of_other_files_or_a_file_is_refused() {
        let root = tempfile::tempdir().unwrap();
        fs::write(root.path().join("mine.txt"), "x").unwrap();
        let err = Slipped::open(root.path(), &"a.c".into()).unwrap_err();
        assert!(
            format!("{err:#}").contains("holds files already"),
            "{err:#}"
        );
        let err = Slipped::open(&root.path().join("mine.txt"), &"a.c".into()).unwrap_err();
        assert!(format!("{err:#}").contains("not a directory"), "{err:#}");
    }
}
