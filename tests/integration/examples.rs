//! Every command example in README.md and in `reduce --help` runs here, for real, and does what
//! the text says. See issue 37, item 17: the pipeline example had `-` after `--`, where it went to
//! the program, and failed with "missing INPUT".
//!
//! An example is a group of lines (between blank lines) of a ```sh block of README.md, or of the
//! "Examples:" text of `reduce --help` (`EXAMPLES` in src/app/cli.rs): its leading `#` lines say
//! what it does, the rest is run with `sh -e -c` in a private directory holding the files the
//! examples name ([`prepare`]), with the built `reduce` first on PATH (`cargo run --release --`
//! stands for it too). It must exit with the code its text states as `(exit N)`, else 0, and pass
//! the one check of [`CHECKS`] whose key its command lines contain: what README or the help says
//! it gives. A block tagged ```sh norun is not run; each is listed in [`NOT_RUN`] with why.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::util::{TestEnv, reduce_bin, wait_at_most};

/// One example: where it is, what it says, what it runs.
struct Example {
    /// `README.md:LINE` or `reduce --help`.
    origin: String,
    /// Its leading comment lines.
    comment: String,
    /// The lines to run.
    script: String,
    /// In a ```sh norun block.
    norun: bool,
}

impl Example {
    /// The exit code its text states as `(exit N)`; 0 when it states none.
    fn expected_code(&self) -> i32 {
        let text = format!("{}\n{}", self.comment, self.script);
        let Some(at) = text.find("(exit ") else {
            return 0;
        };
        let digits: String = text[at + 6..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().expect("(exit N) names a number")
    }
}

/// Blocks not run, each with why: a substring of the block and the reason.
const NOT_RUN: &[(&str, &str)] = &[
    ("cargo test", "it is the command that runs this very test"),
    (
        "cargo install --path .",
        "a release build of minutes, installed into ~/.cargo/bin, outside the test's directory",
    ),
    (
        "--launcher 'srun -Q -J {name} --chdir={dir} --'",
        "it needs a Slurm cluster and a shared /nfs; cluster.rs runs this very template through \
         srun on a one-node cluster when REDUCE_SLURM_TEST is set (.ci/run)",
    ),
];

/// What an example did.
struct Outcome {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

type Check = fn(&TestEnv, &Outcome) -> Result<(), String>;

/// The check of each example, by a key its command lines contain; the first key that matches
/// decides, so the most specific come first.
const CHECKS: &[(&str, Check)] = &[
    (
        "-o - fixtures/nested-if/input.c",
        prints_the_nine_token_program,
    ),
    ("cat > crash.sh", reduces_input_c_in_place_to_nine_tokens),
    ("resuming:", resumes_and_ends_at_nine_tokens),
    ("cmp a.c b.c", gives_the_same_bytes_at_every_width),
    ("reduce ./crash.sh input.c", suggests_the_test_flag),
    ("crash(1)", says_the_original_is_not_interesting),
    ("-o small.c -j1 input.c", writes_small_c_and_keeps_input_c),
    (
        "--max-attempts 5000",
        prints_the_result_and_writes_the_record,
    ),
    (
        "grep -q \"crash();\" {}' -o small.c",
        writes_a_small_c_that_compiles,
    ),
    ("--stderr 'implicit declaration", keeps_the_warning_in_place),
    (
        "crash.bin --signal --",
        reduces_crash_bin_in_place_to_the_bug,
    ),
    ("| reduce --algo bytes", pipes_the_bug_to_min_bin),
    ("--lang c", pipes_a_small_c_that_compiles),
    ("--exit-code 1", keeps_the_conflicting_types_error),
    ("main.c point.h", reduces_both_files_in_place),
    ("t.sh proj/", reduces_the_directory_in_place),
    ("-o small/ proj/", writes_the_directory_to_small),
    ("--clear-cache", clears_the_cache),
    (
        "--show-signature x.c",
        shows_and_keeps_the_conflicting_types_error,
    ),
    (
        "--save-slipped slips/",
        reports_the_error_with_the_smallest_command,
    ),
    (
        "--report bug/ -o small.c x.c",
        reports_the_error_with_the_smallest_command,
    ),
    (
        "--preprocess -o small.c main.c",
        preprocesses_main_c_into_one_small_file,
    ),
    ("reduce --test ./crash.sh input.c", reduces_input_c_in_place),
];

// ---------------------------------------------------------------------------------------------
// The files the examples name.

/// The interestingness test of README's first reduction (its heredoc writes this very text).
const CRASH_SH: &str = r#"#!/bin/sh
# interesting: the file still compiles, and gcc still warns that crash() is not declared
out=$(gcc -c -o /dev/null "${1:-input.c}" 2>&1) && echo "$out" | grep -q 'implicit declaration of function .crash.'
"#;

/// The test of the many-file examples: it compiles main.c in its working directory.
const T_SH: &str = r#"#!/bin/sh
# interesting: main.c still compiles with its header, and gcc still warns about crash()
out=$(gcc -c -o /dev/null main.c 2>&1) && echo "$out" | grep -q 'implicit declaration of function .crash.'
"#;

const MAIN_C: &str = r#"#include <stdio.h>
#include "point.h"

int norm(struct point p) { return p.x * p.x + p.y * p.y; }

int main(void) {
    struct point p = { -1, 2 };
    CHECK(&p);
    printf("%d\n", norm(p));
    return 0;
}
"#;

const POINT_H: &str = r#"/* Points, and a check that calls crash() on a bad one. */
struct point { int x, y; };
#define CHECK(p) do { if ((p)->x < 0) crash(); } while (0)
int norm(struct point p);
"#;

const NOTES_TXT: &str = "Build: gcc -c main.c\n";

/// A prototype that disagrees with the definition: gcc fails with "conflicting types".
const X_C: &str = r#"/* A prototype that disagrees with the definition. */
#include <string.h>

int count(const char *s);

static int twice(int n) { return 2 * n; }

int total(const char **v, int n) {
    int t = 0;
    for (int i = 0; i < n; i++)
        t += twice(count(v[i]));
    return t;
}

long count(const char *s) { return (long)strlen(s); }
"#;

/// A parser with a bug AddressSanitizer reports: an input holding "BUG" makes it read past the
/// end of its copy of the input (heap-buffer-overflow; SIGABRT with `abort_on_error=1`).
const FUZZ_PARSE_C: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    static char buf[1 << 16];
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;
    if (!f) return 2;
    size_t n = fread(buf, 1, sizeof buf, f);
    char *data = malloc(n + 1);
    memcpy(data, buf, n);
    int sum = 0;
    for (size_t i = 0; i + 3 <= n; i++)
        if (memcmp(data + i, "BUG", 3) == 0)
            sum += data[n + 1];
    free(data);
    return sum & 0;
}
"#;

/// What the nested-if example reduces to.
const NINE_TOKENS: &str = "main() { crash(); }\n";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/nested-if")
        .join(name)
}

