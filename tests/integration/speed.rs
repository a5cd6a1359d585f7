//! -j determinism, and the counters of the verdict cache and the parse prefilter, on real runs.

use std::path::Path;
use std::process::Command;

fn fixture(case: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(case)
}

fn run(case: &str, args: &[&str]) -> (Vec<u8>, serde_json::Value) {
    crate::util::reduce_fixture(&fixture(case), args)
}

/// Runs `reduce ARGS --temp-dir DIR --test TEST -o OUT INPUT` with `REDUCE_TRACE=DIR/trace`
/// (and its cache in DIR); the run must succeed. Returns the trace.
fn traced(dir: &Path, args: &[&str], test: &Path, out: &Path, input: &Path) -> String {
    let trace = dir.join("trace");
    let status = Command::new(crate::util::reduce_bin())
        .env("REDUCE_TRACE", &trace)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .args(args)
        .arg("--temp-dir")
        .arg(dir)
        .arg("--test")
        .arg(test)
        .arg("-o")
        .arg(out)
        .arg(input)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read_to_string(&trace).unwrap()
}

#[test]
fn parallel_runs_give_byte_identical_results_to_serial_runs() {
    for algo in ["perses", "hdd", "ddmin"] {
        let case = if algo == "ddmin" {
            "nested-if"
        } else {
            "inventory"
        };
        let (serial, _) = run(case, &["--algo", algo, "-j1"]);
        let (parallel, p) = run(case, &["--algo", algo, "-j3"]);
        assert_eq!(
            String::from_utf8_lossy(&serial),
            String::from_utf8_lossy(&parallel),
            "--algo {algo}: -j3 differs from -j1"
        );
        assert!(p["tests"].as_u64().unwrap() > 0);
    }
}

/// With `-j` above 1 the test workers parse the candidates for the prefilter (each with its own
/// parser, a speculative candidate compared with its parent's count from another worker): the
/// result is the serial run's with the deletion rounds' incremental re-parses (Python, JSON) and
/// the rewrite passes' full parses (C), and the workers do prune.
#[test]
fn the_workers_prefilter_gives_the_serial_result_and_prunes() {
    for case in ["inventory", "python-zerodiv", "json-config"] {
        let (serial, s) = run(case, &["-j1"]);
        let (parallel, p) = run(case, &["-j3"]);
        assert_eq!(
            String::from_utf8_lossy(&serial),
            String::from_utf8_lossy(&parallel),
            "{case}: -j3 differs from -j1"
        );
        let pruned = |v: &serde_json::Value| v["pruned"].as_u64().unwrap();
        assert!(pruned(&s) > 0 && pruned(&p) > 0, "{case}: {s} vs {p}");
    }
}

#[test]
fn the_cache_and_the_prefilter_are_counted_and_change_nothing_but_cost() {
    let (with, w) = run("inventory", &["--algo", "perses", "-j1"]);
    let (without, wo) = run(
        "inventory",
        &["--algo", "perses", "-j1", "--no-cache", "--no-prefilter"],
    );
    assert!(w["pruned"].as_u64().unwrap() > 0, "{w}");
    assert!(w["cache_hits"].as_u64().unwrap() > 0, "{w}");
    assert_eq!(wo["pruned"].as_u64(), Some(0));
    assert_eq!(wo["cache_hits"].as_u64(), Some(0));
    // skipped candidates were not interesting, so the result is the same, for more test runs
    assert_eq!(with, without);
    assert!(wo["tests"].as_u64() > w["tests"].as_u64(), "{wo} vs {w}");
}

/// `reduce --algo ddmin J EXTRA -o - --test SCRIPT INPUT`, its cache in `env`.
fn ddmin(
    env: &crate::util::TestEnv,
    j: &str,
    extra: &[&str],
    script: &Path,
    input: &Path,
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_reduce"))
        .args(["--algo", "ddmin", j])
        .args(extra)
        .args(["-o", "-", "--test"])
        .env("XDG_CACHE_HOME", env.join("cache"))
        .arg(script)
        .arg(input)
        .output()
        .unwrap()
}

