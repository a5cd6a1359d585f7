//! Failure signatures (`--same-failure`): what a failing run says about *how* it failed, reduced
//! to a few normalised lines, so a candidate can be kept only when it fails the same way.
//!
//! [`derive()`] reads how a run ended and its output and returns a [`Signature`]: the ending (exit
//! status, signal or timeout), a [`Kind`] (which family of tool recognised the failure) and key
//! lines, normalised so the same bug in a reduced input gives the same lines (file names, line
//! and column numbers, addresses and the names reduction renames are masked). Each family has
//! its own module: `gcc`, `clang` and `rustc` (compiler crashes), `sanitizer` (ASan, UBSan,
//! MSan, TSan, LeakSanitizer), `runtime` (Rust panics, Python, Java, Go, Node) and `diagnostic`
//! (compiler errors and flagged warnings, and the error lines every kind counts), `assertion`
//! (a failed C `assert()`).
//!
//! The families are tried in the order of `DETECTORS` (compiler crashes, then sanitizers, then
//! failed assertions (`assertion`), then
//! runtimes), on stderr first and then on stdout; the first that recognises a failure decides.
//! Without one, a run's diagnostics decide (a [`Kind::Diagnostic`] signature); without those, a
//! failing run's ending alone is the signature ([`Kind::Exit`], empty key: see
//! [`Signature::is_bare`]) and a run that exited 0 has none.
//!
//! [`Signature::matches`] says whether a candidate's signature is the same failure, and if not
//! why, in words. Besides the same ending, kind and key it follows ddSMT's golden run: a
//! candidate with a new kind of `error:` before its failure (one the original did not have) is
//! another failure even when its crash looks the same.
//!
//! Everything is bounded: at most [`MAX_KEY_LINES`] key lines of at most [`MAX_LINE`]
//! characters, [`MAX_ERRORS`] error kinds and [`MAX_DIAGNOSTICS`] diagnostics, whatever the
//! output (it is read as the first [`HEAD_LIMIT`] and last [`TAIL_LIMIT`] bytes of each stream,
//! like the `--stderr` conditions, each line cut at [`MAX_SCAN_LINE`] bytes).

mod assertion;
mod clang;
mod diagnostic;
mod gcc;
mod normalize;
#[cfg(test)]
mod props;
mod runtime;
mod rustc;
mod sanitizer;
#[cfg(test)]
mod tests;

use std::fmt;

use serde::{Deserialize, Serialize};

use normalize::{clip, slug};

/// What is read of a stream: its first this many bytes (as a `--stderr` regex searches) ...
pub const HEAD_LIMIT: usize = 4 << 20;
/// ... and its last this many.
pub const TAIL_LIMIT: usize = 1 << 20;
/// At most this many key lines.
pub const MAX_KEY_LINES: usize = 8;
/// At most this many characters in a key line, an error kind or a diagnostic.
pub const MAX_LINE: usize = 200;
/// At most this many error kinds are kept (the first ones).
pub const MAX_ERRORS: usize = 16;
/// At most this many diagnostics are kept for a [`Kind::Diagnostic`] signature.
pub const MAX_DIAGNOSTICS: usize = 32;
/// Output lines are read up to this many bytes; the rest of a longer line is ignored.
pub const MAX_SCAN_LINE: usize = 4096;
/// How many frames of a stack are kept: enough to tell two crash sites apart, few enough that
/// a reduction, which changes callers far from the crash, keeps them.
pub const FRAMES: usize = 3;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    Exited(i32),
    Signaled(i32),
    /// Killed for running too long: never the same failure as a run that ended by itself.
    TimedOut,
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Ending::Exited(code) => write!(f, "exited {code}"),
            Ending::Signaled(sig) => write!(f, "killed by {}", signal_name(sig)),
            Ending::TimedOut => f.write_str("timed out"),
        }
    }
}

fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