fn original_input_c() -> Vec<u8> {
    fs::read(fixture("input.c")).unwrap()
}

/// 3,000 bytes of noise with "BUG" at 1,700, and nowhere else.
fn crash_bin() -> Vec<u8> {
    let mut state: u32 = 12345;
    let mut bytes: Vec<u8> = (0..3000)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (state >> 16) as u8
        })
        .collect();
    for b in &mut bytes {
        if *b == b'B' {
            *b = b'b';
        }
    }
    bytes.splice(1700..1700, *b"BUG");
    bytes
}

/// Writes every file the examples name into `env`; builds `fuzz_parse` when `script` runs it.
fn prepare(env: &TestEnv, script: &str) {
    env.write("fixtures/nested-if/input.c", original_input_c());
    env.script(
        "fixtures/nested-if/interesting.sh",
        fs::read_to_string(fixture("interesting.sh"))
            .unwrap()
            .trim_start_matches("#!/bin/sh\n"),
    );
    env.write("input.c", original_input_c());
    env.script("crash.sh", CRASH_SH.trim_start_matches("#!/bin/sh\n"));
    env.script("t.sh", T_SH.trim_start_matches("#!/bin/sh\n"));
    for dir in ["", "proj/"] {
        env.write(format!("{dir}main.c"), MAIN_C);
        env.write(format!("{dir}point.h"), POINT_H);
    }
    env.write("proj/notes.txt", NOTES_TXT);
    env.write("x.c", X_C);
    env.write("crash.bin", crash_bin());
    if script.contains("fuzz_parse") {
        env.write("fuzz_parse.c", FUZZ_PARSE_C);
        let built = Command::new("gcc")
            .args([
                "-g",
                "-fsanitize=address",
                "-o",
                "fuzz_parse",
                "fuzz_parse.c",
            ])
            .current_dir(env.path())
            .status()
            .expect("gcc runs");
        assert!(built.success(), "gcc -fsanitize=address builds fuzz_parse");
    }
}

