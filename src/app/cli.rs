//! The command line: clap's derive `Args` (validated into a run's `Config` in `app/config.rs`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};

pub use crate::store::sink::Output;

pub const DEFAULT_TIMEOUT_FACTOR: u32 = 10;
pub const MIN_DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);
pub const MAX_DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// The largest --timeout accepted: a week.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(7 * 24 * 3600);
/// The largest -j accepted: a thread and a directory per worker; enough for a cluster's jobs in
/// flight through --launcher.
pub const MAX_JOBS: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Algo {
    /// Delta debugging over lines (or chars with --unit char)
    Ddmin,
    /// Chunk deletion over raw bytes, certified one-minimal
    Bytes,
    /// Hierarchical delta debugging over the parse tree
    Hdd,
    /// Syntax-guided reduction: node replacement plus list deletion
    Perses,
}

impl Algo {
    pub fn name(self) -> &'static str {
        match self {
            Algo::Ddmin => "ddmin",
            Algo::Bytes => "bytes",
            Algo::Hdd => "hdd",
            Algo::Perses => "perses",
        }
    }

    pub fn needs_tree(self) -> bool {
        matches!(self, Algo::Hdd | Algo::Perses)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UnitKind {
    Line,
    Char,
}

const EXAMPLES: &str = "\
Examples:
  # C-Reduce style: crash.sh runs in a directory holding input.c (or reads $1)
  reduce --test ./crash.sh input.c

  # keep the original untouched, write the result elsewhere, one core
  reduce --algo hdd --test ./crash.sh -o small.c -j1 input.c

  # in CI: quiet, bounded, machine-readable record, result on stdout
  reduce -q --max-attempts 5000 --stats-json stats.json --test ./crash.sh -o - input.c > small.c

  # no script: a shell command ({} is the candidate) that must exit 0 and print a warning
  reduce -c 'gcc -c -o /dev/null {}' --stderr 'implicit declaration of function .crash.' input.c

  # no shell: a program (@@ is the candidate) that must die by a signal
  reduce --algo bytes crash.bin --signal -- ./fuzz_parse @@

  # no script at all: keep the failure the original shows (here gcc's conflicting types),
  # reduce the command's flags too, and write what a bug report needs into bug/
  reduce --same-failure --reduce-args --report bug/ -o small.c x.c -- gcc -Wall -O2 -c @@

  # a folder of fuzz crashes: grouped by failure, one reduced file per bug in bugs/ (index.json
  # maps every crash to its bug)
  reduce --each out/default/crashes -o bugs --same-failure -- ./target @@

  # a pipeline: - (stdin) before --, the result on stdout
  cat crash.bin | reduce --algo bytes --signal=ABRT --stderr heap-buffer-overflow - -- ./fuzz_parse @@ > min.bin

The test (script, -c or --) gets the candidate's absolute path as $1 and runs in a private directory where
the candidate has the input's file name. Exit status 0 means \"still interesting\" (or
what --exit-code, --signal, --stdout and --stderr say).
Exit codes: 0 done, 2 usage, 3 original not interesting, 4 bad input, 5 bad test (script or program),
6 I/O failure, 7 final result failed its re-check (flaky test), 8 the launcher cannot run jobs
(--launcher), 130 interrupted (129, 131, 143 for SIGHUP, SIGQUIT, SIGTERM), 1 internal error
(a bug: please report it).";

/// Shrink a file while a test script keeps saying it is interesting.
#[derive(Debug, Parser)]
#[command(name = "reduce", version, about, after_help = EXAMPLES)]
pub struct Args {
    /// The file to reduce (reduced in place unless -o is given; the original is kept as
    /// FILE.orig); '-' reads stdin, and the result then goes to stdout unless -o says otherwise;
    /// or a directory whose files are reduced together (kept as DIR.orig)
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,

    /// More files reduced together with INPUT: every test sees them all, in their relative
    /// layout (see "Many files" in the README)
    #[arg(value_name = "MORE")]
    pub more_inputs: Vec<PathBuf>,

