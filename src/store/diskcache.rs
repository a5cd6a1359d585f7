//! The persistent verdict cache: "not interesting" verdicts kept on disk across runs, as
//! 128-bit xxh3 hashes of the candidates, one append-only file per test fingerprint under
//! `$XDG_CACHE_HOME/reduce/verdicts/` (else `~/.cache/reduce/verdicts/`).
//!
//! Only verdicts of runs that ended on their own (an exit status or a signal) are kept: a
//! timeout, a cancelled or an interrupted run, or an error never becomes a verdict. Each record
//! is written with one `write` to a file opened for appending, so a SIGKILL leaves whole records;
//! a torn last record (a power cut) is cut off when the file is next opened, and a record whose
//! check bytes do not match is ignored, never trusted. No fsync: losing the last verdicts costs
//! only their re-runs.
//!
//! The cache may be shared or planted: its root, `verdicts/`, `runs/` and every file in them must
//! be real directories and regular files of this user's ([`private_dir`], [`check_file`]; a
//! directory of ours that others may write to is tightened to 0700, a file to 0600), files are
//! opened with `O_NOFOLLOW` ([`open_private`]), and eviction removes only regular files of ours
//! named as the cache names them. Anything else makes the caller run without the cache.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use xxhash_rust::xxh3::{xxh3_64, xxh3_128};

/// One record: the 16-byte hash (little endian) and 4 check bytes.
pub const RECORD: usize = 20;

/// The default bound of the verdict files together (`--cache-size`).
pub const DEFAULT_SIZE: u64 = 256 << 20;

/// The directories of the verdict files and of the resume records, under the cache root.
pub const VERDICTS: &str = "verdicts";
pub const RUNS: &str = "runs";

/// Tags the fingerprint's hash so that it can never equal a candidate's.
const FINGERPRINT_TAG: &[u8] = b"reduce verdict fingerprint v1\0";

/// The cache directory: `$XDG_CACHE_HOME/reduce`, else `$HOME/.cache/reduce` (a relative or
/// empty `XDG_CACHE_HOME` is ignored, as the XDG specification says). `None`: no home.
pub fn cache_root() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| {
        let p = PathBuf::from(v);
        p.is_absolute().then_some(p)
    };
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").and_then(absolute) {
        return Some(dir.join("reduce"));
    }
    std::env::var_os("HOME")
        .and_then(absolute)
        .map(|home| home.join(".cache").join("reduce"))
}

/// The fingerprint verdicts are kept under: the test's identity bytes (`Check::identity`: a
/// script's path or a `-c`/`--` command, its conditions, and the bytes of the files it names)
/// and the candidate's file name, which the test sees.
pub fn fingerprint(test_identity: &[u8], input_name: &OsStr) -> u128 {
    let name = input_name.as_bytes();
    let mut bytes =
        Vec::with_capacity(FINGERPRINT_TAG.len() + 8 + name.len() + test_identity.len());
    bytes.extend_from_slice(FINGERPRINT_TAG);
    bytes.extend_from_slice(&(name.len() as u64).to_le_bytes());
    bytes.extend_from_slice(name);
    bytes.extend_from_slice(test_identity);
    xxh3_128(&bytes)
}

fn check(key: u128) -> [u8; 4] {
    let h = xxh3_64(&key.to_le_bytes()) as u32 ^ 0x5245_4455; // "REDU"
    h.to_le_bytes()
}

pub fn encode(key: u128) -> [u8; RECORD] {
    let mut rec = [0u8; RECORD];
    rec[..16].copy_from_slice(&key.to_le_bytes());
    rec[16..].copy_from_slice(&check(key));
    rec
}

pub fn decode(rec: &[u8]) -> Option<u128> {
    let key = u128::from_le_bytes(rec.get(..16)?.try_into().ok()?);
    (rec.get(16..RECORD)? == check(key)).then_some(key)
}

/// Hashes a key that is a hash already: its two halves folded, no second hash function.
#[derive(Default)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 ^= xxh3_64(bytes);
    }

    fn write_u128(&mut self, key: u128) {
        self.0 ^= key as u64 ^ (key >> 64) as u64;
    }
}