// ---------------------------------------------------------------------------------------------
// Finding the examples.

/// The examples of README.md's ```sh blocks.
fn readme_examples() -> Vec<Example> {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md is readable");
    let mut out = Vec::new();
    let mut block: Option<(bool, Vec<(usize, String)>)> = None;
    for (i, line) in readme.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut block, fence) {
            (None, Some(info)) => {
                let words: Vec<&str> = info.split_whitespace().collect();
                if words.first() == Some(&"sh") {
                    block = Some((words.contains(&"norun"), Vec::new()));
                } else {
                    // another language: skip to its end
                    block = Some((true, vec![(usize::MAX, String::new())]));
                }
            }
            (Some((norun, lines)), Some(_)) => {
                let skipped = lines.first().is_some_and(|(n, _)| *n == usize::MAX);
                if !skipped {
                    out.extend(examples_in(lines, *norun, |n| format!("README.md:{n}")));
                }
                block = None;
            }
            (Some((_, lines)), None) => lines.push((i + 1, line.to_string())),
            (None, None) => {}
        }
    }
    assert!(block.is_none(), "README.md ends inside a ``` block");
    out
}

/// The examples of `reduce --help`.
fn help_examples() -> Vec<Example> {
    let help = Command::new(reduce_bin()).arg("--help").output().unwrap();
    assert!(help.status.success());
    let text = String::from_utf8(help.stdout).unwrap();
    let (_, rest) = text
        .split_once("\nExamples:\n")
        .expect("reduce --help has an Examples: section");
    let lines: Vec<(usize, String)> = rest
        .lines()
        .take_while(|l| l.is_empty() || l.starts_with("  "))
        .enumerate()
        .map(|(i, l)| (i, l.strip_prefix("  ").unwrap_or(l).to_string()))
        .collect();
    examples_in(&lines, false, |_| "reduce --help".to_string())
}

