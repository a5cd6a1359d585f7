//! Exit codes, and the one error type whose kind picks the code. Everything else is `anyhow`.

use std::fmt;
use std::process::ExitCode;

pub const SUCCESS: u8 = 0;
/// An unexpected internal or I/O error without a more specific kind.
pub const INTERNAL: u8 = 1;
/// Bad flags (clap uses 2 for its own usage errors too).
pub const USAGE: u8 = 2;
/// The original input is not interesting: nothing to reduce.
pub const NOT_INTERESTING: u8 = 3;
/// The input cannot be reduced as asked (missing, a directory, empty, binary for a tree algorithm).
pub const BAD_INPUT: u8 = 4;
/// The test script is missing, not executable or cannot run.
pub const BAD_SCRIPT: u8 = 5;
/// Writing the result, the backup or a temp file failed.
pub const IO: u8 = 6;
/// The final result failed its re-check: the test is flaky.
pub const FLAKY: u8 = 7;
/// The `--launcher` cannot run jobs: it does not start, or its jobs end without a verdict.
pub const LAUNCHER: u8 = 8;
/// Stopped by SIGINT (SIGTERM gives 143); the best result so far is on disk.
pub const INTERRUPTED: u8 = 130;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    Usage,
    NotInteresting,
    BadInput,
    BadScript,
    Io,
    Flaky,
    Launcher,
    Interrupted,
}

impl FailureKind {
    pub fn code(self) -> u8 {
        match self {
            FailureKind::Usage => USAGE,
            FailureKind::NotInteresting => NOT_INTERESTING,
            FailureKind::BadInput => BAD_INPUT,
            FailureKind::BadScript => BAD_SCRIPT,
            FailureKind::Io => IO,
            FailureKind::Flaky => FLAKY,
            FailureKind::Launcher => LAUNCHER,
            FailureKind::Interrupted => 128 + crate::signal::signal_number().unwrap_or(2) as u8,
        }
    }
}

/// An expected failure with a user-facing message and a distinct exit code.
#[derive(Debug)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// The exit code for an error chain: the first `Failure` in it decides.
pub fn code_for(err: &anyhow::Error) -> ExitCode {
    let code = err
        .chain()
        .find_map(|e| e.downcast_ref::<Failure>())
        .map_or(INTERNAL, |f| f.kind.code());
    ExitCode::from(code)
}

/// Shorthand: `Err(fail(FailureKind::BadInput, "..."))`.
pub fn fail(kind: FailureKind, message: impl Into<String>) -> anyhow::Error {
    Failure::new(kind, message).into()
}
