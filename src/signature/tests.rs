//! Signatures of real outputs (fixtures/signatures, made by its make.sh from the real tools):
//! the same bug from a larger and a smaller input matches, two different bugs do not; and
//! property tests: any bytes give a bounded signature without panicking.

use std::path::PathBuf;

use super::*;
use crate::exec::capture::Captured;

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/signatures")
}

/// A fixture's ending and stderr.
fn fixture(name: &str) -> (Ending, Vec<u8>) {
    let path = fixture_dir().join(format!("{name}.txt"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let split = bytes
        .windows(12)
        .position(|w| w == b"\n--- stderr\n")
        .expect("a --- stderr line");
    let header = String::from_utf8_lossy(&bytes[..split]);
    let ending = header
        .lines()
        .find_map(|l| l.strip_prefix("ending: "))
        .expect("an ending line");
    let ending = match ending.split_once(' ') {
        Some(("exited", n)) => Ending::Exited(n.parse().unwrap()),
        Some(("signaled", n)) => Ending::Signaled(n.parse().unwrap()),
        _ => panic!("{name}: ending {ending}"),
    };
    (ending, bytes[split + 12..].to_vec())
}

fn sig(name: &str) -> Signature {
    let (ending, stderr) = fixture(name);
    derive(ending, b"", &stderr).unwrap_or_else(|| panic!("{name}: no signature"))
}

/// Every fixture, grouped by bug: within a group all match, across groups none does.
const BUGS: &[&[&str]] = &[
    &["gcc-ice-poplevel-small", "gcc-ice-poplevel-big"],
    &["gcc-ice-poplevel-after-error"],
    &["gcc-ice-coerce-small", "gcc-ice-coerce-big"],
    &["gcc-ice-coerce-after-error"],
    &["gcc-ice-driver-segv"],
    &["clang-crash-concept-small", "clang-crash-concept-big"],
    &["clang-crash-concept-after-error"],
    &[
        "clang-backend-crc32-small",
        "clang-backend-crc32-big",
        "clang-backend-crc32-second-init",
    ],
    &["clang-error-target-feature"],
    &["clang-pragma-crash"],
    &["asan-heap-small", "asan-heap-big"],
    &["asan-uaf-small", "asan-uaf-big"],
    &["asan-segv-small", "asan-segv-big"],
    &["asan-ubsan-overflow-small", "asan-ubsan-overflow-big"],
    &["asan-ubsan-overflow-stack"],
    &["asan-ubsan-shift"],
    &["asan-stack-overflow"],
    &["asan-leak"],
    &["tsan-race"],
    &["msan-uninit"],
    &["py-zerodiv-small", "py-zerodiv-big"],
    &["py-keyerror"],
    &["py-chained"],
    &["node-typeerror-small", "node-typeerror-big"],
    &["node-rangeerror"],
    &["rust-index-small", "rust-index-big"],
    &["rust-parse"],
    &["java-index-small", "java-index-big"],
    &["java-npe"],
    &["go-index-small", "go-index-big"],
    &["go-nilmap"],
    &["go-deadlock"],
    &["rustc-ice-mismatch-small", "rustc-ice-mismatch-big"],
    &["rustc-ice-unresolved"],
    &["gcc-useless-cast-small", "gcc-useless-cast-big"],
    &["gcc-unused-variable"],
    &["rustc-e0782-small", "rustc-e0782-big"],
    &["rustc-e0782-after-e0425"],
];

/// Besides its own group, an original accepts these candidates: the same crash without the
/// original's error before it (no new error: the golden-run rule only refuses new ones).
const ALSO_ACCEPTS: &[(&str, &str)] = &[
    (
        "clang-crash-concept-after-error",
        "clang-crash-concept-small",
    ),
    ("clang-crash-concept-after-error", "clang-crash-concept-big"),
];

#[test]
fn every_fixture_is_in_a_group() {
    let mut listed: Vec<&str> = BUGS.iter().flat_map(|g| g.iter().copied()).collect();
    listed.sort();
    let mut found: Vec<String> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_suffix(".txt")
                .map(str::to_string)
        })
        .filter(|n| n != "versions")
        .collect();
    found.sort();
    assert_eq!(listed, found);
}

