//! The interestingness test, as the user described it: what to run on a candidate (a `--test`
//! script, a `-c` shell command, or a program after `--`) and what its run must show
//! ([`Conditions`]). The oracle runs it; [`Check::identity`] names it for a persistent cache.
//!
//! Every form runs in the candidate's private directory, where the candidate has the input's
//! file name, and gets the candidate's absolute path:
//! - `--test SCRIPT`: as `$1`;
//! - `-c 'COMMAND'`: run as `sh -c COMMAND reduce-test PATH`, so `$1` is the path, and every `{}`
//!   in COMMAND is replaced by the path quoted for the shell;
//! - `-- PROGRAM ARGS...`: no shell; every `@@` in an argument is replaced by the path, and
//!   without any `@@` the path is appended as the last argument.

pub mod conditions;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

pub use crate::exec::script::ensure_program_runnable;
pub use conditions::{Conditions, Expect, Streams};

use crate::exit::{FailureKind, fail};

/// `$0` of a `-c` command.
const SHELL_NAME: &str = "reduce-test";

/// What runs on each candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestCommand {
    /// `--test SCRIPT`.
    Script(PathBuf),
    /// `-c 'COMMAND'`.
    Shell(String),
    /// `-- PROGRAM ARGS...` (the program first).
    Argv(Vec<OsString>),
}

/// A test: the command and the conditions its run must meet.
#[derive(Clone, Debug)]
pub struct Check {
    pub command: TestCommand,
    pub conditions: Conditions,
}

impl Check {
    /// Checks, before the first run, that the test can be started: the script or program
    /// exists and is executable, the shell command is not empty. Makes the script's or the
    /// program's path absolute (relative paths are read from `cwd`; a bare program name is
    /// looked up on `PATH`). A failure is a bad test (exit 5) whose message names the flag.
    pub fn ensure_runnable(mut self, cwd: &Path) -> anyhow::Result<Check> {
        let bad = |e: anyhow::Error| fail(FailureKind::BadScript, format!("{e:#}"));
        match &mut self.command {
            TestCommand::Script(path) => {
                *path = crate::exec::script::ensure_script_runnable(path, cwd).map_err(bad)?;
            }
            TestCommand::Shell(command) if command.trim().is_empty() => {
                return Err(fail(
                    FailureKind::BadScript,
                    "-c was given an empty command; give a shell command such as -c 'grep -q foo {}'",
                ));
            }
            TestCommand::Shell(_) => {}
            TestCommand::Argv(words) => {
                let Some(program) = words.first_mut() else {
                    return Err(fail(
                        FailureKind::BadScript,
                        "nothing after --; give the program to run, e.g. -- ./target @@",
                    ));
                };
                *program = ensure_program_runnable(Path::new(program), cwd)
                    .map_err(bad)?
                    .into_os_string();
            }
        }
        Ok(self)
    }

    /// The command line that tests the candidate at `candidate` (an absolute path).
    pub fn argv(&self, candidate: &Path) -> Vec<OsString> {
        match &self.command {
            TestCommand::Script(script) => {
                vec![script.clone().into_os_string(), candidate.into()]
            }
            TestCommand::Shell(command) => {
                let quoted = shell_quote_bytes(candidate.as_os_str().as_bytes());
                vec![
                    "sh".into(),
                    "-c".into(),
                    replace_os(OsStr::new(command), b"{}", &quoted),
                    SHELL_NAME.into(),
                    candidate.into(),
                ]
            }
            TestCommand::Argv(words) => {
                let mut argv: Vec<OsString> = words
                    .iter()
                    .map(|w| replace_os(w, b"@@", candidate.as_os_str().as_bytes()))
                    .collect();
                if !words.iter().any(|w| contains(w, b"@@")) {
                    argv.push(candidate.into());
                }
                argv
            }
        }
    }

    /// Whether the test runs through a shell, which reports a child's death by signal N as
    /// exit status 128+N (see [`conditions`]).
    pub fn via_shell(&self) -> bool {
        !matches!(self.command, TestCommand::Argv(_))
    }

    /// The script's or the program's path (`None` for a shell command).
    pub fn file(&self) -> Option<&Path> {
        match &self.command {
            TestCommand::Script(path) => Some(path),
            TestCommand::Argv(words) => words.first().map(Path::new),
            TestCommand::Shell(_) => None,
        }
    }