    /// Every regular file under DIR (a fuzzer's crashes, recursively; symlinks are not followed)
    /// on its own: each file's failure taken, the files grouped by it, one reduced file per
    /// distinct bug written to -o OUTDIR with index.json and index.csv (see "A folder of
    /// crashes" in the README); DIR is never changed
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with_all = ["input", "more_inputs"],
        requires = "output",
        help_heading = "Reduction options"
    )]
    pub each: Option<PathBuf>,

    /// The interestingness test: a script, run with the candidate's path as $1 (exit 0 =
    /// interesting)
    #[arg(
        short,
        long,
        value_name = "SCRIPT",
        conflicts_with_all = ["command", "program"],
        help_heading = "Oracle options"
    )]
    pub test: Option<PathBuf>,

    /// The test as a shell command, run with `sh -c`: each {} becomes the candidate's path
    /// (quoted; do not quote it again), which is also $1
    #[arg(
        short = 'c',
        long = "command",
        value_name = "COMMAND",
        conflicts_with = "program",
        help_heading = "Oracle options"
    )]
    pub command: Option<String>,

    /// After --: the test as a program and its arguments, run without a shell; each @@ becomes
    /// the candidate's path (appended when no argument has @@)
    #[arg(
        last = true,
        value_name = "PROGRAM ARGS",
        help_heading = "Oracle options"
    )]
    pub program: Vec<OsString>,

    /// Interesting when the test exits with this status (0 to 255) [default: 0; with
    /// --same-failure: the original's ending]
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        conflicts_with = "signal",
        help_heading = "Interesting when"
    )]
    pub exit_code: Option<i32>,

    /// Interesting when the test is killed by a signal: any, or the one named (SEGV, ABRT, ...;
    /// a sanitizer report that aborts is ABRT)
    #[arg(
        long,
        value_name = "NAME",
        num_args = 0..=1,
        default_missing_value = "any",
        help_heading = "Interesting when"
    )]
    pub signal: Option<String>,

    /// Interesting when the test's stdout matches this regex (its first 4 MiB and last 1 MiB)
    #[arg(long, value_name = "REGEX", help_heading = "Interesting when")]
    pub stdout: Option<String>,

    /// Interesting when the test's stderr matches this regex (its first 4 MiB and last 1 MiB)
    #[arg(long, value_name = "REGEX", help_heading = "Interesting when")]
    pub stderr: Option<String>,

    /// Interesting when the test fails as the original does: the same crash, sanitizer report,
    /// exception or diagnostic, and no new kind of error before it (the failure kept is printed
    /// first; no script needed: -- COMPILER FLAGS @@)
    #[arg(long, help_heading = "Interesting when")]
    pub same_failure: bool,

    /// Print the original's failure signature (what --same-failure keeps) and exit
    #[arg(long, help_heading = "Interesting when")]
    pub show_signature: bool,

    /// With --same-failure: write each candidate that fails another way (another bug) to DIR,
    /// the smallest per failure, listed in DIR/signatures.json
    #[arg(
        long,
        value_name = "DIR",
        requires = "same_failure",
        help_heading = "Output options"
    )]
    pub save_slipped: Option<PathBuf>,

    /// After the input, reduce the arguments after -- too (all but the program and @@): drop
    /// those the failure does not need, lower -O levels; print the smallest failing command
    #[arg(long, requires = "program", help_heading = "Reduction options")]
    pub reduce_args: bool,

    /// When the program after -- is a C or C++ compiler and the input includes local headers:
    /// reduce the preprocessed input (-E -P with the command's -I/-D/-std/... flags) instead;
    /// needs -o
    #[arg(long, requires = "program", help_heading = "Reduction options")]
    pub preprocess: bool,

    /// Write a bug report to DIR (a new or empty directory): the reduced input, the command,
    /// a repro.sh that shows the failure, the signature and a README.md
    #[arg(long, value_name = "DIR", help_heading = "Output options")]
    pub report: Option<PathBuf>,

    /// Seconds before a test run is killed and counted as not interesting [default: 10x the
    /// original's test time, between 1 and 300]
    #[arg(long, value_name = "SECS", help_heading = "Oracle options")]
    pub timeout: Option<f64>,

    /// Run this many tests at once, at most 1024 (the result does not depend on it) [default:
    /// number of cores]
    #[arg(short, long, value_name = "N", help_heading = "Oracle options")]
    pub jobs: Option<usize>,

    /// Run the test on the original 3 more times and warn if it ever flips (by default it is
    /// re-run once when a run takes under half a second)
    #[arg(long, help_heading = "Oracle options")]
    pub check_determinism: bool,

    /// Where candidates are written and tests run [default: $TMPDIR]
    #[arg(long, value_name = "DIR", help_heading = "Oracle options")]
    pub temp_dir: Option<PathBuf>,

    /// Run each test as a job through this command prefix, e.g. 'srun -Q -J {name} --chdir={dir}
    /// --' ({dir}: the candidate's directory, {name}: a job name unique to the run, {timeout}:
    /// seconds). The timeout is enforced inside the job; -j is the number of jobs in flight
    #[arg(long, value_name = "TEMPLATE", help_heading = "Oracle options")]
    pub launcher: Option<String>,

    /// Where candidate directories are created for --launcher: a directory every node sees at
    /// the same path (a shared filesystem) [default: --temp-dir]
    #[arg(long, value_name = "DIR", help_heading = "Oracle options")]
    pub work_dir: Option<PathBuf>,

    /// Reduction algorithm [default: perses for text (a grammar's tree, or the bracket tree),
    /// ddmin for binary files: lines, then single bytes up to 16 KiB]
    #[arg(short, long, value_enum, help_heading = "Reduction options")]
    pub algo: Option<Algo>,

    /// What ddmin deletes
    #[arg(long, value_enum, default_value_t = UnitKind::Line, help_heading = "Reduction options")]
    pub unit: UnitKind,

    /// Parse the input as this language, whatever its extension [default: by extension; text
    /// (a tree of lines, brackets and indentation) for any other text file]
    #[arg(
        long,
        value_name = "LANG",
        value_parser = clap::builder::PossibleValuesParser::new(crate::lang::names()),
        help_heading = "Reduction options"
    )]
    pub lang: Option<String>,

    /// At most this many test runs in all, the check of the original included (the best result
    /// so far is kept)
    #[arg(long, value_name = "N", help_heading = "Reduction options")]
    pub max_attempts: Option<u64>,

    /// Hand the test candidates that parse worse than the current best (tree algorithms)
    #[arg(long, help_heading = "Reduction options")]
    pub no_prefilter: bool,

    /// Run the test again on byte-identical candidates
    #[arg(long, help_heading = "Reduction options")]
    pub no_cache: bool,

    /// Keep no verdicts on disk and read none: no resume of an interrupted run either (by
    /// default "not interesting" verdicts are kept in $XDG_CACHE_HOME/reduce, else
    /// ~/.cache/reduce, per test script and input name)
    #[arg(long, help_heading = "Reduction options")]
    pub no_persistent_cache: bool,

    /// Bound of the persistent cache, in bytes or with a K, M or G suffix (the least recently
    /// used tests' verdicts go first)
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size, help_heading = "Reduction options")]
    pub cache_size: u64,

    /// With INPUT '-': read at most this many bytes from stdin, in bytes or with a K, M or G
    /// suffix; a longer stream stops the run (exit 4) before any test runs
    #[arg(long, value_name = "SIZE", default_value = crate::app::stdin::DEFAULT_MAX_STDIN, value_parser = parse_size, help_heading = "Reduction options")]
    pub max_stdin: u64,

    /// Remove the persistent cache (verdicts and resume records) and exit
    #[arg(long, conflicts_with_all = ["input", "test"])]
    pub clear_cache: bool,

    /// Only delete (perses): no rewrite passes (expressions to 0, definitions to declarations, ...)
    #[arg(long, help_heading = "Reduction options")]
    pub no_rewrites: bool,

    /// No give-up rules: rewrite passes try every candidate (slower, sometimes smaller)
    #[arg(long, help_heading = "Reduction options")]
    pub thorough: bool,

    /// Give every name the file declares a short one (a, b, ...) at the end (perses, C): fewer
    /// bytes, same tokens, harder to map back to the original
    #[arg(long, help_heading = "Reduction options")]
    pub rename: bool,

    /// Several files or a directory: a file may disappear from the result, not only become empty
    #[arg(long, help_heading = "Reduction options")]
    pub delete_files: bool,

    /// Write the result here instead of in place ('-' = stdout; a directory for several files)
    #[arg(short, long, value_name = "FILE", help_heading = "Output options")]
    pub output: Option<PathBuf>,

    /// Back up over an existing, different INPUT.orig (the old one is kept as INPUT.orig.N);
    /// overwrite a read-only -o file
    #[arg(long, help_heading = "Output options")]
    pub force: bool,

    /// Keep the result's raw layout (by default a perses result is laid out one statement per
    /// line with 4-space indentation, if the test still accepts it)
    #[arg(long, help_heading = "Output options")]
    pub no_format: bool,

    /// Lay the result out in the fewest bytes instead (a space only where two tokens would run
    /// together, a line break only where the language needs one; kept only if the test still
    /// accepts it): with --rename, the smallest file reduce gives
    #[arg(long, conflicts_with = "no_format", help_heading = "Output options")]
    pub compact: bool,

    /// Write a JSON record of the run here
    #[arg(long, value_name = "FILE", help_heading = "Output options")]
    pub stats_json: Option<PathBuf>,

    /// Print nothing but errors
    #[arg(
        short,
        long,
        conflicts_with = "verbose",
        help_heading = "Output options"
    )]
    pub quiet: bool,

    /// Show the test's command line, output and exit status for the first runs and for every
    /// timeout
    #[arg(short, long, help_heading = "Output options")]
    pub verbose: bool,

    /// Print shell completions and exit
    #[arg(long, value_name = "SHELL", hide = true)]
    pub generate_completions: Option<clap_complete::Shell>,

    /// Print the man page (roff) and exit
    #[arg(long, hide = true)]
    pub generate_man: bool,

    /// Print the reduction tree of INPUT and exit (for debugging)
    #[arg(long, hide = true)]
    pub dump_tree: bool,
}

