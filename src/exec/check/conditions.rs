//! What counts as interesting, said on the command line: `--exit-code N` (default 0), or
//! `--signal [NAME]`, plus `--stdout REGEX` and `--stderr REGEX`, and `--same-failure` (the run
//! fails as the original did: its failure signature matches, see [`crate::signature`]). Every
//! condition given must hold.
//!
//! A shell reports a child killed by signal N as its own exit status 128+N, and so does the
//! `--launcher` job wrapper; where the test runs through one of them (a `--test` script, `-c`,
//! any launched job), `--signal` also accepts that status. A program run directly with `--`
//! must itself die by the signal.

use std::time::Duration;

use regex::bytes::{Regex, RegexBuilder};

use crate::exec::capture::Captured;
use crate::exec::runner::RunStatus;
use crate::signature::{Ending, Signature};

/// What the exit status must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Exited with this code (`--exit-code`, default 0).
    Exit(i32),
    /// Killed by a signal: any (`None`) or this one (`--signal`, `--signal SEGV`).
    Signal(Option<i32>),
    /// Any ending but a timeout (`--same-failure` without `--exit-code` or `--signal`: the
    /// signature holds the ending).
    Any,
}

impl Default for Expect {
    fn default() -> Expect {
        Expect::Exit(0)
    }
}

/// The conditions a run must meet to be interesting.
#[derive(Clone, Debug, Default)]
pub struct Conditions {
    pub expect: Expect,
    pub stdout: Option<Regex>,
    pub stderr: Option<Regex>,
    /// `--same-failure`: the original's failure; a run must fail the same way.
    pub same: Option<Signature>,
}

/// The captured output of one run, as much as the conditions need.
#[derive(Clone, Copy, Debug, Default)]
pub struct Streams<'a> {
    pub stdout: Option<&'a Captured>,
    pub stderr: Option<&'a Captured>,
    /// The run's timeout, to say "timed out after N s".
    pub timeout: Duration,
    /// The run's failure signature, when it was derived (see [`signature_of`]): `None` when it
    /// was not, or the run did not fail.
    pub signature: Option<&'a Signature>,
}

/// How a run ended, as a signature sees it (`None`: interrupted or cancelled, no verdict).
pub fn ending_of(status: RunStatus) -> Option<Ending> {
    match status {
        RunStatus::Exited(code) => Some(Ending::Exited(code)),
        RunStatus::Signaled(sig) => Some(Ending::Signaled(sig)),
        RunStatus::TimedOut => Some(Ending::TimedOut),
        RunStatus::Interrupted | RunStatus::Cancelled => None,
    }
}

/// The failure signature of a run that ended as `status` with this output (both streams
/// captured); `None` when it did not fail or gave no verdict.
pub fn signature_of(
    status: RunStatus,
    stdout: Option<&Captured>,
    stderr: Option<&Captured>,
) -> Option<Signature> {
    let ending = ending_of(status)?;
    let bytes = |c: Option<&Captured>| c.map(Captured::joined).unwrap_or_default();
    crate::signature::derive(ending, &bytes(stdout), &bytes(stderr))
}

impl Conditions {
    /// Whether a stream must be captured for the verdict.
    pub fn needs_stdout(&self) -> bool {
        self.stdout.is_some() || self.same.is_some()
    }

    pub fn needs_stderr(&self) -> bool {
        self.stderr.is_some() || self.same.is_some()
    }

    /// Whether the verdict needs the run's signature ([`Streams::signature`]).
    pub fn needs_signature(&self) -> bool {
        self.same.is_some()
    }

    /// The conditions `status` and `streams` fail, in words (empty: interesting).
    /// `via_shell`: the test ran through a shell or the job wrapper (see the module doc).
    pub fn unmet(&self, status: RunStatus, via_shell: bool, streams: Streams<'_>) -> Vec<String> {
        let mut unmet = Vec::new();
        if let Some(why) = self.status_unmet(status, via_shell, streams.timeout) {
            unmet.push(why);
        }
        for (flag, regex, stream) in [
            ("--stdout", &self.stdout, streams.stdout),
            ("--stderr", &self.stderr, streams.stderr),
        ] {
            let Some(regex) = regex else { continue };
            if !stream.is_some_and(|s| s.is_match(regex)) {
                unmet.push(format!(
                    "{flag} {} found no match in its {} (searched: {})",
                    shell_word(regex.as_str()),
                    &flag[2..],
                    crate::exec::capture::SEARCHED
                ));
            }
        }
        if let Some(want) = &self.same {
            let why = match streams.signature {
                Some(got) => want.matches(got).err(),
                None => Some(crate::signature::Mismatch::NotAFailure),
            };
            // a timeout is said once, above
            if let Some(why) = why.filter(|_| status != RunStatus::TimedOut) {
                unmet.push(format!("--same-failure: {why}"));
            }
        }
        unmet
    }

