//! No script needed (issue 40): `--same-failure`, `--show-signature`, `--save-slipped`,
//! `--reduce-args`, `--preprocess` and `--report`, run with the real tools: g++ and clang++
//! crashes from `fixtures/signatures/src`, an AddressSanitizer binary built here with two bugs,
//! Python, Node and rustc. No output is made up: every failure is the tool's own.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::{Run, TestEnv, assert_bytes};

/// A source of the signature fixtures (`fixtures/signatures/src/REL`).
fn source(rel: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/signatures/src")
        .join(rel);
    fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The `--stats-json` record at `path`.
fn stats(env: &TestEnv, path: &str) -> serde_json::Value {
    serde_json::from_slice(&env.read(path)).unwrap()
}

/// Runs `argv` on `file` in `dir`: (exit code, stderr).
fn run_tool(dir: &Path, argv: &[&str], file: &Path) -> (Option<i32>, String) {
    let out = Command::new(argv[0])
        .args(&argv[1..])
        .arg(file)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", argv[0]));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The line `reduce: keeping: ...` of a run.
#[track_caller]
fn keeping(run: &Run) -> String {
    run.stderr
        .lines()
        .find_map(|l| l.strip_prefix("reduce: keeping: "))
        .unwrap_or_else(|| panic!("no `reduce: keeping:` line\n{}", run.stderr))
        .to_string()
}

/// The AddressSanitizer target: five `x` and more in the input overflow a heap buffer (in
/// `fill_record`), one to four read freed memory (in `read_history`). Dropping marks slips
/// from the first bug to the second.
const TARGET_C: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int marks(const char *text) {
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == 'x';
    return n;
}

static void fill_record(int n) {
    char *record = malloc(4);
    memset(record, 'a', (size_t)n); /* heap-buffer-overflow when n > 4 */
    printf("%c\n", record[0]);
    free(record);
}

static void read_history(int n) {
    int *history = malloc(4 * sizeof *history);
    history[0] = n;
    free(history);
    printf("%d\n", history[n % 4]); /* heap-use-after-free */
}

int main(int argc, char **argv) {
    static char text[1 << 16];
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    if (!f)
        return 2;
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    int n = marks(text);
    if (n >= 5)
        fill_record(n);
    else if (n >= 1)
        read_history(n);
    return 0;
}
"#;

/// Builds the target with `gcc -fsanitize=address -g` in `env`; its path.
fn build_target(env: &TestEnv) -> PathBuf {
    let source = env.write("target.c", TARGET_C);
    let target = env.join("target");
    let status = Command::new("gcc")
        .args(["-fsanitize=address", "-g", "-o"])
        .arg(&target)
        .arg(&source)
        .status()
        .expect("cannot run gcc");
    assert!(status.success(), "gcc -fsanitize=address failed");
    target
}

fn count_marks(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'x').count()
}

#[test]
fn asan_the_same_failure_keeps_the_overflow_that_exit_1_loses_to_the_use_after_free() {
    let env = TestEnv::new();
    let target = build_target(&env);
    let target = target.to_str().unwrap();
    // six marks: the overflow; a candidate with four or fewer reads freed memory instead
    let input = "x1\nnote\nx2\nx3\nnote\nx4\nx5\nx6\n";
    env.write("in.txt", input);
    // a looser test (ASan's exit status 1) slips to the other bug
    let loose = env.run([
        "-q",
        "--algo",
        "ddmin",
        "--exit-code",
        "1",
        "-o",
        "loose.txt",
        "in.txt",
        "--",
        target,
        "@@",
    ]);
    loose.expect_code(0);
    let slipped = env.read("loose.txt");
    assert!(
        (1..5).contains(&count_marks(&slipped)),
        "the loose test kept the overflow after all: {}",
        String::from_utf8_lossy(&slipped)
    );
    let (_, stderr) = run_tool(&env.path(), &[target], &env.join("loose.txt"));
    assert!(stderr.contains("heap-use-after-free"), "{stderr}");
    // --same-failure keeps the original's bug, saves the other one, and writes a report
    let run = env.run([
        "--algo",
        "ddmin",
        "--same-failure",
        "--timeout",
        "60",
        "--save-slipped",
        "slips",
        "--report",
        "report",
        "--stats-json",
        "stats.json",
        "-o",
        "out.txt",
        "in.txt",
        "--",
        target,
        "@@",
    ]);
    run.expect_code(0);
    let kept = keeping(&run);
    assert_eq!(
        kept,
        "exited 1; sanitizer: asan heap-buffer-overflow; frame fill_record; frame main"
    );
    let out = env.read("out.txt");
    assert_eq!(count_marks(&out), 5, "{}", String::from_utf8_lossy(&out));
    let (code, stderr) = run_tool(&env.path(), &[target], &env.join("out.txt"));
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("AddressSanitizer: heap-buffer-overflow") && stderr.contains("fill_record"),
        "{stderr}"
    );
    // the other bug, saved
    let index: serde_json::Value =
        serde_json::from_slice(&env.read("slips/signatures.json")).unwrap();
    let entries = index.as_array().unwrap();
    assert_eq!(entries.len(), 1, "{index:#}");
    let file = entries[0]["file"].as_str().unwrap();
    assert!(
        file.starts_with("asan-heap-use-after-free-") && file.ends_with(".txt"),
        "{file}"
    );
    assert_eq!(
        entries[0]["describe"],
        "exited 1; sanitizer: asan heap-use-after-free; frame read_history; frame main"
    );
    let saved = env.join("slips").join(file);
    assert_eq!(
        entries[0]["size"].as_u64(),
        Some(fs::metadata(&saved).unwrap().len())
    );
    let (_, stderr) = run_tool(&env.path(), &[target], &saved);
    assert!(stderr.contains("heap-use-after-free"), "{stderr}");
    run.expect_stderr_contains(&["reduce: 1 other failure in slips: asan-heap-use-after-free-"]);
    let record = stats(&env, "stats.json");
    assert_eq!(record["kept"], kept.as_str());
    assert_eq!(record["slipped"]["signatures"][0]["file"], file);
    // the report: the reduced file, a repro.sh that exits as the test saw the run
    assert_bytes("the report's input", &out, &env.read("report/in.txt"));
    let repro = Command::new("sh")
        .arg(env.join("report/repro.sh"))
        .current_dir("/")
        .output()
        .unwrap();
    assert_eq!(repro.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&repro.stderr);
    assert!(stderr.contains("heap-buffer-overflow"), "{stderr}");
    let readme = String::from_utf8_lossy(&env.read("report/README.md")).into_owned();
    for needle in [
        env!("CARGO_PKG_VERSION"),
        "asan heap-buffer-overflow",
        &format!("| bytes | {} | {} |", input.len(), out.len()),
        "sh repro.sh",
        "test runs",
    ] {
        assert!(
            readme.contains(needle),
            "{needle:?} not in README.md:\n{readme}"
        );
    }
    let signature = String::from_utf8_lossy(&env.read("report/signature.txt")).into_owned();
    assert!(signature.starts_with(&kept), "{signature}");
    assert!(signature.contains("hash: "), "{signature}");
    assert!(env.exists("report/command.txt"));
}

