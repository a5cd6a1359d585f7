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
#[path = "bytes_tests.rs"]
mod tests;
