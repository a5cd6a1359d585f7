//! A run's configuration: the command line (`Args`) validated into a [`Config`], with the
//! one-line refusals of flags that do not go together.

use std::path::PathBuf;
use std::time::Duration;

use crate::app::cli::{Algo, Args, MAX_JOBS, MAX_TIMEOUT, UnitKind};
use crate::exec::check::conditions::{parse_regex, parse_signal};
use crate::exec::check::{Check, Conditions, Expect, TestCommand};
use crate::exit::{Failure, FailureKind};
use crate::store::sink::Output;

/// A validated run configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// The input file; `-` for stdin (see [`Config::stdin`]).
    pub input: PathBuf,
    /// Further files reduced together with `input` (see [`crate::app::multi`]).
    pub more_inputs: Vec<PathBuf>,
    /// A file of a multi-file run may disappear.
    pub delete_files: bool,
    /// The input is read from stdin.
    pub stdin: bool,
    /// The test, its script or program not yet checked (see [`Check::ensure_runnable`]).
    pub check: Check,
    pub algo: Option<Algo>,
    pub unit: UnitKind,
    pub lang: Option<String>,
    pub timeout: Option<Duration>,
    pub jobs: usize,
    pub temp_dir: Option<PathBuf>,
    pub launcher: Option<crate::exec::launcher::Launcher>,
    pub max_attempts: Option<u64>,
    pub prefilter: bool,
    pub cache: bool,
    /// Keep verdicts and the resume record on disk.
    pub persistent_cache: bool,
    pub cache_size: u64,
    /// The most bytes read from stdin (`--max-stdin`).
    pub max_stdin: u64,
    pub rewrites: bool,
    pub thorough: bool,
    pub rename: bool,
    pub format: bool,
    /// The fewest-bytes layout instead of the canonical one (`--compact`).
    pub compact: bool,
    pub output: Output,
    pub force: bool,
    pub stats_json: Option<PathBuf>,
    pub quiet: bool,
    pub verbose: bool,
    pub dump_tree: bool,
    pub check_determinism: bool,
    /// Keep the original's failure (`--same-failure`; `--show-signature` implies it).
    pub same_failure: bool,
    /// Print the original's signature and exit.
    pub show_signature: bool,
    pub save_slipped: Option<PathBuf>,
    pub reduce_args: bool,
    pub preprocess: bool,
    pub report: Option<PathBuf>,
    /// `--each DIR`: every file of DIR on its own, grouped by failure (see [`crate::app::each`]);
    /// `input` is DIR too, and `output` the OUTDIR.
    pub each: Option<PathBuf>,
}

impl Args {
    /// The numbers' bounds: the timeout (returned), `-j`, `--max-attempts`, `--exit-code`.
    fn checked_numbers(&self) -> Result<Option<Duration>, Failure> {
        let usage = |m: String| Failure::new(FailureKind::Usage, m);
        let timeout = match self.timeout {
            Some(t) if !(t.is_finite() && t > 0.0) => {
                return Err(usage(format!(
                    "--timeout must be a positive number of seconds, not {t}"
                )));
            }
            Some(t) if t > MAX_TIMEOUT.as_secs_f64() => {
                return Err(usage(format!(
                    "--timeout must be at most {} seconds (7 days), not {t}",
                    MAX_TIMEOUT.as_secs()
                )));
            }
            Some(t) => Some(Duration::from_secs_f64(t)),
            None => None,
        };
        match self.jobs {
            Some(0) => return Err(usage("--jobs must be at least 1".into())),
            Some(n) if n > MAX_JOBS => {
                return Err(usage(format!(
                    "--jobs must be at most {MAX_JOBS}, not {n} (with --launcher too: {MAX_JOBS} jobs in flight is the most)"
                )));
            }
            _ => {}
        }
        if self.max_attempts == Some(0) {
            return Err(usage(
                "--max-attempts must be at least 1 (the first run checks the original)".into(),
            ));
        }
        if let Some(code) = self.exit_code
            && !(0..=255).contains(&code)
        {
            return Err(usage(format!(
                "--exit-code must be an exit status from 0 to 255, not {code}"
            )));
        }
        Ok(timeout)
    }