/// `123`, `64K`, `256M`, `2G` (powers of 1024).
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                _ => return Err(format!("unknown size suffix {c:?} (use K, M or G)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a size (e.g. 500M)"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{text:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::check::{Expect, TestCommand};
    use crate::exit::FailureKind;
    use clap::CommandFactory;

    #[test]
    fn sizes_take_suffixes() {
        assert_eq!(parse_size("256M"), Ok(256 << 20));
        assert_eq!(parse_size("12"), Ok(12));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert!(parse_size("5X").is_err() && parse_size("M").is_err());
    }

    #[test]
    fn verify_cli() {
        Args::command().debug_assert();
    }

    #[test]
    fn dash_output_means_stdout() {
        let args = Args::parse_from(["reduce", "-t", "t.sh", "-o", "-", "in.c"]);
        assert_eq!(args.into_config().unwrap().output, Output::Stdout);
    }

    #[test]
    fn dash_input_means_stdin_and_stdout() {
        let args = Args::parse_from(["reduce", "-c", "true", "--lang", "c", "-"]);
        let cfg = args.into_config().unwrap();
        assert!(cfg.stdin);
        assert_eq!(cfg.output, Output::Stdout);
        assert_eq!(cfg.candidate_name().unwrap(), "input.c");
        let args = Args::parse_from(["reduce", "-c", "true", "-o", "out", "-"]);
        assert_eq!(
            args.into_config().unwrap().output,
            Output::File("out".into())
        );
    }

    #[test]
    fn the_three_test_forms_exclude_each_other_and_one_is_required() {
        let argv = Args::parse_from(["reduce", "in.c", "--", "prog", "@@"]);
        let cfg = argv.into_config().unwrap();
        assert_eq!(
            cfg.check.command,
            TestCommand::Argv(vec!["prog".into(), "@@".into()])
        );
        for bad in [
            &["reduce", "-t", "t.sh", "-c", "true", "in.c"][..],
            &["reduce", "-c", "true", "in.c", "--", "prog"],
            &["reduce", "-t", "t.sh", "in.c", "--", "prog"],
        ] {
            assert!(Args::try_parse_from(bad).is_err(), "{bad:?}");
        }
        let none = Args::parse_from(["reduce", "in.c"]);
        assert_eq!(none.into_config().unwrap_err().kind, FailureKind::Usage);
    }

    #[test]
    fn conditions_come_from_their_flags() {
        let args = Args::parse_from(["reduce", "--signal", "-c", "x", "in"]);
        let cfg = args.into_config().unwrap();
        assert_eq!(cfg.check.conditions.expect, Expect::Signal(None));
        let args = Args::parse_from(["reduce", "--signal=SEGV", "in", "--", "p"]);
        let cfg = args.into_config().unwrap();
        assert_eq!(
            cfg.check.conditions.expect,
            Expect::Signal(Some(libc::SIGSEGV))
        );
        let args = Args::parse_from(["reduce", "--exit-code", "3", "-c", "x", "in"]);
        let cfg = args.into_config().unwrap();
        assert_eq!(cfg.check.conditions.expect, Expect::Exit(3));
        for bad in ["-3", "256"] {
            let args = Args::parse_from(["reduce", "--exit-code", bad, "-c", "x", "in"]);
            assert_eq!(args.into_config().unwrap_err().kind, FailureKind::Usage);
        }
        let args = Args::parse_from(["reduce", "--stderr", "a(", "-c", "x", "in"]);
        let failure = args.into_config().unwrap_err();
        assert_eq!(failure.kind, FailureKind::Usage);
        assert!(failure.message.contains("--stderr"), "{}", failure.message);
    }

    #[test]
    fn a_zero_timeout_is_a_usage_error() {
        let args = Args::parse_from(["reduce", "-t", "t.sh", "--timeout", "0", "in.c"]);
        assert_eq!(args.into_config().unwrap_err().kind, FailureKind::Usage);
    }
}
