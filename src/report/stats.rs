//! Counters of one run, shared by the summary, the progress line and `--stats-json`.

use serde::Serialize;

use crate::report::progress::percent_text;
use crate::signature::Signature;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    /// Runs of the test script (the check of the original included).
    pub tests: u64,
    /// Runs that said "interesting".
    pub interesting: u64,
    /// Runs killed by the timeout.
    pub timeouts: u64,
    /// Speculative runs killed because an earlier candidate won (with -j above 1).
    pub cancelled: u64,
    /// Candidates answered from the verdict cache, without a run.
    pub cache_hits: u64,
    /// Of these, verdicts kept on disk by an earlier run (the persistent cache).
    pub persistent_hits: u64,
    /// Tree candidates skipped because they parse worse than the current best.
    pub pruned: u64,
    /// The prefilter turned itself off (parsing cost more than testing) in some round.
    pub prefilter_off: bool,
    /// `--same-failure`: runs that failed, but not as the original did (another signature, or
    /// an error before the same crash): the slips the signature caught.
    pub slips: u64,
    /// Total seconds spent in test runs.
    pub test_seconds: f64,
    /// Seconds the reducer's own thread (the one that feeds the workers) waited for a test run
    /// to end. The rest of the wall time it was working: planning the speculation, rendering,
    /// hashing, parsing candidates for the prefilter.
    pub wait_seconds: f64,
}

/// The machine-readable record written by `--stats-json`.
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    pub input: String,
    pub algo: String,
    pub original_bytes: usize,
    pub final_bytes: usize,
    pub original_lines: usize,
    pub final_lines: usize,
    pub original_tokens: Option<usize>,
    pub final_tokens: Option<usize>,
    pub rounds: u32,
    pub completion: String,
    pub wall_seconds: f64,
    pub output: Option<String>,
    pub backup: Option<String>,
    #[serde(flatten)]
    pub stats: Stats,
    /// Per-pass figures of a tree run, in the order the passes first ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub passes: Vec<PassStats>,
    /// Per-file sizes of a multi-file run, in path order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileSizes>,
    /// Running the same command again resumes this run (in place, with its resume record).
    #[serde(skip)]
    pub resumable: bool,
    /// What `--same-failure`, `--save-slipped`, `--reduce-args`, `--preprocess` and `--report`
    /// add.
    #[serde(flatten)]
    pub failure: FailureRecord,
}

/// The parts of the record of `--same-failure`, `--save-slipped`, `--reduce-args`,
/// `--preprocess` and `--report` (each left out when its flag was not given).
#[derive(Clone, Debug, Default, Serialize)]
pub struct FailureRecord {
    /// The failure kept, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// The failure kept, in full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slipped: Option<SlippedRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preprocessed: Option<PreprocessRecord>,
    /// The `--report` directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
}

/// `--save-slipped`: where, and what.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SlippedRecord {
    pub dir: String,
    /// The other failures saved, in the order first seen (earlier runs' included).
    pub signatures: Vec<Slip>,
    /// Why saving stopped, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Slip {
    pub short_name: String,
    pub file: String,
    pub size: usize,
}

/// `--reduce-args`: the command before and after.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CommandRecord {
    /// The words after `--`, as given.
    pub original: Vec<String>,
    /// The words after `--`, reduced (the program as given).
    pub reduced: Vec<String>,
    /// The reduced command for a shell, the result's file name in place of `@@`.
    pub shell: String,
    /// Test runs the reduction of the arguments made (not in `tests`).
    pub tests: u64,
    /// It was stopped (interrupted, or no budget left) before its end.
    pub stopped: bool,
}

/// `--preprocess`: how the input was preprocessed.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PreprocessRecord {
    /// The preprocessor's command line.
    pub command: String,
    /// The input's size before preprocessing (`original_bytes` is the preprocessed size).
    pub original_bytes: usize,
    pub preprocessed_bytes: usize,
}

/// One file of a multi-file run.
#[derive(Clone, Debug, Serialize)]
pub struct FileSizes {
    /// Relative to the set's root.
    pub path: String,
    /// The algorithm it was reduced with.
    pub algo: String,
    pub original_bytes: usize,
    pub final_bytes: usize,
    /// `--delete-files` removed it.
    pub deleted: bool,
}

pub fn count_lines(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// `1 test run`, `2 test runs`: a count with its noun.
pub fn count(n: u64, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        _ => format!("{n} {many}"),
    }
}

