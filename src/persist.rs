//! Opens what a run keeps on disk between runs: the verdict cache of its test fingerprint and,
//! for an in-place run, the resume record of its input. A cache directory that cannot be used
//! costs one warning; the run goes on without it.

use std::io;
use std::path::Path;

use crate::cli::{Config, Output};
use crate::diskcache::{self, DiskCache};
use crate::resume::ResumeLog;

/// The persistent parts of a run; both `None` with `--no-persistent-cache`.
#[derive(Default)]
pub struct Persistent {
    pub verdicts: Option<DiskCache>,
    pub resume: Option<ResumeLog>,
    /// Why the cache is not used, for the one warning.
    pub warning: Option<String>,
}

/// Opens the cache for `cfg` with the test's identity bytes (`Check::identity`: the script's
/// path or the command, its conditions, and the bytes of the files it names). A cache root,
/// directory or file that is not this user's own (see `diskcache`) costs the one warning.
pub fn open(cfg: &Config, test_identity: &[u8]) -> Persistent {
    if !cfg.persistent_cache {
        return Persistent::default();
    }
    let Some(root) = diskcache::cache_root() else {
        return warn("neither XDG_CACHE_HOME nor HOME is set".into());
    };
    match open_in(cfg, &root, test_identity) {
        Ok(persistent) => persistent,
        Err(e) => warn(e.to_string()),
    }
}

fn open_in(cfg: &Config, root: &Path, test_identity: &[u8]) -> io::Result<Persistent> {
    // the root and both its directories, whatever this run uses: one check of the whole cache
    for dir in [
        root.to_path_buf(),
        root.join(diskcache::VERDICTS),
        root.join(diskcache::RUNS),
    ] {
        diskcache::private_dir(&dir, true)?;
    }
    let name = cfg.candidate_name().unwrap_or_default();
    let fingerprint = diskcache::fingerprint(test_identity, &name);
    let verdicts = match cfg.cache {
        true => Some(DiskCache::open(root, fingerprint)?),
        false => None,
    };
    let resume = match cfg.output {
        Output::InPlace => ResumeLog::new(root, &cfg.input, fingerprint)?,
        _ => None,
    };
    // the verdict files and the resume records together stay under --cache-size; this run's
    // own are kept
    let mut keep: Vec<&Path> = verdicts.iter().map(DiskCache::path).collect();
    keep.extend(resume.iter().flat_map(ResumeLog::paths));
    diskcache::evict(root, &keep, cfg.cache_size);
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