#[test]
fn the_same_bug_matches_and_different_bugs_do_not() {
    let groups: Vec<Vec<(&str, Signature)>> = BUGS
        .iter()
        .map(|g| g.iter().map(|&n| (n, sig(n))).collect())
        .collect();
    for (gi, group) in groups.iter().enumerate() {
        for (gj, other) in groups.iter().enumerate() {
            for (a, sa) in group {
                for (b, sb) in other {
                    let verdict = sa.matches(sb);
                    if gi == gj || ALSO_ACCEPTS.contains(&(a, b)) {
                        assert_eq!(
                            verdict,
                            Ok(()),
                            "{a} vs {b}:\n{}\n{}",
                            sa.describe(),
                            sb.describe()
                        );
                    } else {
                        assert!(verdict.is_err(), "{a} matches {b}: {}", sa.describe());
                    }
                }
            }
        }
    }
}

/// What each bug's signature keeps, in words (`describe`), and its short name: the first
/// fixture of each group of [`BUGS`] (the others match it).
const KEPT: &[(&str, &str, &str)] = &[
    (
        "gcc-ice-poplevel-small",
        "gcc-ice-poplevel-class",
        "exited 1; gcc ICE: in poplevel_class, at name-lookup.cc:5177",
    ),
    (
        "gcc-ice-poplevel-after-error",
        "gcc-ice-confused-by-earlier-errors",
        "exited 1; gcc ICE: confused by earlier errors, bailing out",
    ),
    (
        "gcc-ice-coerce-small",
        "gcc-ice-coerce-template-parms",
        "exited 1; gcc ICE: in coerce_template_parms, at pt.cc:9195",
    ),
    (
        "gcc-ice-coerce-after-error",
        "diag-error",
        r#"exited 1; diagnostic: error: '_' was not declared in this scope"#,
    ),
    (
        "gcc-ice-driver-segv",
        "gcc-ice-segmentation-fault-signal-terminated",
        "exited 4; gcc ICE: Segmentation fault signal terminated program cc1plus",
    ),
    (
        "clang-crash-concept-small",
        "clang-crash-evaluateasconstantexpr",
        "exited 139; clang crash: frame clang::Expr::EvaluateAsConstantExpr; frame clang::Sema::CheckConstraintSatisfaction; frame clang::Sema::EnsureTemplateArgumentListConstraints",
    ),
    (
        "clang-crash-concept-after-error",
        "clang-crash-evaluateasconstantexpr",
        "exited 139; clang crash: frame clang::Expr::EvaluateAsConstantExpr; frame clang::Sema::CheckConstraintSatisfaction; frame clang::Sema::EnsureTemplateArgumentListConstraints",
    ),
    (
        "clang-backend-crc32-small",
        "clang-crash-selectcodecommon",
        r#"exited 70; clang crash: error in backend: Cannot select: intrinsic %llvm.x86.sse42.crc32.32.32; pass 'X86 DAG->DAG Instruction Selection' on function; frame llvm::SelectionDAGISel::SelectCodeCommon; frame llvm::SelectionDAGISel::DoInstructionSelection; frame llvm::SelectionDAGISel::CodeGenAndEmitDAG"#,
    ),
    (
        "clang-error-target-feature",
        "diag-error",
        r#"exited 1; diagnostic: error: '_' needs target feature crc32"#,
    ),
    (
        "clang-pragma-crash",
        "clang-crash-handlepragmadirective",
        "exited 132; clang crash: frame clang::Preprocessor::HandlePragmaDirective; frame clang::Preprocessor::HandleDirective; frame clang::Lexer::LexTokenInternal",
    ),
    (
        "asan-heap-small",
        "asan-heap-buffer-overflow",
        "exited 1; sanitizer: asan heap-buffer-overflow; frame set_name; frame run_line; frame main",
    ),
    (
        "asan-uaf-small",
        "asan-heap-use-after-free",
        "exited 1; sanitizer: asan heap-use-after-free; frame show_record; frame run_line; frame main",
    ),
    (
        "asan-segv-small",
        "asan-segv",
        "exited 1; sanitizer: asan SEGV; frame find_value; frame run_line; frame main",
    ),
    (
        "asan-ubsan-overflow-small",
        "ubsan-signed-integer-overflow",
        r#"exited 0; sanitizer: ubsan signed integer overflow: N + N cannot be represented in type '_'"#,
    ),
    (
        "asan-ubsan-overflow-stack",
        "ubsan-signed-integer-overflow",
        r#"exited 0; sanitizer: ubsan signed integer overflow: N + N cannot be represented in type '_'; frame add; frame run_line; frame main"#,
    ),
    (
        "asan-ubsan-shift",
        "ubsan-shift-exponent",
        r#"exited 0; sanitizer: ubsan shift exponent N is too large for N-bit type '_'"#,
    ),
    (
        "asan-stack-overflow",
        "asan-stack-overflow",
        "exited 1; sanitizer: asan stack-overflow; frame nest; frame nest; frame nest",
    ),
    (
        "asan-leak",
        "lsan-detected-memory-leaks",
        "exited 1; sanitizer: lsan detected memory leaks; frame leak_buffer; frame run_line; frame main",
    ),
    (
        "tsan-race",
        "tsan-data-race",
        "exited 66; sanitizer: tsan data race; frame bump",
    ),
    (
        "msan-uninit",
        "msan-use-of-uninitialized-value",
        "exited 1; sanitizer: msan use-of-uninitialized-value; frame main",
    ),
    (
        "py-zerodiv-small",
        "python-zerodivisionerror",
        "exited 1; Python exception: ZeroDivisionError: integer division or modulo by zero; frame evaluate",
    ),
    (
        "py-keyerror",
        "python-keyerror",
        r#"exited 1; Python exception: KeyError: '_'; frame lookup"#,
    ),
    (
        "py-chained",
        "python-runtimeerror",
        "exited 1; Python exception: RuntimeError: bad settings in py-chained.in at line N; frame settings",
    ),
    (
        "node-typeerror-small",
        "js-typeerror",
        r#"exited 1; JavaScript error: TypeError: Cannot read properties of undefined (reading '_'); frame field"#,
    ),
    (
        "node-rangeerror",
        "js-rangeerror",
        "exited 1; JavaScript error: RangeError: Invalid array length; frame repeat",
    ),
    (
        "rust-index-small",
        "rust-panic-index-out-of-bounds",
        "exited 101; Rust panic: index out of bounds: the len is N but the index is N; frame calc::cell",
    ),
    (
        "rust-parse",
        "rust-panic-called-result-unwrap-on-an-err",
        "exited 101; Rust panic: called `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit }",
    ),
    (
        "java-index-small",
        "java-arrayindexoutofboundsexception",
        "exited 1; Java exception: java.lang.ArrayIndexOutOfBoundsException: Index N out of bounds for length N; frame Calc.cell",
    ),
    (
        "java-npe",
        "java-nullpointerexception",
        r#"exited 1; Java exception: java.lang.NullPointerException: Cannot invoke '_' because the return value of '_' is null; frame Calc.labelLength"#,
    ),
    (
        "go-index-small",
        "go-index-out-of-range",
        "exited 2; Go panic: runtime error: index out of range [N] with length N; frame main.cell",
    ),
    (
        "go-nilmap",
        "go-assignment-to-entry-in-nil",
        "exited 2; Go panic: assignment to entry in nil map; frame main.tag",
    ),
    (
        "go-deadlock",
        "go-fatal-all-goroutines-are-asleep",
        "exited 2; Go panic: fatal error: all goroutines are asleep - deadlock!; frame main.main",
    ),
    (
        "rustc-ice-mismatch-small",
        "rustc-ice-typeck",
        "exited 101; rustc ICE: error[E0308]: mismatched types; panicked at compiler/rustc_errors/src/lib.rs:1531:17; panic: aborting due to `-Z treat-err-as-bug=N`; query typeck; query analysis",
    ),
    (
        "rustc-ice-unresolved",
        "rustc-ice-resolver-for-lowering-raw",
        r#"exited 101; rustc ICE: error[E0425]: cannot find value '_' in this scope; panicked at compiler/rustc_errors/src/lib.rs:1531:17; panic: aborting due to `-Z treat-err-as-bug=N`; query resolver_for_lowering_raw"#,
    ),
    (
        "gcc-useless-cast-small",
        "diag-wuseless-cast",
        r#"exited 0; diagnostic: warning: useless cast to type '_' [-Wuseless-cast]"#,
    ),
    (
        "gcc-unused-variable",
        "diag-wunused-variable",
        r#"exited 0; diagnostic: warning: unused variable '_' [-Wunused-variable]"#,
    ),
    (
        "rustc-e0782-small",
        "diag-e0782",
        "exited 1; diagnostic: error[E0782]: expected a type, found a trait",
    ),
    (
        "rustc-e0782-after-e0425",
        "diag-e0425",
        r#"exited 1; diagnostic: error[E0425]: cannot find value '_' in this scope"#,
    ),
];