/// A set of candidate hashes.
pub type KeySet = HashSet<u128, std::hash::BuildHasherDefault<KeyHasher>>;

/// The "not interesting" verdicts of one fingerprint, loaded, and the file new ones go to.
pub struct DiskCache {
    file: File,
    path: PathBuf,
    known: KeySet,
}

impl DiskCache {
    /// Opens (creating) the verdict file of `fingerprint` under `root` and loads it.
    pub fn open(root: &Path, fingerprint: u128) -> io::Result<DiskCache> {
        let dir = root.join(VERDICTS);
        private_dir(&dir, true)?;
        let path = dir.join(format!("{fingerprint:032x}.v1"));
        let mut file = open_private(
            &path,
            OpenOptions::new().read(true).append(true).create(true),
        )?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let whole = bytes.len() - bytes.len() % RECORD;
        if whole < bytes.len() {
            // a torn last record: cut it off so that the next records stay aligned
            file.set_len(whole as u64)?;
        }
        let mut known = KeySet::with_capacity_and_hasher(whole / RECORD, Default::default());
        known.extend(bytes[..whole].chunks_exact(RECORD).filter_map(decode));
        // appending marks the file as recently used; so does opening it
        let _ = file.set_modified(SystemTime::now());
        Ok(DiskCache { file, path, known })
    }

    /// Was this candidate found not interesting before?
    pub fn rejected(&self, key: u128) -> bool {
        self.known.contains(&key)
    }

