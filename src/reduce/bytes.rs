//! Byte-level test-case reduction with a workspace allocated once (specification `seeds/004`).
//!
//! This module owns three things:
//!
//! - **The workspace layout.** [`Capacity::derive`] sizes a workspace for inputs of at most `N`
//!   bytes as `N + max(N - 1, 0)` bytes, and [`Workspace::new`] allocates exactly that once. A run
//!   splits the buffer into a *witness lane* of `N` bytes and a *scratch lane* of `N - 1` bytes;
//!   every candidate is strictly shorter than the sequence it comes from, so it always fits in
//!   either lane. Accepting a candidate swaps which lane holds the current sequence, so no bytes
//!   are ever copied back. The exclusive lease of the specification is the `&mut Workspace`
//!   borrow held by the returned [`BytesOutcome`]: the compiler rules out a second run (or
//!   feeding a result back in without copying it) while a result is alive.
//! - **The deletion search.** [`reduce_bytes`] runs contiguous deletion sweeps over the current
//!   sequence. The chunk (bytes deleted per candidate) starts at the whole length, so the first
//!   candidate is the empty sequence; after a failed sweep it is halved with ceiling division,
//!   and after a reduction (an interesting, strictly shorter candidate) it resets to the new
//!   whole length (greedy restart). A failed sweep at chunk 1 proves the result 1-minimal: no
//!   single byte can be deleted from it on its own. 1-minimal is not globally shortest: `"ABCD"`
//!   under "contains `'A'` or `"CD"`" ends at `"CD"` although `"A"` would do.
//! - **The stopping conditions.** [`Completion`] records why a run ended: 1-minimality, the
//!   attempt budget ([`Settings::max_attempts`], counting every oracle call including the one on
//!   the caller's own input), or the oracle asking to stop.
//!
//! Apart from whatever the oracle does, a run allocates nothing: candidates are assembled in the
//! scratch lane by `without()`, and the oracle receives borrowed slices that it must not retain.

use std::fmt;
use std::mem;

use super::Verdict;

/// The workspace layout derived from the longest input a workspace must accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity {
    /// The longest input, in bytes, a run on this workspace accepts (`N`).
    pub max_input: usize,
    /// The total workspace size: `N` witness bytes plus `max(N - 1, 0)` scratch bytes.
    pub bytes: usize,
}

impl Capacity {
    /// Computes the layout for inputs of at most `max_input` bytes, allocating nothing.
    ///
    /// Fails with [`BytesError::CapacityOverflow`] when the total does not fit in `usize`.
    pub fn derive(max_input: usize) -> Result<Capacity, BytesError> {
        let scratch = max_input.saturating_sub(1);
        let bytes = max_input
            .checked_add(scratch)
            .ok_or(BytesError::CapacityOverflow)?;
        Ok(Capacity { max_input, bytes })
    }
}

/// A reusable, double-buffered byte workspace: one allocation made up front.
pub struct Workspace {
    /// Witness lane (`capacity.max_input` bytes) followed by the scratch lane.
    buf: Vec<u8>,
    capacity: Capacity,
}

impl Workspace {
    /// Allocates a workspace for inputs of at most `max_input` bytes.
    ///
    /// This is the only allocation the byte reducer makes; runs reuse it.
    pub fn new(max_input: usize) -> Result<Workspace, BytesError> {
        let capacity = Capacity::derive(max_input)?;
        Ok(Workspace {
            buf: vec![0; capacity.bytes],
            capacity,
        })
    }

    /// The layout this workspace was allocated with.
    pub fn capacity(&self) -> Capacity {
        self.capacity
    }

    /// Splits the buffer into the witness lane (`N` bytes) and the scratch lane (`N - 1` bytes).
    fn lanes(&mut self) -> (&mut [u8], &mut [u8]) {
        // `buf.len() == N + max(N - 1, 0) >= N`, so the split point is in bounds.
        self.buf.split_at_mut(self.capacity.max_input)
    }
}

impl fmt::Debug for Workspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Workspace")
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

/// How a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// Every single-byte deletion of the result was tried and came back uninteresting.
    OneMinimal,
    /// The attempt budget ran out first; the result carries no minimality guarantee.
    BudgetExhausted,
    /// The oracle asked to stop (for example on Ctrl-C). This is our addition to the two
    /// completions of the specification; the result carries no minimality guarantee.
    Stopped,
}

/// Options for one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// The most oracle calls the run may make, the call on the initial input included.
    /// `None` means unlimited.
    pub max_attempts: Option<u64>,
}

