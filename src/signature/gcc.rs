//! GCC's internal compiler errors.
//!
//! ```text
//! during GIMPLE pass: vect                                      <- kept: which pass crashed
//! x.c: In function 'f':                                         <- dropped (see below)
//! x.c:9:15: internal compiler error: in poplevel_class, at cp/name-lookup.cc:5177
//! 0x1d35627 internal_error(char const*, ...)                    <- frames, when GCC prints them
//! ```
//!
//! Key: the message, `in poplevel_class, at name-lookup.cc:5177` (the user's `file:line:col:`
//! dropped, the compiler's file cut to its base name; its line stays: it only
//! changes with the compiler), then the `during ... pass:` line when there is one. When the
//! message names no compiler function (`Segmentation fault`), the top named frames of GCC's own
//! backtrace follow, skipping the diagnostic machinery (`internal_error`, `crash_signal`) and
//! libc. The `In function 'f':` line is not kept: reduction turns member functions into free
//! ones and drops templates while the crash stays where the message says.
//!
//! After an earlier error GCC prints `confused by earlier errors, bailing out` instead of the
//! ICE: that is its own key, so such a candidate never matches an ICE.

use std::sync::LazyLock;

use regex::Regex;

use super::normalize::{function_name, leading_words, mask_quoted, squeeze};
use super::{FRAMES, Found, Kind};

/// `at cp/name-lookup.cc:5177` -> `at name-lookup.cc:5177`.
static SOURCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?P<path>[\w./+-]+/)(?P<file>[\w.+-]+:\d+)").unwrap());

const ICE: &str = "internal compiler error: ";
const CONFUSED: &str = "confused by earlier errors, bailing out";

/// Frames of GCC's backtrace that are how it reports a crash (or how any program starts), not
/// where it crashed: names that start with these, and `main`.
const MACHINERY: &[&str] = &[
    "internal_error",
    "fancy_abort",
    "crash_signal",
    "diagnostic_",
    "__libc_",
    "_start",
    "toplev::main",
];

pub fn detect(lines: &[String]) -> Option<Found> {
    let (at, line) = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.contains(ICE) || l.ends_with(CONFUSED))?;
    if line.starts_with("error: internal compiler error") {
        return None; // rustc's
    }
    if !line.contains(ICE) {
        return Some(Found {
            kind: Kind::GccIce,
            start: at,
            key: vec![CONFUSED.to_string()],
        });
    }
    let msg = &line[line.find(ICE)? + ICE.len()..];
    let msg = squeeze(&SOURCE.replace_all(&mask_quoted(msg, false), "$file"));
    let names_a_function = msg.starts_with("in ");
    let mut key = vec![msg];
    let mut start = at;
    // the pass line is a few lines up, above the `In function` and `In file included` lines
    if let Some(pass) = (at.saturating_sub(8)..at).find(|&i| is_pass(&lines[i])) {
        key.push(lines[pass].trim().to_string());
        start = pass;
    }
    if !names_a_function {
        key.extend(frames(&lines[at + 1..]));
    }
    Some(Found {
        kind: Kind::GccIce,
        start,
        key,
    })
}

fn is_pass(line: &str) -> bool {
    line.starts_with("during ") && line.contains(" pass: ")
}

/// GCC's backtrace: `0x1d35627 name(args)` lines, each followed by its `\tfile:line` line.
fn frames(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .take(64)
        .filter_map(|l| l.strip_prefix("0x").and_then(|rest| rest.split_once(' ')))
        .filter_map(|(_, text)| function_name(text))
        .filter(|name| name != "main" && !MACHINERY.iter().any(|m| name.starts_with(m)))
        .take(FRAMES)
        .map(|name| format!("frame {name}"))
        .collect()
}

/// `gcc-ice-poplevel-class`, `gcc-ice-segmentation-fault`, `gcc-ice-confused-by-earlier-errors`.
pub fn short_name(key: &[String]) -> String {
    let msg = key.first().map_or("", String::as_str);
    match msg.strip_prefix("in ").and_then(|m| m.split(',').next()) {
        Some(function) => format!("gcc-ice-{function}"),
        None => format!("gcc-ice-{}", leading_words(msg, 4)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The installed GCC 12's ICEs (fixtures/signatures) are front-end ones without a pass line
    // or frames; this report is written in the format of a middle-end segfault of a GCC built
    // with backtraces.
    #[test]
    fn a_segfault_keeps_its_pass_and_the_frames_below_the_signal_handler() {
        let text = "during GIMPLE pass: local-fnsummary\n\
            In file included from big.cc:18:\n\
            ./x/y.cc: In function 'int snprintf(char*, size_t, const char*, ...)':\n\
            ./x/y.cc:81:1: internal compiler error: Segmentation fault\n   \
            81 | }  // namespace blink\n      \
            | ^\n\
            0x1d35627 diagnostic_impl(rich_location*, diagnostic_metadata const*, int, char const*, __va_list_tag (*) [1], diagnostic_t)\n\
            \t???:0\n\
            0x1d36547 internal_error(char const*, ...)\n\
            \t???:0\n\
            0xe588df crash_signal(int)\n\
            \t???:0\n\
            0xc16b35 fast_call_summary<ipa_call_summary*, va_heap>::get_create(cgraph_edge*)\n\
            \t???:0\n\
            0xc118e8 analyze_function_body(cgraph_node*, bool)\n\
            \t???:0\n\
            0xc14d1a compute_fn_summary(cgraph_node*, bool)\n\
            \t???:0\n\
            0xc15339 (anonymous namespace)::pass_local_fn_summary::execute(function*)\n\
            Please submit a full bug report, with preprocessed source (by using -freport-bug).\n";
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let found = detect(&lines).unwrap();
        assert_eq!(
            found.key,
            [
                "Segmentation fault",
                "during GIMPLE pass: local-fnsummary",
                "frame fast_call_summary<ipa_call_summary*, va_heap>::get_create",
                "frame analyze_function_body",
                "frame compute_fn_summary",
            ]
        );
        assert_eq!(found.start, 0);
        assert_eq!(short_name(&found.key), "gcc-ice-Segmentation fault");
    }
}