#[test]
fn what_is_kept_of_each_bug() {
    for &(name, short, described) in KEPT {
        let s = sig(name);
        assert_eq!(
            (s.short_name().as_str(), s.describe().as_str()),
            (short, described),
            "{name}"
        );
    }
}

fn verdict(original: &str, candidate: &str) -> Result<(), Mismatch> {
    sig(original).matches(&sig(candidate))
}

#[test]
fn a_new_kind_of_error_before_the_same_crash_is_another_failure() {
    let undeclared = |name: &str| Err(Mismatch::NewError(name.to_string()));
    assert_eq!(
        verdict("clang-crash-concept-big", "clang-crash-concept-after-error"),
        undeclared("error: use of undeclared identifier '_'")
    );
    // GCC does not print the ICE after an error: it bails out, and says so
    assert_eq!(
        verdict("gcc-ice-poplevel-big", "gcc-ice-poplevel-after-error"),
        undeclared("error: '_' was not declared in this scope")
    );
    assert_eq!(
        verdict("rustc-e0782-big", "rustc-e0782-after-e0425"),
        undeclared("error[E0425]: cannot find value '_' in this scope")
    );
    let message = verdict(
        "clang-crash-concept-small",
        "clang-crash-concept-after-error",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        message,
        "a new kind of error before the failure: error: use of undeclared identifier '_'"
    );
}