/// The calculator of the fixtures and an input whose last line divides by zero; without the
/// first line, a name is missing first (KeyError).
fn python_case(env: &TestEnv) -> String {
    env.write("calc.py", source("runtime/calc.py"));
    env.write(
        "prog.txt",
        "let z = 0 + 0\nlet a = 1 + 2\nlet b = a + 4\nprint a + 1\nprint b / z\n",
    );
    env.join("calc.py").to_str().unwrap().to_string()
}

#[test]
fn python_the_result_is_the_same_at_every_j_and_the_key_error_is_saved_at_each() {
    let env = TestEnv::new();
    let calc = python_case(&env);
    let mut results = Vec::new();
    for jobs in ["1", "3"] {
        let out = format!("out-{jobs}.txt");
        let slips = format!("slips-{jobs}");
        // each run tests every candidate itself (the second would know the first's verdicts
        // from the persistent cache, and run none of them)
        let run = env.run([
            "--same-failure",
            "--no-persistent-cache",
            "--timeout",
            "60",
            "-j",
            jobs,
            "--save-slipped",
            &slips,
            "-o",
            &out,
            "prog.txt",
            "--",
            "python3",
            &calc,
            "@@",
        ]);
        run.expect_code(0);
        assert_eq!(
            keeping(&run),
            "exited 1; Python exception: ZeroDivisionError: integer division or modulo by zero; frame evaluate"
        );
        let index =
            String::from_utf8_lossy(&env.read(format!("{slips}/signatures.json"))).into_owned();
        assert!(
            index.contains("\"short_name\": \"python-keyerror\""),
            "-j{jobs}: {index}"
        );
        let (code, stderr) = run_tool(&env.path(), &["python3", &calc], &env.join(&out));
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains("ZeroDivisionError"), "{stderr}");
        results.push(env.read(&out));
    }
    assert_bytes(
        "the -j3 result (the -j1 one expected)",
        &results[0],
        &results[1],
    );
}