    fn status_unmet(
        &self,
        status: RunStatus,
        via_shell: bool,
        timeout: Duration,
    ) -> Option<String> {
        let signal = match status {
            RunStatus::Signaled(sig) => Some(sig),
            RunStatus::Exited(code) if via_shell && code > 128 && code < 128 + 65 => {
                Some(code - 128)
            }
            RunStatus::Exited(_) => None,
            other => return Some(other.describe(timeout)),
        };
        match (self.expect, status, signal) {
            (Expect::Any, _, _) => None,
            (Expect::Exit(want), RunStatus::Exited(code), _) if code == want => None,
            (Expect::Exit(want), _, _) => Some(format!(
                "{}, not exit status {want} (--exit-code {want})",
                describe_status(status)
            )),
            (Expect::Signal(None), _, Some(_)) => None,
            (Expect::Signal(Some(want)), _, Some(sig)) if sig == want => None,
            (Expect::Signal(want), _, _) => Some(format!(
                "{}, not killed by {} (--signal{})",
                describe_status(status),
                want.map_or("a signal".to_string(), signal_name),
                want.map_or(String::new(), |w| format!(" {}", short_name(w)))
            )),
        }
    }

    /// The conditions as command-line flags (for messages and the test's identity).
    pub fn flags(&self) -> Vec<String> {
        let mut flags = match self.expect {
            Expect::Any => vec![],
            Expect::Exit(code) => vec![format!("--exit-code {code}")],
            Expect::Signal(None) => vec!["--signal".to_string()],
            Expect::Signal(Some(sig)) => vec![format!("--signal {}", short_name(sig))],
        };
        for (flag, regex) in [("--stdout", &self.stdout), ("--stderr", &self.stderr)] {
            if let Some(r) = regex {
                flags.push(format!("{flag} {}", shell_word(r.as_str())));
            }
        }
        if self.same.is_some() {
            flags.push("--same-failure".to_string());
        }
        flags
    }
}

fn describe_status(status: RunStatus) -> String {
    match status {
        RunStatus::Exited(code) => format!("exited with status {code}"),
        RunStatus::Signaled(sig) => format!("was killed by {}", signal_name(sig)),
        other => other.describe(Duration::ZERO),
    }
}

/// `SEGV` for SIGSEGV; the number for a signal without a known name.
fn short_name(sig: i32) -> String {
    match SIGNALS.iter().find(|(_, n)| *n == sig) {
        Some((name, _)) => (*name).to_string(),
        None => sig.to_string(),
    }
}

fn shell_word(word: &str) -> String {
    shlex::try_quote(word).map_or_else(|_| format!("{word:?}"), |q| q.into_owned())
}

/// Every Linux signal below the real-time ones (1 to 31), by name without `SIG`: the names
/// `--signal NAME` knows and messages use.
const SIGNALS: &[(&str, i32)] = &[
    ("HUP", libc::SIGHUP),
    ("INT", libc::SIGINT),
    ("QUIT", libc::SIGQUIT),
    ("ILL", libc::SIGILL),
    ("TRAP", libc::SIGTRAP),
    ("ABRT", libc::SIGABRT),
    ("BUS", libc::SIGBUS),
    ("FPE", libc::SIGFPE),
    ("KILL", libc::SIGKILL),
    ("USR1", libc::SIGUSR1),
    ("SEGV", libc::SIGSEGV),
    ("USR2", libc::SIGUSR2),
    ("PIPE", libc::SIGPIPE),
    ("ALRM", libc::SIGALRM),
    ("TERM", libc::SIGTERM),
    ("STKFLT", libc::SIGSTKFLT),
    ("CHLD", libc::SIGCHLD),
    ("CONT", libc::SIGCONT),
    ("STOP", libc::SIGSTOP),
    ("TSTP", libc::SIGTSTP),
    ("TTIN", libc::SIGTTIN),
    ("TTOU", libc::SIGTTOU),
    ("URG", libc::SIGURG),
    ("XCPU", libc::SIGXCPU),
    ("XFSZ", libc::SIGXFSZ),
    ("VTALRM", libc::SIGVTALRM),
    ("PROF", libc::SIGPROF),
    ("WINCH", libc::SIGWINCH),
    ("IO", libc::SIGIO),
    ("PWR", libc::SIGPWR),
    ("SYS", libc::SIGSYS),
];

