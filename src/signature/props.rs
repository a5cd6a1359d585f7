//! Property tests: whatever the bytes (arbitrary, binary, real reports cut mid-line, two reports
//! interleaved line by line, huge), `derive` does not panic, its signature is bounded, survives
//! JSON, and matches itself.

use proptest::prelude::*;

use super::*;

/// Real reports to cut and mix (the fixtures are read once per case: they are small).
const REPORTS: &[&str] = &[
    "gcc-ice-coerce-big",
    "clang-backend-crc32-small",
    "clang-crash-concept-after-error",
    "asan-segv-small",
    "asan-leak",
    "tsan-race",
    "py-zerodiv-big",
    "py-chained",
    "asan-ubsan-overflow-stack",
    "go-deadlock",
    "node-typeerror-small",
    "rust-index-small",
    "java-npe",
    "go-index-small",
    "rustc-ice-mismatch-big",
    "rustc-e0782-after-e0425",
];

fn report(i: usize) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/signatures")
        .join(format!("{}.txt", REPORTS[i % REPORTS.len()]));
    let bytes = std::fs::read(path).unwrap();
    let body = bytes
        .windows(12)
        .position(|w| w == b"\n--- stderr\n")
        .unwrap()
        + 12;
    bytes[body..].to_vec()
}

fn ending() -> impl Strategy<Value = Ending> {
    prop_oneof![
        (-2i32..300).prop_map(Ending::Exited),
        (1i32..65).prop_map(Ending::Signaled),
        Just(Ending::TimedOut),
    ]
}

/// Bytes that look like output: real reports cut, mixed and sprinkled with noise.
fn output() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..2048),
        (0..REPORTS.len(), any::<prop::sample::Index>()).prop_map(|(r, cut)| {
            let bytes = report(r);
            bytes[..cut.index(bytes.len() + 1)].to_vec()
        }),
        (
            0..REPORTS.len(),
            0..REPORTS.len(),
            prop::collection::vec(any::<bool>(), 64)
        )
            .prop_map(|(a, b, picks)| {
                let (a, b) = (report(a), report(b));
                let (mut a, mut b) = (a.split(|&c| c == b'\n'), b.split(|&c| c == b'\n'));
                let mut out = Vec::new();
                for pick in picks.iter().cycle().take(400) {
                    let Some(line) = (if *pick {
                        a.next().or_else(|| b.next())
                    } else {
                        b.next().or_else(|| a.next())
                    }) else {
                        break;
                    };
                    out.extend_from_slice(line);
                    out.push(b'\n');
                }
                out
            }),
        (
            0..REPORTS.len(),
            prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..32)
        )
            .prop_map(|(r, noise)| {
                let mut bytes = report(r);
                for (at, byte) in noise {
                    let at = at.index(bytes.len() + 1);
                    bytes.insert(at, byte);
                }
                bytes
            }),
    ]
}

fn assert_bounded(s: &Signature) {
    assert!(s.key.len() <= MAX_KEY_LINES, "{s:?}");
    assert!(s.errors.len() <= MAX_ERRORS, "{s:?}");
    assert!(s.diagnostics.len() <= MAX_DIAGNOSTICS, "{s:?}");
    for line in s.key.iter().chain(&s.errors).chain(&s.diagnostics) {
        assert!(line.chars().count() <= MAX_LINE, "{line}");
    }
    assert!(s.describe().chars().count() <= 2 * MAX_LINE);
    let name = s.short_name();
    assert!(
        !name.is_empty()
            && name.len() <= 48
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
        "{name}"
    );
    let json = serde_json::to_string(s).unwrap();
    assert_eq!(&serde_json::from_str::<Signature>(&json).unwrap(), s);
    assert_eq!(s.matches(s), Ok(()), "{s:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_output_gives_a_bounded_signature(end in ending(), stdout in output(), stderr in output()) {
        if let Some(s) = derive(end, &stdout, &stderr) {
            assert_bounded(&s);
        }
    }
}

#[test]
fn huge_outputs_are_read_in_bounded_pieces() {
    // a report after an error and 6 MiB of lines, a 5 MiB line without a newline, and noise
    let mut huge = b"x.c:1:1: error: first\n".to_vec();
    huge.extend_from_slice(&b"some line of output\n".repeat(300_000));
    huge.extend_from_slice(&report(3));
    let long_line = vec![b'a'; 5 << 20];
    let binary: Vec<u8> = (0..(6u32 << 20))
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    for stream in [&huge, &long_line, &binary] {
        for (end, stdout, stderr) in [
            (Ending::Exited(1), &b""[..], &stream[..]),
            (Ending::Exited(0), stream, stream),
        ] {
            if let Some(s) = derive(end, stdout, stderr) {
                assert_bounded(&s);
            }
        }
    }
    // the report in the tail is still read: the first 4 MiB and last 1 MiB of a stream are
    let s = derive(Ending::Exited(1), b"", &huge).unwrap();
    assert_eq!(s.kind, Kind::Sanitizer);
    assert_eq!(s.errors, ["error: first"]);
}
