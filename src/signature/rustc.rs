//! rustc's internal compiler errors.
//!
//! ```text
//! error: internal compiler error[E0308]: mismatched types                         <- message
//! thread 'rustc' (2934) panicked at /rustc-dev/5980.../compiler/rustc_errors/src/lib.rs:1531:17:
//! aborting due to `-Z treat-err-as-bug=1`                                         <- panic message
//! query stack during panic:
//! #0 [typeck] type-checking `main`                                                <- queries
//! #1 [analysis] running analysis passes on crate `r1`
//! ```
//!
//! Key: the ICE's error (`error[E0308]: mismatched types`, quoted names and numbers masked), `panicked at` with the compiler's
//! source path from `compiler/` or `library/` on (the checkout's prefix and the thread id
//! dropped; the line stays: it only changes with the compiler), the panic's message (names in
//! quotes and numbers masked, code in backticks kept), and the top two queries by name
//! (`query typeck`): what they were checking names the user's code.

use std::sync::LazyLock;

use regex::Regex;

use super::normalize::{message, message_keeping_code};
use super::{Found, Kind};

/// `thread 'rustc' (2934) panicked at PATH:L:C:` (1.73+) or `thread 'rustc' panicked at 'MSG',
/// PATH:L:C` (before).
static PANICKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^thread 'rustc'(?: \(\d+\))? panicked at (?:'(?P<msg>.*)', )?(?P<path>\S+?):?$")
        .unwrap()
});

static QUERY: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^#\d+ \[(?P<name>\w+)\]").unwrap());

const ICE: &str = "error: internal compiler error";

pub fn detect(lines: &[String]) -> Option<Found> {
    let ice = lines.iter().position(|l| l.starts_with(ICE));
    let panicked = lines
        .iter()
        .position(|l| l.starts_with("thread 'rustc'") && PANICKED.is_match(l));
    let queries = lines.iter().position(|l| l == "query stack during panic:");
    let start = [ice, panicked, queries].into_iter().flatten().min()?;
    let mut key = Vec::new();
    if let Some(i) = ice {
        let rest = &lines[i][ICE.len()..];
        key.push(format!("error{}", message(rest)));
    }
    if let Some(c) = panicked.and_then(|i| PANICKED.captures(&lines[i])) {
        let path = &c["path"];
        let path = ["compiler/", "library/"]
            .iter()
            .find_map(|p| path.find(p).map(|i| &path[i..]))
            .unwrap_or(path);
        key.push(format!("panicked at {path}"));
        let msg = match c.name("msg") {
            Some(m) => Some(m.as_str()),
            None => lines.get(panicked? + 1).map(String::as_str),
        };
        if let Some(msg) = msg.filter(|m| !m.is_empty() && !m.starts_with("stack backtrace:")) {
            key.push(format!("panic: {}", message_keeping_code(msg)));
        }
    }
    if let Some(q) = queries {
        let names = lines[q + 1..]
            .iter()
            .take(2)
            .filter_map(|l| QUERY.captures(l));
        key.extend(names.map(|c| format!("query {}", &c["name"])));
    }
    Some(Found {
        kind: Kind::RustcIce,
        start,
        key,
    })
}

/// `rustc-ice-typeck`: the innermost query, else the panicking file.
pub fn short_name(key: &[String]) -> String {
    let query = key.iter().find_map(|k| k.strip_prefix("query "));
    let file = key
        .iter()
        .find_map(|k| k.strip_prefix("panicked at "))
        .map(|p| {
            p.rsplit('/')
                .next()
                .unwrap_or(p)
                .split(':')
                .next()
                .unwrap_or(p)
        });
    format!("rustc-ice-{}", query.or(file).unwrap_or(""))
}