/// The groups of `lines` (separated by blank lines outside here-documents) as examples.
fn examples_in(
    lines: &[(usize, String)],
    norun: bool,
    origin: impl Fn(usize) -> String,
) -> Vec<Example> {
    let mut out = Vec::new();
    for group in groups(lines) {
        let first = group[0].0;
        let split = group
            .iter()
            .position(|(_, l)| !l.trim_start().starts_with('#'))
            .unwrap_or_else(|| {
                panic!(
                    "{}: a comment with no command after it (join it to its command)",
                    origin(first)
                )
            });
        let join = |part: &[(usize, String)]| {
            part.iter()
                .map(|(_, l)| l.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        out.push(Example {
            origin: origin(group[split].0),
            comment: join(&group[..split]),
            script: join(&group[split..]).replace("cargo run --release -- ", "reduce "),
            norun,
        });
    }
    out
}

fn groups(lines: &[(usize, String)]) -> Vec<Vec<(usize, String)>> {
    let mut groups = Vec::new();
    let mut current: Vec<(usize, String)> = Vec::new();
    let mut heredoc: Option<String> = None;
    for (n, line) in lines {
        if let Some(end) = &heredoc {
            if line.trim() == end {
                heredoc = None;
            }
        } else if line.trim().is_empty() {
            if !current.is_empty() {
                groups.push(std::mem::take(&mut current));
            }
            continue;
        } else {
            heredoc = heredoc_end(line);
        }
        current.push((*n, line.clone()));
    }
    assert!(heredoc.is_none(), "an example ends inside a here-document");
    if !current.is_empty() {
        groups.push(current);
    }
    groups
}

/// The word that ends a here-document `line` starts (`<<'EOF'`, `<<EOF`, `<<-"EOF"`).
fn heredoc_end(line: &str) -> Option<String> {
    let (_, rest) = line.split_once("<<")?;
    let word: String = rest
        .trim_start_matches('-')
        .trim_start()
        .trim_start_matches(['\'', '"'])
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!word.is_empty()).then_some(word)
}

fn check_of(example: &Example) -> Option<Check> {
    CHECKS
        .iter()
        .find(|(key, _)| example.script.contains(key))
        .map(|(_, check)| *check)
}

// ---------------------------------------------------------------------------------------------
// Running them.

fn run(example: &Example) -> Result<(), String> {
    let env = TestEnv::new();
    prepare(&env, &example.script);
    let logs = tempfile::tempdir().unwrap();
    let stdout = logs.path().join("stdout");
    let stderr = logs.path().join("stderr");
    let bin_dir = reduce_bin().parent().unwrap().to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin_dir];
    dirs.extend(std::env::split_paths(&path));
    let mut child = Command::new("sh")
        .arg("-e")
        .arg("-c")
        .arg(&example.script)
        .current_dir(env.path())
        .env("PATH", std::env::join_paths(dirs).unwrap())
        .env("TMPDIR", env.path())
        .env("XDG_CACHE_HOME", env.join(".cache"))
        .env_remove("ASAN_OPTIONS")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(fs::File::create(&stdout).unwrap())
        .stderr(fs::File::create(&stderr).unwrap())
        .spawn()
        .expect("sh runs");
    let status = wait_at_most(&mut child, Duration::from_secs(300));
    let outcome = Outcome {
        code: status.code(),
        stdout: fs::read(&stdout).unwrap(),
        stderr: fs::read_to_string(&stderr).unwrap_or_default(),
    };
    let describe = |why: String| {
        format!(
            "{}: {}\n--- example\n{}\n--- stdout\n{}\n--- stderr\n{}",
            example.origin,
            why,
            example.script,
            String::from_utf8_lossy(&outcome.stdout),
            outcome.stderr
        )
    };
    let expected = example.expected_code();
    if outcome.code != Some(expected) {
        return Err(describe(format!(
            "exit {:?}, but the text says {expected}",
            outcome.code
        )));
    }
    let check = check_of(example).ok_or_else(|| describe("no check names it".into()))?;
    check(&env, &outcome).map_err(describe)
}

