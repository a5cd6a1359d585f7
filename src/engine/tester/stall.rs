//! Test runs since the best last got smaller, in the serial run's charges (so the count, and
//! with it the schedule's guard, is the same at every `-j` and never depends on timing).

#[derive(Default)]
pub(super) struct Stall {
    /// Runs in a row without a smaller best after which the run has stalled (`None`: never).
    limit: Option<Limit>,
    /// Not stalled again until the best gets smaller.
    paused: bool,
    /// The smallest best so far, its lines, and the charged runs when it was reached.
    low: usize,
    low_lines: u64,
    low_at: u64,
}

/// Stalled after `runs` runs in a row without a smaller best, and at least `per_line` runs for
/// each line of the text: a long text's deletion rounds fail many candidates between successes
/// by design (their failures grow with the text), which is no stall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub runs: u64,
    pub per_line: u64,
}

impl Stall {
    /// No limit yet; `best` is the original.
    pub(super) fn new(best: &[u8]) -> Stall {
        let mut s = Stall::default();
        s.restart(best, 0);
        s
    }

    /// Whether the limit's runs in a row have been charged without a smaller best, and the
    /// count is not paused (`charged`: the runs charged so far).
    pub(super) fn stalled(&self, charged: u64) -> bool {
        !self.paused
            && self
                .limit
                .is_some_and(|l| charged - self.low_at >= l.runs.max(l.per_line * self.low_lines))
    }

    /// A new limit (`None`: never stalled), counted from here.
    pub(super) fn set_limit(&mut self, limit: Option<Limit>, best: &[u8], charged: u64) {
        self.limit = limit;
        self.restart(best, charged);
    }

    /// Not stalled until the best gets smaller than any before.
    pub(super) fn pause(&mut self) {
        self.paused = true;
    }

    /// The count starts again from `best`, and is no longer paused.
    pub(super) fn restart(&mut self, best: &[u8], charged: u64) {
        self.low = best.len();
        self.low_lines = best.iter().filter(|&&b| b == b'\n').count() as u64;
        self.low_at = charged;
        self.paused = false;
    }

    /// A new best: when smaller than any before, the count starts again.
    pub(super) fn best(&mut self, best: &[u8], charged: u64) {
        if best.len() < self.low {
            self.restart(best, charged);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text of `n` bytes on one line.
    fn text(n: usize) -> Vec<u8> {
        vec![b'x'; n]
    }

    fn limit(runs: u64) -> Option<Limit> {
        Some(Limit { runs, per_line: 0 })
    }

    #[test]
    fn stalls_after_the_limit_without_a_smaller_best() {
        let mut s = Stall::new(&text(100));
        assert!(!s.stalled(1_000), "no limit: never");
        s.set_limit(limit(3), &text(100), 10);
        assert!(!s.stalled(12));
        assert!(s.stalled(13), "3 runs since the limit was set");
        s.best(&text(100), 13);
        assert!(s.stalled(13), "a best no smaller is no progress");
        s.best(&text(90), 14);
        assert!(!s.stalled(16));
        assert!(s.stalled(17), "3 runs since the smaller best");
    }

    #[test]
    fn a_paused_count_waits_for_a_smaller_best_then_counts_again() {
        let mut s = Stall::new(&text(100));
        s.set_limit(limit(2), &text(100), 0);
        assert!(s.stalled(2));
        s.pause();
        assert!(!s.stalled(50), "paused");
        s.best(&text(120), 51);
        s.best(&text(100), 52);
        assert!(
            !s.stalled(60),
            "a larger or equal best does not restart the count"
        );
        s.best(&text(80), 60);
        assert!(!s.stalled(61));
        assert!(s.stalled(62), "restarted at the smaller best");
        s.set_limit(None, &text(80), 62);
        assert!(!s.stalled(1_000), "the limit lifted");
    }

    #[test]
    fn a_smaller_best_counts_from_the_smallest_so_far() {
        let mut s = Stall::new(&text(100));
        s.set_limit(limit(5), &text(100), 0);
        s.best(&text(90), 2);
        // an enabling rewrite grows the text, then it comes back to 95: not below 90
        s.best(&text(110), 3);
        s.best(&text(95), 4);
        assert!(s.stalled(7), "counted from the best of 90 at run 2");
        // restarted by hand (a new file of a multi-file run): counted from its length
        s.restart(&text(500), 7);
        assert!(!s.stalled(11));
        s.best(&text(400), 11);
        assert!(!s.stalled(15) && s.stalled(16));
    }

    #[test]
    fn a_long_text_needs_runs_for_each_of_its_lines() {
        let lines = b"a\n".repeat(100);
        let mut s = Stall::new(&lines);
        s.set_limit(
            Some(Limit {
                runs: 50,
                per_line: 2,
            }),
            &lines,
            0,
        );
        assert!(
            !s.stalled(199) && s.stalled(200),
            "2 runs a line, 100 lines"
        );
        s.best(&lines[..20], 200);
        assert!(
            !s.stalled(249) && s.stalled(250),
            "10 lines: the floor of 50 runs"
        );
    }
}