    /// The no-script flags take one input; `--preprocess` a file and `-o`.
    fn check_failure_flags(&self) -> Result<(), Failure> {
        let Some(input) = self.input.as_ref().or(self.each.as_ref()) else {
            return Ok(()); // refused as missing
        };
        let same_failure = self.same_failure || self.show_signature;
        let stdin = input.as_os_str() == "-";
        let several =
            self.each.is_none() && (!self.more_inputs.is_empty() || (!stdin && input.is_dir()));
        let usage = |m: String| Failure::new(FailureKind::Usage, m);
        let new_flags = [
            (same_failure, "--same-failure"),
            (self.reduce_args, "--reduce-args"),
            (self.preprocess, "--preprocess"),
            (self.report.is_some(), "--report"),
        ];
        if several && let Some((_, flag)) = new_flags.iter().find(|(on, _)| *on) {
            return Err(usage(format!(
                "{flag} takes one input file (or -), not several files or a directory"
            )));
        }
        if self.preprocess && !self.show_signature {
            if stdin {
                return Err(usage(
                        "--preprocess needs an input file: its directory resolves its #include \"...\" lines"
                            .into(),
                    ));
            }
            if self.output.is_none() {
                return Err(usage(
                        "--preprocess writes the preprocessed, reduced file: give -o FILE (in place, the input would change language)"
                            .into(),
                    ));
            }
        }
        Ok(())
    }

    pub fn into_config(self) -> Result<Config, Failure> {
        let usage = |m: String| Failure::new(FailureKind::Usage, m);
        let timeout = self.checked_numbers()?;
        self.check_failure_flags()?;
        let Some(input) = self.input.clone().or(self.each.clone()) else {
            return Err(usage(missing_input(self.signal.as_deref())));
        };
        let stdin = input.as_os_str() == "-";
        let output = match self.output.clone() {
            None if stdin => Output::Stdout,
            None => Output::InPlace,
            Some(p) if p.as_os_str() == "-" => Output::Stdout,
            Some(p) => Output::File(p),
        };
        if self.each.is_some() {
            ensure_each_flags(&self, &output).map_err(usage)?;
        }
        let launcher = self
            .launcher
            .as_deref()
            .map(crate::exec::launcher::Launcher::parse)
            .transpose()
            .map_err(|e| usage(format!("{e:#}")))?;
        let jobs = self.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_JOBS))
        });
        let command = match (self.test, self.command, self.program) {
            (Some(script), _, _) => TestCommand::Script(script),
            (None, Some(command), _) => TestCommand::Shell(command),
            (None, None, program) if !program.is_empty() => TestCommand::Argv(program),
            _ => return Err(usage(missing_test(&input, &self.more_inputs))),
        };
        let same_failure = self.same_failure || self.show_signature;
        let expect =
            expect_of(self.signal.as_deref(), self.exit_code, same_failure).map_err(usage)?;
        let conditions = conditions(expect, self.stdout, self.stderr).map_err(usage)?;
        Ok(Config {
            input,
            more_inputs: self.more_inputs,
            delete_files: self.delete_files,
            stdin,
            check: Check {
                command,
                conditions,
            },
            algo: self.algo,
            unit: self.unit,
            lang: self.lang,
            timeout,
            jobs,
            temp_dir: self.work_dir.or(self.temp_dir),
            launcher,
            max_attempts: self.max_attempts,
            prefilter: !self.no_prefilter,
            cache: !self.no_cache,
            persistent_cache: !self.no_persistent_cache,
            cache_size: self.cache_size,
            max_stdin: self.max_stdin,
            rewrites: !self.no_rewrites,
            thorough: self.thorough,
            rename: self.rename,
            format: !self.no_format,
            compact: self.compact,
            output,
            force: self.force,
            stats_json: self.stats_json,
            quiet: self.quiet,
            verbose: self.verbose,
            dump_tree: self.dump_tree,
            check_determinism: self.check_determinism,
            same_failure,
            show_signature: self.show_signature,
            save_slipped: self.save_slipped,
            reduce_args: self.reduce_args,
            preprocess: self.preprocess,
            report: self.report,
            each: self.each,
        })
    }
}

