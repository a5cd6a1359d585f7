//! `reduce`: a test-case reducer. From the top layer down (each imports only layers below it;
//! `tests/integration/architecture.rs` holds the order and checks it):
//!
//! - `app`: one run (one file, stdin, many files): the command line, the run's files, the report;
//! - `schedule`: the table of passes and what runs after what;
//! - `passes`: the rewrite passes, one file each;
//! - `engine`: the loop, the speculation that keeps `-j` tests running, the test pipeline;
//! - `edits`: a pass's edits as units of the loop;
//! - `policy`: the reduction algorithms (ddmin, sweeps, HDD, Perses, ...), pure;
//! - `tree`: parse trees, tokens and rendering;
//! - `lang`: everything about each language, one file each;
//! - `exec`: one test run (the test's forms and conditions, the runner, the launcher);
//! - `store`: what a run keeps on disk (result, backup, cache, resume, locks);
//! - `report`: progress, counters, summary, trace;
//! - `signature`: failure signatures, from a run's output;
//! - `exit`, `signal`, `memory`: exit codes, the interrupt flag, and how the heap is given back.

pub mod app;
pub mod edits;
pub mod engine;
pub mod exec;
pub mod exit;
pub mod lang;
pub mod memory;
pub mod passes;
pub mod policy;
pub mod report;
pub mod schedule;
pub mod signal;
pub mod signature;
pub mod store;
pub mod tree;
