//! Compiler diagnostics: every family counts the kinds of `error:` before its failure (the
//! golden-run rule), and when nothing crashed the diagnostics are the failure.
//!
//! A diagnostic's *kind* is its severity, its code (`error[E0782]`, `error TS2322`), its message
//! with quoted names, numbers and addresses masked, and its flag (`[-Wuseless-cast]`) as it is:
//! `warning: useless cast to type '_' [-Wuseless-cast]`. Location prefixes (`file:line:col:`,
//! `clang:`) are dropped.
//!
//! Which diagnostic is the point ([`point`]): when the output holds errors, the first error with
//! a code or flag, else the first error; with no errors, the first warning with a flag or code.
//! Only that one is kept as the key: a file with twenty warnings would otherwise have to keep all
//! twenty. A candidate matches when it holds that diagnostic anywhere and no error kind the
//! original did not have, anywhere (a diagnostic has no "before the crash": any new error is a
//! different failure).

use std::sync::LazyLock;

use regex::Regex;

use super::normalize::{clip, message};
use super::{MAX_DIAGNOSTICS, MAX_ERRORS, MAX_LINE};

/// `path:line:col: severity[code]: message` with the location optional, as gcc, clang, rustc
/// and many linters print it.
static DIAGNOSTIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:[^\s:][^:]*:(?:\d+:){0,2} ?)?(?P<sev>fatal error|error|warning)(?:\[(?P<code>[A-Za-z]*\d+)\])?: (?P<msg>.*)$",
    )
    .unwrap()
});

/// TypeScript: `file.ts(3,5): error TS2322: message`.
static TSC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^.*\(\d+,\d+\): (?P<sev>error|warning) (?P<code>TS\d+): (?P<msg>.*)$").unwrap()
});

/// A trailing flag or code: `[-Wuseless-cast]`, `[-Werror=format=]`, `[-fpermissive]`, mypy's
/// `[arg-type]`, clang-tidy's `[bugprone-use-after-move]`.
static FLAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r" \[(?P<flag>-[Wf][^\]\s]*|[a-z][a-z0-9_.-]*)\]$").unwrap());

/// Error lines that report other errors or their consequence, not a kind of their own.
const SUMMARIES: &[&str] = &[
    "aborting due to",
    "could not compile",
    "clang frontend command failed",
    "the compiler unexpectedly panicked",
];

/// One diagnostic line, normalised.
struct Diagnostic {
    error: bool,
    /// With a code or a flag: it says which check fired.
    flagged: bool,
    kind: String,
}

fn parse(line: &str) -> Option<Diagnostic> {
    if !line.contains("error") && !line.contains("warning") {
        return None;
    }
    let caps = DIAGNOSTIC.captures(line).or_else(|| TSC.captures(line))?;
    let sev = caps.name("sev")?.as_str();
    let msg = caps.name("msg")?.as_str();
    if SUMMARIES.iter().any(|s| msg.starts_with(s)) {
        return None;
    }
    let code = caps.name("code").map(|c| c.as_str());
    let (text, flag) = match FLAG.captures(msg) {
        Some(f) => (&msg[..f.get(0)?.start()], Some(f.name("flag")?.as_str())),
        None => (msg, None),
    };
    let mut kind = sev.to_string();
    match code {
        Some(code) if caps.get(0)?.as_str().contains(&format!(" {code}:")) => {
            kind.push(' ');
            kind.push_str(code);
        }
        Some(code) => kind.push_str(&format!("[{code}]")),
        None => {}
    }
    kind.push_str(": ");
    kind.push_str(&message(text));
    if let Some(flag) = flag {
        kind.push_str(&format!(" [{flag}]"));
    }
    Some(Diagnostic {
        error: sev != "warning",
        flagged: code.is_some() || flag.is_some(),
        kind: clip(&kind, MAX_LINE),
    })
}

fn push_distinct(list: &mut Vec<String>, item: String, max: usize) {
    if list.len() < max && !list.contains(&item) {
        list.push(item);
    }
}

/// The distinct kinds of error in these pieces of output, in order.
pub fn error_kinds(pieces: &[&[String]]) -> Vec<String> {
    let mut kinds = Vec::new();
    for line in pieces.iter().flat_map(|p| p.iter()) {
        if let Some(d) = parse(line).filter(|d| d.error) {
            push_distinct(&mut kinds, d.kind, MAX_ERRORS);
        }
    }
    kinds
}