#[test]
fn a_mismatch_says_what_differs() {
    let why =
        |original: &str, candidate: &str| verdict(original, candidate).unwrap_err().to_string();
    assert_eq!(
        why("gcc-ice-poplevel-small", "gcc-ice-coerce-small"),
        "`in coerce_template_parms, at pt.cc:9195`, not `in poplevel_class, at name-lookup.cc:5177`"
    );
    assert_eq!(
        why("gcc-ice-coerce-big", "gcc-ice-coerce-after-error"),
        "diagnostic instead of gcc ICE"
    );
    assert_eq!(
        why("clang-crash-concept-small", "clang-pragma-crash"),
        "exited 132, not exited 139"
    );
    assert_eq!(
        why("clang-backend-crc32-small", "clang-error-target-feature"),
        "exited 1, not exited 70"
    );
    assert_eq!(
        why("asan-heap-small", "asan-uaf-small"),
        "`asan heap-use-after-free`, not `asan heap-buffer-overflow`"
    );
    assert_eq!(
        why("asan-segv-small", "asan-heap-small"),
        "`asan heap-buffer-overflow`, not `asan SEGV`"
    );
    assert_eq!(
        why("gcc-useless-cast-small", "gcc-unused-variable"),
        "no `warning: useless cast to type '_' [-Wuseless-cast]` in the output"
    );
    assert_eq!(
        why("go-index-small", "go-nilmap"),
        "`assignment to entry in nil map`, not `runtime error: index out of range [N] with length N`"
    );
    assert_eq!(
        why("py-zerodiv-small", "py-keyerror"),
        "`KeyError: '_'`, not `ZeroDivisionError: integer division or modulo by zero`"
    );
    // the same message from another function
    let (ending, stderr) = fixture("py-zerodiv-small");
    let moved = String::from_utf8(stderr)
        .unwrap()
        .replace("in evaluate", "in compute");
    let candidate = derive(ending, b"", moved.as_bytes()).unwrap();
    assert_eq!(
        sig("py-zerodiv-small")
            .matches(&candidate)
            .unwrap_err()
            .to_string(),
        "`frame compute`, not `frame evaluate`"
    );
}

