//! One test run, from the command line the user gave to a verdict: the test's forms and
//! conditions (`check`), the script runner (`runner`), the candidate's directory (`frame`), the
//! job launcher, bounded capture of the output, the reaper of escaped processes, the run's
//! temp directories, and the C and C++ compilers `--preprocess` knows (`compiler`).

pub mod capture;
pub mod check;
pub mod compiler;
pub mod frame;
pub mod launcher;
pub mod panic;
pub mod reaper;
pub mod runner;
pub mod script;
pub mod tempdirs;