    /// The bytes that identify this test: the form, the script's path (or the command's words),
    /// the conditions (the failure `--same-failure` keeps included), and the path and a hash of the bytes of every file the test names that
    /// exists: the script, the program after `--`, and every word after `--` or in a `-c`
    /// command (split as the shell would) that is the absolute path of a regular file, except
    /// the `inputs` themselves (they change as the run goes). Two runs with the same identity
    /// run the same test, as far as `reduce` can tell (a program or compiler the test finds on
    /// its own may have changed).
    pub fn identity(&self, inputs: &[&Path]) -> Vec<u8> {
        let mut id = Vec::new();
        let mut field = |bytes: &[u8]| {
            id.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            id.extend_from_slice(bytes);
        };
        let named: Vec<OsString> = match &self.command {
            TestCommand::Script(path) => {
                field(b"script");
                field(path.as_os_str().as_bytes());
                vec![path.clone().into_os_string()]
            }
            TestCommand::Shell(command) => {
                field(b"shell");
                field(command.as_bytes());
                let words = shlex::split(command)
                    .unwrap_or_else(|| command.split_whitespace().map(String::from).collect());
                words.into_iter().map(OsString::from).collect()
            }
            TestCommand::Argv(words) => {
                field(b"argv");
                for w in words {
                    field(w.as_bytes());
                }
                words.clone()
            }
        };
        field(b"conditions");
        for flag in self.conditions.flags() {
            field(flag.as_bytes());
        }
        // the failure kept is part of the test: a candidate's verdict depends on it
        if let Some(same) = &self.conditions.same {
            field(b"signature");
            field(&serde_json::to_vec(same).unwrap_or_default());
        }
        let inputs: Vec<(u64, u64)> = inputs.iter().filter_map(|p| file_id(p)).collect();
        for word in named {
            let path = Path::new(&word);
            if !path.is_absolute() || file_id(path).is_some_and(|id| inputs.contains(&id)) {
                continue;
            }
            if let Some(digest) = file_digest(path) {
                field(b"file");
                field(word.as_bytes());
                field(&digest.to_le_bytes());
            }
        }
        id
    }

    /// The test in words, for messages: "the test script /t.sh", "-c 'gcc -c {}'".
    pub fn describe(&self) -> String {
        match &self.command {
            TestCommand::Script(path) => format!("the test script {}", path.display()),
            TestCommand::Shell(command) => format!("the test -c {}", shell_quote(command)),
            TestCommand::Argv(words) => format!("the test -- {}", quote_words(words)),
        }
    }

    /// A shell command that runs the test on the candidate `"$d"/NAME` from inside `"$d"`,
    /// for the "run it by hand" recipe (text to paste, whatever bytes the names hold: see
    /// [`shell_quote_os`]).
    pub fn recipe(&self, name: impl AsRef<OsStr>) -> String {
        let path = format!("\"$d\"/{}", shell_quote_os(name.as_ref()));
        match &self.command {
            TestCommand::Script(script) => {
                format!("{} {path}", shell_quote_os(script.as_os_str()))
            }
            TestCommand::Shell(command) => format!(
                "sh -c {} {SHELL_NAME} {path}",
                shell_quote(&command.replace("{}", "\"$1\""))
            ),
            TestCommand::Argv(words) => {
                let mut parts: Vec<String> = words
                    .iter()
                    .map(|w| {
                        let pieces: Vec<String> = split_os(w, b"@@")
                            .into_iter()
                            .map(shell_quote_nonempty)
                            .collect();
                        pieces.join(&path)
                    })
                    .collect();
                if !words.iter().any(|w| contains(w, b"@@")) {
                    parts.push(path);
                }
                parts.join(" ")
            }
        }
    }
}