#[test]
fn a_flaky_test_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\nkeep\nb\n").unwrap();
    let counter = dir.path().join("n");
    let script = dir.path().join("t.sh");
    // interesting on the 1st run, not on the 2nd (the re-check of the original), then always
    let body = format!(
        "#!/bin/sh\nn=$(cat '{c}' 2>/dev/null || echo 0); echo $((n+1)) > '{c}'\n[ \"$n\" = 1 ] && exit 1\ngrep -q keep \"$1\"\n",
        c = counter.display()
    );
    std::fs::write(&script, body).unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_reduce"))
        // -j1: the run counter in the script is not safe under concurrent runs
        .args(["--algo", "ddmin", "-j1", "-o", "-", "--test"])
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .arg(&script)
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("flaky"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "keep\n");
}

/// At `-j2` the re-run for flakiness runs beside the check: when one of the two flips, the run
/// warns (whichever of the two it is: they run in no order).
#[test]
fn a_flaky_test_is_reported_when_the_rerun_runs_beside_the_check() {
    let env = crate::util::TestEnv::new();
    let input = env.write("in.txt", "a\nkeep\nb\nORIGINAL\n");
    // of the two runs on the original, exactly one (the first to make the marker) passes
    let marker = env.join("m");
    let body = format!(
        "if grep -q ORIGINAL \"$1\" && grep -q a \"$1\"; then\n  mkdir '{m}' 2>/dev/null || exit 1\nfi\ngrep -q keep \"$1\"",
        m = marker.display()
    );
    let script = env.script("t.sh", &body);
    let out = ddmin(&env, "-j2", &[], &script, &input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the test is flaky"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "keep\n");
}

/// `reduce --algo ddmin -j2 EXTRA` on `input` with the test script `body`, which must keep just
/// the line `keep`.
fn ddmin_keeps_keep_at_j2(
    env: &crate::util::TestEnv,
    body: &str,
    input: &std::path::Path,
    extra: &[&str],
) {
    let script = env.script("t.sh", body);
    let out = ddmin(env, "-j2", extra, &script, input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "keep\n");
}

/// From `-j2` on the original's check and its re-run for flakiness run at once (each waits a
/// little so that the overlap is certain, under the 0.5 s that makes a test too slow to re-run);
/// at `-j1` the re-run follows the check.
#[test]
fn the_original_and_its_rerun_run_at_once_from_j2() {
    for (j, together) in [("-j3", true), ("-j2", true), ("-j1", false)] {
        let env = crate::util::TestEnv::new();
        let input = env.write("in.txt", "a\nkeep\nb\nORIGINAL\n");
        let (live, log) = (env.join("live"), env.join("log"));
        std::fs::create_dir(&live).unwrap();
        let body = format!(
            "if grep -q ORIGINAL \"$1\" && grep -q a \"$1\"; then\n  touch '{l}'/$$; sleep 0.25\n  ls '{l}' | wc -l >> '{g}'; sleep 0.02; rm '{l}'/$$\nfi\ngrep -q keep \"$1\"",
            l = live.display(),
            g = log.display()
        );
        let script = env.script("t.sh", &body);
        let out = ddmin(&env, j, &[], &script, &input);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), "keep\n");
        let counts = std::fs::read_to_string(&log).unwrap();
        let counts: Vec<&str> = counts.split_whitespace().collect();
        // two runs on the original; at once, one saw the other still running
        assert_eq!(counts.len(), 2, "{j}: {counts:?}");
        assert_eq!(counts.contains(&"2"), together, "{j}: {counts:?}");
    }
}