/// The end-of-run summary, two or three lines.
pub fn summary(r: &Record) -> String {
    let s = &r.stats;
    let tokens = match (r.original_tokens, r.final_tokens) {
        (Some(a), Some(b)) => format!(", {a} -> {b} tokens"),
        _ => String::new(),
    };
    let mut extra = vec![format!("{} interesting", s.interesting)];
    extra.push(format!("{} timed out", s.timeouts));
    extra.push(format!("{} from cache", s.cache_hits));
    if r.algo == "hdd" || r.algo == "perses" {
        extra.push(format!("{} skipped by the parse prefilter", s.pruned));
    }
    let mut out = format!(
        "reduce: {} {}: {} -> {} bytes ({}% removed), {} -> {} lines{tokens}\nreduce: {} ({}) in {:.1}s, {}",
        r.algo,
        r.completion.replace('_', "-"),
        r.original_bytes,
        r.final_bytes,
        percent_text(r.original_bytes, r.final_bytes),
        r.original_lines,
        r.final_lines,
        count(s.tests, "test run", "test runs"),
        extra.join(", "),
        r.wall_seconds,
        count(u64::from(r.rounds), "round", "rounds")
    );
    match (&r.output, &r.backup) {
        (Some(o), Some(b)) => {
            out.push_str(&format!("\nreduce: result in {o}, original kept as {b}"))
        }
        (Some(o), None) => out.push_str(&format!("\nreduce: result in {o}")),
        _ => out.push_str("\nreduce: result written to stdout"),
    }
    if r.completion == "interrupted" && r.resumable {
        out.push_str("\nreduce: to resume, run the same command again");
    }
    out.push_str(&failure_lines(&r.failure));
    if r.failure.kept.is_some() && s.slips > 0 {
        out.push_str(&format!(
            "\nreduce: {} failed another way and {} not kept",
            count(s.slips, "candidate", "candidates"),
            if s.slips == 1 { "was" } else { "were" }
        ));
    }
    out
}

/// The summary's lines of `--same-failure`, `--preprocess`, `--reduce-args`, `--save-slipped`
/// and `--report`, each starting with a newline.
fn failure_lines(f: &FailureRecord) -> String {
    let mut out = String::new();
    if let Some(kept) = &f.kept {
        out.push_str(&format!("\nreduce: kept the failure: {kept}"));
    }
    if let Some(p) = &f.preprocessed {
        out.push_str(&format!(
            "\nreduce: the input was preprocessed ({} -> {} bytes, `{}`): the result is the preprocessed file, reduced",
            p.original_bytes, p.preprocessed_bytes, p.command
        ));
    }
    if let Some(c) = &f.command {
        let stopped = if c.stopped { ", stopped early" } else { "" };
        out.push_str(&format!(
            "\nreduce: smallest failing command: {} ({}{stopped})",
            c.shell,
            count(c.tests, "test run", "test runs")
        ));
    }
    if let Some(s) = &f.slipped {
        let names: Vec<&str> = s.signatures.iter().map(|x| x.file.as_str()).collect();
        match names.is_empty() {
            true => out.push_str(&format!(
                "\nreduce: no other failure met (--save-slipped {})",
                s.dir
            )),
            false => out.push_str(&format!(
                "\nreduce: {} in {}: {}",
                count(names.len() as u64, "other failure", "other failures"),
                s.dir,
                names.join(", ")
            )),
        }
        if let Some(e) = &s.error {
            out.push_str(&format!(
                "\nreduce: warning: --save-slipped stopped saving: {e}"
            ));
        }
    }
    if let Some(dir) = &f.report {
        out.push_str(&format!(
            "\nreduce: bug report in {dir} (its repro.sh shows the failure)"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_of_one_is_singular() {
        assert_eq!(count(1, "test run", "test runs"), "1 test run");
        assert_eq!(count(0, "test run", "test runs"), "0 test runs");
        assert_eq!(count(2, "round", "rounds"), "2 rounds");
    }
}

/// One pass's figures over the whole run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PassStats {
    pub name: String,
    /// Times the pass ran.
    pub runs: u32,
    /// Test runs (cache hits excluded) and how many said "interesting".
    pub tests: u64,
    pub successes: u64,
    pub bytes_removed: i64,
    pub tokens_removed: i64,
    pub seconds: f64,
}

impl PassStats {
    /// Adds `run` to its pass's row of `table` (a new row at the end for a new pass).
    pub fn merge(table: &mut Vec<PassStats>, run: PassStats) {
        let Some(row) = table.iter_mut().find(|p| p.name == run.name) else {
            table.push(run);
            return;
        };
        row.runs += run.runs;
        row.tests += run.tests;
        row.successes += run.successes;
        row.bytes_removed += run.bytes_removed;
        row.tokens_removed += run.tokens_removed;
        row.seconds += run.seconds;
    }
}

/// The per-pass table of the summary (`--verbose`).
pub fn pass_table(passes: &[PassStats]) -> String {
    let mut out = String::from(
        "reduce: pass                          runs   tests  success  -tokens   -bytes    time",
    );
    for p in passes {
        out.push_str(&format!(
            "\nreduce: {:<29} {:>5} {:>7} {:>8} {:>8} {:>8} {:>6.1}s",
            p.name, p.runs, p.tests, p.successes, p.tokens_removed, p.bytes_removed, p.seconds
        ));
    }
    out
}

/// The per-file lines of the summary.
pub fn file_table(files: &[FileSizes]) -> String {
    files
        .iter()
        .map(|f| {
            let after = match f.deleted {
                true => "deleted".to_string(),
                false => format!("{} bytes", f.final_bytes),
            };
            format!(
                "reduce:   {}: {} -> {after} ({})",
                f.path, f.original_bytes, f.algo
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