/// The device and inode of an existing file.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The xxh3-128 hash of a regular file's bytes, read in blocks; `None` if `path` is not a
/// regular file or cannot be read.
fn file_digest(path: &Path) -> Option<u128> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut block = vec![0u8; 64 << 10];
    loop {
        match file.read(&mut block) {
            Ok(0) => return Some(hasher.digest128()),
            Ok(n) => hasher.update(&block[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

/// Quotes a word for a POSIX shell (a NUL byte, which no path holds, is dropped).
pub fn shell_quote(word: &str) -> String {
    let clean: String = word.chars().filter(|&c| c != '\0').collect();
    shlex::try_quote(&clean).map_or_else(|_| "''".to_string(), |q| q.into_owned())
}

/// Quotes a word of any bytes for a POSIX shell, as text that can be pasted into one: runs of
/// UTF-8 as by [`shell_quote`], and each run of bytes that are not UTF-8 as `"$(printf '\377')"`
/// (octal escapes), all one word. A UTF-8 word is quoted exactly as by [`shell_quote`].
pub fn shell_quote_os(word: &OsStr) -> String {
    let bytes = word.as_bytes();
    if let Ok(text) = std::str::from_utf8(bytes) {
        return shell_quote(text);
    }
    let mut quoted = String::new();
    for chunk in bytes.utf8_chunks() {
        if !chunk.valid().is_empty() {
            quoted.push_str(&shell_quote(chunk.valid()));
        }
        if !chunk.invalid().is_empty() {
            quoted.push_str("\"$(printf '");
            for byte in chunk.invalid() {
                quoted.push_str(&format!("\\{byte:03o}"));
            }
            quoted.push_str("')\"");
        }
    }
    quoted
}

/// Quotes a word of any bytes for a POSIX shell, as bytes for `sh -c`: a UTF-8 word as by
/// [`shell_quote`], any other inside single quotes byte for byte (a shell reads bytes).
fn shell_quote_bytes(word: &[u8]) -> Vec<u8> {
    if let Ok(text) = std::str::from_utf8(word) {
        return shell_quote(text).into_bytes();
    }
    let mut quoted = vec![b'\''];
    for &byte in word.iter().filter(|&&b| b != 0) {
        match byte {
            b'\'' => quoted.extend_from_slice(b"'\\''"),
            _ => quoted.push(byte),
        }
    }
    quoted.push(b'\'');
    quoted
}

/// Like [`shell_quote_os`], but an empty piece stays empty (pieces around `@@`).
fn shell_quote_nonempty(word: &[u8]) -> String {
    match word.is_empty() {
        true => String::new(),
        false => shell_quote_os(OsStr::from_bytes(word)),
    }
}

/// Words joined with spaces, each quoted for the shell.
pub fn quote_words(words: &[OsString]) -> String {
    words
        .iter()
        .map(|w| shell_quote_os(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The pieces of `word` between the occurrences of `needle`.
fn split_os<'a>(word: &'a OsStr, needle: &[u8]) -> Vec<&'a [u8]> {
    let bytes = word.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + needle.len() <= bytes.len() {
        if bytes[i..].starts_with(needle) {
            pieces.push(&bytes[start..i]);
            i += needle.len();
            start = i;
        } else {
            i += 1;
        }
    }
    pieces.push(&bytes[start..]);
    pieces
}

fn contains(word: &OsStr, needle: &[u8]) -> bool {
    word.as_bytes().windows(needle.len()).any(|w| w == needle)
}

/// `word` with every `needle` replaced by `with`.
fn replace_os(word: &OsStr, needle: &[u8], with: &[u8]) -> OsString {
    let bytes = word.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    OsString::from_vec(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(command: TestCommand) -> Check {
        Check {
            command,
            conditions: Conditions::default(),
        }
    }

    fn strings(argv: Vec<OsString>) -> Vec<String> {
        argv.into_iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_shell_command_gets_the_quoted_path_for_braces_and_as_dollar_1() {
        let c = check(TestCommand::Shell("grep -q foo {} && wc -c {}".into()));
        let argv = strings(c.argv(Path::new("/tmp/a b/x.c")));
        assert_eq!(
            argv,
            [
                "sh",
                "-c",
                "grep -q foo '/tmp/a b/x.c' && wc -c '/tmp/a b/x.c'",
                "reduce-test",
                "/tmp/a b/x.c"
            ]
        );
        assert!(c.via_shell());
    }

    #[test]
    fn a_program_gets_the_path_for_every_at_at_or_appended() {
        let words = |ws: &[&str]| TestCommand::Argv(ws.iter().map(OsString::from).collect());
        let c = check(words(&["/bin/prog", "-f", "--in=@@", "@@"]));
        assert_eq!(
            strings(c.argv(Path::new("/t/x"))),
            ["/bin/prog", "-f", "--in=/t/x", "/t/x"]
        );
        let c = check(words(&["/bin/prog", "-f"]));
        assert_eq!(
            strings(c.argv(Path::new("/t/x"))),
            ["/bin/prog", "-f", "/t/x"]
        );
        assert!(!c.via_shell());
    }

    #[test]
    fn words_that_are_not_utf8_are_quoted_byte_for_byte() {
        let name = OsStr::from_bytes(b"in\xff'.c");
        assert_eq!(shell_quote_bytes(name.as_bytes()), b"'in\xff'\\''.c'");
        assert_eq!(shell_quote_os(name), "in\"$(printf '\\377')\"\"'.c\"");
        assert_eq!(shell_quote_os(OsStr::new("a b")), "'a b'");
        let c = check(TestCommand::Shell("cat {}".into()));
        let argv = c.argv(&Path::new("/t").join(name));
        assert_eq!(argv[2].as_bytes(), b"cat '/t/in\xff'\\''.c'");
        let words = vec![
            OsString::from("/p"),
            OsString::from_vec(b"-i\xfe@@x".to_vec()),
        ];
        let c = check(TestCommand::Argv(words));
        assert_eq!(c.recipe("n"), "/p -i\"$(printf '\\376')\"\"$d\"/nx");
        assert_eq!(split_os(OsStr::new("@@a@@"), b"@@"), [&b""[..], b"a", b""]);
    }

    #[test]
    fn the_identity_changes_with_the_command_and_the_conditions() {
        let a = check(TestCommand::Shell("grep -q a {}".into()));
        let b = check(TestCommand::Shell("grep -q b {}".into()));
        assert_ne!(a.identity(&[]), b.identity(&[]));
        let mut a2 = a.clone();
        a2.conditions.expect = Expect::Signal(None);
        assert_ne!(a.identity(&[]), a2.identity(&[]));
        assert_eq!(a.identity(&[]), a.clone().identity(&[]));
        // the form is part of it: the same words as a program are another test
        let argv = check(TestCommand::Argv(vec!["grep -q a {}".into()]));
        assert_ne!(a.identity(&[]), argv.identity(&[]));
    }

    #[test]
    fn a_scripts_identity_covers_its_contents() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sh");
        std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
        let c = check(TestCommand::Script(path.clone()));
        let before = c.identity(&[]);
        std::fs::write(&path, "#!/bin/sh\nexit 1\n").unwrap();
        assert_ne!(before, c.identity(&[]));
    }

    #[test]
    fn the_identity_covers_the_files_a_command_or_a_program_names_but_not_the_input() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("t.sh");
        let data = dir.path().join("data file");
        let input = dir.path().join("in.c");
        for p in [&script, &data, &input] {
            std::fs::write(p, "1").unwrap();
        }
        let (s, d, i) = (
            script.to_str().unwrap(),
            data.to_str().unwrap(),
            input.to_str().unwrap(),
        );
        let shell = check(TestCommand::Shell(format!(
            "{s} {{}} && grep -q x {} {i}",
            shell_quote(d)
        )));
        let argv = check(TestCommand::Argv(vec![
            s.into(),
            "@@".into(),
            d.into(),
            i.into(),
        ]));
        for c in [shell, argv] {
            let before = c.identity(&[&input]);
            std::fs::write(&input, "2").unwrap();
            assert_eq!(before, c.identity(&[&input]), "the input is left out");
            for p in [&script, &data] {
                std::fs::write(p, "2").unwrap();
                assert_ne!(before, c.identity(&[&input]), "{}", p.display());
                std::fs::write(p, "1").unwrap();
                assert_eq!(before, c.identity(&[&input]));
            }
        }
    }

    #[test]
    fn an_empty_command_or_nothing_after_the_dashes_is_a_bad_test() {
        let cwd = Path::new("/");
        for command in [TestCommand::Shell("  ".into()), TestCommand::Argv(vec![])] {
            let err = check(command).ensure_runnable(cwd).unwrap_err();
            let failure = err.downcast_ref::<crate::exit::Failure>().unwrap();
            assert_eq!(failure.kind, FailureKind::BadScript);
        }
    }
}

#[cfg(test)]
mod oracle_tests;