/// Every candidate at `-j4` (no `--timeout`) is held to the timeout the original's check sets:
/// here it would pass after 6 s, past the 3 s that the check's 0.3 s give, so it must fail as
/// it does at `-j1`.
#[test]
fn every_candidate_gets_the_checks_timeout() {
    let env = crate::util::TestEnv::new();
    let input = env.write("in.txt", "fast\nkeep\n");
    let body = "grep -q keep \"$1\" || exit 1\nif grep -q fast \"$1\"; then sleep 0.3; exit 0; fi\nsleep 6";
    let script = env.script("t.sh", body);
    for j in ["-j4", "-j1"] {
        let out = ddmin(&env, j, &["--no-cache"], &script, &input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{j}: {stderr}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "fast\nkeep\n",
            "{j}: {stderr}"
        );
    }
}

/// With `-j2` the last two runs, the empty file's test and the final re-check of the result,
/// run at once: they do not depend on each other. (`--no-cache`: the speculation may have
/// tried the empty file during the run, whose verdict would then answer at the end.)
#[test]
fn the_empty_file_and_the_final_recheck_run_at_once() {
    let env = crate::util::TestEnv::new();
    let input = env.write("in.txt", "a\nkeep\nb\n");
    let log = env.join("log");
    // each run on the result or on the empty file logs its size, start and end (a cancelled
    // run logs no end)
    let body = format!(
        "if [ ! -s \"$1\" ] || [ \"$(cat \"$1\")\" = keep ]; then\n  n=$(wc -c < \"$1\"); s=$(date +%s.%N); sleep 0.4\n  echo \"$n $s $(date +%s.%N)\" >> '{g}'\nfi\ngrep -q keep \"$1\"",
        g = log.display()
    );
    ddmin_keeps_keep_at_j2(&env, &body, &input, &["--no-cache"]);
    let runs: Vec<(u32, f64, f64)> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    // the last runs to start on each are the end's: they overlap
    let last = |size| {
        runs.iter()
            .filter(|r| r.0 == size)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("a run of that size")
    };
    let (empty, recheck) = (last(0), last(5));
    assert!(
        recheck.1 < empty.2 && empty.1 < recheck.2,
        "not at once: {runs:?}"
    );
}

/// With three workers free, the final layout's test runs at once with the end's other two
/// runs, its re-check and the empty file's test: the end waits for one run, not two.
#[test]
fn the_final_layout_its_recheck_and_the_empty_file_run_at_once() {
    let env = crate::util::TestEnv::new();
    // reduces to `return   keep`, which the layout respaces: the run's last candidate
    let input = env.write(
        "in.c",
        "int   keep  =  1 ;\nint other;\nint main(void) {   return   keep ;  }\n",
    );
    let log = env.join("log");
    // each run on the laid-out result or on the empty file logs its text, start and end
    let body = format!(
        "t=$(tr '\\n' '|' < \"$1\")\nif [ -z \"$t\" ] || [ \"$t\" = 'return keep|' ]; then\n  s=$(date +%s.%N); sleep 0.4\n  echo \"$t $s $(date +%s.%N)\" >> '{g}'\nfi\ngrep -q 'return *keep' \"$1\"",
        g = log.display()
    );
    let script = env.script("t.sh", &body);
    let out = Command::new(env!("CARGO_BIN_EXE_reduce"))
        .args(["-j4", "-o", "-", "--test"])
        .env("XDG_CACHE_HOME", env.join("cache"))
        .arg(&script)
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "return keep\n");
    let runs: Vec<(String, f64, f64)> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.rsplitn(3, ' ').collect();
            (
                f[2].to_string(),
                f[1].parse().unwrap(),
                f[0].parse().unwrap(),
            )
        })
        .collect();
    // the laid-out text twice (its test and its re-check), the empty file once, all at once
    let laid_out = runs.iter().filter(|r| r.0 == "return keep|").count();
    assert_eq!(laid_out, 2, "{runs:?}");
    assert_eq!(runs.len(), 3, "{runs:?}");
    let last_start = runs.iter().map(|r| r.1).fold(f64::MIN, f64::max);
    let first_end = runs.iter().map(|r| r.2).fold(f64::MAX, f64::min);
    assert!(last_start < first_end, "not at once: {runs:?}");
}

