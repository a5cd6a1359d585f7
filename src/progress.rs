//! What the user sees while a run goes on: an indicatif line redrawn in place on a terminal, one
//! plain line per improvement otherwise, nothing with `-q`.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::stats::Stats;

pub struct Progress {
    bar: Option<ProgressBar>,
    plain: bool,
    original: usize,
    start: Instant,
    phase: String,
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
        }
    }

    pub fn set_phase(&mut self, phase: &str) {
        if phase != self.phase {
            self.phase = phase.to_string();
        }
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
        format!(
            "{}: {} -> {} bytes ({removed}% removed), {} tests ({rate:.1}/s), {} cached, {:.0}s",
            if self.phase.is_empty() {
                "reducing"
            } else {
                &self.phase
            },
            self.original,
            best,
            stats.tests,
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
