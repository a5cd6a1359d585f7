use super::*;

/// Whether `needle` occurs contiguously in `hay`.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// An oracle answering interesting for candidates that contain `needle`.
fn needle_oracle(needle: &'static [u8]) -> impl FnMut(&[u8]) -> Option<Verdict> {
    move |c| Some(verdict(contains(c, needle)))
}

/// The verdict for a yes/no answer.
fn verdict(interesting: bool) -> Verdict {
    if interesting {
        Verdict::Interesting
    } else {
        Verdict::NotInteresting
    }
}

fn budget(max: u64) -> Settings {
    Settings {
        max_attempts: Some(max),
    }
}

/// Reduces `abcXYZdef` against "contains XYZ" with the given settings.
fn reduce_trace_example(settings: Settings) -> (Vec<u8>, u64, u64, Completion) {
    let mut ws = Workspace::new(9).expect("nine bytes fit");
    let mut oracle = needle_oracle(b"XYZ");
    let out = reduce_bytes(&mut ws, b"abcXYZdef", &mut oracle, settings).expect("runs");
    (
        out.bytes.to_vec(),
        out.attempts,
        out.reductions,
        out.completion,
    )
}

#[test]
fn abc_xyz_def_follows_the_fourteen_attempts_of_the_trace_to_xyz() {
    let mut ws = Workspace::new(9).unwrap();
    let mut seen: Vec<String> = Vec::new();
    let mut oracle = |c: &[u8]| {
        seen.push(String::from_utf8(c.to_vec()).unwrap());
        Some(verdict(contains(c, b"XYZ")))
    };
    let out = reduce_bytes(&mut ws, b"abcXYZdef", &mut oracle, Settings::default()).unwrap();
    assert_eq!(out.bytes, b"XYZ");
    assert_eq!(out.attempts, 14);
    assert_eq!(out.reductions, 2);
    assert_eq!(out.completion, Completion::OneMinimal);
    let expected = [
        "abcXYZdef",
        "",
        "Zdef",
        "abcXY",
        "XYZdef",
        "",
        "def",
        "XYZ",
        "",
        "Z",
        "XY",
        "YZ",
        "XZ",
        "XY",
    ];
    assert_eq!(seen, expected);
}

#[test]
fn abcd_under_a_or_cd_ends_one_minimal_at_cd_though_a_is_shorter() {
    let mut ws = Workspace::new(4).unwrap();
    let mut oracle = |c: &[u8]| Some(verdict(c.contains(&b'A') || contains(c, b"CD")));
    let out = reduce_bytes(&mut ws, b"ABCD", &mut oracle, Settings::default()).unwrap();
    assert_eq!(out.bytes, b"CD");
    assert_eq!(out.completion, Completion::OneMinimal);
}

#[test]
fn a_zero_budget_fails_before_touching_the_workspace() {
    let mut ws = Workspace::new(9).unwrap();
    ws.buf.fill(0xA5);
    let mut calls = 0;
    let mut oracle = |_: &[u8]| {
        calls += 1;
        Some(Verdict::Interesting)
    };
    let err = reduce_bytes(&mut ws, b"abcXYZdef", &mut oracle, budget(0)).unwrap_err();
    assert_eq!(err, BytesError::AttemptBudgetExhausted);
    assert_eq!(calls, 0);
    assert!(ws.buf.iter().all(|&b| b == 0xA5));
}

#[test]
fn a_budget_of_one_on_empty_interesting_input_is_one_minimal() {
    let mut ws = Workspace::new(0).unwrap();
    let mut oracle = |_: &[u8]| Some(Verdict::Interesting);
    let out = reduce_bytes(&mut ws, b"", &mut oracle, budget(1)).unwrap();
    assert_eq!(out.bytes, b"");
    assert_eq!(out.attempts, 1);
    assert_eq!(out.reductions, 0);
    assert_eq!(out.completion, Completion::OneMinimal);
}

#[test]
fn a_budget_of_one_on_nonempty_input_returns_the_input_unchanged() {
    let (bytes, attempts, reductions, completion) = reduce_trace_example(budget(1));
    assert_eq!(bytes, b"abcXYZdef");
    assert_eq!(attempts, 1);
    assert_eq!(reductions, 0);
    assert_eq!(completion, Completion::BudgetExhausted);
}

#[test]
fn a_budget_of_exactly_fourteen_still_certifies_one_minimal() {
    let (bytes, attempts, reductions, completion) = reduce_trace_example(budget(14));
    assert_eq!(bytes, b"XYZ");
    assert_eq!((attempts, reductions), (14, 2));
    assert_eq!(completion, Completion::OneMinimal);
}

