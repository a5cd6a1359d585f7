//! A failed C or C++ `assert()`: glibc's and musl's messages.
//!
//! ```text
//! target: target.c:57: parse_record: Assertion `depth < 8' failed.
//! Assertion failed: depth < 8 (target.c: parse_record: 57)
//! ```
//!
//! Key: `assertion `EXPR'` (the expression is source text: reduction does not change it) and
//! `function NAME`; the program's path, the file and the line are not kept. A fuzz target built
//! with sanitizers aborts on an assertion without a sanitizer report (issue 41: the assertion is
//! one of the bugs of a folder of crashes, and a bare SIGABRT would be refused by --same-failure).

use std::sync::LazyLock;

use regex::Regex;

use super::normalize::{clip, function_name, squeeze};
use super::{Found, Kind, MAX_LINE};

/// glibc: `PROG: FILE:LINE: FUNCTION: Assertion `EXPR' failed.`
static GLIBC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:.*?: )?\S+:\d+: (?P<func>.+?): Assertion `(?P<expr>.*)' failed\.?$").unwrap()
});

/// musl, BSD: `Assertion failed: EXPR (FILE: FUNCTION: LINE)`.
static MUSL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Assertion failed: (?P<expr>.*) \(\S+: (?P<func>.+?): \d+\)$").unwrap()
});

pub fn detect(lines: &[String]) -> Option<Found> {
    let (at, caps) = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("ssertion"))
        .find_map(|(i, l)| Some((i, GLIBC.captures(l).or_else(|| MUSL.captures(l))?)))?;
    let expr = clip(&squeeze(&caps["expr"]), MAX_LINE);
    let mut key = vec![format!("assertion `{expr}'")];
    // C++'s __PRETTY_FUNCTION__ is `int parse(const char*)`: its name is the word before `(`
    let func = caps["func"].trim();
    let named = func
        .split_once('(')
        .map_or(func, |(head, _)| head)
        .rsplit(' ')
        .next()
        .and_then(function_name);
    key.extend(named.map(|f| format!("function {f}")));
    Some(Found {
        kind: Kind::Assertion,
        start: at,
        key,
    })
}

/// `assert-parse-record`, or `assert` without a function.
pub fn short_name(key: &[String]) -> String {
    let func = key
        .iter()
        .find_map(|l| l.strip_prefix("function "))
        .map(|f| f.rsplit("::").next().unwrap_or(f));
    match func {
        Some(f) => format!("assert {f}"),
        None => "assert".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn glibc_and_musl_assertions_give_the_expression_and_the_function() {
        let glibc = detect(&lines(
            "reading\n/tmp/x/target: target.c:57: parse_record: Assertion `depth < 8' failed.\n",
        ))
        .unwrap();
        assert_eq!(
            glibc.key,
            ["assertion `depth < 8'", "function parse_record"]
        );
        assert_eq!(glibc.start, 1);
        let musl = detect(&lines(
            "Assertion failed: depth < 8 (target.c: parse_record: 57)",
        ))
        .unwrap();
        assert_eq!(musl.key, glibc.key);
        let cpp = detect(&lines(
            "t: t.cc:3: int ns::parse(const char*): Assertion `p' failed.",
        ))
        .unwrap();
        assert_eq!(cpp.key, ["assertion `p'", "function ns::parse"]);
        assert_eq!(short_name(&cpp.key), "assert parse");
        assert!(detect(&lines("Assertion is a word")).is_none());
    }
}
