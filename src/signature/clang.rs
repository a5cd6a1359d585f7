//! clang's (and LLVM's) crash reports.
//!
//! ```text
//! fatal error: error in backend: Cannot select: intrinsic %llvm.x86.sse42.crc32.32.32   <- headline
//! PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ ...
//! Stack dump:
//! 0.  Program arguments: clang++ -c x.cc
//! 3.  Running pass 'Function Pass Manager' on module 'x.cc'.
//! 4.  Running pass 'X86 DAG->DAG Instruction Selection' on function '@f'                 <- pass
//!  #0 0x00007f4dea2a5291 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/lib/libLLVM-14.so.1+0xea5291)
//!  #9 0x00007f4deaac8ec8 llvm::SelectionDAGISel::SelectCodeCommon(llvm::SDNode*, ...) (...)  <- frames
//! ```
//!
//! Key: the headline when there is one (an assertion with its condition, function and source
//! base name and line; `UNREACHABLE executed` with its message; `LLVM ERROR:` or `error in
//! backend:` with addresses, node numbers and quoted names masked), the innermost `Running pass`
//! line with the function or module name dropped (`pass 'X86 DAG->DAG Instruction Selection' on
//! function`), then the top [`FRAMES`] named frames as bare function names. Skipped frames: the
//! signal and error reporting (`llvm::sys::*`, `*SignalHandler`, `report_fatal_error`, ...),
//! libc, and unnamed frames (a distribution's clang has no names for its static functions; their
//! `library+offset` is not kept: offsets change with every build). The parser's context lines
//! (`1. x.cc:5:14: at annotation token`) are dropped: they name the user's code.

use std::sync::LazyLock;

use regex::Regex;

use super::normalize::{basename, function_name, mask_hex, mask_quoted, squeeze};
use super::{FRAMES, Found, Kind};

/// `clang: /src/llvm/lib/IR/Value.cpp:123: void llvm::Value::f(): Assertion `x' failed.`
static ASSERTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?P<file>[^\s:]+):(?P<line>\d+): (?P<func>.*?): Assertion (?P<cond>.*) failed\.?$")
        .unwrap()
});

/// The BSD and macOS libc's form: `Assertion failed: (x), function f, file /src/X.cpp, line 12.`
static BSD_ASSERTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Assertion failed: (?P<cond>.*), function (?P<func>.+?), file (?P<file>.+?), line (?P<line>\d+)\.?$").unwrap()
});

/// `UNREACHABLE executed at /src/clang/lib/AST/ASTContext.cpp:2055!`
static UNREACHABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"UNREACHABLE executed(?: at (?P<file>[^\s:]+):(?P<line>\d+))?").unwrap()
});

/// `Running pass 'NAME' on function '@f'` (legacy pass manager) or `Running pass "NAME" on
/// function "f"` (the new one).
static PASS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"Running pass (?P<q>['"])(?P<pass>.*?)['"] on (?P<what>[a-zA-Z ]+?)(?: ['"]|\.?$)"#,
    )
    .unwrap()
});

/// ` #9 0x00007f4deaac8ec8 name(args) (lib+0x1)` (Linux) or `9  libLLVM.dylib  0x0000000114 name + 80`
/// (macOS).
static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*(?:#\d+\s+0x[0-9a-fA-F]+ |\d+\s+\S+\s+0x[0-9a-fA-F]+ )(?P<rest>.*?)(?: \+ \d+)?$",
    )
    .unwrap()
});

/// Node numbers in SelectionDAG dumps (`t12`): they change with the input.
static NODE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bt\d+\b").unwrap());

/// Frames that report the crash rather than locate it (by prefix).
const REPORTING: &[&str] = &[
    "llvm::sys::",
    "PrintStackTrace",
    "SignalHandler",
    "CrashRecoveryContext",
    "CrashRecoverySignalHandler",
    "llvm::CrashRecoveryContext",
    "__restore_rt",
    "llvm::report_fatal_error",
    "llvm::llvm_unreachable_internal",
    "llvm::report_bad_alloc_error",
    "__assert_fail",
    "__assert_perror_fail",
    "__GI_",
    "__libc_",
    "__pthread_kill",
    "pthread_kill",
    "raise",
    "gsignal",
    "abort",
    "_start",
];

pub fn detect(lines: &[String]) -> Option<Found> {
    let please = lines
        .iter()
        .position(|l| l.trim_start().starts_with("PLEASE submit a bug report"));
    let dump = lines.iter().position(|l| l.trim_end() == "Stack dump:");
    let report = please.or(dump)?;
    let mut key = Vec::new();
    let mut start = report;
    if let Some((at, headline)) = headline(lines, report) {
        key.push(headline);
        start = at;
    }
    let dump_lines = &lines[dump.unwrap_or(report)..];
    if let Some(pass) = dump_lines.iter().rev().find_map(|l| pass(l)) {
        key.push(pass);
    }
    let frames = dump_lines
        .iter()
        .filter_map(|l| FRAME.captures(l))
        .filter_map(|c| function_name(c.name("rest")?.as_str()))
        .filter(|name| name != "main" && !REPORTING.iter().any(|r| name.starts_with(r)))
        .take(FRAMES)
        .map(|name| format!("frame {name}"));
    key.extend(frames);
    Some(Found {
        kind: Kind::ClangCrash,
        start,
        key,
    })
}