#[test]
fn a_budget_of_thirteen_is_exhausted_holding_xyz() {
    let (bytes, attempts, reductions, completion) = reduce_trace_example(budget(13));
    assert_eq!(bytes, b"XYZ");
    assert_eq!((attempts, reductions), (13, 2));
    assert_eq!(completion, Completion::BudgetExhausted);
}

#[test]
fn empty_interesting_input_is_already_one_minimal() {
    let mut ws = Workspace::new(5).unwrap();
    let mut oracle = |_: &[u8]| Some(Verdict::Interesting);
    let out = reduce_bytes(&mut ws, b"", &mut oracle, Settings::default()).unwrap();
    assert_eq!(out.bytes, b"");
    assert_eq!((out.attempts, out.reductions), (1, 0));
    assert_eq!(out.completion, Completion::OneMinimal);
}

#[test]
fn reducing_to_the_empty_sequence_ends_one_minimal_after_two_attempts() {
    let mut ws = Workspace::new(3).unwrap();
    let mut oracle = |_: &[u8]| Some(Verdict::Interesting);
    let out = reduce_bytes(&mut ws, b"abc", &mut oracle, Settings::default()).unwrap();
    assert_eq!(out.bytes, b"");
    assert_eq!((out.attempts, out.reductions), (2, 1));
    assert_eq!(out.completion, Completion::OneMinimal);
}

#[test]
fn input_longer_than_the_capacity_is_rejected_without_touching_the_workspace() {
    let mut ws = Workspace::new(3).unwrap();
    ws.buf.fill(0x5A);
    let mut calls = 0;
    let mut oracle = |_: &[u8]| {
        calls += 1;
        Some(Verdict::Interesting)
    };
    let err = reduce_bytes(&mut ws, b"abcd", &mut oracle, Settings::default()).unwrap_err();
    let expected = BytesError::InputCapacityExceeded {
        len: 4,
        capacity: 3,
    };
    assert_eq!(err, expected);
    assert_eq!(calls, 0);
    assert!(ws.buf.iter().all(|&b| b == 0x5A));
}

#[test]
fn capacity_for_zero_bytes_is_zero_bytes() {
    let cap = Capacity::derive(0).unwrap();
    assert_eq!(cap.bytes, 0);
    assert_eq!(Workspace::new(0).unwrap().capacity(), cap);
}

#[test]
fn capacity_for_nine_bytes_is_seventeen_bytes() {
    let cap = Capacity::derive(9).unwrap();
    assert_eq!(
        cap,
        Capacity {
            max_input: 9,
            bytes: 17
        }
    );
    assert_eq!(Workspace::new(9).unwrap().buf.len(), 17);
}

#[test]
fn capacity_for_usize_max_overflows() {
    assert_eq!(
        Capacity::derive(usize::MAX),
        Err(BytesError::CapacityOverflow)
    );
    assert_eq!(
        Workspace::new(usize::MAX).unwrap_err(),
        BytesError::CapacityOverflow
    );
}

#[test]
fn an_uninteresting_initial_input_is_an_error() {
    let mut ws = Workspace::new(9).unwrap();
    let mut oracle = needle_oracle(b"QQQ");
    let err = reduce_bytes(&mut ws, b"abcXYZdef", &mut oracle, Settings::default());
    assert_eq!(err, Err(BytesError::InitialNotInteresting));
}

#[test]
fn an_oracle_asking_to_stop_returns_the_best_sequence_so_far() {
    let mut ws = Workspace::new(9).unwrap();
    let mut calls = 0;
    // Stop on attempt 7, after reduction 1 accepted "XYZdef" on attempt 5.
    let mut oracle = |c: &[u8]| {
        calls += 1;
        (calls < 7).then(|| verdict(contains(c, b"XYZ")))
    };
    let out = reduce_bytes(&mut ws, b"abcXYZdef", &mut oracle, Settings::default()).unwrap();
    assert_eq!(out.bytes, b"XYZdef");
    assert_eq!((out.attempts, out.reductions), (7, 1));
    assert_eq!(out.completion, Completion::Stopped);
}

#[test]
fn an_oracle_stopping_on_attempt_one_returns_the_input_as_it_arrived() {
    let mut ws = Workspace::new(9).unwrap();
    let mut oracle = |_: &[u8]| None;
    let out = reduce_bytes(&mut ws, b"abcXYZdef", &mut oracle, Settings::default()).unwrap();
    assert_eq!(out.bytes, b"abcXYZdef");
    assert_eq!((out.attempts, out.reductions), (1, 0));
    assert_eq!(out.completion, Completion::Stopped);
}