/// Runs every example of `examples` that is not `norun`; fails with every failure at once.
fn run_all(source: &str, examples: &[Example], at_least: usize) {
    let runnable: Vec<&Example> = examples.iter().filter(|e| !e.norun).collect();
    assert!(
        runnable.len() >= at_least,
        "{source}: found {} examples to run, expected at least {at_least}: is the extractor broken?",
        runnable.len()
    );
    let failures: Vec<String> = runnable.iter().filter_map(|e| run(e).err()).collect();
    eprintln!(
        "{source}: ran {} examples, {} not run (```sh norun)",
        runnable.len(),
        examples.len() - runnable.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} examples of {source} failed:\n\n{}",
        failures.len(),
        runnable.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_readme_example_runs_and_does_what_it_says() {
    run_all("README.md", &readme_examples(), 15);
}

#[test]
fn every_help_example_runs_and_does_what_it_says() {
    run_all("reduce --help", &help_examples(), 6);
}

#[test]
fn every_example_has_a_check_and_every_check_an_example() {
    let readme = readme_examples();
    let help = help_examples();
    let all: Vec<&Example> = readme.iter().chain(&help).collect();
    for example in all.iter().filter(|e| !e.norun) {
        assert!(
            check_of(example).is_some(),
            "{}: no check of CHECKS names this example; add one:\n{}",
            example.origin,
            example.script
        );
    }
    for (key, _) in CHECKS {
        assert!(
            all.iter().any(|e| !e.norun && e.script.contains(key)),
            "the check {key:?} names no example of README.md or reduce --help"
        );
    }
    for example in all.iter().filter(|e| e.norun) {
        assert!(
            NOT_RUN.iter().any(|(key, _)| example.script.contains(key)),
            "{}: a ```sh norun block that NOT_RUN does not list with why:\n{}",
            example.origin,
            example.script
        );
    }
    for (key, _) in NOT_RUN {
        assert!(
            all.iter().any(|e| e.norun && e.script.contains(key)),
            "NOT_RUN lists {key:?}, which no ```sh norun block holds"
        );
    }
    // README's first reduction writes the very crash.sh the other examples run
    let text = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(
        text.contains(&format!("cat > crash.sh <<'EOF'\n{CRASH_SH}EOF\n")),
        "README's crash.sh differs from CRASH_SH here"
    );
}

// ---------------------------------------------------------------------------------------------
// The checks: what each example gives.

fn read(env: &TestEnv, name: &str) -> Result<Vec<u8>, String> {
    fs::read(env.join(name)).map_err(|e| format!("cannot read {name}: {e}"))
}

fn ensure(ok: bool, why: impl FnOnce() -> String) -> Result<(), String> {
    if ok { Ok(()) } else { Err(why()) }
}

fn same(what: &str, expected: &[u8], actual: &[u8]) -> Result<(), String> {
    ensure(expected == actual, || {
        format!(
            "{what}: expected {:?}, got {:?}",
            String::from_utf8_lossy(expected),
            String::from_utf8_lossy(actual)
        )
    })
}

/// `name` is smaller than the original `input.c` and crash.sh still finds it interesting.
fn interesting_c(env: &TestEnv, name: &str) -> Result<(), String> {
    let result = read(env, name)?;
    ensure(result.len() < original_input_c().len(), || {
        format!("{name} is not smaller than input.c was")
    })?;
    ensure(
        env.passes(&env.join("crash.sh"), "input.c", &result),
        || {
            format!(
                "crash.sh rejects {name}: {:?}",
                String::from_utf8_lossy(&result)
            )
        },
    )
}

fn unchanged_input_c(env: &TestEnv) -> Result<(), String> {
    same("input.c", &original_input_c(), &read(env, "input.c")?)?;
    ensure(!env.exists("input.c.orig"), || {
        "input.c.orig was written".into()
    })
}

fn in_place(env: &TestEnv, name: &str, original: &[u8]) -> Result<(), String> {
    same(
        &format!("{name}.orig"),
        original,
        &read(env, &format!("{name}.orig"))?,
    )
}

/// gcc's stderr on `name` (compiled in the test's directory), and whether it succeeded.
fn gcc(env: &TestEnv, name: &str) -> (bool, String) {
    let out = Command::new("gcc")
        .args(["-c", "-o", "/dev/null", name])
        .current_dir(env.path())
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn compiles_and_calls_crash(env: &TestEnv, name: &str) -> Result<(), String> {
    let text = read(env, name)?;
    ensure(text.len() < original_input_c().len(), || {
        format!("{name} is not smaller than input.c")
    })?;
    ensure(String::from_utf8_lossy(&text).contains("crash();"), || {
        format!("{name} lost crash();")
    })?;
    let (ok, stderr) = gcc(env, name);
    ensure(ok, || format!("{name} does not compile: {stderr}"))
}

fn prints_the_nine_token_program(env: &TestEnv, out: &Outcome) -> Result<(), String> {
    same("stdout", NINE_TOKENS.as_bytes(), &out.stdout)?;
    same(
        "the example",
        &original_input_c(),
        &read(env, "fixtures/nested-if/input.c")?,
    )
}

fn reduces_input_c_in_place_to_nine_tokens(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    same("input.c", NINE_TOKENS.as_bytes(), &read(env, "input.c")?)?;
    in_place(env, "input.c", &original_input_c())
}

fn resumes_and_ends_at_nine_tokens(env: &TestEnv, out: &Outcome) -> Result<(), String> {
    ensure(out.stderr.contains("reduce: resuming:"), || {
        "the second run did not resume".into()
    })?;
    reduces_input_c_in_place_to_nine_tokens(env, out)
}

fn gives_the_same_bytes_at_every_width(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    same("b.c (-j 1)", &read(env, "a.c")?, &read(env, "b.c")?)?;
    interesting_c(env, "a.c")?;
    same("input.c", &original_input_c(), &read(env, "input.c")?)
}

fn suggests_the_test_flag(env: &TestEnv, out: &Outcome) -> Result<(), String> {
    ensure(
        out.stderr
            .contains("write `reduce --test ./crash.sh input.c`"),
        || "the message does not suggest --test ./crash.sh".into(),
    )?;
    unchanged_input_c(env)
}

fn says_the_original_is_not_interesting(env: &TestEnv, out: &Outcome) -> Result<(), String> {
    ensure(
        out.stderr.contains("the original input is not interesting")
            && out.stderr.contains("Check it by hand:"),
        || "no message with a recipe".into(),
    )?;
    unchanged_input_c(env)
}

fn writes_small_c_and_keeps_input_c(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    interesting_c(env, "small.c")?;
    unchanged_input_c(env)
}

fn prints_the_result_and_writes_the_record(env: &TestEnv, out: &Outcome) -> Result<(), String> {
    ensure(out.stdout.is_empty() && out.stderr.is_empty(), || {
        "-q with the result redirected: nothing on stdout or stderr".into()
    })?;
    interesting_c(env, "small.c")?;
    let record: serde_json::Value = serde_json::from_slice(&read(env, "stats.json")?)
        .map_err(|e| format!("stats.json is not JSON: {e}"))?;
    ensure(record.is_object(), || "stats.json is not a record".into())?;
    unchanged_input_c(env)
}

fn writes_a_small_c_that_compiles(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    compiles_and_calls_crash(env, "small.c")?;
    unchanged_input_c(env)
}

fn keeps_the_warning_in_place(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    let (ok, stderr) = gcc(env, "input.c");
    ensure(
        ok && stderr.contains("implicit declaration of function 'crash'"),
        || format!("input.c no longer compiles with the warning: {stderr}"),
    )?;
    ensure(
        read(env, "input.c")?.len() < original_input_c().len(),
        || "input.c is not smaller".into(),
    )?;
    in_place(env, "input.c", &original_input_c())
}

fn reduces_crash_bin_in_place_to_the_bug(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    same("crash.bin", b"BUG", &read(env, "crash.bin")?)?;
    in_place(env, "crash.bin", &crash_bin())
}

fn pipes_the_bug_to_min_bin(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    same("min.bin", b"BUG", &read(env, "min.bin")?)?;
    same("crash.bin", &crash_bin(), &read(env, "crash.bin")?)?;
    let stray = env.entries_starting_with(&env.path(), ".crash");
    ensure(stray.is_empty() && !env.exists("crash.bin.orig"), || {
        format!("a pipeline wrote beside its input: {stray:?}")
    })
}

fn pipes_a_small_c_that_compiles(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    compiles_and_calls_crash(env, "small.c")?;
    unchanged_input_c(env)
}

fn keeps_the_conflicting_types_error(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    let (ok, stderr) = gcc(env, "x.c");
    ensure(!ok && stderr.contains("error: conflicting types"), || {
        format!("gcc no longer fails on x.c with conflicting types: {stderr}")
    })?;
    ensure(read(env, "x.c")?.len() < X_C.len(), || {
        "x.c is not smaller".into()
    })?;
    in_place(env, "x.c", X_C.as_bytes())
}

/// `small.c` is smaller than x.c and gcc still fails on it with "conflicting types"; x.c is as
/// it was.
fn small_c_keeps_the_conflicting_types_error(env: &TestEnv) -> Result<(), String> {
    let (ok, stderr) = gcc(env, "small.c");
    ensure(!ok && stderr.contains("error: conflicting types"), || {
        format!("gcc no longer fails on small.c with conflicting types: {stderr}")
    })?;
    ensure(read(env, "small.c")?.len() < X_C.len(), || {
        "small.c is not smaller than x.c".into()
    })?;
    same("x.c", X_C.as_bytes(), &read(env, "x.c")?)
}

fn shows_and_keeps_the_conflicting_types_error(env: &TestEnv, out: &Outcome) -> Result<(), String> {
    let shown = String::from_utf8_lossy(&out.stdout);
    ensure(
        shown.lines().count() == 1 && shown.contains("conflicting types"),
        || format!("--show-signature printed {shown:?}"),
    )?;
    ensure(
        out.stderr
            .contains("reduce: keeping: exited 1; diagnostic: error: conflicting types"),
        || "no `reduce: keeping:` line".into(),
    )?;
    small_c_keeps_the_conflicting_types_error(env)
}

fn reports_the_error_with_the_smallest_command(env: &TestEnv, out: &Outcome) -> Result<(), String> {
    small_c_keeps_the_conflicting_types_error(env)?;
    let command = out
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("reduce: smallest failing command: "))
        .ok_or("no `smallest failing command` line")?;
    ensure(
        command.starts_with("gcc ") && !command.contains("-Wall") && !command.contains("-O2"),
        || format!("the command kept flags the error does not need: {command}"),
    )?;
    let repro = Command::new("sh")
        .arg(env.join("bug/repro.sh"))
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&repro.stderr);
    ensure(
        repro.status.code() == Some(1) && stderr.contains("conflicting types"),
        || format!("bug/repro.sh: {:?}, {stderr}", repro.status.code()),
    )?;
    for file in [
        "bug/x.c",
        "bug/README.md",
        "bug/signature.txt",
        "bug/command.txt",
    ] {
        ensure(env.exists(file), || format!("no {file}"))?;
    }
    ensure(
        !out.stderr.contains("--save-slipped") || env.exists("slips/signatures.json"),
        || "no slips/signatures.json".into(),
    )
}