/// The message just above the report, normalised, and its line's index.
fn headline(lines: &[String], report: usize) -> Option<(usize, String)> {
    for at in (report.saturating_sub(4)..report).rev() {
        let line = lines[at].trim();
        if let Some(c) = ASSERTION
            .captures(line)
            .or_else(|| BSD_ASSERTION.captures(line))
        {
            let (file, line_no) = (basename(&c["file"]), &c["line"]);
            return Some((
                at,
                format!(
                    "Assertion {} failed in {} at {file}:{line_no}",
                    &c["cond"], &c["func"]
                ),
            ));
        }
        if let Some(c) = UNREACHABLE.captures(line) {
            // the message is the line above: `Unknown builtin type!`
            let msg = at.checked_sub(1).map_or("", |i| lines[i].trim());
            let place = c.name("file").map_or(String::new(), |f| {
                format!(" at {}:{}", basename(f.as_str()), &c["line"])
            });
            return Some((
                at.saturating_sub(1),
                squeeze(&format!("{msg} UNREACHABLE executed{place}")),
            ));
        }
        for marker in ["LLVM ERROR: ", "error in backend: "] {
            if let Some(i) = line.find(marker) {
                let msg = &line[i + marker.len()..];
                let msg = NODE
                    .replace_all(&mask_quoted(&mask_hex(msg), false), "t_")
                    .into_owned();
                return Some((at, format!("{marker}{}", squeeze(&msg))));
            }
        }
    }
    None
}

fn pass(line: &str) -> Option<String> {
    let c = PASS.captures(line)?;
    let q = &c["q"];
    Some(format!("pass {q}{}{q} on {}", &c["pass"], c["what"].trim()))
}

/// `clang-crash-selectcodecommon`: the innermost named frame, else the headline.
pub fn short_name(key: &[String]) -> String {
    let frame = key.iter().find_map(|k| k.strip_prefix("frame "));
    let place = frame.map(|f| f.rsplit("::").next().unwrap_or(f));
    format!(
        "clang-crash-{}",
        place.or(key.first().map(String::as_str)).unwrap_or("")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Vec<String> {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        detect(&lines).unwrap().key
    }

    // Debian's clang 14 is built without assertions, so these reports are written here in the
    // formats of assertions builds (glibc's assert, and the BSD/macOS libc's), not captured.
    #[test]
    fn an_assertion_keeps_its_condition_function_and_source_line() {
        let glibc = "clang: /build/llvm/clang/lib/Sema/SemaExpr.cpp:1234: clang::ExprResult clang::Sema::Build(clang::Expr*): Assertion `E && \"no expr\"' failed.\n\
            PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace.\n\
            Stack dump:\n\
            0.\tProgram arguments: clang -c t.c\n\
            1.\tt.c:5:9: current parser token ';'\n \
            #0 0x000055d05a3a0dbf llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/bin/clang+0x3c12dbf)\n \
            #1 0x00007f0000000001 __assert_fail (/lib/x86_64-linux-gnu/libc.so.6+0x33f32)\n \
            #2 0x000055d05a300000 clang::Sema::Build(clang::Expr*) (/usr/bin/clang+0x1)\n";
        assert_eq!(
            key(glibc),
            [
                "Assertion `E && \"no expr\"' failed in clang::ExprResult clang::Sema::Build(clang::Expr*) at SemaExpr.cpp:1234",
                "frame clang::Sema::Build",
            ]
        );
        let bsd = "Assertion failed: (isKeyed() && \"bad key\"), function operator*, file /src/llvm/include/llvm/ADT/SparseSet.h, line 255.\n\
            Stack dump:\n\
            3.\tRunning pass 'Function Pass Manager' on module 'conftest.c'.\n\
            4.\tRunning pass 'Machine Instruction Scheduler' on function '@main'\n";
        assert_eq!(
            key(bsd),
            [
                "Assertion (isKeyed() && \"bad key\") failed in operator* at SparseSet.h:255",
                "pass 'Machine Instruction Scheduler' on function",
            ]
        );
    }

    #[test]
    fn unreachable_keeps_its_message_and_place() {
        let text = "Unknown builtin type!\n\
            UNREACHABLE executed at /build/clang/lib/AST/ASTContext.cpp:2055!\n\
            PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/\n";
        assert_eq!(
            key(text),
            ["Unknown builtin type! UNREACHABLE executed at ASTContext.cpp:2055"]
        );
    }
}