/// The diagnostics of a run that did not crash.
pub struct Survey {
    /// Every error and every flagged warning, distinct, in order.
    pub diagnostics: Vec<String>,
    /// The one that is the point (see the module's comment).
    pub point: Option<String>,
}

pub fn survey(pieces: &[&[String]]) -> Survey {
    let mut diagnostics = Vec::new();
    let (mut first_error, mut flagged_error, mut flagged_warning) = (None, None, None);
    for d in pieces
        .iter()
        .flat_map(|p| p.iter())
        .filter_map(|line| parse(line))
    {
        let first = |slot: &mut Option<String>| {
            slot.get_or_insert_with(|| d.kind.clone());
        };
        match (d.error, d.flagged) {
            (true, true) => first(&mut flagged_error),
            (false, true) => first(&mut flagged_warning),
            _ => {}
        }
        if d.error {
            first(&mut first_error);
        }
        if d.error || d.flagged {
            push_distinct(&mut diagnostics, d.kind, MAX_DIAGNOSTICS);
        }
    }
    let point = match first_error {
        Some(first) => Some(flagged_error.unwrap_or(first)),
        None => flagged_warning,
    };
    Survey { diagnostics, point }
}

/// `diag-wuseless-cast` (a flag), `diag-e0782` (a code), else `diag-error`/`diag-warning`.
pub fn short_name(key: &[String]) -> String {
    let point = key.first().map_or("", String::as_str);
    let flag = FLAG.captures(point).and_then(|f| f.name("flag"));
    let code = CODE.captures(point).and_then(|c| c.name("code"));
    let fallback = if point.starts_with("warning") {
        "warning"
    } else {
        "error"
    };
    format!("diag-{}", flag.or(code).map_or(fallback, |m| m.as_str()))
}

/// The code of a normalised kind: `error[E0782]: ...`, `error TS2322: ...`.
static CODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:fatal error|error|warning)(?:\[| )(?P<code>[A-Za-z]*\d+)\]?:").unwrap()
});

#[cfg(test)]
mod tests {
    use super::*;

    fn survey_of(text: &str) -> Survey {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        survey(&[&lines])
    }

    #[test]
    fn kinds_drop_locations_and_mask_names_but_keep_codes_and_flags() {
        let text = "x.cc:18:10: warning: useless cast to type ‘int’ [-Wuseless-cast]\n\
                    error[E0425]: cannot find value `undefined_counter` in this scope\n\
                    clang: error: linker command failed with exit code 1 (use -v to see invocation)\n\
                    a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\n\
                    x.c:3:1: warning: no flag here\n\
                    error: aborting due to 2 previous errors\n\
                    note: not a diagnostic kind";
        assert_eq!(
            survey_of(text).diagnostics,
            [
                "warning: useless cast to type '_' [-Wuseless-cast]",
                "error[E0425]: cannot find value '_' in this scope",
                "error: linker command failed with exit code N (use -v to see invocation)",
                "error TS2322: Type '_' is not assignable to type '_'.",
            ]
        );
    }

    #[test]
    fn the_point_is_the_first_flagged_error_else_the_first_error_else_a_flagged_warning() {
        let point = |text: &str| survey_of(text).point;
        let (w, plain, flagged) = (
            "w.c:1: warning: a [-Wa]\n",
            "w.c:2: error: plain\n",
            "w.c:3: error: b [-Werror=b]\n",
        );
        assert_eq!(
            point(&format!("{w}{plain}{flagged}")).unwrap(),
            "error: b [-Werror=b]"
        );
        assert_eq!(point(&format!("{w}{plain}")).unwrap(), "error: plain");
        assert_eq!(point(w).unwrap(), "warning: a [-Wa]");
        assert_eq!(point("x.c:1: warning: unflagged"), None);
    }

    #[test]
    fn short_names_say_the_flag_or_code() {
        let name = |k: &str| short_name(&[k.to_string()]);
        assert_eq!(
            name("warning: useless cast to type '_' [-Wuseless-cast]"),
            "diag--Wuseless-cast"
        );
        assert_eq!(
            name("error[E0782]: expected a type, found a trait"),
            "diag-E0782"
        );
        assert_eq!(name("error TS2322: Type '_'"), "diag-TS2322");
        assert_eq!(name("error: expected '_' before '_' token"), "diag-error");
    }
}
