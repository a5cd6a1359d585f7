//! What the user sees while a run goes on: an indicatif line redrawn in place on a terminal, one
//! plain line per improvement otherwise, nothing with `-q`.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::report::stats::Stats;

pub struct Progress {
    bar: Option<ProgressBar>,
    plain: bool,
    original: usize,
    start: Instant,
    phase: String,
    /// Candidates the current pass has left at most, when it knows.
    left: Option<usize>,
    /// Tests run at once.
    jobs: usize,
    /// `--verbose`: the first test runs are shown in full.
    verbose: bool,
}

impl Progress {
    pub fn new(quiet: bool, original: usize) -> Progress {
        let tty = std::io::stderr().is_terminal()
            && std::env::var_os("TERM").is_some_and(|t| t != "dumb");
        let bar = (!quiet && tty).then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(10));
            let style = ProgressStyle::with_template("{spinner} {msg}").expect("static template");
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            bar,
            plain: !quiet && !tty,
            original,
            start: Instant::now(),
            phase: String::new(),
            left: None,
            jobs: 1,
            verbose: false,
        }
    }

    pub fn set_verbose(&mut self, verbose: bool) {
        self.verbose = verbose;
    }

    pub fn verbose(&self) -> bool {
        self.verbose
    }

    /// Tests run at once, for the pass's estimate.
    pub fn set_jobs(&mut self, jobs: usize) {
        self.jobs = jobs.max(1);
    }

    pub fn set_phase(&mut self, phase: &str) {
        crate::report::trace::phase(phase);
        if phase != self.phase {
            self.phase = phase.to_string();
        }
        self.left = None;
    }

    /// How many candidates the pass has left at most (`None`: unknown, no estimate shown).
    pub fn set_left(&mut self, left: Option<usize>) {
        self.left = left;
    }

    pub fn phase(&self) -> &str {
        &self.phase
    }

    /// Redraws the live line (terminal only).
    pub fn tick(&self, best: usize, stats: &Stats) {
        if let Some(bar) = &self.bar {
            bar.set_message(self.line(best, stats));
        }
    }

    /// Reports a new best result.
    pub fn improved(&self, best: usize, stats: &Stats) {
        if self.plain {
            eprintln!("reduce: {}", self.line(best, stats));
        } else {
            self.tick(best, stats);
        }
    }

    fn line(&self, best: usize, stats: &Stats) -> String {
        let secs = self.start.elapsed().as_secs_f64();
        let removed = percent_text(self.original, best);
        let rate = if secs > 0.0 {
            stats.tests as f64 / secs
        } else {
            0.0
        };
        let eta = pass_eta(self.left, stats, self.jobs).map_or(String::new(), |secs| {
            format!(", pass ETA {}", eta_text(secs))
        });
        format!(
            "{}: {} -> {} bytes ({removed}% removed), {} ({rate:.1}/s), {} cached, {:.0}s{eta}",
            if self.phase.is_empty() {
                "reducing"
            } else {
                &self.phase
            },
            self.original,
            best,
            crate::report::stats::count(stats.tests, "test", "tests"),
            stats.cache_hits,
            secs
        )
    }

    /// Clears the live line before the summary is printed.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// Prints a line above the live display without tearing it.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }
}

/// `outer: inner`, or the one that is not empty (a pass whose inner policy names no phase shows
/// as `unreferenced`, not `unreferenced: `).
pub fn phase_text(outer: &str, inner: &str) -> String {
    match (outer.is_empty(), inner.is_empty()) {
        (_, true) => outer.to_string(),
        (true, false) => inner.to_string(),
        (false, false) => format!("{outer}: {inner}"),
    }
}

/// The pass's remaining time at most: candidates left x mean test time / jobs. `None` when the
/// pass does not know how many candidates it has left, or no test has run yet.
pub fn pass_eta(left: Option<usize>, stats: &Stats, jobs: usize) -> Option<f64> {
    let left = left?;
    (stats.tests > 0).then(|| {
        let mean = stats.test_seconds / stats.tests as f64;
        left as f64 * mean / jobs.max(1) as f64
    })
}

/// `45s`, `12m05s`, `3h20m`.
pub fn eta_text(secs: f64) -> String {
    let s = secs.round().max(0.0) as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

/// The share removed with one decimal, or as many more as it takes not to round a partial
/// removal to 100% (or a small one to 0%): "99.9985", not "100.0".
pub fn percent_text(original: usize, now: usize) -> String {
    let p = percent_removed(original, now);
    let partial = now > 0 && now < original;
    let mut decimals = 1;
    loop {
        let text = format!("{p:.decimals$}");
        let rounded: f64 = text.parse().unwrap_or(p);
        if !partial || (rounded > 0.0 && rounded < 100.0) || decimals >= 9 {
            return text;
        }
        decimals += 1;
    }
}

pub fn percent_removed(original: usize, now: usize) -> f64 {
    if original == 0 {
        0.0
    } else {
        100.0 * (original.saturating_sub(now)) as f64 / original as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_with_an_empty_part_has_no_dangling_colon() {
        assert_eq!(phase_text("unreferenced", ""), "unreferenced");
        assert_eq!(phase_text("", "replacing"), "replacing");
        assert_eq!(phase_text("perses", "replacing"), "perses: replacing");
    }

    #[test]
    fn the_pass_eta_is_left_times_mean_over_jobs_and_only_when_known() {
        let stats = Stats {
            tests: 10,
            test_seconds: 5.0,
            ..Stats::default()
        };
        assert_eq!(pass_eta(Some(40), &stats, 2), Some(10.0));
        assert_eq!(pass_eta(None, &stats, 2), None);
        assert_eq!(pass_eta(Some(40), &Stats::default(), 2), None);
        assert_eq!(eta_text(9.4), "9s");
        assert_eq!(eta_text(725.0), "12m05s");
        assert_eq!(eta_text(12000.0), "3h20m");
    }
}
