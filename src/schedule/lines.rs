//! The schedule's passes over plain lines: the guard that makes the tree passes yield to a line
//! sweep when they stall, the sweep at the schedule's fixpoint, and the blank lines deletions
//! leave, swept at the end.
//!
//! Why a guard: the tree front end can fail where plain lines do not (a grammar that misreads
//! the file, a rendering or a prefilter that turns every candidate down, a table in one string
//! token that no grammar splits), and ddmin over lines needs none of it, so the default path
//! must not end behind it. The rule counts test runs only, as the serial run charges them, so it
//! decides the same at every `-j` and never on timing: after [`STALL_RUNS`] runs in a row
//! without a smaller best (and at least [`STALL_RUNS_PER_LINE`] for each line of the text), on a
//! text of at least [`GUARD_MIN_BYTES`], one chunk sweep over the lines runs, its chunks halving
//! from the whole text down to `2 * lines / STALL_RUNS` lines (about `4 * STALL_RUNS`
//! candidates when nothing goes; more when chunks do, each success going on at its size). Then
//! the tree goes on, on the smaller text. The count pauses until the best gets smaller, so a
//! text the sweep could not shrink is left to the tree. At the schedule's fixpoint, a text still
//! that large gets one sweep down to single lines ([`Driver::last_sweep`]), and the schedule
//! goes on if it shrank: a result below [`GUARD_MIN_BYTES`] pays nothing for either.

use anyhow::Result;

use super::Driver;
use crate::engine::reduce;
use crate::engine::tester::{SegmentsOracle, StallLimit};
use crate::policy::ddmin::Sweep;
use crate::policy::giveup::GiveUp;
use crate::policy::{Only, Unit};
use crate::tree::render::Segments;

/// Test runs in a row without a smaller best after which the tree passes yield to the line
/// sweep (see the module's comment)...
pub(super) const STALL_RUNS: u64 = 256;

/// ... and at least this many for each line of the text: a deletion round over a long list
/// fails about two candidates an element between its successes by design (perses over a
/// 1,280-line JSON file: 2,410 runs in all, with stretches of hundreds of failures), which is
/// no stall.
pub(super) const STALL_RUNS_PER_LINE: u64 = 2;

/// The guard's limit for [`Tester::set_stall_limit`](crate::engine::tester::Tester::set_stall_limit).
pub(super) const STALL: StallLimit = StallLimit {
    runs: STALL_RUNS,
    per_line: STALL_RUNS_PER_LINE,
};

/// No guard on a smaller text: its rounds are short, and its last rounds fail every candidate
/// by design (they check the fixpoint), which is no stall.
const GUARD_MIN_BYTES: usize = 4096;

/// The end's sweep of blank lines gives up after this many rejected candidates in a row (a
/// test that reads line numbers rejects every one).
const BLANK_LINES_GIVE_UP: usize = 16;

impl Driver<'_> {
    /// When the run has stalled ([`Tester::stalled`](crate::engine::tester::Tester::stalled)):
    /// the line sweep, on a text large enough, and the count pauses until the best gets smaller.
    /// Returns whether the run had stalled (a deletion round it cut short goes on).
    pub(super) fn guard(&mut self) -> Result<bool> {
        if !self.tester.stalled() {
            return Ok(false);
        }
        self.tester.pause_stall();
        if self.tester.best.len() >= GUARD_MIN_BYTES && !self.tester.stopped() {
            self.measure("line-sweep", Self::line_sweep)?;
        }
        Ok(true)
    }

    /// At the schedule's fixpoint, a text still at least [`GUARD_MIN_BYTES`]: what the tree
    /// passes cannot split (a long string, a region the grammar misreads) may still go by
    /// lines, so one sweep over the lines down to single lines (as `--algo ddmin` would);
    /// returns whether it shrank the text (then the schedule goes on from there). A result that
    /// small costs nothing: the sweep runs only on results of at least that size.
    pub(super) fn last_sweep(&mut self) -> Result<bool> {
        let before = self.tester.best.len();
        if before < GUARD_MIN_BYTES || self.tester.stopped() {
            return Ok(false);
        }
        self.measure("last-line-sweep", |d| d.sweep_lines(|_| 1))?;
        Ok(self.tester.best.len() < before && !self.tester.stopped())
    }

    /// Chunks of lines, halving from the whole text down to `2 * lines / STALL_RUNS` lines.
    fn line_sweep(&mut self) -> Result<()> {
        self.sweep_lines(|lines| (2 * lines).div_ceil(STALL_RUNS as usize))
    }

    /// Chunks of lines, halving from the whole text down to `floor(lines)` lines.
    fn sweep_lines(&mut self, floor: impl Fn(usize) -> usize) -> Result<()> {
        let segments = Segments::lines(self.tester.best.to_vec());
        let floor = floor(segments.len()).max(1);
        let units: Vec<Unit> = (0..segments.len() as Unit).collect();
        let mut oracle = SegmentsOracle::new(&segments, self.tester);
        reduce(units, &mut oracle, &mut Sweep::down_to(floor));
        Ok(())
    }

    /// The blank lines (only blanks before their line break) the test does not need: all at
    /// once, else by halves. Deletions keep the line breaks around what they delete, and no
    /// layout but the brace languages' drops them.
    pub(super) fn blank_lines(&mut self) -> Result<()> {
        let segments = Segments::lines(self.tester.best.to_vec());
        let blank: Vec<Unit> = (0..segments.len() as Unit)
            .filter(|&u| {
                let (a, b) = segments.spans[u as usize];
                is_blank(&segments.src[a as usize..b as usize])
            })
            .collect();
        if blank.is_empty() {
            return Ok(());
        }
        let units: Vec<Unit> = (0..segments.len() as Unit).collect();
        let mut oracle = SegmentsOracle::new(&segments, self.tester);
        let mut policy = GiveUp::new(Only::new(blank, Sweep::new()), Some(BLANK_LINES_GIVE_UP));
        reduce(units, &mut oracle, &mut policy);
        Ok(())
    }
}

/// A line of blanks only, with its line break.
fn is_blank(line: &[u8]) -> bool {
    line.ends_with(b"\n") && line.trim_ascii().is_empty()
}

/// Whether `text` has a blank line ([`Driver::blank_lines`] has something to try).
pub(super) fn has_blank_line(text: &[u8]) -> bool {
    text.split_inclusive(|&b| b == b'\n').any(is_blank)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_line_has_only_blanks_before_its_line_break() {
        assert!(is_blank(b"\n") && is_blank(b"  \t\r\n"));
        assert!(
            !is_blank(b"  x\n") && !is_blank(b"   "),
            "text, or no line break"
        );
        assert!(has_blank_line(b"a\n\nb\n") && has_blank_line(b"a\n \r\nb"));
        assert!(!has_blank_line(b"a\nb\n") && !has_blank_line(b"a\n  "));
    }
}