#[test]
fn python_the_failure_kept_is_part_of_the_persistent_caches_test() {
    // two originals of the same name under the same command, each its own bug: what the first
    // run rejected (a KeyError) is the second's failure, so the second must not reuse it
    let env = TestEnv::new();
    let calc = python_case(&env);
    let args = |out: &str| {
        vec![
            "-q".to_string(),
            "--algo".into(),
            "ddmin".into(),
            "--same-failure".into(),
            "--stats-json".into(),
            format!("{out}.json"),
            "-o".into(),
            out.into(),
            "prog.txt".into(),
            "--".into(),
            "python3".into(),
            calc.clone(),
            "@@".into(),
        ]
    };
    // the first: a division by zero; on its way `print a / 0` alone (a KeyError) is rejected
    env.write("prog.txt", "let a = 1 + 2\nprint a / 0\nprint a + 1\n");
    env.run(args("first.txt")).expect_code(0);
    assert_bytes(
        "the first result",
        b"let a = 1 + 2\nprint a / 0\n",
        &env.read("first.txt"),
    );
    // the second: that KeyError is the failure
    env.write("prog.txt", "print a / 0\nlet q = 1 + 1\n");
    env.run(args("second.txt")).expect_code(0);
    assert_bytes(
        "the second result",
        b"print a / 0\n",
        &env.read("second.txt"),
    );
    let record = stats(&env, "second.txt.json");
    assert_eq!(record["persistent_hits"], 0, "{record:#}");
    assert!(
        record["kept"].as_str().unwrap().contains("KeyError"),
        "{record:#}"
    );
}

#[test]
fn node_the_range_error_is_kept_and_the_type_error_on_the_way_is_saved() {
    let env = TestEnv::new();
    env.write("calc.js", source("runtime/calc.js"));
    let calc = env.join("calc.js");
    // without `set k`, `get k.value` throws a TypeError before the RangeError
    env.write("ops.txt", "set k 5\nset j 1\nget k.value\nrepeat -1\n");
    let run = env.run([
        "--algo",
        "ddmin",
        "--same-failure",
        "--timeout",
        "60",
        "--save-slipped",
        "slips",
        "-o",
        "out.txt",
        "ops.txt",
        "--",
        "node",
        calc.to_str().unwrap(),
        "@@",
    ]);
    run.expect_code(0);
    assert_eq!(
        keeping(&run),
        "exited 1; JavaScript error: RangeError: Invalid array length; frame repeat"
    );
    assert_bytes("the result", b"repeat -1\n", &env.read("out.txt"));
    let index = String::from_utf8_lossy(&env.read("slips/signatures.json")).into_owned();
    assert!(
        index.contains("TypeError: Cannot read properties of undefined"),
        "{index}"
    );
}

