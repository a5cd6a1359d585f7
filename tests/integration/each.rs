//! `reduce --each DIR -o OUTDIR` on a real fuzz target (issue 41): a small C parser built in the
//! test with `gcc -fsanitize=address,undefined -g` (`fixtures/each/target.c`: a heap overflow, a
//! use-after-free, a null dereference, an assertion), and a folder of crashes made from seeds
//! with random noise around each trigger, some files not crashing at all.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::util::{TestEnv, wait_at_most};

/// The four bugs of the target, as `classify` names them.
pub const BUGS: [&str; 4] = ["overflow", "use-after-free", "null", "assertion"];

/// Builds `fixtures/each/target.c` into `env` as `target`; its path.
pub fn build_target(env: &TestEnv) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/each/target.c");
    let target = env.join("target");
    let status = Command::new("gcc")
        .args(["-fsanitize=address,undefined", "-g", "-o"])
        .arg(&target)
        .arg(&source)
        .status()
        .expect("cannot run gcc");
    assert!(status.success(), "gcc -fsanitize=address,undefined failed");
    target
}

/// A deterministic generator (an LCG): the same folder on every run.
struct Noise(u32);

impl Noise {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_103_515_245).wrapping_add(12345);
        self.0 >> 16
    }

    /// `n` tokens of letters and digits none of the target's keywords uses, blank-separated.
    fn tokens(&mut self, n: usize) -> String {
        const ALPHABET: &[u8] = b"abgjkmqvwxz0123456789";
        let mut out = String::new();
        for _ in 0..n {
            let len = 1 + self.next() as usize % 5;
            for _ in 0..len {
                out.push(ALPHABET[self.next() as usize % ALPHABET.len()] as char);
            }
            out.push(if self.next().is_multiple_of(4) {
                '\n'
            } else {
                ' '
            });
        }
        out
    }

    /// The trigger of bug `bug` (an index of [`BUGS`]), its numbers varied.
    fn trigger(&mut self, bug: usize) -> String {
        match bug {
            0 => format!("len={} {}copy", 9 + self.next() % 60, self.tokens(1)),
            1 => {
                let n = self.next() as usize % 2;
                format!("free {}use", self.tokens(n))
            }
            2 => "nil".to_string(),
            _ => format!("depth={}", 5 + self.next() % 90),
        }
    }

    /// Input that does not crash: noise, and keywords with harmless values.
    fn harmless(&mut self) -> String {
        let safe = ["len=3 copy", "depth=2", "use", "len=8 copy"];
        let pick = safe[self.next() as usize % safe.len()];
        format!("{}{pick} {}", self.tokens(3), self.tokens(2))
    }
}

/// Writes a folder of crashes into `env/dir`: `per_bug` files of each bug (AFL-style names, some
/// in a subfolder, libFuzzer-style `crash-*` for the last bug), `harmless` that do not crash,
/// each with `noise` tokens around its trigger. Returns each file's bug (`None`: harmless),
/// by path relative to the folder.
pub fn crash_folder(
    env: &TestEnv,
    dir: &str,
    per_bug: usize,
    harmless: usize,
    noise: usize,
) -> BTreeMap<String, Option<usize>> {
    folder(env, dir, (per_bug, harmless, noise), false)
}

/// The same folder as libFuzzer writes it: every file `crash-<40 hex digits>`.
pub fn libfuzzer_folder(
    env: &TestEnv,
    dir: &str,
    per_bug: usize,
    harmless: usize,
) -> BTreeMap<String, Option<usize>> {
    folder(env, dir, (per_bug, harmless, 4), true)
}