/// `REDUCE_TRACE=FILE` (src/trace.rs) writes the timeline `bench/chain_trace.py` reads: at `-j1`
/// one start per test run, each ended once, a decision never before its run's end, the passes named.
#[test]
fn the_trace_has_one_start_and_one_end_per_test_run() {
    let dir = tempfile::tempdir().unwrap();
    let case = fixture("nested-if");
    let name = crate::util::fixture_input(&case);
    let input = dir.path().join(&name);
    std::fs::copy(case.join(&name), &input).unwrap();
    let stats = dir.path().join("stats.json");
    let args = ["-q", "-j1", "--stats-json", stats.to_str().unwrap()];
    let (test, out) = (case.join("interesting.sh"), dir.path().join("out"));
    let text = traced(dir.path(), &args, &test, &out, &input);
    let stats: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    let events: Vec<(f64, &str, &str)> = text
        .lines()
        .map(|l| {
            let mut parts = l.splitn(3, ' ');
            let t = parts.next().unwrap().parse().unwrap();
            (t, parts.next().unwrap(), parts.next().unwrap())
        })
        .collect();
    let of =
        |kind: &str| -> Vec<&str> { events.iter().filter(|e| e.1 == kind).map(|e| e.2).collect() };
    let (starts, mut ends) = (of("S"), of("D"));
    assert_eq!(
        starts.len() as u64,
        stats["tests"].as_u64().unwrap(),
        "{text}"
    );
    let mut sorted = starts.clone();
    sorted.sort_unstable();
    ends.sort_unstable();
    assert_eq!(sorted, ends, "every run ends once");
    let when = |kind: &str, ticket: &str| events.iter().find(|e| e.1 == kind && e.2 == ticket);
    for decided in events.iter().filter(|e| e.1 == "C") {
        if let Some(end) = when("D", decided.2) {
            assert!(end.0 <= decided.0, "decided before its run ended: {text}");
        }
    }
    assert!(of("C").len() > starts.len() / 2, "{text}");
    assert!(of("P").iter().any(|p| p.starts_with("perses")), "{text}");
    assert!(events.windows(2).all(|w| w[0].0 <= w[1].0), "in time order");
}

/// With local tests that compute and `-j` well above the CPU count, the CPUs saturate and the
/// throttle (src/throttle.rs) gives up slots: the trace's `R` events show a room below `-j`.
/// The result is the one the test allows, as at any `-j`.
#[test]
fn tests_that_saturate_the_cpus_get_fewer_slots_than_j() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus > 16 {
        eprintln!(
            "skipped: {cpus} CPUs would need {} busy tests at once",
            4 * cpus
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.txt");
    let lines: Vec<String> = (0..60)
        .map(|i| {
            if i == 37 {
                "keep".into()
            } else {
                format!("line {i}")
            }
        })
        .collect();
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    // each test burns 30 ms of CPU per CPU, whatever its verdict: enough work for several of
    // the throttle's samples on any number of CPUs
    let burn = 0.03 * cpus as f64;
    let test = dir.path().join("burn.sh");
    std::fs::write(
        &test,
        format!(
            "#!/bin/sh\npython3 -c 'import time\nend = time.process_time() + {burn}\nwhile time.process_time() < end: pass'\ngrep -qx keep \"$1\"\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&test, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = dir.path().join("out");
    let j = (4 * cpus).to_string();
    let args = ["-q", "--algo", "ddmin", "--no-persistent-cache", "-j", &j];
    let text = traced(dir.path(), &args, &test, &out, &input);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep\n");
    let rooms: Vec<usize> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (f.get(1) == Some(&"R")).then(|| f[2].parse().unwrap())
        })
        .collect();
    assert!(!rooms.is_empty(), "no throttle sample in a run of -j{j}");
    assert!(
        rooms.iter().any(|&r| r < 4 * cpus),
        "the room never fell below -j{j}: {rooms:?}"
    );
    assert!(
        rooms.iter().all(|&r| r >= cpus),
        "below the CPU count: {rooms:?}"
    );
}