/// Which family recognised the failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// GCC's `internal compiler error` (or its `confused by earlier errors, bailing out`).
    GccIce,
    /// clang/LLVM's crash report (`PLEASE submit a bug report`, `Stack dump:`).
    ClangCrash,
    /// rustc's internal compiler error (`panicked at compiler/...`, the query stack).
    RustcIce,
    /// A sanitizer report: AddressSanitizer, LeakSanitizer, MemorySanitizer, ThreadSanitizer,
    /// UBSan's `runtime error:`.
    Sanitizer,
    RustPanic,
    Python,
    Java,
    Go,
    Node,
    /// A failed C or C++ `assert()` (glibc's or musl's message).
    Assertion,
    /// Compiler diagnostics are the failure: an error, or a warning with a flag or code.
    Diagnostic,
    /// Nothing recognisable: the ending is the whole signature.
    Exit,
}

impl Kind {
    /// The name in JSON and in [`Signature::hash`]: fixed, whatever the labels say.
    fn id(self) -> &'static str {
        match self {
            Kind::GccIce => "gcc-ice",
            Kind::ClangCrash => "clang-crash",
            Kind::RustcIce => "rustc-ice",
            Kind::Sanitizer => "sanitizer",
            Kind::RustPanic => "rust-panic",
            Kind::Python => "python",
            Kind::Java => "java",
            Kind::Go => "go",
            Kind::Node => "node",
            Kind::Assertion => "assertion",
            Kind::Diagnostic => "diagnostic",
            Kind::Exit => "exit",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Kind::GccIce => "gcc ICE",
            Kind::ClangCrash => "clang crash",
            Kind::RustcIce => "rustc ICE",
            Kind::Sanitizer => "sanitizer",
            Kind::RustPanic => "Rust panic",
            Kind::Python => "Python exception",
            Kind::Java => "Java exception",
            Kind::Go => "Go panic",
            Kind::Node => "JavaScript error",
            Kind::Assertion => "assertion failure",
            Kind::Diagnostic => "diagnostic",
            Kind::Exit => "nothing recognisable",
        }
    }
}

/// A failure, normalised.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    pub ending: Ending,
    pub kind: Kind,
    /// The lines that identify the failure, in order: a message, a pass, `frame NAME` lines.
    /// For [`Kind::Diagnostic`], the one diagnostic that is the point.
    pub key: Vec<String>,
    /// The kinds of `error:` diagnostics before the failure (for [`Kind::Diagnostic`] and
    /// [`Kind::Exit`]: anywhere in the output), distinct, in order. A candidate may have these
    /// and no others.
    pub errors: Vec<String>,
    /// For [`Kind::Diagnostic`] only: every error and flagged warning of the output, distinct,
    /// in order; a candidate matches when its list holds the original's key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<String>,
}

/// Why a candidate's failure is not the original's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The candidate exited 0 with nothing recognisable: it did not fail.
    NotAFailure,
    Ending {
        want: Ending,
        got: Ending,
    },
    Kind {
        want: Kind,
        got: Kind,
    },
    /// The candidate has a kind of error the original did not have before its failure.
    NewError(String),
    /// Key line `line` differs (`got` is `None` when the candidate has fewer lines).
    Key {
        line: usize,
        want: String,
        got: Option<String>,
    },
    /// Extra key lines in the candidate.
    LongerKey(String),
    /// The candidate's output does not hold the original's diagnostic.
    Missing(String),
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::NotAFailure => f.write_str("exited 0 with nothing recognisable"),
            Mismatch::Ending { want, got } => write!(f, "{got}, not {want}"),
            Mismatch::Kind { want, got } => {
                write!(f, "{} instead of {}", got.label(), want.label())
            }
            Mismatch::NewError(error) => {
                write!(f, "a new kind of error before the failure: {error}")
            }
            Mismatch::Key {
                want,
                got: Some(got),
                ..
            } => write!(f, "`{got}`, not `{want}`"),
            Mismatch::Key {
                want, got: None, ..
            } => write!(f, "no `{want}`"),
            Mismatch::LongerKey(extra) => write!(f, "also `{extra}`"),
            Mismatch::Missing(want) => write!(f, "no `{want}` in the output"),
        }
    }
}