/// The result of a run.
#[derive(Debug, PartialEq, Eq)]
pub struct BytesOutcome<'w> {
    /// The shortest interesting sequence found: the caller's `initial` when no reduction
    /// happened, otherwise one of the workspace lanes.
    pub bytes: &'w [u8],
    /// Oracle calls made, the call on the initial input included.
    pub attempts: u64,
    /// Candidates accepted, each strictly shorter than the sequence it replaced.
    pub reductions: u64,
    /// Why the run stopped.
    pub completion: Completion,
}

/// Errors of workspace sizing and of starting a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BytesError {
    /// `N + max(N - 1, 0)` does not fit in `usize`.
    CapacityOverflow,
    /// The budget is zero, so not even the initial input can be checked.
    AttemptBudgetExhausted,
    /// The input is longer than the workspace was sized for.
    InputCapacityExceeded {
        /// The length of the rejected input.
        len: usize,
        /// The workspace's `max_input`.
        capacity: usize,
    },
    /// The oracle rejected the caller's own input (attempt 1).
    InitialNotInteresting,
}

impl fmt::Display for BytesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BytesError::CapacityOverflow => {
                write!(f, "the workspace size for this input limit overflows usize")
            }
            BytesError::AttemptBudgetExhausted => write!(
                f,
                "the attempt budget is zero, so not even the initial input can be checked"
            ),
            BytesError::InputCapacityExceeded { len, capacity } => write!(
                f,
                "the input is {len} bytes long, more than the workspace capacity of {capacity} bytes"
            ),
            BytesError::InitialNotInteresting => {
                write!(f, "the initial input is not interesting to the oracle")
            }
        }
    }
}

impl std::error::Error for BytesError {}

/// Reduces `initial` by deleting runs of bytes while `oracle` keeps answering interesting.
///
/// The oracle returns `Some(verdict)`, or `None` to ask the run to stop now; the run then returns
/// `Ok` with [`Completion::Stopped`] and the best sequence so far (the unverified `initial` when
/// the stop comes on attempt 1). Attempt 1 hands the oracle `initial` itself; later attempts hand
/// it a slice of the scratch lane that the next attempt overwrites.
///
/// Errors: a zero budget ([`BytesError::AttemptBudgetExhausted`]) and an input longer than the
/// workspace ([`BytesError::InputCapacityExceeded`]) are reported before the workspace is
/// touched; an uninteresting `initial` is [`BytesError::InitialNotInteresting`].
pub fn reduce_bytes<'w>(
    ws: &'w mut Workspace,
    initial: &'w [u8],
    oracle: &mut dyn FnMut(&[u8]) -> Option<Verdict>,
    settings: Settings,
) -> Result<BytesOutcome<'w>, BytesError> {
    if settings.max_attempts == Some(0) {
        return Err(BytesError::AttemptBudgetExhausted);
    }
    let capacity = ws.capacity.max_input;
    if initial.len() > capacity {
        return Err(BytesError::InputCapacityExceeded {
            len: initial.len(),
            capacity,
        });
    }
    let mut run = Run {
        oracle,
        attempts: 0,
        max_attempts: settings.max_attempts,
    };
    let mut lanes = Lanes::new(initial, ws);
    let completion = match run.ask(initial) {
        None => Completion::Stopped,
        Some(Verdict::NotInteresting) => return Err(BytesError::InitialNotInteresting),
        Some(Verdict::Interesting) => search(&mut lanes, &mut run),
    };
    let reductions = lanes.reductions;
    Ok(BytesOutcome {
        bytes: lanes.into_current(),
        attempts: run.attempts,
        reductions,
        completion,
    })
}

/// Runs sweeps with a shrinking chunk until the current sequence is 1-minimal or the run ends.
fn search(lanes: &mut Lanes<'_>, run: &mut Run<'_>) -> Completion {
    let mut chunk = lanes.len;
    loop {
        // The empty sequence has no byte to delete, so it is 1-minimal as it stands.
        if lanes.len == 0 {
            return Completion::OneMinimal;
        }
        match sweep(lanes, run, chunk) {
            Sweep::Reduced => chunk = lanes.len,
            Sweep::Failed if chunk == 1 => return Completion::OneMinimal,
            Sweep::Failed => chunk = chunk / 2 + chunk % 2,
            Sweep::Ended(completion) => return completion,
        }
    }
}