#[test]
fn an_unreduced_result_borrows_the_callers_input() {
    let mut ws = Workspace::new(9).unwrap();
    let input = b"XYZ".to_vec();
    let mut oracle = needle_oracle(b"XYZ");
    let out = reduce_bytes(&mut ws, &input, &mut oracle, Settings::default()).unwrap();
    assert_eq!(out.reductions, 0);
    assert_eq!(out.completion, Completion::OneMinimal);
    assert!(std::ptr::eq(out.bytes, input.as_slice()));
}

#[test]
fn a_workspace_serves_two_runs_in_a_row() {
    let mut ws = Workspace::new(9).unwrap();
    let mut xyz = needle_oracle(b"XYZ");
    let first = reduce_bytes(&mut ws, b"abcXYZdef", &mut xyz, Settings::default())
        .unwrap()
        .bytes
        .to_vec();
    let mut q = needle_oracle(b"q");
    let second = reduce_bytes(&mut ws, b"pqrs", &mut q, Settings::default()).unwrap();
    assert_eq!(first, b"XYZ");
    assert_eq!(second.bytes, b"q");
    assert_eq!(second.completion, Completion::OneMinimal);
}

#[test]
fn every_error_displays_as_one_sentence() {
    let errors = [
        BytesError::CapacityOverflow,
        BytesError::AttemptBudgetExhausted,
        BytesError::InputCapacityExceeded {
            len: 4,
            capacity: 3,
        },
        BytesError::InitialNotInteresting,
    ];
    for err in errors {
        let text = err.to_string();
        assert!(text.starts_with("the "), "{text}");
        assert!(!text.contains('\n'), "{text}");
    }
    assert!(errors[2].to_string().contains("4 bytes"));
}

/// A tiny linear congruential generator, enough for reproducible test inputs.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    /// A random input of up to 23 bytes over `x`, `y` and two fillers.
    fn input(&mut self) -> Vec<u8> {
        let len = (self.next() % 24) as usize;
        (0..len)
            .map(|_| b"xyab"[(self.next() % 4) as usize])
            .collect()
    }
}

/// Monotone oracle: some `x` is followed, not necessarily directly, by some `y`.
fn x_then_y(c: &[u8]) -> bool {
    c.iter()
        .position(|&b| b == b'x')
        .is_some_and(|i| c[i..].contains(&b'y'))
}

/// `s` without its byte at `i`.
fn delete(s: &[u8], i: usize) -> Vec<u8> {
    let mut out = s.to_vec();
    out.remove(i);
    out
}

#[test]
fn random_inputs_reduce_to_interesting_one_minimal_results() {
    let mut rng = Lcg(0x5EED);
    let mut ws = Workspace::new(23).unwrap();
    let mut oracle = |c: &[u8]| Some(verdict(x_then_y(c)));
    let mut checked = 0;
    for _ in 0..400 {
        let input = rng.input();
        let result = reduce_bytes(&mut ws, &input, &mut oracle, Settings::default());
        if !x_then_y(&input) {
            assert_eq!(result, Err(BytesError::InitialNotInteresting));
            continue;
        }
        let out = result.unwrap();
        assert!(x_then_y(out.bytes));
        assert!(out.bytes.len() <= input.len());
        assert_eq!(out.completion, Completion::OneMinimal);
        for i in 0..out.bytes.len() {
            assert!(!x_then_y(&delete(out.bytes, i)), "{:?}", out.bytes);
        }
        assert_eq!(out.bytes, b"xy");
        checked += 1;
    }
    assert!(checked > 100, "only {checked} interesting inputs");
}

#[test]
fn random_budgets_still_return_interesting_results_within_budget() {
    let mut rng = Lcg(42);
    let mut ws = Workspace::new(23).unwrap();
    let mut oracle = |c: &[u8]| Some(verdict(x_then_y(c)));
    for _ in 0..300 {
        let input = rng.input();
        let max = 1 + rng.next() % 30;
        let Ok(out) = reduce_bytes(&mut ws, &input, &mut oracle, budget(max)) else {
            assert!(!x_then_y(&input));
            continue;
        };
        assert!(x_then_y(out.bytes));
        assert!(out.bytes.len() <= input.len());
        assert!(out.attempts <= max);
        if out.completion == Completion::BudgetExhausted {
            assert_eq!(out.attempts, max);
        }
    }
}
