//! Runtime errors of programs: Rust panics, Python tracebacks, Java exceptions, Go panics and
//! JavaScript (Node) errors. Each key is the error's message (names in quotes, paths and numbers
//! masked; a Rust panic's code in backticks kept, a Go panic's `panic: ` dropped) and, when the
//! output has a stack, its innermost frame of the program as `frame NAME`: the frames of the
//! runtime itself (`std::`/`core::` in Rust, `runtime.` in Go, `node:internal` in Node) are
//! skipped, since they say how the error was raised, not where.

use std::sync::LazyLock;

use regex::Regex;

use super::normalize::{
    function_name, leading_words, mask_hex, message, message_keeping_code, strip_rust_hash,
};
use super::{Found, Kind};

/// `thread 'main' (22235) panicked at src/main.rs:6:12:` (1.73+, the message on the next line)
/// or `thread 'main' panicked at 'MSG', src/main.rs:6:12` (before).
static RUST_PANICKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^thread '[^']*'(?: \(\d+\))? panicked at (?:'(?P<msg>.*)', )?\S+?:?$").unwrap()
});

/// A Rust backtrace's frame: `   6: calc::cell`.
static RUST_FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\d+: (?:0x[0-9a-f]+ - )?(?P<name>.+)$").unwrap());

/// Rust frames of the standard library and the panic machinery (after a leading `<`).
const RUST_STD: &[&str] = &[
    "std::",
    "core::",
    "alloc::",
    "__rustc::",
    "rust_begin_unwind",
    "__rust_",
];

pub fn rust_panic(lines: &[String]) -> Option<Found> {
    let at = lines
        .iter()
        .position(|l| l.starts_with("thread '") && RUST_PANICKED.is_match(l))?;
    let caps = RUST_PANICKED.captures(&lines[at])?;
    let msg = match caps.name("msg") {
        Some(m) => m.as_str(),
        None => lines.get(at + 1).map_or("", String::as_str),
    };
    let mut key = vec![message_keeping_code(msg)];
    // a backtrace (RUST_BACKTRACE=1) follows: its first frame outside the standard library
    let frame = lines[at + 1..]
        .iter()
        .take(200)
        .skip_while(|l| l.as_str() != "stack backtrace:")
        .filter_map(|l| RUST_FRAME.captures(l))
        .map(|c| strip_rust_hash(c["name"].trim()).to_string())
        .find(|name| {
            let bare = name.trim_start_matches('<');
            !RUST_STD.iter().any(|s| bare.starts_with(s))
                && !name.contains(" as core::")
                && !name.contains(" as std::")
        });
    key.extend(frame.map(|f| format!("frame {f}")));
    Some(Found {
        kind: Kind::RustPanic,
        start: at,
        key,
    })
}

/// `  File "/x/calc.py", line 16, in evaluate`
static PY_FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^  File ".*", line \d+, in (?P<name>.+)$"#).unwrap());

/// The last traceback's exception line (`ZeroDivisionError: division by zero`) and innermost
/// frame; with chained exceptions the last traceback is the one that ended the program.
pub fn python(lines: &[String]) -> Option<Found> {
    let first = lines
        .iter()
        .position(|l| l == "Traceback (most recent call last):")?;
    let last = lines
        .iter()
        .rposition(|l| l == "Traceback (most recent call last):")?;
    let mut frame = None;
    let mut exception = None;
    for line in &lines[last + 1..] {
        if let Some(c) = PY_FRAME.captures(line) {
            frame = Some(c["name"].to_string());
        } else if !line.is_empty() && !line.starts_with(' ') {
            exception = Some(line);
            break;
        }
    }
    let mut key = vec![message(exception?)];
    key.extend(frame.map(|f| format!("frame {f}")));
    Some(Found {
        kind: Kind::Python,
        start: first,
        key,
    })
}

/// `Exception in thread "main" java.lang.NullPointerException: Cannot invoke ...`
static JAVA: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^Exception in thread "[^"]*" (?P<class>[\w.$]+)(?:: (?P<msg>.*))?$"#).unwrap()
});

