//! Sanitizer reports: AddressSanitizer, LeakSanitizer, MemorySanitizer, ThreadSanitizer,
//! HWAddressSanitizer, and UBSan's `runtime error:`.
//!
//! ```text
//! ==20770==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000018 at pc ...
//! WRITE of size 13 at 0x602000000018 thread T0
//!     #0 0x7f6ae08602c9 in __interceptor_strcpy ../../../../src/libsanitizer/asan/asan_interceptors.cpp:425
//!     #1 0x5595c16ca53e in set_name /src/target.c:36
//! ```
//!
//! Key: `asan heap-buffer-overflow` (the tool and the error kind, cut before `on address`/`at
//! pc`/`(pid=`; for UBSan the message with numbers and quoted names masked, as in `ubsan signed
//! integer overflow: N + N cannot be represented in type '_'`), then the top [`FRAMES`] frames of
//! the first stack as function names. The first report that stops the program (an `ERROR:` or
//! `WARNING:` line) is the failure; UBSan's recoverable `runtime error:` lines only when there is
//! none (GCC's `-fsanitize=undefined` reports a null member access, then ASan the SEGV it causes).
//!
//! Skipped frames: the sanitizer's runtime (interceptors such as `__interceptor_strcpy`, or in
//! newer runtimes a plain `strcpy` located in the sanitizer's sources; `__asan_*`, `__ubsan_*`,
//! ...), libc (located under `sysdeps/` or `csu/`, in `libc.so`, or the start-up functions):
//! where a libc function crashed differs with the CPU (`__strlen_avx2` or `__strlen_sse2`) while
//! its caller, the program's function, does not. Unnamed frames (`(module+0x1234)`) are
//! skipped too. The access size and the address are not kept: they change with the input.

use std::sync::LazyLock;

use regex::Regex;

use super::normalize::{function_name, leading_words, message};
use super::{FRAMES, Found, Kind};

/// UBSan's `target.c:56:14: runtime error: MSG` (or a module and offset without debug info, or
/// `<unknown>`); not Go's `panic: runtime error: ...`.
static UBSAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\S+:\d+(?::\d+)?|\(\S+\)|<unknown>): runtime error: (?P<msg>.*)$").unwrap()
});

/// Report lines: the tool's name in the report and in the key.
const TOOLS: &[(&str, &str)] = &[
    ("AddressSanitizer: ", "asan"),
    ("LeakSanitizer: ", "lsan"),
    ("MemorySanitizer: ", "msan"),
    ("ThreadSanitizer: ", "tsan"),
    ("HWAddressSanitizer: ", "hwasan"),
    ("UndefinedBehaviorSanitizer: ", "ubsan"),
];

/// Where an error kind's text ends.
const KIND_ENDS: &[&str] = &[
    " on address",
    " on unknown address",
    " on ",
    " at pc",
    " at 0x",
    " (pid=",
    ": ",
];

/// Frame names of the sanitizer runtime and libc start-up (by prefix).
const RUNTIME_NAMES: &[&str] = &[
    "__interceptor_",
    "___interceptor_",
    "__interception::",
    "__asan",
    "__lsan",
    "__msan",
    "__tsan",
    "__ubsan",
    "__hwasan",
    "__sanitizer",
    "__libc_start",
    "_start",
];

/// Frame locations of the sanitizer runtime (GCC's libsanitizer, LLVM's compiler-rt, their
/// shared libraries) and of libc: specific enough that a user's `sanitizer-demo/` is not one.
const RUNTIME_PLACES: &[&str] = &[
    "libsanitizer/",
    "compiler-rt/",
    "sanitizer_common/",
    "libasan.so",
    "liblsan.so",
    "libtsan.so",
    "libubsan.so",
    "libhwasan.so",
    "libclang_rt.",
    "sysdeps/",
    "csu/",
    "libc.so",
];

pub fn detect(lines: &[String]) -> Option<Found> {
    let fatal = lines
        .iter()
        .enumerate()
        .find_map(|(i, l)| report(l).map(|(tool, kind)| (i, tool, kind)));
    let (at, tool, kind) = match fatal {
        Some(found) => found,
        None => {
            let (i, c) = lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.contains("runtime error: "))
                .find_map(|(i, l)| Some((i, UBSAN.captures(l)?)))?;
            (i, "ubsan", message(&c["msg"]))
        }
    };
    let mut key = vec![format!("{tool} {kind}")];
    key.extend(
        first_stack(&lines[at + 1..])
            .into_iter()
            .map(|f| format!("frame {f}")),
    );
    Some(Found {
        kind: Kind::Sanitizer,
        start: at,
        key,
    })
}