/// How one sweep ended.
enum Sweep {
    /// A candidate was accepted and is now the current sequence.
    Reduced,
    /// Every candidate of the sweep was uninteresting.
    Failed,
    /// The budget ran out or the oracle asked to stop.
    Ended(Completion),
}

/// Tries deleting `[start, start + chunk)` for each `start` in `(0..len).step_by(chunk)`, the
/// last run clipped to the end, and accepts the first interesting candidate.
///
/// The budget is checked only before an oracle call, so a sweep that fails on the last allowed
/// attempt still counts as complete.
fn sweep(lanes: &mut Lanes<'_>, run: &mut Run<'_>, chunk: usize) -> Sweep {
    let len = lanes.len;
    let mut start = 0;
    while start < len {
        if !run.budget_left() {
            return Sweep::Ended(Completion::BudgetExhausted);
        }
        let end = start.saturating_add(chunk).min(len);
        let candidate_len = lanes.build(start, end);
        match run.ask(lanes.candidate(candidate_len)) {
            None => return Sweep::Ended(Completion::Stopped),
            Some(Verdict::Interesting) => {
                lanes.accept(candidate_len);
                return Sweep::Reduced;
            }
            Some(Verdict::NotInteresting) => start = end,
        }
    }
    Sweep::Failed
}

/// Writes `source` without the bytes `[start, end)` into the front of `dest`, returning the
/// candidate's length.
///
/// Requires `start <= end <= source.len()` and room in `dest` for the result.
fn without(source: &[u8], start: usize, end: usize, dest: &mut [u8]) -> usize {
    let (prefix, rest) = source.split_at(start);
    let suffix = &rest[end - start..];
    let len = prefix.len() + suffix.len();
    dest[..prefix.len()].copy_from_slice(prefix);
    dest[prefix.len()..len].copy_from_slice(suffix);
    len
}

/// The oracle together with its attempt accounting.
struct Run<'o> {
    oracle: &'o mut dyn FnMut(&[u8]) -> Option<Verdict>,
    attempts: u64,
    max_attempts: Option<u64>,
}

impl Run<'_> {
    /// Whether one more oracle call fits in the budget.
    fn budget_left(&self) -> bool {
        self.max_attempts.is_none_or(|max| self.attempts < max)
    }

    /// Calls the oracle once, counting the attempt.
    fn ask(&mut self, candidate: &[u8]) -> Option<Verdict> {
        self.attempts += 1;
        (self.oracle)(candidate)
    }
}

/// The two lanes of a run: `held` holds the current sequence once a reduction has happened
/// (before that, the current sequence is the caller's `initial`), `spare` receives candidates.
struct Lanes<'w> {
    initial: &'w [u8],
    held: &'w mut [u8],
    spare: &'w mut [u8],
    /// Length of the current sequence.
    len: usize,
    /// Whether the current sequence lives in `held` rather than in `initial`.
    in_lane: bool,
    reductions: u64,
}

impl<'w> Lanes<'w> {
    /// Leases both lanes of `ws` for a run starting from `initial`; writes nothing.
    fn new(initial: &'w [u8], ws: &'w mut Workspace) -> Lanes<'w> {
        let (witness, scratch) = ws.lanes();
        Lanes {
            initial,
            held: witness,
            spare: scratch,
            len: initial.len(),
            in_lane: false,
            reductions: 0,
        }
    }

    /// Builds the current sequence without `[start, end)` into the spare lane; returns its
    /// length.
    fn build(&mut self, start: usize, end: usize) -> usize {
        let source = if self.in_lane {
            &self.held[..self.len]
        } else {
            self.initial
        };
        // Both lanes hold at least `N - 1` bytes and the candidate at most `len - 1 <= N - 1`.
        without(source, start, end, self.spare)
    }

    /// The candidate of length `len` last built by [`Lanes::build`].
    fn candidate(&self, len: usize) -> &[u8] {
        &self.spare[..len]
    }

    /// Makes the candidate of length `len` the current sequence by swapping the lanes.
    fn accept(&mut self, len: usize) {
        mem::swap(&mut self.held, &mut self.spare);
        self.len = len;
        self.in_lane = true;
        self.reductions += 1;
    }

    /// Ends the lease, returning the current sequence for the caller to borrow.
    fn into_current(self) -> &'w [u8] {
        if self.in_lane {
            let held: &'w [u8] = self.held;
            &held[..self.len]
        } else {
            self.initial
        }
    }
}

#[cfg(test)]
mod tests {
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
}