/// `\tat java.base/java.util.Objects.requireNonNull(Objects.java:233)`
static JAVA_FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s+at (?:[\w.]+/)?(?P<name>[^(\s]+)\(").unwrap());

pub fn java(lines: &[String]) -> Option<Found> {
    let at = lines
        .iter()
        .position(|l| l.starts_with("Exception in thread") && JAVA.is_match(l))?;
    let c = JAVA.captures(&lines[at])?;
    let mut head = c["class"].to_string();
    if let Some(msg) = c.name("msg") {
        head = format!("{head}: {}", message(msg.as_str()));
    }
    let mut key = vec![head];
    let frame = lines.get(at + 1).and_then(|l| JAVA_FRAME.captures(l));
    // a lambda's or hidden class's name has an address in it
    key.extend(frame.map(|f| format!("frame {}", mask_hex(&f["name"]))));
    Some(Found {
        kind: Kind::Java,
        start: at,
        key,
    })
}

/// `panic: runtime error: index out of range [19] with length 4` or `fatal error: all goroutines
/// are asleep - deadlock!`, then `goroutine 1 [running]:` and the frames: a function line
/// (`main.cell(...)`) and its `\t/x/calc.go:16 +0x35` line each.
pub fn go(lines: &[String]) -> Option<Found> {
    // the message, then a goroutine's stack within a few lines (Go prints a blank line between)
    let is_goroutine = |l: &String| l.starts_with("goroutine ") && l.ends_with("]:");
    let (at, goroutine) = lines.iter().enumerate().find_map(|(at, l)| {
        if !l.starts_with("panic: ") && !l.starts_with("fatal error: ") {
            return None;
        }
        Some((at, lines[at..].iter().take(12).position(is_goroutine)?))
    })?;
    let head = lines[at].strip_prefix("panic: ").unwrap_or(&lines[at]);
    let mut key = vec![message(head)];
    let frame = lines[at + goroutine + 1..]
        .iter()
        .take(64)
        .filter(|l| !l.starts_with('\t') && l.ends_with(')'))
        .filter_map(|l| l.rfind('(').map(|i| &l[..i]))
        .find(|name| !name.starts_with("runtime.") && !name.starts_with("panic"));
    key.extend(frame.map(|f| format!("frame {f}")));
    Some(Found {
        kind: Kind::Go,
        start: at,
        key,
    })
}

/// `TypeError: Cannot read properties of undefined (reading 'fields')` followed by `    at ...`
static JS_ERROR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:Uncaught )?(?P<head>(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?)(?P<msg>: .*)?$",
    )
    .unwrap()
});

/// `    at field (/x/calc.js:7:21)`, `    at async run (file:///x.mjs:3:1)`, `    at /x/calc.js:3:5`
static JS_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+at (?:async )?(?:(?P<name>.+?) \((?P<place>.*)\)|(?P<bare>\S+))$").unwrap()
});

pub fn node(lines: &[String]) -> Option<Found> {
    let at = lines.iter().enumerate().position(|(i, l)| {
        lines
            .get(i + 1)
            .is_some_and(|n| n.trim_start().starts_with("at "))
            && JS_ERROR.is_match(l)
    })?;
    let mut key = vec![message(&lines[at])];
    let frame = lines[at + 1..]
        .iter()
        .take(64)
        .map_while(|l| JS_FRAME.captures(l))
        .filter(|c| {
            !c.name("place")
                .or(c.name("bare"))
                .is_some_and(|p| p.as_str().starts_with("node:"))
        })
        .map(|c| {
            c.name("name").map_or("<anonymous>".to_string(), |n| {
                function_name(n.as_str()).unwrap_or_default()
            })
        })
        .next();
    key.extend(frame.map(|f| format!("frame {f}")));
    Some(Found {
        kind: Kind::Node,
        start: at,
        key,
    })
}

/// `python-zerodivisionerror`, `java-nullpointerexception`, `rust-panic-index-out-of-bounds`.
pub fn short_name(kind: Kind, key: &[String]) -> String {
    let first = key.first().map_or("", String::as_str);
    let head = first.split(':').next().unwrap_or(first);
    match kind {
        Kind::RustPanic => format!("rust-panic-{}", leading_words(first, 5)),
        Kind::Python => format!("python-{head}"),
        Kind::Java => format!("java-{}", head.rsplit('.').next().unwrap_or(head)),
        Kind::Go => {
            let (prefix, msg) = match first.strip_prefix("fatal error: ") {
                Some(msg) => ("go-fatal", msg),
                None => ("go", first.strip_prefix("runtime error: ").unwrap_or(first)),
            };
            format!("{prefix}-{}", leading_words(msg, 5))
        }
        _ => format!("js-{head}"),
    }
}