fn folder(
    env: &TestEnv,
    dir: &str,
    (per_bug, harmless, noise): (usize, usize, usize),
    libfuzzer: bool,
) -> BTreeMap<String, Option<usize>> {
    let mut rng = Noise(41);
    let mut made = BTreeMap::new();
    let mut id = 0;
    for k in 0..per_bug {
        for bug in 0..BUGS.len() {
            let (n_before, n_after) = (rng.next() as usize, rng.next() as usize);
            let before = rng.tokens(1 + n_before % noise.max(1));
            let after = rng.tokens(n_after % noise.max(1));
            let text = format!("{before}{} {after}", rng.trigger(bug));
            let name = match (bug, k % 3) {
                _ if libfuzzer => format!("crash-{:040x}", 0xc0de_0000_u64 + id),
                (3, _) => format!("crash-{:040x}", 0xfeed_0000_u64 + id),
                (_, 2) => format!("queue/id:{id:06},sig:06,src:000000,op:havoc,rep:4"),
                _ => format!("id:{id:06},sig:06,src:000000,op:havoc,rep:{}", 1 + k),
            };
            env.write(Path::new(dir).join(&name), text);
            made.insert(name, Some(bug));
            id += 1;
        }
    }
    for _ in 0..harmless {
        let name = match libfuzzer {
            true => format!("crash-{:040x}", 0xc0de_0000_u64 + id),
            false => format!("id:{id:06},src:000001,op:flip1,pos:3"),
        };
        env.write(Path::new(dir).join(&name), rng.harmless());
        made.insert(name, None);
        id += 1;
    }
    made
}

/// Which bug a run of the target on `bytes` shows (`None`: it does not crash).
pub fn classify(target: &Path, bytes: &[u8]) -> Option<&'static str> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("input");
    fs::write(&file, bytes).unwrap();
    let out = Command::new(target)
        .arg(&file)
        .env_remove("ASAN_OPTIONS")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("heap-buffer-overflow") && err.contains("in copy_record") {
        Some(BUGS[0])
    } else if err.contains("heap-use-after-free") {
        Some(BUGS[1])
    } else if err.contains("SEGV") && err.contains("in lookup") {
        Some(BUGS[2])
    } else if err.contains("Assertion `depth < 5' failed") {
        Some(BUGS[3])
    } else {
        assert!(out.status.success(), "an unexpected failure: {err}");
        None
    }
}

fn read_index(env: &TestEnv, out: &str) -> Value {
    serde_json::from_slice(&env.read(Path::new(out).join("index.json"))).unwrap()
}

