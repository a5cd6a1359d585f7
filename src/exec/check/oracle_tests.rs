//! The oracle running each form of test with its conditions, on real processes.

use std::ffi::OsString;
use std::time::Duration;

use super::conditions::parse_regex;
use super::*;
use crate::exec::runner::{RunStatus, ScriptConfig, ScriptRunner};
use crate::signal;

fn oracle(command: TestCommand, conditions: Conditions) -> (ScriptRunner, tempfile::TempDir) {
    let root = tempfile::tempdir().unwrap();
    let cfg = ScriptConfig {
        check: Check {
            command,
            conditions,
        },
        file_name: OsString::from("input.c"),
        timeout: Duration::from_secs(30),
        verbose: false,
        temp_root: Some(root.path().to_path_buf()),
        launcher: None,
        derive: false,
        slipped: None,
    };
    (ScriptRunner::new(cfg).unwrap(), root)
}

fn argv(words: &[&str]) -> TestCommand {
    TestCommand::Argv(words.iter().map(OsString::from).collect())
}

#[test]
fn a_shell_command_sees_the_candidate_as_braces_and_as_dollar_1_in_its_directory() {
    let _guard = signal::shared();
    let cmd = "[ {} = \"$1\" ] && [ \"$(pwd -P)/input.c\" = \"$1\" ] && grep -q foo input.c";
    let (mut o, _root) = oracle(TestCommand::Shell(cmd.into()), Conditions::default());
    assert!(o.run(b"int foo;").unwrap().interesting);
    let miss = o.run(b"int bar;").unwrap();
    assert!(!miss.interesting);
    assert_eq!(miss.unmet.len(), 1, "{:?}", miss.unmet);
}

#[test]
fn a_program_that_kills_itself_meets_a_signal_condition_without_a_shell() {
    let _guard = signal::shared();
    let segv = Conditions {
        expect: Expect::Signal(Some(libc::SIGSEGV)),
        ..Conditions::default()
    };
    let body = "grep -q crash \"$1\" && kill -SEGV $$; exit 0";
    let (mut o, _root) = oracle(argv(&["/bin/sh", "-c", body, "x", "@@"]), segv);
    let hit = o.run(b"crash").unwrap();
    assert_eq!(hit.status, RunStatus::Signaled(libc::SIGSEGV));
    assert!(hit.interesting, "{:?}", hit.unmet);
    let miss = o.run(b"fine").unwrap();
    assert!(!miss.interesting);
    assert!(miss.unmet[0].contains("--signal SEGV"), "{:?}", miss.unmet);
}

#[test]
fn a_signal_condition_lets_sanitizers_abort_unless_the_user_set_asan_options() {
    let _guard = signal::shared();
    if std::env::var_os("ASAN_OPTIONS").is_some() {
        return; // the user's own setting is passed through unchanged
    }
    let abrt = Conditions {
        expect: Expect::Signal(Some(libc::SIGABRT)),
        ..Conditions::default()
    };
    let body = "case \"$ASAN_OPTIONS\" in *abort_on_error=1*) kill -ABRT $$;; esac; exit 1";
    let (mut o, _root) = oracle(argv(&["/bin/sh", "-c", body]), abrt);
    assert!(o.run(b"x").unwrap().interesting);
}

#[test]
fn a_stderr_regex_finds_a_report_after_megabytes_of_output_and_the_run_does_not_block() {
    let _guard = signal::shared();
    let conditions = Conditions {
        stderr: Some(parse_regex("--stderr", "^REPORT: heap-use-after-free$").unwrap()),
        ..Conditions::default()
    };
    let cmd =
        "head -c 9000000 /dev/zero >&2; echo >&2; echo 'REPORT: heap-use-after-free' >&2; echo out";
    let (mut o, _root) = oracle(TestCommand::Shell(cmd.into()), conditions.clone());
    let outcome = o.run(b"x").unwrap();
    assert!(outcome.interesting, "{:?}", outcome.unmet);
    let quiet = "echo 'REPORT: heap-use-after-free'"; // on stdout: not the stream asked for
    let (mut o, _root) = oracle(TestCommand::Shell(quiet.into()), conditions);
    let outcome = o.run(b"x").unwrap();
    assert!(!outcome.interesting);
    assert!(
        outcome.unmet[0].starts_with("--stderr"),
        "{:?}",
        outcome.unmet
    );
}

#[test]
fn a_regex_and_an_exit_code_must_both_hold() {
    let _guard = signal::shared();
    let conditions = Conditions {
        expect: Expect::Exit(3),
        stdout: Some(parse_regex("--stdout", "ok").unwrap()),
        ..Conditions::default()
    };
    let (mut o, _root) = oracle(
        TestCommand::Shell("echo ok; exit \"$(cat {})\"".into()),
        conditions,
    );
    assert!(o.run(b"3").unwrap().interesting);
    let wrong = o.run(b"0").unwrap();
    assert!(!wrong.interesting);
    assert!(
        wrong.unmet[0].contains("--exit-code 3"),
        "{:?}",
        wrong.unmet
    );
}