    /// Records a "not interesting" verdict: one write of one record.
    pub fn reject(&mut self, key: u128) -> io::Result<()> {
        if self.known.insert(key) {
            self.file.write_all(&encode(key))?;
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.known.len()
    }

    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Removes the least recently used entries of the cache under `root` while its files together
/// exceed `max_bytes`: verdict files (`verdicts/HEX.v1`) and resume records (`runs/HEX.json` with
/// `runs/HEX.commits`, counted and removed together), oldest first by modification time (a
/// record's newer file), never an entry holding one of `keep` (this run's). Only regular files of
/// ours named as the cache names them count, and only they are removed. Best effort: a file that
/// cannot be removed is skipped.
pub fn evict(root: &Path, keep: &[&Path], max_bytes: u64) {
    let mut entries = entries(&root.join(VERDICTS), &["v1"]);
    entries.extend(entries_of_runs(&root.join(RUNS)));
    let mut total: u64 = entries.iter().map(|e| e.len).sum();
    entries.sort_by(|a, b| a.used.cmp(&b.used).then_with(|| a.files.cmp(&b.files)));
    for entry in entries {
        if total <= max_bytes {
            break;
        }
        if entry.files.iter().any(|(p, _)| keep.contains(&p.as_path())) {
            continue;
        }
        for (path, len) in &entry.files {
            if fs::remove_file(path).is_ok() {
                total -= len;
            }
        }
    }
}

/// One thing eviction removes whole: a verdict file, or a resume record's files.
struct Entry {
    used: SystemTime,
    len: u64,
    files: Vec<(PathBuf, u64)>,
}

/// The regular files of ours in `dir` named `HEX.EXT` for one of `extensions`, one entry each.
fn entries(dir: &Path, extensions: &[&str]) -> Vec<Entry> {
    let Ok(listing) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let me = euid();
    listing
        .filter_map(|e| e.ok())
        .filter(|e| is_cache_name(&e.file_name(), extensions))
        .filter_map(|e| {
            // the entry itself, never what a symlink points to
            let m = e.metadata().ok()?;
            (m.is_file() && m.uid() == me).then(|| Entry {
                used: m.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                len: m.len(),
                files: vec![(e.path(), m.len())],
            })
        })
        .collect()
}

/// The resume records in `dir`: each `HEX.json` and `HEX.commits` pair is one entry.
fn entries_of_runs(dir: &Path) -> Vec<Entry> {
    let mut records: std::collections::BTreeMap<std::ffi::OsString, Entry> = Default::default();
    for file in entries(dir, &["json", "commits"]) {
        let (path, _) = &file.files[0];
        let stem = path.file_stem().unwrap_or_default().to_owned();
        let record = records.entry(stem).or_insert(Entry {
            used: SystemTime::UNIX_EPOCH,
            len: 0,
            files: Vec::new(),
        });
        record.used = record.used.max(file.used);
        record.len += file.len;
        record.files.extend(file.files);
    }
    records.into_values().collect()
}

/// A name the cache gives its files: 32 lowercase hex digits, a dot, one of `extensions`.
pub fn is_cache_name(name: &OsStr, extensions: &[&str]) -> bool {
    let Some((hash, ext)) = name.to_str().and_then(|n| n.split_once('.')) else {
        return false;
    };
    hash.len() == 32
        && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && extensions.contains(&ext)
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// An error that says why a path of the cache is not used.
fn refused(path: &Path, why: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("{} {why}", path.display()))
}

/// Checks `metadata` (of `path`, not followed) is of a `kind` this user owns; tightens it to
/// `mode` if group or others may write to it.
fn check_owned(path: &Path, m: &fs::Metadata, kind: &str, mode: u32) -> io::Result<()> {
    if m.file_type().is_symlink() {
        return Err(refused(path, format!("is a symlink, not a {kind}")));
    }
    let right_kind = match kind {
        "directory" => m.is_dir(),
        _ => m.is_file(),
    };
    if !right_kind {
        return Err(refused(path, format!("is not a {kind}")));
    }
    if m.uid() != euid() {
        return Err(refused(
            path,
            format!("belongs to another user (uid {})", m.uid()),
        ));
    }
    if m.mode() & 0o022 != 0 {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(|e| {
            refused(
                path,
                format!("is writable by others and cannot be made private ({e})"),
            )
        })?;
    }
    Ok(())
}

/// Makes sure `dir` is a directory of the cache this user can trust: creates it (0700, and its
/// missing parents with `parents`) if it does not exist; refuses a symlink, anything but a
/// directory, or one that another user owns; one of ours that group or others may write to is
/// tightened to 0700.
pub fn private_dir(dir: &Path, parents: bool) -> io::Result<()> {
    match fs::DirBuilder::new()
        .recursive(parents)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(refused(dir, format!("cannot be created ({e})"))),
    }
    let m = fs::symlink_metadata(dir).map_err(|e| refused(dir, format!("cannot be read ({e})")))?;
    check_owned(dir, &m, "directory", 0o700)
}

/// Refuses an existing `path` that is not a regular file of this user's; one that group or
/// others may write to is tightened to 0600. A missing one is fine.
pub fn check_file(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) => check_owned(path, &m, "regular file", 0o600),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(refused(path, format!("cannot be read ({e})"))),
    }
}

/// Opens a file of the cache with `options`, never through a symlink (`O_NOFOLLOW`), never
/// waiting on a FIFO, created 0600; refuses what is not a regular file of this user's.
pub fn open_private(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    check_file(path)?;
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .mode(0o600)
        .open(path)
        .map_err(|e| refused(path, format!("cannot be opened ({e})")))?;
    // (O_NONBLOCK only keeps a planted FIFO from blocking the open: a regular file ignores it)
    let m = file.metadata()?;
    check_owned(path, &m, "regular file", 0o600)?;
    Ok(file)
}

