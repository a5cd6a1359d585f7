//! What is known of candidates by content: the run's verdict cache (xxh3-128 keys, in memory)
//! and the persistent "not interesting" verdicts of earlier runs (`store::diskcache`).

use std::collections::HashMap;

use crate::store::diskcache::DiskCache;

#[derive(Default)]
pub(super) struct Verdicts {
    /// `None` with `--no-cache`.
    cache: Option<HashMap<u128, bool>>,
    /// Dropped at the first write error.
    disk: Option<DiskCache>,
}

impl Verdicts {
    pub(super) fn new(cache: bool) -> Verdicts {
        Verdicts {
            cache: cache.then(HashMap::new),
            disk: None,
        }
    }

    /// Whether verdicts are kept at all.
    pub(super) fn on(&self) -> bool {
        self.cache.is_some()
    }

    /// Uses the persistent verdicts too (only with the run's cache on).
    pub(super) fn set_disk(&mut self, disk: Option<DiskCache>) {
        self.disk = disk.filter(|_| self.on());
    }

    pub(super) fn get(&self, key: u128) -> Option<bool> {
        self.cache.as_ref()?.get(&key).copied()
    }

    pub(super) fn insert(&mut self, key: u128, interesting: bool) {
        if let Some(cache) = &mut self.cache {
            cache.insert(key, interesting);
        }
    }

    /// Whether an earlier run found `key` not interesting (then the run's cache knows it too).
    pub(super) fn rejected_on_disk(&mut self, key: u128) -> bool {
        if !self.disk.as_ref().is_some_and(|d| d.rejected(key)) {
            return false;
        }
        self.insert(key, false);
        true
    }

    /// Keeps a "not interesting" verdict on disk. A write error drops the persistent cache and
    /// says why, once (the run goes on without it).
    pub(super) fn persist_rejection(&mut self, key: u128) -> Option<String> {
        let disk = self.disk.as_mut()?;
        let e = disk.reject(key).err()?;
        let path = disk.path().display().to_string();
        self.disk = None;
        Some(format!(
            "reduce: warning: cannot write the persistent cache {path} ({e}); going on without it"
        ))
    }
}