/// `==1==ERROR: AddressSanitizer: heap-buffer-overflow on address ...` -> (`asan`,
/// `heap-buffer-overflow`).
fn report(line: &str) -> Option<(&'static str, String)> {
    let at = line.find("ERROR: ").or_else(|| line.find("WARNING: "))?;
    let rest = &line[at..];
    let rest = &rest[rest.find(' ')? + 1..];
    let (name, tool) = TOOLS.iter().find(|(name, _)| rest.starts_with(name))?;
    let kind = &rest[name.len()..];
    let end = KIND_ENDS
        .iter()
        .filter_map(|e| kind.find(e))
        .min()
        .unwrap_or(kind.len());
    Some((tool, message(&kind[..end])))
}

/// The first stack's frames after the report line, as names, runtime and libc skipped.
fn first_stack(lines: &[String]) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_stack = false;
    for line in lines.iter().take(256) {
        let Some(frame) = frame(line) else {
            if in_stack {
                break; // the first stack ended
            }
            continue;
        };
        in_stack = true;
        if let Some(name) = frame
            .filter(|(name, place)| !is_runtime(name, place))
            .map(|(name, _)| name)
        {
            names.push(name);
            if names.len() == FRAMES {
                break;
            }
        }
    }
    names
}

/// A frame line: `Some(None)` for an unnamed frame, `Some(Some((name, place)))` for a named one.
/// `#1 0x5595c16ca53e in set_name /src/target.c:36` (ASan, MSan), `#0 bump /src/race.c:11
/// (race+0x11e9)` (TSan), `#3 0x7f.. (/lib/libc.so.6+0x29d90)` (unnamed).
fn frame(line: &str) -> Option<Option<(String, String)>> {
    let rest = line.trim_start().strip_prefix('#')?;
    let (number, rest) = rest.split_once(' ')?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = match rest.strip_prefix("0x") {
        Some(addr) => addr.split_once(' ').map_or("", |(_, r)| r),
        None => rest,
    };
    let rest = rest.strip_prefix("in ").unwrap_or(rest);
    let Some(name) = function_name(rest) else {
        return Some(None);
    };
    let place = rest
        .trim_start()
        .get(name.len()..)
        .unwrap_or("")
        .to_string();
    Some(Some((name, place)))
}

fn is_runtime(name: &str, place: &str) -> bool {
    RUNTIME_NAMES.iter().any(|r| name.starts_with(r))
        || RUNTIME_PLACES.iter().any(|p| place.contains(p))
}

/// `asan-heap-buffer-overflow`, `ubsan-signed-integer-overflow`, `ubsan-shift-exponent`.
pub fn short_name(key: &[String]) -> String {
    leading_words(key.first().map_or("", String::as_str), 6)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Newer runtimes name an interceptor like the libc function; its place says it is the
    // runtime's. A user's directory may have "sanitizer" in its name. (Written in ASan's format:
    // the installed GCC 12 names its interceptors `__interceptor_*`, see the fixtures.) A user's
    // directory may be called `asan` too.
    #[test]
    fn runtime_frames_are_told_by_place_too() {
        let text = "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020 at pc 0x1 bp 0x2 sp 0x3\n\
            WRITE of size 13 at 0x6020 thread T0\n    \
            #0 0x7f6ae08602c9 in strcpy ../../../../src/libsanitizer/asan/asan_interceptors.cpp:425\n    \
            #1 0x5595c16ca53e in set_name /home/u/sanitizer-demo/target.c:36\n    \
            #2 0x5595c16cac97 in (/home/u/sanitizer-demo/target+0x1234)\n    \
            #3 0x5595c16cac98 in main /home/u/asan/main.c:7\n    \
            #4 0x7f6adfe45249 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58\n\n\
            allocated by thread T0 here:\n    \
            #0 0x7f6ae08b89cf in malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:69\n";
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let found = detect(&lines).unwrap();
        assert_eq!(
            found.key,
            ["asan heap-buffer-overflow", "frame set_name", "frame main"]
        );
    }
}
