//! Opens what a run keeps on disk between runs: the verdict cache of its test fingerprint and,
//! for an in-place run, the resume record of its input. A cache directory that cannot be used
//! costs one warning; the run goes on without it.

use std::ffi::OsString;
use std::io;
use std::path::Path;

use crate::store::diskcache::{self, DiskCache};
use crate::store::resume::ResumeLog;

/// The persistent parts of a run; both `None` with `--no-persistent-cache`.
#[derive(Default)]
pub struct Persistent {
    pub verdicts: Option<DiskCache>,
    pub resume: Option<ResumeLog>,
    /// Why the cache is not used, for the one warning.
    pub warning: Option<String>,
}

/// What a run wants of the cache.
pub struct Wanted<'a> {
    /// The test's identity bytes (`Check::identity`: the script's path or the command, its
    /// conditions, and the bytes of the files it names).
    pub test_identity: &'a [u8],
    /// The candidate's file name, which the test sees.
    pub name: OsString,
    /// Keep and read verdicts (else: only the resume record, if any).
    pub verdicts: bool,
    /// The input of an in-place run, whose resume record is kept.
    pub resume_of: Option<&'a Path>,
    /// The bound of the cache (`--cache-size`).
    pub cache_size: u64,
}

/// Opens the cache for `wanted`. A cache root, directory or file that is not this user's own
/// (see `diskcache`) costs the one warning.
pub fn open(wanted: &Wanted) -> Persistent {
    let Some(root) = diskcache::cache_root() else {
        return warn("neither XDG_CACHE_HOME nor HOME is set".into());
    };
    match open_in(wanted, &root) {
        Ok(persistent) => persistent,
        Err(e) => warn(e.to_string()),
    }
}

fn open_in(wanted: &Wanted, root: &Path) -> io::Result<Persistent> {
    // the root and both its directories, whatever this run uses: one check of the whole cache
    for dir in [
        root.to_path_buf(),
        root.join(diskcache::VERDICTS),
        root.join(diskcache::RUNS),
    ] {
        diskcache::private_dir(&dir, true)?;
    }
    let fingerprint = diskcache::fingerprint(wanted.test_identity, &wanted.name);
    let verdicts = match wanted.verdicts {
        true => Some(DiskCache::open(root, fingerprint)?),
        false => None,
    };
    let resume = match wanted.resume_of {
        Some(input) => ResumeLog::new(root, input, fingerprint)?,
        None => None,
    };
    // the verdict files and the resume records together stay under --cache-size; this run's
    // own are kept
    let mut keep: Vec<&Path> = verdicts.iter().map(DiskCache::path).collect();
    keep.extend(resume.iter().flat_map(ResumeLog::paths));
    diskcache::evict(root, &keep, wanted.cache_size);
    Ok(Persistent {
        verdicts,
        resume,
        warning: None,
    })
}

fn warn(why: String) -> Persistent {
    Persistent {
        warning: Some(format!(
            "reduce: warning: cannot use the persistent cache: {why}; running without it (see --no-persistent-cache)"
        )),
        ..Persistent::default()
    }
}

/// `reduce --clear-cache`: removes the cache directory and says what it did.
pub fn clear() -> anyhow::Result<String> {
    let root = diskcache::cache_root()
        .ok_or_else(|| anyhow::anyhow!("neither XDG_CACHE_HOME nor HOME is set"))?;
    Ok(match diskcache::clear(&root) {
        Ok(true) => format!("reduce: removed the cache {}", root.display()),
        Ok(false) => format!("reduce: no cache at {}", root.display()),
        Err(e) => anyhow::bail!("cannot remove the cache {}: {e}", root.display()),
    })
}