fn preprocesses_main_c_into_one_small_file(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    let text = String::from_utf8_lossy(&read(env, "small.c")?).into_owned();
    ensure(
        !text.contains("#include") && text.len() < MAIN_C.len(),
        || format!("small.c is not a small self-contained file: {text:?}"),
    )?;
    let (ok, stderr) = gcc(env, "small.c");
    ensure(
        ok && stderr.contains("implicit declaration of function 'crash'"),
        || format!("small.c lost the warning: {stderr}"),
    )?;
    same("main.c", MAIN_C.as_bytes(), &read(env, "main.c")?)
}

/// t.sh accepts the files `names` of `dir` (relative to the test's directory) as a set.
fn t_sh_accepts(env: &TestEnv, dir: &str, names: &[&str]) -> Result<(), String> {
    let scratch = tempfile::tempdir().unwrap();
    for name in names {
        fs::copy(env.join(dir).join(name), scratch.path().join(name)).unwrap();
    }
    let ok = Command::new(env.join("t.sh"))
        .current_dir(scratch.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    ensure(ok, || format!("t.sh rejects {dir}{names:?}"))
}

fn total_size(env: &TestEnv, dir: &str, names: &[&str]) -> usize {
    names
        .iter()
        .map(|n| fs::metadata(env.join(dir).join(n)).map_or(0, |m| m.len() as usize))
        .sum()
}

fn reduces_both_files_in_place(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    let set = ["main.c", "point.h"];
    t_sh_accepts(env, ".", &set)?;
    ensure(
        total_size(env, ".", &set) < MAIN_C.len() + POINT_H.len(),
        || "main.c and point.h are not smaller".into(),
    )?;
    in_place(env, "main.c", MAIN_C.as_bytes())?;
    in_place(env, "point.h", POINT_H.as_bytes())
}

fn reduces_the_directory_in_place(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    let set = ["main.c", "point.h", "notes.txt"];
    t_sh_accepts(env, "proj", &set)?;
    ensure(
        total_size(env, "proj", &set) < MAIN_C.len() + POINT_H.len(),
        || "proj/ is not smaller".into(),
    )?;
    same(
        "proj.orig/main.c",
        MAIN_C.as_bytes(),
        &read(env, "proj.orig/main.c")?,
    )?;
    same(
        "proj.orig/notes.txt",
        NOTES_TXT.as_bytes(),
        &read(env, "proj.orig/notes.txt")?,
    )
}

fn writes_the_directory_to_small(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    t_sh_accepts(env, "small", &["main.c", "point.h"])?;
    same("proj/main.c", MAIN_C.as_bytes(), &read(env, "proj/main.c")?)?;
    same(
        "proj/point.h",
        POINT_H.as_bytes(),
        &read(env, "proj/point.h")?,
    )?;
    ensure(!env.exists("proj.orig"), || "proj.orig was written".into())
}

fn clears_the_cache(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    ensure(!env.exists(".cache/reduce"), || {
        "the cache is still there".into()
    })
}

fn reduces_input_c_in_place(env: &TestEnv, _: &Outcome) -> Result<(), String> {
    interesting_c(env, "input.c")?;
    in_place(env, "input.c", &original_input_c())
}