/// Removes the whole cache directory; `false` if there was none.
pub fn clear(root: &Path) -> io::Result<bool> {
    match fs::remove_dir_all(root) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_survive_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = DiskCache::open(dir.path(), 7).unwrap();
        c.reject(1).unwrap();
        c.reject(u128::MAX).unwrap();
        c.reject(1).unwrap();
        drop(c);
        let c = DiskCache::open(dir.path(), 7).unwrap();
        assert!(c.rejected(1) && c.rejected(u128::MAX) && !c.rejected(2));
        assert_eq!(fs::metadata(c.path()).unwrap().len(), 2 * RECORD as u64);
        let other = DiskCache::open(dir.path(), 8).unwrap();
        assert!(other.is_empty());
    }

    #[test]
    fn a_torn_last_record_is_ignored_and_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = DiskCache::open(dir.path(), 1).unwrap();
        c.reject(42).unwrap();
        let path = c.path().to_path_buf();
        drop(c);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&encode(43)[..11]).unwrap();
        drop(f);
        let mut c = DiskCache::open(dir.path(), 1).unwrap();
        assert!(c.rejected(42) && !c.rejected(43));
        c.reject(44).unwrap();
        drop(c);
        let c = DiskCache::open(dir.path(), 1).unwrap();
        assert!(c.rejected(44) && c.len() == 2);
    }

    #[test]
    fn a_corrupt_record_is_never_trusted() {
        let mut rec = encode(99);
        assert_eq!(decode(&rec), Some(99));
        rec[3] ^= 1;
        assert_eq!(decode(&rec), None);
    }

    #[test]
    fn the_oldest_fingerprints_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let old = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000);
        for fp in [1u128, 2] {
            let mut c = DiskCache::open(dir.path(), fp).unwrap();
            (0..10).for_each(|k| c.reject(k).unwrap());
            let f = File::options().write(true).open(c.path()).unwrap();
            f.set_modified(old + std::time::Duration::from_secs(fp as u64))
                .unwrap();
        }
        let c = DiskCache::open(dir.path(), 3).unwrap();
        evict(dir.path(), &[c.path()], 15 * RECORD as u64);
        let names: Vec<_> = fs::read_dir(dir.path().join("verdicts"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(
            !dir.path()
                .join("verdicts")
                .join(format!("{:032x}.v1", 1))
                .exists()
        );
        assert!(c.path().exists());
    }

    #[test]
    fn resume_records_are_evicted_whole_with_the_verdicts_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        let at = |s: u64| SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000 + s);
        let runs = dir.path().join(RUNS);
        fs::create_dir_all(&runs).unwrap();
        let write = |path: PathBuf, len: usize, when: u64| {
            fs::write(&path, vec![0u8; len]).unwrap();
            let f = File::options().write(true).open(&path).unwrap();
            f.set_modified(at(when)).unwrap();
            path
        };
        let hex = |n: u128| format!("{n:032x}");
        // oldest first: run 1 (its json old, its commits newer), verdicts 2, run 3, verdicts 4
        write(runs.join(hex(1) + ".json"), 10, 1);
        write(runs.join(hex(1) + ".commits"), 10, 5);
        let mut v2 = DiskCache::open(dir.path(), 2).unwrap();
        (0..2).for_each(|k| v2.reject(k).unwrap());
        write(v2.path().to_path_buf(), 40, 3);
        write(runs.join(hex(3) + ".json"), 10, 6);
        write(runs.join(hex(3) + ".commits"), 10, 6);
        let v4 = DiskCache::open(dir.path(), 4).unwrap();
        let v4_path = write(v4.path().to_path_buf(), 40, 7);
        let keep = runs.join(hex(3) + ".json");
        // 120 bytes; a bound of 60 removes verdicts 2 (40) and run 1 (20), keeps 3 and 4
        evict(dir.path(), &[&keep, &v4_path], 60);
        let mut left: Vec<String> = fs::read_dir(&runs)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [hex(3) + ".commits", hex(3) + ".json"]);
        assert!(!v2.path().exists() && v4_path.exists());
        // the current entries stay even under a bound of nothing
        evict(dir.path(), &[&keep, &v4_path], 0);
        assert!(keep.exists() && v4_path.exists());
    }

    #[test]
    fn fingerprints_differ_by_test_and_by_name() {
        let a = fingerprint(b"script\0/t.sh\0exit 0", OsStr::new("a.c"));
        assert_ne!(a, fingerprint(b"script\0/t.sh\0exit 1", OsStr::new("a.c")));
        assert_ne!(a, fingerprint(b"script\0/t.sh\0exit 0", OsStr::new("b.c")));
        assert_eq!(a, fingerprint(b"script\0/t.sh\0exit 0", OsStr::new("a.c")));
    }
}
