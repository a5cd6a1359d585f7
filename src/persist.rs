//! Opens what a run keeps on disk between runs: the verdict cache of its test fingerprint and,
//! for an in-place run, the resume record of its input. A cache directory that cannot be used
//! costs one warning; the run goes on without it.

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
/// path or the command, its conditions, and the bytes of the files it names).
pub fn open(cfg: &Config, test_identity: &[u8]) -> Persistent {
    if !cfg.persistent_cache {
        return Persistent::default();
    }
    let Some(root) = diskcache::cache_root() else {
        return warn("neither XDG_CACHE_HOME nor HOME is set".into());
    };
    let name = cfg.candidate_name().unwrap_or_default();
    let fingerprint = diskcache::fingerprint(test_identity, &name);
    let verdicts = match cfg.cache {
        true => match DiskCache::open(&root, fingerprint, cfg.cache_size) {
            Ok(c) => Some(c),
            Err(e) => return warn(format!("{} ({e})", root.display())),
        },
        false => None,
    };
    let resume = match cfg.output {
        Output::InPlace => ResumeLog::new(&root, &cfg.input, fingerprint),
        _ => None,
    };
    Persistent {
        verdicts,
        resume,
        warning: None,
    }
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