/// What one family recognised in one stream's lines.
struct Found {
    kind: Kind,
    /// The index of the failure report's first line: errors before it are counted.
    start: usize,
    key: Vec<String>,
}

type Detector = fn(&[String]) -> Option<Found>;

/// The families, in the order they are tried: a compiler crash's output may hold error lines
/// and a test script's traceback may wrap a crash, so the most specific report wins. rustc
/// comes before the Rust panic (an ICE is a panic of thread 'rustc').
const DETECTORS: &[Detector] = &[
    clang::detect,
    rustc::detect,
    gcc::detect,
    sanitizer::detect,
    assertion::detect,
    runtime::rust_panic,
    runtime::python,
    runtime::java,
    runtime::go,
    runtime::node,
];

/// The signature of a run that ended as `ending` with this output; `None` when it exited 0 and
/// nothing in the output is recognisable (it did not fail).
pub fn derive(ending: Ending, stdout: &[u8], stderr: &[u8]) -> Option<Signature> {
    let streams = [read_lines(stderr), read_lines(stdout)];
    for lines in &streams {
        for detect in DETECTORS {
            if let Some(found) = detect(lines) {
                let errors = diagnostic::error_kinds(&[&lines[..found.start]]);
                return Some(Signature {
                    ending,
                    kind: found.kind,
                    key: bound_key(found.key),
                    errors,
                    diagnostics: Vec::new(),
                });
            }
        }
    }
    let all: Vec<&[String]> = streams.iter().map(Vec::as_slice).collect();
    let errors = diagnostic::error_kinds(&all);
    let survey = diagnostic::survey(&all);
    if let Some(point) = survey.point {
        return Some(Signature {
            ending,
            kind: Kind::Diagnostic,
            key: vec![point],
            errors,
            diagnostics: survey.diagnostics,
        });
    }
    if ending == Ending::Exited(0) {
        return None;
    }
    Some(Signature {
        ending,
        kind: Kind::Exit,
        key: Vec::new(),
        errors,
        diagnostics: Vec::new(),
    })
}

