//! `reduce`: a test-case reducer. The library holds the reduction core (`reduce`, no I/O), the
//! parse tree (`tree`), what each language needs (`lang`), and the adapters the binary wires together (`oracle`, `tester`, `sink`,
//! `progress`); `app` runs one reduction; the binary is a thin front end.

pub mod app;
pub mod capture;
pub mod check;
pub mod cli;
pub mod diskcache;
pub mod driver;
pub mod exit;
pub mod lang;
pub mod launcher;
pub mod multi;
pub mod oracle;
pub mod panic;
pub mod paths;
pub mod persist;
pub mod pool;
pub mod prefilter;
pub mod progress;
pub mod reaper;
pub mod reduce;
pub mod reduction;
pub mod resume;
pub mod rewrite;
pub mod runlock;
pub mod script;
pub mod signal;
pub mod signature;
pub mod sink;
pub mod stats;
pub mod stdin;
pub mod tempdirs;
pub mod tester;
pub mod throttle;
pub mod trace;
pub mod tree;