#[test]
fn gcc_reduce_args_drops_every_flag_the_ice_does_not_need() {
    // g++ 12 dies in cc1plus on this input with -g and -std=c++20, and only with both
    let env = TestEnv::new();
    env.write("segv.cc", source("gcc/ice-driver-segv.cc"));
    let run = env.run([
        "--algo",
        "ddmin",
        "--same-failure",
        "--reduce-args",
        "--timeout",
        "60",
        "--stats-json",
        "stats.json",
        "-o",
        "small.cc",
        "segv.cc",
        "--",
        "g++",
        "-O2",
        "-Wall",
        "-g",
        "-std=c++20",
        "-Wextra",
        "-c",
        "@@",
        "-o",
        "/dev/null",
    ]);
    run.expect_code(0);
    assert_eq!(
        keeping(&run),
        "exited 4; gcc ICE: Segmentation fault signal terminated program cc1plus"
    );
    run.expect_stderr_contains(&["reduce: smallest failing command: g++ -g -std=c++20 small.cc ("]);
    let record = stats(&env, "stats.json");
    let reduced: Vec<&str> = record["command"]["reduced"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(reduced, ["g++", "-g", "-std=c++20", "@@"]);
    assert_eq!(record["command"]["original"][1], "-O2");
    // the command printed fails as the original did
    let (code, stderr) = run_tool(
        &env.path(),
        &["g++", "-g", "-std=c++20"],
        &env.join("small.cc"),
    );
    assert_eq!(code, Some(4), "{stderr}");
    assert!(
        stderr.contains("internal compiler error: Segmentation fault"),
        "{stderr}"
    );
}

#[test]
fn gcc_the_ice_is_kept_and_no_error_comes_before_it() {
    // a candidate with an error before the crash makes GCC bail out ("confused by earlier
    // errors"): another failure, never taken
    let env = TestEnv::new();
    env.write("pop.cc", source("gcc/ice-poplevel-big.cc"));
    let run = env.run([
        "--algo",
        "ddmin",
        "--same-failure",
        "--timeout",
        "60",
        "-o",
        "small.cc",
        "pop.cc",
        "--",
        "g++",
        "-std=c++17",
        "-c",
        "@@",
        "-o",
        "/dev/null",
    ]);
    run.expect_code(0);
    assert_eq!(
        keeping(&run),
        "exited 1; gcc ICE: in poplevel_class, at name-lookup.cc:5177"
    );
    let (code, stderr) = run_tool(
        &env.path(),
        &["g++", "-std=c++17", "-c", "-o", "/dev/null"],
        &env.join("small.cc"),
    );
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("internal compiler error: in poplevel_class")
            && !stderr.contains(": error:"),
        "{stderr}"
    );
}

#[test]
fn clang_the_crash_is_kept_with_its_frames() {
    let env = TestEnv::new();
    let mut input = b"// unrelated\nint unrelated_one = 1;\nint unrelated_two = 2;\n".to_vec();
    input.extend(source("clang/crash-concept-small.cc"));
    env.write("concept.cc", &input);
    let flags = [
        "clang++",
        "-std=c++20",
        "-fsyntax-only",
        "-fno-crash-diagnostics",
    ];
    let mut args = vec![
        "--algo",
        "ddmin",
        "--same-failure",
        "--timeout",
        "60",
        "-o",
        "small.cc",
        "concept.cc",
        "--",
    ];
    args.extend(flags);
    args.push("@@");
    let run = env.run(&args);
    run.expect_code(0);
    let kept = keeping(&run);
    assert!(
        kept.starts_with("exited 139; clang crash: frame clang::"),
        "{kept}"
    );
    let small = String::from_utf8_lossy(&env.read("small.cc")).into_owned();
    assert!(!small.contains("unrelated"), "{small}");
    let (code, stderr) = run_tool(&env.path(), &flags, &env.join("small.cc"));
    assert_eq!(code, Some(139), "{stderr}");
    assert!(stderr.contains("Stack dump:"), "{stderr}");
}

