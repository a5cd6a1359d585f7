//! What a run keeps on disk: the result and the backup (`sink`), the persistent verdict cache
//! and resume records, the run locks, the one check of which file a path names, and the other
//! failures a run meets (`--save-slipped`).

pub mod diskcache;
pub mod paths;
pub mod persist;
pub mod resume;
pub mod runlock;
pub mod sink;
pub mod slipped;
