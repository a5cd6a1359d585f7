//! What the user sees of a run: the progress line, the counters and the summary, and the
//! optional trace of the speculation.

pub mod progress;
pub mod stats;
pub mod trace;
