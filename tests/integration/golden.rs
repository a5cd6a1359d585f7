//! Golden runs: every `fixtures/<case>/` with an `input.c` and an `interesting.sh` is reduced by
//! each algorithm that has an `expected.<algo>.c` there, and the output must match it byte for
//! byte and still pass the case's test. `REDUCE_BLESS=1 cargo test --test integration golden`
//! rewrites the expected files (new algorithms for a case: create an empty expected file first).

use std::path::{Path, PathBuf};
use std::process::Command;

const ALGOS: [&str; 4] = ["ddmin", "bytes", "hdd", "perses"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("fixtures/ exists")
        .map(|e| e.expect("readable fixtures/").path())
        .filter(|p| p.join("input.c").is_file() && p.join("interesting.sh").is_file())
        .collect();
    cases.sort();
    cases
}

fn reduce_case(case: &Path, algo: &str) -> (Vec<u8>, serde_json::Value) {
    crate::util::reduce_fixture(case, &["-j1", "--algo", algo])
}

fn passes(case: &Path, bytes: &[u8]) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("input.c");
    std::fs::write(&file, bytes).unwrap();
    Command::new(case.join("interesting.sh"))
        .arg(&file)
        .current_dir(dir.path())
        .status()
        .unwrap()
        .success()
}

#[test]
fn every_fixture_reduces_to_its_golden_output() {
    let bless = std::env::var_os("REDUCE_BLESS").is_some();
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for case in cases() {
        for algo in ALGOS {
            let expected_path = case.join(format!("expected.{algo}.c"));
            if !expected_path.exists() {
                continue;
            }
            let (got, _) = reduce_case(&case, algo);
            assert!(
                passes(&case, &got),
                "{algo} result for {} fails its test",
                case.display()
            );
            checked += 1;
            if bless {
                std::fs::write(&expected_path, &got).unwrap();
            } else if std::fs::read(&expected_path).unwrap() != got {
                mismatches.push(format!(
                    "{}: --algo {algo}\n--- expected\n{}\n--- got\n{}",
                    case.display(),
                    String::from_utf8_lossy(&std::fs::read(&expected_path).unwrap()),
                    String::from_utf8_lossy(&got)
                ));
            }
        }
    }
    assert!(checked >= 6, "only {checked} golden files found");
    assert!(
        mismatches.is_empty(),
        "golden mismatches (REDUCE_BLESS=1 accepts them):\n{}",
        mismatches.join("\n")
    );
}

fn squash(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn perses_collapses_the_nested_ifs_and_hdd_keeps_them() {
    let case = fixtures().join("nested-if");
    let (perses, _) = reduce_case(&case, "perses");
    let compact: String = squash(&perses).split(' ').collect();
    // 9 tokens, as C-Reduce: the token windows drop the `int` (gnu89 allows implicit int)
    assert_eq!(
        compact,
        "main(){crash();}",
        "modulo whitespace: {}",
        squash(&perses)
    );
    let (deletion_only, _) = crate::util::reduce_fixture(&case, &["-j1", "--no-rewrites"]);
    let compact: String = squash(&deletion_only).split(' ').collect();
    assert_eq!(compact, "intmain(){crash();}", "{}", squash(&deletion_only));
    let (hdd, _) = reduce_case(&case, "hdd");
    let hdd = squash(&hdd);
    assert!(hdd.contains("if (c1)") && hdd.contains("if (c3)"), "{hdd}");
}

#[test]
fn perses_ends_smaller_and_with_fewer_test_runs_than_ddmin_on_the_larger_fixture() {
    let case = fixtures().join("inventory");
    let (perses, p) = reduce_case(&case, "perses");
    let (ddmin, d) = reduce_case(&case, "ddmin");
    assert!(passes(&case, &perses) && passes(&case, &ddmin));
    assert!(
        perses.len() < ddmin.len(),
        "{} vs {}",
        perses.len(),
        ddmin.len()
    );
    assert!(
        p["tests"].as_u64() < d["tests"].as_u64(),
        "{} vs {}",
        p["tests"],
        d["tests"]
    );
}