/// The files of `dir` (relative paths) and their bytes: the folder must never change.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let meta = fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                todo.push(p);
            } else if meta.is_file() {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

/// Every one-byte deletion of `bytes` no longer shows `bug`.
fn one_minimal(target: &Path, bytes: &[u8], bug: &str) -> Result<(), String> {
    for i in 0..bytes.len() {
        let mut smaller = bytes.to_vec();
        smaller.remove(i);
        if classify(target, &smaller) == Some(bug) {
            return Err(format!(
                "{:?} without byte {i} still shows the {bug}",
                String::from_utf8_lossy(bytes)
            ));
        }
    }
    Ok(())
}

/// The outputs of `out` (everything but the index files).
fn outputs(env: &TestEnv, out: &str) -> BTreeSet<String> {
    env.entries_starting_with(&env.join(out), "")
        .into_iter()
        .filter(|n| !n.starts_with("index."))
        .collect()
}

#[test]
fn a_folder_of_crashes_gives_one_minimal_output_per_bug_and_an_index_of_every_file() {
    let env = TestEnv::new();
    let target = build_target(&env);
    let made = crash_folder(&env, "crashes", 6, 6, 6);
    let before = snapshot(&env.join("crashes"));
    let run = env.run([
        "--each",
        "crashes",
        "-o",
        "bugs",
        "--same-failure",
        "--algo",
        "bytes",
        "--",
        target.to_str().unwrap(),
        "@@",
    ]);
    run.expect_code(0)
        .expect_stderr_contains(&["reduce: 4 bugs in 30 files", "not failing: 6"]);
    assert_eq!(before, snapshot(&env.join("crashes")), "the folder changed");
    // exactly one output per bug, each 1-minimal and still that bug
    let outs = outputs(&env, "bugs");
    assert_eq!(outs.len(), 4, "{outs:?}\n{}", run.stderr);
    let mut shown = BTreeMap::new();
    for name in &outs {
        let bytes = env.read(Path::new("bugs").join(name));
        let bug = classify(&target, &bytes).unwrap_or_else(|| panic!("{name} does not crash"));
        one_minimal(&target, &bytes, bug).unwrap();
        assert!(
            bytes.len() <= 12,
            "{name}: {:?}",
            String::from_utf8_lossy(&bytes)
        );
        shown.insert(bug, name.clone());
    }
    assert_eq!(shown.len(), 4, "two outputs show the same bug: {shown:?}");
    assert!(
        outs.iter()
            .any(|n| n.starts_with("asan-heap-buffer-overflow-") && n.ends_with(".bin")),
        "{outs:?}"
    );
    assert!(
        outs.iter().any(|n| n.starts_with("assert-check-depth-")),
        "{outs:?}"
    );
    // index.json maps every input file to its bug's output
    let index = read_index(&env, "bugs");
    let files = index["files"].as_array().unwrap();
    assert_eq!(files.len(), made.len());
    for row in files {
        let path = row["path"].as_str().unwrap();
        let bug = made[path];
        match bug {
            None => {
                assert_eq!(row["status"], "not-failing", "{row}");
                assert!(row["output"].is_null());
            }
            Some(b) => {
                assert!(
                    ["reduced", "duplicate"].contains(&row["status"].as_str().unwrap()),
                    "{row}"
                );
                assert_eq!(row["output"].as_str().unwrap(), shown[BUGS[b]], "{path}");
                assert_eq!(
                    row["original_size"].as_u64().unwrap() as usize,
                    env.read(Path::new("crashes").join(path)).len()
                );
            }
        }
    }
    let reduced = files.iter().filter(|r| r["status"] == "reduced").count();
    assert_eq!(reduced, 4, "one reduced file per bug, the rest duplicates");
    for bug in index["bugs"].as_array().unwrap() {
        assert_eq!(bug["files"], 6, "{bug}");
    }
    // index.csv: a header and a row per file (AFL's names hold commas: quoted)
    let csv = String::from_utf8(env.read("bugs/index.csv")).unwrap();
    assert_eq!(csv.lines().count(), made.len() + 1);
    assert!(
        csv.contains("\"id:000000,sig:06,src:000000,op:havoc,rep:1\",reduced")
            || csv.contains("\"id:000000,sig:06,src:000000,op:havoc,rep:1\",duplicate"),
        "{csv}"
    );

    // resume: the output of one bug is lost; the same command again redoes that group only,
    // and runs no file for its signature again (the files did not change)
    let lost = shown["use-after-free"].clone();
    let kept: Vec<(String, Vec<u8>)> = outs
        .iter()
        .filter(|n| **n != lost)
        .map(|n| (n.clone(), env.read(Path::new("bugs").join(n))))
        .collect();
    fs::remove_file(env.join("bugs").join(&lost)).unwrap();
    let again = env.run([
        "--each",
        "crashes",
        "-o",
        "bugs",
        "--same-failure",
        "--algo",
        "bytes",
        "--",
        target.to_str().unwrap(),
        "@@",
    ]);
    again
        .expect_code(0)
        .expect_stderr_contains(&["resuming: 3 bug(s)", "reduce: 4 bugs in 30 files"]);
    assert!(
        !again.stderr.contains("signatures:"),
        "files ran again: {}",
        again.stderr
    );
    assert_eq!(outputs(&env, "bugs"), outs);
    for (name, bytes) in kept {
        assert_eq!(
            env.read(Path::new("bugs").join(&name)),
            bytes,
            "{name} changed"
        );
    }
    let redone = read_index(&env, "bugs");
    let first_tests = index["tests"].as_u64().unwrap();
    let uaf_tests = index["bugs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["output"] == lost.as_str())
        .unwrap()["tests"]
        .as_u64()
        .unwrap();
    // its not-interesting verdicts are on disk (the persistent cache): the replay costs less
    let redone_tests = redone["tests"].as_u64().unwrap();
    assert!(
        (1..=uaf_tests).contains(&redone_tests),
        "only the lost group ran: {redone_tests} tests, {uaf_tests} for it the first time, {first_tests} in all"
    );
}

#[test]
fn an_interrupted_folder_resumes_without_redoing_finished_groups() {
    let env = TestEnv::new();
    let target = build_target(&env);
    crash_folder(&env, "crashes", 2, 1, 8);
    let args = [
        "--each",
        "crashes",
        "-o",
        "bugs",
        "--same-failure",
        "--algo",
        "bytes",
        "-j",
        "2",
        "--",
        target.to_str().unwrap(),
        "@@",
    ];
    let mut child = env.command(args).spawn().unwrap();
    // wait until the first bug is written, then Ctrl-C
    let index_path = env.join("bugs/index.json");
    let mut done = 0;
    for _ in 0..3000 {
        let bugs = fs::read(&index_path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .map_or(0, |v| v["bugs"].as_array().map_or(0, Vec::len));
        if bugs >= 1 {
            done = bugs;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(done >= 1, "no bug was written");
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = wait_at_most(&mut child, Duration::from_secs(60));
    let finished = status.code() == Some(0);
    let first = read_index(&env, "bugs");
    let written: Vec<String> = first["bugs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["output"].as_str().unwrap().to_string())
        .collect();
    if !finished {
        assert_eq!(status.code(), Some(130), "interrupted: exit 130");
        assert_eq!(first["finished"], false);
    }
    let again = env.run(args);
    again.expect_code(0).expect_stderr_contains(&[
        &format!("resuming: {} bug(s)", written.len()),
        "reduce: 4 bugs in 9 files",
    ]);
    let last = read_index(&env, "bugs");
    assert_eq!(last["finished"], true);
    // the bugs the first run finished are the same, not redone: each costs the second run nothing
    for name in &written {
        let bug = last["bugs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["output"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} was dropped"));
        let before = first["bugs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["output"] == name.as_str())
            .unwrap();
        assert_eq!(bug["tests"], before["tests"], "{name} was redone");
    }
    assert_eq!(outputs(&env, "bugs").len(), 4);
}

#[test]
fn plain_signal_groups_by_the_sanitizer_report_too() {
    let env = TestEnv::new();
    let target = build_target(&env);
    crash_folder(&env, "crashes", 2, 2, 3);
    let run = env.run([
        "--each",
        "crashes",
        "-o",
        "bugs",
        "--signal",
        "--algo",
        "bytes",
        "--",
        target.to_str().unwrap(),
        "@@",
    ]);
    // ASAN_OPTIONS=abort_on_error=1: every bug is a SIGABRT; the reports tell them apart
    run.expect_code(0).expect_stderr_contains(&[
        "reduce: 4 bugs in 10 files",
        "killed by SIGABRT; sanitizer: asan heap-use-after-free",
    ]);
    let mut seen = BTreeSet::new();
    for name in outputs(&env, "bugs") {
        let bytes = env.read(Path::new("bugs").join(&name));
        seen.insert(classify(&target, &bytes).unwrap_or_else(|| panic!("{name} does not crash")));
    }
    assert_eq!(seen.len(), 4, "{seen:?}");
}

/// A target for the refusals: `sh -c`, crashing (exit 1 with an assertion's message) on files
/// that hold `boom`.
fn boom_folder(env: &TestEnv) {
    env.write("in/a.txt", "x boom y");
    env.write("in/b.txt", "fine");
}

const BOOM: &str =
    r#"grep -q boom {} && echo "t: t.c:1: f: Assertion \`0' failed." >&2 && exit 1; exit 0"#;

#[test]
fn each_refuses_a_missing_folder_a_file_and_an_empty_folder() {
    let env = TestEnv::new();
    env.write("file", "x");
    fs::create_dir(env.join("empty")).unwrap();
    for (dir, says) in [
        ("missing", "--each missing does not exist"),
        ("file", "--each file is not a directory"),
        ("empty", "--each empty holds no files"),
    ] {
        env.run(["--each", dir, "-o", "bugs", "--same-failure", "-c", BOOM])
            .expect_code(4)
            .expect_one_line_error()
            .expect_stderr_contains(&[says]);
        assert!(!env.exists("bugs"), "{dir}: bugs/ was created");
    }
    env.write("only-empty/e", "");
    env.run(["--each", "only-empty", "-o", "bugs", "-c", BOOM])
        .expect_code(4)
        .expect_stderr_contains(&["holds no file to run"]);
}

#[test]
fn each_refuses_an_outdir_inside_the_folder_or_holding_other_files() {
    let env = TestEnv::new();
    boom_folder(&env);
    env.run([
        "--each",
        "in",
        "-o",
        "in/bugs",
        "--same-failure",
        "-c",
        BOOM,
    ])
    .expect_code(2)
    .expect_one_line_error()
    .expect_stderr_contains(&["-o in/bugs is inside --each in"]);
    env.write("taken/notes.txt", "mine");
    env.run(["--each", "in", "-o", "taken", "--same-failure", "-c", BOOM])
        .expect_code(2)
        .expect_one_line_error()
        .expect_stderr_contains(&["-o taken holds files and no index.json of reduce --each"]);
    assert_eq!(env.read("taken/notes.txt"), b"mine");
    // its own output resumes; another folder's or another test's is refused
    env.run([
        "-q",
        "--each",
        "in",
        "-o",
        "bugs",
        "--same-failure",
        "-c",
        BOOM,
    ])
    .expect_code(0);
    env.run(["--each", "in", "-o", "bugs", "--same-failure", "-c", BOOM])
        .expect_code(0)
        .expect_stderr_contains(&["resuming: 1 bug(s)"]);
    env.write("other/c.txt", "boom");
    env.run([
        "--each",
        "other",
        "-o",
        "bugs",
        "--same-failure",
        "-c",
        BOOM,
    ])
    .expect_code(2)
    .expect_stderr_contains(&["holds the output of reduce --each of another folder"]);
    env.run(["--each", "in", "-o", "bugs", "--exit-code", "1", "-c", BOOM])
        .expect_code(2)
        .expect_stderr_contains(&["with another test"]);
    // flags of one file's run, and no -o
    env.run(["--each", "in", "--same-failure", "-c", BOOM])
        .expect_code(2);
    env.run([
        "--each",
        "in",
        "-o",
        "x",
        "--report",
        "r",
        "--same-failure",
        "-c",
        BOOM,
    ])
    .expect_code(2)
    .expect_stderr_contains(&["--report takes one input file, not --each DIR"]);
    env.run(["--each", "in", "-o", "-", "-c", BOOM])
        .expect_code(2);
}

#[test]
fn each_lists_files_that_do_not_fail_and_with_none_failing_exits_3() {
    let env = TestEnv::new();
    env.write("in/a.txt", "fine");
    env.write("in/sub/b.txt", "also fine");
    env.write("in/empty", "");
    std::os::unix::fs::symlink("/etc/hostname", env.join("in/link")).unwrap();
    let run = env.run(["--each", "in", "-o", "bugs", "--same-failure", "-c", BOOM]);
    run.expect_code(3).expect_stderr_contains(&[
        "no file of --each in fails (4 files;",
        "a.txt: not-failing: ",
        "sub/b.txt: not-failing",
        "empty: skipped: empty",
        "link: skipped: a symlink to /etc/hostname: not followed",
    ]);
    let csv = String::from_utf8(env.read("bugs/index.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");
    // one failing file among them: a bug, the rest listed
    env.write("in/c.txt", "a boom b boom c");
    fs::remove_dir_all(env.join("bugs")).unwrap();
    let run = env.run([
        "--each",
        "in",
        "-o",
        "bugs",
        "--same-failure",
        "--algo",
        "ddmin",
        "--unit",
        "char",
        "-c",
        BOOM,
    ]);
    run.expect_code(0).expect_stderr_contains(&[
        "reduce: 1 bug in 5 files",
        "not failing: 2",
        "skipped: 2",
    ]);
    let outs: Vec<String> = outputs(&env, "bugs").into_iter().collect();
    assert_eq!(outs.len(), 1, "{outs:?}");
    assert!(
        outs[0].starts_with("assert-f-") && outs[0].ends_with(".txt"),
        "{outs:?}"
    );
    assert_eq!(env.read(Path::new("bugs").join(&outs[0])), b"boom");
}

#[test]
fn each_lists_an_unreadable_file_and_goes_on() {
    let env = TestEnv::new();
    boom_folder(&env);
    let locked = env.write("in/locked.txt", "boom");
    fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    // a huge file is not read (a sparse one: no disk used)
    fs::File::create(env.join("in/huge"))
        .unwrap()
        .set_len(65 << 20)
        .unwrap();
    // a FIFO is never opened
    let fifo = std::ffi::CString::new(env.join("in/fifo").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let run = env.run(["--each", "in", "-o", "bugs", "--same-failure", "-c", BOOM]);
    run.expect_code(0)
        .expect_stderr_contains(&["reduce: 1 bug in 5 files"]);
    let index = read_index(&env, "bugs");
    let status = |p: &str| {
        index["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["path"] == p)
            .unwrap()["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(status("fifo"), "skipped");
    assert_eq!(status("huge"), "skipped");
    let csv = String::from_utf8(env.read("bugs/index.csv")).unwrap();
    assert!(
        csv.contains(
            "\nhuge,skipped,,,,68157440,,,\"68157440 bytes, larger than 64 MiB: not read\"\n"
        ),
        "{csv}"
    );
    // root reads any file: then it is one more crash of the same bug
    let root = unsafe { libc::geteuid() } == 0;
    match root {
        true => assert!(["reduced", "duplicate"].contains(&status("locked.txt").as_str())),
        false => assert_eq!(status("locked.txt"), "unreadable"),
    }
}

#[test]
fn without_same_failure_a_reduction_that_slips_joins_the_other_bug_and_the_group_keeps_its_file() {
    let env = TestEnv::new();
    let target = build_target(&env);
    // the overflow comes first in this file, but --signal (any crash) lets its reduction slip to
    // the null dereference, which is smaller
    env.write("crashes/both", "len=50 copy nil");
    env.write("crashes/null", "nil zz");
    let run = env.run([
        "--each",
        "crashes",
        "-o",
        "bugs",
        "--signal",
        "--algo",
        "bytes",
        "--",
        target.to_str().unwrap(),
        "@@",
    ]);
    run.expect_code(0)
        .expect_stderr_contains(&["reduce: 2 bugs in 2 files", "(not reduced)"]);
    let index = read_index(&env, "bugs");
    let row = |p: &str| {
        index["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["path"] == p)
            .unwrap()
            .clone()
    };
    assert_eq!(row("null")["status"], "reduced");
    let both = row("both");
    assert_eq!(both["status"], "reduced", "{both}");
    assert!(both["note"].as_str().unwrap().contains("slipped"), "{both}");
    let overflow = index["bugs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["representative"] == "both")
        .unwrap();
    assert_eq!(overflow["reduced"], false);
    let bytes = env.read(Path::new("bugs").join(overflow["output"].as_str().unwrap()));
    assert_eq!(bytes, b"len=50 copy nil");
    assert_eq!(classify(&target, &bytes), Some("overflow"));
}

#[test]
fn the_outputs_and_the_index_are_the_same_at_every_j() {
    let env = TestEnv::new();
    let target = build_target(&env);
    crash_folder(&env, "crashes", 2, 1, 5);
    let mut seen = Vec::new();
    for jobs in ["1", "3"] {
        let out = format!("bugs-j{jobs}");
        env.run([
            "-q",
            "--each",
            "crashes",
            "-o",
            &out,
            "--same-failure",
            "--algo",
            "bytes",
            "-j",
            jobs,
            "--no-persistent-cache",
            "--",
            target.to_str().unwrap(),
            "@@",
        ])
        .expect_code(0);
        let files: Vec<(String, Vec<u8>)> = outputs(&env, &out)
            .into_iter()
            .map(|n| (n.clone(), env.read(Path::new(&out).join(&n))))
            .collect();
        let index = read_index(&env, &out);
        let rows: Vec<(Value, Value, Value)> = index["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["path"].clone(), r["status"].clone(), r["output"].clone()))
            .collect();
        seen.push((files, rows));
    }
    assert_eq!(seen[0], seen[1], "-j1 and -j3 differ");
    assert_eq!(seen[0].0.len(), 4);
}