#[test]
fn a_timeout_is_never_the_failure_unless_the_original_timed_out() {
    let (_, stderr) = fixture("asan-heap-small");
    let timed_out = derive(Ending::TimedOut, b"", &stderr).unwrap();
    let original = sig("asan-heap-small");
    assert_eq!(
        original.matches(&timed_out),
        Err(Mismatch::Ending {
            want: Ending::Exited(1),
            got: Ending::TimedOut
        })
    );
    assert_eq!(timed_out.matches(&timed_out.clone()), Ok(()));
    assert_eq!(
        original
            .matches_output(Ending::TimedOut, b"", b"")
            .unwrap_err()
            .to_string(),
        "timed out, not exited 1"
    );
    let hang = derive(Ending::TimedOut, b"", b"").unwrap();
    assert_eq!(
        (hang.describe(), hang.short_name()),
        (
            "timed out; nothing recognisable".to_string(),
            "timeout".to_string()
        )
    );
}

#[test]
fn a_run_without_a_failure_has_no_signature_and_a_bare_failure_an_empty_key() {
    assert_eq!(
        derive(Ending::Exited(0), b"all good\n", b"note: fine\n"),
        None
    );
    assert_eq!(
        sig("asan-heap-small").matches_output(Ending::Exited(0), b"", b""),
        Err(Mismatch::NotAFailure)
    );
    let bare = derive(Ending::Exited(1), b"", b"something went wrong\n").unwrap();
    assert!(bare.is_bare());
    assert_eq!(
        (bare.kind, bare.describe(), bare.short_name()),
        (
            Kind::Exit,
            "exited 1; nothing recognisable".to_string(),
            "exit-1".to_string()
        )
    );
    let killed = derive(Ending::Signaled(libc::SIGSEGV), b"", b"").unwrap();
    assert_eq!(
        (killed.describe(), killed.short_name()),
        (
            "killed by SIGSEGV; nothing recognisable".to_string(),
            "sigsegv".to_string()
        )
    );
    assert!(!sig("asan-heap-small").is_bare());
    // a bare failure still refuses a new error
    let with_error = derive(Ending::Exited(1), b"", b"x.c:1:1: error: oops\n").unwrap();
    assert_eq!(with_error.kind, Kind::Diagnostic);
}

#[test]
fn stdout_counts_when_stderr_says_nothing() {
    let (ending, stderr) = fixture("py-zerodiv-small");
    let from_stdout = derive(ending, &stderr, b"").unwrap();
    assert_eq!(sig("py-zerodiv-small").matches(&from_stdout), Ok(()));
}

#[test]
fn a_capture_with_a_gap_reads_its_head_and_tail() {
    let (ending, stderr) = fixture("asan-heap-small");
    let mut captured = Captured::default();
    captured.push(&vec![b'x'; HEAD_LIMIT + TAIL_LIMIT]);
    captured.push(b"\n");
    captured.push(&stderr);
    assert!(captured.dropped > 0);
    let s = derive(ending, b"", &captured.joined()).unwrap();
    assert_eq!(sig("asan-heap-small").matches(&s), Ok(()));
}

#[test]
fn signatures_serialize_and_hash_stably() {
    let s = sig("clang-backend-crc32-small");
    let json = serde_json::to_string(&s).unwrap();
    assert!(
        json.contains(r#""ending":{"exited":70},"kind":"clang-crash""#),
        "{json}"
    );
    assert_eq!(serde_json::from_str::<Signature>(&json).unwrap(), s);
    // the same bug hashes the same from every fixture; distinct bugs hash apart
    let mut hashes: Vec<u64> = BUGS.iter().map(|g| sig(g[0]).hash()).collect();
    for group in BUGS {
        assert!(
            group.iter().all(|n| sig(n).hash() == sig(group[0]).hash()),
            "{group:?}"
        );
    }
    hashes.sort();
    hashes.dedup();
    // concept-after-error differs from concept only in its errors, which are not its identity
    assert_eq!(hashes.len(), BUGS.len() - 1);
    // pinned: the format of the hash is part of the files named after it
    assert_eq!(
        format!("{:016x}", sig("asan-heap-small").hash()),
        "eb1be768eaf480fe"
    );
}

#[test]
fn kind_names_in_json_are_the_hashed_ids() {
    for kind in [
        Kind::GccIce,
        Kind::ClangCrash,
        Kind::RustcIce,
        Kind::Sanitizer,
        Kind::RustPanic,
        Kind::Python,
        Kind::Java,
        Kind::Go,
        Kind::Node,
        Kind::Assertion,
        Kind::Diagnostic,
        Kind::Exit,
    ] {
        assert_eq!(
            serde_json::to_string(&kind).unwrap(),
            format!("\"{}\"", kind.id())
        );
    }
}