/// A stream as clean lines: at most the first [`HEAD_LIMIT`] and last [`TAIL_LIMIT`] bytes,
/// split at newlines, each line cut at [`MAX_SCAN_LINE`] bytes, decoded lossily, without
/// terminal escapes or a trailing `\r`.
fn read_lines(bytes: &[u8]) -> Vec<String> {
    let mut pieces = vec![bytes];
    if bytes.len() > HEAD_LIMIT + TAIL_LIMIT {
        pieces = vec![&bytes[..HEAD_LIMIT], &bytes[bytes.len() - TAIL_LIMIT..]];
    }
    let mut lines = Vec::new();
    for piece in pieces {
        for raw in piece.split(|&b| b == b'\n') {
            lines.push(normalize::clean_line(&raw[..raw.len().min(MAX_SCAN_LINE)]));
        }
    }
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

fn bound_key(key: Vec<String>) -> Vec<String> {
    key.into_iter()
        .take(MAX_KEY_LINES)
        .map(|line| clip(&line, MAX_LINE))
        .collect()
}

impl Signature {
    /// `Ok` when `candidate` is the same failure; otherwise the first reason it is not.
    pub fn matches(&self, candidate: &Signature) -> Result<(), Mismatch> {
        if candidate.ending != self.ending {
            return Err(Mismatch::Ending {
                want: self.ending,
                got: candidate.ending,
            });
        }
        if candidate.kind != self.kind {
            return Err(Mismatch::Kind {
                want: self.kind,
                got: candidate.kind,
            });
        }
        if let Some(new) = candidate.errors.iter().find(|e| !self.errors.contains(e)) {
            return Err(Mismatch::NewError(new.clone()));
        }
        if self.kind == Kind::Diagnostic {
            // the point is held anywhere in the candidate's output, among other warnings (or is
            // the candidate's own point, when its list is cut short)
            return match self.key.first() {
                Some(want)
                    if !candidate.diagnostics.contains(want)
                        && candidate.key.first() != Some(want) =>
                {
                    Err(Mismatch::Missing(want.clone()))
                }
                _ => Ok(()),
            };
        }
        for (line, want) in self.key.iter().enumerate() {
            let got = candidate.key.get(line);
            if got != Some(want) {
                return Err(Mismatch::Key {
                    line,
                    want: want.clone(),
                    got: got.cloned(),
                });
            }
        }
        match candidate.key.get(self.key.len()) {
            Some(extra) => Err(Mismatch::LongerKey(extra.clone())),
            None => Ok(()),
        }
    }

    /// [`Signature::matches`] on a run's ending and output (a run that did not fail does not).
    pub fn matches_output(
        &self,
        ending: Ending,
        stdout: &[u8],
        stderr: &[u8],
    ) -> Result<(), Mismatch> {
        match derive(ending, stdout, stderr) {
            Some(candidate) => self.matches(&candidate),
            None => Err(Mismatch::NotAFailure),
        }
    }

    /// Whether nothing but the ending was recognised (the command line refuses such a
    /// signature: it would keep any failure that ends the same way).
    pub fn is_bare(&self) -> bool {
        self.key.is_empty()
    }

    /// One line for people: `killed by SIGSEGV; clang crash: frame clang::Sema::Foo; ...`.
    pub fn describe(&self) -> String {
        let mut text = format!("{}; {}", self.ending, self.kind.label());
        if !self.key.is_empty() {
            text.push_str(": ");
            text.push_str(&self.key.join("; "));
        }
        clip(&text, 2 * MAX_LINE)
    }

    /// A short name for files: `asan-heap-buffer-overflow`, `gcc-ice-poplevel-class`.
    pub fn short_name(&self) -> String {
        let detail = match self.kind {
            Kind::GccIce => gcc::short_name(&self.key),
            Kind::ClangCrash => clang::short_name(&self.key),
            Kind::RustcIce => rustc::short_name(&self.key),
            Kind::Sanitizer => sanitizer::short_name(&self.key),
            Kind::Diagnostic => diagnostic::short_name(&self.key),
            Kind::Assertion => assertion::short_name(&self.key),
            Kind::RustPanic | Kind::Python | Kind::Java | Kind::Go | Kind::Node => {
                runtime::short_name(self.kind, &self.key)
            }
            Kind::Exit => match self.ending {
                Ending::Exited(code) => format!("exit-{code}"),
                Ending::Signaled(sig) => signal_name(sig),
                Ending::TimedOut => "timeout".to_string(),
            },
        };
        slug(&detail)
    }

    /// A stable 64-bit hash of what identifies the bug (ending, kind, key): equal signatures
    /// hash equal on every machine and version of this format. The error kinds before the
    /// failure are a condition of [`Signature::matches`], not part of the bug's identity.
    pub fn hash(&self) -> u64 {
        let ending = match self.ending {
            Ending::Exited(code) => format!("exited:{code}"),
            Ending::Signaled(sig) => format!("signaled:{sig}"),
            Ending::TimedOut => "timed-out".to_string(),
        };
        let mut bytes = b"reduce-signature-1\0".to_vec();
        for part in [ending.as_str(), self.kind.id()]
            .into_iter()
            .chain(self.key.iter().map(String::as_str))
        {
            bytes.extend_from_slice(part.as_bytes());
            bytes.push(0);
        }
        xxhash_rust::xxh3::xxh3_64(&bytes)
    }
}