#[test]
fn show_signature_prints_the_failure_in_one_line_and_changes_nothing() {
    let env = TestEnv::new();
    env.write("concept.cc", source("clang/crash-concept-small.cc"));
    let command = [
        "--show-signature",
        "concept.cc",
        "--",
        "clang++",
        "-std=c++20",
        "-fsyntax-only",
        "-fno-crash-diagnostics",
        "@@",
    ];
    let run = env.run(command);
    run.expect_code(0);
    let (_, stdout, _) = run.parts();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(
        lines[0].starts_with("exited 139; clang crash: frame clang::"),
        "{stdout}"
    );
    assert_bytes(
        "the input",
        &source("clang/crash-concept-small.cc"),
        &env.read("concept.cc"),
    );
    assert!(!env.exists("concept.cc.orig"));
    // --verbose: the parts, one a line
    let mut verbose = vec!["-v"];
    verbose.extend(command);
    let run = env.run(verbose);
    run.expect_code(0);
    let (_, stdout, _) = run.parts();
    for needle in [
        "\n  ending: exited 139",
        "\n  kind: clang-crash",
        "\n  key: frame clang::",
        "\n  short name: clang-crash-",
        "\n  hash: ",
    ] {
        assert!(stdout.contains(needle), "{needle:?} not in\n{stdout}");
    }
}

#[test]
fn show_signature_of_a_rustc_ice_and_a_rustc_error_code() {
    let env = TestEnv::new();
    env.write("ice.rs", source("rustc/ice-mismatch-small.rs"));
    let ice = env
        .command([
            "--show-signature",
            "ice.rs",
            "--",
            "rustc",
            "-Z",
            "treat-err-as-bug=1",
            "--edition",
            "2021",
            "@@",
            "-o",
            "ice.out",
        ])
        .env("RUSTC_BOOTSTRAP", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&ice.stdout);
    assert_eq!(
        ice.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ice.stderr)
    );
    assert!(
        stdout.contains("rustc ICE") && stdout.contains("E0308"),
        "{stdout}"
    );
    env.write("e0782.rs", source("diag/e0782-small.rs"));
    let run = env.run([
        "--show-signature",
        "e0782.rs",
        "--",
        "rustc",
        "--edition",
        "2021",
        "--crate-type",
        "lib",
        "@@",
        "-o",
        "e0782.rmeta",
    ]);
    run.expect_code(0);
    let (_, stdout, _) = run.parts();
    assert!(
        stdout.contains("diagnostic") && stdout.contains("E0782"),
        "{stdout}"
    );
}

#[test]
fn rustc_the_error_code_is_kept_and_no_new_error_comes_before_it() {
    let env = TestEnv::new();
    env.write(
        "lib.rs",
        "trait T {}\nstruct S;\nimpl T for S {}\nfn f(_: Box<T>) {}\nfn g() -> u32 { 7 }\n",
    );
    let rustc = [
        "rustc",
        "--edition",
        "2021",
        "--crate-type",
        "lib",
        "--emit=metadata",
        // not -o /dev/null: rustc may write elsewhere and rename over the path (as root, over
        // the device) when a candidate compiles
        "-o",
        "lib.rmeta",
    ];
    let mut args = vec![
        "-q",
        "--algo",
        "ddmin",
        "--same-failure",
        "--timeout",
        "60",
        "-o",
        "small.rs",
        "lib.rs",
        "--",
    ];
    args.extend(rustc);
    args.push("@@");
    env.run(&args).expect_code(0);
    let small = String::from_utf8_lossy(&env.read("small.rs")).into_owned();
    // `trait T {}` is needed: without it E0405 (not found) comes first
    assert_eq!(small, "trait T {}\nfn f(_: Box<T>) {}\n");
    let (code, stderr) = run_tool(&env.path(), &rustc, &env.join("small.rs"));
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("error[E0782]") && !stderr.contains("E0405"),
        "{stderr}"
    );
}

#[test]
fn an_original_that_does_not_fail_or_fails_with_nothing_recognisable_is_exit_3_in_one_line() {
    let env = TestEnv::new();
    env.write("fine.py", "print('all good')\n");
    let run = env.run(["--same-failure", "fine.py", "--", "python3", "@@"]);
    run.expect_code(3)
        .expect_one_line_error()
        .expect_stderr_contains(&[
            "--same-failure: the original input does not fail",
            "exited 0",
            "all good",
            "--exit-code",
            "--stderr",
        ]);
    assert_bytes("the input", b"print('all good')\n", &env.read("fine.py"));
    assert!(!env.exists("fine.py.orig"));
    // exit 1 and nothing said: a bare ending
    env.write("quiet.sh", "exit 1\n");
    let run = env.run(["--same-failure", "quiet.sh", "--", "sh", "@@"]);
    run.expect_code(3)
        .expect_one_line_error()
        .expect_stderr_contains(&[
            "fails with nothing recognisable",
            "exited 1",
            "(no output)",
            "--exit-code 1 --stderr REGEX",
        ]);
    // --show-signature says the same
    let run = env.run(["--show-signature", "quiet.sh", "--", "sh", "@@"]);
    run.expect_code(3).expect_one_line_error();
}