/// `--each DIR` writes into `-o OUTDIR` and takes the test's flags, not those of one file's
/// bug report or of a set of files.
fn ensure_each_flags(args: &Args, output: &Output) -> Result<(), String> {
    if *output == Output::Stdout {
        return Err(
            "--each writes one file per bug into a directory: give -o OUTDIR, not -o -".into(),
        );
    }
    let alone = [
        (args.show_signature, "--show-signature"),
        (args.save_slipped.is_some(), "--save-slipped"),
        (args.reduce_args, "--reduce-args"),
        (args.preprocess, "--preprocess"),
        (args.report.is_some(), "--report"),
        (args.delete_files, "--delete-files"),
        (args.dump_tree, "--dump-tree"),
    ];
    match alone.iter().find(|(on, _)| *on) {
        Some((_, flag)) => Err(format!(
            "{flag} takes one input file, not --each DIR (reduce one of the outputs with it afterwards)"
        )),
        None => Ok(()),
    }
}

/// What ends a run the test wants: a signal, an exit code, any failure (`--same-failure`,
/// whose signature decides), or exit 0.
fn expect_of(signal: Option<&str>, exit_code: Option<i32>, same: bool) -> Result<Expect, String> {
    Ok(match (signal, exit_code) {
        (Some(name), _) => Expect::Signal(parse_signal(name)?),
        (None, Some(code)) => Expect::Exit(code),
        (None, None) if same => Expect::Any,
        (None, None) => Expect::Exit(0),
    })
}

impl Config {
    /// The candidate's file name in the test's directory: the input's own name, or for stdin
    /// `input` with the extension of the `--lang` language (`input.c` with `--lang c`).
    pub fn candidate_name(&self) -> Option<std::ffi::OsString> {
        if !self.stdin {
            return self.input.file_name().map(|n| n.to_owned());
        }
        let ext = self
            .lang
            .as_deref()
            .and_then(crate::lang::by_name)
            .and_then(|l| l.extensions.first());
        Some(match ext {
            Some(ext) => format!("input.{ext}").into(),
            None => "input".into(),
        })
    }

    /// The input for messages: its path, or `stdin`.
    pub fn input_label(&self) -> String {
        match self.stdin {
            true => "stdin".into(),
            false => self.input.display().to_string(),
        }
    }
}

/// "missing INPUT", or why: `--signal crash.bin -- ./t` reads the input as the signal's name.
fn missing_input(signal: Option<&str>) -> String {
    match signal {
        Some(value) if parse_signal(value).is_err() => format!(
            "missing INPUT: --signal took {value} as its value; put INPUT before --signal, or write --signal=any"
        ),
        _ => "missing INPUT (the file to reduce, or - for stdin)".into(),
    }
}

/// "missing the test", with the likely fix when the first argument is an executable file (the
/// test, in C-Reduce's order: `reduce ./test.sh bug.c`).
fn missing_test(input: &std::path::Path, more: &[PathBuf]) -> String {
    use std::os::unix::fs::PermissionsExt;
    let forms = "give --test SCRIPT, -c 'COMMAND' or -- PROGRAM ARGS...";
    let executable =
        std::fs::metadata(input).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if !executable {
        return format!("missing the test: {forms}");
    }
    let quote = |p: &std::path::Path| crate::exec::check::shell_quote_os(p.as_os_str());
    let rest = match more.is_empty() {
        true => "INPUT".to_string(),
        false => more.iter().map(|p| quote(p)).collect::<Vec<_>>().join(" "),
    };
    format!(
        "missing the test: {} is an executable file; if it is the test, write `reduce --test {} {rest}` (C-Reduce's order, the test first, does not apply here); or {forms}",
        input.display(),
        quote(input),
    )
}

/// The conditions of `--exit-code` or `--signal` (`expect`), `--stdout` and `--stderr`; the
/// failure `--same-failure` keeps is added once the original has run.
fn conditions(
    expect: Expect,
    stdout: Option<String>,
    stderr: Option<String>,
) -> Result<Conditions, String> {
    let regex = |flag: &str, p: Option<String>| p.map(|p| parse_regex(flag, &p)).transpose();
    Ok(Conditions {
        expect,
        stdout: regex("--stdout", stdout)?,
        stderr: regex("--stderr", stderr)?,
        same: None,
    })
}