/// The usual name of a signal: `SIGSEGV`; a real-time one as a C program names it,
/// `SIGRTMIN+n` (from the C library's `SIGRTMIN`, 34 with glibc: the two below it, which the
/// library keeps for itself, are `SIGRTMIN-2` and `SIGRTMIN-1`).
pub fn signal_name(sig: i32) -> String {
    if let Some((name, _)) = SIGNALS.iter().find(|(_, n)| *n == sig) {
        return format!("SIG{name}");
    }
    const KERNEL_RTMIN: i32 = 32;
    let rtmin = libc::SIGRTMIN();
    match sig - rtmin {
        _ if !(KERNEL_RTMIN..=libc::SIGRTMAX()).contains(&sig) => format!("signal {sig}"),
        0 => "SIGRTMIN".to_string(),
        n if n > 0 => format!("SIGRTMIN+{n}"),
        n => format!("SIGRTMIN{n}"),
    }
}

/// The value of `--signal`: `any` (or nothing), a name with or without `SIG` in any case, or a
/// number. `Err` names the flag and the accepted spellings.
pub fn parse_signal(value: &str) -> Result<Option<i32>, String> {
    let upper = value.trim().to_ascii_uppercase();
    if upper.is_empty() || upper == "ANY" {
        return Ok(None);
    }
    if let Ok(n) = upper.parse::<i32>()
        && (1..=64).contains(&n)
    {
        return Ok(Some(n));
    }
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    if let Some(&(_, n)) = SIGNALS.iter().find(|(s, _)| *s == name) {
        return Ok(Some(n));
    }
    Err(format!(
        "--signal: unknown signal {value:?}; give a name such as SEGV or ABRT, a number, or nothing \
         (any signal). An INPUT right after --signal is read as its value: put INPUT first or write --signal=any"
    ))
}