#[test]
fn preprocess_makes_one_file_of_a_c_file_and_its_local_header() {
    let env = TestEnv::new();
    env.write(
        "inc/shapes.h",
        "#define SIDES 4\nstruct square { int side; };\nstatic inline int sides(void) { return SIDES; }\n",
    );
    env.write(
        "src/main.c",
        "#include \"shapes.h\"\n#include \"local.h\"\nint area(struct square s) { return s.side * s.side; }\nint corners(struct square s) { return s.corner + sides(); }\nint main(void) { struct square s = { 2 }; return area(s) - BASE; }\n",
    );
    env.write("src/local.h", "#define BASE 4\n");
    let gcc = [
        "gcc",
        "-I",
        "../inc",
        "-DUNUSED=1",
        "-c",
        "@@",
        "-o",
        "/dev/null",
    ];
    // in place: refused (the input would change language)
    let mut args = vec!["--preprocess", "--same-failure", "src/main.c", "--"];
    args.extend(gcc);
    env.run(&args)
        .expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["--preprocess", "-o"]);
    let mut args = vec![
        "--preprocess",
        "--same-failure",
        "--timeout",
        "60",
        "--stats-json",
        "stats.json",
        "-o",
        "small.c",
        "src/main.c",
        "--",
    ];
    args.extend(gcc);
    let run = env.run(&args);
    run.expect_code(0);
    let kept = keeping(&run);
    assert!(kept.contains("has no member named"), "{kept}");
    run.expect_stderr_contains(&[
        "reduce: preprocessed with `",
        "-E -P",
        "the result is the preprocessed file, reduced",
    ]);
    let small = String::from_utf8_lossy(&env.read("small.c")).into_owned();
    assert!(!small.contains("#include"), "{small}");
    assert!(small.contains("corner"), "{small}");
    // it fails alone, anywhere, with the same error
    let scratch = env.join("elsewhere");
    fs::create_dir(&scratch).unwrap();
    fs::copy(env.join("small.c"), scratch.join("small.c")).unwrap();
    let (code, stderr) = run_tool(
        &scratch,
        &["gcc", "-c", "-o", "/dev/null"],
        Path::new("small.c"),
    );
    assert_eq!(code, Some(1));
    assert!(stderr.contains("has no member named"), "{stderr}");
    let record = stats(&env, "stats.json");
    assert!(
        record["preprocessed"]["preprocessed_bytes"]
            .as_u64()
            .unwrap()
            > record["final_bytes"].as_u64().unwrap()
    );
    assert_eq!(
        record["preprocessed"]["original_bytes"].as_u64(),
        Some(fs::metadata(env.join("src/main.c")).unwrap().len())
    );
}

#[test]
fn preprocess_says_when_a_header_is_missing_or_the_program_is_no_compiler() {
    let env = TestEnv::new();
    env.write(
        "main.c",
        "#include \"gone.h\"\nint main(void) { return GONE; }\n",
    );
    let gcc = ["gcc", "-c", "@@", "-o", "/dev/null"];
    // the original fails (exit 1) for lack of its header, and so does the preprocessor
    let mut args = vec![
        "--preprocess",
        "--exit-code",
        "1",
        "-o",
        "small.c",
        "main.c",
        "--",
    ];
    args.extend(gcc);
    env.run(&args)
        .expect_code(4)
        .expect_one_line_error()
        .expect_stderr_contains(&["--preprocess: the preprocessor failed", "gone.h"]);
    // a failure that depends on where the line is: -P drops the line markers, the failure is lost
    env.write("local.h", "int twice(int);\nint thrice(int);\n");
    env.write(
        "main.c",
        "#include \"local.h\"\nint main(void) { return undeclared; }\n",
    );
    let mut args = vec![
        "--preprocess",
        "--exit-code",
        "1",
        "--stderr",
        "main.c:2:",
        "-o",
        "small.c",
        "main.c",
        "--",
    ];
    args.extend(gcc);
    env.run(&args)
        .expect_code(3)
        .expect_one_line_error()
        .expect_stderr_contains(&["--preprocess: the preprocessed input", "does not fail"]);
    assert!(!env.exists("small.c"));
    let run = env.run([
        "--preprocess",
        "-o",
        "small.c",
        "main.c",
        "--",
        "python3",
        "@@",
    ]);
    run.expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["not a C or C++ compiler"]);
}

#[test]
fn the_new_directories_are_refused_when_they_hold_files_or_other_outputs() {
    let env = TestEnv::new();
    env.write("in.py", "print(1 / 0)\n");
    env.write("full/mine.txt", "keep me");
    let base = [
        "--same-failure",
        "-o",
        "out.py",
        "in.py",
        "--",
        "python3",
        "@@",
    ];
    for flag in ["--report", "--save-slipped"] {
        let mut args = vec![flag, "full"];
        args.extend(base);
        env.run(&args)
            .expect_code(2)
            .expect_one_line_error()
            .expect_stderr_contains(&[flag]);
        assert_eq!(env.read("full/mine.txt"), b"keep me");
    }
    // -o inside the directory, or the two directories the same
    let run = env.run([
        "--same-failure",
        "--save-slipped",
        "new",
        "-o",
        "new/out.py",
        "in.py",
        "--",
        "python3",
        "@@",
    ]);
    run.expect_code(2).expect_one_line_error();
    let run = env.run([
        "--same-failure",
        "--save-slipped",
        "both",
        "--report",
        "both",
        "-o",
        "out.py",
        "in.py",
        "--",
        "python3",
        "@@",
    ]);
    run.expect_code(2).expect_one_line_error();
    // flags of one file with several files
    env.write("b.py", "print(2)\n");
    let run = env.run(["--same-failure", "in.py", "b.py", "--", "python3", "@@"]);
    run.expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["--same-failure takes one input file"]);
    // --save-slipped without --same-failure: clap's usage error
    let run = env.run(["--save-slipped", "s", "in.py", "--", "python3", "@@"]);
    run.expect_code(2);
    assert!(!env.exists("out.py") && !env.exists("new") && !env.exists("both"));
}

#[test]
fn python_a_run_stopped_early_resumes_with_the_failure_of_its_original() {
    // the second run's INPUT is the first's partial result: the failure kept is INPUT.orig's,
    // the test's identity is the first run's, and the run resumes
    let env = TestEnv::new();
    let calc = python_case(&env);
    let mut lines = vec!["let z = 0 + 0".to_string()];
    lines.extend((0..6).map(|i| format!("let v{i} = {i} + {}", i + 1)));
    lines.push("print v3 / z".into());
    let original = lines.join("\n") + "\n";
    env.write("prog.txt", &original);
    let command = |budget: Option<&str>| {
        let mut args = vec!["--same-failure", "--algo", "ddmin"];
        if let Some(budget) = budget {
            args.extend(["--max-attempts", budget]);
        }
        args.extend(["prog.txt", "--", "python3", &calc, "@@"]);
        env.run(args)
    };
    command(Some("12")).expect_code(0);
    let partial = env.read("prog.txt");
    assert!(partial.len() < original.len(), "no progress in 12 runs");
    assert_bytes(
        "the backup",
        original.as_bytes(),
        &env.read("prog.txt.orig"),
    );
    let run = command(None);
    run.expect_code(0).expect_stderr_contains(&[
        "reduce: keeping: exited 1; Python exception: ZeroDivisionError",
        "reduce: resuming: prog.txt is a result of an earlier",
    ]);
    assert_bytes(
        "the result",
        b"let z = 0 + 0\nlet v3 = 3 + 4\nprint v3 / z\n",
        &env.read("prog.txt"),
    );
}