/// `--stdout`/`--stderr` REGEX, compiled with `^` and `$` matching at line ends (as in grep);
/// `Err` names the flag.
pub fn parse_regex(flag: &str, pattern: &str) -> Result<Regex, String> {
    RegexBuilder::new(pattern)
        .multi_line(true)
        .build()
        .map_err(|e| {
            let text = e.to_string();
            let last = text.lines().last().unwrap_or_default().trim();
            let detail = last.strip_prefix("error: ").unwrap_or(last).to_string();
            format!("{flag}: invalid regular expression {pattern:?}: {detail}")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(text: &str) -> Captured {
        let mut c = Captured::default();
        c.push(text.as_bytes());
        c
    }

    #[test]
    fn the_default_is_exit_status_0() {
        let c = Conditions::default();
        assert!(
            c.unmet(RunStatus::Exited(0), false, Streams::default())
                .is_empty()
        );
        let why = c.unmet(RunStatus::Exited(1), false, Streams::default());
        assert_eq!(
            why,
            ["exited with status 1, not exit status 0 (--exit-code 0)"]
        );
        assert!(
            !c.unmet(RunStatus::TimedOut, true, Streams::default())
                .is_empty()
        );
    }

    #[test]
    fn a_signal_condition_accepts_a_shells_128_plus_n_only_through_a_shell() {
        let c = Conditions {
            expect: Expect::Signal(Some(libc::SIGSEGV)),
            ..Conditions::default()
        };
        let none = Streams::default();
        assert!(
            c.unmet(RunStatus::Signaled(libc::SIGSEGV), false, none)
                .is_empty()
        );
        assert!(c.unmet(RunStatus::Exited(139), true, none).is_empty());
        assert!(!c.unmet(RunStatus::Exited(139), false, none).is_empty());
        let why = c.unmet(RunStatus::Signaled(libc::SIGABRT), false, none);
        assert_eq!(
            why,
            ["was killed by SIGABRT, not killed by SIGSEGV (--signal SEGV)"]
        );
        let any = Conditions {
            expect: Expect::Signal(None),
            ..Conditions::default()
        };
        assert!(
            any.unmet(RunStatus::Signaled(libc::SIGABRT), false, none)
                .is_empty()
        );
        assert!(!any.unmet(RunStatus::Exited(0), false, none).is_empty());
        // a timeout kills with SIGKILL, but that is never the test's own signal
        assert!(!any.unmet(RunStatus::TimedOut, false, none).is_empty());
    }

    #[test]
    fn every_regex_given_must_match_its_own_stream() {
        let c = Conditions {
            stdout: Some(parse_regex("--stdout", "^ok$").unwrap()),
            stderr: Some(parse_regex("--stderr", "fold_convert").unwrap()),
            ..Conditions::default()
        };
        let out = captured("x\nok\n");
        let err = captured("internal compiler error: in fold_convert, at x.c:1");
        let both = Streams {
            stdout: Some(&out),
            stderr: Some(&err),
            ..Streams::default()
        };
        assert!(c.unmet(RunStatus::Exited(0), false, both).is_empty());
        let swapped = Streams {
            stdout: Some(&err),
            stderr: Some(&out),
            ..Streams::default()
        };
        let why = c.unmet(RunStatus::Exited(0), false, swapped);
        assert_eq!(why.len(), 2, "{why:?}");
        assert!(
            why[1].starts_with("--stderr fold_convert found no match"),
            "{why:?}"
        );
    }

    #[test]
    fn the_same_failure_needs_the_same_signature_and_any_ending_but_a_timeout() {
        use crate::signature::{Ending, derive};
        let ice = |function: &str| {
            let text =
                format!("x.cc:9:15: internal compiler error: in {function}, at cp/pt.cc:100\n");
            derive(Ending::Exited(1), b"", text.as_bytes()).unwrap()
        };
        let (same, other) = (ice("poplevel_class"), ice("coerce_template_parms"));
        let c = Conditions {
            expect: Expect::Any,
            same: Some(same.clone()),
            ..Conditions::default()
        };
        assert!(c.needs_stdout() && c.needs_stderr() && c.needs_signature());
        assert_eq!(c.flags(), ["--same-failure"]);
        let with = |signature| Streams {
            signature,
            ..Streams::default()
        };
        assert!(
            c.unmet(RunStatus::Exited(1), false, with(Some(&same)))
                .is_empty()
        );
        let why = c.unmet(RunStatus::Exited(1), false, with(Some(&other)));
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(
            why[0].starts_with("--same-failure: ") && why[0].contains("coerce_template_parms"),
            "{why:?}"
        );
        let why = c.unmet(RunStatus::Exited(0), false, with(None));
        assert_eq!(why, ["--same-failure: exited 0 with nothing recognisable"]);
        // a timeout is said once, whatever the signature
        let why = c.unmet(RunStatus::TimedOut, false, with(None));
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(why[0].contains("timed out"), "{why:?}");
        // with --exit-code too, both must hold
        let both = Conditions {
            expect: Expect::Exit(4),
            ..c.clone()
        };
        let why = both.unmet(RunStatus::Exited(1), false, with(Some(&same)));
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(why[0].contains("--exit-code 4"), "{why:?}");
    }

    #[test]
    fn every_signal_has_a_name() {
        assert_eq!(signal_name(libc::SIGSYS), "SIGSYS");
        assert_eq!(signal_name(libc::SIGWINCH), "SIGWINCH");
        for sig in 1..32 {
            assert!(signal_name(sig).starts_with("SIG"), "{sig}");
            assert!(!signal_name(sig).starts_with("SIGRT"), "{sig}");
        }
        let rtmin = libc::SIGRTMIN();
        assert_eq!(signal_name(rtmin), "SIGRTMIN");
        assert_eq!(signal_name(rtmin + 1), "SIGRTMIN+1");
        if rtmin == 34 {
            // glibc keeps 32 and 33 for itself
            assert_eq!(signal_name(32), "SIGRTMIN-2");
        }
        assert_eq!(signal_name(99), "signal 99");
    }

    #[test]
    fn signal_names_numbers_and_any_parse() {
        assert_eq!(parse_signal("SEGV"), Ok(Some(libc::SIGSEGV)));
        assert_eq!(parse_signal("sigabrt"), Ok(Some(libc::SIGABRT)));
        assert_eq!(parse_signal("11"), Ok(Some(11)));
        assert_eq!(parse_signal("any"), Ok(None));
        let message = parse_signal("crash.bin").unwrap_err();
        assert!(message.contains("--signal") && message.contains("crash.bin"));
    }

    #[test]
    fn an_invalid_regex_is_an_error_naming_the_flag() {
        let message = parse_regex("--stderr", "a(b").unwrap_err();
        assert!(
            message.starts_with("--stderr: invalid regular expression"),
            "{message}"
        );
        assert!(!message.contains('\n'), "{message}");
    }
}
